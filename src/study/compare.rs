//! `study --compare A B`: the same measures of two plans side by side, each difference with a
//! 95 % interval, so "written instead of oral" reads as a number.
//!
//! Owns the rows of a comparison. Proportions use the normal (Wald) interval of a difference
//! of two independent proportions, means Welch's: both runs use the same run seeds, which makes
//! the plans' dice common and the stated intervals conservative (decision 0101). Must not print.

use serde::Serialize;

use super::run::STATUSES;
use super::stats::{Hist, Summary};

/// z for a two-sided 95 % interval.
const Z95: f64 = 1.959_963_984_540_054;

/// One measure of one order or command in both plans.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// Order id, command id or side.
    pub subject: String,
    pub measure: String,
    /// `proportion` (0..1) or `mean` (turns or counts).
    pub kind: &'static str,
    pub a: Option<f64>,
    pub b: Option<f64>,
    /// b − a.
    pub diff: Option<f64>,
    pub low: Option<f64>,
    pub high: Option<f64>,
    /// The interval excludes 0.
    pub significant: bool,
    pub n_a: u64,
    pub n_b: u64,
}

/// The square root of a variance (the one floating-point function the study uses; the study is
/// reporting, not rules, so clippy.toml's engine ban is lifted here alone).
#[allow(clippy::disallowed_methods)]
fn root(v: f64) -> f64 {
    v.sqrt()
}

fn prop_row(subject: &str, measure: &str, (xa, na): (u64, u64), (xb, nb): (u64, u64)) -> Row {
    let p = |x: u64, n: u64| (n > 0).then(|| x as f64 / n as f64);
    let (a, b) = (p(xa, na), p(xb, nb));
    let (diff, low, high) = match (a, b) {
        (Some(a), Some(b)) => {
            let se = root(a * (1.0 - a) / na as f64 + b * (1.0 - b) / nb as f64);
            let d = b - a;
            (Some(d), Some(d - Z95 * se), Some(d + Z95 * se))
        }
        _ => (None, None, None),
    };
    finish(
        subject,
        measure,
        "proportion",
        a,
        b,
        diff,
        low,
        high,
        na,
        nb,
    )
}

fn mean_row(subject: &str, measure: &str, ha: &Hist, hb: &Hist) -> Row {
    let (ma, mb) = (ha.mean_var(), hb.mean_var());
    let (na, nb) = (ha.some(), hb.some());
    let (diff, low, high) = match (ma, mb) {
        (Some((a, va)), Some((b, vb))) => {
            let se = root(va / na as f64 + vb / nb as f64);
            let d = b - a;
            (Some(d), Some(d - Z95 * se), Some(d + Z95 * se))
        }
        _ => (None, None, None),
    };
    finish(
        subject,
        measure,
        "mean",
        ma.map(|x| x.0),
        mb.map(|x| x.0),
        diff,
        low,
        high,
        na,
        nb,
    )
}

#[allow(clippy::too_many_arguments)]
fn finish(
    subject: &str,
    measure: &str,
    kind: &'static str,
    a: Option<f64>,
    b: Option<f64>,
    diff: Option<f64>,
    low: Option<f64>,
    high: Option<f64>,
    n_a: u64,
    n_b: u64,
) -> Row {
    let significant = matches!((low, high), (Some(l), Some(h)) if l > 0.0 || h < 0.0);
    Row {
        subject: subject.to_string(),
        measure: measure.to_string(),
        kind,
        a,
        b,
        diff,
        low,
        high,
        significant,
        n_a,
        n_b,
    }
}

/// Compare two summaries: every order and command the two plans share (by id), and the
/// victory measures of each side.
pub fn compare(a: &Summary, b: &Summary) -> Vec<Row> {
    let mut rows = Vec::new();
    for oa in &a.orders {
        let Some(ob) = b.orders.iter().find(|o| o.id == oa.id) else {
            continue;
        };
        let (na, nb) = (a.runs, b.runs);
        let id = oa.id.as_str();
        rows.push(prop_row(
            id,
            "implemented",
            (oa.implemented.some(), na),
            (ob.implemented.some(), nb),
        ));
        rows.push(prop_row(
            id,
            "accepted on arrival (all runs)",
            (oa.results[4], na),
            (ob.results[4], nb),
        ));
        rows.push(prop_row(
            id,
            "distorted (Dt)",
            (oa.distorted, na),
            (ob.distorted, nb),
        ));
        rows.push(mean_row(
            id,
            "turn implemented",
            &oa.implemented,
            &ob.implemented,
        ));
        rows.push(mean_row(
            id,
            "turns sent → implemented",
            &oa.time_to_implement,
            &ob.time_to_implement,
        ));
        rows.push(mean_row(id, "delay (turns)", &oa.delay, &ob.delay));
    }
    for ca in &a.commands {
        let Some(cb) = b.commands.iter().find(|c| c.id == ca.id) else {
            continue;
        };
        let (na, nb) = (a.runs, b.runs);
        let id = ca.id.as_str();
        rows.push(prop_row(
            id,
            "loose cannon",
            (ca.runs_with_loose_cannon, na),
            (cb.runs_with_loose_cannon, nb),
        ));
        rows.push(prop_row(
            id,
            "attack stopped",
            (ca.runs_with_stoppage_failure, na),
            (cb.runs_with_stoppage_failure, nb),
        ));
        rows.push(prop_row(
            id,
            "emergency withdrawal",
            (ca.runs_with_withdrawal, na),
            (cb.runs_with_withdrawal, nb),
        ));
        for (i, s) in STATUSES.iter().enumerate() {
            rows.push(mean_row(
                id,
                &format!("turns {s}"),
                &ca.status_turns[i],
                &cb.status_turns[i],
            ));
        }
    }
    for (i, side) in a.victory.sides.iter().enumerate() {
        if let (Some(wa), Some(wb)) = (a.victory.wrecked.get(i), b.victory.wrecked.get(i)) {
            rows.push(mean_row(side, "commands wrecked", wa, wb));
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_difference_of_proportions_has_the_textbook_interval() {
        // 500/1000 against 600/1000: d = 0.1, se = sqrt(.25/1000 + .24/1000) ≈ 0.02214.
        let r = prop_row("x", "m", (500, 1000), (600, 1000));
        assert!((r.diff.unwrap() - 0.1).abs() < 1e-12);
        assert!((r.low.unwrap() - (0.1 - Z95 * 0.022_135_943)).abs() < 1e-6);
        assert!(r.significant);
        let r = prop_row("x", "m", (500, 1000), (510, 1000));
        assert!(!r.significant);
    }

    #[test]
    fn a_mean_without_values_has_no_interval() {
        let mut h = Hist::default();
        h.add(None);
        let mut g = Hist::default();
        g.add(Some(3));
        let r = mean_row("x", "m", &h, &g);
        assert!(r.a.is_none() && r.diff.is_none() && !r.significant);
    }
}
