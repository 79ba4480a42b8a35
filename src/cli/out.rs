//! Standard output, the one way: text and pretty JSON go through [`emit`] and [`emit_json`],
//! which treat a closed pipe (`staffwork … | head`) as the reader having seen enough — quietly
//! done, not an error — and any other write error as an IO error (exit 2). The `println!` of
//! the longer text reports is covered by [`quiet_on_closed_pipe`], the same rule for the panic
//! that `println!` raises on a closed pipe.

use serde::Serialize;

use super::{CmdResult, Failure};

/// Write text to stdout (see the module docs for a closed pipe).
pub(crate) fn emit(text: &str) -> CmdResult {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Failure::Usage(format!(
            "cannot write to standard output: {e}"
        ))),
    }
}

/// Write a value as pretty JSON on stdout, one document and a newline.
pub(crate) fn emit_json<T: Serialize>(value: &T) -> CmdResult {
    emit(&json(value)?)
}

/// A value as the JSON document every command prints: pretty, ending in a newline (the same
/// text when it is also written to a file).
pub(crate) fn json<T: Serialize>(value: &T) -> Result<String, Failure> {
    let mut s = serde_json::to_string_pretty(value)
        .map_err(|e| Failure::Usage(format!("cannot encode the JSON output: {e}")))?;
    s.push('\n');
    Ok(s)
}

/// `println!` panics on a closed pipe; like other command-line tools, stop quietly (exit 0)
/// instead of reporting a panic.
pub(crate) fn quiet_on_closed_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if msg.contains("failed printing to stdout") && msg.contains("Broken pipe") {
            std::process::exit(0);
        }
        default(info);
    }));
}
