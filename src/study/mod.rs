//! What-if studies (issue 16): run a plan (orders, initiative rolls, umpire events) thousands
//! of times with independent, reproducible dice, and count what the command system did.
//!
//! Owns the plan format (`plan`), one run held in memory (`run`), the integer summaries and
//! their exact merge (`stats`), comparisons with 95 % intervals (`compare`), re-running a
//! recorded game with other seeds (`replay`) and the charts (`chart`, SVG and Vega-Lite).
//! Must not: print, touch SQLite in the hot loop (a game file is read once, in `replay`), or
//! draw dice other than from each run's own seed. Runs are spread over threads with rayon; the
//! results do not depend on the number of threads or shards (integer sums, runs in run order).

pub mod chart;
pub mod compare;
pub mod plan;
pub mod replay;
pub mod run;
pub mod stats;

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

pub use plan::{Plan, PlanError};
pub use run::{RunError, RunRecord};
pub use stats::{Shard, Summary};

use crate::engine::Engine;
use crate::rules::tables::CommandTables;

/// How many runs, from which seed, on how many threads, which shard.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub runs: u64,
    pub seed: u64,
    /// 0 = one per core.
    pub threads: usize,
    pub shard: Shard,
    /// Keep every run's record (for `--format json|csv` and `--out`).
    pub keep_runs: bool,
}

/// A study's outcome: the summary and, if asked for, every run's record in run order.
pub struct Outcome {
    pub summary: Summary,
    pub runs: Vec<RunRecord>,
}

/// The engine a plan runs on: its scenario, the built-in command and combat tables.
pub fn engine(plan: &Plan) -> Engine<'_> {
    Engine::new(&plan.scenario, CommandTables::nbs())
}

/// Run the study. `progress` is called with the number of runs finished so far (from any
/// thread; at most every 64 runs and at the end).
pub fn run(
    plan: &Plan,
    opts: Options,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Outcome, RunError> {
    let engine = engine(plan);
    // The start is the same command in every run: a refusal refuses them all, so find it once.
    run::play(plan, &engine, opts.seed, 0)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.threads)
        .build()
        .map_err(|e| {
            RunError(crate::engine::Refusal {
                code: "threads",
                rule: "",
                message: e.to_string(),
                help: "give a smaller --threads".into(),
            })
        })?;
    let done = AtomicU64::new(0);
    let shard = opts.shard;
    let empty = Summary::empty(plan, opts.seed, opts.runs, shard);
    let (mut summary, mut runs) = pool.install(|| {
        (0..opts.runs)
            .into_par_iter()
            .filter(|&i| shard.holds(i))
            .fold(
                || (empty.clone(), Vec::new()),
                |(mut s, mut v), i| {
                    // The start was decided above with the same command: it cannot be refused.
                    if let Ok(r) = run::play(plan, &engine, opts.seed, i) {
                        s.add(plan, &r);
                        if opts.keep_runs {
                            v.push(r);
                        }
                    }
                    let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                    if n.is_multiple_of(64) {
                        progress(n);
                    }
                    (s, v)
                },
            )
            .reduce(
                || (empty.clone(), Vec::new()),
                |(a, mut va), (b, vb)| {
                    va.extend(vb);
                    (a.combine(&b), va)
                },
            )
    });
    summary.shards = vec![shard];
    runs.sort_by_key(|r| r.run);
    progress(done.load(Ordering::Relaxed));
    Ok(Outcome { summary, runs })
}
