//! Close Combat (15), village fighting (19), losses and morale (20, 21) and commanders (25):
//! every modifier, the special cases, the rulebook's worked examples, and the hand-worked
//! odds.

use staffwork::combat::close::{
    CloseCombatInput, Elevation, OrderCase, Outcome, Terrain, checking_order, resolve_close_combat,
    stand_modifiers,
};
use staffwork::combat::odds::close_combat_odds;
use staffwork::combat::tables::builtin;
use staffwork::combat::{
    Combatant, CommanderIn, DivisionTrack, GunLoss, Loss, LossTrack, MoraleState, Retreat, Side,
    Size,
};
use staffwork::rules::dice::{Purpose, ScriptedDice};
use staffwork::scenario::model::{MoraleRating as M, UnitFormation as F, UnitKind as K};

fn inf(size: Size, m: M, f: F) -> Combatant {
    let mut c = Combatant::new(K::Infantry, size, m);
    c.formation = f;
    c
}

fn cc(att: Combatant, def: Combatant) -> CloseCombatInput {
    CloseCombatInput {
        attacker: att,
        defender: def,
        terrain: Terrain::Clear,
        elevation: Elevation::Level,
        night: false,
        origin_hex_enemy_occupied: false,
        skip_commander_loss: false,
    }
}

fn dice(cc: &[u8], cmd: &[u8]) -> ScriptedDice {
    let mut d = ScriptedDice::new();
    d.push(Purpose::CloseCombat, cc.iter().copied());
    d.push(Purpose::CommanderLoss, cmd.iter().copied());
    d
}

fn mods(i: &CloseCombatInput, side: Side) -> Vec<String> {
    stand_modifiers(builtin(), i, side)
        .into_iter()
        .map(|(n, v)| format!("{n}{v:+}"))
        .collect()
}

/// Hand-worked check: `odds close-combat` for a size-A morale-B Column attacking a size-B
/// morale-C Line in clear terrain.
///
/// Checking order (chart p5): no Town/Village, no Fortified, level ground → case 4, the
/// smallest stack checks first: the defender (B < A).
/// Defender: morale C stands on 3+. Modifiers: the opponent stack (A) is twice its size (B)
/// → −1; nothing else (no Commanders, Normal, not wrecked, infantry present, not in rear,
/// not night). So it needs die − 1 ≥ 3, i.e. 4, 5 or 6 (6 would stand anyway): 3 in 6.
/// It fails on 1–3 (3 in 6) → Attacker Won = 3/6 = 18/36.
/// If it stands (3/6) the attacker checks: morale B stands on 2+; a Column attacking has no
/// modifier (only Line −1 / March Column −1), not smaller → no size modifier: stands on
/// 2–6 (5 in 6), fails on 1.
/// Defender Won = 3/6 × 1/6 = 3/36; Firefight = 3/6 × 5/6 = 15/36. Total 36/36.
/// With the two loss dice every branch is scaled to 6^4 = 1296: 648, 108, 540.
#[test]
fn hand_worked_odds_a_b_column_vs_b_c_line_clear() {
    let i = cc(inf(Size::A, M::B, F::Column), inf(Size::B, M::C, F::Line));
    let o = close_combat_odds(builtin(), &i).unwrap();
    let s = o.stand.as_ref().unwrap();
    assert_eq!(s.first_checker, "defender");
    assert_eq!(s.order_case, "smallest");
    assert_eq!(s.denominator, 36);
    assert_eq!(s.outcomes["attacker-won"], 18);
    assert_eq!(s.outcomes["defender-won"], 3);
    assert_eq!(s.outcomes["firefight"], 15);
    assert_eq!(s.checks[0].need, 3);
    assert_eq!(s.checks[0].modifier, -1);
    assert_eq!(s.checks[1].need, 2);
    assert_eq!(s.checks[1].modifier, 0);
    assert_eq!(o.denominator, 1296);
    assert_eq!(o.outcomes["attacker-won"], 648);
    assert_eq!(o.outcomes["defender-won"], 108);
    assert_eq!(o.outcomes["firefight"], 540);
    let sum: u64 = o.sides["attacker"].losses.values().sum();
    assert_eq!(sum, 1296);
    // The losing defender always Routs (15.3.2): exactly the Attacker Won branch.
    assert_eq!(o.sides["defender"].morale_after["routed"], 648);
}

/// Chart p5 checking order, cases 1–5.
#[test]
fn checking_order_chart_p5() {
    let mut i = cc(inf(Size::A, M::B, F::Column), inf(Size::B, M::C, F::Line));
    assert_eq!(
        checking_order(&i),
        (Side::Defender, true, OrderCase::Smallest)
    );
    i.defender.size = Size::A;
    assert_eq!(
        checking_order(&i),
        (Side::Attacker, true, OrderCase::EqualSize)
    );
    i.defender.size = Size::AA;
    assert_eq!(
        checking_order(&i),
        (Side::Attacker, true, OrderCase::Smallest)
    );
    i.elevation = Elevation::AttackerHigher;
    assert_eq!(
        checking_order(&i),
        (Side::Defender, true, OrderCase::AttackerHigher)
    );
    i.elevation = Elevation::AttackerLower;
    assert_eq!(
        checking_order(&i),
        (Side::Attacker, true, OrderCase::AttackerLower)
    );
    i.elevation = Elevation::AttackerHigher;
    i.terrain = Terrain::Fortified;
    assert_eq!(
        checking_order(&i),
        (Side::Attacker, true, OrderCase::Fortified)
    );
    i.terrain = Terrain::Village;
    assert_eq!(
        checking_order(&i),
        (Side::Attacker, false, OrderCase::Village)
    );
}

/// Chart p5 Check to Stand modifiers, one by one.
#[test]
fn every_close_combat_stand_modifier() {
    let base = cc(inf(Size::A, M::B, F::Column), inf(Size::A, M::C, F::Line));
    assert!(mods(&base, Side::Attacker).is_empty());
    assert!(mods(&base, Side::Defender).is_empty());

    let mut i = base.clone();
    i.attacker.morale_state = MoraleState::BloodLust;
    assert_eq!(mods(&i, Side::Attacker), ["blood_lust+1"]);
    i.attacker.morale_state = MoraleState::Shaken;
    assert_eq!(mods(&i, Side::Attacker), ["shaken-1"]);
    i.attacker.morale_state = MoraleState::Disorganized;
    assert_eq!(mods(&i, Side::Attacker), ["disorganized-2"]);

    let mut i = base.clone();
    i.attacker.commanders = vec![CommanderIn::new("a", 2, false)];
    assert_eq!(mods(&i, Side::Attacker), ["commander_advantage+1"]);
    i.defender.commanders = vec![CommanderIn::new("d", 1, true)]; // Fighter: 3
    assert_eq!(mods(&i, Side::Defender), ["commander_advantage+1"]);
    assert!(mods(&i, Side::Attacker).is_empty());
    // A 0-rated Commander against none: the side WITHOUT gets it (15.2.2 box).
    let mut i = base.clone();
    i.attacker.commanders = vec![CommanderIn::new("a", 0, false)];
    assert_eq!(mods(&i, Side::Defender), ["commander_advantage+1"]);

    let mut i = base.clone();
    i.attacker.size = Size::AA;
    assert_eq!(mods(&i, Side::Defender), ["opponent_twice_size-1"]);
    let mut i = base.clone();
    i.defender.attacked_in_rear = true;
    assert_eq!(mods(&i, Side::Defender), ["attacked_in_rear-2"]);
    let mut i = base.clone();
    i.defender.wrecked = true;
    assert_eq!(mods(&i, Side::Defender), ["wrecked-2"]);

    // Artillery and/or Skirmishers only −2, not in Fortified; Fortified defender +1.
    let mut i = base.clone();
    i.defender = Combatant::new(K::ArtilleryLightFoot, Size::A, M::C);
    // (a lone battery is size C, so the A attacker is also twice its size)
    assert_eq!(
        mods(&i, Side::Defender),
        ["opponent_twice_size-1", "artillery_skirmishers_only-2"]
    );
    i.terrain = Terrain::Fortified;
    assert_eq!(
        mods(&i, Side::Defender),
        ["opponent_twice_size-1", "defending_fortified+1"]
    );

    // v3.0 errata 15.4.4: a lone Skirmisher staying to fight infantry is C-size infantry: no
    // "Skirmishers only" −2 (only the size comparison applies here).
    let mut i = base.clone();
    i.defender = Combatant::new(K::Skirmisher, Size::C, M::B);
    i.defender.skirmisher_fv_halves = 4;
    assert_eq!(mods(&i, Side::Defender), ["opponent_twice_size-1"]);

    let mut i = base.clone();
    i.attacker.formation = F::Line;
    assert_eq!(mods(&i, Side::Attacker), ["attacking_in_line-1"]);
    i.attacker.formation = F::MarchColumn;
    assert_eq!(mods(&i, Side::Attacker), ["attacking_in_march_column-1"]);

    // Skirmisher Disadvantage: lower Skirmisher FV; equal = none.
    let mut i = base.clone();
    i.defender.stack.skirmishers = true;
    i.defender.skirmisher_fv_halves = 2;
    assert_eq!(mods(&i, Side::Attacker), ["skirmisher_disadvantage-1"]);
    i.attacker.stack.skirmishers = true;
    i.attacker.skirmisher_fv_halves = 2;
    assert!(mods(&i, Side::Attacker).is_empty());

    let mut i = base.clone();
    i.night = true;
    assert_eq!(mods(&i, Side::Attacker), ["night-2"]);
    let mut i = base.clone();
    i.terrain = Terrain::Village;
    assert_eq!(mods(&i, Side::Attacker), ["attacking_line_in_village-1"]);
}

/// 15.2.2: the modifier is capped at ±4; 15.2.3.1: an unmodified 6 always stands.
#[test]
fn cap_of_four_and_unmodified_six() {
    let mut att = inf(Size::C, M::E, F::MarchColumn);
    att.morale_state = MoraleState::Disorganized; // −2
    att.wrecked = true; // −2
    let mut i = cc(att, inf(Size::AA, M::A, F::Line));
    i.night = true; // −2, opponent twice −1, march column −1 → −8, capped −4
    let t = builtin();
    // Attacker is smaller: checks first. Needs 5; 5 − 4 = 1 fails, 6 stands.
    let r = resolve_close_combat(t, &i, &mut dice(&[5, 1, 3, 3], &[])).unwrap();
    assert_eq!(r.checks[0].modifier, -4);
    assert!(!r.checks[0].stands);
    assert_eq!(r.outcome, Outcome::DefenderWon);
    let r = resolve_close_combat(t, &i, &mut dice(&[6, 6, 3, 3], &[])).unwrap();
    assert!(r.checks[0].stands);
    assert_eq!(r.outcome, Outcome::Firefight);
}

/// 15.4.1: a Routed defender fails and the attacker passes without rolling; a Routed
/// attacker retreats before checking.
#[test]
fn routed_units_15_4_1() {
    let t = builtin();
    let mut def = inf(Size::A, M::A, F::Line);
    def.morale_state = MoraleState::Routed;
    let i = cc(inf(Size::A, M::C, F::Column), def);
    let r = resolve_close_combat(t, &i, &mut dice(&[3, 3], &[])).unwrap();
    assert_eq!(r.outcome, Outcome::AttackerWon);
    assert!(r.checks.iter().all(|c| c.roll.is_none()));
    let mut att = inf(Size::A, M::C, F::Column);
    att.morale_state = MoraleState::Routed;
    let r = resolve_close_combat(
        t,
        &cc(att, inf(Size::A, M::A, F::Line)),
        &mut dice(&[], &[]),
    )
    .unwrap();
    assert_eq!(r.outcome, Outcome::AttackerRoutedBeforeCheck);
    assert_eq!(r.attacker.retreat, Retreat::Rout);
    assert!(r.trace.dice.is_empty());
}

/// 15.4.3.1: lone artillery is size C, checks normally, the attacker rolls no losses, and a
/// beaten battery rolls on the Gun Loss Table; Limbered artillery alone always fails.
#[test]
fn lone_artillery_15_4_3_1() {
    let t = builtin();
    let mut art = Combatant::new(K::ArtilleryLightFoot, Size::A, M::C);
    art.formation = F::Limbered;
    let i = cc(inf(Size::B, M::C, F::Column), art.clone());
    // Limbered alone: fails without a roll; then Gun Loss roll 5 → 2 GP.
    let r = resolve_close_combat(t, &i, &mut dice(&[5], &[])).unwrap();
    assert_eq!(r.outcome, Outcome::AttackerWon);
    assert_eq!(r.attacker.loss_roll, None);
    assert_eq!(r.defender.aftermath.gun_loss, Some(GunLoss::Points(2)));
    assert_eq!(r.defender.retreat, Retreat::Rout);
    // Unlimbered: size C, so the B attacker is bigger: artillery checks first (needs 3,
    // −2 artillery only, −1 opponent twice its size → −3): a 6 stands.
    art.formation = F::Unlimbered;
    let i = cc(inf(Size::B, M::C, F::Column), art);
    let r = resolve_close_combat(t, &i, &mut dice(&[6, 4], &[])).unwrap();
    assert_eq!(r.checks[0].side, Side::Defender);
    assert_eq!(r.checks[0].modifier, -3);
    assert_eq!(r.outcome, Outcome::Firefight);
    assert_eq!(r.attacker.loss, Loss::NONE);
    assert_eq!(r.attacker.retreat, Retreat::OneHex);
}

/// 15.4.5: a Square attacked becomes Column and is M-1, never worse than DG.
#[test]
fn square_attacked_15_4_5() {
    let t = builtin();
    let mut sq = inf(Size::A, M::B, F::Square);
    sq.morale_state = MoraleState::Shaken;
    let i = cc(inf(Size::A, M::B, F::Column), sq.clone());
    // Attacker checks first (equal size): 1 fails → Defender Won; loss rolls 3, 3.
    let r = resolve_close_combat(t, &i, &mut dice(&[1, 3, 3], &[])).unwrap();
    assert_eq!(r.defender.morale_before, MoraleState::Shaken);
    // Square → Column (DG), DW-D col B row 3+1 (in column) = 1(2): no morale change.
    assert_eq!(r.defender.table_result, Some(Loss::new(1, 2, 0)));
    assert_eq!(r.defender.morale_after, MoraleState::Disorganized);
    sq.morale_state = MoraleState::Disorganized;
    let (p, _) = staffwork::combat::close::prepare(&cc(inf(Size::A, M::B, F::Column), sq));
    assert_eq!(p.defender.morale_state, MoraleState::Disorganized);
    assert_eq!(p.defender.formation, F::Column);
}

/// 15.4.6: the opponent of a March Column takes only the morale result; 15.3.1: the winner
/// never loses more P than the loser, unless it is in March Column.
#[test]
fn march_column_and_winner_cap_15_4_6_15_3_1() {
    let t = builtin();
    // A A-morale defender (Line, size A) beats an E-morale attacker in March Column.
    let i = cc(
        inf(Size::A, M::E, F::MarchColumn),
        inf(Size::A, M::A, F::Line),
    );
    // Attacker first (equal): needs 5, −1 march column: 3 fails. Loss rolls: attacker 4+1
    // (a March Column counts as "in Column" vs a Line) → DW-A E row 5 = 1(8)M-3; defender
    // 4 → DW-D A row 4 = 1(1) — ignored (opponent in March Column).
    let r = resolve_close_combat(t, &i, &mut dice(&[3, 4, 4], &[])).unwrap();
    assert_eq!(r.outcome, Outcome::DefenderWon);
    assert_eq!(r.defender.loss, Loss::NONE);
    assert_eq!(r.attacker.loss, Loss::new(1, 8, -3));
    // Winner cap: A defender beats a C attacker in Column; defender rolls 6 → 2(1) but the
    // attacker took only 1 P → capped at 1.
    let i = cc(inf(Size::A, M::C, F::Column), inf(Size::A, M::A, F::Line));
    let r = resolve_close_combat(t, &i, &mut dice(&[1, 1, 5], &[])).unwrap();
    // Attacker roll 1+1 (column vs line) = 2 → C: 1(3)M-1.
    assert_eq!(r.attacker.loss, Loss::new(1, 3, -1));
    // Defender 5+1 (in column? no: Line) = 5 → A row 5 assumed 1(2); cap 1 → 1(2).
    assert_eq!(r.defender.loss.permanent, 1);
}

/// 15.3.4 (AA+ morale one less), 15.3.6 (B/C halve, example 1(3) → 1(1)), 15.3.7 (night).
#[test]
fn loss_adjustments_15_3_4_6_7() {
    let t = builtin();
    // 15.3.6 example: a B-sized unit taking 1(3) takes 1(1). B attacker (B morale) wins.
    let i = cc(inf(Size::B, M::B, F::Column), inf(Size::B, M::C, F::Line));
    // Equal size: attacker first 6 stands, defender 1 fails; loss rolls 4 (AW-A B: 1(3)M-1),
    // 3 (AW-D C: 1(7)).
    let r = resolve_close_combat(t, &i, &mut dice(&[6, 1, 4, 3], &[])).unwrap();
    assert_eq!(r.outcome, Outcome::AttackerWon);
    assert_eq!(r.attacker.table_result, Some(Loss::new(1, 3, -1)));
    assert_eq!(r.attacker.loss, Loss::new(1, 1, -1));
    assert_eq!(r.defender.loss, Loss::new(1, 3, 0));
    assert_eq!(r.defender.morale_after, MoraleState::Routed);
    // AA+: M-1 becomes 0 (and the +1 loss DRM applies).
    let i = cc(inf(Size::AA, M::B, F::Column), inf(Size::AA, M::C, F::Line));
    let r = resolve_close_combat(t, &i, &mut dice(&[6, 1, 3, 3], &[])).unwrap();
    // AW-A B row 3+1 = 1(3)M-1 → M0.
    assert_eq!(r.attacker.loss, Loss::new(1, 3, 0));
    // Night: loss DRM −2, +1 Straggler, positive Morale Change ignored.
    let mut i = cc(inf(Size::A, M::A, F::Column), inf(Size::A, M::C, F::Line));
    i.night = true;
    let r = resolve_close_combat(t, &i, &mut dice(&[6, 1, 4, 4], &[])).unwrap();
    // AW-A A row 4−2 = 2: 0(1)M+1 → 0(2), M+1 ignored.
    assert_eq!(r.attacker.loss, Loss::new(0, 2, 0));
    assert_eq!(r.attacker.loss_modifier, -2);
}

/// 21.3.3: Blood Lust only for unwrecked A/B, or C with a Commander rated 1+.
#[test]
fn blood_lust_eligibility_in_combat_21_3_3() {
    let t = builtin();
    let run = |att: Combatant| {
        let i = cc(att, inf(Size::A, M::C, F::Line));
        resolve_close_combat(t, &i, &mut dice(&[6, 1, 1, 3], &[1, 1])).unwrap()
    };
    let r = run(inf(Size::A, M::C, F::Column));
    assert!(!r.attacker.blood_lust);
    let mut c = inf(Size::A, M::C, F::Column);
    c.commanders = vec![CommanderIn::new("x", 1, false)];
    let r = run(c);
    assert!(r.attacker.blood_lust);
    assert_eq!(r.attacker.morale_after, MoraleState::BloodLust);
    let mut w = inf(Size::A, M::A, F::Column);
    w.wrecked = true;
    assert!(!run(w).attacker.blood_lust);
}

/// 20.3: only infantry takes Stragglers.
#[test]
fn stragglers_only_for_infantry_20_3() {
    let t = builtin();
    let mut combo = Combatant::new(K::ArtilleryLightFoot, Size::C, M::C);
    combo.stack.skirmishers = true;
    combo.skirmisher_fv_halves = 2;
    let i = cc(inf(Size::A, M::B, F::Column), combo);
    // Combo (size C) checks first: needs 3, −2 only art/sk, −1 twice size → 1 fails.
    let r = resolve_close_combat(t, &i, &mut dice(&[1, 2, 2, 4], &[])).unwrap();
    assert_eq!(r.outcome, Outcome::AttackerWon);
    // AW-D C row 2 = 1(6) → halved (size C) 1(3) → no infantry: 1.
    assert_eq!(r.defender.loss, Loss::new(1, 0, 0));
}

/// 15.4.4.1 Skirmisher vs Skirmisher: no loss tables; loser M-2, reduced on a 1.
#[test]
fn skirmisher_vs_skirmisher_15_4_4_1() {
    let t = builtin();
    let sk = |full| {
        let mut s = Combatant::new(K::Skirmisher, Size::C, M::B);
        s.skirmisher_full = full;
        s.skirmisher_fv_halves = if full { 4 } else { 2 };
        s
    };
    let i = cc(sk(true), sk(false));
    // Reduced defender is smaller: checks first, 1 fails; reduction roll 1.
    let r = resolve_close_combat(t, &i, &mut dice(&[1, 1], &[])).unwrap();
    assert_eq!(r.outcome, Outcome::AttackerWon);
    assert_eq!(r.defender.loss, Loss::new(1, 0, -2));
    assert_eq!(r.attacker.loss, Loss::NONE);
    // Firefight: lowest modified roll retreats (attacker on ties). Both have "Skirmishers
    // only" −2; the reduced one also Skirmisher Disadvantage −1 and, a full Skirmisher being
    // twice a reduced one, "opponent twice the size" −1.
    let r = resolve_close_combat(t, &i, &mut dice(&[6, 6], &[])).unwrap();
    assert_eq!(r.outcome, Outcome::Firefight);
    assert_eq!(r.checks[0].modifier, -4);
    // defender 6 − 4 = 2; attacker 6 − 2 = 4 → the defender retreats.
    assert_eq!(r.defender.retreat, Retreat::OneHex);
    assert_eq!(r.attacker.retreat, Retreat::None);
}

/// 15.1, 15.4.4, 15.1.8: who may attack whom.
#[test]
fn illegal_attacks_are_errors_not_panics() {
    let t = builtin();
    let cav = Combatant::new(K::CavalryLight, Size::A, M::B);
    assert!(
        resolve_close_combat(
            t,
            &cc(cav.clone(), inf(Size::A, M::B, F::Line)),
            &mut dice(&[], &[])
        )
        .is_err()
    );
    assert!(
        resolve_close_combat(
            t,
            &cc(inf(Size::A, M::B, F::Line), cav),
            &mut dice(&[], &[])
        )
        .is_err()
    );
    let sk = Combatant::new(K::Skirmisher, Size::C, M::B);
    assert!(
        resolve_close_combat(t, &cc(sk, inf(Size::A, M::B, F::Line)), &mut dice(&[], &[])).is_err()
    );
    // Exhausted dice are an error, not a panic.
    assert!(
        resolve_close_combat(
            t,
            &cc(inf(Size::A, M::B, F::Column), inf(Size::A, M::B, F::Line)),
            &mut dice(&[], &[])
        )
        .is_err()
    );
}

/// 19.5 worked example, part 1: the French 6th Light (B morale, March Column across a bridge
/// = Combat Column, 19.4) attacks a lone reduced Austrian Skirmisher in Casteggio. Only the
/// attacker checks: −1 Skirmisher Disadvantage, rolls 4 − 1 = 3 ≥ 2: Attacker Won. The
/// Austrian rolls 4: 2(7) → 1 (halved, size C; a Skirmisher takes no Stragglers), routs 6.
/// The French roll 5: 1(3)M-1.
#[test]
fn worked_example_19_5_casteggio_first_hex() {
    let t = builtin();
    let mut sk = Combatant::new(K::Skirmisher, Size::C, M::C);
    sk.skirmisher_full = false;
    sk.skirmisher_fv_halves = 1;
    let mut i = cc(inf(Size::A, M::B, F::MarchColumn), sk);
    i.terrain = Terrain::Village;
    let r = resolve_close_combat(t, &i, &mut dice(&[4, 5, 4], &[])).unwrap();
    assert_eq!(r.checks.len(), 1);
    assert_eq!(r.checks[0].modifier, -1);
    assert_eq!(r.outcome, Outcome::AttackerWon);
    assert_eq!(r.defender.loss, Loss::new(1, 0, 0));
    assert_eq!(r.defender.retreat, Retreat::Rout);
    assert_eq!(r.attacker.loss, Loss::new(1, 3, -1));
    assert_eq!(r.attacker.morale_after, MoraleState::Shaken);
    assert!(r.may_rush, "19.5.1: a winning Column may rush on");
}

/// 19.5 worked example, part 2: the Shaken French attack the Austrian Jäger Line led by
/// O'Reilly: −1 Shaken, −1 attacking a Line in a village; B needs 2, so a 4; rolls 3:
/// Defender Won. French loss roll 1 (+1 Column vs Line) = 2: 1(2)M-1, but the unmodified 1
/// is Blood Lust: Sh + 2 = BL. The Austrians roll 3: one Straggler; the Commander Loss roll
/// 11 kills O'Reilly (M-1).
#[test]
fn worked_example_19_5_casteggio_oreilly() {
    let t = builtin();
    let mut att = inf(Size::A, M::B, F::Column);
    att.morale_state = MoraleState::Shaken;
    let mut def = inf(Size::A, M::B, F::Line);
    def.commanders = vec![CommanderIn::new("oreilly", 1, true)];
    let mut i = cc(att, def);
    i.terrain = Terrain::Village;
    let r = resolve_close_combat(t, &i, &mut dice(&[3, 1, 3], &[5, 6])).unwrap();
    assert_eq!(r.checks[0].modifier, -2);
    assert_eq!(r.outcome, Outcome::DefenderWon);
    assert_eq!(r.attacker.table_result, Some(Loss::new(1, 2, -1)));
    assert!(r.attacker.blood_lust);
    assert_eq!(r.attacker.loss, Loss::new(1, 2, 2));
    assert_eq!(r.attacker.morale_after, MoraleState::BloodLust);
    assert_eq!(r.defender.loss, Loss::new(0, 1, 0));
    assert_eq!(
        r.defender.aftermath.commanders_lost,
        vec!["oreilly".to_string()]
    );
    assert_eq!(r.defender.morale_after, MoraleState::Shaken);
    assert!(!r.may_rush);
}

/// 14.3 sidebar: "a staggering 3 (8) result after losing a close combat" — a cell of the
/// lost rows (reconstructed: Attacker Won – Defender's losses, C morale, roll 6).
#[test]
fn worked_example_14_3_three_eight_exists() {
    let t = builtin();
    let (v, cell) = t.cc_attacker_won_defender.lookup(6, 2).unwrap();
    assert_eq!(v.loss, Loss::new(3, 8, 0));
    assert_eq!(cell.provenance, staffwork::provenance::Provenance::Assumed);
}

/// 21.6: wreck by losses with the extra M-1, division wreck (21.6.2), permanent wreck, and
/// the Aspern example (2P+1S twice: wrecked, but not by Permanent Casualties alone).
#[test]
fn wrecked_brigade_and_division_21_6() {
    let t = builtin();
    let track = LossTrack {
        boxes: 12,
        permanent: 2,
        stragglers: 1,
        wreck_at: 6,
    };
    let mut att = inf(Size::A, M::C, F::Column);
    att.track = Some(track);
    att.division = Some(DivisionTrack {
        id: "molitor".into(),
        brigades: 3,
        wrecked_brigades: 1,
        wreck_at: None,
    });
    // Attacker checks first (equal), fails on 1: Defender Won. Attacker roll 2+1 = 3 → C:
    // 1(4)M-2 → P+S 3+5 = 8 ≥ 6: wrecked, extra M-1 → Normal −2 −1 = Routed.
    let i = cc(att, inf(Size::A, M::C, F::Line));
    let r = resolve_close_combat(t, &i, &mut dice(&[1, 2, 1], &[])).unwrap();
    let a = &r.attacker.aftermath;
    assert!(a.brigade_became_wrecked);
    assert!(
        a.division_became_wrecked,
        "3 brigades wreck at 2 (21.6.4 example)"
    );
    assert_eq!(r.attacker.morale_after, MoraleState::Routed);
    // Aspern: 2P + 1S twice on a 12-box brigade wrecking at 6.
    let mut tr = LossTrack {
        boxes: 12,
        permanent: 0,
        stragglers: 0,
        wreck_at: 6,
    };
    for _ in 0..2 {
        tr.permanent += 2;
        tr.stragglers += 1;
    }
    assert!(tr.wrecked_by_losses());
    assert!(!tr.wrecked_by_permanent());
}

/// 25.4: a Commander is lost on 11–12 and the stack takes M-1; no check without P or S.
#[test]
fn commander_loss_25_4() {
    let t = builtin();
    let mut def = inf(Size::A, M::B, F::Line);
    def.commanders = vec![
        CommanderIn::new("a", 2, false),
        CommanderIn::new("b", 1, false),
    ];
    let i = cc(inf(Size::A, M::B, F::Column), def);
    // Attacker 6, defender 1: Attacker Won; defender takes P/S → two checks: 12 and 7.
    let r = resolve_close_combat(t, &i, &mut dice(&[6, 1, 3, 3], &[6, 6, 3, 4, 2, 2])).unwrap();
    let checks = &r.defender.aftermath.commander_checks;
    assert_eq!(checks.len(), 2);
    assert!(checks[0].lost && !checks[1].lost);
    assert_eq!(r.defender.aftermath.commanders_lost, vec!["a".to_string()]);
}

/// Every die is returned in the result, in order.
#[test]
fn every_die_is_recorded() {
    let t = builtin();
    let i = cc(inf(Size::A, M::B, F::Column), inf(Size::B, M::C, F::Line));
    let r = resolve_close_combat(t, &i, &mut dice(&[4, 5, 2, 3], &[])).unwrap();
    let v: Vec<u8> = r.trace.dice.iter().map(|d| d.value).collect();
    assert_eq!(v, [4, 5, 2, 3]);
    assert_eq!(r.outcome, Outcome::Firefight);
}

/// v3.0 errata 15.4.8: a beaten attacker whose origin hex is now enemy-occupied displaces.
#[test]
fn exotic_retreat_15_4_8() {
    let t = builtin();
    let mut i = cc(inf(Size::A, M::C, F::Column), inf(Size::A, M::C, F::Line));
    i.origin_hex_enemy_occupied = true;
    // Attacker first (equal size): C needs 3, rolls 1: Defender Won; loss rolls 1, 1.
    let r = resolve_close_combat(t, &i, &mut dice(&[1, 1, 1], &[])).unwrap();
    assert_eq!(r.outcome, Outcome::DefenderWon);
    assert_eq!(r.attacker.retreat, Retreat::Displace);
}

mod no_panic {
    use super::*;
    use proptest::prelude::*;
    use staffwork::rules::dice::SeededDice;

    const KINDS: [K; 6] = [
        K::Infantry,
        K::Skirmisher,
        K::CavalryLight,
        K::CavalryHeavy,
        K::ArtilleryLightFoot,
        K::ArtilleryHeavyHorse,
    ];
    const FORMS: [F; 7] = [
        F::Line,
        F::Column,
        F::MarchColumn,
        F::Square,
        F::Limbered,
        F::Unlimbered,
        F::Skirmish,
    ];
    const STATES: [MoraleState; 5] = [
        MoraleState::Routed,
        MoraleState::Disorganized,
        MoraleState::Shaken,
        MoraleState::Normal,
        MoraleState::BloodLust,
    ];
    const RATINGS: [M; 5] = [M::A, M::B, M::C, M::D, M::E];

    fn side(k: usize, s: usize, m: usize, f: usize, st: usize, flags: u8) -> Combatant {
        let mut c = Combatant::new(KINDS[k], Size::ALL[s], RATINGS[m]);
        c.formation = FORMS[f];
        c.morale_state = STATES[st];
        c.wrecked = flags & 1 != 0;
        c.stack.skirmishers = flags & 2 != 0;
        c.skirmisher_fv_halves = flags >> 4;
        c.attacked_in_rear = flags & 4 != 0;
        if flags & 8 != 0 {
            c.commanders = vec![CommanderIn::new("c", flags % 5, flags & 32 != 0)];
            c.track = Some(LossTrack {
                boxes: 10,
                permanent: flags % 7,
                stragglers: 1,
                wreck_at: 5,
            });
        }
        c
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        /// Any combination of attributes and any seed: an Ok result or a CombatError, never a
        /// panic; and a result's loss never exceeds what the tables can produce.
        #[test]
        fn no_resolver_panics(
            a in (0usize..6, 0usize..7, 0usize..5, 0usize..7, 0usize..5, any::<u8>()),
            d in (0usize..6, 0usize..7, 0usize..5, 0usize..7, 0usize..5, any::<u8>()),
            terrain in 0usize..3, elev in 0usize..3, night in any::<bool>(), seed in any::<u64>(),
        ) {
            let t = builtin();
            let mut i = cc(side(a.0, a.1, a.2, a.3, a.4, a.5), side(d.0, d.1, d.2, d.3, d.4, d.5));
            i.terrain = [Terrain::Clear, Terrain::Village, Terrain::Fortified][terrain];
            i.elevation = [Elevation::Level, Elevation::AttackerHigher, Elevation::AttackerLower][elev];
            i.night = night;
            let mut dice = SeededDice::new(seed);
            if let Ok(r) = resolve_close_combat(t, &i, &mut dice) {
                prop_assert!(r.attacker.loss.permanent <= 4 && r.defender.loss.permanent <= 4);
            }
            let ci = staffwork::combat::charge::ChargeInput {
                attacker: i.attacker.clone(),
                defender: i.defender.clone(),
                attacker_nation: Default::default(),
                defender_cossack: false,
                night,
                follow_on: false,
                reaction: false,
                square_forbidden: false,
                defender_was_charging: false,
                decisions: staffwork::combat::charge::ChargeDecisions {
                    form_square: a.5 & 1 != 0,
                    follow_ons_same_target: d.5 % 4,
                    defender_checks_second: false,
                },
                skip_commander_loss: false,
            };
            let _ = staffwork::combat::charge::resolve_charge(t, &ci, &mut dice);
            let fi = staffwork::combat::fire::ArtilleryFireInput {
                batteries: vec![staffwork::combat::fire::Battery {
                    gun_points: a.5 % 7,
                    heavy: d.5 & 1 != 0,
                    range: d.5 % 11,
                }],
                target: i.defender.clone(),
                target_in_cover: a.5 & 4 != 0,
                flanked_line: a.5 & 8 != 0,
                cannister: a.5 & 16 != 0,
                flank_entry: a.5 & 32 != 0,
                case_shot_vs_artillery: a.5 & 64 != 0,
                stacked_with_high_morale: a.5 & 128 != 0,
                night,
                skip_commander_loss: false,
            };
            let _ = staffwork::combat::fire::resolve_artillery_fire(t, &fi, &mut dice);
            let si = staffwork::combat::fire::SkirmisherFireInput {
                firers: vec![staffwork::combat::fire::SkirmisherFirer {
                    quality: staffwork::combat::fire::SkirmisherQuality::Rifles,
                    full: a.5 & 1 != 0,
                }; usize::from(d.5 % 4)],
                target_skirmishers_halves: a.5 % 5,
                target: i.attacker.clone(),
                target_in_cover: d.5 & 2 != 0,
                night,
                skip_commander_loss: false,
            };
            let _ = staffwork::combat::fire::resolve_skirmisher_fire(t, &si, &mut dice);
        }
    }
}

/// Chart p5 loss-table DRMs, per table, and the ±2 cap (15.3).
#[test]
fn every_loss_table_modifier_and_the_cap() {
    let t = builtin();
    // Attacker Won, defender's table: attacker in Line −1.
    let i = cc(inf(Size::A, M::B, F::Line), inf(Size::A, M::C, F::Line));
    // Attacker first (equal size) 6; defender 1 fails; loss rolls 3, 3.
    let r = resolve_close_combat(t, &i, &mut dice(&[6, 1, 3, 3], &[])).unwrap();
    assert_eq!(r.outcome, Outcome::AttackerWon);
    assert_eq!(r.attacker.loss_modifier, 0);
    assert_eq!(r.defender.loss_modifier, -1);
    // Defender Won, defender's table: in Column +1, Fortified −2 → −1; with night −4 → −2.
    let mut i = cc(inf(Size::A, M::B, F::Column), inf(Size::A, M::C, F::Column));
    i.terrain = Terrain::Fortified;
    let r = resolve_close_combat(t, &i, &mut dice(&[1, 3, 3], &[])).unwrap();
    assert_eq!(r.outcome, Outcome::DefenderWon);
    assert_eq!(r.defender.loss_modifier, -1);
    // attacker's table: Column vs defending Line? No (defender in Column) → 0.
    assert_eq!(r.attacker.loss_modifier, 0);
    i.night = true;
    let r = resolve_close_combat(t, &i, &mut dice(&[1, 3, 3], &[])).unwrap();
    assert_eq!(r.defender.loss_modifier, -2, "capped at ±2");
    assert_eq!(r.attacker.loss_modifier, -2);
}

/// 15.3.3 Firefight: column by the opponent; DRMs size AA+ or Column +1, different elevation
/// −1 (both sides), Skirmisher firing −2, defending in Fortified −2, night −2; only size C
/// halves.
#[test]
fn firefight_columns_and_modifiers_15_3_3() {
    use staffwork::combat::close::firefight_column;
    assert_eq!(firefight_column(&inf(Size::AB, M::B, F::Column)), 0);
    assert_eq!(firefight_column(&inf(Size::A, M::B, F::Column)), 1);
    assert_eq!(firefight_column(&inf(Size::B, M::B, F::Line)), 0);
    assert_eq!(firefight_column(&inf(Size::C, M::B, F::Line)), 1);
    assert_eq!(firefight_column(&inf(Size::AA, M::B, F::MarchColumn)), 0);
    let t = builtin();
    let mut i = cc(inf(Size::A, M::B, F::Column), inf(Size::A, M::C, F::Line));
    i.elevation = Elevation::AttackerLower;
    // Attacker checks first (lower): 6, defender 6 → Firefight. Loss rolls 4, 4.
    let r = resolve_close_combat(t, &i, &mut dice(&[6, 6, 4, 4], &[])).unwrap();
    assert_eq!(r.outcome, Outcome::Firefight);
    assert_eq!(r.attacker.loss_modifier, 0, "column +1, elevation −1");
    assert_eq!(r.defender.loss_modifier, -1);
    // Defender's column is set by the attacker (Column A): col A–C/Line C, row 3 = 1M-1.
    assert_eq!(r.defender.table_result, Some(Loss::new(1, 0, -1)));
    // Attacker's by the defender (Line A = B+): row 4 = 2(1)M-1; AA+ morale rule not used.
    assert_eq!(r.attacker.table_result, Some(Loss::new(2, 1, -1)));
    assert_eq!(r.attacker.loss, Loss::new(2, 1, -1));
    // Fortified defender −2; a C-size stack halves in a Firefight, a B-size one does not.
    let mut i = cc(inf(Size::B, M::B, F::Line), inf(Size::C, M::C, F::Line));
    i.terrain = Terrain::Fortified;
    let r = resolve_close_combat(t, &i, &mut dice(&[6, 6, 6, 6], &[])).unwrap();
    assert_eq!(r.defender.loss_modifier, -2);
    // Defender: row 4 vs opponent Line B (col 0) = 2(1)M-1 → halved (C) 1(1)M-1.
    assert_eq!(r.defender.loss, Loss::new(1, 1, -1));
    // Attacker (B, Line): row 6 vs Line C (col 1) = 2(2), not halved.
    assert_eq!(r.attacker.loss, Loss::new(2, 2, 0));
}
