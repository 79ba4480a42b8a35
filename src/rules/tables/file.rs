//! The table file format (`tables/nbs-3.0/command.toml` and user overrides): the raw TOML
//! shapes, and building typed [`CommandTables`] from them with problems that name the table,
//! row and column.
//!
//! Owns: TOML deserialisation, cell syntax (`"11-32"`, `"23"`, `"-"`), provenance tags, merging a
//! partial override over the default. Must not: check rule invariants (that is
//! [`CommandTables::validate`], called at the end of [`parse`]), do IO, or panic.

use std::collections::BTreeSet;

use serde::Deserialize;

use super::*;
use crate::provenance::Provenance;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // `meta` is informational; it is parsed so a typo in it is reported.
struct RawFile {
    meta: Option<RawMeta>,
    command_points: Option<RawCommandPoints>,
    order_cost: Option<RawOrderCost>,
    acceptance_modifiers: Option<RawAcceptanceModifiers>,
    acceptance: Option<RawAcceptance>,
    delay: Option<RawDelay>,
    initiative: Option<RawInitiative>,
    stoppage_step1: Option<RawRows<RawStep1Row>>,
    stoppage_step2: Option<RawRows<RawStep2Row>>,
    night: Option<RawNight>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct RawMeta {
    ruleset: Option<String>,
    source: Option<String>,
    notes: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    value: i64,
    provenance: String,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawProvs {
    One(String),
    Many(Vec<String>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCommandPoints {
    #[serde(rename = "4")]
    r4: RawEntry,
    #[serde(rename = "3")]
    r3: RawEntry,
    #[serde(rename = "2")]
    r2: RawEntry,
    #[serde(rename = "1")]
    r1: RawEntry,
    #[serde(rename = "0")]
    r0: RawEntry,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMethods {
    #[serde(rename = "in-person")]
    in_person: RawEntry,
    oral: RawEntry,
    written: RawEntry,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTypes {
    engage: RawEntry,
    complex: RawEntry,
    general: RawEntry,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCurrents {
    engage: RawEntry,
    general: RawEntry,
    none: RawEntry,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOrderCost {
    method: RawMethods,
    #[serde(rename = "type")]
    ty: RawTypes,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAcceptanceModifiers {
    method: RawMethods,
    #[serde(rename = "type")]
    ty: RawTypes,
    current: RawCurrents,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRangeRow {
    cells: Vec<String>,
    provenance: RawProvs,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAcceptance {
    #[serde(rename = "Dt")]
    dt: RawRangeRow,
    #[serde(rename = "D6")]
    d6: RawRangeRow,
    #[serde(rename = "D5")]
    d5: RawRangeRow,
    #[serde(rename = "D4")]
    d4: RawRangeRow,
    #[serde(rename = "A")]
    a: RawRangeRow,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDelay {
    #[serde(rename = "D4")]
    d4: RawEntry,
    #[serde(rename = "D5")]
    d5: RawEntry,
    #[serde(rename = "D6")]
    d6: RawEntry,
    discovery: RawEntry,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawInitiative {
    #[serde(rename = "loose-cannon")]
    loose_cannon: RawRangeRow,
    #[serde(rename = "no-effect")]
    no_effect: RawRangeRow,
    initiative: RawRangeRow,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRows<R> {
    rows: Vec<R>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawStepCell {
    Num(i64),
    Text(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStep1Row {
    wrecked: i64,
    cells: Vec<RawStepCell>,
    provenance: RawProvs,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStep2Row {
    result: i64,
    cells: Vec<i64>,
    provenance: RawProvs,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawNight {
    stoppage_modifier: RawEntry,
}

/// Builds typed tables from raw ones, collecting problems.
struct Builder<'a> {
    problems: &'a mut Vec<Problem>,
}

impl Builder<'_> {
    fn push(&mut self, table: TableId, row: Option<String>, col: Option<String>, msg: String) {
        self.problems.push(problem(table, row, col, msg));
    }

    fn prov(&mut self, table: TableId, row: &str, col: Option<&str>, s: &str) -> Provenance {
        match s {
            "seed" => Provenance::Seed,
            "derived" => Provenance::Derived,
            "assumed" => Provenance::Assumed,
            other => {
                self.push(
                    table,
                    Some(row.into()),
                    col.map(str::to_string),
                    format!(
                        "unknown provenance {other:?}: use \"seed\", \"derived\" or \"assumed\""
                    ),
                );
                Provenance::Assumed
            }
        }
    }

    fn provs(&mut self, table: TableId, row: &str, p: &RawProvs, n: usize) -> Vec<Provenance> {
        match p {
            RawProvs::One(s) => {
                let v = self.prov(table, row, None, s);
                vec![v; n]
            }
            RawProvs::Many(v) => {
                if v.len() != n {
                    self.push(
                        table,
                        Some(row.into()),
                        None,
                        format!(
                            "has {} provenance tags but {n} cells: give one tag for the row or one per cell",
                            v.len()
                        ),
                    );
                }
                (0..n)
                    .map(|i| match v.get(i) {
                        Some(s) => self.prov(table, row, Some(&i.to_string()), s),
                        None => Provenance::Assumed,
                    })
                    .collect()
            }
        }
    }

    fn entry_u8(&mut self, table: TableId, row: &str, col: &str, e: &RawEntry) -> Entry<u8> {
        let provenance = self.prov(table, row, Some(col), &e.provenance);
        let value = match u8::try_from(e.value) {
            Ok(v) if v <= 99 => v,
            _ => {
                self.push(
                    table,
                    Some(row.into()),
                    Some(col.into()),
                    format!("{} is out of range (0..99)", e.value),
                );
                0
            }
        };
        Entry { value, provenance }
    }

    fn entry_i32(&mut self, table: TableId, row: &str, col: &str, e: &RawEntry) -> Entry<i32> {
        let provenance = self.prov(table, row, Some(col), &e.provenance);
        let value = if (-99..=99).contains(&e.value) {
            e.value as i32
        } else {
            self.push(
                table,
                Some(row.into()),
                Some(col.into()),
                format!("{} is out of range (-99..99)", e.value),
            );
            0
        };
        Entry { value, provenance }
    }

    /// A row of single entries, in the order given; `read` is `entry_u8` or `entry_i32`.
    fn entries<T, const N: usize>(
        &mut self,
        table: TableId,
        row: &str,
        cells: [(&str, &RawEntry); N],
        read: fn(&mut Self, TableId, &str, &str, &RawEntry) -> Entry<T>,
    ) -> [Entry<T>; N] {
        cells.map(|(col, e)| read(self, table, row, col, e))
    }

    /// Rows of ranges, in the order given.
    fn range_rows<const R: usize, const C: usize>(
        &mut self,
        table: TableId,
        rows: [(&str, &RawRangeRow); R],
        col_label: &dyn Fn(usize) -> String,
    ) -> [[Ranged; C]; R] {
        rows.map(|(label, raw)| self.range_row(table, label, raw, col_label))
    }

    fn range_row<const C: usize>(
        &mut self,
        table: TableId,
        row: &str,
        raw: &RawRangeRow,
        col_label: &dyn Fn(usize) -> String,
    ) -> [Ranged; C] {
        let mut out = [EMPTY_RANGED; C];
        if raw.cells.len() != C {
            self.push(
                table,
                Some(row.into()),
                None,
                format!("has {} cells, the table has {C} columns", raw.cells.len()),
            );
        }
        let provs = self.provs(table, row, &raw.provenance, raw.cells.len());
        for (i, (text, p)) in raw.cells.iter().zip(provs).enumerate().take(C) {
            match parse_range(text) {
                Ok(range) => {
                    out[i] = Ranged {
                        range,
                        provenance: p,
                    }
                }
                Err(msg) => self.push(table, Some(row.into()), Some(col_label(i)), msg),
            }
        }
        out
    }
}

/// Parse "11-32", "23" or "-" into an inclusive range of roll indices.
pub(super) fn parse_range(text: &str) -> Result<Option<(u8, u8)>, String> {
    let t = text.trim();
    if t == "-" || t.is_empty() {
        return Ok(None);
    }
    let one = |s: &str| -> Result<u8, String> {
        s.trim()
            .parse::<u8>()
            .ok()
            .and_then(roll_index)
            .map(|i| i as u8)
            .ok_or_else(|| {
                format!(
                    "{text:?} is not a range of 11..66 readings (like \"11-32\", \"23\" or \"-\")"
                )
            })
    };
    let (lo, hi) = match t.split_once('-') {
        Some((a, b)) => (one(a)?, one(b)?),
        None => {
            let v = one(t)?;
            (v, v)
        }
    };
    if lo > hi {
        return Err(format!(
            "{text:?} runs backwards: write the lower reading first"
        ));
    }
    Ok(Some((lo, hi)))
}

impl RawMethods {
    fn cells(&self) -> [(&'static str, &RawEntry); 3] {
        [
            ("in-person", &self.in_person),
            ("oral", &self.oral),
            ("written", &self.written),
        ]
    }
}

impl RawTypes {
    fn cells(&self) -> [(&'static str, &RawEntry); 3] {
        [
            ("engage", &self.engage),
            ("complex", &self.complex),
            ("general", &self.general),
        ]
    }
}

/// The Command Points Table by the army commander's rating (6.4.1).
fn read_command_points(b: &mut Builder, t: &mut CommandTables, cp: &RawCommandPoints) {
    let cells = [
        ("rating 0", &cp.r0),
        ("rating 1", &cp.r1),
        ("rating 2", &cp.r2),
        ("rating 3", &cp.r3),
        ("rating 4", &cp.r4),
    ];
    t.command_points = b.entries(
        TableId::CommandPoints,
        "command points",
        cells,
        Builder::entry_u8,
    );
}

/// Order costs by method and type (6.4.1).
fn read_order_cost(b: &mut Builder, t: &mut CommandTables, oc: &RawOrderCost) {
    let tid = TableId::OrderCost;
    t.method_cost = b.entries(tid, "method", oc.method.cells(), Builder::entry_u8);
    t.type_cost = b.entries(tid, "type", oc.ty.cells(), Builder::entry_u8);
}

/// Acceptance modifiers by method, type and current order (6.5).
fn read_acceptance_modifiers(b: &mut Builder, t: &mut CommandTables, am: &RawAcceptanceModifiers) {
    let tid = TableId::AcceptanceModifiers;
    t.method_mod = b.entries(tid, "method", am.method.cells(), Builder::entry_i32);
    t.type_mod = b.entries(tid, "type", am.ty.cells(), Builder::entry_i32);
    let c = &am.current;
    let current = [
        ("engage", &c.engage),
        ("general", &c.general),
        ("none", &c.none),
    ];
    t.current_mod = b.entries(tid, "current", current, Builder::entry_i32);
}

/// The New Order Acceptance Table (6.5): a range of readings per result and column.
fn read_acceptance(b: &mut Builder, t: &mut CommandTables, a: &RawAcceptance) {
    let cl = |c: usize| acceptance_column_label(c as i32 + ACCEPTANCE_MIN_COLUMN);
    let rows = [
        ("Dt", &a.dt),
        ("D6", &a.d6),
        ("D5", &a.d5),
        ("D4", &a.d4),
        ("A", &a.a),
    ];
    t.acceptance = b.range_rows(TableId::Acceptance, rows, &cl);
}

/// Delay Reduction and Dt discovery (6.5.2, 6.5.3): the least roll of one die for each.
fn read_delay(b: &mut Builder, t: &mut CommandTables, d: &RawDelay) {
    let cells = [
        ("D4", &d.d4),
        ("D5", &d.d5),
        ("D6", &d.d6),
        ("discovery", &d.discovery),
    ];
    t.delay = b.entries(TableId::Delay, "least roll", cells, Builder::entry_u8);
}

/// The Initiative table (6.6.1.3): a range of readings per result and rating.
fn read_initiative(b: &mut Builder, t: &mut CommandTables, ini: &RawInitiative) {
    let cl = |c: usize| c.to_string();
    let rows = [
        ("Loose Cannon", &ini.loose_cannon),
        ("No Effect", &ini.no_effect),
        ("Initiative", &ini.initiative),
    ];
    t.initiative = b.range_rows(TableId::Initiative, rows, &cl);
}

/// The night modifier to the Attack Stoppage roll (chart p1).
fn read_night(b: &mut Builder, t: &mut CommandTables, n: &RawNight) {
    t.night = b.entry_i32(
        TableId::Night,
        "stoppage roll modifier",
        "night",
        &n.stoppage_modifier,
    );
}

/// One table of the file: read it when present (an override replaces the whole table), or note
/// it missing.
fn section<R>(
    b: &mut Builder,
    t: &mut CommandTables,
    missing: &mut Vec<TableId>,
    tid: TableId,
    raw: &Option<R>,
    read: fn(&mut Builder, &mut CommandTables, &R),
) {
    match raw {
        Some(r) => {
            t.overridden.insert(tid);
            read(b, t, r);
        }
        None => missing.push(tid),
    }
}

/// The first step of the Attack Stoppage table (6.7.2): one row per count of wrecked sub-units,
/// cells printed from 10 sub-units down to 1; `-` is a blank ("cannot occur").
fn read_step1(b: &mut Builder, t: &mut CommandTables, s1: &RawRows<RawStep1Row>) {
    let tid = TableId::StoppageStep1;
    t.step1 = [[None; STEP1_COLUMNS]; STEP1_ROWS];
    let mut seen = [false; STEP1_ROWS];
    for row in &s1.rows {
        let label = format!("{} wrecked", row.wrecked);
        let w = match usize::try_from(row.wrecked) {
            Ok(w) if w < STEP1_ROWS => w,
            _ => {
                b.push(
                    tid,
                    Some(label),
                    None,
                    format!("wrecked must be 0..{}", STEP1_ROWS - 1),
                );
                continue;
            }
        };
        if seen[w] {
            b.push(tid, Some(label), None, "this row is given twice".into());
            continue;
        }
        seen[w] = true;
        if row.cells.len() != STEP1_COLUMNS {
            b.push(
                tid,
                Some(label.clone()),
                None,
                format!(
                    "has {} cells, the table has {STEP1_COLUMNS} columns (sub-units 10 … 1)",
                    row.cells.len()
                ),
            );
        }
        let provs = b.provs(tid, &label, &row.provenance, row.cells.len());
        // Printed order: 10 sub-units first.
        for (i, (c, p)) in row.cells.iter().zip(provs).enumerate().take(STEP1_COLUMNS) {
            let ni = STEP1_COLUMNS - 1 - i;
            let col = format!("{} sub-units", ni + 1);
            t.step1[w][ni] = match c {
                RawStepCell::Num(v) => match u8::try_from(*v) {
                    Ok(v) => Some(Entry {
                        value: v,
                        provenance: p,
                    }),
                    Err(_) => {
                        b.push(
                            tid,
                            Some(label.clone()),
                            Some(col),
                            format!("{v} is not a result 1..4"),
                        );
                        None
                    }
                },
                RawStepCell::Text(s) if s.trim() == "-" => None,
                RawStepCell::Text(s) => {
                    b.push(
                        tid,
                        Some(label.clone()),
                        Some(col),
                        format!("{s:?} is neither a result 1..4 nor \"-\" (blank)"),
                    );
                    None
                }
            };
        }
    }
    for (w, s) in seen.iter().enumerate() {
        if !s {
            b.push(
                tid,
                Some(format!("{w} wrecked")),
                None,
                "this row is missing".into(),
            );
        }
    }
}

/// The second step of the Attack Stoppage table (6.7.2): the least roll to pass, by the first
/// step's result and the commander's rating group.
fn read_step2(b: &mut Builder, t: &mut CommandTables, s2: &RawRows<RawStep2Row>) {
    let tid = TableId::StoppageStep2;
    let mut seen = [false; 4];
    for row in &s2.rows {
        let label = row.result.to_string();
        let r = match usize::try_from(row.result) {
            Ok(r) if (1..=4).contains(&r) => r - 1,
            _ => {
                b.push(tid, Some(label), None, "result must be 1..4".into());
                continue;
            }
        };
        if seen[r] {
            b.push(tid, Some(label), None, "this row is given twice".into());
            continue;
        }
        seen[r] = true;
        if row.cells.len() != 3 {
            b.push(
                tid,
                Some(label.clone()),
                None,
                format!(
                    "has {} cells, the table has 3 columns (rating 0, 1-2, 3-4)",
                    row.cells.len()
                ),
            );
        }
        let provs = b.provs(tid, &label, &row.provenance, row.cells.len());
        for (g, (v, p)) in row.cells.iter().zip(provs).enumerate().take(3) {
            let col = ["rating 0", "rating 1,2", "rating 3,4"][g];
            let e = RawEntry {
                value: *v,
                provenance: "seed".into(),
            };
            let mut entry = b.entry_u8(tid, &label, col, &e);
            entry.provenance = p;
            t.step2[r][g] = entry;
        }
    }
    for (r, s) in seen.iter().enumerate() {
        if !s {
            b.push(
                tid,
                Some((r + 1).to_string()),
                None,
                "this row is missing".into(),
            );
        }
    }
}

pub(super) fn parse(
    origin: &str,
    text: &str,
    base: Option<&CommandTables>,
) -> Result<CommandTables, TableError> {
    let raw: RawFile = toml::from_str(text).map_err(|e| TableError::Parse {
        origin: origin.to_string(),
        message: e.to_string(),
    })?;
    let mut problems = Vec::new();
    let mut t = match base {
        Some(b) => {
            let mut t = b.clone();
            t.overridden.clear();
            t
        }
        None => CommandTables {
            origin: String::new(),
            overridden: BTreeSet::new(),
            command_points: [ZERO_U8; 5],
            method_cost: [ZERO_U8; 3],
            type_cost: [ZERO_U8; 3],
            method_mod: [ZERO_I32; 3],
            type_mod: [ZERO_I32; 3],
            current_mod: [ZERO_I32; 3],
            acceptance: [[EMPTY_RANGED; ACCEPTANCE_COLUMNS]; 5],
            acceptance_lookup: [[0; 36]; ACCEPTANCE_COLUMNS],
            delay: [ZERO_U8; 4],
            initiative: [[EMPTY_RANGED; INITIATIVE_COLUMNS]; 3],
            initiative_lookup: [[0; 36]; INITIATIVE_COLUMNS],
            step1: [[None; STEP1_COLUMNS]; STEP1_ROWS],
            step2: [[ZERO_U8; 3]; 4],
            night: ZERO_I32,
        },
    };
    t.origin = origin.to_string();
    let complete = base.is_none();
    let mut missing = Vec::new();
    let mut b = Builder {
        problems: &mut problems,
    };

    let m = &mut missing;
    section(
        &mut b,
        &mut t,
        m,
        TableId::CommandPoints,
        &raw.command_points,
        read_command_points,
    );
    section(
        &mut b,
        &mut t,
        m,
        TableId::OrderCost,
        &raw.order_cost,
        read_order_cost,
    );
    let am = &raw.acceptance_modifiers;
    section(
        &mut b,
        &mut t,
        m,
        TableId::AcceptanceModifiers,
        am,
        read_acceptance_modifiers,
    );
    section(
        &mut b,
        &mut t,
        m,
        TableId::Acceptance,
        &raw.acceptance,
        read_acceptance,
    );
    section(&mut b, &mut t, m, TableId::Delay, &raw.delay, read_delay);
    section(
        &mut b,
        &mut t,
        m,
        TableId::Initiative,
        &raw.initiative,
        read_initiative,
    );
    section(
        &mut b,
        &mut t,
        m,
        TableId::StoppageStep1,
        &raw.stoppage_step1,
        read_step1,
    );
    section(
        &mut b,
        &mut t,
        m,
        TableId::StoppageStep2,
        &raw.stoppage_step2,
        read_step2,
    );
    section(&mut b, &mut t, m, TableId::Night, &raw.night, read_night);
    if complete {
        for m in &missing {
            problems.push(problem(
                *m,
                None,
                None,
                format!(
                    "the table [{}] is missing from a complete table file",
                    m.toml_key()
                ),
            ));
        }
        t.overridden.clear();
    }
    if problems.is_empty()
        && let Err(p) = t.validate()
    {
        problems = p;
    }
    if !problems.is_empty() {
        return Err(TableError::Invalid {
            origin: origin.to_string(),
            problems,
        });
    }
    t.rebuild_lookups();
    Ok(t)
}
