//! The scenario as data: sides, order of battle, map, gazetteer, pre-set orders,
//! reinforcements and victory conditions. The TOML file deserialises straight into these types;
//! `docs/scenario-format.md` documents every field with its rule number.
//!
//! This module owns the shape of a scenario and simple lookups over it. It does not validate
//! (see `validate.rs`) and never touches game state.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use chrono::{NaiveDateTime, NaiveTime};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::hex::Hex;
pub use crate::provenance::Provenance;
// The unit vocabulary lives in `units` (shared with `combat`); these paths stay for callers.
pub use crate::units::{MoraleRating, Strength, UnitFormation, UnitKind};

/// A whole scenario file.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub meta: Meta,
    pub clock: Clock,
    pub sides: Vec<Side>,
    #[serde(default)]
    pub commanders: Vec<Commander>,
    #[serde(default)]
    pub formations: Vec<Formation>,
    #[serde(default)]
    pub units: Vec<Unit>,
    pub map: Map,
    /// Commander movement costs by terrain name, which set courier delivery time (6.4.7).
    #[serde(default)]
    pub commander_costs: CommanderCosts,
    /// The gazetteer: every named place, road, stream, bridge and entry area.
    #[serde(default)]
    pub places: Vec<Place>,
    #[serde(default)]
    pub preset_orders: Vec<PresetOrder>,
    #[serde(default)]
    pub reinforcements: Vec<Reinforcement>,
    #[serde(default)]
    pub victory: Victory,
    /// Scenario special rules by name (e.g. Vimeiro V2.3 Temporary Divisions).
    #[serde(default)]
    pub special_rules: Vec<SpecialRule>,
    #[serde(default)]
    pub variants: Vec<Variant>,
    /// The scenario's own random events table (29.0 "Game Table"; Vimeiro V5.5, Talavera T6.0),
    /// used when the variant `random-events` is in play.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub random_events: Vec<RandomEventEntry>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Meta {
    /// Short identifier, e.g. `vimeiro-1808`.
    pub id: String,
    pub title: String,
    /// The historical (or fictional) date, ISO `YYYY-MM-DD`.
    pub date: String,
    /// Rule system, `nbs-3.0`.
    pub ruleset: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub sources: Vec<String>,
    /// Approximations made in building the scenario, shown to the user.
    #[serde(default)]
    pub approximations: Vec<String>,
}

/// The game clock (NBS 3.1, 27.1.1): 30-minute day turns, 60-minute night turns.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Clock {
    /// Time of the first turn, `YYYY-MM-DDTHH:MM`.
    pub first_turn: NaiveDateTime,
    /// Time of the last turn.
    pub last_turn: NaiveDateTime,
    /// Side id of the First Player (5.0).
    pub first_player: String,
    /// Start of night (turns from here to `night_ends` last 60 minutes), if the game reaches it.
    #[serde(default)]
    pub night_starts: Option<NaiveTime>,
    #[serde(default)]
    pub night_ends: Option<NaiveTime>,
    /// Dawn turns (visibility only; not night, 27.1).
    #[serde(default)]
    pub dawn: Vec<NaiveTime>,
    /// Dusk turns; the last one is the "last dusk turn" of 27.2.3.
    #[serde(default)]
    pub dusk: Vec<NaiveTime>,
    #[serde(default)]
    pub visibility: Visibility,
}

/// LOS range caps in hexes (14.1). `None` means unlimited.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct Visibility {
    #[serde(default)]
    pub day: Option<u32>,
    #[serde(default)]
    pub dawn: Option<u32>,
    #[serde(default)]
    pub dusk: Option<u32>,
    #[serde(default = "one")]
    pub night: Option<u32>,
}

fn one() -> Option<u32> {
    Some(1)
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Side {
    pub id: String,
    pub name: String,
    /// The formation at the top of this side's order of battle (its army).
    pub army: String,
    /// The nation of its troops for the national rules (26: `british`, `french`, `spanish`,
    /// `portuguese`, `kgl`, …); a formation or unit may say otherwise. Only `british` changes a
    /// procedure today (26.4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nation: Option<String>,
}

/// A commander counter (3.1, 25): rating 0–4, Fighter flag.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Commander {
    pub id: String,
    pub name: String,
    pub side: String,
    /// Command Rating, 0 to 4.
    pub rating: u8,
    /// Fighter ("F" on the counter, 25.5).
    #[serde(default)]
    pub fighter: bool,
    /// Where he stands at the start; `None` when off the map (arrives later or never).
    #[serde(default)]
    pub position: Option<Position>,
    #[serde(default)]
    pub aliases: Vec<String>,
    /// The brigade this commander leads when he commands no division, e.g. Ferguson's
    /// `2-ferguson` (Vimeiro V2.3: temporary divisions form around it). A unit id.
    #[serde(default)]
    pub brigade: Option<String>,
    /// Names of the fields whose values are our assumption (e.g. `["rating"]`).
    #[serde(default)]
    pub assumed: Vec<String>,
}

/// The echelons of an order of battle (6.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Echelon {
    Army,
    Corps,
    Division,
}

impl fmt::Display for Echelon {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Echelon::Army => "army",
            Echelon::Corps => "corps",
            Echelon::Division => "division",
        })
    }
}

/// An army, corps or division (brigades and batteries are [`Unit`]s).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Formation {
    pub id: String,
    pub name: String,
    /// Counter id or short name as written in orders ("2-I", "3rd Div").
    #[serde(default)]
    pub short: Option<String>,
    #[serde(default)]
    pub aliases: Vec<String>,
    pub side: String,
    pub echelon: Echelon,
    /// The formation this one belongs to; `None` only for an army.
    #[serde(default)]
    pub parent: Option<String>,
    /// The commander's id.
    #[serde(default)]
    pub commander: Option<String>,
    /// Armies and corps have an HQ unit (6.10); its starting position.
    #[serde(default)]
    pub hq: Option<Position>,
    /// Commanders who take over, in order, when the commander is lost (25).
    #[serde(default)]
    pub succession: Vec<String>,
    /// On Independent Orders from the start (6.8).
    #[serde(default)]
    pub independent: bool,
    /// A temporary division (Vimeiro V2.3).
    #[serde(default)]
    pub temporary: bool,
    /// Units attached to this temporary division while keeping their `parent` in the order of
    /// battle (Vimeiro V2.3: the commander's brigade, up to two other brigades and at most one
    /// battery). Only temporary formations list members.
    #[serde(default)]
    pub members: Vec<String>,
    /// Commanders who may take this formation over by a scenario rule while its commander still
    /// stands (Vimeiro V2.5: Burrard lands and relieves Wellesley). Not a succession (25).
    #[serde(default)]
    pub relieved_by: Vec<String>,
    /// On loan to the army commander at the start (Talavera T2.4: a Spanish division Wellesley
    /// has already borrowed from Cuesta and may order without Cuesta's roll).
    #[serde(default)]
    pub borrowed: bool,
    /// The nation of its troops when not its side's (26; Cuesta's Spanish in an Allied army).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nation: Option<String>,
    /// A division is Wrecked when this many of its brigades are Wrecked (21.6.2), instead of the
    /// combat tables' assumption (`[wrecked].division_less`). Talavera scenario 4: the reinforced
    /// 1-I breaks at three, the reduced 3-I at two.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wreck_at: Option<u8>,
    /// Losses the formation suffered before the scenario (Talavera 7.1, `"2 (4) <1>"`), dealt
    /// out to its brigades one box at a time in order-of-battle order (`scenario::losses`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub losses: Option<super::losses::LossEntry>,
    #[serde(default)]
    pub assumed: Vec<String>,
}

/// Six hexside facings, named by compass point for flat-topped hexes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Facing {
    N,
    NE,
    SE,
    S,
    SW,
    NW,
}

/// A brigade, battery, skirmisher or train counter.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Unit {
    pub id: String,
    pub name: String,
    /// Counter id as written in orders ("16 Lt-2-I", "1-Hill").
    #[serde(default)]
    pub short: Option<String>,
    #[serde(default)]
    pub aliases: Vec<String>,
    pub side: String,
    /// The formation it belongs to (division, corps or army).
    pub parent: String,
    pub kind: UnitKind,
    /// Strength level for foot and horse.
    #[serde(default)]
    pub strength: Option<Strength>,
    /// Gun points for batteries (3.3(7): default 5).
    #[serde(default)]
    pub gun_points: Option<u8>,
    #[serde(default)]
    pub morale: Option<MoraleRating>,
    #[serde(default)]
    pub formation: UnitFormation,
    #[serde(default)]
    pub facing: Option<Facing>,
    /// Starting position; `None` when the unit arrives as a reinforcement or stays off map.
    #[serde(default)]
    pub position: Option<Position>,
    /// On Independent Orders from the start (6.8).
    #[serde(default)]
    pub independent: bool,
    /// On loan to the army commander at the start (Talavera T2.4: a Spanish battery borrowed
    /// with a division).
    #[serde(default)]
    pub borrowed: bool,
    /// Losses suffered before the scenario (Talavera 7.1): `"P (S) <n>"`, Permanent Casualties,
    /// (Stragglers) and `<n>` (read as skirmisher losses). A battery's P are gun points lost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub losses: Option<super::losses::LossEntry>,
    /// Regiments and notes from the order of battle.
    #[serde(default)]
    pub regiments: Vec<String>,
    #[serde(default)]
    pub assumed: Vec<String>,
    /// The unit's own nation when not its formation's or side's (26).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nation: Option<String>,
    /// Marked as Cossacks (26.6): charges only DG or Routed targets, evades charges.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cossack: bool,
}

/// A set-up position: `"13.13"`, `"w/i 3 of 20.22"`, `"2.10 ex 2.11"` (3.3, 13).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    pub hex: Hex,
    /// "w/i N of HEX": anywhere at or within N hexes. 0 for an exact hex.
    pub within: u32,
    /// Line extensions ("ex 2.11").
    pub extensions: Vec<Hex>,
}

impl Position {
    pub fn at(hex: Hex) -> Self {
        Position {
            hex,
            within: 0,
            extensions: Vec::new(),
        }
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.within > 0 {
            write!(f, "w/i {} of {}", self.within, self.hex)?;
        } else {
            write!(f, "{}", self.hex)?;
        }
        for e in &self.extensions {
            write!(f, " ex {e}")?;
        }
        Ok(())
    }
}

impl FromStr for Position {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        let mut words = s.split_whitespace().peekable();
        let mut within = 0;
        let first = words
            .next()
            .ok_or("empty position; expected a hex such as 13.13")?;
        let hex_text = if first.eq_ignore_ascii_case("w/i") {
            let n = words
                .next()
                .ok_or("`w/i` needs a number: `w/i 3 of 20.22`")?;
            within = n
                .parse()
                .map_err(|_| format!("`{n}` is not a number in `{s}`"))?;
            match words.next() {
                Some(w) if w.eq_ignore_ascii_case("of") => {}
                _ => return Err(format!("expected `of` in `{s}`; write `w/i 3 of 20.22`")),
            }
            words.next().ok_or(format!("`{s}` lacks its hex"))?
        } else {
            first
        };
        let hex: Hex = hex_text
            .parse()
            .map_err(|e: crate::hex::HexParseError| e.to_string())?;
        let mut extensions = Vec::new();
        while let Some(w) = words.next() {
            if !w.eq_ignore_ascii_case("ex") {
                return Err(format!(
                    "unexpected `{w}` in position `{s}`; expected `ex HEX`"
                ));
            }
            let e = words.next().ok_or(format!("`ex` needs a hex in `{s}`"))?;
            extensions.push(
                e.parse()
                    .map_err(|e: crate::hex::HexParseError| e.to_string())?,
            );
        }
        Ok(Position {
            hex,
            within,
            extensions,
        })
    }
}

impl Serialize for Position {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Position {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// The hex map: its extent, a terrain grid, an elevation grid and hexside features.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Map {
    pub first_col: i32,
    pub last_col: i32,
    pub first_row: i32,
    pub last_row: i32,
    /// One line per row, top line = `last_row`; one character per column from `first_col`.
    pub terrain: String,
    /// Character → terrain name (the names used by `commander_costs`).
    pub legend: BTreeMap<String, String>,
    /// Same layout as `terrain`, one digit (elevation level 0–9) per hex. Empty = all level 0.
    #[serde(default)]
    pub elevation: String,
    /// Where the map is our construction rather than the published map.
    #[serde(default)]
    pub provenance: Provenance,
    #[serde(default)]
    pub notes: Vec<String>,
}

impl Map {
    /// True when the hex lies on the map.
    pub fn contains(&self, h: Hex) -> bool {
        (self.first_col..=self.last_col).contains(&h.col)
            && (self.first_row..=self.last_row).contains(&h.row)
    }

    /// Number of columns and rows.
    pub fn size(&self) -> (u32, u32) {
        (
            (self.last_col - self.first_col + 1).max(0) as u32,
            (self.last_row - self.first_row + 1).max(0) as u32,
        )
    }

    fn grid_char(grid: &str, map: &Map, h: Hex) -> Option<char> {
        if !map.contains(h) {
            return None;
        }
        let line = (map.last_row - h.row) as usize;
        let col = (h.col - map.first_col) as usize;
        grid.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .nth(line)?
            .chars()
            .nth(col)
    }

    /// Terrain name of a hex, via the legend; `None` off the map or for an unknown character.
    pub fn terrain_at(&self, h: Hex) -> Option<&str> {
        let c = Self::grid_char(&self.terrain, self, h)?;
        self.legend
            .get(c.encode_utf8(&mut [0; 4]) as &str)
            .map(String::as_str)
    }

    /// Elevation level of a hex (0 where no elevation grid is given).
    pub fn elevation_at(&self, h: Hex) -> u8 {
        Self::grid_char(&self.elevation, self, h)
            .and_then(|c| c.to_digit(10))
            .map_or(0, |d| d as u8)
    }
}

/// Commander movement costs (chart p2 "Cmd & HQs" column, 6.4.7). The rulebook's terrain rows
/// were lost, so every cost carries a provenance.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CommanderCosts {
    /// Movement allowance of a commander (chart p2: 14).
    #[serde(default = "fourteen")]
    pub allowance: u32,
    /// Cost to enter a hex along a road, in MP (derived: ½, from the 6.11 sidebar).
    #[serde(default = "half")]
    pub road: Cost,
    /// Cost to enter a hex by terrain name.
    #[serde(default)]
    pub terrain: BTreeMap<String, Cost>,
    /// Extra cost to cross a hexside feature (stream, river) by place kind, unless by a bridge.
    #[serde(default)]
    pub hexside: BTreeMap<String, Cost>,
}

impl Default for CommanderCosts {
    fn default() -> Self {
        CommanderCosts {
            allowance: fourteen(),
            road: half(),
            terrain: BTreeMap::new(),
            hexside: BTreeMap::new(),
        }
    }
}

fn fourteen() -> u32 {
    14
}

fn half() -> Cost {
    Cost {
        mp: Some(MpCost::from_halves(1)),
        provenance: Provenance::Derived,
    }
}

/// A movement cost with its provenance. `mp = "P"` (absent) means prohibited.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Cost {
    /// Movement points; `None` = prohibited terrain.
    #[serde(default)]
    pub mp: Option<MpCost>,
    #[serde(default)]
    pub provenance: Provenance,
}

/// Movement points held as whole halves, so ½-MP road costs stay integer (no floats in rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MpCost(u32);

impl MpCost {
    pub const fn from_halves(h: u32) -> Self {
        MpCost(h)
    }
    pub const fn halves(self) -> u32 {
        self.0
    }
}

impl Serialize for MpCost {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.is_multiple_of(2) {
            s.serialize_u32(self.0 / 2)
        } else {
            // Exactly representable: n + 0.5.
            s.serialize_f64(f64::from(self.0) / 2.0)
        }
    }
}

impl<'de> Deserialize<'de> for MpCost {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = f64::deserialize(d)?;
        let halves = v * 2.0;
        if !(0.0..=1000.0).contains(&v) || halves.fract() != 0.0 {
            return Err(serde::de::Error::custom(format!(
                "movement cost {v} must be a whole or half number of MP between 0 and 1000"
            )));
        }
        Ok(MpCost(halves as u32))
    }
}

/// Kinds of named place in the gazetteer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PlaceKind {
    Village,
    Town,
    Farm,
    Hill,
    Ridge,
    Slope,
    Wood,
    Orchard,
    Road,
    Stream,
    River,
    Bridge,
    Ford,
    Redoubt,
    /// A town wall: hexsides no unit crosses but through a gate (Talavera T1.2e).
    Wall,
    /// Gates in a wall: hexsides crossed like a bridge (Talavera T1.2e).
    Gate,
    Entry,
    Area,
    Coast,
    Hex,
}

/// A named place. Roads list their hexes in order along the road; streams and bridges list
/// hexsides.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Place {
    pub id: String,
    /// Display name, stored in NFC.
    pub name: String,
    #[serde(default)]
    pub aliases: Vec<String>,
    pub kind: PlaceKind,
    #[serde(default)]
    pub hexes: Vec<Hex>,
    /// Hexsides as `"10.10/10.11"` (the two hexes either side).
    #[serde(default)]
    pub hexsides: Vec<Hexside>,
    #[serde(default)]
    pub notes: String,
    #[serde(default)]
    pub provenance: Provenance,
}

/// A hexside, named by the two hexes it separates (`"10.10/10.11"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Hexside(pub Hex, pub Hex);

impl Hexside {
    /// The same side regardless of the order it was written in.
    pub fn normalised(self) -> Self {
        if self.0 <= self.1 {
            self
        } else {
            Hexside(self.1, self.0)
        }
    }
}

impl fmt::Display for Hexside {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.0, self.1)
    }
}

impl Serialize for Hexside {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Hexside {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        let (a, b) = s.split_once('/').ok_or_else(|| {
            serde::de::Error::custom(format!(
                "`{s}` is not a hexside; write two hexes as 10.10/10.11"
            ))
        })?;
        let a: Hex = a.parse().map_err(serde::de::Error::custom)?;
        let b: Hex = b.parse().map_err(serde::de::Error::custom)?;
        Ok(Hexside(a, b))
    }
}

/// Status a pre-set order starts in (6.2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum PresetStatus {
    #[default]
    #[serde(rename = "accepted")]
    Accepted,
    D4,
    D5,
    D6,
}

/// An order in force when the scenario starts (or when a reinforcement arrives).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PresetOrder {
    pub id: String,
    pub side: String,
    /// The command (formation or unit id) holding the order.
    pub to: String,
    /// The order exactly as the rulebook writes it.
    pub text: String,
    #[serde(default)]
    pub status: PresetStatus,
    /// Rule or scenario paragraph that sets it.
    #[serde(default)]
    pub source: String,
}

/// Units arriving during the game (12.6).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Reinforcement {
    pub id: String,
    pub side: String,
    /// Scheduled time (the first turn it may arrive when a die decides).
    pub time: NaiveDateTime,
    /// Entry place id (an `entry` place) or hex.
    pub entry: String,
    /// Ids of the formations, units and commanders that arrive.
    pub arrives: Vec<String>,
    /// A die condition, e.g. "on a 6" each Command Phase from `time`.
    #[serde(default)]
    pub condition: Option<ArrivalRoll>,
    /// Pre-set order ids the arriving commands carry.
    #[serde(default)]
    pub orders: Vec<String>,
    /// Only when this variant is in play (a `variants` id), e.g. Vimeiro 5.2 Travot.
    #[serde(default)]
    pub variant: Option<String>,
    /// Not when any of these variants is in play (Vimeiro 5.2 replaces the 3/66th).
    #[serde(default)]
    pub unless_variants: Vec<String>,
    #[serde(default)]
    pub notes: String,
}

/// "On a 6, each Command Phase": one die, arrival on `min` or more.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ArrivalRoll {
    pub sides: u8,
    pub min: u8,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct Victory {
    /// Plain-text statements of how the game ends (automatic victory, ceasefire, time).
    #[serde(default)]
    pub conditions: Vec<String>,
    #[serde(default)]
    pub points: Vec<VictoryPoints>,
    /// Result by margin (first side's points minus the other's).
    #[serde(default)]
    pub levels: Vec<VictoryLevel>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct VictoryPoints {
    pub side: String,
    pub points: i32,
    #[serde(rename = "for")]
    pub for_: String,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct VictoryLevel {
    #[serde(default)]
    pub min: Option<i32>,
    #[serde(default)]
    pub max: Option<i32>,
    pub result: String,
}

/// A scenario special rule, identified by a stable name the engine looks up.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SpecialRule {
    /// Stable name, e.g. `vimeiro-temporary-divisions`.
    pub id: String,
    /// Rule number in the game rules, e.g. `V2.3`.
    pub rule: String,
    pub name: String,
    #[serde(default)]
    pub text: String,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Variant {
    pub id: String,
    pub rule: String,
    pub name: String,
    pub effect: String,
    #[serde(default)]
    pub victory_points: String,
}

/// One entry of a scenario's random events table (29.0 "Game Table"): what one side suffers on
/// some results of one die.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RandomEventEntry {
    /// The side whose table this is (the phasing side rolls on its own column).
    pub side: String,
    /// The results of one die that give this event, e.g. `[3, 4]`.
    pub roll: Vec<u8>,
    pub name: String,
    /// The game rule, e.g. `V5.5`.
    #[serde(default)]
    pub rule: String,
    /// The event as the rules describe it (what the umpire applies when the engine does not).
    #[serde(default)]
    pub text: String,
    /// An effect the engine applies (`rules::random_events::Effect`, e.g. `no-event`,
    /// `loose-cannon`, `vimeiro-junot-wakes-up`); absent when the umpire applies the text.
    #[serde(default)]
    pub effect: Option<String>,
    #[serde(default)]
    pub assumed: Vec<String>,
}

/// A reference to anything in the order of battle that can hold orders or be ordered.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OobRef<'a> {
    Formation(&'a Formation),
    Unit(&'a Unit),
}

impl<'a> OobRef<'a> {
    pub fn id(&self) -> &'a str {
        match self {
            OobRef::Formation(f) => &f.id,
            OobRef::Unit(u) => &u.id,
        }
    }
    pub fn name(&self) -> &'a str {
        match self {
            OobRef::Formation(f) => &f.name,
            OobRef::Unit(u) => &u.name,
        }
    }
    pub fn side(&self) -> &'a str {
        match self {
            OobRef::Formation(f) => &f.side,
            OobRef::Unit(u) => &u.side,
        }
    }
}

impl Scenario {
    pub fn side(&self, id: &str) -> Option<&Side> {
        self.sides.iter().find(|s| s.id == id)
    }
    pub fn commander(&self, id: &str) -> Option<&Commander> {
        self.commanders.iter().find(|c| c.id == id)
    }
    pub fn formation(&self, id: &str) -> Option<&Formation> {
        self.formations.iter().find(|f| f.id == id)
    }
    pub fn unit(&self, id: &str) -> Option<&Unit> {
        self.units.iter().find(|u| u.id == id)
    }
    pub fn place(&self, id: &str) -> Option<&Place> {
        self.places.iter().find(|p| p.id == id)
    }
    /// A formation or unit by id.
    pub fn command(&self, id: &str) -> Option<OobRef<'_>> {
        self.formation(id)
            .map(OobRef::Formation)
            .or_else(|| self.unit(id).map(OobRef::Unit))
    }
    /// Formations whose parent is `id`, in file order.
    pub fn child_formations<'a>(&'a self, id: &'a str) -> impl Iterator<Item = &'a Formation> + 'a {
        self.formations
            .iter()
            .filter(move |f| f.parent.as_deref() == Some(id))
    }
    /// Units whose parent is `id`, in file order.
    pub fn child_units<'a>(&'a self, id: &'a str) -> impl Iterator<Item = &'a Unit> + 'a {
        self.units.iter().filter(move |u| u.parent == id)
    }
    /// The formation a commander commands, if any; the highest echelon when he leads an army or
    /// corps and a division of his own (Talavera T4.4, T4.5), the first in the file on a tie.
    pub fn formation_of_commander(&self, commander: &str) -> Option<&Formation> {
        self.formations
            .iter()
            .filter(|f| f.commander.as_deref() == Some(commander))
            .min_by_key(|f| f.echelon)
    }
    /// The army commander of a side.
    pub fn army_commander(&self, side: &str) -> Option<&Commander> {
        let army = self.formation(&self.side(side)?.army)?;
        self.commander(army.commander.as_deref()?)
    }
    /// The units a formation commands directly: its own units, then the `members` attached to
    /// it (temporary divisions, Vimeiro V2.3), in file order, without repeats.
    pub fn direct_units<'a>(&'a self, id: &'a str) -> Vec<&'a Unit> {
        let mut out: Vec<&Unit> = self.child_units(id).collect();
        if let Some(f) = self.formation(id) {
            for m in &f.members {
                if let Some(u) = self.unit(m)
                    && !out.iter().any(|x| x.id == u.id)
                {
                    out.push(u);
                }
            }
        }
        out
    }
    /// The temporary division a unit is attached to, if any (Vimeiro V2.3).
    pub fn temporary_division_of(&self, unit: &str) -> Option<&Formation> {
        self.formations
            .iter()
            .find(|f| f.temporary && f.members.iter().any(|m| m == unit))
    }
    /// The reinforcement that brings `id` (a unit, formation or commander) onto the map: the one
    /// listing it by id, else the one listing the nearest formation above it (a formation brings
    /// its commander and every unit not listed elsewhere, 12.6). `None` when it starts on the
    /// map or never arrives. Variant-only arrivals count.
    pub fn arrival_of(&self, id: &str) -> Option<&Reinforcement> {
        if let Some(r) = self
            .reinforcements
            .iter()
            .find(|r| r.arrives.iter().any(|a| a == id))
        {
            return Some(r);
        }
        let mut parent = if let Some(u) = self.unit(id) {
            Some(u.parent.as_str())
        } else if let Some(f) = self.formation(id) {
            f.parent.as_deref()
        } else {
            self.formation_of_commander(id).map(|f| f.id.as_str())
        };
        // The formation chain is bounded by the number of formations (cycles are a validation
        // error, but this must not loop on them).
        for _ in 0..=self.formations.len() {
            let p = parent?;
            if let Some(r) = self
                .reinforcements
                .iter()
                .find(|r| r.arrives.iter().any(|a| a == p))
            {
                return Some(r);
            }
            parent = self.formation(p).and_then(|f| f.parent.as_deref());
        }
        None
    }
}

/// What a loss chart needs of a scenario's unit (20.4).
impl crate::units::ChartedUnit for Unit {
    fn kind(&self) -> UnitKind {
        self.kind
    }
    fn strength(&self) -> Option<Strength> {
        self.strength
    }
    fn gun_points(&self) -> Option<u8> {
        self.gun_points
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> Scenario {
        crate::scenario::bundled("vimeiro-1808").expect("bundled")
    }

    #[test]
    fn arrival_of_follows_the_formation_chain_and_explicit_listing_wins() {
        let s = tiny();
        // Listed explicitly at 8:00 although its division comes at 8:30.
        assert_eq!(
            s.arrival_of("26-chasseurs").map(|r| r.id.as_str()),
            Some("french-0800")
        );
        assert_eq!(
            s.arrival_of("lisbon-volunteers").map(|r| r.id.as_str()),
            Some("french-0830")
        );
        // A commander arrives with the formation he commands.
        assert_eq!(
            s.arrival_of("kellerman").map(|r| r.id.as_str()),
            Some("french-0900")
        );
        assert!(s.arrival_of("wellesley").is_none());
        assert!(s.arrival_of("no-such-id").is_none());
    }

    #[test]
    fn arrival_of_terminates_on_a_cycle() {
        let mut s = tiny();
        for f in s.formations.iter_mut() {
            if f.id == "loison-div" {
                f.parent = Some("delaborde-div".into());
            }
            if f.id == "delaborde-div" {
                f.parent = Some("loison-div".into());
            }
        }
        s.reinforcements.clear();
        assert!(s.arrival_of("solignac").is_none());
    }

    #[test]
    fn direct_units_add_temporary_members_once() {
        let s = tiny();
        let ids: Vec<&str> = s
            .direct_units("hill-div")
            .iter()
            .map(|u| u.id.as_str())
            .collect();
        assert_eq!(ids, ["1-hill", "5-crawfurd", "8-acland", "army-lf-1"]);
        assert!(s.direct_units("no-such").is_empty());
    }
}
