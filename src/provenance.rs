//! Provenance tags: where a table cell or scenario value came from (DESIGN: rules are data).

use serde::{Deserialize, Serialize};

/// Where a value came from. Shown to the user wherever the value is used.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "kebab-case")]
pub enum Provenance {
    /// Transcribed from the rulebook.
    #[default]
    Seed,
    /// Worked out from a stated rule or a worked example.
    Derived,
    /// Our reconstruction of something the source does not give (a lost table cell, a rating
    /// the order of battle does not print).
    Assumed,
}

impl std::fmt::Display for Provenance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Provenance::Seed => "seed",
            Provenance::Derived => "derived",
            Provenance::Assumed => "assumed",
        })
    }
}
