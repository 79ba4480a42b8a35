//! Rules as data: the vocabulary of the NBS command system, the dice, and the tables of the
//! series charts with a provenance on every cell.
//!
//! Owns: rule vocabulary shared by the order language and the engine (methods, order types,
//! acceptance and initiative results), the dice, table data and their lookups, exact odds.
//! Must not: do IO other than reading a user's override table file, hold game state, print.

pub mod dice;
pub mod odds;
pub mod random_events;
pub mod simulate;
pub mod tables;

pub use tables::{Cell, CellAt, CellRef, CommandTables, TableError, TableId};

use serde::{Deserialize, Serialize};

/// How an order is delivered (6.4.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// The army commander stacked with the recipient; arrives the same turn (+2 acceptance).
    InPerson,
    /// An aide carries a spoken order (−1 acceptance).
    Oral,
    /// An aide carries a written order (±0).
    Written,
}

/// Order type for cost and acceptance (6.3, 6.4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OrderType {
    Engage,
    General,
    Complex,
}

/// Posture of one stage of an order: Engage or General (6.3.1, 6.3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Posture {
    Engage,
    General,
}

/// The recipient's present status, for the Current Order acceptance modifier (6.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CurrentOrder {
    Engage,
    General,
    /// No Orders status (6.3.4).
    None,
}

/// A result of the New Order Acceptance Table (6.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum AcceptanceResult {
    /// Distorted or lost (6.5.3).
    Dt,
    /// Delayed: 6 on one die to accept (6.5.2).
    D6,
    /// Delayed: 5 or more.
    D5,
    /// Delayed: 4 or more.
    D4,
    /// Accepted (6.5.1).
    A,
}

impl AcceptanceResult {
    /// All results, worst first (the row order of the table).
    pub const ALL: [AcceptanceResult; 5] = [Self::Dt, Self::D6, Self::D5, Self::D4, Self::A];

    /// For a delay, the least roll of one die that ends it (6.5.2).
    pub fn delay_needs(self) -> Option<u8> {
        match self {
            Self::D4 => Some(4),
            Self::D5 => Some(5),
            Self::D6 => Some(6),
            _ => None,
        }
    }
}

impl std::fmt::Display for AcceptanceResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Dt => "Dt",
            Self::D6 => "D6",
            Self::D5 => "D5",
            Self::D4 => "D4",
            Self::A => "A",
        })
    }
}

/// A result of the Initiative Table (6.6.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum InitiativeResult {
    LooseCannon,
    NoEffect,
    Initiative,
}
