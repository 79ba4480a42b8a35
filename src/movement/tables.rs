//! The Movement Table as data: `tables/nbs-3.0/movement.toml`, embedded with `include_str!` and
//! overridable section by section from a user file. Every cell has a [`Provenance`].
//!
//! Owns: the schema, parsing of cells (whole or half MP, `"P"` = Prohibited), load-time
//! validation with errors that name section / row / column, and lookups that say which cell they
//! read. Must not: read files (callers hand in text), print, or decide a move.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::provenance::Provenance;

/// The embedded default table.
pub const BUILTIN_TOML: &str = include_str!("../../tables/nbs-3.0/movement.toml");

/// The movement classes: the columns of every terrain, hexside and slope row.
pub const CLASSES: [&str; 6] = [
    "line",
    "column",
    "skirmish",
    "cavalry",
    "artillery",
    "train",
];

/// The allowance rows the engine needs.
pub const ALLOWANCES: [&str; 12] = [
    "line",
    "column",
    "march-column",
    "skirmish",
    "cavalry-light",
    "cavalry-heavy",
    "cavalry-lancer",
    "cavalry-blown",
    "artillery-foot",
    "artillery-horse",
    "train",
    "commander",
];

/// The non-terrain costs the engine needs.
pub const COSTS: [&str; 9] = [
    "formation_change",
    "levy_formation_change",
    "limber",
    "facing_corner",
    "about_face",
    "close_combat",
    "road",
    "forced_march_step",
    "forced_march_max",
];

/// A problem in a movement table file, naming the place.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MovementTableError {
    /// Not TOML, or not the schema (unknown key, wrong type); the message has line and column.
    #[error("movement tables: {0}")]
    Parse(String),
    /// A cell is neither a whole or half number of MP nor "P".
    #[error(
        "movement tables: [{section}.{row}] {column}: cannot read {text}: expected a whole or half number of MP (0–100) or \"P\" for Prohibited"
    )]
    Cell {
        section: String,
        row: String,
        column: String,
        text: String,
    },
    /// A row lacks a class column, or names one that is not a class.
    #[error("movement tables: [{section}.{row}]: {reason}")]
    Row {
        section: String,
        row: String,
        reason: String,
    },
    /// A required entry is missing.
    #[error(
        "movement tables: [{section}] has no `{key}`; hint: copy it from the built-in table (`staffwork rules show movement`)"
    )]
    Missing { section: String, key: String },
}

/// One cost: half-points, or `None` for Prohibited, with where it came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Cell {
    /// Movement points in halves (`None` = Prohibited).
    pub halves: Option<u32>,
    pub provenance: Provenance,
}

impl Cell {
    /// The cost as the chart writes it: `2`, `1½`, `P`.
    pub fn show(self) -> String {
        match self.halves {
            None => "P".into(),
            Some(h) => show_halves(h),
        }
    }
}

/// Half-points as MP: `3`, `½`, `2½`.
pub fn show_halves(h: u32) -> String {
    match (h / 2, h % 2) {
        (0, 1) => "½".into(),
        (w, 0) => w.to_string(),
        (w, _) => format!("{w}½"),
    }
}

/// A Sh/DG entry effect of the Movement Table (chart p2 legend, 12.2.5): a unit entering the
/// hex or crossing the hexside other than by Road Movement — a retreat included (21.4.7) —
/// becomes at worst this.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EntryEffect {
    Shaken,
    Disorganized,
}

/// One class's entry effect with where it came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Entry {
    pub effect: EntryEffect,
    pub provenance: Provenance,
    /// The rule the cell comes from (the row's when not given).
    pub rule: String,
}

impl Entry {
    /// As the chart writes it: `Sh`, `DG`.
    pub fn show(&self) -> &'static str {
        match self.effect {
            EntryEffect::Shaken => "Sh",
            EntryEffect::Disorganized => "DG",
        }
    }
}

/// A row of costs per movement class.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Row {
    pub name: String,
    pub rule: String,
    /// Cells by class, in [`CLASSES`] order.
    pub cells: BTreeMap<String, Cell>,
    pub blocking: bool,
    pub hindering: bool,
    pub fortified: bool,
    pub town: bool,
    /// Slope rows only: the difference in levels this row is for.
    pub levels: u8,
    /// The Sh/DG entry effect per class (`enters = { line = "dg" }`), for the classes that
    /// have one (12.2.5, 21.4.7).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub enters: BTreeMap<String, Entry>,
}

impl Row {
    /// The cell of a class (every row has every class: load-time validation).
    pub fn cell(&self, class: &str) -> Cell {
        self.cells.get(class).copied().unwrap_or(Cell {
            halves: None,
            provenance: Provenance::Assumed,
        })
    }
}

/// A scalar entry (allowance or cost) with its provenance.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Scalar {
    /// In half-points.
    pub halves: u32,
    pub provenance: Provenance,
    pub rule: String,
    pub note: String,
}

/// A visibility value in hexes (0 = unlimited).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Sight {
    pub hexes: u32,
    pub provenance: Provenance,
    pub note: String,
}

/// The Movement Table in force.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MovementTables {
    pub allowance: BTreeMap<String, Scalar>,
    pub costs: BTreeMap<String, Scalar>,
    pub terrain: BTreeMap<String, Row>,
    pub hexside: BTreeMap<String, Row>,
    /// Slope rows, by ascending `levels`.
    pub slope: Vec<Row>,
    pub visibility: BTreeMap<String, Sight>,
    /// Stacking limits per hex and side (9.1): `strength_c`, `gun_points`, `skirmishers`,
    /// `wagons` (the same shape as a visibility entry: a number and its provenance).
    pub stacking: BTreeMap<String, Sight>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    #[allow(dead_code)]
    ruleset: Option<String>,
    #[serde(default)]
    allowance: Option<toml::Table>,
    #[serde(default)]
    costs: Option<toml::Table>,
    #[serde(default)]
    terrain: Option<toml::Table>,
    #[serde(default)]
    hexside: Option<toml::Table>,
    #[serde(default)]
    slope: Option<toml::Table>,
    #[serde(default)]
    visibility: Option<toml::Table>,
    #[serde(default)]
    stacking: Option<toml::Table>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLimit {
    limit: u32,
    #[serde(default)]
    provenance: Provenance,
    #[serde(default)]
    note: String,
}

/// The stacking limits (9.1).
pub const LIMITS: [&str; 4] = ["strength_c", "gun_points", "skirmishers", "wagons"];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScalar {
    mp: toml::Value,
    #[serde(default)]
    provenance: Provenance,
    #[serde(default)]
    rule: String,
    #[serde(default)]
    note: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSight {
    hexes: u32,
    #[serde(default)]
    provenance: Provenance,
    #[serde(default)]
    note: String,
}

fn cell_halves(
    v: &toml::Value,
    section: &str,
    row: &str,
    column: &str,
) -> Result<Option<u32>, MovementTableError> {
    let bad = || MovementTableError::Cell {
        section: section.into(),
        row: row.into(),
        column: column.into(),
        text: v.to_string(),
    };
    match v {
        toml::Value::String(s) if s == "P" => Ok(None),
        toml::Value::Integer(i) if (0..=100).contains(i) => Ok(Some(*i as u32 * 2)),
        // Halves are exact in binary floating point; this is parsing, not a rule.
        toml::Value::Float(f) if (0.0..=100.0).contains(f) && (f * 2.0).fract() == 0.0 => {
            Ok(Some((f * 2.0) as u32))
        }
        _ => Err(bad()),
    }
}

fn row_err(section: &str, row: &str, reason: impl Into<String>) -> MovementTableError {
    MovementTableError::Row {
        section: section.into(),
        row: row.into(),
        reason: reason.into(),
    }
}

fn parse_row(section: &str, name: &str, v: &toml::Value) -> Result<Row, MovementTableError> {
    let t = v
        .as_table()
        .ok_or_else(|| row_err(section, name, "expected a table of costs per class"))?;
    let provenance: Provenance = match t.get("provenance") {
        Some(p) => p
            .clone()
            .try_into()
            .map_err(|e| row_err(section, name, format!("provenance: {e}")))?,
        None => Provenance::Seed,
    };
    let cell_prov: BTreeMap<String, Provenance> = match t.get("cell_provenance") {
        Some(p) => p
            .clone()
            .try_into()
            .map_err(|e| row_err(section, name, format!("cell_provenance: {e}")))?,
        None => BTreeMap::new(),
    };
    let flag = |k: &str| t.get(k).and_then(toml::Value::as_bool).unwrap_or(false);
    let mut cells = BTreeMap::new();
    for (k, val) in t {
        match k.as_str() {
            "rule" | "provenance" | "cell_provenance" | "blocking" | "hindering" | "fortified"
            | "town" | "levels" | "enters" => {}
            c if CLASSES.contains(&c) => {
                let halves = cell_halves(val, section, name, c)?;
                let provenance = cell_prov.get(c).copied().unwrap_or(provenance);
                cells.insert(c.to_string(), Cell { halves, provenance });
            }
            other => {
                return Err(row_err(
                    section,
                    name,
                    format!(
                        "unknown column `{other}`; the classes are {}",
                        CLASSES.join(", ")
                    ),
                ));
            }
        }
    }
    for c in CLASSES {
        if !cells.contains_key(c) {
            return Err(row_err(section, name, format!("no cost for class `{c}`")));
        }
    }
    for c in cell_prov.keys() {
        if !CLASSES.contains(&c.as_str()) {
            return Err(row_err(
                section,
                name,
                format!("cell_provenance names unknown class `{c}`"),
            ));
        }
    }
    let levels = t
        .get("levels")
        .and_then(toml::Value::as_integer)
        .unwrap_or(0);
    if section == "slope" && !(1..=9).contains(&levels) {
        return Err(row_err(section, name, "`levels` must be 1–9"));
    }
    let rule: String = t
        .get("rule")
        .and_then(toml::Value::as_str)
        .unwrap_or_default()
        .into();
    let enters = match t.get("enters") {
        Some(v) => parse_enters(section, name, v, provenance, &rule)?,
        None => BTreeMap::new(),
    };
    Ok(Row {
        name: name.into(),
        rule,
        cells,
        blocking: flag("blocking"),
        hindering: flag("hindering") || flag("fortified"),
        fortified: flag("fortified"),
        town: flag("town"),
        levels: levels as u8,
        enters,
    })
}

/// `enters = { CLASS = "sh" | "dg", provenance = …, rule = … }`: the Sh/DG entry effects of a
/// row (chart p2 legend, 12.2.5); provenance and rule default to the row's.
fn parse_enters(
    section: &str,
    name: &str,
    v: &toml::Value,
    row_provenance: Provenance,
    row_rule: &str,
) -> Result<BTreeMap<String, Entry>, MovementTableError> {
    let t = v.as_table().ok_or_else(|| {
        row_err(
            section,
            name,
            "enters: expected a table such as { line = \"dg\" }",
        )
    })?;
    let provenance = match t.get("provenance") {
        Some(p) => p
            .clone()
            .try_into()
            .map_err(|e| row_err(section, name, format!("enters.provenance: {e}")))?,
        None => row_provenance,
    };
    let rule = t
        .get("rule")
        .and_then(toml::Value::as_str)
        .unwrap_or(row_rule)
        .to_string();
    let mut out = BTreeMap::new();
    for (k, val) in t {
        match k.as_str() {
            "provenance" | "rule" => {}
            c if CLASSES.contains(&c) => {
                let effect = match val.as_str().map(str::to_ascii_lowercase).as_deref() {
                    Some("sh" | "shaken") => EntryEffect::Shaken,
                    Some("dg" | "disorganized") => EntryEffect::Disorganized,
                    _ => {
                        return Err(row_err(
                            section,
                            name,
                            format!("enters.{c}: expected \"sh\" or \"dg\", found {val}"),
                        ));
                    }
                };
                out.insert(
                    c.to_string(),
                    Entry {
                        effect,
                        provenance,
                        rule: rule.clone(),
                    },
                );
            }
            other => {
                return Err(row_err(
                    section,
                    name,
                    format!(
                        "enters: unknown class `{other}`; the classes are {}",
                        CLASSES.join(", ")
                    ),
                ));
            }
        }
    }
    Ok(out)
}

fn parse_scalars(
    section: &str,
    t: &toml::Table,
) -> Result<BTreeMap<String, Scalar>, MovementTableError> {
    let section_rule = t
        .get("rule")
        .and_then(toml::Value::as_str)
        .unwrap_or_default();
    let mut out = BTreeMap::new();
    for (k, v) in t {
        if k == "rule" {
            continue;
        }
        let raw: RawScalar = v
            .clone()
            .try_into()
            .map_err(|e| row_err(section, k, e.to_string()))?;
        let halves = cell_halves(&raw.mp, section, k, "mp")?
            .ok_or_else(|| row_err(section, k, "an allowance or cost cannot be \"P\""))?;
        out.insert(
            k.clone(),
            Scalar {
                halves,
                provenance: raw.provenance,
                rule: if raw.rule.is_empty() {
                    section_rule.into()
                } else {
                    raw.rule
                },
                note: raw.note,
            },
        );
    }
    Ok(out)
}

fn parse_rows(section: &str, t: &toml::Table) -> Result<BTreeMap<String, Row>, MovementTableError> {
    t.iter()
        .map(|(k, v)| Ok((k.clone(), parse_row(section, k, v)?)))
        .collect()
}

impl MovementTables {
    /// Read a complete table file.
    pub fn parse(text: &str) -> Result<Self, MovementTableError> {
        let raw: RawFile =
            toml::from_str(text).map_err(|e| MovementTableError::Parse(e.to_string()))?;
        let missing = |s: &str| MovementTableError::Missing {
            section: s.into(),
            key: "(the whole section)".into(),
        };
        let allowance = parse_scalars(
            "allowance",
            &raw.allowance.ok_or_else(|| missing("allowance"))?,
        )?;
        let costs = parse_scalars("costs", &raw.costs.ok_or_else(|| missing("costs"))?)?;
        let terrain = parse_rows("terrain", &raw.terrain.ok_or_else(|| missing("terrain"))?)?;
        let hexside = parse_rows("hexside", &raw.hexside.unwrap_or_default())?;
        let mut slope: Vec<Row> = parse_rows("slope", &raw.slope.unwrap_or_default())?
            .into_values()
            .collect();
        slope.sort_by_key(|r| r.levels);
        let mut visibility = BTreeMap::new();
        for (k, v) in raw.visibility.unwrap_or_default() {
            if k == "rule" {
                continue;
            }
            if !["day", "dawn", "dusk", "night"].contains(&k.as_str()) {
                return Err(row_err(
                    "visibility",
                    &k,
                    "expected day, dawn, dusk or night",
                ));
            }
            let s: RawSight = v
                .try_into()
                .map_err(|e| row_err("visibility", &k, e.to_string()))?;
            visibility.insert(
                k,
                Sight {
                    hexes: s.hexes,
                    provenance: s.provenance,
                    note: s.note,
                },
            );
        }
        let mut stacking = BTreeMap::new();
        for (k, v) in raw.stacking.unwrap_or_default() {
            if k == "rule" {
                continue;
            }
            if !LIMITS.contains(&k.as_str()) {
                return Err(row_err(
                    "stacking",
                    &k,
                    format!("expected one of {}", LIMITS.join(", ")),
                ));
            }
            let l: RawLimit = v
                .try_into()
                .map_err(|e| row_err("stacking", &k, e.to_string()))?;
            stacking.insert(
                k,
                Sight {
                    hexes: l.limit,
                    provenance: l.provenance,
                    note: l.note,
                },
            );
        }
        let t = MovementTables {
            stacking,
            allowance,
            costs,
            terrain,
            hexside,
            slope,
            visibility,
        };
        t.validate()?;
        Ok(t)
    }

    fn validate(&self) -> Result<(), MovementTableError> {
        for k in ALLOWANCES {
            if !self.allowance.contains_key(k) {
                return Err(MovementTableError::Missing {
                    section: "allowance".into(),
                    key: k.into(),
                });
            }
        }
        for k in COSTS {
            if !self.costs.contains_key(k) {
                return Err(MovementTableError::Missing {
                    section: "costs".into(),
                    key: k.into(),
                });
            }
        }
        for k in LIMITS {
            if !self.stacking.contains_key(k) {
                return Err(MovementTableError::Missing {
                    section: "stacking".into(),
                    key: k.into(),
                });
            }
        }
        if !self.terrain.contains_key("clear") {
            return Err(MovementTableError::Missing {
                section: "terrain".into(),
                key: "clear".into(),
            });
        }
        Ok(())
    }

    /// The built-in tables with whole sections replaced by a user file's.
    pub fn with_override(text: &str) -> Result<Self, MovementTableError> {
        let mut base: toml::Table =
            toml::from_str(BUILTIN_TOML).map_err(|e| MovementTableError::Parse(e.to_string()))?;
        // The user's sections are checked in the user's own text first, so an unknown section
        // or a section of the wrong type is told at its line there, not at a line of the merged
        // text the user never saw.
        toml::from_str::<RawFile>(text).map_err(|e| MovementTableError::Parse(e.to_string()))?;
        let user: toml::Table =
            toml::from_str(text).map_err(|e| MovementTableError::Parse(e.to_string()))?;
        for (section, v) in user {
            match (base.get_mut(&section), v) {
                // Replace rows (or entries) one by one inside a known section.
                (Some(toml::Value::Table(b)), toml::Value::Table(u)) => {
                    for (k, row) in u {
                        b.insert(k, row);
                    }
                }
                (_, v) => {
                    base.insert(section, v);
                }
            }
        }
        let merged =
            toml::to_string(&base).map_err(|e| MovementTableError::Parse(e.to_string()))?;
        Self::parse(&merged)
    }

    /// A scalar cost in half-points (validated present).
    pub fn cost(&self, key: &str) -> u32 {
        self.costs.get(key).map_or(0, |s| s.halves)
    }

    /// An allowance in half-points (validated present).
    pub fn allowance_halves(&self, key: &str) -> u32 {
        self.allowance.get(key).map_or(0, |s| s.halves)
    }

    /// A stacking limit (validated present).
    pub fn limit(&self, key: &str) -> u32 {
        self.stacking.get(key).map_or(0, |s| s.hexes)
    }

    /// The terrain row of a terrain name; a name the table does not know moves as clear, and
    /// the second value says so (the explanation shows it).
    pub fn terrain_row(&self, name: &str) -> (&Row, bool) {
        match self.terrain.get(name) {
            Some(r) => (r, false),
            None => (&self.terrain["clear"], true),
        }
    }

    /// The Sh/DG entry effect for `class` entering a hex of `terrain` across a `hexside` feature
    /// (12.2.5): the worse of the two, with its cell.
    pub fn entry_effect(
        &self,
        class: &str,
        terrain: &str,
        hexside: Option<&str>,
    ) -> Option<&Entry> {
        let hex = self.terrain_row(terrain).0.enters.get(class);
        let side = hexside
            .and_then(|k| self.hexside.get(k))
            .and_then(|r| r.enters.get(class));
        match (hex, side) {
            (Some(a), Some(b)) => Some(if b.effect == EntryEffect::Disorganized {
                b
            } else {
                a
            }),
            (a, b) => a.or(b),
        }
    }

    /// The slope row for a difference of `levels` (the highest row at or below it).
    pub fn slope_row(&self, levels: u32) -> Option<&Row> {
        if levels == 0 {
            return None;
        }
        self.slope
            .iter()
            .rev()
            .find(|r| u32::from(r.levels) <= levels)
    }
}

/// The built-in tables, parsed once.
pub fn builtin() -> &'static MovementTables {
    static T: OnceLock<MovementTables> = OnceLock::new();
    T.get_or_init(|| MovementTables::parse(BUILTIN_TOML).expect("built-in movement table is valid"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_loads_with_the_seed_cells_tagged_seed() {
        let t = builtin();
        // chart p2: Line in clear 2 MP (seed); Movement Allowance row (seed).
        let clear = &t.terrain["clear"];
        assert_eq!(clear.cell("line").halves, Some(4));
        assert_eq!(clear.cell("line").provenance, Provenance::Seed);
        assert_eq!(clear.cell("column").provenance, Provenance::Assumed);
        assert_eq!(t.allowance_halves("line"), 16);
        assert_eq!(t.allowance_halves("cavalry-heavy"), 24);
        assert_eq!(t.cost("close_combat"), 4); // 15.1.4
        assert_eq!(t.terrain["ocean"].cell("cavalry").halves, None);
        assert_eq!(t.slope_row(1).unwrap().cell("line").halves, Some(2)); // 13.0 example
        assert_eq!(t.slope_row(7).unwrap().cell("line").halves, None); // 12.2.6
    }

    #[test]
    fn a_bad_cell_names_its_place() {
        let e = MovementTables::with_override("[terrain.clear]\nline = \"x\"\ncolumn = 1\nskirmish = 1\ncavalry = 1\nartillery = 1\ntrain = 1\n").unwrap_err();
        let s = e.to_string();
        assert!(s.contains("[terrain.clear] line"), "{s}");
        let e = MovementTables::with_override("[terrain.mud]\nline = 3\n").unwrap_err();
        assert!(e.to_string().contains("no cost for class `column`"), "{e}");
        let e = MovementTables::with_override("[terrain.clear]\nline = 1.25\ncolumn = 1\nskirmish = 1\ncavalry = 1\nartillery = 1\ntrain = 1\n").unwrap_err();
        assert!(e.to_string().contains("half number"), "{e}");
    }

    #[test]
    fn entry_effects_load_with_their_provenance_and_a_bad_one_names_its_place() {
        // 19.3 with 21.4.7: a Line entering a Town/Village becomes DG (derived).
        let t = builtin();
        let e = &t.terrain["village"].enters["line"];
        assert_eq!(e.effect, EntryEffect::Disorganized);
        assert_eq!(e.provenance, Provenance::Derived);
        assert!(!t.terrain["village"].enters.contains_key("column"));
        assert!(t.terrain["clear"].enters.is_empty());
        let e = MovementTables::with_override("[terrain.mud]\nline = 3\ncolumn = 2\nskirmish = 1\ncavalry = 3\nartillery = 3\ntrain = 3\nenters = { cavalry = \"x\" }\n").unwrap_err();
        assert!(
            e.to_string().contains("[terrain.mud]") && e.to_string().contains("enters.cavalry"),
            "{e}"
        );
        let t = MovementTables::with_override("[hexside.stream]\nline = 2\ncolumn = 1\nskirmish = 1\ncavalry = 2\nartillery = 3\ntrain = 3\nenters = { line = \"sh\", cavalry = \"dg\" }\n").unwrap();
        assert_eq!(
            t.hexside["stream"].enters["line"].effect,
            EntryEffect::Shaken
        );
        assert_eq!(
            t.hexside["stream"].enters["cavalry"].provenance,
            Provenance::Seed
        );
    }

    #[test]
    fn an_override_replaces_a_row_and_keeps_the_rest() {
        let t = MovementTables::with_override(
            "[terrain.woods]\nline = 6\ncolumn = 4\nskirmish = 2\ncavalry = \"P\"\nartillery = \"P\"\ntrain = \"P\"\nblocking = true\n",
        )
        .unwrap();
        assert_eq!(t.terrain["woods"].cell("line").halves, Some(12));
        assert_eq!(t.terrain["woods"].cell("cavalry").halves, None);
        assert_eq!(t.terrain["clear"].cell("line").halves, Some(4));
    }
}
