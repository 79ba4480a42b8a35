//! `staffwork scenario check|show`: validate and print scenario files.

use std::path::PathBuf;

use clap::Subcommand;

use super::{CmdResult, Failure, Format};
use crate::scenario;

#[derive(Subcommand, Debug)]
pub enum ScenarioCmd {
    /// Validate a scenario file; every problem is reported with file, line and field.
    Check {
        /// The scenario file (TOML).
        file: PathBuf,
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// Print a scenario: sides, order of battle, map, places, pre-set orders, reinforcements.
    Show {
        file: PathBuf,
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
}

pub fn run(cmd: ScenarioCmd) -> CmdResult {
    match cmd {
        ScenarioCmd::Check { file, format } => match scenario::load(&file) {
            Ok(s) => {
                if format == Format::Json {
                    super::print_json(
                        &serde_json::json!({"file": file, "valid": true, "id": s.meta.id, "problems": []}),
                    )
                } else {
                    println!("{}: ok ({})", file.display(), s.meta.title);
                    Ok(())
                }
            }
            Err(scenario::ScenarioError::Invalid(problems)) => {
                if format == Format::Json {
                    super::print_json(
                        &serde_json::json!({"file": file, "valid": false, "problems": problems}),
                    )?;
                } else {
                    for p in &problems {
                        println!("{p}");
                    }
                    println!("{} problem(s) in {}", problems.len(), file.display());
                }
                Err(Failure::Judged)
            }
            Err(e) => Err(Failure::Usage(e.to_string())),
        },
        ScenarioCmd::Show { file, format } => {
            let s = scenario::load(&file).map_err(|e| Failure::Usage(e.to_string()))?;
            if format == Format::Json {
                super::print_json(&s)
            } else {
                println!("{} ({}), {}", s.meta.title, s.meta.id, s.meta.date);
                Ok(())
            }
        }
    }
}
