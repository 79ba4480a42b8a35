//! Scenarios: loading a TOML scenario file, validating it, and the model the rest of the crate
//! reads (order of battle, map, gazetteer, clock).
//!
//! Owns: the file format (`model`), its validation with located problems (`validate`), the
//! game clock derived from it (`clock`). Must not: hold game state or print.

pub mod assumed;
pub mod clock;
pub mod losses;
pub mod model;
pub mod text_checks;
pub mod validate;

pub use assumed::{AssumedValue, assumed_values};
pub use losses::{LossCounts, LossEntry};
pub use model::*;
pub use validate::{Problem, ScenarioError};

use serde::Deserialize;
use std::path::Path;

/// The scenarios shipped with staffwork, by file name, so the binary works without the files.
pub const BUNDLED: &[(&str, &str)] = &[
    (
        "tutorial-hall.toml",
        include_str!("../../scenarios/tutorial-hall.toml"),
    ),
    (
        "vimeiro-1808.toml",
        include_str!("../../scenarios/vimeiro-1808.toml"),
    ),
    (
        "talavera-1809.toml",
        include_str!("../../scenarios/talavera-1809.toml"),
    ),
    (
        "talavera-1809-casa-de-salinas.toml",
        include_str!("../../scenarios/talavera-1809-casa-de-salinas.toml"),
    ),
];

/// Read, parse and validate a scenario file. All problems are reported at once.
pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
    let text = crate::text::read_file(path).map_err(|e| ScenarioError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    parse(&path.display().to_string(), &text)
}

/// Parse and validate scenario text; `origin` names the file in messages.
pub fn parse(origin: &str, text: &str) -> Result<Scenario, ScenarioError> {
    let text = crate::text::nfc(text);
    // One parse of the text serves every check below and the typed scenario.
    let parsed = validate::Parsed::new(&text);
    // Every syntax error first (the parser recovers), then the shape (serde stops at the first
    // wrong field) with every problem of the file's strings, then every cross-reference at once.
    let syntax = validate::syntax_problems(origin, &parsed);
    if !syntax.is_empty() {
        return Err(ScenarioError::Invalid(syntax));
    }
    // Problems with the file's strings are found whatever its shape, so a type error does not
    // hide them (issue 12: report all that can be found).
    let mut problems = text_checks::problems(origin, &parsed);
    let typed = Scenario::deserialize(toml::de::Deserializer::from(parsed.root.clone()));
    let scenario = match typed {
        Ok(s) => s,
        Err(e) => {
            problems.insert(0, validate::Problem::from_toml(origin, &parsed, &e));
            return Err(ScenarioError::Invalid(problems));
        }
    };
    problems.extend(validate::validate(origin, &parsed, &scenario));
    if problems.is_empty() {
        Ok(scenario)
    } else {
        Err(ScenarioError::Invalid(problems))
    }
}

/// The text of a bundled scenario by file name (`vimeiro-1808.toml`) or id (`vimeiro-1808`):
/// `(file name, text)`.
pub fn bundled_text(name: &str) -> Option<(&'static str, &'static str)> {
    BUNDLED
        .iter()
        .find(|(f, _)| *f == name || f.trim_end_matches(".toml") == name)
        .copied()
}

/// Load a scenario from a file or, when no such file exists, from the bundled scenario of that
/// name (`tutorial-hall`, `vimeiro-1808`, `talavera-1809`,
/// `talavera-1809-casa-de-salinas`). Returns the name used in messages and the scenario.
pub fn load_or_bundled(path: &Path) -> Result<(String, Scenario), ScenarioError> {
    source(path).map(|(origin, _, s)| (origin, s))
}

/// As [`load_or_bundled`], also returning the scenario's text (a game stores it).
pub fn source(path: &Path) -> Result<(String, String, Scenario), ScenarioError> {
    let (origin, text) = match path
        .to_str()
        .and_then(bundled_text)
        .filter(|_| !path.exists())
    {
        Some((file, text)) => (format!("(bundled) {file}"), text.to_string()),
        None => {
            let text = crate::text::read_file(path).map_err(|e| ScenarioError::Io {
                path: path.display().to_string(),
                message: e.to_string(),
            })?;
            (path.display().to_string(), text)
        }
    };
    parse(&origin, &text).map(|s| (origin, text, s))
}

/// A bundled scenario by file name (`tutorial-hall.toml`) or id (`tutorial-hall`).
pub fn bundled(name: &str) -> Option<Scenario> {
    let (file, text) = bundled_text(name)?;
    parse(file, text).ok()
}
