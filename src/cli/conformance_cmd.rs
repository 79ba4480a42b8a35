//! `staffwork conformance [PATH…]`: run conformance cases and print one line per failing case
//! and a closing `N passed, M failed`.

use std::path::PathBuf;

use clap::Args;

use super::{CmdResult, Failure, Format};
use crate::conformance;

#[derive(Args, Debug)]
pub struct ConformanceArgs {
    /// Case files or folders (default: tests/conformance).
    pub paths: Vec<PathBuf>,
    /// Also list the passing cases.
    #[arg(long)]
    pub verbose: bool,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

pub fn run(a: ConformanceArgs) -> CmdResult {
    let paths = if a.paths.is_empty() {
        vec![PathBuf::from("tests/conformance")]
    } else {
        a.paths
    };
    let files = conformance::collect(&paths).map_err(Failure::Usage)?;
    if files.is_empty() {
        return Err(Failure::Usage("no .case files found".into()));
    }
    let results = conformance::run_files(&files);
    let passed = results.iter().filter(|r| r.passed).count();
    let failed = results.len() - passed;
    if a.format == Format::Json {
        super::emit_json(
            &serde_json::json!({"cases": results, "passed": passed, "failed": failed}),
        )?;
    } else {
        for r in &results {
            match &r.failure {
                Some(f) => println!(
                    "FAIL {}:{} {} [{}]: {f}",
                    r.file,
                    r.line,
                    r.name,
                    r.rules.join(", ")
                ),
                None if a.verbose => println!(
                    "ok   {}:{} {} [{}]",
                    r.file,
                    r.line,
                    r.name,
                    r.rules.join(", ")
                ),
                None => {}
            }
        }
        println!("{passed} passed, {failed} failed");
    }
    if failed == 0 {
        Ok(())
    } else {
        Err(Failure::Judged)
    }
}
