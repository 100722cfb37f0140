//! The REPL's `:commands`, parsed from a line. Commands start with `:` so
//! that no word is taken from the language.

use std::fmt;
use std::path::PathBuf;

use crate::ir::names::suggest;

/// One command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `:load FILE`: run a rule file in the session.
    Load(PathBuf),
    /// `:reload`: re-read every loaded file.
    Reload,
    /// `:games`: the defined games with their parameters and `where`.
    Games,
    /// `:explain [NAME]`: how the search evaluates a game (or every game).
    Explain(Option<String>),
    /// `:help [TOPIC]`.
    Help(Option<String>),
    /// `:time [on|off]`: timing of each answer (no argument: toggle).
    Time(Option<bool>),
    /// `:clear`: drop the memo tables.
    Clear,
    /// `:timeout [SECONDS|off]`: the time limit of each entry (no
    /// argument: show it).
    Timeout(Option<Option<std::time::Duration>>),
    /// `:plot [EXPR] [FILE]`: a heatmap of a table as PNG and SVG.
    Plot {
        expr: Option<String>,
        file: Option<PathBuf>,
    },
    /// `:play EXPR`: play the game against perfect play.
    Play(String),
    /// `:quit`.
    Quit,
}

/// A command line that cannot be run, with a hint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandError {
    pub message: String,
    pub help: Option<String>,
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message)?;
        if let Some(h) = &self.help {
            write!(f, "\n  help: {h}")?;
        }
        Ok(())
    }
}

/// A command's name, other spellings, usage and one line of help.
pub struct Spec {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub usage: &'static str,
    pub about: &'static str,
}

/// Every command, in the order `:help` lists them.
pub const COMMANDS: &[Spec] = &[
    Spec {
        name: "load",
        aliases: &["l"],
        usage: ":load FILE",
        about: "run a rule file in this session (its games, functions and prints)",
    },
    Spec {
        name: "reload",
        aliases: &["r"],
        usage: ":reload",
        about: "re-read every loaded file, keep your own definitions, say what changed",
    },
    Spec {
        name: "games",
        aliases: &["g"],
        usage: ":games",
        about: "list the games with their parameters and `where` conditions",
    },
    Spec {
        name: "explain",
        aliases: &["e"],
        usage: ":explain [GAME]",
        about: "how the search evaluates a game, move by move, and why a move is slow",
    },
    Spec {
        name: "help",
        aliases: &["h", "?"],
        usage: ":help [TOPIC]",
        about: "this list; `:help NAME` for a built-in, game, function or command",
    },
    Spec {
        name: "time",
        aliases: &["t"],
        usage: ":time [on|off]",
        about: "show how long each answer took (no argument: toggle)",
    },
    Spec {
        name: "clear",
        aliases: &[],
        usage: ":clear",
        about: "drop the memo tables (the SG values computed so far)",
    },
    Spec {
        name: "timeout",
        aliases: &[],
        usage: ":timeout [SECONDS|off]",
        about: "stop each entry after SECONDS (no argument: show the limit)",
    },
    Spec {
        name: "plot",
        aliases: &["p"],
        usage: ":plot [EXPR] [FILE.png]",
        about: "heatmap of a table as PNG and SVG (no EXPR: the last table shown)",
    },
    Spec {
        name: "play",
        aliases: &[],
        usage: ":play GAME",
        about:
            "play GAME against perfect play: you move (a number or a name), I reply; `undo`, `quit`",
    },
    Spec {
        name: "quit",
        aliases: &["q", "exit"],
        usage: ":quit",
        about: "leave (Ctrl-D too)",
    },
];

/// The command spec for a name or alias (without the colon).
pub fn spec(name: &str) -> Option<&'static Spec> {
    let name = name.strip_prefix(':').unwrap_or(name);
    COMMANDS
        .iter()
        .find(|s| s.name == name || s.aliases.contains(&name))
}

/// Whether a line is a command (its first non-blank character is `:`).
pub fn is_command(line: &str) -> bool {
    line.trim_start().starts_with(':')
}

/// Parses a command line such as `:load nim.game`.
pub fn parse(line: &str) -> Result<Command, CommandError> {
    let line = line.trim();
    let body = line.strip_prefix(':').unwrap_or(line);
    let (word, rest) = match body.find(char::is_whitespace) {
        Some(i) => (&body[..i], body[i..].trim()),
        None => (body, ""),
    };
    let Some(spec) = spec(word) else {
        return Err(unknown(word));
    };
    let no_argument = |cmd: Command| {
        if rest.is_empty() {
            Ok(cmd)
        } else {
            Err(CommandError {
                message: format!("`:{}` takes no argument, got `{rest}`", spec.name),
                help: Some(format!("usage: {}", spec.usage)),
            })
        }
    };
    match spec.name {
        "load" => {
            if rest.is_empty() {
                return Err(CommandError {
                    message: "`:load` needs a file".to_string(),
                    help: Some("usage: :load FILE, e.g. :load examples/course/nim.game".into()),
                });
            }
            Ok(Command::Load(PathBuf::from(unquote(rest))))
        }
        "reload" => no_argument(Command::Reload),
        "games" => no_argument(Command::Games),
        "explain" => Ok(Command::Explain(
            Some(rest.to_string()).filter(|r| !r.is_empty()),
        )),
        "clear" => no_argument(Command::Clear),
        "quit" => no_argument(Command::Quit),
        "help" => Ok(Command::Help(
            Some(rest.to_string()).filter(|r| !r.is_empty()),
        )),
        "time" => match rest {
            "" => Ok(Command::Time(None)),
            "on" => Ok(Command::Time(Some(true))),
            "off" => Ok(Command::Time(Some(false))),
            _ => Err(CommandError {
                message: format!("`:time` takes `on` or `off`, got `{rest}`"),
                help: Some("usage: :time [on|off]; without an argument it toggles".into()),
            }),
        },
        "plot" => Ok(plot(rest)),
        "play" => {
            if rest.is_empty() {
                return Err(CommandError {
                    message: "`:play` needs a game".to_string(),
                    help: Some("usage: :play GAME, e.g. :play Heap(3) + Heap(5)".into()),
                });
            }
            Ok(Command::Play(rest.to_string()))
        }
        "timeout" => match rest {
            "" => Ok(Command::Timeout(None)),
            "off" => Ok(Command::Timeout(Some(None))),
            _ => crate::cli::parse_seconds(rest)
                .map(|d| Command::Timeout(Some(Some(d))))
                .map_err(|message| CommandError {
                    message,
                    help: Some("usage: :timeout [SECONDS|off], e.g. :timeout 10".into()),
                }),
        },
        _ => unreachable!("every spec is handled"),
    }
}

/// `:plot [EXPR] [FILE]`: the file is the last word when it ends in
/// `.png` or `.svg` (an expression never does: no value has such a field).
fn plot(rest: &str) -> Command {
    let (expr, file) = match rest.rsplit_once(char::is_whitespace) {
        Some((head, last)) if is_picture(last) => (head.trim(), Some(last)),
        _ if is_picture(rest) => ("", Some(rest)),
        _ => (rest, None),
    };
    Command::Plot {
        expr: Some(expr.to_string()).filter(|e| !e.is_empty()),
        file: file.map(|f| PathBuf::from(unquote(f))),
    }
}

fn is_picture(word: &str) -> bool {
    let w = unquote(word).to_ascii_lowercase();
    !w.contains(char::is_whitespace) && (w.ends_with(".png") || w.ends_with(".svg"))
}

/// A path with its surrounding quotes removed, if it has them.
fn unquote(s: &str) -> &str {
    let s = s.trim();
    for q in ['"', '\''] {
        if s.len() >= 2 && s.starts_with(q) && s.ends_with(q) {
            return &s[1..s.len() - 1];
        }
    }
    s
}

fn unknown(word: &str) -> CommandError {
    let names = COMMANDS.iter().map(|s| s.name);
    let help = match suggest(word, names) {
        Some(s) => format!("did you mean `:{s}`? (`:help` lists the commands)"),
        None => "`:help` lists the commands".to_string(),
    };
    CommandError {
        message: if word.is_empty() {
            "a command name must follow `:`".to_string()
        } else {
            format!("unknown command `:{word}`")
        },
        help: Some(help),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(line: &str) -> Command {
        parse(line).unwrap_or_else(|e| panic!("{line}: {e}"))
    }

    #[test]
    fn commands_without_arguments() {
        assert_eq!(ok(":reload"), Command::Reload);
        assert_eq!(ok("  :games  "), Command::Games);
        assert_eq!(ok(":explain Heap"), Command::Explain(Some("Heap".into())));
        assert_eq!(ok(":e"), Command::Explain(None));
        assert_eq!(ok(":clear"), Command::Clear);
        assert_eq!(ok(":timeout"), Command::Timeout(None));
        assert_eq!(ok(":timeout off"), Command::Timeout(Some(None)));
        assert_eq!(
            ok(":timeout 2.5"),
            Command::Timeout(Some(Some(std::time::Duration::from_millis(2500))))
        );
        assert!(parse(":timeout soon").is_err());
        assert_eq!(ok(":quit"), Command::Quit);
        assert_eq!(ok(":q"), Command::Quit);
        assert_eq!(ok(":exit"), Command::Quit);
        let e = parse(":games now").unwrap_err();
        assert_eq!(e.message, "`:games` takes no argument, got `now`");
    }

    #[test]
    fn load_takes_a_path_maybe_quoted() {
        assert_eq!(ok(":load a.game"), Command::Load("a.game".into()));
        assert_eq!(
            ok(":l  dir/my game.game "),
            Command::Load("dir/my game.game".into())
        );
        assert_eq!(ok(":load \"x y.game\""), Command::Load("x y.game".into()));
        assert!(parse(":load").unwrap_err().message.contains("needs a file"));
    }

    #[test]
    fn help_and_time() {
        assert_eq!(ok(":help"), Command::Help(None));
        assert_eq!(ok(":? sg"), Command::Help(Some("sg".into())));
        assert_eq!(ok(":h :load"), Command::Help(Some(":load".into())));
        assert_eq!(ok(":time"), Command::Time(None));
        assert_eq!(ok(":time on"), Command::Time(Some(true)));
        assert_eq!(ok(":t off"), Command::Time(Some(false)));
        assert!(parse(":time maybe").is_err());
    }

    #[test]
    fn plot_splits_off_a_picture_file() {
        let plot = |e: Option<&str>, f: Option<&str>| Command::Plot {
            expr: e.map(String::from),
            file: f.map(PathBuf::from),
        };
        assert_eq!(ok(":plot"), plot(None, None));
        assert_eq!(ok(":plot out.png"), plot(None, Some("out.png")));
        assert_eq!(ok(":plot t"), plot(Some("t"), None));
        assert_eq!(
            ok(":plot table(sg(G(a, b)) for a in 0..3, b in 0..3) ed.SVG"),
            plot(
                Some("table(sg(G(a, b)) for a in 0..3, b in 0..3)"),
                Some("ed.SVG")
            )
        );
        assert_eq!(ok(":p x + y"), plot(Some("x + y"), None));
    }

    #[test]
    fn play_takes_a_game_expression() {
        assert_eq!(
            ok(":play Heap(3) + Heap(5)"),
            Command::Play("Heap(3) + Heap(5)".into())
        );
        let e = parse(":play").unwrap_err();
        assert_eq!(e.message, "`:play` needs a game");
        assert!(e.help.unwrap().contains("usage: :play GAME"));
    }

    #[test]
    fn unknown_commands_suggest_a_near_one() {
        let e = parse(":relaod").unwrap_err();
        assert_eq!(e.message, "unknown command `:relaod`");
        assert_eq!(
            e.help.as_deref(),
            Some("did you mean `:reload`? (`:help` lists the commands)")
        );
        assert!(parse(":").unwrap_err().message.contains("must follow"));
        assert!(parse(":ωω").is_err());
    }

    #[test]
    fn recognises_command_lines() {
        assert!(is_command("  :q"));
        assert!(!is_command("sg(Heap(3))"));
        assert_eq!(spec("q").map(|s| s.name), Some("quit"));
        assert_eq!(spec(":load").map(|s| s.name), Some("load"));
    }
}
