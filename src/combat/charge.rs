//! Cavalry charges (rule 16): against infantry/artillery (form Square, defender's Check to
//! Stand, Charge Successful, Breakoff attempt, Breakoff, Repulse, Follow-on Charges on the same
//! target, Blown) and against cavalry (defender checks first, Won/Draw/Lost losses, both
//! retreat and become Blown); reaction charges (16.5) are regular charges flagged `reaction`.
//!
//! Owns: one charge from "the cavalry is in the target hex" to "results applied". Must not:
//! resolve the Opportunity Fire a charge allows (the result says when artillery may fire; the
//! engine resolves it with [`super::fire`]), move anything, or keep state. A Follow-on Charge
//! against a *new* target is a new call with `follow_on = true`.
//!
//! Dice order: defender's Check to Stand, attacker's (cavalry vs cavalry), then — successful
//! charge: defender's loss roll (or Gun Loss roll for lone artillery), stacked artillery's Gun
//! Loss roll, attacker's loss roll, one defender roll per Follow-on; — defender stood:
//! Breakoff Morale Check, Breakoff or Repulse roll, defender's odd/even roll; — cavalry vs
//! cavalry: defender's loss roll, attacker's loss roll, Gun Loss roll for artillery in a
//! beaten cavalry's hex. All on [`Purpose::Charge`]; then Commander Loss Checks.

use serde::{Deserialize, Serialize};

use super::close::{StandCheck, capped, commander_advantage};
use super::morale::{Apply, MoraleCheck, apply, high_morale, morale_check};
use super::tables::CombatTables;
use super::{
    CombatError, Combatant, GunLoss, Loss, MoraleState, Retreat, Side, SideResult, Size, Trace,
    best_rating, morale_index,
};
use crate::provenance::Provenance;
use crate::rules::dice::{Dice, Purpose};
use crate::units::{UnitFormation, UnitKind};

/// National cavalry rules that change the procedure (26.4, 26.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum CavalryNation {
    #[default]
    Standard,
    /// 26.4: Breakoff only with a Commander (no +1); Blown before retreating.
    British,
    /// 26.6: charges only DG/Routed targets; Blown before retreating; evades charges.
    Cossack,
}

/// Player decisions a charge needs (DESIGN: steps that can wait for a decision).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct ChargeDecisions {
    /// The target forms Square (16.2.1). Ignored if it may not (DG, Routed, not infantry,
    /// `square_forbidden`).
    pub form_square: bool,
    /// Follow-on Charges against the same target after a Successful Charge, 0..=3 (16.2.7.2).
    pub follow_ons_same_target: u8,
    /// Cavalry vs cavalry: a charging defender that is reaction-charged checks second and
    /// forfeits its charge (16.4.1.1).
    pub defender_checks_second: bool,
}

/// Everything a charge needs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChargeInput {
    pub attacker: Combatant,
    pub defender: Combatant,
    #[serde(default)]
    pub attacker_nation: CavalryNation,
    /// The defending cavalry is Cossack (26.6.2).
    #[serde(default)]
    pub defender_cossack: bool,
    #[serde(default)]
    pub night: bool,
    /// This is a Follow-on Charge against a new target (16.2.7.3): Shaken or Wrecked cavalry
    /// may make it (16.2.7.1).
    #[serde(default)]
    pub follow_on: bool,
    /// This is a Reaction Charge (16.5): no Follow-ons (16.5.4).
    #[serde(default)]
    pub reaction: bool,
    /// The target may not form Square (16.2.7.4 Follow-on restriction, 16.5.11/22.1.4).
    #[serde(default)]
    pub square_forbidden: bool,
    /// The defending cavalry was itself charging (16.4.3.1).
    #[serde(default)]
    pub defender_was_charging: bool,
    #[serde(default)]
    pub decisions: ChargeDecisions,
    #[serde(default)]
    pub skip_commander_loss: bool,
}

/// How a charge ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChargeOutcome {
    /// 16.2.3: the defender failed; it Routs.
    Successful,
    /// 16.2.5: the defender stood and the cavalry broke off.
    Breakoff,
    /// 16.2.6: the defender stood and the cavalry failed its Breakoff attempt.
    Repulse,
    /// 16.3.3: a lone Skirmisher must retreat one hex to cover or friends, or is eliminated.
    SkirmisherEvades,
    /// 26.6.2: a charged Cossack retreats 6 and is Blown.
    CossackEvades,
    /// 16.4.2: cavalry vs cavalry.
    AttackerWon,
    DefenderWon,
    Draw,
}

impl std::fmt::Display for ChargeOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ChargeOutcome::Successful => "Charge Successful",
            ChargeOutcome::Breakoff => "Breakoff",
            ChargeOutcome::Repulse => "Repulse",
            ChargeOutcome::SkirmisherEvades => "Skirmisher evades",
            ChargeOutcome::CossackEvades => "Cossack evades",
            ChargeOutcome::AttackerWon => "Attacker Won",
            ChargeOutcome::DefenderWon => "Defender Won",
            ChargeOutcome::Draw => "Draw",
        })
    }
}

/// One Follow-on Charge against the same target (16.2.7.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FollowOn {
    pub roll: u8,
    pub modifier: i8,
    pub loss: Loss,
}

/// What a resolved charge reports.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChargeResult {
    pub outcome: ChargeOutcome,
    pub checks: Vec<StandCheck>,
    /// The defender formed Square (16.2.1) — the engine resolves any Opportunity Fire it
    /// triggers (17.4.6) before calling.
    pub formed_square: bool,
    pub breakoff_check: Option<MoraleCheck>,
    /// Artillery in the target hex may fire Opportunity Fire as Cannister now (Breakoff "OF",
    /// Repulse, Successful Charge: 16.2.3.1, 16.2.5, 16.2.6).
    pub opportunity_fire: bool,
    /// The defender's odd/even roll after Breakoff or Repulse (odd = M-1).
    pub defender_odd_roll: Option<u8>,
    pub follow_ons: Vec<FollowOn>,
    /// Further Follow-on Charges (against a new target within 2 hexes) are allowed.
    pub may_follow_on: bool,
    /// Cavalry vs cavalry: non-cavalry units in the beaten defender's hex Rout (16.4.2.1).
    pub defender_hex_others_rout: bool,
    /// Blown before retreating (British 26.4.1, Cossacks 26.6.3).
    pub blown_before_retreat: bool,
    /// A winning charging defender may continue its own charge (16.4.3.1).
    pub defender_may_continue: bool,
    pub attacker: SideResult,
    pub defender: SideResult,
    pub notes: Vec<String>,
    pub trace: Trace,
}

fn charge_need(t: &CombatTables, c: &Combatant) -> u8 {
    t.stand.need[morale_index(c.morale_rating)]
}

/// Check to Stand modifiers for `side` in a charge (chart p4), uncapped.
pub fn stand_modifiers(t: &CombatTables, i: &ChargeInput, side: Side) -> Vec<(String, i8)> {
    let m = &t.stand.charge;
    let v = |k: &str| m.get(k).map_or(0, |x| x.value);
    let (me, opp) = match side {
        Side::Attacker => (&i.attacker, &i.defender),
        Side::Defender => (&i.defender, &i.attacker),
    };
    let vs_cav = i.defender.kind.is_cavalry();
    let mut out: Vec<(String, i8)> = Vec::new();
    let mut add = |name: &str, on: bool| {
        if on {
            out.push((name.to_string(), v(name)));
        }
    };
    add("blood_lust", me.morale_state == MoraleState::BloodLust);
    add("shaken", me.morale_state == MoraleState::Shaken);
    add("disorganized", me.morale_state == MoraleState::Disorganized);
    add("wrecked", me.is_wrecked());
    let adv = if vs_cav {
        commander_advantage(&i.attacker.commanders, &i.defender.commanders) == Some(side)
    } else {
        // 16.2.2 box: only a defending Commander that outranks any attacking Commander; a
        // defending 0 against none gives nothing.
        side == Side::Defender
            && match (
                best_rating(&i.defender.commanders),
                best_rating(&i.attacker.commanders),
            ) {
                (Some(0), None) | (None, _) => false,
                (Some(_), None) => true,
                (Some(d), Some(a)) => d > a,
            }
    };
    add("commander_advantage", adv);
    add(
        "opponent_twice_size",
        opp.effective_size().at_least_twice(me.effective_size()),
    );
    add(
        "attacked_in_rear",
        side == Side::Defender && me.attacked_in_rear,
    );
    add(
        "artillery_skirmishers_only",
        me.only_artillery_or_skirmishers(),
    );
    if vs_cav {
        let heavy = |c: &Combatant| c.kind == UnitKind::CavalryHeavy;
        add(
            "light_vs_heavy",
            me.kind.is_cavalry() && opp.kind.is_cavalry() && !heavy(me) && heavy(opp),
        );
        add(
            "blown_or_stationary",
            side == Side::Defender && (me.blown || me.stationary),
        );
    } else if side == Side::Defender {
        add("in_square", me.formation == UnitFormation::Square);
        add(
            "in_march_column",
            me.formation == UnitFormation::MarchColumn,
        );
        add(
            "in_line",
            me.formation == UnitFormation::Line && !me.line_flanks_secure,
        );
    }
    out
}

fn roll_check(
    t: &CombatTables,
    i: &ChargeInput,
    side: Side,
    dice: &mut dyn Dice,
    trace: &mut Trace,
) -> Result<StandCheck, CombatError> {
    let me = match side {
        Side::Attacker => &i.attacker,
        Side::Defender => &i.defender,
    };
    let need = charge_need(t, me);
    let modifiers = stand_modifiers(t, i, side);
    let modifier = capped(&modifiers, t.stand.max_modifier);
    let auto = if me.routed() {
        Some("Routed: automatically fails (16.3.1)".to_string())
    } else if me.lone_artillery() && me.formation == UnitFormation::Limbered {
        Some("Limbered artillery alone: automatically fails (16.3.2)".to_string())
    } else {
        None
    };
    if let Some(why) = auto {
        return Ok(StandCheck {
            side,
            need,
            roll: None,
            modifier,
            modifiers,
            automatic: Some(why),
            stands: false,
        });
    }
    let d = dice.roll(Purpose::Charge, 6)?;
    trace.dice.push(d);
    let stands = d.value >= t.stand.unmodified_always_stands
        || i16::from(d.value) + i16::from(modifier) >= i16::from(need);
    Ok(StandCheck {
        side,
        need,
        roll: Some(d.value),
        modifier,
        modifiers,
        automatic: None,
        stands,
    })
}

fn new_result(i: &ChargeInput, outcome: ChargeOutcome) -> ChargeResult {
    ChargeResult {
        outcome,
        checks: vec![],
        formed_square: false,
        breakoff_check: None,
        opportunity_fire: false,
        defender_odd_roll: None,
        follow_ons: vec![],
        may_follow_on: false,
        defender_hex_others_rout: false,
        blown_before_retreat: i.attacker_nation != CavalryNation::Standard,
        defender_may_continue: false,
        attacker: SideResult {
            morale_before: i.attacker.morale_state,
            morale_after: i.attacker.morale_state,
            ..Default::default()
        },
        defender: SideResult {
            morale_before: i.defender.morale_state,
            morale_after: i.defender.morale_state,
            ..Default::default()
        },
        notes: vec![],
        trace: Trace::default(),
    }
}

/// Check that a charge may be made at all (16.1.1, 26.6.1, 27.1.3).
pub fn check_legal(i: &ChargeInput) -> Result<(), CombatError> {
    let a = &i.attacker;
    if !a.kind.is_cavalry() {
        return Err(CombatError::Illegal("only cavalry charges (16.0)".into()));
    }
    if i.night {
        return Err(CombatError::Illegal(
            "cavalry cannot charge at night (27.1.3)".into(),
        ));
    }
    if a.blown {
        return Err(CombatError::Illegal(
            "Blown cavalry may not charge (16.1.1)".into(),
        ));
    }
    if i.follow_on {
        if matches!(
            a.morale_state,
            MoraleState::Disorganized | MoraleState::Routed
        ) {
            return Err(CombatError::Illegal(
                "DG or Routed cavalry may not Follow-on Charge (16.2.7.1)".into(),
            ));
        }
        if i.defender.kind.is_cavalry() {
            return Err(CombatError::Illegal(
                "Follow-on Charges may not target cavalry (16.2.7)".into(),
            ));
        }
    } else if !matches!(a.morale_state, MoraleState::Normal | MoraleState::BloodLust)
        || a.is_wrecked()
    {
        return Err(CombatError::Illegal(
            "only Normal or Blood Lust, unwrecked cavalry may charge (16.1.1)".into(),
        ));
    }
    if i.attacker_nation == CavalryNation::Cossack
        && !matches!(
            i.defender.morale_state,
            MoraleState::Disorganized | MoraleState::Routed
        )
    {
        return Err(CombatError::Illegal(
            "Cossacks may only charge Disorganized or Routed targets (26.6.1)".into(),
        ));
    }
    Ok(())
}

/// The Morale Check a cavalry unit makes to Reaction Charge a trigger outside its frontal
/// arc (16.5.5; a failure still counts as its Reaction Charge, 16.5.3, and from a flank or
/// rear hex forces a Cavalry Withdrawal, 22.1).
pub fn reaction_check(
    t: &CombatTables,
    cavalry: &Combatant,
    dice: &mut dyn Dice,
) -> Result<(MoraleCheck, Trace), CombatError> {
    let mut trace = Trace::default();
    let c = morale_check(
        t,
        cavalry.morale_rating,
        &cavalry.commanders,
        true,
        0,
        Purpose::Charge,
        dice,
        &mut trace,
    )?;
    Ok((c, trace))
}

/// Resolve a cavalry charge (16).
pub fn resolve_charge(
    t: &CombatTables,
    input: &ChargeInput,
    dice: &mut dyn Dice,
) -> Result<ChargeResult, CombatError> {
    check_legal(input)?;
    if input.decisions.follow_ons_same_target > 3 {
        return Err(CombatError::Invalid {
            field: "follow_ons_same_target".into(),
            reason: "at most 3 Follow-on Charges (16.2.7)".into(),
        });
    }
    if input.defender.kind.is_cavalry() {
        return vs_cavalry(t, input, dice);
    }
    if input.defender.lone_skirmisher() {
        let mut r = new_result(input, ChargeOutcome::SkirmisherEvades);
        r.notes.push(
            "lone Skirmisher: retreats 1 hex to cover/friends and the cavalry returns unblown, \
             or it is eliminated and the charge ends (16.3.3)"
                .into(),
        );
        return Ok(r);
    }
    vs_infantry(t, input, dice)
}

/// Which decisions a player must give before [`resolve_charge`] (DESIGN: steps that can wait
/// for a decision). Follow-ons can also be decided afterwards, one at a time, with
/// [`resolve_follow_on_same_target`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Decision {
    /// The target may form Square (16.2.1): the defender decides.
    FormSquare,
    /// After a Successful Charge, up to this many Follow-ons (16.2.7): the attacker decides.
    FollowOns { max: u8 },
    /// A charging defender being reaction-charged may check second and forfeit (16.4.1.1).
    CheckSecond,
}

/// The decisions a charge may need, given the situation before it is resolved.
pub fn decisions_needed(i: &ChargeInput) -> Vec<Decision> {
    let mut out = Vec::new();
    let d = &i.defender;
    if d.kind.is_cavalry() {
        if i.defender_was_charging {
            out.push(Decision::CheckSecond);
        }
        return out;
    }
    if d.kind.is_infantry()
        && !i.square_forbidden
        && d.formation != UnitFormation::Square
        && !matches!(
            d.morale_state,
            MoraleState::Disorganized | MoraleState::Routed
        )
    {
        out.push(Decision::FormSquare);
    }
    if !i.reaction && !d.lone_skirmisher() {
        out.push(Decision::FollowOns { max: 3 });
    }
    out
}

/// One Follow-on Charge against the same, still Routed target, decided after the charge
/// (16.2.7.2): re-roll the defender's losses on the column of its ORIGINAL size; the cavalry
/// takes no losses; no Reaction Charges. `i.defender` is the target as it is now (Routed, with
/// its current loss track); `i.attacker` the cavalry now (DG or Routed may not follow on).
pub fn resolve_follow_on_same_target(
    t: &CombatTables,
    i: &ChargeInput,
    original_size: Size,
    dice: &mut dyn Dice,
) -> Result<(FollowOn, SideResult, Trace), CombatError> {
    if i.reaction
        || matches!(
            i.attacker.morale_state,
            MoraleState::Disorganized | MoraleState::Routed
        )
    {
        return Err(CombatError::Illegal(
            "no Follow-on Charges after a Reaction Charge or by DG/Routed cavalry (16.2.7.1, 16.5.4)"
                .into(),
        ));
    }
    let mut trace = Trace::default();
    let (roll, modifier, loss) = defender_loss_roll(t, i, original_size, &mut *dice, &mut trace)?;
    let mut sr = SideResult {
        morale_before: i.defender.morale_state,
        loss_roll: Some(roll),
        loss_modifier: modifier,
        table_result: Some(loss),
        loss,
        ..Default::default()
    };
    let (st, after) = apply(
        t,
        Apply {
            rout: true,
            ..Apply::to(&i.defender, loss, !i.skip_commander_loss)
        },
        &mut *dice,
        &mut trace,
        &mut sr.notes,
    )?;
    sr.morale_after = st;
    sr.aftermath = after;
    sr.retreat = Retreat::Rout;
    Ok((
        FollowOn {
            roll,
            modifier,
            loss,
        },
        sr,
        trace,
    ))
}

fn defender_loss_roll(
    t: &CombatTables,
    i: &ChargeInput,
    original_size: Size,
    dice: &mut dyn Dice,
    trace: &mut Trace,
) -> Result<(u8, i8, Loss), CombatError> {
    let col = if original_size.is_aa_plus() {
        1
    } else if original_size >= Size::A {
        2
    } else {
        3
    };
    let asz = i.attacker.effective_size();
    let m = if asz.is_aa_plus() {
        t.charge_successful.modifier("attacker_size_aa_plus")
    } else if asz >= Size::A {
        t.charge_successful.modifier("attacker_size_a_ab")
    } else {
        0
    };
    let d = dice.roll(Purpose::Charge, 6)?;
    trace.dice.push(d);
    let (v, cell) = t
        .charge_successful
        .lookup(i32::from(d.value) + i32::from(m), col)?;
    if cell.provenance != Provenance::Seed {
        trace.cells.push(cell);
    }
    let mut loss = v.loss;
    if !i.defender.mix().infantry {
        loss.stragglers = 0; // 20.3
    }
    Ok((d.value, m, loss))
}

fn gun_loss_roll(
    t: &CombatTables,
    c: &Combatant,
    by_cavalry: bool,
    purpose: Purpose,
    dice: &mut dyn Dice,
    trace: &mut Trace,
    notes: &mut Vec<String>,
) -> Result<GunLoss, CombatError> {
    let mut m = 0i8;
    if c.mix().all_artillery_horse {
        m += t.gun_loss.modifier("all_horse_artillery");
    }
    if by_cavalry {
        m += t.gun_loss.modifier("attacked_by_cavalry");
    }
    let d = dice.roll(purpose, 6)?;
    trace.dice.push(d);
    let (g, cell) = t.gun_loss.lookup(i32::from(d.value) + i32::from(m), 0)?;
    if cell.provenance != Provenance::Seed {
        trace.cells.push(cell);
    }
    notes.push(format!(
        "Gun Loss roll {}{m:+} → {} (23.1.1)",
        d.value,
        match g {
            GunLoss::All => "all guns".to_string(),
            GunLoss::Points(p) => format!("{p} GP"),
        }
    ));
    Ok(g)
}

/// A charge against infantry, artillery or a Skirmisher/artillery combo (16.2, 16.3): the
/// target may form Square, checks to stand, and the charge is Successful or ends in a Breakoff
/// or Repulse.
fn vs_infantry(
    t: &CombatTables,
    input: &ChargeInput,
    dice: &mut dyn Dice,
) -> Result<ChargeResult, CombatError> {
    let mut i = input.clone();
    let mut r = new_result(&i, ChargeOutcome::Successful);
    form_square(&mut i, &mut r);
    let check = roll_check(t, &i, Side::Defender, &mut *dice, &mut r.trace)?;
    let stood = check.stands;
    let routed_at_start = i.defender.routed();
    r.checks.push(check);
    let mut trace = std::mem::take(&mut r.trace);
    if stood {
        stood_against(t, &i, &mut r, &mut *dice, &mut trace)?;
    } else {
        successful(t, &i, &mut r, routed_at_start, &mut *dice, &mut trace)?;
    }
    r.trace = trace;
    Ok(r)
}

/// 16.2.1: the target forms Square when it chose to and may.
fn form_square(i: &mut ChargeInput, r: &mut ChargeResult) {
    let d = &i.defender;
    let can_square = d.kind.is_infantry()
        && !i.square_forbidden
        && !matches!(
            d.morale_state,
            MoraleState::Disorganized | MoraleState::Routed
        );
    if i.decisions.form_square && d.formation != UnitFormation::Square {
        if can_square {
            i.defender.formation = UnitFormation::Square;
            r.formed_square = true;
            r.notes.push("target forms Square (16.2.1)".into());
            // 8.3 with 10.0: a Square's every hexside is a front; formed before the melee, it
            // is not charged in the rear (as `--square-fire` reads it again, decision 0195).
            if i.defender.attacked_in_rear {
                i.defender.attacked_in_rear = false;
                r.notes
                    .push("in Square it has no rear: not attacked in the rear (10.0)".into());
            }
        } else {
            r.notes.push(
                "target may not form Square (DG/Routed, not infantry, or forbidden: 16.2.7.4, 22.1.4)"
                    .into(),
            );
        }
    }
}

/// 16.2.3: the defender failed to stand. Its losses (or the Gun Loss Table for lone artillery,
/// 16.3.2), the attacker's, the Follow-ons on the same target (16.2.7.2); the defender Routs.
fn successful(
    t: &CombatTables,
    i: &ChargeInput,
    r: &mut ChargeResult,
    routed_at_start: bool,
    dice: &mut dyn Dice,
    trace: &mut Trace,
) -> Result<(), CombatError> {
    r.outcome = ChargeOutcome::Successful;
    r.opportunity_fire = i.defender.mix().artillery;
    let original_size = i.defender.effective_size();
    // Defender's losses (16.2.3) or Gun Loss Table for lone artillery (16.3.2).
    let mut def_losses: Vec<Loss> = Vec::new();
    if i.defender.lone_artillery() {
        let g = gun_loss_roll(
            t,
            &i.defender,
            true,
            Purpose::Charge,
            &mut *dice,
            trace,
            &mut r.defender.notes,
        )?;
        r.defender.aftermath.gun_loss = Some(g);
    } else {
        let (roll, m, loss) = defender_loss_roll(t, i, original_size, &mut *dice, trace)?;
        r.defender.loss_roll = Some(roll);
        r.defender.loss_modifier = m;
        r.defender.table_result = Some(loss);
        def_losses.push(loss);
        if i.defender.mix().artillery {
            let g = gun_loss_roll(
                t,
                &i.defender,
                true,
                Purpose::Charge,
                &mut *dice,
                trace,
                &mut r.defender.notes,
            )?;
            r.defender.aftermath.gun_loss = Some(g);
        }
    }
    let st = successful_attacker_losses(t, i, r, routed_at_start, &mut *dice, trace)?;
    // Follow-ons on the same target (16.2.7.2): not after reactions, not if DG/Routed.
    let follow_ok = !i.reaction
        && !matches!(st, MoraleState::Disorganized | MoraleState::Routed)
        && !i.defender.lone_artillery();
    if i.decisions.follow_ons_same_target > 0 && !follow_ok {
        r.notes.push(
            "no Follow-on Charges: Reaction Charge, lone artillery, or cavalry DG/Routed (16.2.7.1, 16.5.4)"
                .into(),
        );
    }
    if follow_ok {
        for _ in 0..i.decisions.follow_ons_same_target {
            let (roll, m, loss) = defender_loss_roll(t, i, original_size, &mut *dice, trace)?;
            r.follow_ons.push(FollowOn {
                roll,
                modifier: m,
                loss,
            });
            def_losses.push(loss);
        }
        r.may_follow_on = (r.follow_ons.len() as u8) < 3 && !i.defender.kind.is_cavalry();
    }
    routed_defender_losses(t, i, r, def_losses, &mut *dice, trace)?;
    r.attacker.retreat = cavalry_retreat(st);
    r.attacker.blown = true;
    Ok(())
}

/// The attacker's losses after a Successful Charge: none against a Routed target (16.3.1),
/// lone artillery (16.3.2) or the Skirmisher/artillery combo (16.3.3.3). Returns its Morale
/// State after them.
fn successful_attacker_losses(
    t: &CombatTables,
    i: &ChargeInput,
    r: &mut ChargeResult,
    routed_at_start: bool,
    dice: &mut dyn Dice,
    trace: &mut Trace,
) -> Result<MoraleState, CombatError> {
    let attacker_rolls = !routed_at_start && !i.defender.only_artillery_or_skirmishers();
    let mut att_loss = Loss::NONE;
    if attacker_rolls {
        let dd = dice.roll(Purpose::Charge, 6)?;
        trace.dice.push(dd);
        let (v, cell) = t.charge_successful.lookup(i32::from(dd.value), 0)?;
        if cell.provenance != Provenance::Seed {
            trace.cells.push(cell);
        }
        r.attacker.loss_roll = Some(dd.value);
        r.attacker.table_result = Some(v.loss);
        att_loss = v.loss;
        att_loss.stragglers = 0; // cavalry takes no Stragglers (20.3)
        if t.charge_successful.bulleted(0)
            && dd.value == 1
            && high_morale(
                i.attacker.morale_rating,
                i.attacker.is_wrecked(),
                &i.attacker.commanders,
            )
        {
            att_loss.morale_change = 2;
            r.attacker.blood_lust = true;
            r.attacker
                .notes
                .push("unmodified 1: Blood Lust, M+2 (21.3.3)".into());
        }
        if i.defender.formation == UnitFormation::MarchColumn {
            att_loss.permanent = 0;
            r.attacker
                .notes
                .push("defender in March Column: Permanent Casualties ignored (16.3.4)".into());
        }
    } else {
        r.attacker
            .notes
            .push("attacker takes no losses (16.3.1, 16.3.2, 16.3.3.3)".into());
    }
    r.attacker.loss = att_loss;
    let mut notes = std::mem::take(&mut r.attacker.notes);
    let (st, after) = apply(
        t,
        Apply::to(&i.attacker, att_loss, !i.skip_commander_loss),
        &mut *dice,
        trace,
        &mut notes,
    )?;
    r.attacker.notes = notes;
    r.attacker.morale_after = st;
    r.attacker.aftermath = after;
    Ok(st)
}

/// Apply each of the Routed defender's loss events in turn — the charge's and each Follow-on's
/// (each may trigger commander checks, 20.1.1); the Skirmisher's allowance is shared (20.2).
fn routed_defender_losses(
    t: &CombatTables,
    i: &ChargeInput,
    r: &mut ChargeResult,
    def_losses: Vec<Loss>,
    dice: &mut dyn Dice,
    trace: &mut Trace,
) -> Result<(), CombatError> {
    let mut state = i.defender.morale_state;
    let mut track = i.defender.track;
    let mut wrecked = i.defender.is_wrecked();
    let mut div = i.defender.division.clone();
    let mut total = Loss::NONE;
    // 20.2: the Skirmisher's allowance is shared by the charge and its Follow-ons.
    let mut absorbs = i.defender.skirmisher_absorbs;
    let mut notes = std::mem::take(&mut r.defender.notes);
    notes.push("defender Routs; its retreat waits for Follow-ons (16.2.3)".into());
    let gun = r.defender.aftermath.gun_loss;
    let mut agg = super::Aftermath::default();
    let events = if def_losses.is_empty() {
        vec![Loss::NONE]
    } else {
        def_losses
    };
    for l in events {
        let (st2, after) = apply(
            t,
            Apply {
                loss: l,
                before: state,
                rout: true,
                wrecked_before: wrecked,
                track,
                division: div.as_ref(),
                commanders: &i.defender.commanders,
                roll_commander_loss: !i.skip_commander_loss,
                force_commander_check: false,
                skirmisher_absorbs: absorbs,
                lead_infantry: i.defender.kind.is_infantry(),
            },
            &mut *dice,
            trace,
            &mut notes,
        )?;
        absorbs -= after.skirmisher_absorbed;
        agg.skirmisher_absorbed += after.skirmisher_absorbed;
        state = st2;
        track = after.track;
        if after.brigade_became_wrecked
            && let Some(d) = div.as_mut()
        {
            d.wrecked_brigades = d.wrecked_brigades.saturating_add(1);
        }
        wrecked = after.brigade_wrecked;
        agg.brigade_became_wrecked |= after.brigade_became_wrecked;
        agg.division_became_wrecked |= after.division_became_wrecked;
        agg.division_wrecked = after.division_wrecked;
        agg.brigade_wrecked = after.brigade_wrecked;
        agg.track = after.track;
        agg.commander_checks.extend(after.commander_checks);
        agg.commanders_lost.extend(after.commanders_lost);
        total = total.plus(l);
    }
    agg.gun_loss = gun;
    r.defender.notes = notes;
    r.defender.loss = total;
    r.defender.morale_after = state;
    r.defender.aftermath = agg;
    r.defender.retreat = Retreat::Rout;
    Ok(())
}

/// The defender stood (16.2.4): the cavalry's Breakoff attempt (British: only with a
/// Commander, no +1, 26.4), then a Breakoff (16.2.5) or a Repulse (16.2.6); the defender's odd
/// roll is M-1. Against a lone battery or the Skirmisher/artillery combo "the attacker does not
/// roll for losses in combat, regardless of the result" (16.3.2, 16.3.3.3): the Breakoff die is
/// rolled only for its OF, no Repulse die at all (decision 0090).
fn stood_against(
    t: &CombatTables,
    i: &ChargeInput,
    r: &mut ChargeResult,
    dice: &mut dyn Dice,
    trace: &mut Trace,
) -> Result<(), CombatError> {
    let no_attacker_losses = i.defender.only_artillery_or_skirmishers();
    let british = i.attacker_nation == CavalryNation::British;
    let try_breakoff = !british || !i.attacker.commanders.is_empty();
    let mut broke_off = false;
    if try_breakoff {
        let c = morale_check(
            t,
            i.attacker.morale_rating,
            &i.attacker.commanders,
            !british,
            0,
            Purpose::Charge,
            &mut *dice,
            trace,
        )?;
        broke_off = c.passed;
        r.breakoff_check = Some(c);
    } else {
        r.notes
            .push("British cavalry without a Commander cannot Breakoff (26.4)".into());
    }
    let mut att_loss = if broke_off {
        r.outcome = ChargeOutcome::Breakoff;
        breakoff_roll(t, i, r, &mut *dice, trace)?
    } else {
        r.outcome = ChargeOutcome::Repulse;
        r.opportunity_fire = i.defender.mix().artillery;
        if no_attacker_losses {
            Loss::NONE
        } else {
            repulse_roll(t, i, r, &mut *dice, trace)?
        }
    };
    if no_attacker_losses {
        att_loss = Loss::NONE;
        r.attacker.notes.push(
            "charging a lone battery or Skirmisher/artillery combo: the attacker rolls no losses (16.3.2, 16.3.3.3)"
                .into(),
        );
    }
    att_loss.stragglers = 0;
    if i.defender.formation == UnitFormation::MarchColumn {
        att_loss.permanent = 0;
    }
    // Defender: odd roll = M-1 (16.2.5, 16.2.6).
    let od = dice.roll(Purpose::Charge, 6)?;
    trace.dice.push(od);
    r.defender_odd_roll = Some(od.value);
    let def_m = if od.value % 2 == 1 { -1 } else { 0 };
    r.defender.loss = Loss::new(0, 0, def_m);
    r.attacker.loss = att_loss;
    let mut notes = std::mem::take(&mut r.attacker.notes);
    let (st, after) = apply(
        t,
        Apply::to(&i.attacker, att_loss, !i.skip_commander_loss),
        &mut *dice,
        trace,
        &mut notes,
    )?;
    r.attacker.notes = notes;
    r.attacker.morale_after = st;
    r.attacker.aftermath = after;
    r.attacker.retreat = cavalry_retreat(st);
    r.attacker.blown = true;
    r.defender.morale_after = i.defender.morale_state.shift(def_m);
    if r.defender.morale_after == MoraleState::Routed {
        r.defender.retreat = Retreat::Rout;
    }
    Ok(())
}

/// 16.2.5: the Breakoff column, modified by the Lead Unit's morale: a Morale Change or an OF.
fn breakoff_roll(
    t: &CombatTables,
    i: &ChargeInput,
    r: &mut ChargeResult,
    dice: &mut dyn Dice,
    trace: &mut Trace,
) -> Result<Loss, CombatError> {
    let m = t.breakoff.modifier(
        ["morale_a", "morale_b", "morale_c", "morale_d", "morale_e"]
            [morale_index(i.attacker.morale_rating)],
    );
    let dd = dice.roll(Purpose::Charge, 6)?;
    trace.dice.push(dd);
    let (v, cell) = t.breakoff.lookup(i32::from(dd.value) + i32::from(m), 0)?;
    if cell.provenance != Provenance::Seed {
        trace.cells.push(cell);
    }
    r.attacker.loss_roll = Some(dd.value);
    r.attacker.loss_modifier = m;
    r.attacker.table_result = Some(v.loss);
    r.opportunity_fire = v.opportunity_fire && i.defender.mix().artillery;
    if v.opportunity_fire {
        r.notes
            .push("Breakoff OF: artillery in the target hex may fire Cannister (16.2.5)".into());
    }
    Ok(v.loss)
}

/// 16.2.6: the Repulse column, with its modifiers.
fn repulse_roll(
    t: &CombatTables,
    i: &ChargeInput,
    r: &mut ChargeResult,
    dice: &mut dyn Dice,
    trace: &mut Trace,
) -> Result<Loss, CombatError> {
    let mods = [
        (
            "defender_in_line",
            // chart p4 note 1: a Line with secure flanks is treated as Combat Column.
            i.defender.formation == UnitFormation::Line && !i.defender.line_flanks_secure,
        ),
        (
            "defender_in_square",
            i.defender.formation == UnitFormation::Square,
        ),
        (
            "defender_size_b_or_c",
            i.defender.effective_size().is_b_or_c(),
        ),
        (
            "attacker_size_aa_plus",
            i.attacker.effective_size().is_aa_plus(),
        ),
    ];
    let m: i8 = mods
        .iter()
        .filter(|(_, on)| *on)
        .map(|(n, _)| t.repulse.modifier(n))
        .sum();
    let dd = dice.roll(Purpose::Charge, 6)?;
    trace.dice.push(dd);
    let (v, cell) = t.repulse.lookup(i32::from(dd.value) + i32::from(m), 0)?;
    if cell.provenance != Provenance::Seed {
        trace.cells.push(cell);
    }
    r.attacker.loss_roll = Some(dd.value);
    r.attacker.loss_modifier = m;
    r.attacker.table_result = Some(v.loss);
    Ok(v.loss)
}

fn cavalry_retreat(state: MoraleState) -> Retreat {
    if state == MoraleState::Routed {
        Retreat::Rout
    } else {
        Retreat::Cavalry { min: 6, max: 12 }
    }
}

fn vs_cavalry(
    t: &CombatTables,
    i: &ChargeInput,
    dice: &mut dyn Dice,
) -> Result<ChargeResult, CombatError> {
    if i.defender_cossack {
        let mut r = new_result(i, ChargeOutcome::CossackEvades);
        r.defender.blown = true;
        r.notes.push(
            "charged Cossacks retreat 6 hexes and become Blown; the charger is not Blown but may \
             not move or charge again this phase (26.6.2)"
                .into(),
        );
        r.defender.retreat = Retreat::Cavalry { min: 6, max: 6 };
        return Ok(r);
    }
    let mut r = new_result(i, ChargeOutcome::Draw);
    let outcome = cavalry_checks(t, i, &mut r, &mut *dice)?;
    r.outcome = outcome;
    let mut trace = std::mem::take(&mut r.trace);
    cavalry_loss_rolls(t, i, &mut r, outcome, &mut *dice, &mut trace)?;
    // Beaten defending cavalry: other units in its hex Rout (16.4.2.1).
    if outcome == ChargeOutcome::AttackerWon
        && (i.defender.stack.infantry || i.defender.stack.artillery)
    {
        r.defender_hex_others_rout = true;
        r.notes
            .push("non-cavalry units in the defender's hex Rout and retreat 6 (16.4.2.1)".into());
        if i.defender.stack.artillery {
            let g = gun_loss_roll(
                t,
                &i.defender,
                true,
                Purpose::Charge,
                &mut *dice,
                &mut trace,
                &mut r.defender.notes,
            )?;
            r.defender.aftermath.gun_loss = Some(g);
        }
    }
    cavalry_apply(t, i, &mut r, &mut *dice, &mut trace)?;
    // 16.4.3 exceptions for a winning defender.
    if outcome == ChargeOutcome::DefenderWon && r.defender.morale_after != MoraleState::Routed {
        if i.defender_was_charging && !i.decisions.defender_checks_second {
            r.defender_may_continue = true;
            r.defender.retreat = Retreat::None;
            r.defender.blown = false;
            r.notes
                .push("winning charging defender may continue its charge (16.4.3.1)".into());
        } else if i.defender.stationary {
            r.defender.retreat = Retreat::None;
            r.defender.blown = false;
            r.notes.push(
                "winning stationary defender neither retreats nor is Blown (16.4.3.2)".into(),
            );
        }
    }
    r.trace = trace;
    Ok(r)
}

/// 16.4.1: the Checks to Stand — the first checker's failure loses (the other stands
/// automatically, 16.4.1.3); both standing is a Draw.
fn cavalry_checks(
    t: &CombatTables,
    i: &ChargeInput,
    r: &mut ChargeResult,
    dice: &mut dyn Dice,
) -> Result<ChargeOutcome, CombatError> {
    let first = if i.decisions.defender_checks_second {
        r.notes
            .push("defender checks second and forfeits its own charge (16.4.1.1)".into());
        Side::Attacker
    } else {
        Side::Defender
    };
    let c1 = roll_check(t, i, first, &mut *dice, &mut r.trace)?;
    let s1 = c1.stands;
    r.checks.push(c1);
    let outcome = if !s1 {
        let other = first.other();
        r.checks.push(StandCheck {
            side: other,
            need: charge_need(
                t,
                if other == Side::Attacker {
                    &i.attacker
                } else {
                    &i.defender
                },
            ),
            roll: None,
            modifier: 0,
            modifiers: vec![],
            automatic: Some("first checker failed: stands automatically (16.4.1.3)".into()),
            stands: true,
        });
        if first == Side::Defender {
            ChargeOutcome::AttackerWon
        } else {
            ChargeOutcome::DefenderWon
        }
    } else {
        let c2 = roll_check(t, i, first.other(), &mut *dice, &mut r.trace)?;
        let s2 = c2.stands;
        r.checks.push(c2);
        match (s2, first.other()) {
            (true, _) => ChargeOutcome::Draw,
            (false, Side::Attacker) => ChargeOutcome::DefenderWon,
            (false, Side::Defender) => ChargeOutcome::AttackerWon,
        }
    };
    Ok(outcome)
}

/// 16.4.2: both sides roll on the Cavalry vs. Cavalry Losses Table, in their result's column,
/// with the size adjustments (chart p4).
fn cavalry_loss_rolls(
    t: &CombatTables,
    i: &ChargeInput,
    r: &mut ChargeResult,
    outcome: ChargeOutcome,
    dice: &mut dyn Dice,
    trace: &mut Trace,
) -> Result<(), CombatError> {
    let both_bc =
        i.attacker.effective_size().is_b_or_c() && i.defender.effective_size().is_b_or_c();
    let both_aa =
        i.attacker.effective_size().is_aa_plus() && i.defender.effective_size().is_aa_plus();
    for side in [Side::Defender, Side::Attacker] {
        let me = if side == Side::Attacker {
            &i.attacker
        } else {
            &i.defender
        };
        let col = match (outcome, side) {
            (ChargeOutcome::Draw, _) => 1,
            (ChargeOutcome::AttackerWon, Side::Attacker)
            | (ChargeOutcome::DefenderWon, Side::Defender) => 0,
            _ => 2,
        };
        let dd = dice.roll(Purpose::Charge, 6)?;
        trace.dice.push(dd);
        let (v, cell) = t.cavalry_vs_cavalry.lookup(i32::from(dd.value), col)?;
        if cell.provenance != Provenance::Seed {
            trace.cells.push(cell);
        }
        let mut l = v.loss;
        l.stragglers = 0;
        let sr = if side == Side::Attacker {
            &mut r.attacker
        } else {
            &mut r.defender
        };
        sr.loss_roll = Some(dd.value);
        sr.table_result = Some(v.loss);
        if t.cavalry_vs_cavalry.bulleted(col)
            && dd.value == 1
            && high_morale(me.morale_rating, me.is_wrecked(), &me.commanders)
        {
            l.morale_change = 2;
            sr.blood_lust = true;
            sr.notes
                .push("unmodified 1: Blood Lust, M+2 (21.3.3)".into());
        }
        // Loss adjustments (chart p4; 8.2 item 25: "both" = both sides).
        if both_bc && l.permanent > 0 {
            l.permanent -= 1;
            sr.notes
                .push("both sides size B or C: losses −1 (chart p4)".into());
        }
        if both_aa {
            l.permanent = l.permanent.saturating_add(1);
            sr.notes
                .push("both sides size AA+: losses +1 (chart p4)".into());
        }
        sr.loss = l;
    }
    Ok(())
}

/// Apply each side's result; both retreat 6–12 and are Blown (16.4.3).
fn cavalry_apply(
    t: &CombatTables,
    i: &ChargeInput,
    r: &mut ChargeResult,
    dice: &mut dyn Dice,
    trace: &mut Trace,
) -> Result<(), CombatError> {
    for side in [Side::Attacker, Side::Defender] {
        let me = if side == Side::Attacker {
            &i.attacker
        } else {
            &i.defender
        };
        let sr = if side == Side::Attacker {
            &mut r.attacker
        } else {
            &mut r.defender
        };
        let gun = sr.aftermath.gun_loss;
        let mut notes = std::mem::take(&mut sr.notes);
        let (st, mut after) = apply(
            t,
            Apply::to(me, sr.loss, !i.skip_commander_loss),
            &mut *dice,
            trace,
            &mut notes,
        )?;
        after.gun_loss = gun;
        let sr = if side == Side::Attacker {
            &mut r.attacker
        } else {
            &mut r.defender
        };
        sr.notes = notes;
        sr.morale_after = st;
        sr.aftermath = after;
        sr.retreat = cavalry_retreat(st);
        sr.blown = true;
    }
    Ok(())
}
