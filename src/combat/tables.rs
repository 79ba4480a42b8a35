//! The combat tables as data: `tables/nbs-3.0/combat.toml`, embedded with `include_str!` and
//! overridable section by section from a user file. Every cell has a [`Provenance`].
//!
//! Owns: the table schema, parsing of cell notation (`1(3)M-1`, `OF`, `All`, `-`), load-time
//! validation (row keys, row lengths, ranges, declared monotonicity) with errors that name
//! table / row / column, and lookups that clamp out-of-range rolls to the nearest row (3.5) and
//! report which cell they read.
//!
//! Must not: read files (callers hand in text), print, or decide combat.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::{GunLoss, Loss};
use crate::provenance::Provenance;

/// The embedded default tables.
pub const BUILTIN_TOML: &str = include_str!("../../tables/nbs-3.0/combat.toml");

/// A problem in a combat table file. Each variant names the place.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    /// The text is not valid TOML or does not fit the schema (unknown key, wrong type). The
    /// message carries the line and column from the TOML parser.
    #[error("combat tables: {0}")]
    Parse(String),
    /// A cell's text cannot be read (e.g. `1(x)` or `M+9`).
    #[error("table {table}, row {row}, column {column}: cannot read {text:?}: {reason}")]
    Cell {
        table: String,
        row: i32,
        column: String,
        text: String,
        reason: String,
    },
    /// A row has a different number of cells than the table has columns.
    #[error("table {table}, row {row}: {found} cells for {expected} columns")]
    RowLength {
        table: String,
        row: i32,
        expected: usize,
        found: usize,
    },
    /// Row keys are not consecutive ascending integers, or there are none.
    #[error("table {table}: {reason}")]
    Rows { table: String, reason: String },
    /// A value outside its allowed range (P over 10, S over 15, M outside -4..=+2, …).
    #[error("table {table}, row {row}, column {column}: {reason}")]
    Range {
        table: String,
        row: i32,
        column: String,
        reason: String,
    },
    /// A declared monotonicity is broken between this cell and the previous row/column.
    #[error("table {table}, row {row}, column {column}: not monotone ({what})")]
    NotMonotone {
        table: String,
        row: i32,
        column: String,
        what: String,
    },
    /// A name in `blood_lust`, `cell_provenance` or `monotone` is not known.
    #[error("table {table}: unknown {what} {name:?}")]
    Unknown {
        table: String,
        what: String,
        name: String,
    },
    /// A modifier the resolvers need is missing from a table's `modifiers`.
    #[error("table {table}: missing modifier {name:?}")]
    MissingModifier { table: String, name: String },
    /// A scalar setting is out of range (e.g. `need` values outside 1..=6).
    #[error("{section}.{field}: {reason}")]
    Setting {
        section: String,
        field: String,
        reason: String,
    },
    /// A lookup asked for a column the table does not have (only with user override files).
    #[error("table {table}: no column {column:?}")]
    NoColumn { table: String, column: String },
}

/// A named modifier with its source.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Modifier {
    pub value: i8,
    pub rule: String,
    #[serde(default)]
    pub provenance: Provenance,
}

/// A table cell that was read, for the record (DESIGN: a game records the assumed cells used).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CellRef {
    pub table: String,
    pub row: i32,
    pub column: String,
    pub provenance: Provenance,
}

/// One cell: its printed text, parsed value and provenance.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Cell<T> {
    pub text: String,
    pub value: T,
    pub provenance: Provenance,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Row<T> {
    pub key: i32,
    pub cells: Vec<Cell<T>>,
}

/// A parsed, validated table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Table<T> {
    pub id: String,
    pub title: String,
    pub rule: String,
    pub columns: Vec<String>,
    pub rows: Vec<Row<T>>,
    /// Columns marked with the Blood Lust bullet (15.3.5, 21.3.3).
    pub blood_lust: Vec<usize>,
    pub modifiers: BTreeMap<String, Modifier>,
}

/// A loss-table cell: a [`Loss`] or, on the Breakoff table, "OF".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Res {
    pub loss: Loss,
    pub opportunity_fire: bool,
}

impl<T: Clone> Table<T> {
    pub fn first_key(&self) -> i32 {
        self.rows.first().map_or(0, |r| r.key)
    }
    pub fn last_key(&self) -> i32 {
        self.rows.last().map_or(0, |r| r.key)
    }

    /// Index of a column by label.
    pub fn column(&self, label: &str) -> Result<usize, TableError> {
        self.columns
            .iter()
            .position(|c| c == label)
            .ok_or_else(|| TableError::NoColumn {
                table: self.id.clone(),
                column: label.to_string(),
            })
    }

    /// The cell at a (modified) roll, clamped to the nearest listed row (3.5).
    pub fn lookup(&self, key: i32, col: usize) -> Result<(T, CellRef), TableError> {
        let k = key.clamp(self.first_key(), self.last_key());
        let row = self
            .rows
            .iter()
            .find(|r| r.key == k)
            .ok_or_else(|| TableError::Rows {
                table: self.id.clone(),
                reason: format!("no row {k}"),
            })?;
        let cell = row.cells.get(col).ok_or_else(|| TableError::NoColumn {
            table: self.id.clone(),
            column: col.to_string(),
        })?;
        Ok((
            cell.value.clone(),
            CellRef {
                table: self.id.clone(),
                row: k,
                column: self.columns[col].clone(),
                provenance: cell.provenance,
            },
        ))
    }

    /// A modifier's value by name.
    pub fn modifier(&self, name: &str) -> i8 {
        self.modifiers.get(name).map_or(0, |m| m.value)
    }

    /// Is this column bulleted (Blood Lust possible)?
    pub fn bulleted(&self, col: usize) -> bool {
        self.blood_lust.contains(&col)
    }

    /// Count cells by provenance.
    pub fn provenance_counts(&self) -> BTreeMap<Provenance, usize> {
        let mut m = BTreeMap::new();
        for r in &self.rows {
            for c in &r.cells {
                *m.entry(c.provenance).or_insert(0) += 1;
            }
        }
        m
    }
}

/// Check-to-stand settings and modifiers (15.2, 16.2.2, 16.4.1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stand {
    pub rule: String,
    /// Stand on ≥ this, morale A..E.
    pub need: [u8; 5],
    pub max_modifier: i8,
    pub unmodified_always_stands: u8,
    pub close_combat: BTreeMap<String, Modifier>,
    pub charge: BTreeMap<String, Modifier>,
}

/// Morale Check settings (21.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoraleCheckCfg {
    pub rule: String,
    pub need: [u8; 5],
    pub commander_min_rating: u8,
    pub commander_bonus: i8,
}

/// Straggler Recovery (20.3.2; chart p6).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StragglerRecoveryCfg {
    pub rule: String,
    pub night: Modifier,
    pub fortified_or_village: Modifier,
    pub no_orders: Modifier,
    pub commander: Modifier,
    pub double_on_unmodified: u8,
    pub enemy_distance_day: u8,
    pub enemy_distance_night: u8,
}

/// Commander Loss (20.1.1, 25.4, 25.5).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommanderLossCfg {
    pub rule: String,
    pub lost_on: Vec<u8>,
    pub morale_change: i8,
    pub fighter_bonus: u8,
    pub fighter_max: u8,
    pub wound_dead_on: Vec<u8>,
    pub wound_out_on: Vec<u8>,
    pub wound_returns_on: Vec<u8>,
}

/// Wreck thresholds (21.6) — an assumption: the Loss Charts are not in the seed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WreckedCfg {
    pub rule: String,
    pub provenance: Provenance,
    /// [numerator, denominator] of the starting boxes.
    pub brigade_fraction: [u8; 2],
    pub division_less: u8,
    pub boxes_per_a: u8,
    pub morale_change: i8,
}

impl WreckedCfg {
    /// Boxes left of the "Wrecked" mark for a brigade of `boxes` boxes (rounded up).
    pub fn brigade_wreck_at(&self, boxes: u8) -> u8 {
        let [n, d] = self.brigade_fraction;
        let (b, n, d) = (u32::from(boxes), u32::from(n), u32::from(d.max(1)));
        u8::try_from((b * n).div_ceil(d)).unwrap_or(u8::MAX)
    }
    /// Wrecked brigades that wreck a division of `brigades` brigades (minimum 1).
    pub fn division_wreck_at(&self, brigades: u8) -> u8 {
        brigades.saturating_sub(self.division_less).max(1)
    }
    /// Loss-chart boxes for a strength level.
    pub fn boxes_for(&self, size: super::Size) -> u8 {
        let per_c = u32::from(self.boxes_per_a);
        u8::try_from(u32::from(size.units()) * per_c / 4).unwrap_or(u8::MAX)
    }
    /// Boxes of a unit's loss chart (20.4): a battery's gun points (3.3(7) default 5), a brigade's
    /// boxes from its strength (C when none is given); a train has no chart (`None`).
    pub fn unit_boxes(&self, u: &impl crate::units::ChartedUnit) -> Option<u8> {
        use crate::units::UnitKind;
        if u.kind() == UnitKind::Train {
            None
        } else if u.kind().is_artillery() {
            Some(u.gun_points().unwrap_or(5))
        } else {
            Some(self.boxes_for(u.strength().map_or(super::Size::C, super::Size::from)))
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CloseCombatCfg {
    pub rule: String,
    pub loss_max_modifier: i8,
}

/// How a modified Fire Value above the last column is read (8.2 item 27).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FvAboveMax {
    /// Nearest column (3.5).
    Clamp,
    /// Extend the 17.0 procedure.
    Extend,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArtilleryCfg {
    pub rule: String,
    pub max_gp_per_hex: u8,
    pub max_gp_from_village: u8,
    pub fv_above_max: FvAboveMax,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkirmisherFireCfg {
    pub rule: String,
    pub elite_full_halves: u8,
    pub elite_reduced_halves: u8,
    pub regular_full_halves: u8,
    pub regular_reduced_halves: u8,
    pub target_in_cover: Modifier,
    pub target_limbered_or_square: Modifier,
    pub rifles: Modifier,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRow {
    key: i32,
    cells: Vec<String>,
    #[serde(default)]
    provenance: Provenance,
    #[serde(default)]
    cell_provenance: BTreeMap<String, Provenance>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTable {
    #[serde(default)]
    title: Option<String>,
    rule: String,
    #[serde(default)]
    blood_lust: Vec<String>,
    columns: Vec<String>,
    #[serde(default)]
    monotone: Vec<String>,
    rows: Vec<RawRow>,
    #[serde(default)]
    modifiers: BTreeMap<String, Modifier>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    ruleset: String,
    stand: Stand,
    morale_check: MoraleCheckCfg,
    straggler_recovery: StragglerRecoveryCfg,
    commander_loss: CommanderLossCfg,
    wrecked: WreckedCfg,
    cc_attacker_won_attacker: RawTable,
    cc_attacker_won_defender: RawTable,
    cc_defender_won_attacker: RawTable,
    cc_defender_won_defender: RawTable,
    firefight: RawTable,
    close_combat: CloseCombatCfg,
    charge_successful: RawTable,
    breakoff: RawTable,
    repulse: RawTable,
    cavalry_vs_cavalry: RawTable,
    fire_values_light: RawTable,
    fire_values_heavy: RawTable,
    fire_results: RawTable,
    artillery: ArtilleryCfg,
    gun_loss: RawTable,
    skirmisher_fire: SkirmisherFireCfg,
}

/// Every combat table and setting, validated.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CombatTables {
    pub ruleset: String,
    pub stand: Stand,
    pub morale_check: MoraleCheckCfg,
    pub straggler_recovery: StragglerRecoveryCfg,
    pub commander_loss: CommanderLossCfg,
    pub wrecked: WreckedCfg,
    pub cc_attacker_won_attacker: Table<Res>,
    pub cc_attacker_won_defender: Table<Res>,
    pub cc_defender_won_attacker: Table<Res>,
    pub cc_defender_won_defender: Table<Res>,
    pub firefight: Table<Res>,
    pub close_combat: CloseCombatCfg,
    pub charge_successful: Table<Res>,
    pub breakoff: Table<Res>,
    pub repulse: Table<Res>,
    pub cavalry_vs_cavalry: Table<Res>,
    pub fire_values_light: Table<Option<u8>>,
    pub fire_values_heavy: Table<Option<u8>>,
    pub fire_results: Table<Res>,
    pub artillery: ArtilleryCfg,
    pub gun_loss: Table<GunLoss>,
    pub skirmisher_fire: SkirmisherFireCfg,
}

/// The embedded tables, parsed once. The embedded file is validated by a unit test, so this
/// cannot fail at run time.
pub fn builtin() -> &'static CombatTables {
    static T: OnceLock<CombatTables> = OnceLock::new();
    T.get_or_init(|| {
        CombatTables::from_toml_str(BUILTIN_TOML)
            .expect("embedded combat.toml is validated by tests")
    })
}

impl CombatTables {
    /// Parse and validate a complete tables file.
    pub fn from_toml_str(text: &str) -> Result<CombatTables, TableError> {
        let raw: RawFile = toml::from_str(text).map_err(|e| TableError::Parse(e.to_string()))?;
        build(raw)
    }

    /// The built-in tables with whole sections replaced by those in `user_text` (a user's copy
    /// of the printed charts). Unknown sections are an error.
    pub fn with_override(user_text: &str) -> Result<CombatTables, TableError> {
        let mut base: toml::Table =
            toml::from_str(BUILTIN_TOML).map_err(|e| TableError::Parse(e.to_string()))?;
        let user: toml::Table =
            toml::from_str(user_text).map_err(|e| TableError::Parse(e.to_string()))?;
        for (k, v) in user {
            if !base.contains_key(&k) {
                return Err(TableError::Parse(format!("unknown section [{k}]")));
            }
            base.insert(k, v);
        }
        let text = toml::to_string(&base).map_err(|e| TableError::Parse(e.to_string()))?;
        Self::from_toml_str(&text)
    }

    /// All loss-type tables, for listing and provenance reports.
    pub fn res_tables(&self) -> Vec<&Table<Res>> {
        vec![
            &self.cc_attacker_won_attacker,
            &self.cc_attacker_won_defender,
            &self.cc_defender_won_attacker,
            &self.cc_defender_won_defender,
            &self.firefight,
            &self.charge_successful,
            &self.breakoff,
            &self.repulse,
            &self.cavalry_vs_cavalry,
            &self.fire_results,
        ]
    }

    /// Every non-seed cell of every table.
    pub fn non_seed_cells(&self) -> Vec<CellRef> {
        fn collect<T>(t: &Table<T>, out: &mut Vec<CellRef>) {
            for r in &t.rows {
                for (i, c) in r.cells.iter().enumerate() {
                    if c.provenance != Provenance::Seed {
                        out.push(CellRef {
                            table: t.id.clone(),
                            row: r.key,
                            column: t.columns[i].clone(),
                            provenance: c.provenance,
                        });
                    }
                }
            }
        }
        let mut out = Vec::new();
        for t in self.res_tables() {
            collect(t, &mut out);
        }
        collect(&self.fire_values_light, &mut out);
        collect(&self.fire_values_heavy, &mut out);
        collect(&self.gun_loss, &mut out);
        out
    }
}

fn build(raw: RawFile) -> Result<CombatTables, TableError> {
    check_settings(&raw)?;
    check_stand_modifiers(&raw)?;
    check_modifier_ranges(&raw)?;
    let t = CombatTables {
        ruleset: raw.ruleset,
        stand: raw.stand,
        morale_check: raw.morale_check,
        straggler_recovery: raw.straggler_recovery,
        commander_loss: raw.commander_loss,
        wrecked: raw.wrecked,
        cc_attacker_won_attacker: res_table(
            "cc_attacker_won_attacker",
            raw.cc_attacker_won_attacker,
            &["size_aa_plus", "night"],
        )?,
        cc_attacker_won_defender: res_table(
            "cc_attacker_won_defender",
            raw.cc_attacker_won_defender,
            &["size_aa_plus", "attacker_in_line", "night"],
        )?,
        cc_defender_won_attacker: res_table(
            "cc_defender_won_attacker",
            raw.cc_defender_won_attacker,
            &["column_vs_line", "size_aa_plus", "night"],
        )?,
        cc_defender_won_defender: res_table(
            "cc_defender_won_defender",
            raw.cc_defender_won_defender,
            &["in_column", "size_aa_plus", "fortified", "night"],
        )?,
        firefight: res_table(
            "firefight",
            raw.firefight,
            &[
                "size_aa_plus_or_column",
                "different_elevation",
                "skirmisher_firing",
                "fortified",
                "night",
            ],
        )?,
        close_combat: raw.close_combat,
        charge_successful: res_table(
            "charge_successful",
            raw.charge_successful,
            &["attacker_size_a_ab", "attacker_size_aa_plus"],
        )?,
        breakoff: res_table(
            "breakoff",
            raw.breakoff,
            &["morale_a", "morale_b", "morale_c", "morale_d", "morale_e"],
        )?,
        repulse: res_table(
            "repulse",
            raw.repulse,
            &[
                "defender_in_line",
                "defender_in_square",
                "defender_size_b_or_c",
                "attacker_size_aa_plus",
            ],
        )?,
        cavalry_vs_cavalry: res_table(
            "cavalry_vs_cavalry",
            raw.cavalry_vs_cavalry,
            &["both_b_or_c", "both_aa_plus"],
        )?,
        fire_values_light: value_table("fire_values_light", raw.fire_values_light, 0..=6)?,
        fire_values_heavy: value_table("fire_values_heavy", raw.fire_values_heavy, 0..=6)?,
        fire_results: res_table(
            "fire_results",
            raw.fire_results,
            &[
                "target_vulnerable",
                "target_in_cover",
                "flank_entry_cannister",
                "target_skirmisher",
                "case_shot_vs_artillery",
            ],
        )?,
        artillery: raw.artillery,
        gun_loss: gun_table("gun_loss", raw.gun_loss)?,
        skirmisher_fire: raw.skirmisher_fire,
    };
    if t.fire_values_light.rows.len() != 5
        || t.fire_values_light.first_key() != 1
        || t.fire_values_heavy.rows.len() != 5
        || t.fire_values_heavy.first_key() != 1
    {
        return Err(TableError::Rows {
            table: "fire_values_light/heavy".into(),
            reason: "rows must be gun points 1..=5".into(),
        });
    }
    if t.fire_results.columns.len() != 7 || t.fire_results.rows.len() != 6 {
        return Err(TableError::Rows {
            table: "fire_results".into(),
            reason: "must have rows 1..=6 and columns <1,1..6".into(),
        });
    }
    Ok(t)
}

/// The settings a table file may not get wrong: needs, caps, fractions, 2d6 values.
fn check_settings(raw: &RawFile) -> Result<(), TableError> {
    check_need("stand", &raw.stand.need)?;
    check_need("morale_check", &raw.morale_check.need)?;
    if !(0..=6).contains(&raw.stand.max_modifier) {
        return Err(setting("stand", "max_modifier", "must be 0..=6"));
    }
    if raw.wrecked.brigade_fraction[1] == 0 {
        return Err(setting("wrecked", "brigade_fraction", "denominator is 0"));
    }
    if raw
        .commander_loss
        .lost_on
        .iter()
        .any(|v| !(2..=12).contains(v))
    {
        return Err(setting(
            "commander_loss",
            "lost_on",
            "2d6 values are 2..=12",
        ));
    }
    Ok(())
}

/// Every Check to Stand modifier the resolvers look up is present.
fn check_stand_modifiers(raw: &RawFile) -> Result<(), TableError> {
    for (name, need) in [
        ("blood_lust", "close_combat"),
        ("commander_advantage", "close_combat"),
        ("shaken", "close_combat"),
        ("opponent_twice_size", "close_combat"),
        ("disorganized", "close_combat"),
        ("attacked_in_rear", "close_combat"),
        ("wrecked", "close_combat"),
        ("artillery_skirmishers_only", "close_combat"),
        ("defending_fortified", "close_combat"),
        ("attacking_in_line", "close_combat"),
        ("skirmisher_disadvantage", "close_combat"),
        ("attacking_in_march_column", "close_combat"),
        ("night", "close_combat"),
        ("attacking_line_in_village", "close_combat"),
        ("blood_lust", "charge"),
        ("shaken", "charge"),
        ("disorganized", "charge"),
        ("wrecked", "charge"),
        ("commander_advantage", "charge"),
        ("opponent_twice_size", "charge"),
        ("attacked_in_rear", "charge"),
        ("artillery_skirmishers_only", "charge"),
        ("light_vs_heavy", "charge"),
        ("blown_or_stationary", "charge"),
        ("in_square", "charge"),
        ("in_march_column", "charge"),
        ("in_line", "charge"),
    ] {
        let map = if need == "close_combat" {
            &raw.stand.close_combat
        } else {
            &raw.stand.charge
        };
        if !map.contains_key(name) {
            return Err(TableError::MissingModifier {
                table: format!("stand.{need}"),
                name: name.into(),
            });
        }
    }
    Ok(())
}

/// Every modifier within ±6 (a d6 table never needs more); keeps all sums in range.
fn check_modifier_ranges(raw: &RawFile) -> Result<(), TableError> {
    let mut all: Vec<(String, &Modifier)> = Vec::new();
    for (k, m) in raw.stand.close_combat.iter() {
        all.push((format!("stand.close_combat.{k}"), m));
    }
    for (k, m) in raw.stand.charge.iter() {
        all.push((format!("stand.charge.{k}"), m));
    }
    let sr = &raw.straggler_recovery;
    for (k, m) in [
        ("night", &sr.night),
        ("fortified_or_village", &sr.fortified_or_village),
        ("no_orders", &sr.no_orders),
        ("commander", &sr.commander),
    ] {
        all.push((format!("straggler_recovery.{k}"), m));
    }
    let sf = &raw.skirmisher_fire;
    for (k, m) in [
        ("target_in_cover", &sf.target_in_cover),
        ("target_limbered_or_square", &sf.target_limbered_or_square),
        ("rifles", &sf.rifles),
    ] {
        all.push((format!("skirmisher_fire.{k}"), m));
    }
    for (id, tb) in [
        ("cc_attacker_won_attacker", &raw.cc_attacker_won_attacker),
        ("cc_attacker_won_defender", &raw.cc_attacker_won_defender),
        ("cc_defender_won_attacker", &raw.cc_defender_won_attacker),
        ("cc_defender_won_defender", &raw.cc_defender_won_defender),
        ("firefight", &raw.firefight),
        ("charge_successful", &raw.charge_successful),
        ("breakoff", &raw.breakoff),
        ("repulse", &raw.repulse),
        ("cavalry_vs_cavalry", &raw.cavalry_vs_cavalry),
        ("fire_results", &raw.fire_results),
        ("gun_loss", &raw.gun_loss),
    ] {
        for (k, m) in &tb.modifiers {
            all.push((format!("{id}.modifiers.{k}"), m));
        }
    }
    if let Some((name, _)) = all.iter().find(|(_, m)| !(-6..=6).contains(&m.value)) {
        return Err(setting(name, "value", "modifiers must be within -6..=6"));
    }
    for (k, v) in [
        ("elite_full_halves", sf.elite_full_halves),
        ("elite_reduced_halves", sf.elite_reduced_halves),
        ("regular_full_halves", sf.regular_full_halves),
        ("regular_reduced_halves", sf.regular_reduced_halves),
    ] {
        if v > 12 {
            return Err(setting("skirmisher_fire", k, "must be 0..=12 halves"));
        }
    }
    if raw.wrecked.morale_change.abs() > 4 || raw.commander_loss.morale_change.abs() > 4 {
        return Err(setting(
            "wrecked/commander_loss",
            "morale_change",
            "must be within ±4",
        ));
    }
    Ok(())
}

fn setting(section: &str, field: &str, reason: &str) -> TableError {
    TableError::Setting {
        section: section.into(),
        field: field.into(),
        reason: reason.into(),
    }
}

fn check_need(section: &str, need: &[u8; 5]) -> Result<(), TableError> {
    if need.iter().any(|v| !(1..=7).contains(v)) {
        return Err(setting(section, "need", "values must be 1..=7"));
    }
    if need.windows(2).any(|w| w[0] > w[1]) {
        return Err(setting(
            section,
            "need",
            "not monotone: a worse morale rating may not need less",
        ));
    }
    Ok(())
}

/// Parse chart notation: `0`, `-`, ``, `1`, `0(1)`, `1(3)M-1`, `M-1`, `0M+1`, `OF`.
pub fn parse_res(text: &str) -> Result<Res, String> {
    let t = text.trim();
    if t.is_empty() || t == "-" || t == "–" {
        return Ok(Res {
            loss: Loss::NONE,
            opportunity_fire: false,
        });
    }
    if t.eq_ignore_ascii_case("OF") {
        return Ok(Res {
            loss: Loss::NONE,
            opportunity_fire: true,
        });
    }
    let bytes = t.as_bytes();
    let mut i = 0;
    let num = |i: &mut usize| -> Option<u8> {
        let start = *i;
        while *i < bytes.len() && bytes[*i].is_ascii_digit() {
            *i += 1;
        }
        if start == *i {
            None
        } else {
            t[start..*i].parse().ok()
        }
    };
    let permanent = num(&mut i).unwrap_or(0);
    let mut stragglers = 0;
    if i < bytes.len() && bytes[i] == b'(' {
        i += 1;
        stragglers = num(&mut i).ok_or("expected a number after '('")?;
        if i >= bytes.len() || bytes[i] != b')' {
            return Err("expected ')'".into());
        }
        i += 1;
    }
    let mut morale_change = 0i8;
    if i < bytes.len() && (bytes[i] == b'M' || bytes[i] == b'm') {
        i += 1;
        let sign: i8 = match bytes.get(i) {
            Some(b'+') => 1,
            Some(b'-') => -1,
            _ => return Err("expected + or - after M".into()),
        };
        i += 1;
        let n = num(&mut i).ok_or("expected a number after M±")?;
        morale_change = sign * i8::try_from(n).map_err(|_| "morale change too large")?;
    }
    if i != bytes.len() || (i == 0) {
        return Err(format!("unexpected text at byte {i}"));
    }
    Ok(Res {
        loss: Loss {
            permanent,
            stragglers,
            morale_change,
        },
        opportunity_fire: false,
    })
}

fn rows_of<T>(
    id: &str,
    raw: &RawTable,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<Vec<Row<T>>, TableError> {
    if raw.rows.is_empty() {
        return Err(TableError::Rows {
            table: id.into(),
            reason: "no rows".into(),
        });
    }
    for (name, _) in raw.rows.iter().flat_map(|r| r.cell_provenance.iter()) {
        if !raw.columns.contains(name) {
            return Err(TableError::Unknown {
                table: id.into(),
                what: "column in cell_provenance".into(),
                name: name.clone(),
            });
        }
    }
    let mut out = Vec::new();
    for (n, r) in raw.rows.iter().enumerate() {
        if n > 0 && r.key != raw.rows[n - 1].key + 1 {
            return Err(TableError::Rows {
                table: id.into(),
                reason: format!(
                    "row keys must be consecutive ascending; {} follows {}",
                    r.key,
                    raw.rows[n - 1].key
                ),
            });
        }
        if r.cells.len() != raw.columns.len() {
            return Err(TableError::RowLength {
                table: id.into(),
                row: r.key,
                expected: raw.columns.len(),
                found: r.cells.len(),
            });
        }
        let mut cells = Vec::new();
        for (c, text) in r.cells.iter().enumerate() {
            let col = &raw.columns[c];
            let value = parse(text).map_err(|reason| TableError::Cell {
                table: id.into(),
                row: r.key,
                column: col.clone(),
                text: text.clone(),
                reason,
            })?;
            let provenance = r.cell_provenance.get(col).copied().unwrap_or(r.provenance);
            cells.push(Cell {
                text: text.clone(),
                value,
                provenance,
            });
        }
        out.push(Row { key: r.key, cells });
    }
    Ok(out)
}

fn res_table(id: &str, raw: RawTable, needs: &[&str]) -> Result<Table<Res>, TableError> {
    let rows = rows_of(id, &raw, parse_res)?;
    for r in &rows {
        for (c, cell) in r.cells.iter().enumerate() {
            let l = cell.value.loss;
            let bad = if l.permanent > 10 {
                Some("more than 10 Permanent Casualties")
            } else if l.stragglers > 15 {
                Some("more than 15 Stragglers")
            } else if !(-4..=2).contains(&l.morale_change) {
                Some("Morale Change outside M-4..M+2")
            } else {
                None
            };
            if let Some(reason) = bad {
                return Err(TableError::Range {
                    table: id.into(),
                    row: r.key,
                    column: raw.columns[c].clone(),
                    reason: reason.into(),
                });
            }
        }
    }
    for m in &raw.monotone {
        let ncols = raw.columns.len();
        let (along_rows, f): (bool, fn(&Res) -> u8) = match m.as_str() {
            "permanent-rows" => (true, |r| r.loss.permanent),
            "total-rows" => (true, |r| r.loss.total()),
            "total-columns" => (false, |r| r.loss.total()),
            _ => {
                return Err(TableError::Unknown {
                    table: id.into(),
                    what: "monotone rule".into(),
                    name: m.clone(),
                });
            }
        };
        for (ri, r) in rows.iter().enumerate() {
            for c in 0..ncols {
                let prev = if along_rows {
                    ri.checked_sub(1).map(|p| &rows[p].cells[c])
                } else {
                    c.checked_sub(1).map(|p| &r.cells[p])
                };
                if let Some(p) = prev
                    && f(&r.cells[c].value) < f(&p.value)
                {
                    return Err(TableError::NotMonotone {
                        table: id.into(),
                        row: r.key,
                        column: raw.columns[c].clone(),
                        what: m.clone(),
                    });
                }
            }
        }
    }
    finish(id, raw, rows, needs)
}

fn finish<T>(
    id: &str,
    raw: RawTable,
    rows: Vec<Row<T>>,
    needs: &[&str],
) -> Result<Table<T>, TableError> {
    let mut blood_lust = Vec::new();
    for b in &raw.blood_lust {
        let i = raw
            .columns
            .iter()
            .position(|c| c == b)
            .ok_or_else(|| TableError::Unknown {
                table: id.into(),
                what: "blood_lust column".into(),
                name: b.clone(),
            })?;
        blood_lust.push(i);
    }
    for n in needs {
        if !raw.modifiers.contains_key(*n) {
            return Err(TableError::MissingModifier {
                table: id.into(),
                name: (*n).into(),
            });
        }
    }
    Ok(Table {
        id: id.into(),
        title: raw.title.unwrap_or_else(|| id.into()),
        rule: raw.rule,
        columns: raw.columns,
        rows,
        blood_lust,
        modifiers: raw.modifiers,
    })
}

fn value_table(
    id: &str,
    raw: RawTable,
    range: std::ops::RangeInclusive<u8>,
) -> Result<Table<Option<u8>>, TableError> {
    let rows = rows_of(id, &raw, |t| {
        let t = t.trim();
        if t == "-" || t == "–" || t.is_empty() {
            Ok(None)
        } else {
            t.parse::<u8>()
                .map(Some)
                .map_err(|_| "expected a number or '-'".to_string())
        }
    })?;
    for r in &rows {
        for (c, cell) in r.cells.iter().enumerate() {
            if let Some(v) = cell.value
                && !range.contains(&v)
            {
                return Err(TableError::Range {
                    table: id.into(),
                    row: r.key,
                    column: raw.columns[c].clone(),
                    reason: format!("value {v} outside {range:?}"),
                });
            }
        }
    }
    check_value_monotone(id, &raw, &rows, |v: &Option<u8>| v.unwrap_or(0))?;
    finish(id, raw, rows, &[])
}

fn gun_table(id: &str, raw: RawTable) -> Result<Table<GunLoss>, TableError> {
    let rows = rows_of(id, &raw, |t| {
        let t = t.trim();
        if t.eq_ignore_ascii_case("all") {
            Ok(GunLoss::All)
        } else {
            t.parse::<u8>()
                .map(GunLoss::Points)
                .map_err(|_| "expected a number or 'All'".to_string())
        }
    })?;
    check_value_monotone(id, &raw, &rows, |v: &GunLoss| match v {
        GunLoss::Points(p) => *p,
        GunLoss::All => u8::MAX,
    })?;
    finish(
        id,
        raw,
        rows,
        &["all_horse_artillery", "attacked_by_cavalry"],
    )
}

fn check_value_monotone<T>(
    id: &str,
    raw: &RawTable,
    rows: &[Row<T>],
    f: impl Fn(&T) -> u8,
) -> Result<(), TableError> {
    for m in &raw.monotone {
        let (along_rows, up) = match m.as_str() {
            "value-rows" => (true, false),
            "value-rows-up" => (true, true),
            "value-columns" => (false, false),
            _ => {
                return Err(TableError::Unknown {
                    table: id.into(),
                    what: "monotone rule".into(),
                    name: m.clone(),
                });
            }
        };
        for (ri, r) in rows.iter().enumerate() {
            for c in 0..raw.columns.len() {
                let prev = if along_rows {
                    ri.checked_sub(1).map(|p| &rows[p].cells[c])
                } else {
                    c.checked_sub(1).map(|p| &r.cells[p])
                };
                if let Some(p) = prev {
                    let (a, b) = (f(&p.value), f(&r.cells[c].value));
                    let broken = if up { b < a } else { b > a };
                    if broken {
                        return Err(TableError::NotMonotone {
                            table: id.into(),
                            row: r.key,
                            column: raw.columns[c].clone(),
                            what: m.clone(),
                        });
                    }
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_tables_load_and_validate() {
        let t = CombatTables::from_toml_str(BUILTIN_TOML).unwrap();
        assert_eq!(t.ruleset, "nbs-3.0");
        assert_eq!(t.cc_attacker_won_attacker.rows.len(), 6);
    }

    #[test]
    fn parses_chart_notation_14_3() {
        let r = |s| parse_res(s).unwrap().loss;
        assert_eq!(r("1(3)M-1"), Loss::new(1, 3, -1));
        assert_eq!(r("0M+1"), Loss::new(0, 0, 1));
        assert_eq!(r("M-2"), Loss::new(0, 0, -2));
        assert_eq!(r("2(11)"), Loss::new(2, 11, 0));
        assert_eq!(r("-"), Loss::NONE);
        assert!(parse_res("OF").unwrap().opportunity_fire);
        assert!(parse_res("1(x)").is_err());
        assert!(parse_res("M*1").is_err());
        assert!(parse_res("1)").is_err());
    }

    #[test]
    fn lookup_clamps_to_nearest_row_3_5() {
        let t = builtin();
        let (v, c) = t.cc_attacker_won_defender.lookup(9, 0).unwrap();
        assert_eq!(c.row, 6);
        assert_eq!(v.loss, Loss::new(3, 6, 0));
        let (v, c) = t.cc_attacker_won_defender.lookup(-1, 4).unwrap();
        assert_eq!(c.row, 1);
        assert_eq!(v.loss, Loss::new(0, 7, 0));
    }

    #[test]
    fn wreck_thresholds_are_the_documented_assumption() {
        let w = &builtin().wrecked;
        assert_eq!(w.brigade_wreck_at(10), 5);
        assert_eq!(w.brigade_wreck_at(5), 3);
        assert_eq!(w.division_wreck_at(3), 2); // 21.6.4 example
        assert_eq!(w.division_wreck_at(2), 1);
        assert_eq!(w.division_wreck_at(4), 3);
        assert_eq!(w.boxes_for(super::super::Size::A), 10);
    }
}
