//! The unit vocabulary shared by the scenario file and the combat core: unit types, strength
//! levels, morale ratings, tactical formations (3.1, 7.0, 8.0), and what a loss chart needs to
//! know of a unit. A neutral module so that `scenario` and `combat` need not import each other.
//! Owns these types; must not know scenarios, games or tables.

use serde::{Deserialize, Serialize};

/// Unit types (3.1, chart p2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum UnitKind {
    Infantry,
    CavalryLight,
    CavalryHeavy,
    CavalryLancer,
    ArtilleryLightFoot,
    ArtilleryHeavyFoot,
    ArtilleryLightHorse,
    ArtilleryHeavyHorse,
    Skirmisher,
    Train,
}

impl UnitKind {
    pub fn is_cavalry(self) -> bool {
        matches!(
            self,
            UnitKind::CavalryLight | UnitKind::CavalryHeavy | UnitKind::CavalryLancer
        )
    }
    pub fn is_artillery(self) -> bool {
        matches!(
            self,
            UnitKind::ArtilleryLightFoot
                | UnitKind::ArtilleryHeavyFoot
                | UnitKind::ArtilleryLightHorse
                | UnitKind::ArtilleryHeavyHorse
        )
    }
    pub fn is_infantry(self) -> bool {
        matches!(self, UnitKind::Infantry)
    }
    /// Artillery, trains and skirmishers never count as sub-units (6.9 box).
    pub fn counts_as_sub_unit(self) -> bool {
        !self.is_artillery() && !matches!(self, UnitKind::Train | UnitKind::Skirmisher)
    }
}

/// Strength levels of foot and horse (3.1, 7.0): C < B < A < AA < AAA.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Strength {
    C,
    B,
    A,
    AA,
    AAA,
}

/// Morale ratings A (best) to E (8.0, 21).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum MoraleRating {
    A,
    B,
    C,
    D,
    E,
}

/// Tactical formations (8.0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum UnitFormation {
    #[default]
    Line,
    Column,
    MarchColumn,
    Square,
    Skirmish,
    Ready,
    Blown,
    Limbered,
    Unlimbered,
    Routed,
}

/// What a loss chart needs to know of a unit (20.4): its type, strength and gun points.
pub trait ChartedUnit {
    fn kind(&self) -> UnitKind;
    fn strength(&self) -> Option<Strength>;
    fn gun_points(&self) -> Option<u8>;
}

/// Read a formation name as the scenario format writes it (`march-column`, `limbered`, …); the
/// parser of `--formation` flags.
pub fn parse_formation(s: &str) -> Result<UnitFormation, String> {
    serde_json::from_value(serde_json::Value::String(s.to_ascii_lowercase())).map_err(|_| {
        format!(
            "`{s}` is not a formation; expected line, column, march-column, square, skirmish, limbered or unlimbered"
        )
    })
}
