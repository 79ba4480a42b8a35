//! `staffwork odds acceptance|initiative|stoppage`: exact odds of the command checks (6.5,
//! 6.6.1.3, 6.7.2), by enumerating the dice.
//!
//! Owns: the flags of the three checks (shared with `simulate`), loading `--tables`, and the
//! text and JSON shapes of the answers (documented in docs/rules.md as a stable contract).
//! Must not: compute odds itself (that is `rules::odds`).

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand, ValueEnum};
use serde::Serialize;

use super::{CmdResult, Failure, Format, emit, emit_json};
use crate::provenance::Provenance;
use crate::rules::odds::{self, AcceptanceOdds, InitiativeOdds, StoppageOdds, UsedCell};
use crate::rules::tables::{CommandTables, TableError, initiative_label};
use crate::rules::{CurrentOrder, OrderType};

/// Exact odds of a command check.
#[derive(Subcommand, Debug)]
pub enum OddsCmd {
    /// Exact odds of New Order Acceptance (6.5) and of acceptance by each of the next 10 turns
    /// (delay reduction, 6.5.2).
    Acceptance(AcceptanceArgs),
    /// Exact odds of an Initiative roll (6.6.1.3).
    Initiative(InitiativeArgs),
    /// Exact odds of passing an Attack Stoppage check (6.7.2).
    Stoppage(StoppageArgs),
    #[command(flatten)]
    Combat(super::odds_combat::CombatOddsCmd),
}

pub use crate::app::MethodArg;

/// The order's type (6.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TypeArg {
    Engage,
    General,
    Complex,
}

impl From<TypeArg> for OrderType {
    fn from(t: TypeArg) -> OrderType {
        match t {
            TypeArg::Engage => OrderType::Engage,
            TypeArg::General => OrderType::General,
            TypeArg::Complex => OrderType::Complex,
        }
    }
}

/// The recipient's present order status (6.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CurrentArg {
    Engage,
    General,
    None,
}

impl From<CurrentArg> for CurrentOrder {
    fn from(c: CurrentArg) -> CurrentOrder {
        match c {
            CurrentArg::Engage => CurrentOrder::Engage,
            CurrentArg::General => CurrentOrder::General,
            CurrentArg::None => CurrentOrder::None,
        }
    }
}

/// Flags common to every check.
#[derive(Args, Debug, Clone)]
pub struct CommonArgs {
    /// A table file overriding some or all of the embedded tables (see `staffwork rules show`).
    #[arg(long, value_name = "FILE")]
    pub tables: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// The order whose acceptance is checked.
#[derive(Args, Debug, Clone)]
pub struct AcceptanceArgs {
    /// The sender's Command Rating (0–4).
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=4))]
    pub sender_rating: u8,
    /// The receiver's Command Rating (0–4; Army HQ 3, brigade 2).
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=4))]
    pub receiver_rating: u8,
    /// How the order is delivered (6.4.3): in-person +2, oral −1, written 0.
    #[arg(long, value_enum)]
    pub method: MethodArg,
    /// The new order's type (6.3): engage −2, complex −2, general 0.
    #[arg(long = "type", value_enum, value_name = "TYPE")]
    pub order_type: TypeArg,
    /// The receiver's current order status (6.5): engage −1, general 0, none (No Orders) +1.
    #[arg(long, value_enum)]
    pub current: CurrentArg,
    #[command(flatten)]
    pub common: CommonArgs,
}

impl AcceptanceArgs {
    pub fn query(&self) -> odds::AcceptanceQuery {
        odds::AcceptanceQuery {
            sender_rating: i32::from(self.sender_rating),
            receiver_rating: i32::from(self.receiver_rating),
            method: self.method.into(),
            order_type: self.order_type.into(),
            current: self.current.into(),
        }
    }
}

/// The commander rolling for Initiative.
#[derive(Args, Debug, Clone)]
pub struct InitiativeArgs {
    /// The commander's Command Rating (0–4; independent brigades 2).
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=4))]
    pub rating: u8,
    /// The command is already under General Orders (+1 column, chart p1).
    #[arg(long)]
    pub general: bool,
    #[command(flatten)]
    pub common: CommonArgs,
}

/// The command checking for Attack Stoppage.
#[derive(Args, Debug, Clone)]
pub struct StoppageArgs {
    /// Sub-units now in the command (1–50; more than 10 use the 10 column, 3.5).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=50))]
    pub sub_units: u32,
    /// Wrecked sub-units, +1 if the Commander is lost (at most sub-units + 1).
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=51))]
    pub wrecked: u32,
    /// The force Commander's rating (0–4; independent brigades 2).
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=4))]
    pub rating: u8,
    /// Night turn: −3 to the roll (chart p1).
    #[arg(long)]
    pub night: bool,
    #[command(flatten)]
    pub common: CommonArgs,
}

impl StoppageArgs {
    /// Refuse combinations the table leaves blank (6.7.2: "cannot occur").
    pub fn check(&self) -> Result<(), Failure> {
        if self.wrecked > self.sub_units + 1 {
            return Err(Failure::Usage(format!(
                "--wrecked {} with --sub-units {}: at most sub-units + 1 can be wrecked (the +1 is a lost Commander, 6.7.2)",
                self.wrecked, self.sub_units
            )));
        }
        Ok(())
    }
}

pub fn run(cmd: OddsCmd) -> CmdResult {
    match cmd {
        OddsCmd::Combat(c) => super::odds_combat::run(c),
        OddsCmd::Acceptance(a) => {
            let t = load_tables(a.common.tables.as_deref(), a.common.format)?;
            let o = odds::acceptance(&t, a.query());
            match a.common.format {
                Format::Json => emit_json(&acceptance_json(&t, &o)),
                Format::Text => emit(&acceptance_text(&o)),
            }
        }
        OddsCmd::Initiative(a) => {
            let t = load_tables(a.common.tables.as_deref(), a.common.format)?;
            let o = odds::initiative(&t, i32::from(a.rating), a.general);
            match a.common.format {
                Format::Json => emit_json(&Tagged {
                    check: "initiative",
                    tables_hash: t.hash(),
                    odds: &o,
                }),
                Format::Text => emit(&initiative_text(&o)),
            }
        }
        OddsCmd::Stoppage(a) => {
            a.check()?;
            let t = load_tables(a.common.tables.as_deref(), a.common.format)?;
            let o = odds::stoppage(&t, a.sub_units, a.wrecked, a.rating, a.night);
            match a.common.format {
                Format::Json => emit_json(&Tagged {
                    check: "stoppage",
                    tables_hash: t.hash(),
                    odds: &o,
                }),
                Format::Text => emit(&stoppage_text(&o)),
            }
        }
    }
}

/// A JSON answer: which check, which tables (hash), the odds.
#[derive(Serialize)]
pub(crate) struct Tagged<'a, T: Serialize> {
    pub check: &'static str,
    pub tables_hash: String,
    #[serde(flatten)]
    pub odds: &'a T,
}

pub(crate) fn acceptance_json<'a>(
    t: &CommandTables,
    o: &'a AcceptanceOdds,
) -> Tagged<'a, AcceptanceOdds> {
    Tagged {
        check: "acceptance",
        tables_hash: t.hash(),
        odds: o,
    }
}

/// The embedded tables, or the embedded ones overridden by `path`. An invalid file is reported
/// (stderr, or stdout as JSON) and judged bad (exit 1); an unreadable one is a usage error.
pub(crate) fn load_tables(
    path: Option<&Path>,
    format: Format,
) -> Result<Cow<'static, CommandTables>, Failure> {
    let Some(path) = path else {
        return Ok(Cow::Borrowed(CommandTables::nbs()));
    };
    match CommandTables::load(path) {
        Ok(t) => Ok(Cow::Owned(t)),
        Err(e) => Err(report_tables(&e, Some(path), format)),
    }
}

/// Report a table file that cannot be used: an unreadable one is a usage error (exit 2); an
/// invalid one is printed (stderr, or stdout as JSON) and judged bad (exit 1).
pub(crate) fn report_tables(e: &TableError, path: Option<&Path>, format: Format) -> Failure {
    if let TableError::Io { .. } = e {
        return Failure::Usage(e.to_string());
    }
    if format == Format::Json {
        let problems = match e {
            TableError::Invalid { problems, .. } => problems.clone(),
            _ => Vec::new(),
        };
        if let Err(f) = emit_json(&serde_json::json!({
            "file": path,
            "valid": false,
            "error": e.to_string(),
            "problems": problems,
        })) {
            return f;
        }
    } else {
        eprintln!("error: {e}");
    }
    Failure::Judged
}

/// A percentage with two decimals from integers, rounded half up.
pub(crate) fn pct(num: u64, den: u64) -> String {
    if den == 0 {
        return "-".into();
    }
    let v = (u128::from(num) * 20_000 + u128::from(den)) / (2 * u128::from(den));
    format!("{}.{:02}%", v / 100, v % 100)
}

/// `*` for an assumed cell, `~` for a derived one.
pub(crate) fn mark(p: Provenance) -> &'static str {
    match p {
        Provenance::Seed => "",
        Provenance::Derived => "~",
        Provenance::Assumed => "*",
    }
}

pub(crate) const LEGEND: &str =
    "* assumed: our reconstruction of a cell the transcription lost (docs/rules.md); ~ derived";

fn cells_used_text(cells: &[UsedCell]) -> String {
    let mut s = String::from("Cells used:\n");
    for c in cells {
        s.push_str(&format!(
            "  {:<21} {:<22} {:<12} {:>7}  {}\n",
            c.table.name(),
            c.row,
            c.column,
            format!("{}{}", c.value, mark(c.provenance)),
            c.provenance
        ));
    }
    if cells.iter().any(|c| c.provenance != Provenance::Seed) {
        s.push_str(&format!("{LEGEND}\n"));
    }
    s
}

pub(crate) fn acceptance_text(o: &AcceptanceOdds) -> String {
    let q = o.query;
    let mods: Vec<&UsedCell> = o
        .cells_used
        .iter()
        .filter(|c| c.table == crate::rules::TableId::AcceptanceModifiers)
        .collect();
    let m = |i: usize| mods.get(i).map_or("?".to_string(), |c| c.value.clone());
    let mut s = format!(
        "New Order Acceptance (6.5)\n  Acceptance Number = sender {} + receiver {} + {} {} + {} {} + current {} {} = {}  → column {}\n\n",
        q.sender_rating,
        q.receiver_rating,
        crate::rules::tables::method_label(q.method),
        m(0),
        crate::rules::tables::type_label(q.order_type),
        m(1),
        crate::rules::tables::current_label(q.current),
        m(2),
        o.acceptance_number,
        o.column_label
    );
    s.push_str("  result  rolls    count/36  chance\n");
    for c in &o.counts {
        s.push_str(&format!(
            "  {:<6}  {:<8} {:>5}     {:>7}\n",
            c.result.to_string(),
            format!("{}{}", c.rolls, mark(c.provenance)),
            c.count,
            pct(u64::from(c.count), 36)
        ));
    }
    s.push_str(
        "\n  Accepted by the end of turn (turn 1 = arrival; then one delay-reduction die a turn, 6.5.2;\n  Dt is never accepted, 6.5.3):\n",
    );
    let line: Vec<String> = o
        .by_turn
        .iter()
        .map(|t| format!("{}: {}", t.turn, pct(t.accepted, o.by_turn_denominator)))
        .collect();
    for chunk in line.chunks(5) {
        s.push_str(&format!("    {}\n", chunk.join("   ")));
    }
    s.push('\n');
    s.push_str(&cells_used_text(&o.cells_used));
    s
}

pub(crate) fn initiative_text(o: &InitiativeOdds) -> String {
    let mut s = format!(
        "Initiative (6.6.1.3)\n  column = rating {}{} = {}{}\n\n  result        rolls    count/36  chance\n",
        o.rating,
        if o.general {
            " + 1 (General Orders)"
        } else {
            ""
        },
        o.column,
        if o.column != o.column_used {
            format!(" → column {} (edge, 3.5)", o.column_used)
        } else {
            String::new()
        }
    );
    for c in &o.counts {
        s.push_str(&format!(
            "  {:<12}  {:<8} {:>5}     {:>7}\n",
            initiative_label(c.result),
            format!("{}{}", c.rolls, mark(c.provenance)),
            c.count,
            pct(u64::from(c.count), 36)
        ));
    }
    s.push('\n');
    s.push_str(&cells_used_text(&o.cells_used));
    s
}

pub(crate) fn stoppage_text(o: &StoppageOdds) -> String {
    let mut s = format!(
        "Attack Stoppage (6.7.2)\n  step 1: {} wrecked of {} sub-units → result {}\n  step 2: result {}, rating {} → needs {} or more on 2d6\n",
        o.wrecked, o.sub_units, o.result, o.result, o.rating, o.needed
    );
    if o.night {
        s.push_str(&format!("  night: {} to the roll\n", o.roll_modifier));
    }
    s.push_str(&format!(
        "  passes on {} of 36 throws ({}); stops and withdraws (6.6.3.9) on {} ({})\n\n",
        o.pass,
        pct(u64::from(o.pass), 36),
        36 - o.pass,
        pct(u64::from(36 - o.pass), 36)
    ));
    s.push_str(&cells_used_text(&o.cells_used));
    s
}

/// `odds --db GAME --order N --side S|--umpire`: the odds of a pending order in its real
/// situation, through the application layer as that seat (a side asks of its own orders only).
pub fn order_odds(db: &Path, number: u32, side: Option<&str>, format: Format) -> CmdResult {
    let mut game = super::game_cmd::open(db)?;
    let seat = crate::view::seat(&game.scenario, side, false).map_err(Failure::Usage)?;
    let request = crate::app::Request::Odds(crate::app::OddsRequest { order: number });
    match crate::app::execute(&mut game, &seat, &request) {
        Ok(crate::app::Response::Odds(o)) => print_order_odds(&o, db, format),
        Ok(_) => Err(Failure::Usage("odds: unexpected response".into())),
        Err(e) => Err(super::game_cmd::report(e, format)),
    }
}

/// Print the odds of a game's order.
pub(crate) fn print_order_odds(o: &crate::app::OrderOdds, db: &Path, format: Format) -> CmdResult {
    match format {
        Format::Json => emit_json(&serde_json::json!({
            "order": o.order,
            "odds": Tagged { check: "acceptance", tables_hash: o.tables_hash.clone(), odds: &o.odds },
        })),
        Format::Text => emit(&format!(
            "Order {} in game {}:\n{}",
            o.order,
            db.display(),
            acceptance_text(&o.odds)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pct_rounds_half_up_with_integers() {
        assert_eq!(pct(1, 3), "33.33%");
        assert_eq!(pct(2, 3), "66.67%");
        assert_eq!(pct(36, 36), "100.00%");
        assert_eq!(pct(0, 36), "0.00%");
        assert_eq!(pct(1, 0), "-");
    }
}
