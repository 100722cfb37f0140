use std::process::ExitCode;

fn main() -> ExitCode {
    grundy::cli::main()
}
