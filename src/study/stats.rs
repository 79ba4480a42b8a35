//! A study's results as integer counts: histograms per measure, so that shards add up exactly
//! (`merge`) and every mean, proportion and interval is computed from the same counts.
//!
//! Owns the summary shape (the JSON a shard writes and `study merge` reads), folding run
//! records into it, merging, and the intervals of `--compare`. Must not print or run the
//! engine. Floating point appears only in the derived figures (means, intervals), never in the
//! counts.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::plan::Plan;
use super::run::{RunRecord, STATUSES};
use crate::rules::AcceptanceResult;

/// Version of the summary format; `merge` refuses others.
pub const FORMAT: u32 = 1;

/// Counts of a small non-negative integer measure: `bins[v]` runs had value `v`; `none` runs
/// never had it (an order never implemented).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hist {
    pub bins: Vec<u64>,
    pub none: u64,
}

impl Hist {
    pub fn add(&mut self, v: Option<u32>) {
        match v {
            None => self.none += 1,
            Some(v) => {
                let v = v as usize;
                if self.bins.len() <= v {
                    self.bins.resize(v + 1, 0);
                }
                self.bins[v] += 1;
            }
        }
    }

    pub fn merge(&mut self, o: &Hist) {
        if self.bins.len() < o.bins.len() {
            self.bins.resize(o.bins.len(), 0);
        }
        for (a, b) in self.bins.iter_mut().zip(&o.bins) {
            *a += b;
        }
        self.none += o.none;
    }

    /// Runs with a value.
    pub fn some(&self) -> u64 {
        self.bins.iter().sum()
    }

    /// Runs with a value ≤ `v`.
    pub fn at_most(&self, v: usize) -> u64 {
        self.bins.iter().take(v + 1).sum()
    }

    /// Mean and sample variance of the values present.
    pub fn mean_var(&self) -> Option<(f64, f64)> {
        let n = self.some();
        if n == 0 {
            return None;
        }
        let (mut s, mut s2) = (0u128, 0u128);
        for (v, c) in self.bins.iter().enumerate() {
            let (v, c) = (v as u128, u128::from(*c));
            s += v * c;
            s2 += v * v * c;
        }
        let nf = n as f64;
        let mean = s as f64 / nf;
        let var = if n > 1 {
            (s2 as f64 - (s as f64) * mean) / (nf - 1.0)
        } else {
            0.0
        };
        Some((mean, var.max(0.0)))
    }

    /// The smallest value `v` such that at least `need` runs have a value ≤ `v` (a quantile
    /// over all runs, counting runs without a value as never reaching one).
    pub fn reaching(&self, need: u64) -> Option<usize> {
        let need = need.max(1);
        let mut acc = 0;
        for (v, c) in self.bins.iter().enumerate() {
            acc += c;
            if acc >= need {
                return Some(v);
            }
        }
        None
    }
}

/// One plan order over all runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderStats {
    pub id: String,
    pub to: String,
    pub method: crate::rules::Method,
    /// Turn sent (later than planned when the engine refused it at first).
    pub sent: Hist,
    pub arrived: Hist,
    pub accepted: Hist,
    pub implemented: Hist,
    /// Turns from arrival to acceptance (6.5.2).
    pub delay: Hist,
    /// Turns from sending to implementation.
    pub time_to_implement: Hist,
    /// Acceptance results: Dt, D6, D5, D4, A (6.5); runs without a roll are not counted.
    pub results: [u64; 5],
    pub distorted: u64,
    /// Turns from distortion to discovery (6.5.3); `none` = never discovered.
    pub discovery: Hist,
    pub discarded: u64,
    /// First refusals by code (the order went out later, or never).
    pub refused: BTreeMap<String, u64>,
}

/// One command over all runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandStats {
    pub id: String,
    /// Per status of [`STATUSES`]: histogram of the turns spent under it.
    pub status_turns: Vec<Hist>,
    /// Initiative rolls: Loose Cannon, No Effect, Initiative.
    pub initiative: [u64; 3],
    pub runs_with_loose_cannon: u64,
    pub stoppage_checks: u64,
    pub stoppage_failed: u64,
    pub runs_with_stoppage_failure: u64,
    pub withdrawals: u64,
    pub runs_with_withdrawal: u64,
}

/// What the scenario's victory conditions can use that the command system knows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VictoryStats {
    pub sides: Vec<String>,
    /// Per side: commands wrecked at the end (21.6).
    pub wrecked: Vec<Hist>,
    /// Per side: commanders lost (25).
    pub commanders_lost: Vec<Hist>,
    pub end_turn: Hist,
}

/// Which slice of the run numbers a summary holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Shard {
    /// 1-based.
    pub k: u32,
    pub n: u32,
}

impl Shard {
    pub fn whole() -> Shard {
        Shard { k: 1, n: 1 }
    }

    /// Does run `run` belong to this shard? Run numbers are dealt round-robin.
    pub fn holds(self, run: u64) -> bool {
        run % u64::from(self.n) == u64::from(self.k - 1)
    }

    /// Parse `k/N`.
    pub fn parse(s: &str) -> Result<Shard, String> {
        let (k, n) = s
            .split_once('/')
            .ok_or_else(|| format!("`{s}` is not k/N (e.g. 3/100)"))?;
        let k: u32 = k
            .trim()
            .parse()
            .map_err(|_| format!("`{k}` is not a number"))?;
        let n: u32 = n
            .trim()
            .parse()
            .map_err(|_| format!("`{n}` is not a number"))?;
        if n == 0 || k == 0 || k > n {
            return Err(format!("shard {k}/{n}: need 1 ≤ k ≤ N"));
        }
        Ok(Shard { k, n })
    }
}

/// A study's results.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    pub format: u32,
    pub plan: String,
    pub plan_hash: String,
    pub scenario: String,
    pub seed: u64,
    /// Runs of the whole study (all shards).
    pub runs_total: u64,
    /// The shards held, sorted (all of them after a complete merge).
    pub shards: Vec<Shard>,
    /// Runs held.
    pub runs: u64,
    pub last_turn: u32,
    pub turn_labels: Vec<String>,
    pub orders: Vec<OrderStats>,
    pub commands: Vec<CommandStats>,
    pub victory: VictoryStats,
}

const RESULTS: [AcceptanceResult; 5] = [
    AcceptanceResult::Dt,
    AcceptanceResult::D6,
    AcceptanceResult::D5,
    AcceptanceResult::D4,
    AcceptanceResult::A,
];

impl Summary {
    /// An empty summary of `plan`.
    pub fn empty(plan: &Plan, seed: u64, runs_total: u64, shard: Shard) -> Summary {
        Summary {
            format: FORMAT,
            plan: plan.name.clone(),
            plan_hash: plan.hash.clone(),
            scenario: plan.scenario.meta.id.clone(),
            seed,
            runs_total,
            shards: vec![shard],
            runs: 0,
            last_turn: plan.last_turn,
            turn_labels: plan.turn_labels.clone(),
            orders: plan
                .measured_orders
                .iter()
                .map(|&k| {
                    let o = &plan.orders[k];
                    OrderStats {
                        id: o.id.clone(),
                        to: o.to.clone(),
                        method: o.method,
                        sent: Hist::default(),
                        arrived: Hist::default(),
                        accepted: Hist::default(),
                        implemented: Hist::default(),
                        delay: Hist::default(),
                        time_to_implement: Hist::default(),
                        results: [0; 5],
                        distorted: 0,
                        discovery: Hist::default(),
                        discarded: 0,
                        refused: BTreeMap::new(),
                    }
                })
                .collect(),
            commands: plan
                .measured_commands
                .iter()
                .map(|id| CommandStats {
                    id: id.clone(),
                    status_turns: vec![Hist::default(); STATUSES.len()],
                    initiative: [0; 3],
                    runs_with_loose_cannon: 0,
                    stoppage_checks: 0,
                    stoppage_failed: 0,
                    runs_with_stoppage_failure: 0,
                    withdrawals: 0,
                    runs_with_withdrawal: 0,
                })
                .collect(),
            victory: VictoryStats {
                sides: plan.scenario.sides.iter().map(|s| s.id.clone()).collect(),
                wrecked: vec![Hist::default(); plan.scenario.sides.len()],
                commanders_lost: vec![Hist::default(); plan.scenario.sides.len()],
                end_turn: Hist::default(),
            },
        }
    }

    /// Fold one run in. `plan` must be the plan the summary was made from.
    pub fn add(&mut self, plan: &Plan, r: &RunRecord) {
        self.runs += 1;
        for (s, &k) in self.orders.iter_mut().zip(&plan.measured_orders) {
            let o = &r.orders[k];
            s.sent.add(o.sent);
            s.arrived.add(o.arrived);
            s.accepted.add(o.accepted);
            s.implemented.add(o.implemented);
            s.delay.add(o.delay());
            s.time_to_implement
                .add(o.implemented.zip(o.sent).map(|(i, t)| i.saturating_sub(t)));
            if let Some(res) = o.result
                && let Some(i) = RESULTS.iter().position(|x| *x == res)
            {
                s.results[i] += 1;
            }
            if let Some(d) = o.distorted {
                s.distorted += 1;
                s.discovery.add(o.discovered.map(|t| t.saturating_sub(d)));
            }
            s.discarded += u64::from(o.discarded.is_some());
            if let Some(code) = o.refused {
                *s.refused.entry(code.to_string()).or_default() += 1;
            }
        }
        for (s, c) in self.commands.iter_mut().zip(&r.commands) {
            for (h, v) in s.status_turns.iter_mut().zip(c.status_turns) {
                h.add(Some(v));
            }
            for (a, b) in s.initiative.iter_mut().zip(c.initiative) {
                *a += u64::from(b);
            }
            s.runs_with_loose_cannon += u64::from(c.initiative[0] > 0);
            s.stoppage_checks += u64::from(c.stoppage_checks);
            s.stoppage_failed += u64::from(c.stoppage_failed);
            s.runs_with_stoppage_failure += u64::from(c.stoppage_failed > 0);
            s.withdrawals += u64::from(c.withdrawals);
            s.runs_with_withdrawal += u64::from(c.withdrawals > 0);
        }
        for (h, v) in self.victory.wrecked.iter_mut().zip(&r.wrecked) {
            h.add(Some(*v));
        }
        for (h, v) in self
            .victory
            .commanders_lost
            .iter_mut()
            .zip(&r.commanders_lost)
        {
            h.add(Some(*v));
        }
        self.victory.end_turn.add(Some(r.end_turn));
    }

    /// Add another summary's counts (sums of integers: the order of merging never matters).
    fn add_counts(&mut self, o: &Summary) {
        self.runs += o.runs;
        for (a, b) in self.orders.iter_mut().zip(&o.orders) {
            for (x, y) in [
                (&mut a.sent, &b.sent),
                (&mut a.arrived, &b.arrived),
                (&mut a.accepted, &b.accepted),
                (&mut a.implemented, &b.implemented),
                (&mut a.delay, &b.delay),
                (&mut a.time_to_implement, &b.time_to_implement),
                (&mut a.discovery, &b.discovery),
            ] {
                x.merge(y);
            }
            for (x, y) in a.results.iter_mut().zip(b.results) {
                *x += y;
            }
            a.distorted += b.distorted;
            a.discarded += b.discarded;
            for (code, n) in &b.refused {
                *a.refused.entry(code.clone()).or_default() += n;
            }
        }
        for (a, b) in self.commands.iter_mut().zip(&o.commands) {
            for (x, y) in a.status_turns.iter_mut().zip(&b.status_turns) {
                x.merge(y);
            }
            for (x, y) in a.initiative.iter_mut().zip(b.initiative) {
                *x += y;
            }
            a.runs_with_loose_cannon += b.runs_with_loose_cannon;
            a.stoppage_checks += b.stoppage_checks;
            a.stoppage_failed += b.stoppage_failed;
            a.runs_with_stoppage_failure += b.runs_with_stoppage_failure;
            a.withdrawals += b.withdrawals;
            a.runs_with_withdrawal += b.runs_with_withdrawal;
        }
        for (x, y) in self.victory.wrecked.iter_mut().zip(&o.victory.wrecked) {
            x.merge(y);
        }
        for (x, y) in self
            .victory
            .commanders_lost
            .iter_mut()
            .zip(&o.victory.commanders_lost)
        {
            x.merge(y);
        }
        self.victory.end_turn.merge(&o.victory.end_turn);
    }

    /// The summary of two disjoint parts of the same study (threads of one shard).
    pub fn combine(mut self, o: &Summary) -> Summary {
        self.add_counts(o);
        self
    }

    /// The same study with every count at zero and no shard.
    fn zeroed(&self) -> Summary {
        let mut z = self.clone();
        z.runs = 0;
        z.shards.clear();
        let clear = |h: &mut Hist| *h = Hist::default();
        for o in &mut z.orders {
            for h in [
                &mut o.sent,
                &mut o.arrived,
                &mut o.accepted,
                &mut o.implemented,
                &mut o.delay,
                &mut o.time_to_implement,
                &mut o.discovery,
            ] {
                clear(h);
            }
            o.results = [0; 5];
            o.distorted = 0;
            o.discarded = 0;
            o.refused.clear();
        }
        for c in &mut z.commands {
            c.status_turns.iter_mut().for_each(clear);
            c.initiative = [0; 3];
            c.runs_with_loose_cannon = 0;
            c.stoppage_checks = 0;
            c.stoppage_failed = 0;
            c.runs_with_stoppage_failure = 0;
            c.withdrawals = 0;
            c.runs_with_withdrawal = 0;
        }
        z.victory.wrecked.iter_mut().for_each(clear);
        z.victory.commanders_lost.iter_mut().for_each(clear);
        clear(&mut z.victory.end_turn);
        z
    }

    /// Are all shards present?
    pub fn complete(&self) -> bool {
        let n = self.shards.first().map_or(1, |s| s.n);
        self.shards.len() as u32 == n
    }
}

/// Why shards do not merge.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {message} (hint: {hint})")]
pub struct MergeError {
    pub file: String,
    pub message: String,
    pub hint: String,
}

/// Merge shard summaries of one study: same format, plan, seed, total and shard count; no
/// shard twice. `names` label the errors.
pub fn merge(parts: &[(String, Summary)]) -> Result<Summary, MergeError> {
    let Some((_, first)) = parts.first() else {
        return Err(MergeError {
            file: "(none)".into(),
            message: "nothing to merge".into(),
            hint: "give the shard files written with --out".into(),
        });
    };
    for (name, p) in parts {
        let bad = |message: String, hint: &str| MergeError {
            file: name.clone(),
            message,
            hint: hint.into(),
        };
        if p.format != FORMAT {
            return Err(bad(
                format!("summary format {} (expected {FORMAT})", p.format),
                "re-run the shard with this version",
            ));
        }
        if p.plan_hash != first.plan_hash {
            return Err(bad(
                format!(
                    "plan `{}` differs from `{}` (plan or scenario text changed)",
                    p.plan, first.plan
                ),
                "merge only shards of the same plan file",
            ));
        }
        if p.seed != first.seed || p.runs_total != first.runs_total {
            return Err(bad(
                format!(
                    "seed {} / {} runs differs from seed {} / {} runs",
                    p.seed, p.runs_total, first.seed, first.runs_total
                ),
                "run every shard with the same --seed and --runs",
            ));
        }
        let n = first.shards[0].n;
        if p.shards.iter().any(|s| s.n != n) {
            return Err(bad(
                format!("shards of {} do not match shards of {n}", p.shards[0].n),
                "run every shard with the same N in --shard k/N",
            ));
        }
    }
    let mut acc = first.zeroed();
    for (name, p) in parts {
        for s in &p.shards {
            if acc.shards.contains(s) {
                return Err(MergeError {
                    file: name.clone(),
                    message: format!("shard {}/{} is given twice", s.k, s.n),
                    hint: "give each shard's file once".into(),
                });
            }
            acc.shards.push(*s);
        }
        acc.add_counts(p);
    }
    acc.shards.sort();
    Ok(acc)
}
