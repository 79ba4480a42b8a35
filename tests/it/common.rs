//! Helpers the integration tests share: running the built `staffwork` binary, and reading one
//! order with no scenario as the reader tests do.
// Each test crate uses its own subset of these.
#![allow(dead_code)]

use staffwork::order::{self, CheckedOrder};
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

/// One order read with no scenario and no side.
pub fn read(text: &str) -> CheckedOrder {
    order::check_one(text, None, None)
}

/// The codes of an order's diagnostics.
pub fn codes(o: &CheckedOrder) -> Vec<&'static str> {
    o.diagnostics.iter().map(|d| d.code).collect()
}

/// The recipient's text, if the order names one.
pub fn recipient(o: &CheckedOrder) -> Option<&str> {
    o.recipient.as_ref().map(|r| r.text.as_str())
}

/// Whether the reading rule `rule` fired (as `check --explain` lists them).
pub fn fired(o: &CheckedOrder, rule: &str) -> bool {
    o.rules.iter().any(|r| r == rule)
}

/// Reading the read-back again gives the same order (decision 0013).
pub fn round_trips(o: &CheckedOrder) {
    let again = read(&o.readback);
    assert_eq!(again.key, o.key, "{} ≠ {}", o.readback, again.readback);
}
