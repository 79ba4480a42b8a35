//! Losses and morale (rules 7, 20, 21, 22.2, 25): Morale Checks, Blood Lust eligibility,
//! applying a result to a stack (Morale Change, wrecked brigades and divisions with their M-1,
//! Commander Loss Checks and their M-1), Straggler Recovery, the Rally sequence, cavalry
//! recovery and commander replacement.
//!
//! Owns: the arithmetic of these rules. Must not: move units, read the map, or keep state —
//! the engine passes the facts (distance to the enemy, ZoI, orders status) in.

use serde::{Deserialize, Serialize};

use super::{
    Aftermath, CombatError, CommanderIn, CommanderLossCheck, Loss, MoraleState, Retreat, Size,
    Trace, best_rating, morale_index,
};
use crate::combat::tables::CombatTables;
use crate::rules::dice::{Dice, Purpose};
use crate::units::MoraleRating;

/// 21.3.3 / 17.1.7: unwrecked A and B units, and C units stacked with a Commander rated 1+.
pub fn high_morale(rating: MoraleRating, wrecked: bool, commanders: &[CommanderIn]) -> bool {
    if wrecked {
        return false;
    }
    match rating {
        MoraleRating::A | MoraleRating::B => true,
        MoraleRating::C => best_rating(commanders).is_some_and(|r| r >= 1),
        _ => false,
    }
}

/// One Morale Check (21.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoraleCheck {
    pub roll: u8,
    pub modifier: i8,
    pub need: u8,
    pub passed: bool,
}

/// Roll a Morale Check: 1d6 + modifiers ≥ the rating's number (21.2). The only standard
/// modifier is +1 with a Commander rated 2+ (`use_commander`); `extra` carries the
/// Straggler Recovery modifiers (chart p6) and Breakoff's British exception (26.4).
#[allow(clippy::too_many_arguments)]
pub fn morale_check(
    t: &CombatTables,
    rating: MoraleRating,
    commanders: &[CommanderIn],
    use_commander: bool,
    extra: i8,
    purpose: Purpose,
    dice: &mut dyn Dice,
    trace: &mut Trace,
) -> Result<MoraleCheck, CombatError> {
    let need = t.morale_check.need[morale_index(rating)];
    let mut modifier = extra;
    if use_commander
        && best_rating(commanders).is_some_and(|r| r >= t.morale_check.commander_min_rating)
    {
        modifier += t.morale_check.commander_bonus;
    }
    let d = dice.roll(purpose, 6)?;
    trace.dice.push(d);
    let total = i16::from(d.value) + i16::from(modifier);
    Ok(MoraleCheck {
        roll: d.value,
        modifier,
        need,
        passed: total >= i16::from(need),
    })
}

/// Inputs for applying a combat result to one stack.
pub(crate) struct Apply<'a> {
    pub loss: Loss,
    pub before: MoraleState,
    /// The result Routs the stack regardless of the Morale Change (15.3.2, 16.2.3).
    pub rout: bool,
    pub wrecked_before: bool,
    pub track: Option<super::LossTrack>,
    pub division: Option<&'a super::DivisionTrack>,
    pub commanders: &'a [CommanderIn],
    /// Whether the Commander Loss Check is rolled (false only for odds enumeration).
    pub roll_commander_loss: bool,
    /// Cavalry hit by Skirmisher fire checks for commanders without P/S (25.4.1).
    pub force_commander_check: bool,
    /// At most this many even Permanent Casualties go to a Skirmisher of the stack (20.2).
    pub skirmisher_absorbs: u8,
    /// The Lead Unit is infantry. Only infantry takes Stragglers; a stack led by other troops
    /// passes them to its top infantry unit (20.3), so they stay off the Lead Unit's chart.
    pub lead_infantry: bool,
}

impl<'a> Apply<'a> {
    /// A result for stack `c` as it stands before the combat: its morale state, wreck, loss
    /// chart, division, commanders and Skirmisher absorption; no rout, no forced commander check.
    pub(crate) fn to(c: &'a super::Combatant, loss: Loss, roll_commander_loss: bool) -> Self {
        Apply {
            loss,
            before: c.morale_state,
            rout: false,
            wrecked_before: c.is_wrecked(),
            track: c.track,
            division: c.division.as_ref(),
            commanders: &c.commanders,
            roll_commander_loss,
            force_commander_check: false,
            skirmisher_absorbs: c.skirmisher_absorbs,
            lead_infantry: c.kind.is_infantry(),
        }
    }
}

/// Apply a loss: Morale Change, rout, wreck (M-1, 21.3.2), division wreck (21.6.2) and
/// Commander Loss Checks (M-1 each, 25.4). Returns the new state and the aftermath.
pub(crate) fn apply(
    t: &CombatTables,
    a: Apply<'_>,
    dice: &mut dyn Dice,
    trace: &mut Trace,
    notes: &mut Vec<String>,
) -> Result<(MoraleState, Aftermath), CombatError> {
    let mut state = a.before.shift(a.loss.morale_change);
    if a.rout {
        state = MoraleState::Routed;
    }
    // 20.2: a Skirmisher may take the even casualties (the 2nd, 4th, …) of this result.
    let mut after = Aftermath {
        skirmisher_absorbed: a
            .skirmisher_absorbs
            .min(super::skirmisher_may_absorb(a.loss.permanent)),
        ..Aftermath::default()
    };
    if after.skirmisher_absorbed > 0 {
        notes.push(format!(
            "a Skirmisher takes {} of the {} Permanent Casualties (20.2)",
            after.skirmisher_absorbed, a.loss.permanent
        ));
    }
    let mut track = a.track;
    if let Some(tr) = track.as_mut() {
        let room = tr.remaining();
        let p = (a.loss.permanent - after.skirmisher_absorbed).min(room);
        tr.permanent = tr.permanent.saturating_add(p);
        if a.lead_infantry {
            let s = a.loss.stragglers.min(tr.remaining());
            tr.stragglers = tr.stragglers.saturating_add(s);
        }
    }
    after.track = track;
    let by_losses = track.is_some_and(|tr| tr.wrecked_by_losses());
    after.brigade_wrecked = a.wrecked_before || by_losses || state == MoraleState::Routed;
    after.brigade_became_wrecked = !a.wrecked_before && after.brigade_wrecked;
    if after.brigade_became_wrecked {
        state = state.shift(t.wrecked.morale_change);
        notes.push(format!(
            "brigade Wrecked: extra M{:+} (21.3.2, 21.6.1)",
            t.wrecked.morale_change
        ));
        if let Some(div) = a.division {
            let need = div
                .wreck_at
                .unwrap_or_else(|| t.wrecked.division_wreck_at(div.brigades));
            let was = div.wrecked_brigades >= need;
            let now = div.wrecked_brigades.saturating_add(1) >= need;
            after.division_wrecked = now;
            after.division_became_wrecked = now && !was;
            if after.division_became_wrecked {
                notes.push(format!("division {} Wrecked (21.6.2)", div.id));
            }
        }
    } else if let Some(div) = a.division {
        let need = div
            .wreck_at
            .unwrap_or_else(|| t.wrecked.division_wreck_at(div.brigades));
        after.division_wrecked = div.wrecked_brigades >= need;
    }
    if a.roll_commander_loss && (a.loss.has_casualties() || a.force_commander_check) {
        for c in a.commanders {
            let (sum, dd) = dice.roll_2d6(Purpose::CommanderLoss)?;
            trace.dice.extend(dd);
            let lost = t.commander_loss.lost_on.contains(&sum);
            after.commander_checks.push(CommanderLossCheck {
                commander: c.id.clone(),
                roll: sum,
                lost,
            });
            if lost {
                after.commanders_lost.push(c.id.clone());
                state = state.shift(t.commander_loss.morale_change);
                notes.push(format!(
                    "Commander {} lost on {sum}: M{:+} (25.4)",
                    c.id, t.commander_loss.morale_change
                ));
            }
        }
    }
    Ok((state, after))
}

/// Commander Loss Checks outside a combat resolver (a hex holding only Commanders under fire,
/// 25.0; random event 10): 2d6 per Commander, lost on 11–12 (25.4). The M-1 per loss is for
/// the engine to apply to any stack they were with.
pub fn commander_loss_checks(
    t: &CombatTables,
    commanders: &[CommanderIn],
    dice: &mut dyn Dice,
) -> Result<(Vec<CommanderLossCheck>, Trace), CombatError> {
    let mut trace = Trace::default();
    let mut out = Vec::new();
    for c in commanders {
        let (sum, dd) = dice.roll_2d6(Purpose::CommanderLoss)?;
        trace.dice.extend(dd);
        out.push(CommanderLossCheck {
            commander: c.id.clone(),
            roll: sum,
            lost: t.commander_loss.lost_on.contains(&sum),
        });
    }
    Ok((out, trace))
}

/// Facts for a Straggler Recovery attempt (20.3.2; chart p6).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StragglerRecoveryInput {
    pub morale_rating: MoraleRating,
    pub morale_state: MoraleState,
    pub stragglers: u8,
    /// Hexes to the nearest enemy unit.
    pub enemy_distance: u32,
    pub night: bool,
    pub in_command: bool,
    pub under_engage_orders: bool,
    pub no_orders: bool,
    pub spent_mp: bool,
    /// Fired upon or fought in Close Combat this turn.
    pub in_combat: bool,
    pub fortified_or_village: bool,
    #[serde(default)]
    pub commanders: Vec<CommanderIn>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StragglerRecovery {
    /// Reasons the unit may not try (empty when it tried).
    pub ineligible: Vec<String>,
    pub check: Option<MoraleCheck>,
    pub recovered: u8,
    pub trace: Trace,
}

/// Straggler Recovery (20.3.2): a Morale Check with chart p6's modifiers (8.2 item 22: the
/// chart applies); A/B units recover 2 on an unmodified 6.
pub fn straggler_recovery(
    t: &CombatTables,
    i: &StragglerRecoveryInput,
    dice: &mut dyn Dice,
) -> Result<StragglerRecovery, CombatError> {
    let c = &t.straggler_recovery;
    let mut ineligible = Vec::new();
    let min_dist = if i.night {
        c.enemy_distance_night
    } else {
        c.enemy_distance_day
    };
    if i.stragglers == 0 {
        ineligible.push("no Stragglers to recover".to_string());
    }
    if i.enemy_distance < u32::from(min_dist) {
        ineligible.push(format!(
            "enemy within {min_dist} hexes ({} away)",
            i.enemy_distance
        ));
    }
    if !matches!(i.morale_state, MoraleState::Normal | MoraleState::BloodLust) {
        ineligible.push("Morale State is not Normal or Blood Lust".into());
    }
    if !i.in_command {
        ineligible.push("Out of Command".into());
    }
    if i.under_engage_orders {
        ineligible.push("command under Engage Orders".into());
    }
    if i.spent_mp {
        ineligible.push("spent MPs this turn".into());
    }
    if i.in_combat {
        ineligible.push("fired upon or fought in Close Combat this turn".into());
    }
    let mut trace = Trace::default();
    if !ineligible.is_empty() {
        return Ok(StragglerRecovery {
            ineligible,
            check: None,
            recovered: 0,
            trace,
        });
    }
    let mut extra = 0i8;
    if i.night {
        extra += c.night.value;
    }
    if i.fortified_or_village {
        extra += c.fortified_or_village.value;
    }
    if i.no_orders {
        extra += c.no_orders.value;
    }
    if best_rating(&i.commanders).is_some_and(|r| r >= t.morale_check.commander_min_rating) {
        extra += c.commander.value;
    }
    let check = morale_check(
        t,
        i.morale_rating,
        &[],
        false,
        extra,
        Purpose::StragglerRecovery,
        dice,
        &mut trace,
    )?;
    let recovered = if !check.passed {
        0
    } else if check.roll == c.double_on_unmodified
        && matches!(i.morale_rating, MoraleRating::A | MoraleRating::B)
    {
        2.min(i.stragglers)
    } else {
        1
    };
    Ok(StragglerRecovery {
        ineligible,
        check: Some(check),
        recovered,
        trace,
    })
}

/// Facts for one stack in the Rally Phase (21.5).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RallyInput {
    pub morale_rating: MoraleRating,
    pub morale_state: MoraleState,
    pub adjacent_to_enemy: bool,
    pub in_enemy_zoi: bool,
    /// Within 6 hexes of an enemy unit.
    pub enemy_within_6: bool,
    /// Infantry in a Town/Village that is not in Line may not rally (19.3).
    pub in_village_not_line: bool,
    /// The owner tries to rally a Routed stack (21.5 E is voluntary).
    pub attempt_rally_routed: bool,
    pub cavalry: bool,
    #[serde(default)]
    pub commanders: Vec<CommanderIn>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RallyResult {
    pub morale_after: MoraleState,
    /// Cavalry rallied from Routed is Blown (21.5 E, 22.2).
    pub becomes_blown: bool,
    pub retreat: Retreat,
    pub check: Option<MoraleCheck>,
    pub step: String,
    pub trace: Trace,
}

/// The Rally sequence A–F for one stack (21.5). A state improves at most one step.
pub fn rally(
    t: &CombatTables,
    i: &RallyInput,
    dice: &mut dyn Dice,
) -> Result<RallyResult, CombatError> {
    let mut trace = Trace::default();
    let blocked = i.in_enemy_zoi || i.in_village_not_line;
    let mut r = RallyResult {
        morale_after: i.morale_state,
        becomes_blown: false,
        retreat: Retreat::None,
        check: None,
        step: String::new(),
        trace: Trace::default(),
    };
    match i.morale_state {
        MoraleState::BloodLust => {
            if !i.adjacent_to_enemy {
                r.morale_after = MoraleState::Normal;
                r.step = "A: BL removed (not adjacent to an enemy)".into();
            } else {
                let d = dice.roll(Purpose::Morale, 6)?;
                trace.dice.push(d);
                if d.value <= 2 {
                    r.morale_after = MoraleState::Normal;
                    r.step = format!("B: rolled {}, BL removed", d.value);
                } else {
                    r.step = format!("B: rolled {}, stays BL", d.value);
                }
            }
        }
        MoraleState::Normal => r.step = "Normal: nothing to rally".into(),
        MoraleState::Shaken | MoraleState::Disorganized if blocked => {
            r.step = "no rally in an enemy ZoI (or Town/Village not in Line)".into();
        }
        MoraleState::Shaken => {
            r.morale_after = MoraleState::Normal;
            r.step = "C: Sh removed".into();
        }
        MoraleState::Disorganized => {
            r.morale_after = MoraleState::Shaken;
            r.step = "D: DG flipped to Sh".into();
        }
        MoraleState::Routed => {
            if !blocked && i.attempt_rally_routed {
                let c = morale_check(
                    t,
                    i.morale_rating,
                    &i.commanders,
                    true,
                    0,
                    Purpose::Morale,
                    dice,
                    &mut trace,
                )?;
                if c.passed {
                    r.morale_after = MoraleState::Disorganized;
                    r.becomes_blown = i.cavalry;
                    r.step = "E: rallied to DG".into();
                } else {
                    r.step = "E: failed to rally".into();
                }
                r.check = Some(c);
            } else {
                r.step = "E: no rally attempt".into();
            }
            if r.morale_after == MoraleState::Routed && i.enemy_within_6 {
                r.retreat = Retreat::Rout;
                r.step
                    .push_str("; F: retreats until 6 hexes from the enemy");
            }
        }
    }
    r.trace = trace;
    Ok(r)
}

/// Cavalry Recovery (22.2.3): a Blown unit in Normal or better makes a Morale Check.
pub fn cavalry_recovery(
    t: &CombatTables,
    rating: MoraleRating,
    state: MoraleState,
    commanders: &[CommanderIn],
    dice: &mut dyn Dice,
) -> Result<(bool, Option<MoraleCheck>, Trace), CombatError> {
    let mut trace = Trace::default();
    if state < MoraleState::Normal {
        return Ok((false, None, trace));
    }
    let c = morale_check(
        t,
        rating,
        commanders,
        true,
        0,
        Purpose::Morale,
        dice,
        &mut trace,
    )?;
    Ok((c.passed, Some(c), trace))
}

/// Echelon of a lost Commander, for replacement (25.4.3–25.4.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LostEchelon {
    Army,
    Corps,
    Division,
}

/// A possible successor.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Successor {
    pub id: String,
    /// Named as senior subordinate by the game rules.
    pub designated: bool,
    pub stars: u8,
}

/// How a lost Commander is replaced (25.4.3–25.4.5).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Replacement {
    /// The senior subordinate takes over (his own post gets a generic replacement).
    Promote { id: String },
    /// Several have the most stars: the owner chooses (a player decision).
    OwnerChooses { candidates: Vec<String> },
    /// Flip to the generic replacement side, placed with another stack of the division.
    Generic,
    /// No one to take over.
    None,
}

/// Replacement is immediate (25.4.3): Army and Corps by the designated senior subordinate,
/// else the most stars (ties: owner's choice); a Division Commander flips to his generic side.
pub fn replacement(echelon: LostEchelon, successors: &[Successor]) -> Replacement {
    if echelon == LostEchelon::Division {
        return Replacement::Generic;
    }
    if let Some(s) = successors.iter().find(|s| s.designated) {
        return Replacement::Promote { id: s.id.clone() };
    }
    let Some(max) = successors.iter().map(|s| s.stars).max() else {
        return Replacement::None;
    };
    let top: Vec<String> = successors
        .iter()
        .filter(|s| s.stars == max)
        .map(|s| s.id.clone())
        .collect();
    if top.len() == 1 {
        Replacement::Promote { id: top[0].clone() }
    } else {
        Replacement::OwnerChooses { candidates: top }
    }
}

/// The outcome of a wounded Commander's roll (25.4.7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WoundRecovery {
    /// Dead: never rolled for again.
    Dead,
    /// Still out; may recover on a later night.
    StillOut,
    /// Rejoins (a Corps Commander on his HQ; a Division Commander with a unit of his division,
    /// and his replacement is removed).
    Returns,
}

/// Recovery from wounds in multi-day scenarios, rolled in the 1 AM Rally Phase (25.4.7):
/// 1–2 dead, 3–4 still out, 5–6 returns.
pub fn wound_recovery(
    t: &CombatTables,
    dice: &mut dyn Dice,
) -> Result<(WoundRecovery, Trace), CombatError> {
    let mut trace = Trace::default();
    let d = dice.roll(Purpose::CommanderLoss, 6)?;
    trace.dice.push(d);
    let c = &t.commander_loss;
    let r = if c.wound_dead_on.contains(&d.value) {
        WoundRecovery::Dead
    } else if c.wound_out_on.contains(&d.value) {
        WoundRecovery::StillOut
    } else {
        WoundRecovery::Returns
    };
    Ok((r, trace))
}

/// Strength level shown by a Loss Chart row with `remaining` boxes (7.1, 20.4). The charts are
/// not in the seed; assumed: `[wrecked].boxes_per_a` boxes per A, and a row reads the level
/// whose full count of boxes is the smallest that still holds the boxes left — an A brigade
/// of 10 boxes is A down to 6 boxes, B down to 3, then C. So a brigade keeps its level for its
/// first losses, as the 21.6 Aspern example needs (the 37th Line takes 2(1) twice, the second
/// time not halved as a B would, 15.3.6), and an A brigade leaves A when it reaches the assumed
/// Wrecked mark (half its boxes).
pub fn size_from_boxes(t: &CombatTables, remaining: u8) -> Option<Size> {
    if remaining == 0 {
        return None;
    }
    Some(
        Size::ALL
            .iter()
            .copied()
            .find(|s| t.wrecked.boxes_for(*s) >= remaining)
            .unwrap_or(Size::AAA),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::combat::tables::builtin;
    use crate::rules::dice::ScriptedDice;

    #[test]
    fn morale_check_needs_21_2_with_commander_bonus() {
        let t = builtin();
        let mut d = ScriptedDice::new();
        d.push(Purpose::Morale, [3, 3]);
        let mut tr = Trace::default();
        let c = morale_check(
            t,
            MoraleRating::B,
            &[],
            true,
            0,
            Purpose::Morale,
            &mut d,
            &mut tr,
        )
        .unwrap();
        assert!(!c.passed && c.need == 4);
        let cmd = [CommanderIn::new("x", 2, false)];
        let c = morale_check(
            t,
            MoraleRating::B,
            &cmd,
            true,
            0,
            Purpose::Morale,
            &mut d,
            &mut tr,
        )
        .unwrap();
        assert!(c.passed);
    }

    #[test]
    fn straggler_recovery_20_3_2_double_on_six_for_a_b() {
        let t = builtin();
        let mut i = StragglerRecoveryInput {
            morale_rating: MoraleRating::B,
            morale_state: MoraleState::Normal,
            stragglers: 3,
            enemy_distance: 5,
            night: false,
            in_command: true,
            under_engage_orders: false,
            no_orders: false,
            spent_mp: false,
            in_combat: false,
            fortified_or_village: false,
            commanders: vec![],
        };
        let mut d = ScriptedDice::new();
        d.push(Purpose::StragglerRecovery, [6, 3, 4]);
        assert_eq!(straggler_recovery(t, &i, &mut d).unwrap().recovered, 2);
        assert_eq!(straggler_recovery(t, &i, &mut d).unwrap().recovered, 0);
        i.night = true; // +1 (chart p6)
        assert_eq!(straggler_recovery(t, &i, &mut d).unwrap().recovered, 1);
        // Every chart p6 modifier: night, Fortified/Village, No Orders, Commander 2+ → +4.
        i.fortified_or_village = true;
        i.no_orders = true;
        i.commanders = vec![CommanderIn::new("c", 2, false)];
        d.push(Purpose::StragglerRecovery, [1]);
        let r = straggler_recovery(t, &i, &mut d).unwrap();
        assert_eq!(r.check.unwrap().modifier, 4);
        assert_eq!(r.recovered, 1);
        i.under_engage_orders = true;
        let r = straggler_recovery(t, &i, &mut d).unwrap();
        assert!(r.check.is_none() && !r.ineligible.is_empty());
    }

    #[test]
    fn rally_sequence_21_5() {
        let t = builtin();
        let base = RallyInput {
            morale_rating: MoraleRating::C,
            morale_state: MoraleState::Disorganized,
            adjacent_to_enemy: false,
            in_enemy_zoi: false,
            enemy_within_6: true,
            in_village_not_line: false,
            attempt_rally_routed: true,
            cavalry: true,
            commanders: vec![],
        };
        let mut d = ScriptedDice::new();
        assert_eq!(
            rally(t, &base, &mut d).unwrap().morale_after,
            MoraleState::Shaken
        );
        let routed = RallyInput {
            morale_state: MoraleState::Routed,
            ..base.clone()
        };
        d.push(Purpose::Morale, [5]);
        let r = rally(t, &routed, &mut d).unwrap();
        assert_eq!(r.morale_after, MoraleState::Disorganized);
        assert!(r.becomes_blown);
        d.push(Purpose::Morale, [4]);
        let r = rally(t, &routed, &mut d).unwrap();
        assert_eq!(r.retreat, Retreat::Rout);
        let zoi = RallyInput {
            in_enemy_zoi: true,
            ..base
        };
        assert_eq!(
            rally(t, &zoi, &mut d).unwrap().morale_after,
            MoraleState::Disorganized
        );
    }

    /// 22.2 sidebar example: a charge leaves cavalry Blown and DG; the next Rally Phase makes
    /// it Sh (still Blown, no recovery while Sh); the one after, Normal — then it may try.
    #[test]
    fn worked_example_22_2_blown_and_dg() {
        let t = builtin();
        let mut d = ScriptedDice::new();
        let mut i = RallyInput {
            morale_rating: MoraleRating::B,
            morale_state: MoraleState::Disorganized,
            adjacent_to_enemy: false,
            in_enemy_zoi: false,
            enemy_within_6: false,
            in_village_not_line: false,
            attempt_rally_routed: false,
            cavalry: true,
            commanders: vec![],
        };
        let r = rally(t, &i, &mut d).unwrap();
        assert_eq!(r.morale_after, MoraleState::Shaken);
        let (ok, check, _) =
            cavalry_recovery(t, MoraleRating::B, r.morale_after, &[], &mut d).unwrap();
        assert!(!ok && check.is_none());
        i.morale_state = r.morale_after;
        let r = rally(t, &i, &mut d).unwrap();
        assert_eq!(r.morale_after, MoraleState::Normal);
        d.push(Purpose::Morale, [4]);
        let (ok, _, _) = cavalry_recovery(t, MoraleRating::B, r.morale_after, &[], &mut d).unwrap();
        assert!(ok);
    }

    /// An A brigade (10 boxes) is A down to 6 boxes, B down to 3, then C (assumed chart).
    #[test]
    fn strength_level_from_the_loss_chart_7_1() {
        let t = builtin();
        let levels: Vec<Option<Size>> = (0..=10).map(|r| size_from_boxes(t, r)).collect();
        use Size::*;
        assert_eq!(
            levels,
            [
                None,
                Some(C),
                Some(C),
                Some(B),
                Some(B),
                Some(B),
                Some(A),
                Some(A),
                Some(A),
                Some(A),
                Some(A)
            ]
        );
        assert_eq!(size_from_boxes(t, 20), Some(AA));
        assert_eq!(size_from_boxes(t, 19), Some(AA));
        assert_eq!(size_from_boxes(t, 15), Some(AB));
        assert_eq!(size_from_boxes(t, 200), Some(AAA));
    }

    #[test]
    fn wound_recovery_25_4_7() {
        let t = builtin();
        let mut d = ScriptedDice::new();
        d.push(Purpose::CommanderLoss, [2, 3, 5]);
        let r: Vec<_> = (0..3)
            .map(|_| wound_recovery(t, &mut d).unwrap().0)
            .collect();
        assert_eq!(
            r,
            [
                WoundRecovery::Dead,
                WoundRecovery::StillOut,
                WoundRecovery::Returns
            ]
        );
    }

    #[test]
    fn replacement_25_4_3() {
        let s = |id: &str, d, stars| Successor {
            id: id.into(),
            designated: d,
            stars,
        };
        assert_eq!(
            replacement(LostEchelon::Corps, &[s("a", false, 2), s("b", true, 1)]),
            Replacement::Promote { id: "b".into() }
        );
        assert_eq!(
            replacement(LostEchelon::Corps, &[s("a", false, 2), s("b", false, 2)]),
            Replacement::OwnerChooses {
                candidates: vec!["a".into(), "b".into()]
            }
        );
        assert_eq!(
            replacement(LostEchelon::Division, &[]),
            Replacement::Generic
        );
    }

    #[test]
    fn blood_lust_eligibility_21_3_3() {
        let c1 = [CommanderIn::new("x", 1, false)];
        assert!(high_morale(MoraleRating::A, false, &[]));
        assert!(!high_morale(MoraleRating::B, true, &[]));
        assert!(!high_morale(MoraleRating::C, false, &[]));
        assert!(high_morale(MoraleRating::C, false, &c1));
        assert!(!high_morale(MoraleRating::D, false, &c1));
    }
}
