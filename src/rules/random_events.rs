//! The optional Random Events rule (29) as data: the Standard Random Events Table of 29.0
//! (`tables/nbs-3.0/random-events.toml`, embedded with `include_str!`), with a provenance on every
//! cell, and the vocabulary of what a random event does (the series events of 29.1 and the
//! effects a scenario's own game table may name).
//!
//! Owns: the table file format, its validation, the 2d6 lookup, the printable grid and a content
//! hash. Must not: hold game state, roll dice, print or do IO (the table is not overridable, so
//! nothing is ever read from disk). No panics on any input: a 2d6 reading outside 2..12 clamps to
//! the edge row (rule 3.5).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::tables::{GridCell, GridRow};
use crate::provenance::Provenance;

/// The embedded table file.
pub const DEFAULT_RANDOM_EVENTS_TOML: &str =
    include_str!("../../tables/nbs-3.0/random-events.toml");

/// A result of the Standard Random Events Table (29.0), defined in 29.1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SeriesEvent {
    /// A random command of the phasing side suffers a Loose Cannon (6.6.1.6).
    LooseCannon,
    /// Roll one die on the scenario's own table.
    GameTable,
    /// A random order in transit is lost; discovered on 5–6 like a distorted order (6.5.3).
    OrderLost,
    /// The side's next reinforcements come one turn later.
    DelayReinforcements,
    /// This turn cavalry rolls Straggler Recovery as if it were infantry (20.3.2).
    CavalryRecovery,
    /// The side's next reinforcements come one turn earlier.
    AdvanceReinforcements,
    /// A random commander of the side on the map becomes a casualty (25).
    CommanderLoss,
    /// A random battery: limbered, DG and −1 GP; unlimbered, Cannister at its own hex.
    ArtilleryAccident,
}

impl SeriesEvent {
    /// Every event, in 29.1's order.
    pub const ALL: [SeriesEvent; 8] = [
        SeriesEvent::AdvanceReinforcements,
        SeriesEvent::ArtilleryAccident,
        SeriesEvent::CavalryRecovery,
        SeriesEvent::CommanderLoss,
        SeriesEvent::DelayReinforcements,
        SeriesEvent::GameTable,
        SeriesEvent::LooseCannon,
        SeriesEvent::OrderLost,
    ];

    /// The kebab-case id used in the table file and in events.
    pub fn name(self) -> &'static str {
        match self {
            SeriesEvent::LooseCannon => "loose-cannon",
            SeriesEvent::GameTable => "game-table",
            SeriesEvent::OrderLost => "order-lost",
            SeriesEvent::DelayReinforcements => "delay-reinforcements",
            SeriesEvent::CavalryRecovery => "cavalry-recovery",
            SeriesEvent::AdvanceReinforcements => "advance-reinforcements",
            SeriesEvent::CommanderLoss => "commander-loss",
            SeriesEvent::ArtilleryAccident => "artillery-accident",
        }
    }

    /// The printed name.
    pub fn title(self) -> &'static str {
        match self {
            SeriesEvent::LooseCannon => "Loose Cannon",
            SeriesEvent::GameTable => "Game Table",
            SeriesEvent::OrderLost => "Order Lost",
            SeriesEvent::DelayReinforcements => "Delay Reinforcements",
            SeriesEvent::CavalryRecovery => "Cavalry Recovery",
            SeriesEvent::AdvanceReinforcements => "Advance Reinforcements",
            SeriesEvent::CommanderLoss => "Commander Loss",
            SeriesEvent::ArtilleryAccident => "Artillery Accident",
        }
    }

    pub fn from_name(name: &str) -> Option<SeriesEvent> {
        SeriesEvent::ALL.into_iter().find(|e| e.name() == name)
    }

    /// The effect the engine applies for this event; `None` for Game Table, which rolls on the
    /// scenario's table instead.
    pub fn effect(self) -> Option<Effect> {
        Some(match self {
            SeriesEvent::LooseCannon => Effect::LooseCannon,
            SeriesEvent::GameTable => return None,
            SeriesEvent::OrderLost => Effect::OrderLost,
            SeriesEvent::DelayReinforcements => Effect::DelayReinforcements,
            SeriesEvent::CavalryRecovery => Effect::CavalryRecovery,
            SeriesEvent::AdvanceReinforcements => Effect::AdvanceReinforcements,
            SeriesEvent::CommanderLoss => Effect::CommanderLoss,
            SeriesEvent::ArtilleryAccident => Effect::ArtilleryAccident,
        })
    }
}

/// What a random event does, as the engine knows how to apply it: the series events of 29.1 and
/// the game-table effects that map onto existing mechanisms. A scenario's game-table entry names
/// one of these in `effect`, or none (the umpire applies it from its text).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Effect {
    /// Nothing happens (29.0 "No Event"; a game table's "No Event" entries).
    NoEvent,
    LooseCannon,
    OrderLost,
    DelayReinforcements,
    AdvanceReinforcements,
    CavalryRecovery,
    CommanderLoss,
    ArtilleryAccident,
    /// Vimeiro V5.5 "Junot Wakes Up": this Command Phase's orders as a rating-4 leader, and the
    /// V3.1 initiative −1 is ignored for the rest of the game.
    VimeiroJunotWakesUp,
}

impl Effect {
    /// Every effect, in this order.
    pub const ALL: [Effect; 9] = [
        Effect::NoEvent,
        Effect::LooseCannon,
        Effect::OrderLost,
        Effect::DelayReinforcements,
        Effect::AdvanceReinforcements,
        Effect::CavalryRecovery,
        Effect::CommanderLoss,
        Effect::ArtilleryAccident,
        Effect::VimeiroJunotWakesUp,
    ];

    /// The kebab-case id a scenario writes in `effect`.
    pub fn name(self) -> &'static str {
        match self {
            Effect::NoEvent => "no-event",
            Effect::LooseCannon => "loose-cannon",
            Effect::OrderLost => "order-lost",
            Effect::DelayReinforcements => "delay-reinforcements",
            Effect::AdvanceReinforcements => "advance-reinforcements",
            Effect::CavalryRecovery => "cavalry-recovery",
            Effect::CommanderLoss => "commander-loss",
            Effect::ArtilleryAccident => "artillery-accident",
            Effect::VimeiroJunotWakesUp => "vimeiro-junot-wakes-up",
        }
    }

    pub fn from_name(name: &str) -> Option<Effect> {
        Effect::ALL.into_iter().find(|e| e.name() == name)
    }

    /// Every id, comma-separated (for help texts).
    pub fn names() -> String {
        Effect::ALL
            .iter()
            .map(|e| e.name())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A value with its provenance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Entry<T> {
    pub value: T,
    pub provenance: Provenance,
}

/// Why the table file was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RandomEventTableError {
    /// Not valid TOML, or not the shape of a random-events file.
    #[error("{origin}: {message}")]
    Parse { origin: String, message: String },
    /// The right shape, but a rule of the table is broken; every problem is listed.
    #[error("{origin}: {}", .problems.join("; "))]
    Invalid {
        origin: String,
        problems: Vec<String>,
    },
}

/// The Standard Random Events Table (29.0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RandomEventTable {
    origin: String,
    /// The one-die check at the start of each Player Turn: an event occurs on this number.
    occurs_on: Entry<u8>,
    /// 2d6 results 2..=12, in order.
    events: [Entry<SeriesEvent>; 11],
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[allow(dead_code)]
    meta: RawMeta,
    check: RawCheck,
    events: BTreeMap<String, RawEvent>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMeta {
    #[allow(dead_code)]
    ruleset: String,
    #[allow(dead_code)]
    #[serde(default)]
    source: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCheck {
    occurs_on: RawValue,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawValue {
    value: i64,
    provenance: Provenance,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEvent {
    event: String,
    provenance: Provenance,
}

static NBS: OnceLock<RandomEventTable> = OnceLock::new();

impl RandomEventTable {
    /// The embedded table, parsed once.
    pub fn nbs() -> &'static RandomEventTable {
        NBS.get_or_init(|| {
            match RandomEventTable::from_toml_str(
                "embedded tables/nbs-3.0/random-events.toml",
                DEFAULT_RANDOM_EVENTS_TOML,
            ) {
                Ok(t) => t,
                // The embedded file is pinned by unit tests; this cannot happen in a tested build.
                Err(e) => panic!("embedded random events table is invalid: {e}"),
            }
        })
    }

    /// Parse and validate a table file: the check die's number 1..6 and exactly one known event
    /// for each 2d6 result 2..12.
    pub fn from_toml_str(
        origin: &str,
        text: &str,
    ) -> Result<RandomEventTable, RandomEventTableError> {
        let raw: RawFile = toml::from_str(text).map_err(|e| RandomEventTableError::Parse {
            origin: origin.to_string(),
            message: e.to_string().trim().to_string(),
        })?;
        let mut problems = Vec::new();
        let occurs_on = match u8::try_from(raw.check.occurs_on.value) {
            Ok(v @ 1..=6) => v,
            _ => {
                problems.push(format!(
                    "check.occurs_on: {} is not a result of one die (1..6)",
                    raw.check.occurs_on.value
                ));
                1
            }
        };
        let mut events: [Option<Entry<SeriesEvent>>; 11] = [None; 11];
        let mut given = [false; 11];
        for (key, e) in &raw.events {
            let roll = match key.parse::<u8>() {
                Ok(r @ 2..=12) => r,
                _ => {
                    problems.push(format!("events.{key}: not a result of two dice (2..12)"));
                    continue;
                }
            };
            given[usize::from(roll - 2)] = true;
            match SeriesEvent::from_name(&e.event) {
                Some(ev) => {
                    events[usize::from(roll - 2)] = Some(Entry {
                        value: ev,
                        provenance: e.provenance,
                    })
                }
                None => problems.push(format!(
                    "events.{key}: unknown event `{}`; use one of {}",
                    e.event,
                    SeriesEvent::ALL
                        .iter()
                        .map(|x| x.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            }
        }
        for (i, g) in given.iter().enumerate() {
            if !g {
                problems.push(format!(
                    "events.{}: missing (every 2d6 result 2..12 needs an event)",
                    i + 2
                ));
            }
        }
        if !problems.is_empty() {
            return Err(RandomEventTableError::Invalid {
                origin: origin.to_string(),
                problems,
            });
        }
        Ok(RandomEventTable {
            origin: origin.to_string(),
            occurs_on: Entry {
                value: occurs_on,
                provenance: raw.check.occurs_on.provenance,
            },
            events: events.map(|e| {
                e.unwrap_or(Entry {
                    value: SeriesEvent::GameTable,
                    provenance: Provenance::Assumed,
                })
            }),
        })
    }

    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// 29.0: the number on one die that means a random event has occurred.
    pub fn occurs_on(&self) -> Entry<u8> {
        self.occurs_on
    }

    /// 29.0: the event for a 2d6 result (clamped to 2..12).
    pub fn event(&self, roll_2d6: u8) -> Entry<SeriesEvent> {
        self.events[usize::from(roll_2d6.clamp(2, 12) - 2)]
    }

    /// The table as printable rows: one row per 2d6 result, one cell `event`.
    pub fn rows(&self) -> Vec<GridRow> {
        self.events
            .iter()
            .enumerate()
            .map(|(i, e)| GridRow {
                label: (i + 2).to_string(),
                cells: vec![GridCell {
                    column: "event".into(),
                    text: e.value.title().into(),
                    provenance: e.provenance,
                    blank: false,
                }],
            })
            .collect()
    }

    /// Cells whose provenance is not `seed`, as `(2d6 result, event)`.
    pub fn non_seed_cells(&self) -> Vec<(u8, Entry<SeriesEvent>)> {
        self.events
            .iter()
            .enumerate()
            .filter(|(_, e)| e.provenance != Provenance::Seed)
            .map(|(i, e)| (i as u8 + 2, *e))
            .collect()
    }

    /// sha256 hex of the canonical content (the check and every cell with its provenance).
    pub fn hash(&self) -> String {
        let mut h = Sha256::new();
        h.update(b"staffwork-random-events-v1\n");
        h.update(
            format!(
                "check\t{}\t{}\n",
                self.occurs_on.value, self.occurs_on.provenance
            )
            .as_bytes(),
        );
        for (i, e) in self.events.iter().enumerate() {
            h.update(format!("{}\t{}\t{}\n", i + 2, e.value.name(), e.provenance).as_bytes());
        }
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 29.0: the embedded file is the seed's table, every cell seed.
    #[test]
    fn rule_29_0_embedded_table_is_the_seed_table() {
        let t = RandomEventTable::nbs();
        assert_eq!(t.occurs_on().value, 1);
        let names: Vec<&str> = (2..=12).map(|r| t.event(r).value.name()).collect();
        assert_eq!(
            names,
            [
                "loose-cannon",
                "game-table",
                "order-lost",
                "game-table",
                "delay-reinforcements",
                "cavalry-recovery",
                "advance-reinforcements",
                "game-table",
                "commander-loss",
                "artillery-accident",
                "loose-cannon"
            ]
        );
        assert!(t.non_seed_cells().is_empty());
        assert_eq!(t.hash().len(), 64);
        assert_eq!(t.rows().len(), 11);
    }

    #[test]
    fn rule_3_5_out_of_range_rolls_clamp() {
        let t = RandomEventTable::nbs();
        assert_eq!(t.event(0).value, SeriesEvent::LooseCannon);
        assert_eq!(t.event(200).value, SeriesEvent::LooseCannon);
    }

    #[test]
    fn a_broken_file_lists_every_problem() {
        let text = DEFAULT_RANDOM_EVENTS_TOML
            .replace("occurs_on = { value = 1", "occurs_on = { value = 7")
            .replace(
                "4 = { event = \"order-lost\"",
                "4 = { event = \"order-found\"",
            )
            .replace(
                "11 = { event = \"artillery-accident\", provenance = \"seed\" }\n",
                "",
            );
        match RandomEventTable::from_toml_str("broken", &text) {
            Err(RandomEventTableError::Invalid { problems, .. }) => {
                assert_eq!(problems.len(), 3, "{problems:?}");
                assert!(problems[0].contains("check.occurs_on"));
                assert!(problems.iter().any(|p| p.contains("order-found")));
                assert!(problems.iter().any(|p| p.starts_with("events.11: missing")));
            }
            other => panic!("expected invalid, got {other:?}"),
        }
        assert!(matches!(
            RandomEventTable::from_toml_str("bad", "not toml ["),
            Err(RandomEventTableError::Parse { .. })
        ));
    }

    #[test]
    fn effects_and_events_round_trip_by_name() {
        for e in Effect::ALL {
            assert_eq!(Effect::from_name(e.name()), Some(e));
            assert_eq!(serde_json::to_value(e).unwrap().as_str(), Some(e.name()));
        }
        for e in SeriesEvent::ALL {
            assert_eq!(SeriesEvent::from_name(e.name()), Some(e));
            assert_eq!(serde_json::to_value(e).unwrap().as_str(), Some(e.name()));
            if let Some(x) = e.effect() {
                assert_eq!(x.name(), e.name());
            }
        }
        assert!(Effect::from_name("heat").is_none());
    }
}
