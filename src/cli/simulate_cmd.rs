//! `staffwork simulate acceptance|initiative|stoppage`: draw N checks with the game's seeded
//! dice and print the observed frequencies beside the exact odds.
//!
//! Owns: the flags (`--trials`, `--seed`, plus those of `odds`), the progress bar on stderr
//! (indicatif; hidden when stderr is not a terminal, for short runs, and with `--format json`),
//! and the text and JSON shapes. Must not: draw dice other than through
//! `rules::simulate` with `SeededDice`.

use std::io::IsTerminal;

use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;

use super::odds_cmd::{AcceptanceArgs, InitiativeArgs, StoppageArgs, load_tables, pct};
use super::{CmdResult, Failure, Format, emit, emit_json};
use crate::rules::dice::SeededDice;
use crate::rules::odds;
use crate::rules::simulate::{self, within_sigmas};
use crate::rules::tables::initiative_label;

/// Standard errors within which an observed frequency counts as agreeing with the exact odds.
const SIGMAS: u64 = 5;
/// Runs at least this long get a progress bar (on a terminal, text format).
const BAR_FROM: u64 = 100_000;

#[derive(Subcommand, Debug)]
pub enum SimulateCmd {
    /// Draw New Order Acceptance checks (6.5) with delay reduction (6.5.2).
    Acceptance {
        #[command(flatten)]
        check: AcceptanceArgs,
        #[command(flatten)]
        run: RunArgs,
    },
    /// Draw Initiative rolls (6.6.1.3).
    Initiative {
        #[command(flatten)]
        check: InitiativeArgs,
        #[command(flatten)]
        run: RunArgs,
    },
    /// Draw Attack Stoppage checks (6.7.2).
    Stoppage {
        #[command(flatten)]
        check: StoppageArgs,
        #[command(flatten)]
        run: RunArgs,
    },
}

/// How many draws, from which seed.
#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    /// Number of checks to draw (1 to 10⁹).
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
    pub trials: u64,
    /// The game seed for the dice.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// One line of comparison: exact count over its denominator, observed count over trials.
#[derive(Serialize)]
struct Row {
    label: String,
    exact: u64,
    exact_out_of: u64,
    observed: u64,
    trials: u64,
    within_5_sigma: bool,
}

#[derive(Serialize)]
struct SimJson<'a, O: Serialize> {
    check: &'static str,
    trials: u64,
    seed: u64,
    tables_hash: String,
    rows: &'a [Row],
    all_within_5_sigma: bool,
    exact: &'a O,
}

fn row(label: String, exact: u64, den: u64, observed: u64, trials: u64) -> Row {
    Row {
        label,
        exact,
        exact_out_of: den,
        observed,
        trials,
        within_5_sigma: within_sigmas(observed, trials, exact, den, SIGMAS),
    }
}

fn progress_bar(trials: u64, format: Format) -> ProgressBar {
    if format == Format::Json || trials < BAR_FROM || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::with_draw_target(Some(trials), ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template("{bar:40} {pos}/{len} checks  {per_sec}  eta {eta}")
    {
        pb.set_style(style);
    }
    pb
}

pub fn run(cmd: SimulateCmd) -> CmdResult {
    match cmd {
        SimulateCmd::Acceptance { check, run } => {
            let format = check.common.format;
            let t = load_tables(check.common.tables.as_deref(), format)?;
            let exact = odds::acceptance(&t, check.query());
            let pb = progress_bar(run.trials, format);
            let mut dice = SeededDice::new(run.seed);
            let sim = simulate::acceptance(
                &t,
                exact.acceptance_number,
                run.trials,
                &mut dice,
                &mut |n| pb.set_position(n),
            )
            .map_err(|e| Failure::Usage(e.to_string()))?;
            pb.finish_and_clear();
            let mut rows: Vec<Row> = exact
                .counts
                .iter()
                .zip(sim.counts)
                .map(|(c, o)| row(c.result.to_string(), u64::from(c.count), 36, o, run.trials))
                .collect();
            rows.extend(
                exact
                    .by_turn
                    .iter()
                    .zip(sim.accepted_by_turn)
                    .map(|(b, o)| {
                        row(
                            format!("accepted by turn {}", b.turn),
                            b.accepted,
                            exact.by_turn_denominator,
                            o,
                            run.trials,
                        )
                    }),
            );
            finish("acceptance", &run, &t.hash(), &rows, &exact, format)
        }
        SimulateCmd::Initiative { check, run } => {
            let format = check.common.format;
            let t = load_tables(check.common.tables.as_deref(), format)?;
            let exact = odds::initiative(&t, i32::from(check.rating), check.general);
            let pb = progress_bar(run.trials, format);
            let mut dice = SeededDice::new(run.seed);
            let sim =
                simulate::initiative(&t, exact.column_used, run.trials, &mut dice, &mut |n| {
                    pb.set_position(n)
                })
                .map_err(|e| Failure::Usage(e.to_string()))?;
            pb.finish_and_clear();
            let rows: Vec<Row> = exact
                .counts
                .iter()
                .zip(sim.counts)
                .map(|(c, o)| {
                    row(
                        initiative_label(c.result).into(),
                        u64::from(c.count),
                        36,
                        o,
                        run.trials,
                    )
                })
                .collect();
            finish("initiative", &run, &t.hash(), &rows, &exact, format)
        }
        SimulateCmd::Stoppage { check, run } => {
            check.check()?;
            let format = check.common.format;
            let t = load_tables(check.common.tables.as_deref(), format)?;
            let exact = odds::stoppage(
                &t,
                check.sub_units,
                check.wrecked,
                check.rating,
                check.night,
            );
            let pb = progress_bar(run.trials, format);
            let mut dice = SeededDice::new(run.seed);
            let sim = simulate::stoppage(
                exact.needed,
                exact.roll_modifier,
                run.trials,
                &mut dice,
                &mut |n| pb.set_position(n),
            )
            .map_err(|e| Failure::Usage(e.to_string()))?;
            pb.finish_and_clear();
            let rows = vec![
                row(
                    "pass".into(),
                    u64::from(exact.pass),
                    36,
                    sim.pass,
                    run.trials,
                ),
                row(
                    "stop".into(),
                    u64::from(36 - exact.pass),
                    36,
                    run.trials - sim.pass,
                    run.trials,
                ),
            ];
            finish("stoppage", &run, &t.hash(), &rows, &exact, format)
        }
    }
}

fn finish<O: Serialize>(
    check: &'static str,
    run: &RunArgs,
    hash: &str,
    rows: &[Row],
    exact: &O,
    format: Format,
) -> CmdResult {
    let all = rows.iter().all(|r| r.within_5_sigma);
    match format {
        Format::Json => emit_json(&SimJson {
            check,
            trials: run.trials,
            seed: run.seed,
            tables_hash: hash.to_string(),
            rows,
            all_within_5_sigma: all,
            exact,
        }),
        Format::Text => {
            let mut s = format!(
                "simulate {check}: {} trials, seed {} (SeededDice)\n\n",
                run.trials, run.seed
            );
            let w = rows.iter().map(|r| r.label.len()).max().unwrap_or(0);
            s.push_str(&format!(
                "  {:<w$}  {:>8}  {:>8}  within 5σ\n",
                "", "exact", "observed"
            ));
            for r in rows {
                s.push_str(&format!(
                    "  {:<w$}  {:>8}  {:>8}  {}\n",
                    r.label,
                    pct(r.exact, r.exact_out_of),
                    pct(r.observed, r.trials),
                    if r.within_5_sigma { "yes" } else { "NO" }
                ));
            }
            s.push_str(if all {
                "\nall observed frequencies are within 5 standard errors of the exact odds\n"
            } else {
                "\nsome observed frequencies are more than 5 standard errors from the exact odds\n"
            });
            emit(&s)
        }
    }
}
