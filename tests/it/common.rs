//! Helpers the integration tests share: running the built `staffwork` binary.
// Each test crate uses its own subset of these.
#![allow(dead_code)]

use std::process::{Command, Output};

/// Run `staffwork ARGS…` from the crate root (so relative paths such as `tests/data/…` work).
pub fn staffwork(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_staffwork"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run staffwork")
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}
