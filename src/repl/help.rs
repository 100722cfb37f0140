//! `:help [TOPIC]`: the commands, the editing keys, the statements, and one
//! line per built-in; a game or function of the session shows its
//! definition.

use super::command::{spec, COMMANDS};
use super::games;
use crate::eval::builtins::Builtin;
use crate::ir::names::{suggest, Item};
use crate::session::Session;

const TOPICS: &[&str] = &["keys", "language", "builtins"];

const KEYS: &str = "\
Tab          complete a game, function, built-in, keyword or :command name
Up / Down    earlier entries (history is kept between sessions)
Ctrl-C       stop a running computation (the session and its memo tables stay);
             at the prompt, drop the line being typed
Ctrl-D       quit
An entry goes on over several lines while a `(`, `[` or `{` is open, or
while it is unfinished (`game G(n)` before its body); a blank line ends it.";

const LANGUAGE: &str = "\
game Name(params) where cond { move label(x in R) if guard -> result ... }
game Name(params) = expr           an alias
fn name(params) = expr             a function
let name = expr                    a constant
assert expr                        a check
print expr, ...                    prints values
expr                               shows its value
Questions: sg(G), outcome(G), options(G), winning(G), table(e for r in R, c in C),
plot(table) (a heatmap), all/any/count(c for x in R), period(e for n in R).
docs/language.md has it all.";

/// The help text for a topic, or an error naming the unknown topic.
pub fn help(topic: Option<&str>, session: &Session) -> Result<String, String> {
    let Some(topic) = topic.map(str::trim) else {
        return Ok(overview());
    };
    if topic.starts_with(':') {
        return command_help(topic).ok_or_else(|| unknown(topic, session));
    }
    if let Some(text) = name_help(topic, session) {
        // `plot` is both a built-in and a command: both are shown.
        return Ok(
            match command_help(topic).filter(|_| Builtin::from_name(topic).is_some()) {
                Some(command) => format!("{text}\n\n{command}"),
                None => text,
            },
        );
    }
    if let Some(text) = command_help(topic) {
        return Ok(text);
    }
    match topic {
        "keys" | "editing" => Ok(KEYS.to_string()),
        "language" | "syntax" | "statements" => Ok(LANGUAGE.to_string()),
        "builtins" | "built-ins" => Ok(builtins()),
        _ => Err(unknown(topic, session)),
    }
}

fn overview() -> String {
    let mut lines = vec![
        "Type a statement or an expression: `game`, `fn`, `let`, `assert`, `print`, or e.g."
            .to_string(),
        "sg(Heap(3) + Heap(5)). Commands:".to_string(),
    ];
    let w = COMMANDS.iter().map(|c| c.usage.len()).max().unwrap_or(0);
    for c in COMMANDS {
        lines.push(format!("  {:<w$}  {}", c.usage, c.about));
    }
    lines.push(format!(
        "More: :help {} (or the name of a built-in, game or function).",
        TOPICS.join(", :help ")
    ));
    lines.join("\n")
}

fn command_help(topic: &str) -> Option<String> {
    let c = spec(topic)?;
    let mut text = format!("{}\n  {}", c.usage, c.about);
    if !c.aliases.is_empty() {
        let aliases: Vec<String> = c.aliases.iter().map(|a| format!(":{a}")).collect();
        text.push_str(&format!("\n  also written {}", aliases.join(", ")));
    }
    let more = match c.name {
        "reload" => Some(
            "The files and your own definitions (game, fn, let) run again in the order\n  \
             they were made, so that yours use the new versions; an entry that no longer\n  \
             works is dropped. If a file cannot be read or no longer parses, nothing changes.",
        ),
        "plot" => Some(
            "EXPR must give a table of SG values or outcomes, e.g.\n  \
             :plot table(sg(G(a, b)) for a in 0..20, b in 0..20) g.png\n  \
             writes g.png and g.svg (default plot.png and plot.svg); P-positions are highlighted.\n  \
             The built-in plot(T) makes the same picture a value (shown inline in a notebook).",
        ),
        "clear" => Some("Values are computed again when asked for; definitions stay."),
        "timeout" => Some(
            "An entry that runs longer stops with grundy::timeout; the session and its\n  \
             memo tables stay. Ctrl-C stops an entry too. `grundy repl --timeout SECONDS`\n  \
             sets it from the start.",
        ),
        _ => None,
    };
    if let Some(m) = more {
        text.push_str("\n  ");
        text.push_str(m);
    }
    Some(text)
}

/// Help on a built-in, or on a game, function or constant of the session.
fn name_help(name: &str, session: &Session) -> Option<String> {
    if let Some(b) = Builtin::from_name(name) {
        return Some(format!("{}  (built-in)", b.doc()));
    }
    let item = session.names().get(name)?;
    let rt = session.runtime();
    match item {
        Item::Game { id, .. } => {
            let g = rt.games.get(*id as usize)?.as_ref()?;
            let info = games::games(session)
                .into_iter()
                .find(|i| *i.name == *g.name)?;
            Some(format!(
                "game, defined at {}:\n{}",
                info.origin,
                session.sources.snippet(g.span)
            ))
        }
        Item::Fn { id, .. } => {
            let f = rt.fns.get(*id as usize)?.as_ref()?;
            Some(format!("function:\n{}", session.sources.snippet(f.span)))
        }
        Item::Global { id, .. } => {
            let value = rt.globals.borrow().get(*id as usize).cloned().flatten();
            Some(match value {
                Some(v) => format!("constant: {name} = {v:#}"),
                None => format!("constant `{name}` (no value yet)"),
            })
        }
    }
}

fn builtins() -> String {
    Builtin::ALL
        .iter()
        .map(|b| b.doc())
        .collect::<Vec<_>>()
        .join("\n")
}

fn unknown(topic: &str, session: &Session) -> String {
    let mut candidates: Vec<&str> = TOPICS.to_vec();
    candidates.extend(Builtin::ALL.iter().map(|b| b.name()));
    candidates.extend(COMMANDS.iter().map(|c| c.name));
    candidates.extend(session.names().items.keys().map(|k| &**k));
    let bare = topic.trim_start_matches(':');
    match suggest(bare, candidates.into_iter()) {
        Some(s) => format!("no help for `{topic}`; did you mean `{s}`?"),
        None => format!("no help for `{topic}`; `:help` lists the topics"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Limits;

    fn session() -> Session {
        let mut s = Session::new(Limits::default());
        let text = "game Heap(n) where n >= 0 { move take(k in 1..=n) -> Heap(n - k) }\n\
                    fn double(x) = 2 * x\nlet N = 7\n";
        assert!(s.run("h.game", text, &mut std::io::sink()).ok());
        s
    }

    #[test]
    fn overview_lists_every_command() {
        let s = session();
        let text = help(None, &s).unwrap();
        for c in COMMANDS {
            assert!(text.contains(c.usage), "{}", c.usage);
        }
    }

    #[test]
    fn topics_commands_builtins_and_definitions() {
        let s = session();
        assert!(help(Some("sg"), &s)
            .unwrap()
            .starts_with("sg(G): the Sprague-Grundy value"));
        assert!(help(Some(":reload"), &s).unwrap().starts_with(":reload\n"));
        assert!(help(Some("q"), &s)
            .unwrap()
            .contains("also written :q, :exit"));
        assert!(help(Some("keys"), &s).unwrap().contains("Ctrl-C"));
        let heap = help(Some("Heap"), &s).unwrap();
        assert!(
            heap.starts_with("game, defined at h.game:1:\ngame Heap(n)"),
            "{heap}"
        );
        assert!(help(Some("double"), &s)
            .unwrap()
            .contains("fn double(x) = 2 * x"));
        assert_eq!(help(Some("N"), &s).unwrap(), "constant: N = 7");
        assert!(help(Some("builtins"), &s).unwrap().contains("mex(xs)"));
        let plot = help(Some("plot"), &s).unwrap();
        assert!(
            plot.starts_with("plot(T), plot(e for r in R, c in C)")
                && plot.contains("\n\n:plot [EXPR] [FILE.png]\n"),
            "the built-in and the command: {plot}"
        );
        assert!(help(Some(":plot"), &s).unwrap().starts_with(":plot [EXPR]"));
    }

    #[test]
    fn unknown_topics_suggest() {
        let s = session();
        assert_eq!(
            help(Some("Haep"), &s).unwrap_err(),
            "no help for `Haep`; did you mean `Heap`?"
        );
        assert!(help(Some(":nothing"), &s)
            .unwrap_err()
            .starts_with("no help for `:nothing`"));
    }
}
