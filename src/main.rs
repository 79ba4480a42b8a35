//! The `staffwork` binary: parse arguments, set up logging, hand over to [`staffwork::cli`].
//!
//! Everything else lives in the library so tests and other front ends can reuse it.

use std::process::ExitCode;

fn main() -> ExitCode {
    staffwork::cli::main()
}
