//! `staffwork study`: run a plan thousands of times (docs/studies.md), compare two plans,
//! re-run a game file with other seeds, and merge shards.
//!
//! Owns the flags, the progress bar (indicatif on stderr, only on a terminal and for long
//! runs), the text, JSON and CSV shapes and writing `--out DIR`. Must not: decide rules or
//! draw dice (that is `study`).

use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;

use super::{CmdResult, Failure};
use crate::study::run::STATUSES;
use crate::study::stats::{Hist, Summary};
use crate::study::{self, Options, Plan, RunRecord, Shard};

/// Runs at least this many get a progress bar (on a terminal, text format).
const BAR_FROM: u64 = 2_000;

/// Output of `staffwork study`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum StudyFormat {
    /// A readable summary.
    #[default]
    Text,
    /// The summary and every run's measures.
    Json,
    /// Every run's measures, one row per run.
    Csv,
}

/// `staffwork study PLAN.toml …`, `study --compare A B`, `study --db G --from-turn K`,
/// `study merge FILES…`.
#[derive(Args, Debug)]
#[command(
    args_conflicts_with_subcommands = true,
    after_help = "Examples:\n  staffwork study examples/plans/vimeiro-french-attack.toml --runs 10000 --out out/\n  \
staffwork study --compare examples/plans/vimeiro-french-attack.toml examples/plans/vimeiro-french-attack-written.toml\n  \
staffwork study --db game.db --from-turn 4 --runs 1000\n  \
staffwork study PLAN.toml --runs 1000000 --shard 3/100 --out shard-3   (then: staffwork study merge shard-*/summary.json)\n\n\
A run's dice are seeded from --seed and the run number alone: the figures do not change with --threads or --shard."
)]
pub struct StudyArgs {
    #[command(subcommand)]
    pub merge: Option<StudySub>,
    /// The plan file (TOML; see docs/studies.md).
    pub plan: Option<PathBuf>,
    /// Compare two plans: the same measures side by side, differences with 95 % intervals.
    #[arg(long, num_args = 2, value_names = ["A", "B"], conflicts_with_all = ["plan", "db"])]
    pub compare: Option<Vec<PathBuf>>,
    /// A game file: re-run its recorded commands from --from-turn with other seeds.
    #[arg(long, requires = "from_turn", conflicts_with = "plan")]
    pub db: Option<PathBuf>,
    /// The first turn re-run (with --db).
    #[arg(long, requires = "db", value_parser = clap::value_parser!(u32).range(1..))]
    pub from_turn: Option<u32>,
    /// Number of runs (of the whole study, all shards).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
    pub runs: u64,
    /// The study seed; run i uses dice seeded from (seed, i).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads (0 = one per core). The results do not depend on it.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Run only the runs i with i mod N = k−1 (for job arrays); merge the shards with `study merge`.
    #[arg(long, value_name = "k/N", value_parser = Shard::parse)]
    pub shard: Option<Shard>,
    #[arg(long, value_enum, default_value_t)]
    pub format: StudyFormat,
    /// Write summary.json, runs.csv, runs.json and the charts (SVG and Vega-Lite) here.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
pub enum StudySub {
    /// Add shard summaries (summary.json files) into the summary of the whole study, exactly.
    Merge {
        /// The shards' summary.json files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[arg(long, value_enum, default_value_t)]
        format: StudyFormat,
        /// Write the merged summary.json and the charts here.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
}

pub fn run(a: StudyArgs) -> CmdResult {
    if let Some(StudySub::Merge { files, format, out }) = a.merge {
        return merge(&files, format, out.as_deref());
    }
    if let Some(pair) = &a.compare {
        return compare(&a, &pair[0], &pair[1]);
    }
    if let (Some(db), Some(k)) = (&a.db, a.from_turn) {
        return replay(&a, db, k);
    }
    let Some(path) = &a.plan else {
        return Err(Failure::Usage(
            "give a plan file, --compare A B, --db GAME --from-turn K, or `merge FILES…`; see `staffwork study --help`".into(),
        ));
    };
    let plan = load_plan(path)?;
    let keep = a.format != StudyFormat::Text || a.out.is_some();
    let outcome = run_plan(&plan, &a, keep)?;
    if let Some(dir) = &a.out {
        write_out(dir, &outcome.summary, Some((&plan, &outcome.runs)))?;
    }
    match a.format {
        StudyFormat::Text => print!("{}", text_summary(&outcome.summary, Some(&plan))),
        StudyFormat::Json => super::emit_json(&StudyJson {
            summary: &outcome.summary,
            runs: &outcome.runs,
        })?,
        StudyFormat::Csv => print!("{}", runs_csv(&plan, &outcome.runs)),
    }
    Ok(())
}

#[derive(Serialize)]
struct StudyJson<'a> {
    summary: &'a Summary,
    runs: &'a [RunRecord],
}

fn load_plan(path: &Path) -> Result<Plan, Failure> {
    study::plan::load(path).map_err(|e| match e {
        study::PlanError::Io { .. } => Failure::Usage(e.to_string()),
        _ => {
            eprintln!("error: {e}");
            Failure::Judged
        }
    })
}

fn bar(runs: u64, format: StudyFormat) -> ProgressBar {
    if format != StudyFormat::Text || runs < BAR_FROM || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::with_draw_target(Some(runs), ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template("{bar:40} {pos}/{len} runs  {per_sec}  eta {eta}")
    {
        pb.set_style(style);
    }
    pb
}

fn run_plan(plan: &Plan, a: &StudyArgs, keep: bool) -> Result<study::Outcome, Failure> {
    let shard = a.shard.unwrap_or_else(Shard::whole);
    let held = (0..a.runs).filter(|&i| shard.holds(i)).count() as u64;
    let pb = bar(held, a.format);
    let opts = Options {
        runs: a.runs,
        seed: a.seed,
        threads: a.threads,
        shard,
        keep_runs: keep,
    };
    tracing::info!(plan = %plan.name, runs = a.runs, seed = a.seed, "study");
    let out = study::run(plan, opts, &|n| pb.set_position(n)).map_err(|e| {
        eprintln!("error: {e} (hint: {})", e.0.help);
        Failure::Judged
    })?;
    pb.finish_and_clear();
    Ok(out)
}

fn pct(x: u64, n: u64) -> String {
    if n == 0 {
        return "–".into();
    }
    format!("{:.1}%", 100.0 * x as f64 / n as f64)
}

fn turn_label(s: &Summary, t: Option<usize>) -> String {
    match t {
        Some(t) if t >= 1 => s
            .turn_labels
            .get(t - 1)
            .map_or_else(|| format!("t{t}"), |l| format!("{l} (t{t})")),
        _ => "–".into(),
    }
}

fn mean(h: &Hist) -> String {
    h.mean_var().map_or("–".into(), |(m, _)| format!("{m:.2}"))
}

/// The terminal summary.
pub fn text_summary(s: &Summary, plan: Option<&Plan>) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "Study: {} ({}), {} runs of {}, seed {}{}, turns 1–{} ({}–{})",
        s.plan,
        s.scenario,
        s.runs,
        s.runs_total,
        s.seed,
        if s.shards.len() == 1 && s.shards[0].n > 1 {
            format!(", shard {}/{}", s.shards[0].k, s.shards[0].n)
        } else {
            String::new()
        },
        s.last_turn,
        s.turn_labels.first().map_or("", String::as_str),
        s.turn_labels
            .get(s.last_turn as usize - 1)
            .map_or("", String::as_str)
    );
    if let Some(p) = plan
        && !p.description.is_empty()
    {
        let _ = writeln!(o, "{}", p.description.trim());
    }
    let _ = writeln!(o, "\nOrders (6.4–6.5)");
    let _ = writeln!(
        o,
        "  {:<24} {:<16} {:<9} {:>8} {:>8} {:>7} {:>7} {:>7} {:>7}  {:<15} {:<15} {:<15}",
        "order",
        "to",
        "method",
        "sent",
        "impl.",
        "A",
        "delay",
        "Dt",
        "found",
        "10% by",
        "median",
        "90% by"
    );
    for ord in &s.orders {
        let n = s.runs;
        let rolled: u64 = ord.results.iter().sum();
        let delayed = ord.results[1] + ord.results[2] + ord.results[3];
        // Quantiles over all runs: a run that never implements the order never reaches one.
        let q = |p: u64| match ord.implemented.reaching((n * p).div_ceil(100)) {
            Some(t) => turn_label(s, Some(t)),
            None => "never".to_string(),
        };
        let _ = writeln!(
            o,
            "  {:<24} {:<16} {:<9} {:>8} {:>8} {:>7} {:>7} {:>7} {:>7}  {:<15} {:<15} {:<15}",
            ord.id,
            ord.to,
            format!("{:?}", ord.method).to_lowercase(),
            pct(ord.sent.some(), n),
            pct(ord.implemented.some(), n),
            pct(ord.results[4], rolled),
            pct(delayed, rolled),
            pct(ord.results[0], rolled),
            pct(ord.discovery.some(), ord.distorted),
            q(10),
            q(50),
            q(90),
        );
        let _ = writeln!(
            o,
            "  {:<24} mean delay {} turns, sent→implemented {} turns, discarded {}{}",
            "",
            mean(&ord.delay),
            mean(&ord.time_to_implement),
            pct(ord.discarded, n),
            if ord.refused.is_empty() {
                String::new()
            } else {
                let r: Vec<String> = ord
                    .refused
                    .iter()
                    .map(|(c, k)| format!("{c} in {}", pct(*k, n)))
                    .collect();
                format!(", first refused: {}", r.join(", "))
            }
        );
    }
    let _ = writeln!(
        o,
        "  (sent, impl.: share of runs; A, delay, Dt: share of acceptance rolls; found: distortions discovered, 6.5.3)"
    );
    let _ = writeln!(
        o,
        "\nCommands: mean turns under each order status (6.3), local initiative (6.6), stoppage (6.7)"
    );
    let _ = writeln!(
        o,
        "  {:<18} {:>9} {:>8} {:>8} {:>8} {:>8}  {:>8} {:>8} {:>8}",
        "command",
        "no-orders",
        "ordered",
        "def-def",
        "withdr.",
        "l-cannon",
        "LC runs",
        "stopped",
        "EW runs"
    );
    for c in &s.commands {
        let m: Vec<String> = (0..STATUSES.len())
            .map(|i| mean(&c.status_turns[i]))
            .collect();
        let _ = writeln!(
            o,
            "  {:<18} {:>9} {:>8} {:>8} {:>8} {:>8}  {:>8} {:>8} {:>8}",
            c.id,
            m[0],
            m[1],
            m[2],
            m[3],
            m[4],
            pct(c.runs_with_loose_cannon, s.runs),
            pct(c.runs_with_stoppage_failure, s.runs),
            pct(c.runs_with_withdrawal, s.runs),
        );
    }
    let _ = writeln!(
        o,
        "\nVictory measures the command system knows (the scenario's VP need combat results)"
    );
    for (i, side) in s.victory.sides.iter().enumerate() {
        let _ = writeln!(
            o,
            "  {:<10} commands wrecked at the end: mean {}; commanders lost: mean {}",
            side,
            mean(&s.victory.wrecked[i]),
            mean(&s.victory.commanders_lost[i])
        );
    }
    o
}

/// Every run's measures, one row per run.
pub fn runs_csv(plan: &Plan, runs: &[RunRecord]) -> String {
    let mut o = String::from("run,seed,end_turn");
    for k in &plan.measured_orders {
        let id = &plan.orders[*k].id;
        for f in [
            "sent",
            "refused",
            "arrived",
            "result",
            "accepted",
            "implemented",
            "delay",
            "distorted",
            "discovered",
            "discarded",
        ] {
            let _ = write!(o, ",{id}.{f}");
        }
    }
    for c in &plan.measured_commands {
        for s in STATUSES {
            let _ = write!(o, ",{c}.turns_{s}");
        }
        for f in [
            "loose_cannon",
            "no_effect",
            "initiative",
            "stoppage_checks",
            "stoppage_failed",
            "withdrawals",
        ] {
            let _ = write!(o, ",{c}.{f}");
        }
    }
    for s in &plan.scenario.sides {
        let _ = write!(o, ",{0}.wrecked,{0}.commanders_lost", s.id);
    }
    o.push('\n');
    let opt = |v: Option<u32>| v.map_or(String::new(), |v| v.to_string());
    for r in runs {
        let _ = write!(o, "{},{},{}", r.run, r.seed, r.end_turn);
        for k in &plan.measured_orders {
            let x = &r.orders[*k];
            let _ = write!(
                o,
                ",{},{},{},{},{},{},{},{},{},{}",
                opt(x.sent),
                x.refused.unwrap_or(""),
                opt(x.arrived),
                x.result.map_or(String::new(), |v| format!("{v:?}")),
                opt(x.accepted),
                opt(x.implemented),
                opt(x.delay()),
                opt(x.distorted),
                opt(x.discovered),
                opt(x.discarded)
            );
        }
        for c in &r.commands {
            for v in c.status_turns {
                let _ = write!(o, ",{v}");
            }
            let _ = write!(
                o,
                ",{},{},{},{},{},{}",
                c.initiative[0],
                c.initiative[1],
                c.initiative[2],
                c.stoppage_checks,
                c.stoppage_failed,
                c.withdrawals
            );
        }
        for (w, l) in r.wrecked.iter().zip(&r.commanders_lost) {
            let _ = write!(o, ",{w},{l}");
        }
        o.push('\n');
    }
    o
}

fn write_file(dir: &Path, name: &str, contents: &str) -> Result<(), Failure> {
    let p = dir.join(name);
    std::fs::write(&p, contents)
        .map_err(|e| Failure::Usage(format!("cannot write {}: {e}", p.display())))
}

/// A compact JSON document and its newline (`runs.json`: one document of many runs); the
/// pretty documents go through `out::json`, like every JSON output.
fn compact_json<T: serde::Serialize>(value: &T) -> Result<String, Failure> {
    serde_json::to_string(value)
        .map(|s| s + "\n")
        .map_err(|e| Failure::Usage(format!("cannot encode JSON: {e}")))
}

fn write_out(dir: &Path, s: &Summary, runs: Option<(&Plan, &[RunRecord])>) -> Result<(), Failure> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Failure::Usage(format!("cannot create {}: {e}", dir.display())))?;
    let json = super::out::json(s)?;
    write_file(dir, "summary.json", &json)?;
    if let Some((plan, runs)) = runs {
        write_file(dir, "runs.csv", &runs_csv(plan, runs))?;
        write_file(dir, "runs.json", &compact_json(&runs)?)?;
    }
    for (name, contents) in study::chart::study_charts(s) {
        write_file(dir, &name, &contents)?;
    }
    tracing::info!(dir = %dir.display(), "study written");
    Ok(())
}

fn merge(files: &[PathBuf], format: StudyFormat, out: Option<&Path>) -> CmdResult {
    let mut parts = Vec::new();
    for f in files {
        let text = crate::text::read_file(f)
            .map_err(|e| Failure::Usage(format!("cannot read {}: {e}", f.display())))?;
        let s: Summary = serde_json::from_str(&text).map_err(|e| {
            eprintln!(
                "error: {}:{}:{}: not a study summary: {e} (hint: give the summary.json a shard wrote with --out)",
                f.display(),
                e.line(),
                e.column()
            );
            Failure::Judged
        })?;
        parts.push((f.display().to_string(), s));
    }
    let merged = study::stats::merge(&parts).map_err(|e| {
        eprintln!("error: {e}");
        Failure::Judged
    })?;
    if !merged.complete() {
        tracing::warn!(
            held = merged.shards.len(),
            of = merged.shards.first().map_or(1, |s| s.n),
            "not every shard is merged yet"
        );
    }
    if let Some(dir) = out {
        write_out(dir, &merged, None)?;
    }
    match format {
        StudyFormat::Text => {
            print!("{}", text_summary(&merged, None));
            let n = merged.shards.first().map_or(1, |s| s.n);
            if !merged.complete() {
                println!("\n{} of {n} shards merged.", merged.shards.len());
            }
            Ok(())
        }
        _ => super::emit_json(&merged),
    }
}

#[derive(Serialize)]
struct CompareJson<'a> {
    a: &'a Summary,
    b: &'a Summary,
    rows: &'a [study::compare::Row],
}

fn compare(a: &StudyArgs, pa: &Path, pb: &Path) -> CmdResult {
    let (plan_a, plan_b) = (load_plan(pa)?, load_plan(pb)?);
    let keep = a.out.is_some();
    let sa = run_plan(&plan_a, a, keep)?;
    let sb = run_plan(&plan_b, a, keep)?;
    let rows = study::compare::compare(&sa.summary, &sb.summary);
    if let Some(dir) = &a.out {
        write_out(&dir.join("a"), &sa.summary, Some((&plan_a, &sa.runs)))?;
        write_out(&dir.join("b"), &sb.summary, Some((&plan_b, &sb.runs)))?;
        for (name, contents) in study::chart::compare_charts(&sa.summary, &sb.summary) {
            write_file(dir, &name, &contents)?;
        }
        let json = super::out::json(&rows)?;
        write_file(dir, "compare.json", &json)?;
    }
    match a.format {
        StudyFormat::Json => super::emit_json(&CompareJson {
            a: &sa.summary,
            b: &sb.summary,
            rows: &rows,
        }),
        StudyFormat::Csv => {
            let mut o =
                String::from("subject,measure,kind,a,b,diff,low95,high95,significant,n_a,n_b\n");
            let f = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v:.6}"));
            for r in &rows {
                let _ = writeln!(
                    o,
                    "{},{},{},{},{},{},{},{},{},{},{}",
                    r.subject,
                    r.measure,
                    r.kind,
                    f(r.a),
                    f(r.b),
                    f(r.diff),
                    f(r.low),
                    f(r.high),
                    r.significant,
                    r.n_a,
                    r.n_b
                );
            }
            print!("{o}");
            Ok(())
        }
        StudyFormat::Text => {
            println!(
                "A: {} ({} runs)\nB: {} ({} runs)\nSame seeds ({}): each run number rolls the same dice stream in both plans.\n",
                sa.summary.plan, sa.summary.runs, sb.summary.plan, sb.summary.runs, a.seed
            );
            println!(
                "  {:<20} {:<28} {:>9} {:>9} {:>9}  {:<22}",
                "subject", "measure", "A", "B", "B − A", "95 % interval"
            );
            for r in &rows {
                let v = |x: Option<f64>| match (x, r.kind) {
                    (None, _) => "–".to_string(),
                    (Some(x), "proportion") => format!("{:.1}%", 100.0 * x),
                    (Some(x), _) => format!("{x:.2}"),
                };
                let d = |x: Option<f64>| match (x, r.kind) {
                    (None, _) => "–".to_string(),
                    (Some(x), "proportion") => format!("{:+.1}", 100.0 * x),
                    (Some(x), _) => format!("{x:+.2}"),
                };
                // Rows where nothing happened in either plan say nothing.
                if r.a == Some(0.0) && r.b == Some(0.0) || r.a.is_none() && r.b.is_none() {
                    continue;
                }
                println!(
                    "  {:<20} {:<28} {:>9} {:>9} {:>9}  [{}, {}]{}",
                    r.subject,
                    r.measure,
                    v(r.a),
                    v(r.b),
                    d(r.diff),
                    d(r.low),
                    d(r.high),
                    if r.significant { "  *" } else { "" }
                );
            }
            println!("\n  (proportions in points; * = the 95 % interval excludes 0)");
            Ok(())
        }
    }
}

fn replay(a: &StudyArgs, db: &Path, k: u32) -> CmdResult {
    // Re-running a game writes no files, is not sharded and has no per-run table: say so
    // rather than ignore what was asked for.
    let unsupported = [
        (a.out.is_some(), "--out (re-running a game writes no files)"),
        (
            a.shard.is_some(),
            "--shard (re-running a game is not sharded)",
        ),
        (
            a.format == StudyFormat::Csv,
            "--format csv (re-running a game has no per-run rows; use text or json)",
        ),
    ];
    if let Some((_, what)) = unsupported.iter().find(|(asked, _)| *asked) {
        return Err(Failure::Usage(format!(
            "study --db: {what}; drop it, or run a plan file for files, shards and rows"
        )));
    }
    let rec = study::replay::load(db, k).map_err(|e| match e {
        study::replay::ReplayError::NoCommands { .. } => {
            eprintln!("error: {e} (hint: give an earlier --from-turn)");
            Failure::Judged
        }
        other => Failure::Usage(other.to_string()),
    })?;
    let s = study::replay::study(&rec, a.runs, a.seed, a.threads);
    match a.format {
        StudyFormat::Text => {
            println!(
                "Re-ran {} recorded commands from turn {} of {} with {} other seeds (study seed {}; the game's is {}).",
                s.commands_replayed,
                s.from_turn,
                db.display(),
                s.runs,
                s.seed,
                s.recorded_seed
            );
            println!(
                "  agreed to the end: {} ({})\n  diverged: {} ({})",
                s.agreed,
                pct(s.agreed, s.runs),
                s.diverged,
                pct(s.diverged, s.runs)
            );
            for d in &s.divergences {
                println!(
                    "  {:>6} runs at command {} ({}) in turn {}: {} [{}{}] e.g. run {}: {}",
                    d.runs,
                    d.command_seq,
                    d.command,
                    d.turn,
                    d.code,
                    if d.rule.is_empty() { "" } else { "rule " },
                    d.rule,
                    d.example_run,
                    d.message
                );
            }
            Ok(())
        }
        _ => super::emit_json(&s),
    }
}
