//! The command tables of NBS v3.0 chart p1 as data, with a provenance on every cell.
//!
//! Owns: the table file format (`tables/nbs-3.0/command.toml`, embedded with `include_str!`),
//! parsing and validating a table file (the default or a user's override holding the printed
//! tables), the lookups the engine calls (command points 6.4.1, order cost, acceptance number
//! and New Order Acceptance Table 6.5, delay reduction 6.5.2, Initiative Table 6.6.1.3, Attack
//! Stoppage 6.7.2 steps 1 and 2, night modifier), a stable content hash for replay checks, and
//! the list of every `assumed` cell.
//!
//! The file format itself (raw TOML shapes, cell syntax, merging an override) lives in the
//! child module `file`.
//!
//! Must not: hold game state, roll dice, print, or do any IO other than [`CommandTables::load`]
//! reading an override file. No floating point, no hash-container iteration. No panics on any
//! input: lookups clamp out-of-range arguments to the edge rows and columns (rule 3.5).

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

mod file;
use file::parse;
use sha2::{Digest, Sha256};

use super::{AcceptanceResult, CurrentOrder, InitiativeResult, Method, OrderType};
use crate::provenance::Provenance;

/// The default table file, compiled into the binary so it works anywhere.
pub const DEFAULT_TABLES_TOML: &str = include_str!("../../tables/nbs-3.0/command.toml");

/// Least and greatest column of the New Order Acceptance Table ("−3 or less", "10 or more").
pub const ACCEPTANCE_MIN_COLUMN: i32 = -3;
/// See [`ACCEPTANCE_MIN_COLUMN`].
pub const ACCEPTANCE_MAX_COLUMN: i32 = 10;
const ACCEPTANCE_COLUMNS: usize = 14;
/// Columns of the Initiative Table (ratings 0..=5 after the General Orders +1).
pub const INITIATIVE_MAX_COLUMN: i32 = 5;
const INITIATIVE_COLUMNS: usize = 6;
/// Most sub-units printed on the Attack Stoppage step-1 table.
pub const STOPPAGE_MAX_SUB_UNITS: u32 = 10;
/// Most wrecked sub-units (10 sub-units + 1 for a lost Commander).
pub const STOPPAGE_MAX_WRECKED: u32 = 11;
const STEP1_ROWS: usize = 12;
const STEP1_COLUMNS: usize = 10;

/// Methods in chart order (the index used by [`CellAt::column`] for method cells).
pub const METHODS: [Method; 3] = [Method::InPerson, Method::Oral, Method::Written];
/// Order types in chart order.
pub const ORDER_TYPES: [OrderType; 3] = [OrderType::Engage, OrderType::Complex, OrderType::General];
/// Current-order statuses in chart order.
pub const CURRENT_ORDERS: [CurrentOrder; 3] = [
    CurrentOrder::Engage,
    CurrentOrder::General,
    CurrentOrder::None,
];
/// Initiative results in row order (worst rolls first).
pub const INITIATIVE_RESULTS: [InitiativeResult; 3] = [
    InitiativeResult::LooseCannon,
    InitiativeResult::NoEffect,
    InitiativeResult::Initiative,
];

/// One table of chart p1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TableId {
    /// Command Points Table (6.4.1).
    CommandPoints,
    /// Order cost = Method + Type (chart p1, 6.4).
    OrderCost,
    /// Acceptance Number modifiers: method, type, current order (6.5).
    AcceptanceModifiers,
    /// New Order Acceptance Table (6.5).
    Acceptance,
    /// Delay Reduction and Dt discovery, one die (6.5.2, 6.5.3).
    Delay,
    /// Initiative Table (6.6.1.3).
    Initiative,
    /// Attack Stoppage step 1: wrecked by sub-units (6.7.2).
    StoppageStep1,
    /// Attack Stoppage step 2: result by rating gives the 2d6 roll needed (6.7.2).
    StoppageStep2,
    /// Night modifier to the Attack Stoppage roll (chart p1).
    Night,
}

impl TableId {
    /// Every table, in chart order.
    pub const ALL: [TableId; 9] = [
        TableId::CommandPoints,
        TableId::OrderCost,
        TableId::AcceptanceModifiers,
        TableId::Acceptance,
        TableId::Delay,
        TableId::Initiative,
        TableId::StoppageStep1,
        TableId::StoppageStep2,
        TableId::Night,
    ];

    /// The user-facing name (kebab-case), as in `staffwork rules show NAME`.
    pub fn name(self) -> &'static str {
        match self {
            TableId::CommandPoints => "command-points",
            TableId::OrderCost => "order-cost",
            TableId::AcceptanceModifiers => "acceptance-modifiers",
            TableId::Acceptance => "acceptance",
            TableId::Delay => "delay",
            TableId::Initiative => "initiative",
            TableId::StoppageStep1 => "stoppage-step1",
            TableId::StoppageStep2 => "stoppage-step2",
            TableId::Night => "night",
        }
    }

    /// The key of the table in the TOML file.
    pub fn toml_key(self) -> &'static str {
        match self {
            TableId::CommandPoints => "command_points",
            TableId::OrderCost => "order_cost",
            TableId::AcceptanceModifiers => "acceptance_modifiers",
            TableId::Acceptance => "acceptance",
            TableId::Delay => "delay",
            TableId::Initiative => "initiative",
            TableId::StoppageStep1 => "stoppage_step1",
            TableId::StoppageStep2 => "stoppage_step2",
            TableId::Night => "night",
        }
    }

    /// The printed title.
    pub fn title(self) -> &'static str {
        match self {
            TableId::CommandPoints => "Command Points Table",
            TableId::OrderCost => "Order costs = Method + Type",
            TableId::AcceptanceModifiers => "Acceptance Number modifiers",
            TableId::Acceptance => "New Order Acceptance Table",
            TableId::Delay => "Delay Reduction and Dt discovery (one die)",
            TableId::Initiative => "Initiative Table",
            TableId::StoppageStep1 => "Attack Stoppage, step 1 (wrecked sub-units by sub-units)",
            TableId::StoppageStep2 => "Attack Stoppage, step 2 (2d6 roll needed)",
            TableId::Night => "Night",
        }
    }

    /// The rule the table belongs to.
    pub fn rule(self) -> &'static str {
        match self {
            TableId::CommandPoints => "6.4.1",
            TableId::OrderCost => "6.4",
            TableId::AcceptanceModifiers | TableId::Acceptance => "6.5",
            TableId::Delay => "6.5.2",
            TableId::Initiative => "6.6.1.3",
            TableId::StoppageStep1 | TableId::StoppageStep2 | TableId::Night => "6.7.2",
        }
    }
}

impl fmt::Display for TableId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a looked-up value sits. `row` and `column` are numbers whose meaning depends on the
/// table: acceptance (row = result 0 Dt … 4 A, column = acceptance column −3..10), initiative
/// (row = result 0..2, column = 0..5), stoppage step 1 (row = wrecked, column = sub-units),
/// stoppage step 2 (row = step-1 result 1..4, column = rating group 0 / 1,2 / 3,4 as 0..2),
/// command points (row 0, column = rating), order cost and modifiers (row = method / type /
/// current, column = index in chart order), delay (row 0, column D4, D5, D6, discovery), night
/// (0, 0). [`CellAt::row_label`] and [`CellAt::column_label`] give the printed labels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct CellAt {
    pub table: TableId,
    pub row: i32,
    pub column: i32,
}

impl CellAt {
    /// The row as printed.
    pub fn row_label(&self) -> String {
        match self.table {
            TableId::Acceptance => usize::try_from(self.row)
                .ok()
                .and_then(|i| AcceptanceResult::ALL.get(i))
                .map_or_else(|| self.row.to_string(), ToString::to_string),
            TableId::Initiative => usize::try_from(self.row)
                .ok()
                .and_then(|i| INITIATIVE_RESULTS.get(i))
                .map_or_else(
                    || self.row.to_string(),
                    |r| initiative_label(*r).to_string(),
                ),
            TableId::StoppageStep1 => format!("{} wrecked", self.row),
            TableId::StoppageStep2 => format!("result {}", self.row),
            TableId::OrderCost | TableId::AcceptanceModifiers => match self.row {
                0 => "method".into(),
                1 => "type".into(),
                _ => "current".into(),
            },
            TableId::CommandPoints => "command points".into(),
            TableId::Delay => "least roll".into(),
            TableId::Night => "stoppage modifier".into(),
        }
    }

    /// The column as printed.
    pub fn column_label(&self) -> String {
        let c = self.column;
        let idx = usize::try_from(c).unwrap_or(usize::MAX);
        match self.table {
            TableId::Acceptance => acceptance_column_label(c),
            TableId::Initiative => c.to_string(),
            TableId::StoppageStep1 => format!("{c} sub-units"),
            TableId::StoppageStep2 => ["rating 0", "rating 1,2", "rating 3,4"]
                .get(idx)
                .map_or_else(|| c.to_string(), |s| (*s).to_string()),
            TableId::CommandPoints => format!("rating {c}"),
            TableId::OrderCost | TableId::AcceptanceModifiers => match self.row {
                0 => METHODS.get(idx).map(|m| method_label(*m)),
                1 => ORDER_TYPES.get(idx).map(|t| type_label(*t)),
                _ => CURRENT_ORDERS.get(idx).map(|o| current_label(*o)),
            }
            .map_or_else(|| c.to_string(), str::to_string),
            TableId::Delay => ["D4", "D5", "D6", "discovery"]
                .get(idx)
                .map_or_else(|| c.to_string(), |s| (*s).to_string()),
            TableId::Night => "night".into(),
        }
    }
}

impl fmt::Display for CellAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}, row {}, column {}",
            self.table,
            self.row_label(),
            self.column_label()
        )
    }
}

/// A looked-up value with its provenance and its place in the table (so the engine can record
/// which assumed cells a game used).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Cell<T> {
    pub value: T,
    pub provenance: Provenance,
    pub at: CellAt,
}

/// A cell listed for people: table, printed row and column labels, value as printed.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct CellRef {
    pub table: TableId,
    pub row: String,
    pub column: String,
    pub value: String,
}

/// One problem found in a table file, naming the table, row and column.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    pub table: TableId,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub row: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<String>,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "table {}", self.table)?;
        if let Some(r) = &self.row {
            write!(f, ", row {r}")?;
        }
        if let Some(c) = &self.column {
            write!(f, ", column {c}")?;
        }
        write!(f, ": {}", self.message)
    }
}

fn problem(table: TableId, row: Option<String>, column: Option<String>, msg: String) -> Problem {
    Problem {
        table,
        row,
        column,
        message: msg,
    }
}

fn fmt_problems(problems: &[Problem]) -> String {
    problems
        .iter()
        .map(|p| format!("  - {p}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Why a table file was refused.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// [`CommandTables::load`] could not read the file (missing, unreadable, not UTF-8).
    #[error("cannot read tables file {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The text is not TOML, or has the wrong shape: an unknown table or key, a missing row, a
    /// value of the wrong type. The message carries the line and column.
    #[error("{origin}: {message}")]
    Parse { origin: String, message: String },
    /// The tables parse but break a rule: a malformed cell, a wrong number of cells, a column that
    /// does not partition 11..66, a non-monotone table, a worked example that no longer holds.
    /// Every problem is listed.
    #[error("{origin}: the tables are invalid ({} problem(s)):\n{}", problems.len(), fmt_problems(.problems))]
    Invalid {
        origin: String,
        problems: Vec<Problem>,
    },
}

/// A dice reading that is not 11..66 with both digits 1..6.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0} is not a reading of two dice 11..66 (each digit 1..6)")]
pub struct BadRoll(pub u8);

/// Index 0..36 of an 11..66 reading (tens die first), or `None` if the digits are not 1..6.
pub fn roll_index(roll: u8) -> Option<usize> {
    let (t, u) = (roll / 10, roll % 10);
    if (1..=6).contains(&t) && (1..=6).contains(&u) {
        Some(usize::from((t - 1) * 6 + (u - 1)))
    } else {
        None
    }
}

/// The 11..66 reading of an index 0..36.
pub fn roll_of_index(index: usize) -> u8 {
    let i = u8::try_from(index.min(35)).unwrap_or(35);
    (i / 6 + 1) * 10 + (i % 6 + 1)
}

/// The printed label of an acceptance column ("−3 or less", "4", "10 or more").
pub fn acceptance_column_label(column: i32) -> String {
    match column {
        c if c <= ACCEPTANCE_MIN_COLUMN => format!("{ACCEPTANCE_MIN_COLUMN} or less"),
        c if c >= ACCEPTANCE_MAX_COLUMN => format!("{ACCEPTANCE_MAX_COLUMN} or more"),
        c => c.to_string(),
    }
}

/// Printed name of an initiative result.
pub fn initiative_label(r: InitiativeResult) -> &'static str {
    match r {
        InitiativeResult::LooseCannon => "Loose Cannon",
        InitiativeResult::NoEffect => "No Effect",
        InitiativeResult::Initiative => "Initiative",
    }
}

/// Command-line spelling of a method.
pub fn method_label(m: Method) -> &'static str {
    match m {
        Method::InPerson => "in-person",
        Method::Oral => "oral",
        Method::Written => "written",
    }
}

/// Command-line spelling of an order type.
pub fn type_label(t: OrderType) -> &'static str {
    match t {
        OrderType::Engage => "engage",
        OrderType::Complex => "complex",
        OrderType::General => "general",
    }
}

/// Command-line spelling of a current-order status.
pub fn current_label(o: CurrentOrder) -> &'static str {
    match o {
        CurrentOrder::Engage => "engage",
        CurrentOrder::General => "general",
        CurrentOrder::None => "none",
    }
}

fn method_index(m: Method) -> usize {
    match m {
        Method::InPerson => 0,
        Method::Oral => 1,
        Method::Written => 2,
    }
}

fn type_index(t: OrderType) -> usize {
    match t {
        OrderType::Engage => 0,
        OrderType::Complex => 1,
        OrderType::General => 2,
    }
}

fn current_index(o: CurrentOrder) -> usize {
    match o {
        CurrentOrder::Engage => 0,
        CurrentOrder::General => 1,
        CurrentOrder::None => 2,
    }
}

/// A plain value with its provenance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry<T> {
    value: T,
    provenance: Provenance,
}

/// A cell of an 11..66 table: an inclusive range of roll indices (0..36), or empty ("-").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ranged {
    range: Option<(u8, u8)>,
    provenance: Provenance,
}

impl Ranged {
    fn text(&self) -> String {
        match self.range {
            None => "-".into(),
            Some((lo, hi)) if lo == hi => roll_of_index(usize::from(lo)).to_string(),
            Some((lo, hi)) => format!(
                "{}-{}",
                roll_of_index(usize::from(lo)),
                roll_of_index(usize::from(hi))
            ),
        }
    }

    fn len(&self) -> u32 {
        self.range.map_or(0, |(lo, hi)| u32::from(hi - lo) + 1)
    }
}

const EMPTY_RANGED: Ranged = Ranged {
    range: None,
    provenance: Provenance::Seed,
};
const ZERO_U8: Entry<u8> = Entry {
    value: 0,
    provenance: Provenance::Seed,
};
const ZERO_I32: Entry<i32> = Entry {
    value: 0,
    provenance: Provenance::Seed,
};

/// The command tables of chart p1. Build with [`CommandTables::nbs`] (the embedded default),
/// [`CommandTables::from_toml_str`] or [`CommandTables::load`]; every built value is validated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandTables {
    origin: String,
    overridden: BTreeSet<TableId>,
    /// Index = rating 0..=4.
    command_points: [Entry<u8>; 5],
    method_cost: [Entry<u8>; 3],
    type_cost: [Entry<u8>; 3],
    method_mod: [Entry<i32>; 3],
    type_mod: [Entry<i32>; 3],
    current_mod: [Entry<i32>; 3],
    /// `[result row][column]`, rows Dt, D6, D5, D4, A; columns −3..=10.
    acceptance: [[Ranged; ACCEPTANCE_COLUMNS]; 5],
    acceptance_lookup: [[u8; 36]; ACCEPTANCE_COLUMNS],
    /// D4, D5, D6, discovery.
    delay: [Entry<u8>; 4],
    /// `[result row][column 0..=5]`.
    initiative: [[Ranged; INITIATIVE_COLUMNS]; 3],
    initiative_lookup: [[u8; 36]; INITIATIVE_COLUMNS],
    /// `[wrecked 0..=11][sub-units − 1]`; `None` = blank (cannot occur).
    step1: [[Option<Entry<u8>>; STEP1_COLUMNS]; STEP1_ROWS],
    /// `[result − 1][rating group]`.
    step2: [[Entry<u8>; 3]; 4],
    night: Entry<i32>,
}

static NBS: OnceLock<CommandTables> = OnceLock::new();

impl CommandTables {
    /// The embedded NBS v3.0 tables, parsed and validated once.
    pub fn nbs() -> &'static CommandTables {
        NBS.get_or_init(|| {
            match parse(
                "embedded tables/nbs-3.0/command.toml",
                DEFAULT_TABLES_TOML,
                None,
            ) {
                Ok(t) => t,
                // The embedded file is pinned by unit tests; this cannot happen in a tested build.
                Err(e) => panic!("embedded command tables are invalid: {e}"),
            }
        })
    }

    /// Parse a table file. Tables present in `text` replace the embedded default's; tables not
    /// present keep the default values. `origin` names the text in error messages.
    pub fn from_toml_str(origin: &str, text: &str) -> Result<CommandTables, TableError> {
        parse(origin, text, Some(Self::nbs()))
    }

    /// Read and parse a table file (see [`CommandTables::from_toml_str`]).
    pub fn load(path: &Path) -> Result<CommandTables, TableError> {
        let text = crate::text::read_file(path).map_err(|source| TableError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_toml_str(&path.display().to_string(), &text)
    }

    /// Where the tables came from (a file name or "embedded …").
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// Tables that an override file replaced (empty for the default).
    pub fn overridden(&self) -> Vec<TableId> {
        self.overridden.iter().copied().collect()
    }

    /// Command Points per turn for the Army Commander's rating (6.4.1). Ratings above 4 use the
    /// rating-4 column (3.5).
    pub fn command_points(&self, army_rating: u8) -> u8 {
        self.command_points_cell(army_rating).value
    }

    /// [`CommandTables::command_points`] with provenance.
    pub fn command_points_cell(&self, army_rating: u8) -> Cell<u8> {
        let r = usize::from(army_rating.min(4));
        let e = self.command_points[r];
        cell(e, TableId::CommandPoints, 0, r as i32)
    }

    /// Order cost = Method + Type (chart p1; Complex costs as Engage, 6.3.3 / 6.4.2).
    pub fn order_cost(&self, method: Method, ty: OrderType) -> u8 {
        let m = self.method_cost[method_index(method)].value;
        let t = self.type_cost[type_index(ty)].value;
        m.saturating_add(t)
    }

    /// The two cells an order cost is made of: method, then type.
    pub fn order_cost_cells(&self, method: Method, ty: OrderType) -> [Cell<u8>; 2] {
        let mi = method_index(method);
        let ti = type_index(ty);
        [
            cell(self.method_cost[mi], TableId::OrderCost, 0, mi as i32),
            cell(self.type_cost[ti], TableId::OrderCost, 1, ti as i32),
        ]
    }

    /// Acceptance Number = Sender's rating + Receiver's rating + Method + Type + Current Order
    /// (6.5). Not clamped: [`CommandTables::acceptance`] clamps to the edge columns.
    pub fn acceptance_number(
        &self,
        sender: i32,
        receiver: i32,
        method: Method,
        ty: OrderType,
        current: CurrentOrder,
    ) -> i32 {
        sender
            .saturating_add(receiver)
            .saturating_add(self.method_mod[method_index(method)].value)
            .saturating_add(self.type_mod[type_index(ty)].value)
            .saturating_add(self.current_mod[current_index(current)].value)
    }

    /// The three modifier cells of an acceptance number: method, type, current order.
    pub fn acceptance_modifier_cells(
        &self,
        method: Method,
        ty: OrderType,
        current: CurrentOrder,
    ) -> [Cell<i32>; 3] {
        let (mi, ti, ci) = (method_index(method), type_index(ty), current_index(current));
        [
            cell(
                self.method_mod[mi],
                TableId::AcceptanceModifiers,
                0,
                mi as i32,
            ),
            cell(
                self.type_mod[ti],
                TableId::AcceptanceModifiers,
                1,
                ti as i32,
            ),
            cell(
                self.current_mod[ci],
                TableId::AcceptanceModifiers,
                2,
                ci as i32,
            ),
        ]
    }

    /// The column an acceptance number uses: clamped to −3..=10 (3.5).
    pub fn acceptance_column(number: i32) -> i32 {
        number.clamp(ACCEPTANCE_MIN_COLUMN, ACCEPTANCE_MAX_COLUMN)
    }

    /// New Order Acceptance Table (6.5): the result of an 11..66 roll on the column of
    /// `number` (clamped to the edge columns, 3.5). A reading outside 11..66 is clamped digit by
    /// digit into 1..6 (never panics); use [`CommandTables::try_acceptance`] to refuse it.
    pub fn acceptance(&self, number: i32, roll_11_66: u8) -> Cell<AcceptanceResult> {
        let col = (Self::acceptance_column(number) - ACCEPTANCE_MIN_COLUMN) as usize;
        let idx = clamped_roll_index(roll_11_66);
        let row = usize::from(self.acceptance_lookup[col][idx]);
        Cell {
            value: AcceptanceResult::ALL[row.min(4)],
            provenance: self.acceptance[row.min(4)][col].provenance,
            at: CellAt {
                table: TableId::Acceptance,
                row: row as i32,
                column: col as i32 + ACCEPTANCE_MIN_COLUMN,
            },
        }
    }

    /// [`CommandTables::acceptance`], refusing a reading that is not 11..66.
    pub fn try_acceptance(
        &self,
        number: i32,
        roll_11_66: u8,
    ) -> Result<Cell<AcceptanceResult>, BadRoll> {
        roll_index(roll_11_66).ok_or(BadRoll(roll_11_66))?;
        Ok(self.acceptance(number, roll_11_66))
    }

    /// How many of the 36 readings give `result` in the column of `number` (6.5), with the
    /// cell's provenance.
    pub fn acceptance_count(&self, number: i32, result: AcceptanceResult) -> Cell<u32> {
        let col = (Self::acceptance_column(number) - ACCEPTANCE_MIN_COLUMN) as usize;
        let row = result as usize;
        let r = self.acceptance[row][col];
        Cell {
            value: r.len(),
            provenance: r.provenance,
            at: CellAt {
                table: TableId::Acceptance,
                row: row as i32,
                column: col as i32 + ACCEPTANCE_MIN_COLUMN,
            },
        }
    }

    /// The least roll of one die that ends a delay (6.5.2); `None` for A and Dt.
    pub fn delay_needs(&self, result: AcceptanceResult) -> Option<Cell<u8>> {
        let i = match result {
            AcceptanceResult::D4 => 0,
            AcceptanceResult::D5 => 1,
            AcceptanceResult::D6 => 2,
            _ => return None,
        };
        Some(cell(self.delay[i], TableId::Delay, 0, i as i32))
    }

    /// The least roll of one die that discovers a distorted order (6.5.3).
    pub fn discovery_needs(&self) -> Cell<u8> {
        cell(self.delay[3], TableId::Delay, 0, 3)
    }

    /// The Initiative Table column for a commander (6.6.1.3, chart p1): his rating (2 for an
    /// independent brigade), +1 if the command is already under General Orders. Not clamped:
    /// [`CommandTables::initiative`] clamps to 0..=5.
    pub fn initiative_column(rating: i32, general_orders: bool) -> i32 {
        rating.saturating_add(i32::from(general_orders))
    }

    /// Initiative Table (6.6.1.3): the result of an 11..66 roll on `column` (the commander's
    /// rating, +1 under General Orders), clamped to 0..=5 (3.5). Readings are clamped like
    /// [`CommandTables::acceptance`]; see [`CommandTables::try_initiative`].
    pub fn initiative(&self, column: i32, roll_11_66: u8) -> Cell<InitiativeResult> {
        let col = column.clamp(0, INITIATIVE_MAX_COLUMN) as usize;
        let idx = clamped_roll_index(roll_11_66);
        let row = usize::from(self.initiative_lookup[col][idx]).min(2);
        Cell {
            value: INITIATIVE_RESULTS[row],
            provenance: self.initiative[row][col].provenance,
            at: CellAt {
                table: TableId::Initiative,
                row: row as i32,
                column: col as i32,
            },
        }
    }

    /// [`CommandTables::initiative`], refusing a reading that is not 11..66.
    pub fn try_initiative(
        &self,
        column: i32,
        roll_11_66: u8,
    ) -> Result<Cell<InitiativeResult>, BadRoll> {
        roll_index(roll_11_66).ok_or(BadRoll(roll_11_66))?;
        Ok(self.initiative(column, roll_11_66))
    }

    /// How many of the 36 readings give `result` on initiative `column` (clamped to 0..=5).
    pub fn initiative_count(&self, column: i32, result: InitiativeResult) -> Cell<u32> {
        let col = column.clamp(0, INITIATIVE_MAX_COLUMN) as usize;
        let row = INITIATIVE_RESULTS
            .iter()
            .position(|r| *r == result)
            .unwrap_or(0);
        let r = self.initiative[row][col];
        Cell {
            value: r.len(),
            provenance: r.provenance,
            at: CellAt {
                table: TableId::Initiative,
                row: row as i32,
                column: col as i32,
            },
        }
    }

    /// Attack Stoppage step 1 (6.7.2): the result 1..=4 for `wrecked` sub-units (+1 if the
    /// Commander is lost, counted by the caller) of `sub_units`. Sub-units are clamped to 1..=10
    /// (3.5; a command with none on the map uses column 1); wrecked is clamped to
    /// sub-units + 1, the worst combination that can occur.
    pub fn stoppage_result(&self, sub_units: u32, wrecked: u32) -> Cell<u8> {
        let n = sub_units.clamp(1, STOPPAGE_MAX_SUB_UNITS);
        let w = wrecked.min(n + 1);
        let e = self.step1[w as usize][(n - 1) as usize].unwrap_or(Entry {
            value: 4,
            provenance: Provenance::Assumed,
        });
        cell(e, TableId::StoppageStep1, w as i32, n as i32)
    }

    /// Attack Stoppage step 2 (6.7.2): the least 2d6 roll that passes, for a step-1 `result`
    /// (clamped to 1..=4) and the force Commander's `rating` (0; 1–2; 3–4 and above).
    pub fn stoppage_needed(&self, result: u8, rating: u8) -> Cell<u8> {
        let r = result.clamp(1, 4);
        let g = match rating {
            0 => 0,
            1 | 2 => 1,
            _ => 2,
        };
        cell(
            self.step2[usize::from(r - 1)][g],
            TableId::StoppageStep2,
            i32::from(r),
            g as i32,
        )
    }

    /// The night modifier to the Attack Stoppage roll (chart p1: −3).
    pub fn night_stoppage_modifier(&self) -> i32 {
        self.night.value
    }

    /// [`CommandTables::night_stoppage_modifier`] with provenance.
    pub fn night_stoppage_cell(&self) -> Cell<i32> {
        cell(self.night, TableId::Night, 0, 0)
    }

    /// A stable hex SHA-256 of the canonical table content (every cell's value and provenance,
    /// in chart order; independent of comments, layout and origin), for replay checks.
    pub fn hash(&self) -> String {
        let mut h = Sha256::new();
        h.update(b"staffwork-command-tables-v1\n");
        for g in self.grids() {
            for row in &g.rows {
                for c in &row.cells {
                    h.update(
                        format!(
                            "{}\t{}\t{}\t{}\t{}\n",
                            g.table.name(),
                            row.label,
                            c.column,
                            c.text,
                            c.provenance
                        )
                        .as_bytes(),
                    );
                }
            }
        }
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Every `assumed` cell (blank step-1 cells, which cannot occur, are not listed), in chart
    /// order.
    pub fn assumed_cells(&self) -> Vec<CellRef> {
        self.grids()
            .into_iter()
            .flat_map(|g| {
                let table = g.table;
                g.rows.into_iter().flat_map(move |row| {
                    let label = row.label;
                    row.cells
                        .into_iter()
                        .filter(|c| c.provenance == Provenance::Assumed && !c.blank)
                        .map(move |c| CellRef {
                            table,
                            row: label.clone(),
                            column: c.column,
                            value: c.text,
                        })
                })
            })
            .collect()
    }

    /// Every table as a printable grid.
    pub fn grids(&self) -> Vec<Grid> {
        TableId::ALL.iter().map(|t| self.grid(*t)).collect()
    }

    /// One table as a printable grid (rows and columns as printed on the chart).
    pub fn grid(&self, table: TableId) -> Grid {
        let gc = |column: String, text: String, provenance: Provenance| GridCell {
            column,
            text,
            provenance,
            blank: false,
        };
        let rows: Vec<GridRow> = match table {
            TableId::CommandPoints => vec![GridRow {
                label: "command points".into(),
                cells: (0..5)
                    .rev()
                    .map(|r| {
                        let e = self.command_points[r];
                        gc(r.to_string(), e.value.to_string(), e.provenance)
                    })
                    .collect(),
            }],
            TableId::OrderCost | TableId::AcceptanceModifiers => {
                let (m, t, c) = if table == TableId::OrderCost {
                    (
                        self.method_cost
                            .map(|e| (e.value.to_string(), e.provenance)),
                        self.type_cost.map(|e| (e.value.to_string(), e.provenance)),
                        None,
                    )
                } else {
                    (
                        self.method_mod.map(|e| (signed(e.value), e.provenance)),
                        self.type_mod.map(|e| (signed(e.value), e.provenance)),
                        Some(self.current_mod.map(|e| (signed(e.value), e.provenance))),
                    )
                };
                let mut rows = vec![
                    GridRow {
                        label: "method".into(),
                        cells: METHODS
                            .iter()
                            .zip(m)
                            .map(|(k, (v, p))| gc(method_label(*k).into(), v, p))
                            .collect(),
                    },
                    GridRow {
                        label: "type".into(),
                        cells: ORDER_TYPES
                            .iter()
                            .zip(t)
                            .map(|(k, (v, p))| gc(type_label(*k).into(), v, p))
                            .collect(),
                    },
                ];
                if let Some(c) = c {
                    rows.push(GridRow {
                        label: "current".into(),
                        cells: CURRENT_ORDERS
                            .iter()
                            .zip(c)
                            .map(|(k, (v, p))| gc(current_label(*k).into(), v, p))
                            .collect(),
                    });
                }
                rows
            }
            TableId::Acceptance => AcceptanceResult::ALL
                .iter()
                .enumerate()
                .map(|(ri, r)| GridRow {
                    label: r.to_string(),
                    cells: (0..ACCEPTANCE_COLUMNS)
                        .map(|ci| {
                            let x = self.acceptance[ri][ci];
                            gc(
                                acceptance_column_label(ci as i32 + ACCEPTANCE_MIN_COLUMN),
                                x.text(),
                                x.provenance,
                            )
                        })
                        .collect(),
                })
                .collect(),
            TableId::Delay => vec![GridRow {
                label: "least roll (1d6)".into(),
                cells: ["D4", "D5", "D6", "discovery"]
                    .iter()
                    .zip(self.delay)
                    .map(|(k, e)| gc((*k).into(), e.value.to_string(), e.provenance))
                    .collect(),
            }],
            TableId::Initiative => INITIATIVE_RESULTS
                .iter()
                .enumerate()
                .map(|(ri, r)| GridRow {
                    label: initiative_label(*r).into(),
                    cells: (0..INITIATIVE_COLUMNS)
                        .map(|ci| {
                            let x = self.initiative[ri][ci];
                            gc(ci.to_string(), x.text(), x.provenance)
                        })
                        .collect(),
                })
                .collect(),
            TableId::StoppageStep1 => (0..STEP1_ROWS)
                .map(|w| GridRow {
                    label: w.to_string(),
                    cells: (0..STEP1_COLUMNS)
                        .rev()
                        .map(|ni| match self.step1[w][ni] {
                            Some(e) => gc((ni + 1).to_string(), e.value.to_string(), e.provenance),
                            None => GridCell {
                                column: (ni + 1).to_string(),
                                text: "-".into(),
                                provenance: Provenance::Seed,
                                blank: true,
                            },
                        })
                        .collect(),
                })
                .collect(),
            TableId::StoppageStep2 => (0..4)
                .map(|r| GridRow {
                    label: (r + 1).to_string(),
                    cells: ["rating 0", "rating 1,2", "rating 3,4"]
                        .iter()
                        .zip(self.step2[r])
                        .map(|(k, e)| gc((*k).into(), e.value.to_string(), e.provenance))
                        .collect(),
                })
                .collect(),
            TableId::Night => vec![GridRow {
                label: "stoppage roll modifier".into(),
                cells: vec![gc(
                    "night".into(),
                    signed(self.night.value),
                    self.night.provenance,
                )],
            }],
        };
        Grid {
            table,
            name: table.name().into(),
            title: table.title().into(),
            rule: table.rule().into(),
            overridden: self.overridden.contains(&table),
            rows,
        }
    }

    /// Check every rule invariant (docs/rules.md, "Validation"): acceptance and initiative
    /// columns partition 11..66 in row order; a higher acceptance number or initiative column is
    /// never worse; stoppage results run 1..=4, blank exactly where a combination cannot occur,
    /// and are monotone; step 2 needs 2..=12, monotone; the worked examples hold (Talavera 2.4,
    /// rule 6.7's example); delay needs are 1..=6 in order D4 ≤ D5 ≤ D6; command points do not
    /// fall with a better rating.
    pub fn validate(&self) -> Result<(), Vec<Problem>> {
        let mut p = Vec::new();
        validate_acceptance(&self.acceptance, &mut p);
        validate_initiative(&self.initiative, &mut p);
        validate_step1(&self.step1, &mut p);
        validate_step2(&self.step2, &mut p);
        // 6.7 example: 3 sub-units, 1 wrecked → 2; rating 4 → 5.
        if let Some(e) = self.step1[1][2] {
            if e.value != 2 {
                p.push(problem(
                    TableId::StoppageStep1,
                    Some("1 wrecked".into()),
                    Some("3 sub-units".into()),
                    format!(
                        "rule 6.7's example needs result 2 for 1 wrecked of 3 sub-units, the table gives {}",
                        e.value
                    ),
                ));
            } else if self.step2[1][2].value != 5 {
                p.push(problem(
                    TableId::StoppageStep2,
                    Some("2".into()),
                    Some("rating 3,4".into()),
                    format!(
                        "rule 6.7's example needs 5 on 2d6 for result 2 and rating 4, the table gives {}",
                        self.step2[1][2].value
                    ),
                ));
            }
        }
        for (i, name) in ["D4", "D5", "D6", "discovery"].iter().enumerate() {
            let v = self.delay[i].value;
            if !(1..=6).contains(&v) {
                p.push(problem(
                    TableId::Delay,
                    None,
                    Some((*name).into()),
                    format!("{v} is not a roll of one die (1..6)"),
                ));
            }
        }
        if !(self.delay[0].value <= self.delay[1].value
            && self.delay[1].value <= self.delay[2].value)
        {
            p.push(problem(
                TableId::Delay,
                None,
                None,
                format!(
                    "delay needs must run D4 ≤ D5 ≤ D6 (6.5.2), found {}, {}, {}",
                    self.delay[0].value, self.delay[1].value, self.delay[2].value
                ),
            ));
        }
        for r in 1..5 {
            if self.command_points[r].value < self.command_points[r - 1].value {
                p.push(problem(
                    TableId::CommandPoints,
                    None,
                    Some(format!("rating {r}")),
                    format!(
                        "a better rating must not give fewer command points (6.4.1): {} < {} at rating {}",
                        self.command_points[r].value,
                        self.command_points[r - 1].value,
                        r - 1
                    ),
                ));
            }
        }
        if p.is_empty() { Ok(()) } else { Err(p) }
    }

    fn rebuild_lookups(&mut self) {
        for ci in 0..ACCEPTANCE_COLUMNS {
            for (ri, row) in self.acceptance.iter().enumerate() {
                if let Some((lo, hi)) = row[ci].range {
                    for i in lo..=hi {
                        self.acceptance_lookup[ci][usize::from(i)] = ri as u8;
                    }
                }
            }
        }
        for ci in 0..INITIATIVE_COLUMNS {
            for (ri, row) in self.initiative.iter().enumerate() {
                if let Some((lo, hi)) = row[ci].range {
                    for i in lo..=hi {
                        self.initiative_lookup[ci][usize::from(i)] = ri as u8;
                    }
                }
            }
        }
    }
}

fn signed(v: i32) -> String {
    if v > 0 {
        format!("+{v}")
    } else {
        v.to_string()
    }
}

fn cell<T: Copy>(e: Entry<T>, table: TableId, row: i32, column: i32) -> Cell<T> {
    Cell {
        value: e.value,
        provenance: e.provenance,
        at: CellAt { table, row, column },
    }
}

fn clamped_roll_index(roll: u8) -> usize {
    let t = (roll / 10).clamp(1, 6);
    let u = (roll % 10).clamp(1, 6);
    usize::from((t - 1) * 6 + (u - 1))
}

/// A table laid out for printing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Grid {
    #[serde(skip)]
    pub table: TableId,
    pub name: String,
    pub title: String,
    pub rule: String,
    /// True when an override file replaced this table.
    pub overridden: bool,
    pub rows: Vec<GridRow>,
}

/// A row of a [`Grid`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GridRow {
    pub label: String,
    pub cells: Vec<GridCell>,
}

/// A cell of a [`Grid`]: its column label, the value as printed, its provenance.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GridCell {
    pub column: String,
    pub text: String,
    pub provenance: Provenance,
    /// A blank step-1 cell: that combination cannot occur.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub blank: bool,
}

// ---------------------------------------------------------------------------------------------
// Validation of the rule invariants.

/// Check that each column of an 11..66 table partitions the 36 readings into contiguous ranges
/// in row order; returns, per column, the cumulative count after each row (if the column is a
/// partition).
fn check_partition<const R: usize, const C: usize>(
    table: TableId,
    rows: &[[Ranged; C]; R],
    row_label: &dyn Fn(usize) -> String,
    col_label: &dyn Fn(usize) -> String,
    out: &mut Vec<Problem>,
) -> Option<[[u32; R]; C]> {
    let mut cum = [[0u32; R]; C];
    let mut ok = true;
    for ci in 0..C {
        let mut next = 0u8;
        let mut col_ok = true;
        for ri in 0..R {
            if let Some((lo, hi)) = rows[ri][ci].range {
                if lo != next {
                    col_ok = false;
                    out.push(problem(
                        table,
                        Some(row_label(ri)),
                        Some(col_label(ci)),
                        format!(
                            "range {} must begin at roll {} (right after the rows above it): each column must split 11..66 into ranges in row order, without gaps or overlaps",
                            rows[ri][ci].text(),
                            roll_of_index(usize::from(next))
                        ),
                    ));
                    break;
                }
                next = hi + 1;
            }
            cum[ci][ri] = u32::from(next);
        }
        if col_ok && next != 36 {
            col_ok = false;
            out.push(problem(
                table,
                None,
                Some(col_label(ci)),
                format!(
                    "the ranges end at roll {}, but the last must end at 66 (every reading 11..66 needs a result)",
                    if next == 0 {
                        "none".to_string()
                    } else {
                        roll_of_index(usize::from(next - 1)).to_string()
                    }
                ),
            ));
        }
        ok &= col_ok;
    }
    ok.then_some(cum)
}

/// A better column is never worse: for every result but the best (the last row), the readings
/// giving that result or worse never grow from one column to the next (stochastic dominance).
fn check_dominance<const R: usize, const C: usize>(
    table: TableId,
    cum: &[[u32; R]; C],
    row_label: &dyn Fn(usize) -> String,
    col_label: &dyn Fn(usize) -> String,
    rule: &str,
    out: &mut Vec<Problem>,
) {
    for ci in 1..C {
        for (ri, (now, before)) in cum[ci].iter().zip(&cum[ci - 1]).enumerate().take(R - 1) {
            if now > before {
                out.push(problem(
                    table,
                    Some(row_label(ri)),
                    Some(col_label(ci)),
                    format!(
                        "{now} readings give {} or worse here but only {before} in column {}: {rule}",
                        row_label(ri),
                        col_label(ci - 1)
                    ),
                ));
            }
        }
    }
}

fn validate_acceptance(t: &[[Ranged; ACCEPTANCE_COLUMNS]; 5], out: &mut Vec<Problem>) {
    let rl = |r: usize| AcceptanceResult::ALL[r].to_string();
    let cl = |c: usize| acceptance_column_label(c as i32 + ACCEPTANCE_MIN_COLUMN);
    let Some(cum) = check_partition(TableId::Acceptance, t, &rl, &cl, out) else {
        return;
    };
    // 6.5: a higher acceptance number is never worse.
    check_dominance(
        TableId::Acceptance,
        &cum,
        &rl,
        &cl,
        "a higher acceptance number must never be worse (6.5)",
        out,
    );
    // Talavera 2.4: column 3, roll 23 is D6; column 4, roll 63 is A.
    for (col, roll, want) in [(3, 23, AcceptanceResult::D6), (4, 63, AcceptanceResult::A)] {
        let ci = (col - ACCEPTANCE_MIN_COLUMN) as usize;
        let idx = roll_index(roll).unwrap_or(0) as u32;
        let got = (0..5).find(|&ri| idx < cum[ci][ri]).unwrap_or(4);
        if AcceptanceResult::ALL[got] != want {
            out.push(problem(
                TableId::Acceptance,
                Some(rl(got)),
                Some(cl(ci)),
                format!(
                    "the Talavera 2.4 example needs roll {roll} in column {col} to give {want}, the table gives {}",
                    rl(got)
                ),
            ));
        }
    }
}

fn validate_initiative(t: &[[Ranged; INITIATIVE_COLUMNS]; 3], out: &mut Vec<Problem>) {
    let rl = |r: usize| initiative_label(INITIATIVE_RESULTS[r]).to_string();
    let cl = |c: usize| c.to_string();
    let Some(cum) = check_partition(TableId::Initiative, t, &rl, &cl, out) else {
        return;
    };
    // 6.6.1.3: a better rating (higher column) is never worse.
    check_dominance(
        TableId::Initiative,
        &cum,
        &rl,
        &cl,
        "a higher column must never be worse (6.6.1.3)",
        out,
    );
}

fn validate_step1(t: &[[Option<Entry<u8>>; STEP1_COLUMNS]; STEP1_ROWS], out: &mut Vec<Problem>) {
    let rl = |w: usize| format!("{w} wrecked");
    let cl = |ni: usize| format!("{} sub-units", ni + 1);
    let mut ok = true;
    for (w, row) in t.iter().enumerate() {
        for (ni, c) in row.iter().enumerate() {
            let possible = w <= ni + 2;
            match (possible, c) {
                (true, None) => {
                    ok = false;
                    out.push(problem(
                        TableId::StoppageStep1,
                        Some(rl(w)),
                        Some(cl(ni)),
                        "is blank, but this combination can occur (wrecked ≤ sub-units + 1): it needs a result 1..4".into(),
                    ));
                }
                (false, Some(e)) => {
                    ok = false;
                    out.push(problem(
                        TableId::StoppageStep1,
                        Some(rl(w)),
                        Some(cl(ni)),
                        format!(
                            "holds {}, but more wrecked than sub-units + 1 cannot occur: write \"-\"",
                            e.value
                        ),
                    ));
                }
                (true, Some(e)) if !(1..=4).contains(&e.value) => {
                    ok = false;
                    out.push(problem(
                        TableId::StoppageStep1,
                        Some(rl(w)),
                        Some(cl(ni)),
                        format!(
                            "{} is not a step-1 result: results run 1..4 (the rows of step 2)",
                            e.value
                        ),
                    ));
                }
                _ => {}
            }
        }
    }
    if !ok {
        return;
    }
    let v = |w: usize, ni: usize| t[w][ni].map(|e| e.value);
    for w in 0..STEP1_ROWS {
        for ni in 0..STEP1_COLUMNS {
            let Some(x) = v(w, ni) else { continue };
            // More wrecked is never easier (6.7.2).
            if w > 0
                && let Some(above) = v(w - 1, ni)
                && x < above
            {
                out.push(problem(
                    TableId::StoppageStep1,
                    Some(rl(w)),
                    Some(cl(ni)),
                    format!(
                        "{x} is easier than {above} with one wrecked fewer: more wrecked sub-units must never be easier (6.7.2)"
                    ),
                ));
            }
            // For the same number wrecked, more sub-units is never harder.
            if ni > 0
                && let Some(fewer) = v(w, ni - 1)
                && x > fewer
            {
                out.push(problem(
                    TableId::StoppageStep1,
                    Some(rl(w)),
                    Some(cl(ni)),
                    format!(
                        "{x} is harder than {fewer} with one sub-unit fewer: for the same number wrecked, more sub-units must never be harder (6.7.2)"
                    ),
                ));
            }
        }
    }
}

fn validate_step2(t: &[[Entry<u8>; 3]; 4], out: &mut Vec<Problem>) {
    let rl = |r: usize| (r + 1).to_string();
    let cl = |g: usize| ["rating 0", "rating 1,2", "rating 3,4"][g].to_string();
    for r in 0..4 {
        for g in 0..3 {
            let x = t[r][g].value;
            if !(2..=12).contains(&x) {
                out.push(problem(
                    TableId::StoppageStep2,
                    Some(rl(r)),
                    Some(cl(g)),
                    format!("{x} is not a roll of 2d6 (2..12)"),
                ));
            }
            if r > 0 && x < t[r - 1][g].value {
                out.push(problem(
                    TableId::StoppageStep2,
                    Some(rl(r)),
                    Some(cl(g)),
                    format!(
                        "needs {x}, less than {} for the better result above: a worse step-1 result must never be easier (6.7.2)",
                        t[r - 1][g].value
                    ),
                ));
            }
            if g > 0 && x > t[r][g - 1].value {
                out.push(problem(
                    TableId::StoppageStep2,
                    Some(rl(r)),
                    Some(cl(g)),
                    format!(
                        "needs {x}, more than {} for a worse rating: a better rating must never be harder (6.7.2)",
                        t[r][g - 1].value
                    ),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::file::parse_range;
    use super::*;

    fn t() -> &'static CommandTables {
        CommandTables::nbs()
    }

    /// Dt row of chart p1, exactly as transcribed.
    const SEED_DT: [&str; 14] = [
        "11-32", "11-26", "11-23", "11-16", "11-14", "11-13", "11-13", "11-12", "11-12", "11",
        "11", "-", "-", "-",
    ];

    #[test]
    fn embedded_default_parses_and_validates() {
        let t = t();
        assert!(t.validate().is_ok());
        assert!(t.overridden().is_empty());
    }

    #[test]
    fn rule_6_5_seed_dt_row_is_kept_exactly() {
        let g = t().grid(TableId::Acceptance);
        let dt: Vec<&str> = g.rows[0].cells.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(dt, SEED_DT);
        assert!(
            g.rows[0]
                .cells
                .iter()
                .all(|c| c.provenance == Provenance::Seed)
        );
        for row in &g.rows[1..] {
            assert!(
                row.cells
                    .iter()
                    .all(|c| c.provenance == Provenance::Assumed)
            );
        }
    }

    #[test]
    fn rule_6_5_reconstruction_is_the_documented_shifted_dt_curve() {
        // docs/rules.md: the boundary after row k in column c is f(c − s_k) with s = 0, 4, 6, 8,
        // where f is the Dt row's count of readings, continued left of −3 by +2 per column.
        let seed = [14u32, 12, 9, 6, 4, 3, 3, 2, 2, 1, 1, 0, 0, 0];
        let f = |x: i32| -> u32 {
            if x > 10 {
                0
            } else if x >= -3 {
                seed[(x + 3) as usize]
            } else {
                (14 + 2 * (-3 - x) as u32).min(36)
            }
        };
        for c in -3..=10 {
            let mut cum = 0;
            for (k, s) in [0, 4, 6, 8].iter().enumerate() {
                cum += t().acceptance_count(c, AcceptanceResult::ALL[k]).value;
                assert_eq!(cum, f(c - s), "column {c}, row {k}");
            }
        }
    }

    #[test]
    fn talavera_2_4_worked_example_holds() {
        assert_eq!(t().acceptance(3, 23).value, AcceptanceResult::D6);
        assert_eq!(t().acceptance(4, 63).value, AcceptanceResult::A);
        // Manglano: rating + Written 0 + General 0 + Wellesley; the "3" column.
        assert_eq!(
            t().acceptance_number(
                2,
                1,
                Method::Written,
                OrderType::General,
                CurrentOrder::General
            ),
            3
        );
    }

    #[test]
    fn rule_3_5_acceptance_clamps_to_edge_columns() {
        assert_eq!(t().acceptance(-9, 32).value, AcceptanceResult::Dt);
        assert_eq!(t().acceptance(-9, 32).at.column, -3);
        assert_eq!(t().acceptance(25, 11).at.column, 10);
        assert_eq!(t().acceptance(25, 11).value, AcceptanceResult::D6);
    }

    #[test]
    fn every_acceptance_roll_matches_the_printed_ranges() {
        for c in -3..=10 {
            for i in 0..36 {
                let roll = roll_of_index(i);
                let cell = t().acceptance(c, roll);
                let g = t().grid(TableId::Acceptance);
                let text = &g.rows[cell.at.row as usize].cells[(c + 3) as usize].text;
                let r = parse_range(text).unwrap().unwrap();
                assert!((r.0 as usize..=r.1 as usize).contains(&i), "{c} {roll}");
            }
        }
    }

    #[test]
    fn rule_6_4_1_command_points_and_order_costs() {
        let cp: Vec<u8> = (0..=4).map(|r| t().command_points(r)).collect();
        assert_eq!(cp, [7, 10, 13, 15, 16]);
        assert_eq!(t().command_points(9), 16);
        // Talavera 2.4: a General AW order costs 6.
        assert_eq!(t().order_cost(Method::Written, OrderType::General), 6);
        assert_eq!(t().order_cost(Method::Oral, OrderType::Engage), 7);
        assert_eq!(t().order_cost(Method::InPerson, OrderType::Complex), 7);
        assert_eq!(
            t().order_cost_cells(Method::InPerson, OrderType::General)[0].provenance,
            Provenance::Assumed
        );
    }

    #[test]
    fn rule_6_5_acceptance_number_sums_the_modifiers() {
        assert_eq!(
            t().acceptance_number(
                4,
                4,
                Method::InPerson,
                OrderType::General,
                CurrentOrder::None
            ),
            11
        );
        assert_eq!(
            t().acceptance_number(0, 0, Method::Oral, OrderType::Engage, CurrentOrder::Engage),
            -4
        );
    }

    #[test]
    fn rule_6_6_1_3_initiative_table_is_the_seed() {
        let expect = [
            ["11-14", "11-13", "11-13", "11-12", "11-12", "11"],
            ["15-65", "14-64", "14-63", "13-61", "13-53", "12-51"],
            ["66", "65-66", "64-66", "62-66", "54-66", "52-66"],
        ];
        let g = t().grid(TableId::Initiative);
        for (r, row) in expect.iter().enumerate() {
            let got: Vec<&str> = g.rows[r].cells.iter().map(|c| c.text.as_str()).collect();
            assert_eq!(&got, row);
        }
        assert_eq!(t().initiative(0, 66).value, InitiativeResult::Initiative);
        assert_eq!(t().initiative(0, 14).value, InitiativeResult::LooseCannon);
        assert_eq!(t().initiative(9, 52).value, InitiativeResult::Initiative);
        assert_eq!(t().initiative(-1, 15).value, InitiativeResult::NoEffect);
    }

    #[test]
    fn rule_6_7_2_stoppage_seed_cells_and_example() {
        for n in 1..=10 {
            let c = t().stoppage_result(n, 0);
            assert_eq!((c.value, c.provenance), (1, Provenance::Seed));
        }
        let row1 = [1, 1, 1, 1, 1, 1, 2, 2, 2];
        for (i, v) in row1.iter().enumerate() {
            let n = 10 - i as u32;
            let c = t().stoppage_result(n, 1);
            assert_eq!((c.value, c.provenance), (*v, Provenance::Seed), "n={n}");
        }
        assert_eq!(t().stoppage_result(1, 1).provenance, Provenance::Assumed);
        // Rule 6.7 example: 3 divisions, 1 wrecked, Corps Commander rated 4 → 5.
        let r = t().stoppage_result(3, 1);
        assert_eq!(r.value, 2);
        assert_eq!(t().stoppage_needed(r.value, 4).value, 5);
        let step2 = [[4, 3, 3], [7, 6, 5], [10, 9, 8], [12, 11, 10]];
        for (r, row) in step2.iter().enumerate() {
            for (rating, g) in [(0u8, 0usize), (1, 1), (2, 1), (3, 2), (4, 2)] {
                let c = t().stoppage_needed(r as u8 + 1, rating);
                assert_eq!((c.value, c.provenance), (row[g], Provenance::Seed));
            }
        }
        assert_eq!(t().night_stoppage_modifier(), -3);
    }

    #[test]
    fn rule_6_7_2_stoppage_reconstruction_is_quarter_bands() {
        for n in 1..=10u32 {
            for w in 0..=n + 1 {
                let want = if 4 * w < n {
                    1
                } else if 2 * w <= n {
                    2
                } else if 4 * w <= 3 * n {
                    3
                } else {
                    4
                };
                assert_eq!(t().stoppage_result(n, w).value, want, "{w} of {n}");
            }
        }
        // Clamps: more than 10 sub-units use column 10; impossible wrecked use sub-units + 1.
        assert_eq!(t().stoppage_result(14, 1).at.column, 10);
        assert_eq!(t().stoppage_result(2, 9).at.row, 3);
        assert_eq!(t().stoppage_result(0, 0).at.column, 1);
    }

    #[test]
    fn assumed_cells_are_the_reconstruction() {
        let a = t().assumed_cells();
        let count = |tid| a.iter().filter(|c| c.table == tid).count();
        assert_eq!(count(TableId::Acceptance), 56);
        assert_eq!(count(TableId::StoppageStep1), 56);
        assert_eq!(count(TableId::OrderCost), 1);
        assert_eq!(a.len(), 113);
    }

    #[test]
    fn hash_is_stable_and_content_based() {
        let h = t().hash();
        assert_eq!(h.len(), 64);
        let again = CommandTables::from_toml_str("x", "# nothing overridden\n").unwrap();
        assert_eq!(again.hash(), h);
        let changed = CommandTables::from_toml_str(
            "x",
            "[night]\nstoppage_modifier = { value = -2, provenance = \"assumed\" }\n",
        )
        .unwrap();
        assert_ne!(changed.hash(), h);
        assert_eq!(changed.night_stoppage_modifier(), -2);
        assert_eq!(changed.overridden(), vec![TableId::Night]);
    }

    fn invalid(text: &str) -> Vec<Problem> {
        match CommandTables::from_toml_str("override.toml", text) {
            Err(TableError::Invalid { problems, .. }) => problems,
            other => panic!("expected Invalid, got {other:?}"),
        }
    }

    fn acceptance_with(row: &str, cells: &str) -> String {
        let mut out = String::from("[acceptance]\n");
        for line in DEFAULT_TABLES_TOML
            .lines()
            .skip_while(|l| *l != "[acceptance]")
            .skip(1)
            .take(5)
        {
            if line.starts_with(&format!("{row} =")) {
                out.push_str(&format!(
                    "{row} = {{ provenance = \"assumed\", cells = [{cells}] }}\n"
                ));
            } else {
                out.push_str(line);
                out.push('\n');
            }
        }
        out
    }

    #[test]
    fn validation_refuses_a_gap_naming_table_row_column() {
        let text = acceptance_with(
            "D6",
            r#""33-44", "31-42", "24-36", "21-34", "15-32", "14-26", "14-22", "13-16", "13-14", "12-13", "12-13", "11-12", "11-12", "11""#,
        );
        let p = invalid(&text);
        assert_eq!(p[0].table, TableId::Acceptance);
        assert_eq!(p[0].row.as_deref(), Some("D5"));
        assert_eq!(p[0].column.as_deref(), Some("3"));
        assert!(p[0].message.contains("must begin at roll 23"), "{}", p[0]);
    }

    #[test]
    fn validation_refuses_breaking_the_talavera_example() {
        // Column 3 with D6 ending at 22 and D5 starting at 23: still a partition, still
        // monotone, but roll 23 is now D5 — only the Talavera 2.4 example breaks.
        let text = acceptance_with(
            "D6",
            r#""33-44", "31-42", "24-36", "21-34", "15-32", "14-26", "14-22", "13-16", "13-14", "12-13", "12-13", "11-12", "11-12", "11""#,
        )
        .lines()
        .map(|l| {
            if l.starts_with("D5 =") {
                l.replacen("\"24-32\"", "\"23-32\"", 1)
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
        let p = invalid(&text);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].message.contains("Talavera 2.4"), "{p:?}");
        assert_eq!(p[0].column.as_deref(), Some("3"));
    }

    #[test]
    fn validation_refuses_a_non_monotone_acceptance_table() {
        // Swap the Dt cells of columns 0 and 1 (breaks the seed and dominance).
        let mut tables = t().clone();
        tables.acceptance[0].swap(3, 4);
        tables.acceptance[1][3].range = Some((4, 15));
        tables.acceptance[1][4].range = Some((6, 13));
        let p = tables.validate().unwrap_err();
        assert!(
            p.iter().any(|p| p.message.contains("never be worse")),
            "{p:?}"
        );
    }

    #[test]
    fn validation_refuses_non_monotone_stoppage() {
        let mut tables = t().clone();
        tables.step1[5][9] = Some(Entry {
            value: 1,
            provenance: Provenance::Assumed,
        });
        let p = tables.validate().unwrap_err();
        assert!(p.iter().any(|p| p.table == TableId::StoppageStep1
            && p.row.as_deref() == Some("5 wrecked")
            && p.column.as_deref() == Some("10 sub-units")));
        let mut tables = t().clone();
        tables.step1[2][2] = Some(Entry {
            value: 5,
            provenance: Provenance::Assumed,
        });
        let p = tables.validate().unwrap_err();
        assert!(p.iter().any(|p| p.message.contains("results run 1..4")));
        let mut tables = t().clone();
        tables.step2[2][1].value = 5;
        assert!(tables.validate().is_err());
    }

    #[test]
    fn validation_refuses_breaking_the_6_7_example() {
        let text = "[stoppage_step1]\nrows = [\n".to_string()
            + &(0..12)
                .map(|w| {
                    let cells: Vec<String> = (1..=10u32)
                        .rev()
                        .map(|n| {
                            if w > n + 1 {
                                "\"-\"".into()
                            } else if w == 0 {
                                "1".into()
                            } else {
                                "3".into()
                            }
                        })
                        .collect();
                    format!(
                        "{{ wrecked = {w}, cells = [{}], provenance = \"assumed\" }},\n",
                        cells.join(", ")
                    )
                })
                .collect::<String>()
            + "]\n";
        let p = invalid(&text);
        assert!(
            p.iter().any(|p| p.message.contains("6.7's example")),
            "{p:?}"
        );
    }

    #[test]
    fn bad_shapes_are_refused_with_place() {
        let p = invalid(
            "[delay]\nD4 = { value = 4, provenance = \"sead\" }\nD5 = { value = 5, provenance = \"seed\" }\nD6 = { value = 9, provenance = \"seed\" }\ndiscovery = { value = 5, provenance = \"seed\" }\n",
        );
        assert!(
            p.iter()
                .any(|p| p.message.contains("unknown provenance \"sead\""))
        );
        let p = invalid(
            "[initiative]\nloose-cannon = { provenance = \"seed\", cells = [\"11-14\"] }\nno-effect = { provenance = \"seed\", cells = [\"15-65\", \"14-64\", \"14-63\", \"13-61\", \"13-53\", \"12-51\"] }\ninitiative = { provenance = \"seed\", cells = [\"66\", \"65-66\", \"64-66\", \"62-66\", \"54-66\", \"52-66\"] }\n",
        );
        assert!(
            p.iter()
                .any(|p| p.row.as_deref() == Some("Loose Cannon")
                    && p.message.contains("has 1 cells"))
        );
        match CommandTables::from_toml_str("o.toml", "[acceptanse]\n") {
            Err(TableError::Parse { message, .. }) => assert!(message.contains("acceptanse")),
            other => panic!("{other:?}"),
        }
        match CommandTables::from_toml_str("o.toml", "[acceptance\n") {
            Err(TableError::Parse { .. }) => {}
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            CommandTables::load(Path::new("/nonexistent/tables.toml")),
            Err(TableError::Io { .. })
        ));
        assert_eq!(
            parse_range("17"),
            Err(
                "\"17\" is not a range of 11..66 readings (like \"11-32\", \"23\" or \"-\")".into()
            )
        );
        assert!(parse_range("32-11").is_err());
    }

    #[test]
    fn printed_override_of_the_whole_file_is_accepted() {
        let t2 = CommandTables::from_toml_str("copy.toml", DEFAULT_TABLES_TOML).unwrap();
        assert_eq!(t2.hash(), t().hash());
        assert_eq!(t2.overridden().len(), TableId::ALL.len());
    }

    #[test]
    fn out_of_range_readings_never_panic() {
        for roll in 0..=255u8 {
            let _ = t().acceptance(0, roll);
            let _ = t().initiative(3, roll);
        }
        assert_eq!(t().try_acceptance(0, 17), Err(BadRoll(17)));
        assert!(t().try_initiative(0, 66).is_ok());
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            /// Bad input changes nothing and never panics: any text is parsed or refused.
            #[test]
            fn any_text_is_parsed_or_refused(text in "\\PC{0,400}") {
                let _ = CommandTables::from_toml_str("prop.toml", &text);
            }

            /// Any single cell of the default file replaced by any token is parsed or refused.
            #[test]
            fn any_edited_cell_is_parsed_or_refused(
                pick in 0usize..400,
                token in prop_oneof![
                    Just("\"-\"".to_string()),
                    "-?[0-9]{1,4}",
                    "\"[0-9]{1,2}-[0-9]{1,2}\"",
                    "\"[a-z]{0,6}\"",
                ],
            ) {
                let mut hits = 0;
                let text: String = DEFAULT_TABLES_TOML
                    .split_inclusive(['"', ',', '[', ']'])
                    .map(|piece| {
                        hits += 1;
                        if hits == pick { format!("{token},") } else { piece.to_string() }
                    })
                    .collect();
                if let Ok(t) = CommandTables::from_toml_str("edited.toml", &text) {
                    prop_assert!(t.validate().is_ok());
                }
            }

            /// 3.5: every lookup clamps; none panics for any argument.
            #[test]
            fn lookups_never_panic(a in any::<i32>(), b in any::<u8>(), c in any::<u32>(), d in any::<u32>()) {
                let t = CommandTables::nbs();
                let _ = t.acceptance(a, b);
                let _ = t.initiative(a, b);
                let r = t.stoppage_result(c, d);
                prop_assert!((1..=4).contains(&r.value));
                let n = t.stoppage_needed(b, b);
                prop_assert!((2..=12).contains(&n.value));
                let _ = t.command_points(b);
                let _ = t.acceptance_number(a, a, Method::Oral, OrderType::Engage, CurrentOrder::None);
            }
        }
    }
}
