use std::process::ExitCode;

fn main() -> ExitCode {
    grundy::cli::main()
}

/// The one function of the C math library the program calls (the
/// spinner's rate estimate in `indicatif`), defined here so that the
/// library is not loaded: loading it pages in about 0.35 MiB of it at
/// every start (its functions are resolved then), which was a tenth of a
/// small run's memory.
#[no_mangle]
pub extern "C" fn pow(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}
