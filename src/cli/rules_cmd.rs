//! `staffwork rules show [TABLE]`: print the command tables with the provenance of every cell,
//! assumed cells marked, and the list of every assumed cell.
//!
//! Owns: the text layout and the JSON shape of the tables (docs/rules.md). Must not: parse or
//! validate tables itself (that is `rules::tables`).

use std::path::PathBuf;

use clap::{Subcommand, ValueEnum};
use serde::Serialize;

use super::odds_cmd::{LEGEND, emit, emit_json, load_tables, mark};
use super::{CmdResult, Format};
use crate::rules::tables::{CellRef, Grid, TableId};

#[derive(Subcommand, Debug)]
pub enum RulesCmd {
    /// Print the command tables of chart p1 (all, or one), with provenance; assumed cells are
    /// marked `*` and listed.
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

/// A table of chart p1.
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
}

impl From<TableArg> for TableId {
    fn from(t: TableArg) -> TableId {
        match t {
            TableArg::CommandPoints => TableId::CommandPoints,
            TableArg::OrderCost => TableId::OrderCost,
            TableArg::AcceptanceModifiers => TableId::AcceptanceModifiers,
            TableArg::Acceptance => TableId::Acceptance,
            TableArg::Delay => TableId::Delay,
            TableArg::Initiative => TableId::Initiative,
            TableArg::StoppageStep1 => TableId::StoppageStep1,
            TableArg::StoppageStep2 => TableId::StoppageStep2,
            TableArg::Night => TableId::Night,
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
            let t = load_tables(tables.as_deref(), format)?;
            let wanted: Vec<TableId> = match table {
                Some(x) => vec![x.into()],
                None => TableId::ALL.to_vec(),
            };
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
    let mut s = format!(
        "{} ({}) [{}]{}\n",
        g.title,
        g.rule,
        g.name,
        if g.overridden { " (overridden)" } else { "" }
    );
    let same_columns = g.rows.windows(2).all(|w| {
        w[0].cells.len() == w[1].cells.len()
            && w[0]
                .cells
                .iter()
                .zip(&w[1].cells)
                .all(|(a, b)| a.column == b.column)
    });
    let label_w = g
        .rows
        .iter()
        .map(|r| r.label.chars().count())
        .max()
        .unwrap_or(0)
        .max(8);
    let text = |c: &crate::rules::tables::GridCell| format!("{}{}", c.text, mark(c.provenance));
    if same_columns {
        let ncols = g.rows.first().map_or(0, |r| r.cells.len());
        let widths: Vec<usize> = (0..ncols)
            .map(|i| {
                g.rows
                    .iter()
                    .filter_map(|r| r.cells.get(i))
                    .map(|c| text(c).chars().count().max(c.column.chars().count()))
                    .max()
                    .unwrap_or(1)
            })
            .collect();
        if let Some(first) = g.rows.first() {
            s.push_str(&format!("  {:<label_w$}", ""));
            for (c, w) in first.cells.iter().zip(&widths) {
                s.push_str(&format!("  {:>w$}", c.column));
            }
            s.push('\n');
        }
        for r in &g.rows {
            s.push_str(&format!("  {:<label_w$}", r.label));
            for (c, w) in r.cells.iter().zip(&widths) {
                s.push_str(&format!("  {:>w$}", text(c)));
            }
            s.push('\n');
        }
    } else {
        for r in &g.rows {
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
