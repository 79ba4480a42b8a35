//! Exact odds of the command checks, by enumerating every face of the dice.
//!
//! Owns: the exact distribution of New Order Acceptance (6.5) with the turn-by-turn chance that
//! a delayed order has been accepted (6.5.2), of the Initiative roll (6.6.1.3) and of the Attack
//! Stoppage check (6.7.2), each as integer counts over an integer denominator, with the
//! provenance of every table cell used.
//!
//! Must not: sample, use floating point, print, or hold game state. The odds assume nothing
//! else happens to the order (no new order arrives, no Initiative, Default Defense or
//! Emergency Withdrawal cancels a delay; 6.5.2).

use serde::Serialize;

use super::tables::{
    CellAt, CommandTables, INITIATIVE_RESULTS, TableId, acceptance_column_label, roll_of_index,
};
use super::{AcceptanceResult, CurrentOrder, InitiativeResult, Method, OrderType};
use crate::provenance::Provenance;

/// Turns covered by [`AcceptanceOdds::by_turn`]: the arrival turn and 9 turns of delay
/// reduction.
pub const ACCEPTANCE_TURNS: u32 = 10;

/// A table cell an answer used, for people and for the JSON contract.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct UsedCell {
    pub table: TableId,
    pub row: String,
    pub column: String,
    pub value: String,
    pub provenance: Provenance,
}

impl UsedCell {
    fn new(at: CellAt, value: impl ToString, provenance: Provenance) -> Self {
        UsedCell {
            table: at.table,
            row: at.row_label(),
            column: at.column_label(),
            value: value.to_string(),
            provenance,
        }
    }
}

/// The order being checked for acceptance (6.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct AcceptanceQuery {
    pub sender_rating: i32,
    pub receiver_rating: i32,
    pub method: Method,
    pub order_type: OrderType,
    pub current: CurrentOrder,
}

/// How many of the 36 readings give one result (of acceptance or initiative).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ResultCount<R> {
    pub result: R,
    pub count: u32,
    /// The range of readings as printed ("14-23", "-").
    pub rolls: String,
    pub provenance: Provenance,
}

/// The count of one result in a table's counts (0 if it is not among them).
fn count_of<R: PartialEq>(counts: &[ResultCount<R>], r: R) -> u32 {
    counts.iter().find(|c| c.result == r).map_or(0, |c| c.count)
}

/// The chance that the order has been accepted by the end of a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TurnOdds {
    /// 1 = the turn the order arrives (the acceptance roll); 2.. = each following turn, with one
    /// delay-reduction die (6.5.2).
    pub turn: u32,
    /// Over [`AcceptanceOdds::by_turn_denominator`].
    pub accepted: u64,
}

/// Exact odds of New Order Acceptance (6.5, 6.5.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AcceptanceOdds {
    pub query: AcceptanceQuery,
    /// Sender + receiver + method + type + current order (6.5), before clamping.
    pub acceptance_number: i32,
    /// The column used: the number clamped to −3..=10 (3.5).
    pub column: i32,
    pub column_label: String,
    /// Always 36 (the readings 11..66).
    pub out_of: u32,
    /// Dt, D6, D5, D4, A in table order.
    pub counts: Vec<ResultCount<AcceptanceResult>>,
    /// Common denominator of `by_turn`: 36 · 6^(turns − 1).
    pub by_turn_denominator: u64,
    pub by_turn: Vec<TurnOdds>,
    /// Every cell used: the three modifiers, the five cells of the column, the delay needs.
    pub cells_used: Vec<UsedCell>,
}

impl AcceptanceOdds {
    /// Count of one result.
    pub fn count(&self, r: AcceptanceResult) -> u32 {
        count_of(&self.counts, r)
    }
}

/// Exact acceptance odds for an order.
pub fn acceptance(tables: &CommandTables, q: AcceptanceQuery) -> AcceptanceOdds {
    let number = tables.acceptance_number(
        q.sender_rating,
        q.receiver_rating,
        q.method,
        q.order_type,
        q.current,
    );
    acceptance_for_number(tables, q, number)
}

/// Exact acceptance odds for an already computed acceptance number (game-specific modifiers
/// such as Talavera 2.1 are the caller's to add).
pub fn acceptance_for_number(
    tables: &CommandTables,
    q: AcceptanceQuery,
    number: i32,
) -> AcceptanceOdds {
    let column = CommandTables::acceptance_column(number);
    let mut cells_used: Vec<UsedCell> = tables
        .acceptance_modifier_cells(q.method, q.order_type, q.current)
        .iter()
        .map(|c| UsedCell::new(c.at, signed(c.value), c.provenance))
        .collect();
    let mut counts = Vec::new();
    let mut start = 0u32;
    for r in AcceptanceResult::ALL {
        let c = tables.acceptance_count(number, r);
        let rolls = range_text(start, c.value);
        start += c.value;
        cells_used.push(UsedCell::new(c.at, &rolls, c.provenance));
        counts.push(ResultCount {
            result: r,
            count: c.value,
            rolls,
            provenance: c.provenance,
        });
    }
    let count = |r| {
        counts
            .iter()
            .find(|c: &&ResultCount<_>| c.result == r)
            .map_or(0, |c| c.count)
    };
    // P(accepted by end of turn k) over 36·6^(k−1): A·6^(k−1) + Σ_delay n·(6^(k−1) − (6−s)^(k−1)),
    // where s = the faces that end the delay; then scaled to the common denominator.
    let last = ACCEPTANCE_TURNS - 1;
    let den = 36 * 6u64.pow(last);
    let mut delays = Vec::new();
    for r in [
        AcceptanceResult::D6,
        AcceptanceResult::D5,
        AcceptanceResult::D4,
    ] {
        if let Some(need) = tables.delay_needs(r) {
            cells_used.push(UsedCell::new(need.at, need.value, need.provenance));
            let success = 7u64.saturating_sub(u64::from(need.value)).min(6);
            delays.push((u64::from(count(r)), success));
        }
    }
    let accepted = u64::from(count(AcceptanceResult::A));
    let by_turn = (1..=ACCEPTANCE_TURNS)
        .map(|turn| {
            let k = turn - 1;
            let all = 6u64.pow(k);
            let mut num = accepted * all;
            for (n, s) in &delays {
                num += n * (all - (6 - s).pow(k));
            }
            TurnOdds {
                turn,
                accepted: num * 6u64.pow(last - k),
            }
        })
        .collect();
    AcceptanceOdds {
        query: q,
        acceptance_number: number,
        column,
        column_label: acceptance_column_label(column),
        out_of: 36,
        counts,
        by_turn_denominator: den,
        by_turn,
        cells_used,
    }
}

/// Exact odds of an Initiative roll (6.6.1.3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InitiativeOdds {
    pub rating: i32,
    /// Already under General Orders: +1 column (chart p1).
    pub general: bool,
    /// Rating + 1 if General, before clamping.
    pub column: i32,
    /// The column used, clamped to 0..=5 (3.5).
    pub column_used: i32,
    pub out_of: u32,
    /// Loose Cannon, No Effect, Initiative.
    pub counts: Vec<ResultCount<InitiativeResult>>,
    pub cells_used: Vec<UsedCell>,
}

impl InitiativeOdds {
    /// Count of one result.
    pub fn count(&self, r: InitiativeResult) -> u32 {
        count_of(&self.counts, r)
    }
}

/// Exact odds of an Initiative roll.
pub fn initiative(tables: &CommandTables, rating: i32, general: bool) -> InitiativeOdds {
    let column = CommandTables::initiative_column(rating, general);
    let mut counts = Vec::new();
    let mut cells_used = Vec::new();
    let mut start = 0;
    let mut column_used = column;
    for r in INITIATIVE_RESULTS {
        let c = tables.initiative_count(column, r);
        column_used = c.at.column;
        let rolls = range_text(start, c.value);
        start += c.value;
        cells_used.push(UsedCell::new(c.at, &rolls, c.provenance));
        counts.push(ResultCount {
            result: r,
            count: c.value,
            rolls,
            provenance: c.provenance,
        });
    }
    InitiativeOdds {
        rating,
        general,
        column,
        column_used,
        out_of: 36,
        counts,
        cells_used,
    }
}

/// Exact odds of an Attack Stoppage check (6.7.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StoppageOdds {
    pub sub_units: u32,
    /// Wrecked sub-units, +1 if the Commander is lost (counted by the caller).
    pub wrecked: u32,
    pub rating: u8,
    pub night: bool,
    /// Step 1 result (the row of step 2), 1..=4.
    pub result: u8,
    /// Least 2d6 roll that passes (step 2).
    pub needed: u8,
    /// Added to the roll: the night modifier at night, else 0.
    pub roll_modifier: i32,
    /// How many of the 36 throws of 2d6 pass.
    pub pass: u32,
    pub out_of: u32,
    pub cells_used: Vec<UsedCell>,
}

/// Exact odds of an Attack Stoppage check.
pub fn stoppage(
    tables: &CommandTables,
    sub_units: u32,
    wrecked: u32,
    rating: u8,
    night: bool,
) -> StoppageOdds {
    let r = tables.stoppage_result(sub_units, wrecked);
    let n = tables.stoppage_needed(r.value, rating);
    let mut cells_used = vec![
        UsedCell::new(r.at, r.value, r.provenance),
        UsedCell::new(n.at, n.value, n.provenance),
    ];
    let roll_modifier = if night {
        let c = tables.night_stoppage_cell();
        cells_used.push(UsedCell::new(c.at, signed(c.value), c.provenance));
        c.value
    } else {
        0
    };
    StoppageOdds {
        sub_units,
        wrecked,
        rating,
        night,
        result: r.value,
        needed: n.value,
        roll_modifier,
        pass: stoppage_pass_count(n.value, roll_modifier),
        out_of: 36,
        cells_used,
    }
}

/// How many of the 36 throws of 2d6, plus `modifier`, reach `needed` (6.7.2).
pub fn stoppage_pass_count(needed: u8, modifier: i32) -> u32 {
    let mut pass = 0;
    for a in 1..=6i32 {
        for b in 1..=6i32 {
            if a + b + modifier >= i32::from(needed) {
                pass += 1;
            }
        }
    }
    pass
}

fn signed(v: i32) -> String {
    if v > 0 {
        format!("+{v}")
    } else {
        v.to_string()
    }
}

/// The printed range of `len` readings starting at index `start`.
fn range_text(start: u32, len: u32) -> String {
    match len {
        0 => "-".into(),
        1 => roll_of_index(start as usize).to_string(),
        _ => format!(
            "{}-{}",
            roll_of_index(start as usize),
            roll_of_index((start + len - 1) as usize)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: i32, r: i32, m: Method, t: OrderType, c: CurrentOrder) -> AcceptanceQuery {
        AcceptanceQuery {
            sender_rating: s,
            receiver_rating: r,
            method: m,
            order_type: t,
            current: c,
        }
    }

    /// The seed Dt row as counts of 36 (6.5).
    const SEED_DT_COUNTS: [u32; 14] = [14, 12, 9, 6, 4, 3, 3, 2, 2, 1, 1, 0, 0, 0];

    #[test]
    fn rule_6_5_odds_agree_with_the_whole_seed_dt_row() {
        let t = CommandTables::nbs();
        for (i, want) in SEED_DT_COUNTS.iter().enumerate() {
            let col = i as i32 - 3;
            let o = acceptance_for_number(
                t,
                q(
                    0,
                    0,
                    Method::Written,
                    OrderType::General,
                    CurrentOrder::General,
                ),
                col,
            );
            assert_eq!(o.count(AcceptanceResult::Dt), *want, "column {col}");
            assert_eq!(o.counts.iter().map(|c| c.count).sum::<u32>(), 36);
            assert_eq!(o.counts[0].provenance, Provenance::Seed);
        }
    }

    #[test]
    fn rule_6_5_2_by_turn_probabilities_are_exact() {
        let t = CommandTables::nbs();
        // Column 3: Dt 3, D6 6, D5 5, D4 4, A 18.
        let o = acceptance_for_number(
            t,
            q(
                2,
                1,
                Method::Written,
                OrderType::General,
                CurrentOrder::General,
            ),
            3,
        );
        let counts: Vec<u32> = o.counts.iter().map(|c| c.count).collect();
        assert_eq!(counts, [3, 6, 5, 4, 18]);
        let den = o.by_turn_denominator;
        assert_eq!(den, 36 * 6u64.pow(9));
        // Turn 1: 18/36.
        assert_eq!(o.by_turn[0].accepted * 36, 18 * den);
        // Turn 2: (18·6 + 6·1 + 5·2 + 4·3) / 216.
        assert_eq!(o.by_turn[1].accepted * 216, (108 + 6 + 10 + 12) * den);
        // Never more than the non-Dt share, and never decreasing.
        for w in o.by_turn.windows(2) {
            assert!(w[0].accepted <= w[1].accepted);
        }
        assert!(o.by_turn[9].accepted * 36 < 33 * den);
    }

    #[test]
    fn rule_6_6_1_3_odds_agree_with_the_whole_initiative_table() {
        let t = CommandTables::nbs();
        let want = [
            [4, 31, 1],
            [3, 31, 2],
            [3, 30, 3],
            [2, 29, 5],
            [2, 25, 9],
            [1, 24, 11],
        ];
        for (col, w) in want.iter().enumerate() {
            let o = initiative(t, col as i32, false);
            let got: Vec<u32> = o.counts.iter().map(|c| c.count).collect();
            assert_eq!(&got, w, "column {col}");
            assert!(o.counts.iter().all(|c| c.provenance == Provenance::Seed));
        }
        // Chart p1: +1 column under General Orders.
        assert_eq!(initiative(t, 4, true).column_used, 5);
        assert_eq!(
            initiative(t, 4, true).count(InitiativeResult::Initiative),
            11
        );
        assert_eq!(
            initiative(t, 2, true).count(InitiativeResult::Initiative),
            5
        );
    }

    #[test]
    fn rule_6_7_2_stoppage_odds() {
        let t = CommandTables::nbs();
        // Rule 6.7 example: needs 5 → 30 of 36 throws pass.
        let o = stoppage(t, 3, 1, 4, false);
        assert_eq!((o.result, o.needed, o.pass), (2, 5, 30));
        // At night −3: need 8 on the dice → 15 of 36.
        let n = stoppage(t, 3, 1, 4, true);
        assert_eq!((n.roll_modifier, n.pass), (-3, 15));
        assert_eq!(n.cells_used.len(), 3);
        // Step 2 seed, all cells, pass counts.
        assert_eq!(stoppage_pass_count(3, 0), 35);
        assert_eq!(stoppage_pass_count(12, 0), 1);
        assert_eq!(stoppage_pass_count(12, -3), 0);
        assert_eq!(stoppage_pass_count(2, 0), 36);
        // Reconstructed cells are reported as assumed.
        let a = stoppage(t, 1, 1, 2, false);
        assert_eq!(a.cells_used[0].provenance, Provenance::Assumed);
        assert_eq!((a.result, a.needed, a.pass), (4, 11, 3));
    }

    #[test]
    fn rule_6_7_2_odds_agree_with_the_whole_step_2_table() {
        let t = CommandTables::nbs();
        // Seed step 2 (result × rating 0 / 1,2 / 3,4) and the 2d6 throws of 36 reaching each need.
        let step2 = [[4, 3, 3], [7, 6, 5], [10, 9, 8], [12, 11, 10]];
        let throws_reaching = |need: u8| -> u32 {
            [36, 36, 35, 33, 30, 26, 21, 15, 10, 6, 3, 1][usize::from(need) - 1]
        };
        // (sub-units, wrecked) giving step-1 results 1, 2, 3, 4.
        let commands = [(10, 0), (3, 1), (3, 2), (2, 2)];
        for (r, (n, w)) in commands.iter().enumerate() {
            for rating in 0..=4u8 {
                let g = match rating {
                    0 => 0,
                    1 | 2 => 1,
                    _ => 2,
                };
                let o = stoppage(t, *n, *w, rating, false);
                assert_eq!(usize::from(o.result), r + 1);
                assert_eq!(o.needed, step2[r][g], "result {} rating {rating}", r + 1);
                assert_eq!(o.pass, throws_reaching(o.needed));
                assert_eq!(o.cells_used[1].provenance, Provenance::Seed);
            }
        }
    }
}
