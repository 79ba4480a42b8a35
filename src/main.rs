//! The `staffwork` binary: parse arguments, set up logging, hand over to [`staffwork::cli`].
//!
//! Everything else lives in the library so tests and other front ends can reuse it.

use std::process::ExitCode;

// mimalloc instead of the system allocator: the order reader and the engine make many small,
// short-lived allocations, and it reads the order corpus about 11 % faster (docs/performance.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    staffwork::cli::main()
}
