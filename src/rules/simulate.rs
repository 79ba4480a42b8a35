//! Monte-Carlo draws of the command checks with the game's dice, to set beside the exact odds.
//!
//! Owns: drawing N acceptance (6.5, with delay reduction 6.5.2), initiative (6.6.1.3) and
//! attack-stoppage (6.7.2) checks from any [`Dice`] (the CLI uses [`super::dice::SeededDice`]
//! with `Purpose::Acceptance`, `DelayReduction`, `Initiative`, `Stoppage`), counting the results,
//! and an integer test of agreement with the exact odds.
//!
//! Must not: print, draw a progress bar (the caller gets a progress callback), use floating
//! point, or use any randomness other than the dice it is given.

use serde::Serialize;

use super::dice::{Dice, DiceExhausted, Purpose};
use super::odds::ACCEPTANCE_TURNS;
use super::tables::CommandTables;
use super::{AcceptanceResult, InitiativeResult};

/// How often (in trials) the progress callback is called.
pub const PROGRESS_EVERY: u64 = 4096;

/// Observed acceptance results.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AcceptanceSim {
    pub trials: u64,
    /// Dt, D6, D5, D4, A.
    pub counts: [u64; 5],
    /// Trials accepted by the end of turn 1..=10 (turn 1 = arrival).
    pub accepted_by_turn: [u64; ACCEPTANCE_TURNS as usize],
}

/// Draw `trials` acceptance checks on the column of `number`: the 11..66 roll on arrival
/// (`Purpose::Acceptance`), then for a delay one die per turn (`Purpose::DelayReduction`)
/// until it ends or 10 turns have passed (6.5.2). A Dt is never accepted (6.5.3).
pub fn acceptance<D: Dice>(
    tables: &CommandTables,
    number: i32,
    trials: u64,
    dice: &mut D,
    progress: &mut dyn FnMut(u64),
) -> Result<AcceptanceSim, DiceExhausted> {
    let mut sim = AcceptanceSim {
        trials,
        counts: [0; 5],
        accepted_by_turn: [0; ACCEPTANCE_TURNS as usize],
    };
    for i in 0..trials {
        let (roll, _) = dice.roll_11_66(Purpose::Acceptance)?;
        let r = tables.acceptance(number, roll).value;
        sim.counts[r as usize] += 1;
        let accepted_turn = match r {
            AcceptanceResult::A => Some(1),
            AcceptanceResult::Dt => None,
            delay => {
                let need = tables.delay_needs(delay).map_or(7, |c| c.value);
                let mut at = None;
                for turn in 2..=ACCEPTANCE_TURNS {
                    if dice.roll(Purpose::DelayReduction, 6)?.value >= need {
                        at = Some(turn);
                        break;
                    }
                }
                at
            }
        };
        if let Some(t) = accepted_turn {
            for slot in &mut sim.accepted_by_turn[(t - 1) as usize..] {
                *slot += 1;
            }
        }
        if (i + 1) % PROGRESS_EVERY == 0 {
            progress(i + 1);
        }
    }
    progress(trials);
    Ok(sim)
}

/// Observed initiative results.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InitiativeSim {
    pub trials: u64,
    /// Loose Cannon, No Effect, Initiative.
    pub counts: [u64; 3],
}

/// Draw `trials` Initiative rolls on `column` (6.6.1.3) with `Purpose::Initiative`.
pub fn initiative<D: Dice>(
    tables: &CommandTables,
    column: i32,
    trials: u64,
    dice: &mut D,
    progress: &mut dyn FnMut(u64),
) -> Result<InitiativeSim, DiceExhausted> {
    let mut sim = InitiativeSim {
        trials,
        counts: [0; 3],
    };
    for i in 0..trials {
        let (roll, _) = dice.roll_11_66(Purpose::Initiative)?;
        let idx = match tables.initiative(column, roll).value {
            InitiativeResult::LooseCannon => 0,
            InitiativeResult::NoEffect => 1,
            InitiativeResult::Initiative => 2,
        };
        sim.counts[idx] += 1;
        if (i + 1) % PROGRESS_EVERY == 0 {
            progress(i + 1);
        }
    }
    progress(trials);
    Ok(sim)
}

/// Observed attack-stoppage checks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StoppageSim {
    pub trials: u64,
    pub pass: u64,
}

/// Draw `trials` Attack Stoppage checks (6.7.2): 2d6 with `Purpose::Stoppage`, plus
/// `modifier` (night −3), passing on `needed` or more.
pub fn stoppage<D: Dice>(
    needed: u8,
    modifier: i32,
    trials: u64,
    dice: &mut D,
    progress: &mut dyn FnMut(u64),
) -> Result<StoppageSim, DiceExhausted> {
    let mut sim = StoppageSim { trials, pass: 0 };
    for i in 0..trials {
        let (roll, _) = dice.roll_2d6(Purpose::Stoppage)?;
        if i32::from(roll) + modifier >= i32::from(needed) {
            sim.pass += 1;
        }
        if (i + 1) % PROGRESS_EVERY == 0 {
            progress(i + 1);
        }
    }
    progress(trials);
    Ok(sim)
}

/// Whether `observed` of `trials` agrees with an exact probability `num / den` within
/// `sigmas` standard errors: (den·obs − num·trials)² ≤ sigmas² · trials · num · (den − num).
/// Integer arithmetic only; a probability of 0 or 1 must be matched exactly.
pub fn within_sigmas(observed: u64, trials: u64, num: u64, den: u64, sigmas: u64) -> bool {
    let (o, t, n, d, s) = (
        i128::from(observed),
        i128::from(trials),
        i128::from(num),
        i128::from(den),
        i128::from(sigmas),
    );
    let diff = d * o - n * t;
    diff * diff <= s * s * t * n * (d - n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::dice::{ScriptedDice, SeededDice};
    use crate::rules::odds;
    use crate::rules::{CurrentOrder, Method, OrderType};

    /// Trials in the debug-build agreement tests; the CLI runs 10⁶ in release (docs/rules.md).
    const TRIALS: u64 = 100_000;

    #[test]
    fn rule_6_5_simulated_acceptance_agrees_with_exact_odds() {
        let t = CommandTables::nbs();
        let q = odds::AcceptanceQuery {
            sender_rating: 3,
            receiver_rating: 2,
            method: Method::Written,
            order_type: OrderType::Engage,
            current: CurrentOrder::General,
        };
        let exact = odds::acceptance(t, q);
        let mut dice = SeededDice::new(20_260_101);
        let sim = acceptance(t, exact.acceptance_number, TRIALS, &mut dice, &mut |_| {}).unwrap();
        for (i, c) in exact.counts.iter().enumerate() {
            assert!(
                within_sigmas(sim.counts[i], TRIALS, u64::from(c.count), 36, 5),
                "{:?}: {} vs {}/36",
                c.result,
                sim.counts[i],
                c.count
            );
        }
        for (i, turn) in exact.by_turn.iter().enumerate() {
            assert!(within_sigmas(
                sim.accepted_by_turn[i],
                TRIALS,
                turn.accepted,
                exact.by_turn_denominator,
                5
            ));
        }
    }

    #[test]
    fn rule_6_6_1_3_simulated_initiative_agrees_with_exact_odds() {
        let t = CommandTables::nbs();
        for column in [0, 3, 5] {
            let exact = odds::initiative(t, column, false);
            let mut dice = SeededDice::new(7 + column as u64);
            let sim = initiative(t, column, TRIALS, &mut dice, &mut |_| {}).unwrap();
            for (i, c) in exact.counts.iter().enumerate() {
                assert!(within_sigmas(
                    sim.counts[i],
                    TRIALS,
                    u64::from(c.count),
                    36,
                    5
                ));
            }
        }
    }

    #[test]
    fn rule_6_7_2_simulated_stoppage_agrees_with_exact_odds() {
        let t = CommandTables::nbs();
        let exact = odds::stoppage(t, 3, 1, 4, true);
        let mut dice = SeededDice::new(99);
        let sim = stoppage(
            exact.needed,
            exact.roll_modifier,
            TRIALS,
            &mut dice,
            &mut |_| {},
        )
        .unwrap();
        assert!(within_sigmas(
            sim.pass,
            TRIALS,
            u64::from(exact.pass),
            36,
            5
        ));
    }

    /// The full 10⁶-trial agreement check; slow in debug builds, so run it with
    /// `cargo test --release -- --ignored`.
    #[test]
    #[ignore = "10⁶ trials: run with cargo test --release -- --ignored"]
    fn rule_6_5_a_million_simulated_acceptance_checks_agree_with_exact_odds() {
        let t = CommandTables::nbs();
        for number in [-3, 0, 3, 4, 7, 10] {
            let q = odds::AcceptanceQuery {
                sender_rating: 0,
                receiver_rating: 0,
                method: Method::Written,
                order_type: OrderType::General,
                current: CurrentOrder::General,
            };
            let exact = odds::acceptance_for_number(t, q, number);
            let mut dice = SeededDice::new(1_000_000 + number as u64);
            let n = 1_000_000;
            let sim = acceptance(t, number, n, &mut dice, &mut |_| {}).unwrap();
            for (i, c) in exact.counts.iter().enumerate() {
                assert!(within_sigmas(sim.counts[i], n, u64::from(c.count), 36, 5));
            }
            for (i, turn) in exact.by_turn.iter().enumerate() {
                assert!(within_sigmas(
                    sim.accepted_by_turn[i],
                    n,
                    turn.accepted,
                    exact.by_turn_denominator,
                    5
                ));
            }
        }
    }

    #[test]
    fn scripted_dice_drive_delay_reduction() {
        let t = CommandTables::nbs();
        let mut d = ScriptedDice::new();
        // Column 3: 23 is D6 (Talavera 2.4); then 5, 6 → accepted on turn 3.
        d.push(Purpose::Acceptance, [2, 3]);
        d.push(Purpose::DelayReduction, [5, 6]);
        let sim = acceptance(t, 3, 1, &mut d, &mut |_| {}).unwrap();
        assert_eq!(sim.counts, [0, 1, 0, 0, 0]);
        assert_eq!(sim.accepted_by_turn, [0, 0, 1, 1, 1, 1, 1, 1, 1, 1]);
        assert!(d.unused().is_empty());
    }

    #[test]
    fn within_sigmas_is_exact_at_the_edges() {
        assert!(within_sigmas(0, 100, 0, 36, 5));
        assert!(!within_sigmas(1, 100, 0, 36, 5));
        assert!(within_sigmas(100, 100, 36, 36, 5));
        assert!(within_sigmas(500, 1000, 1, 2, 5));
        assert!(!within_sigmas(700, 1000, 1, 2, 5));
    }
}
