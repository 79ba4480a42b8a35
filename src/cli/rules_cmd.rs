//! `staffwork rules show [TABLE]`: print the command tables with the provenance of every cell,
//! assumed cells marked, and the list of every assumed cell; `rules show random-events` prints
//! the Standard Random Events Table (29.0).
//!
//! Owns: the text layout and the JSON shape of the tables (docs/rules.md). Must not: parse or
//! validate tables itself (that is `rules::tables`).

use std::path::PathBuf;

use clap::{Subcommand, ValueEnum};
use serde::Serialize;

use super::odds_cmd::{LEGEND, load_tables, mark};
use super::{CmdResult, Format};
use super::{emit, emit_json};
use crate::rules::random_events::RandomEventTable;
use crate::rules::tables::{CellRef, Grid, GridRow, TableId};

#[derive(Subcommand, Debug)]
pub enum RulesCmd {
    /// Print the command tables of chart p1 (all, or one), or the Standard Random Events Table
    /// (`random-events`, rule 29), with provenance; assumed cells are marked `*` and listed.
    Show {
        /// The table to print (all when omitted).
        #[arg(value_enum)]
        table: Option<TableArg>,
        /// A table file overriding some or all of the embedded tables.
        #[arg(long, value_name = "FILE")]
        tables: Option<PathBuf>,
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
}

/// A table of chart p1, or the Standard Random Events Table (29.0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TableArg {
    CommandPoints,
    OrderCost,
    AcceptanceModifiers,
    Acceptance,
    Delay,
    Initiative,
    StoppageStep1,
    StoppageStep2,
    Night,
    /// The Standard Random Events Table (29.0; `tables/nbs-3.0/random-events.toml`, not
    /// overridable).
    RandomEvents,
    /// The Movement Table (chart p2; `tables/nbs-3.0/movement.toml`): allowances, costs,
    /// terrain, hexside and slope rows, visibility. With --tables FILE, a Movement Table override.
    Movement,
}

impl TableArg {
    /// The chart p1 table, or `None` for the random events table.
    fn command_table(self) -> Option<TableId> {
        Some(match self {
            TableArg::CommandPoints => TableId::CommandPoints,
            TableArg::OrderCost => TableId::OrderCost,
            TableArg::AcceptanceModifiers => TableId::AcceptanceModifiers,
            TableArg::Acceptance => TableId::Acceptance,
            TableArg::Delay => TableId::Delay,
            TableArg::Initiative => TableId::Initiative,
            TableArg::StoppageStep1 => TableId::StoppageStep1,
            TableArg::StoppageStep2 => TableId::StoppageStep2,
            TableArg::Night => TableId::Night,
            TableArg::RandomEvents | TableArg::Movement => return None,
        })
    }
}

/// A printable table that is not one of chart p1 (the JSON shape of [`Grid`] without its id).
#[derive(Serialize)]
struct TableJson {
    name: String,
    title: String,
    rule: String,
    overridden: bool,
    rows: Vec<GridRow>,
}

#[derive(Serialize)]
struct RandomEventsJson {
    origin: String,
    hash: String,
    overridden: Vec<TableId>,
    /// 29.0: the one-die check at the start of each Player Turn.
    check: RandomEventsCheck,
    tables: Vec<TableJson>,
    assumed_cells: Vec<CellRef>,
}

#[derive(Serialize)]
struct RandomEventsCheck {
    die: u8,
    occurs_on: u8,
    provenance: crate::provenance::Provenance,
}

/// `rules show random-events`: the Standard Random Events Table (29.0).
fn show_random_events(format: Format) -> CmdResult {
    let t = RandomEventTable::nbs();
    let table = TableJson {
        name: "random-events".into(),
        title: "Standard Random Events Table".into(),
        rule: "29.0".into(),
        overridden: false,
        rows: t.rows(),
    };
    let check = t.occurs_on();
    match format {
        Format::Json => emit_json(&RandomEventsJson {
            origin: t.origin().to_string(),
            hash: t.hash(),
            overridden: Vec::new(),
            check: RandomEventsCheck {
                die: 6,
                occurs_on: check.value,
                provenance: check.provenance,
            },
            tables: vec![table],
            assumed_cells: Vec::new(),
        }),
        Format::Text => {
            let mut s = format!(
                "NBS v3.0 random events (optional rule 29) — {}\nhash {}\n{LEGEND}\n\n",
                t.origin(),
                t.hash()
            );
            s.push_str(&format!(
                "At the start of each Player Turn roll one die; on a {}{} a random event occurs: roll two dice (29.0).\n\n",
                check.value,
                mark(check.provenance)
            ));
            s.push_str(&table_text(
                &table.title,
                &table.rule,
                &table.name,
                false,
                &table.rows,
            ));
            s.push_str(
                "\nA result that does not apply is No Event (29.0). \"Game Table\" rolls one die on the scenario's own table ([[random_events]]); each event is defined in 29.1 (docs/rules.md).\n",
            );
            let non_seed = t.non_seed_cells();
            s.push_str(&format!("\nAssumed cells ({}):\n", non_seed.len()));
            for (roll, e) in non_seed {
                s.push_str(&format!(
                    "  random-events, row {roll}, column event: {}\n",
                    e.value.title()
                ));
            }
            emit(&s)
        }
    }
}

#[derive(Serialize)]
struct ShowJson {
    origin: String,
    hash: String,
    overridden: Vec<TableId>,
    tables: Vec<Grid>,
    assumed_cells: Vec<CellRef>,
}

pub fn run(cmd: RulesCmd) -> CmdResult {
    match cmd {
        RulesCmd::Show {
            table,
            tables,
            format,
        } => {
            if table == Some(TableArg::Movement) {
                return super::movement_cmd::show_table(tables.as_deref(), format);
            }
            let wanted: Vec<TableId> = match table.map(TableArg::command_table) {
                Some(Some(x)) => vec![x],
                Some(None) => return show_random_events(format),
                None => TableId::ALL.to_vec(),
            };
            let t = load_tables(tables.as_deref(), format)?;
            let grids: Vec<Grid> = wanted.iter().map(|id| t.grid(*id)).collect();
            let assumed: Vec<CellRef> = t
                .assumed_cells()
                .into_iter()
                .filter(|c| wanted.contains(&c.table))
                .collect();
            match format {
                Format::Json => emit_json(&ShowJson {
                    origin: t.origin().to_string(),
                    hash: t.hash(),
                    overridden: t.overridden(),
                    tables: grids,
                    assumed_cells: assumed,
                }),
                Format::Text => {
                    let mut s = format!(
                        "NBS v3.0 command tables — {}\nhash {}\n",
                        t.origin(),
                        t.hash()
                    );
                    let over = t.overridden();
                    if !over.is_empty() {
                        let names: Vec<&str> = over.iter().map(|o| o.name()).collect();
                        s.push_str(&format!("overridden: {}\n", names.join(", ")));
                    }
                    s.push_str(&format!("{LEGEND}\n\n"));
                    for g in &grids {
                        s.push_str(&grid_text(g));
                        s.push('\n');
                    }
                    s.push_str(&format!("Assumed cells ({}):\n", assumed.len()));
                    for c in &assumed {
                        s.push_str(&format!(
                            "  {}, row {}, column {}: {}\n",
                            c.table, c.row, c.column, c.value
                        ));
                    }
                    emit(&s)
                }
            }
        }
    }
}

/// A grid as aligned text; cells marked by provenance.
fn grid_text(g: &Grid) -> String {
    table_text(&g.title, &g.rule, &g.name, g.overridden, &g.rows)
}

/// A table as aligned text; cells marked by provenance.
fn table_text(title: &str, rule: &str, name: &str, overridden: bool, rows: &[GridRow]) -> String {
    let mut s = format!(
        "{} ({}) [{}]{}\n",
        title,
        rule,
        name,
        if overridden { " (overridden)" } else { "" }
    );
    let same_columns = rows.windows(2).all(|w| {
        w[0].cells.len() == w[1].cells.len()
            && w[0]
                .cells
                .iter()
                .zip(&w[1].cells)
                .all(|(a, b)| a.column == b.column)
    });
    let label_w = rows
        .iter()
        .map(|r| r.label.chars().count())
        .max()
        .unwrap_or(0)
        .max(8);
    let text = |c: &crate::rules::tables::GridCell| format!("{}{}", c.text, mark(c.provenance));
    if same_columns {
        let ncols = rows.first().map_or(0, |r| r.cells.len());
        let widths: Vec<usize> = (0..ncols)
            .map(|i| {
                rows.iter()
                    .filter_map(|r| r.cells.get(i))
                    .map(|c| text(c).chars().count().max(c.column.chars().count()))
                    .max()
                    .unwrap_or(1)
            })
            .collect();
        if let Some(first) = rows.first() {
            s.push_str(&format!("  {:<label_w$}", ""));
            for (c, w) in first.cells.iter().zip(&widths) {
                s.push_str(&format!("  {:>w$}", c.column));
            }
            s.push('\n');
        }
        for r in rows {
            s.push_str(&format!("  {:<label_w$}", r.label));
            for (c, w) in r.cells.iter().zip(&widths) {
                s.push_str(&format!("  {:>w$}", text(c)));
            }
            s.push('\n');
        }
    } else {
        for r in rows {
            let cells: Vec<String> = r
                .cells
                .iter()
                .map(|c| format!("{} {}", c.column, text(c)))
                .collect();
            s.push_str(&format!("  {:<label_w$}  {}\n", r.label, cells.join(", ")));
        }
    }
    s
}
