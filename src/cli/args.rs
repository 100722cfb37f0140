//! The command line's words read into a `Cli`: `grundy [OPTIONS] COMMAND
//! ...`, the options accepted before or after the command. The words are
//! split by lexopt, a small parser, so that a run pages in little code
//! before its work; the help text is made from the same tables that say
//! which options each command takes.

use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use lexopt::{Arg, Parser};

use crate::report::export::Format;

/// A parsed command line.
#[derive(Debug)]
pub struct Cli {
    pub max_states: Option<usize>,
    pub max_memory: Option<usize>,
    pub timeout: Option<Duration>,
    pub command: Command,
}

#[derive(Debug)]
pub enum Command {
    Run {
        file: PathBuf,
        sets: Vec<String>,
        format: Format,
        plot: Option<PathBuf>,
        explain: bool,
    },
    Test {
        path: PathBuf,
    },
    Repl {
        files: Vec<PathBuf>,
    },
    Octal {
        code: String,
        heaps: usize,
        out: Option<PathBuf>,
    },
    Jupyter {
        action: crate::jupyter::Action,
    },
}

/// What the words ask for: a command to run, or a text (help, version) to
/// print.
#[derive(Debug)]
pub enum Parsed {
    Run(Cli),
    Print(String),
}

/// Words that do not make a command: why, and the usage of the command
/// they were for.
#[derive(Debug)]
pub struct UsageError {
    message: String,
    usage: &'static str,
}

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "error: {}\n\nUsage: {}\n\nFor more information, try '--help'.",
            self.message, self.usage
        )
    }
}

/// An option: its long name, short letter, value's name and help.
struct Opt {
    long: &'static str,
    short: Option<char>,
    value: Option<&'static str>,
    help: &'static str,
}

const fn opt(long: &'static str, value: Option<&'static str>, help: &'static str) -> Opt {
    Opt {
        long,
        short: None,
        value,
        help,
    }
}

/// The options every command takes.
const GLOBAL: &[Opt] = &[
    opt(
        "max-states",
        Some("N"),
        "Most positions kept in memo tables before a search stops with an \
         error (default: no limit; the memory limit stops a search instead)",
    ),
    opt(
        "max-memory",
        Some("SIZE"),
        "Most memory a computation may use before it stops with an error, in \
         bytes or with K, M, G (default: 70% of this machine's memory, or 75% \
         of `ulimit -v` or `ulimit -d` after the stack, when smaller)",
    ),
    opt(
        "timeout",
        Some("SECONDS"),
        "Longest a file (`run`, each file of `test`) or a REPL entry may run, \
         in seconds, before it stops with an error",
    ),
];

/// The options of `run`.
const RUN_OPTIONS: &[Opt] = &[
    opt(
        "set",
        Some("NAME=EXPR"),
        "Give a top-level `let NAME` another value: --set N=128 (repeatable)",
    ),
    opt(
        "format",
        Some("FORMAT"),
        "How printed tables are written: text (a grid), csv or json \
                         [default: text]",
    ),
    opt(
        "plot",
        Some("FILE"),
        "Write a heatmap of the last table printed as FILE.png and FILE.svg",
    ),
    opt(
        "explain",
        None,
        "Say how each game of the file is evaluated (and why a move is \
                         off the fast paths) before running it",
    ),
];

/// The options of `octal`.
const OCTAL_OPTIONS: &[Opt] = &[
    opt("heaps", Some("N"), "The last heap: 1000000, 10^6 or 1e6"),
    opt(
        "out",
        Some("FILE"),
        "Value file (16-bit values after a header line); resumed when it exists",
    ),
];

/// The options of `jupyter install`.
const INSTALL_OPTIONS: &[Opt] = &[
    opt(
        "user",
        None,
        "In the user's Jupyter data directory (the default)",
    ),
    opt(
        "prefix",
        Some("DIR"),
        "Under DIR/share/jupyter (e.g. a virtual environment)",
    ),
];

/// Where in the command tree the words have reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    Top,
    Run,
    Test,
    Repl,
    Octal,
    Jupyter,
    JupyterInstall,
    JupyterKernel,
}

/// What a place's help and usage say, and the options it takes.
struct Spec {
    about: &'static str,
    usage: &'static str,
    arguments: &'static [(&'static str, &'static str)],
    commands: &'static [(&'static str, Place)],
    options: &'static [Opt],
}

impl Place {
    fn spec(self) -> Spec {
        let none = Spec {
            about: "",
            usage: "",
            arguments: &[],
            commands: &[],
            options: &[],
        };
        match self {
            Place::Top => Spec {
                about: "Sprague-Grundy values of impartial games from rule files",
                usage: "grundy [OPTIONS] <COMMAND>",
                commands: &[
                    ("run", Place::Run),
                    ("test", Place::Test),
                    ("repl", Place::Repl),
                    ("octal", Place::Octal),
                    ("jupyter", Place::Jupyter),
                ],
                ..none
            },
            Place::Run => Spec {
                about: "Run a rule file: its prints and assertions",
                usage: "grundy run [OPTIONS] <FILE>",
                arguments: &[("<FILE>", "The rule file")],
                options: RUN_OPTIONS,
                ..none
            },
            Place::Test => Spec {
                about: "Run every .game file under PATH as a test; ends with \
                        \"N passed, M failed\"",
                usage: "grundy test [OPTIONS] <PATH>",
                arguments: &[("<PATH>", "A rule file or a directory of them")],
                ..none
            },
            Place::Repl => Spec {
                about: "Interactive session, after loading FILES",
                usage: "grundy repl [OPTIONS] [FILES]...",
                arguments: &[("[FILES]...", "Rule files to load first")],
                ..none
            },
            Place::Octal => Spec {
                about: "Values of heaps 0..=N of a take-and-break code (octal, \
                        hexadecimal, `!`): streamed to FILE, resumed from it, with a summary",
                usage: "grundy octal [OPTIONS] --heaps <N> <CODE>",
                arguments: &[(
                    "<CODE>",
                    "The code, e.g. 0.16, 4.4, 4!.0 (Grundy's game), 0.F",
                )],
                options: OCTAL_OPTIONS,
                ..none
            },
            Place::Jupyter => Spec {
                about: "Jupyter: `install` the kernelspec, or run the `kernel`",
                usage: "grundy jupyter [OPTIONS] <COMMAND>",
                commands: &[
                    ("install", Place::JupyterInstall),
                    ("kernel", Place::JupyterKernel),
                ],
                ..none
            },
            Place::JupyterInstall => Spec {
                about: "Write the kernelspec, so that Jupyter offers a grundy kernel, \
                        and the JupyterLab extension that highlights grundy code",
                usage: "grundy jupyter install [OPTIONS]",
                options: INSTALL_OPTIONS,
                ..none
            },
            Place::JupyterKernel => Spec {
                about: "Run the kernel (Jupyter starts this with a connection file)",
                usage: "grundy jupyter kernel [OPTIONS] --connection-file <FILE>",
                options: &[Opt {
                    long: "connection-file",
                    short: Some('f'),
                    value: Some("FILE"),
                    help: "The connection file Jupyter writes",
                }],
                ..none
            },
        }
    }

    fn error(self, message: impl Into<String>) -> UsageError {
        UsageError {
            message: message.into(),
            usage: self.spec().usage,
        }
    }

    /// The option `arg` names here, if any.
    fn option(self, arg: &Arg) -> Option<&'static Opt> {
        let spec = self.spec();
        let all = GLOBAL.iter().chain(spec.options);
        all.into_iter().find(|o| match arg {
            Arg::Long(name) => o.long == *name,
            Arg::Short(c) => o.short == Some(*c),
            Arg::Value(_) => false,
        })
    }

    /// The help text: what the place does, its usage, commands,
    /// arguments and options, each description wrapped beside its name.
    fn help(self) -> String {
        let spec = self.spec();
        let mut out = wrapped("", spec.about, 0) + "\nUsage: " + spec.usage + "\n";
        if !spec.commands.is_empty() {
            let help = (
                "help",
                "Print this message or the help of the given command",
            );
            let commands = spec
                .commands
                .iter()
                .map(|&(name, p)| (name, p.spec().about));
            let rows: Vec<_> = (commands.chain([help]))
                .map(|(name, about)| (format!("  {name}"), about))
                .collect();
            out += &table("Commands:", &rows);
        }
        if !spec.arguments.is_empty() {
            let rows: Vec<_> = (spec.arguments.iter())
                .map(|&(name, help)| (format!("  {name}"), help))
                .collect();
            out += &table("Arguments:", &rows);
        }
        let mut rows: Vec<(String, &str)> = (spec.options.iter().chain(GLOBAL))
            .map(|o| {
                let short = o.short.map_or("    ".to_string(), |c| format!("-{c}, "));
                let value = o.value.map_or(String::new(), |v| format!(" <{v}>"));
                (format!("  {short}--{}{value}", o.long), o.help)
            })
            .collect();
        rows.push(("  -h, --help".into(), "Print help"));
        if self == Place::Top {
            rows.push(("  -V, --version".into(), "Print version"));
        }
        out + &table("Options:", &rows)
    }
}

/// A titled two-column table, the second column wrapped.
fn table(title: &str, rows: &[(String, &str)]) -> String {
    let left = rows.iter().map(|(n, _)| n.len()).max().unwrap_or(0) + 2;
    let mut out = format!("\n{title}\n");
    for (name, help) in rows {
        out += &wrapped(&format!("{name:left$}"), help, left);
    }
    out
}

/// `start`, then the words of `text` in lines of at most 80 columns, the
/// lines after the first indented by `indent`.
fn wrapped(start: &str, text: &str, indent: usize) -> String {
    const WIDTH: usize = 80;
    let (mut out, mut line) = (String::new(), start.to_string());
    let mut empty = true;
    for word in text.split_whitespace() {
        if !empty && line.len() + 1 + word.len() > WIDTH {
            out += line.trim_end();
            out.push('\n');
            line = " ".repeat(indent);
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line += word;
        empty = false;
    }
    out + line.trim_end() + "\n"
}

/// The options given, by long name, and the plain words, in order.
#[derive(Default)]
struct Words {
    options: Vec<(&'static str, OsString)>,
    flags: Vec<&'static str>,
    plain: Vec<OsString>,
}

/// Reads the words after the program's name.
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Parsed, UsageError> {
    let mut parser = Parser::from_args(args);
    let mut place = Place::Top;
    let mut words = Words::default();
    while let Some(arg) = parser.next().map_err(|e| place.error(e.to_string()))? {
        match arg {
            Arg::Short('h') | Arg::Long("help") => return Ok(Parsed::Print(place.help())),
            Arg::Short('V') | Arg::Long("version") if place == Place::Top => {
                return Ok(Parsed::Print(format!(
                    "grundy {}\n",
                    env!("CARGO_PKG_VERSION")
                )))
            }
            Arg::Value(word) if !place.spec().commands.is_empty() => {
                if word == "help" {
                    return help_of(
                        place,
                        parser.raw_args().map_err(|e| place.error(e.to_string()))?,
                    );
                }
                place = command_named(place, &word)?;
            }
            Arg::Value(word) => words.plain.push(word),
            named => {
                let Some(o) = place.option(&named) else {
                    return Err(
                        place.error(format!("unexpected argument '{}' found", shown(&named)))
                    );
                };
                match o.value {
                    Some(_) => {
                        let value = parser.value().map_err(|e| place.error(e.to_string()))?;
                        words.options.push((o.long, value));
                    }
                    None => words.flags.push(o.long),
                }
            }
        }
    }
    words.cli(place).map(Parsed::Run)
}

fn shown(arg: &Arg) -> String {
    match arg {
        Arg::Long(name) => format!("--{name}"),
        Arg::Short(c) => format!("-{c}"),
        Arg::Value(v) => v.to_string_lossy().into_owned(),
    }
}

fn command_named(place: Place, word: &OsString) -> Result<Place, UsageError> {
    let spec = place.spec();
    let found = spec.commands.iter().find(|(name, _)| word == name);
    found.map(|&(_, p)| p).ok_or_else(|| {
        let names: Vec<&str> = spec.commands.iter().map(|(n, _)| *n).collect();
        place.error(format!(
            "unrecognized command '{}' (the commands: {})",
            word.to_string_lossy(),
            names.join(", ")
        ))
    })
}

/// `grundy help [COMMAND...]`: the help of the command named.
fn help_of(mut place: Place, rest: lexopt::RawArgs) -> Result<Parsed, UsageError> {
    for word in rest {
        place = command_named(place, &word)?;
    }
    Ok(Parsed::Print(place.help()))
}

impl Words {
    /// The value of option `long`, given at most once.
    fn one(&self, place: Place, long: &str) -> Result<Option<&OsString>, UsageError> {
        let mut given = self.options.iter().filter(|(l, _)| *l == long);
        let first = given.next().map(|(_, v)| v);
        match given.next() {
            Some(_) => Err(place.error(format!(
                "the option '--{long}' cannot be used more than once"
            ))),
            None => Ok(first),
        }
    }

    /// The value of option `long`, read by `read`, if given.
    fn read<T>(
        &self,
        place: Place,
        long: &str,
        read: impl Fn(&str) -> Result<T, String>,
    ) -> Result<Option<T>, UsageError> {
        let Some(value) = self.one(place, long)? else {
            return Ok(None);
        };
        let text = text(place, long, value)?;
        read(&text)
            .map(Some)
            .map_err(|why| place.error(format!("invalid value '{text}' for '--{long}': {why}")))
    }

    fn path(&self, place: Place, long: &str) -> Result<Option<PathBuf>, UsageError> {
        Ok(self.one(place, long)?.map(PathBuf::from))
    }

    fn flag(&self, long: &str) -> bool {
        self.flags.contains(&long)
    }

    /// The one plain word a command takes (`name` in messages).
    fn single(&mut self, place: Place, name: &str) -> Result<OsString, UsageError> {
        match self.plain.len() {
            0 => Err(place.error(format!("the argument {name} is required"))),
            1 => Ok(self.plain.remove(0)),
            _ => Err(self.unexpected(place, 1)),
        }
    }

    fn unexpected(&self, place: Place, from: usize) -> UsageError {
        let word = self.plain[from].to_string_lossy();
        place.error(format!("unexpected argument '{word}' found"))
    }

    fn cli(mut self, place: Place) -> Result<Cli, UsageError> {
        let command = match place {
            Place::Top | Place::Jupyter => {
                let names: Vec<&str> = place.spec().commands.iter().map(|(n, _)| *n).collect();
                return Err(place.error(format!("a command is required: {}", names.join(", "))));
            }
            Place::Run => Command::Run {
                file: self.single(place, "<FILE>")?.into(),
                sets: (self.options.iter().filter(|(l, _)| *l == "set"))
                    .map(|(l, v)| text(place, l, v))
                    .collect::<Result<_, _>>()?,
                format: self.read(place, "format", str::parse)?.unwrap_or_default(),
                plot: self.path(place, "plot")?,
                explain: self.flag("explain"),
            },
            Place::Test => Command::Test {
                path: self.single(place, "<PATH>")?.into(),
            },
            Place::Repl => Command::Repl {
                files: self.plain.drain(..).map(PathBuf::from).collect(),
            },
            Place::Octal => {
                let code = self.single(place, "<CODE>")?;
                Command::Octal {
                    code: text(place, "<CODE>", &code)?,
                    heaps: (self.read(place, "heaps", crate::takebreak::run::parse_heaps)?)
                        .ok_or_else(|| place.error("the option '--heaps <N>' is required"))?,
                    out: self.path(place, "out")?,
                }
            }
            Place::JupyterInstall => {
                if !self.plain.is_empty() {
                    return Err(self.unexpected(place, 0));
                }
                let prefix = self.path(place, "prefix")?;
                if prefix.is_some() && self.flag("user") {
                    return Err(place.error("'--user' and '--prefix' cannot be used together"));
                }
                let action = crate::jupyter::Action::Install { prefix };
                Command::Jupyter { action }
            }
            Place::JupyterKernel => {
                if !self.plain.is_empty() {
                    return Err(self.unexpected(place, 0));
                }
                let connection_file = (self.path(place, "connection-file")?).ok_or_else(|| {
                    place.error("the option '--connection-file <FILE>' is required")
                })?;
                let action = crate::jupyter::Action::Kernel { connection_file };
                Command::Jupyter { action }
            }
        };
        Ok(Cli {
            max_states: self.read(place, "max-states", |t| {
                t.trim().parse::<usize>().map_err(|e| e.to_string())
            })?,
            max_memory: self.read(place, "max-memory", crate::budget::parse_size)?,
            timeout: self.read(place, "timeout", parse_seconds)?,
            command,
        })
    }
}

/// A word as text (option values and codes are read as text).
fn text(place: Place, name: &str, word: &OsString) -> Result<String, UsageError> {
    (word.to_str().map(str::to_owned))
        .ok_or_else(|| place.error(format!("the value of {name} is not valid UTF-8")))
}

/// `--timeout` (and the REPL's `:timeout`): seconds, possibly fractional.
pub fn parse_seconds(text: &str) -> Result<Duration, String> {
    text.trim()
        .parse::<f64>()
        .ok()
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .filter(|d| !d.is_zero())
        .ok_or_else(|| format!("`{text}` is not a number of seconds"))
}
