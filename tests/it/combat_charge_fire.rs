//! Cavalry charges (16), artillery fire (17), skirmisher fire (18): modifiers, special cases
//! and the rulebook's worked examples.

use staffwork::combat::charge::{
    CavalryNation, ChargeDecisions, ChargeInput, ChargeOutcome, resolve_charge, stand_modifiers,
};
use staffwork::combat::fire::{
    ArtilleryFireInput, Battery, SkirmisherFireInput, SkirmisherFirer, SkirmisherQuality,
    fire_value, resolve_artillery_fire, resolve_skirmisher_fire,
};
use staffwork::combat::odds::{charge_odds, fire_odds};
use staffwork::combat::tables::builtin;
use staffwork::combat::{Combatant, CommanderIn, GunLoss, Loss, MoraleState, Retreat, Side, Size};
use staffwork::rules::dice::{Purpose, ScriptedDice};
use staffwork::scenario::model::{MoraleRating as M, UnitFormation as F, UnitKind as K};

fn cav(kind: K, size: Size, m: M) -> Combatant {
    Combatant::new(kind, size, m)
}

fn charge(att: Combatant, def: Combatant) -> ChargeInput {
    ChargeInput {
        attacker: att,
        defender: def,
        attacker_nation: CavalryNation::Standard,
        defender_cossack: false,
        night: false,
        follow_on: false,
        reaction: false,
        square_forbidden: false,
        defender_was_charging: false,
        decisions: ChargeDecisions::default(),
        skip_commander_loss: false,
    }
}

fn dice(p: Purpose, v: &[u8]) -> ScriptedDice {
    let mut d = ScriptedDice::new();
    d.push(p, v.iter().copied());
    d
}

fn names(v: Vec<(String, i8)>) -> Vec<String> {
    v.into_iter().map(|(n, x)| format!("{n}{x:+}")).collect()
}

/// The Big Charge Example (16.2 sidebar), first charge: the British B-morale infantry forms
/// Square and is Shaken by Opportunity Fire. Check to Stand needs 2; Sh −1, Square +1; rolls
/// 3: stands. The French cavalry's Morale Check needs 4, rolls 4: Breakoff. Breakoff roll 2
/// −1 (B morale) = 1: OF. The defender rolls 3 (odd): M-1, Shaken → DG.
#[test]
fn big_charge_example_breakoff() {
    let t = builtin();
    let mut def = Combatant::new(K::Infantry, Size::A, M::B);
    def.morale_state = MoraleState::Shaken;
    def.stack.artillery = true;
    let mut i = charge(cav(K::CavalryHeavy, Size::B, M::B), def);
    i.decisions.form_square = true;
    let r = resolve_charge(t, &i, &mut dice(Purpose::Charge, &[3, 4, 2, 3])).unwrap();
    assert!(r.formed_square);
    assert_eq!(
        names(r.checks[0].modifiers.clone()),
        ["shaken-1", "in_square+1"]
    );
    assert!(r.checks[0].stands);
    assert_eq!(r.outcome, ChargeOutcome::Breakoff);
    assert!(r.breakoff_check.as_ref().unwrap().passed);
    assert!(r.opportunity_fire);
    assert_eq!(r.defender_odd_roll, Some(3));
    assert_eq!(r.defender.morale_after, MoraleState::Disorganized);
    assert_eq!(r.attacker.loss, Loss::NONE);
    assert!(r.attacker.blown);
    assert_eq!(r.attacker.retreat, Retreat::Cavalry { min: 6, max: 12 });
}

/// The Big Charge Example, second charge: DG −2, Square +1; rolls 2 → 1 < 2: the charge is
/// successful. The attacker rolls 2: no loss. The British roll 4: 2 casualties for an A-size
/// unit. The routed artillery rolls on the Gun Loss Table: 6 + 2 (cavalry) = all guns. Then
/// three Follow-on Charges against the same target re-roll the defender's losses.
#[test]
fn big_charge_example_successful_with_follow_ons() {
    let t = builtin();
    let mut def = Combatant::new(K::Infantry, Size::A, M::B);
    def.morale_state = MoraleState::Disorganized;
    def.formation = F::Square;
    def.stack.artillery = true;
    let mut i = charge(cav(K::CavalryHeavy, Size::B, M::B), def);
    i.decisions.follow_ons_same_target = 3;
    // check 2, defender loss 4, gun loss 6, attacker loss 2, follow-ons 1, 2, 3.
    let r = resolve_charge(t, &i, &mut dice(Purpose::Charge, &[2, 4, 6, 2, 1, 2, 3])).unwrap();
    assert_eq!(r.checks[0].modifier, -1);
    assert_eq!(r.outcome, ChargeOutcome::Successful);
    assert_eq!(r.attacker.loss, Loss::NONE);
    assert_eq!(r.defender.table_result, Some(Loss::new(2, 0, 0)));
    assert_eq!(r.defender.aftermath.gun_loss, Some(GunLoss::All));
    assert_eq!(r.follow_ons.len(), 3);
    // AB–A column rows 1, 2, 3: 0(1), 1(1), 1(1) → total 2+0+1+1 P, 0+1+1+1 S.
    assert_eq!(r.defender.loss, Loss::new(4, 3, 0));
    assert_eq!(r.defender.morale_after, MoraleState::Routed);
    assert_eq!(r.defender.retreat, Retreat::Rout);
    assert!(!r.may_follow_on);
}

/// Chart p4 modifiers, both cases and per target type.
#[test]
fn every_charge_stand_modifier() {
    let t = builtin();
    let inf = Combatant::new(K::Infantry, Size::A, M::B);
    let i = charge(cav(K::CavalryLight, Size::A, M::B), inf.clone());
    assert_eq!(names(stand_modifiers(t, &i, Side::Defender)), ["in_line-1"]);
    let mut j = i.clone();
    j.defender.line_flanks_secure = true;
    assert!(stand_modifiers(t, &j, Side::Defender).is_empty());
    j.defender.formation = F::MarchColumn;
    assert_eq!(
        names(stand_modifiers(t, &j, Side::Defender)),
        ["in_march_column-1"]
    );
    j.defender.formation = F::Column;
    j.defender.morale_state = MoraleState::BloodLust;
    j.defender.wrecked = true;
    j.defender.attacked_in_rear = true;
    j.attacker.size = Size::AA;
    assert_eq!(
        names(stand_modifiers(t, &j, Side::Defender)),
        [
            "blood_lust+1",
            "wrecked-2",
            "opponent_twice_size-1",
            "attacked_in_rear-2"
        ]
    );
    // Commander Advantage vs infantry: only a defending Commander that outranks.
    let mut k = i.clone();
    k.defender.formation = F::Column;
    k.defender.commanders = vec![CommanderIn::new("d", 0, false)];
    assert!(stand_modifiers(t, &k, Side::Defender).is_empty());
    k.defender.commanders = vec![CommanderIn::new("d", 2, false)];
    k.attacker.commanders = vec![CommanderIn::new("a", 2, false)];
    assert!(stand_modifiers(t, &k, Side::Defender).is_empty());
    k.attacker.commanders = vec![CommanderIn::new("a", 1, false)];
    assert_eq!(
        names(stand_modifiers(t, &k, Side::Defender)),
        ["commander_advantage+1"]
    );
    // Against cavalry: light vs heavy, blown/stationary.
    let mut c = charge(
        cav(K::CavalryHeavy, Size::A, M::B),
        cav(K::CavalryLight, Size::A, M::B),
    );
    c.defender.stationary = true;
    assert_eq!(
        names(stand_modifiers(t, &c, Side::Defender)),
        ["light_vs_heavy-1", "blown_or_stationary-2"]
    );
    assert!(stand_modifiers(t, &c, Side::Attacker).is_empty());
    // Artillery only −2.
    let a = charge(
        cav(K::CavalryLight, Size::B, M::B),
        Combatant::new(K::ArtilleryLightFoot, Size::A, M::C),
    );
    assert_eq!(
        names(stand_modifiers(t, &a, Side::Defender)),
        ["opponent_twice_size-1", "artillery_skirmishers_only-2"]
    );
}

/// 16.2.6 Repulse with its modifiers; 26.4 British cavalry without a Commander cannot
/// Breakoff.
#[test]
fn repulse_and_british_cavalry() {
    let t = builtin();
    let def = Combatant::new(K::Infantry, Size::B, M::A);
    let mut i = charge(cav(K::CavalryLight, Size::A, M::C), def);
    i.attacker_nation = CavalryNation::British;
    // Stand 6; no breakoff check; repulse roll 3 + 2 (Line) − 1 (B size) = 4 → 2M-1;
    // defender rolls 2 (even).
    let r = resolve_charge(t, &i, &mut dice(Purpose::Charge, &[6, 3, 2])).unwrap();
    assert_eq!(r.outcome, ChargeOutcome::Repulse);
    assert!(r.breakoff_check.is_none());
    assert_eq!(r.attacker.loss_modifier, 1);
    assert_eq!(r.attacker.loss, Loss::new(2, 0, -1));
    assert!(r.blown_before_retreat);
    assert_eq!(r.defender.morale_after, MoraleState::Normal);
}

/// 16.3.1 Routed defender: auto-fail, attacker takes no losses. 16.3.2 lone artillery: Gun
/// Loss Table instead, attacker no losses; Limbered alone auto-fails. 16.3.3 lone
/// Skirmisher evades. 16.3.4 March Column: attacker ignores P.
#[test]
fn charge_special_cases_16_3() {
    let t = builtin();
    let mut routed = Combatant::new(K::Infantry, Size::A, M::B);
    routed.morale_state = MoraleState::Routed;
    let r = resolve_charge(
        t,
        &charge(cav(K::CavalryLight, Size::A, M::B), routed),
        &mut dice(Purpose::Charge, &[3]),
    )
    .unwrap();
    assert_eq!(r.outcome, ChargeOutcome::Successful);
    assert_eq!(r.attacker.loss_roll, None);
    let mut art = Combatant::new(K::ArtilleryLightHorse, Size::A, M::B);
    art.formation = F::Limbered;
    let r = resolve_charge(
        t,
        &charge(cav(K::CavalryLight, Size::A, M::B), art),
        &mut dice(Purpose::Charge, &[4]),
    )
    .unwrap();
    // 4 + 2 (cavalry) − 1 (horse) = 5 → 2 GP.
    assert_eq!(r.defender.aftermath.gun_loss, Some(GunLoss::Points(2)));
    assert_eq!(r.attacker.loss, Loss::NONE);
    let sk = Combatant::new(K::Skirmisher, Size::C, M::B);
    let r = resolve_charge(
        t,
        &charge(cav(K::CavalryLight, Size::A, M::B), sk),
        &mut dice(Purpose::Charge, &[]),
    )
    .unwrap();
    assert_eq!(r.outcome, ChargeOutcome::SkirmisherEvades);
    let mut mc = Combatant::new(K::Infantry, Size::A, M::E);
    mc.formation = F::MarchColumn;
    // E needs 5, −1 March Column: 4 fails. Defender loss 3, attacker loss 5 → 2M-1 → M-1.
    let r = resolve_charge(
        t,
        &charge(cav(K::CavalryLight, Size::B, M::B), mc),
        &mut dice(Purpose::Charge, &[4, 3, 5]),
    )
    .unwrap();
    assert_eq!(r.attacker.loss, Loss::new(0, 0, -1));
}

/// 16.1.1, 27.1.3, 26.6.1, 16.2.7: illegal charges are errors.
#[test]
fn illegal_charges() {
    let t = builtin();
    let inf = Combatant::new(K::Infantry, Size::A, M::B);
    let mut i = charge(cav(K::CavalryLight, Size::A, M::B), inf.clone());
    i.night = true;
    assert!(resolve_charge(t, &i, &mut dice(Purpose::Charge, &[])).is_err());
    let mut i = charge(cav(K::CavalryLight, Size::A, M::B), inf.clone());
    i.attacker.morale_state = MoraleState::Shaken;
    assert!(resolve_charge(t, &i, &mut dice(Purpose::Charge, &[])).is_err());
    i.follow_on = true; // Shaken may Follow-on (16.2.7.1)
    assert!(resolve_charge(t, &i, &mut dice(Purpose::Charge, &[6, 4, 4, 2])).is_ok());
    let mut i = charge(cav(K::CavalryLight, Size::A, M::B), inf.clone());
    i.attacker.blown = true;
    assert!(resolve_charge(t, &i, &mut dice(Purpose::Charge, &[])).is_err());
    let mut i = charge(cav(K::CavalryLight, Size::A, M::B), inf);
    i.attacker_nation = CavalryNation::Cossack;
    assert!(resolve_charge(t, &i, &mut dice(Purpose::Charge, &[])).is_err());
    i.decisions.follow_ons_same_target = 4;
    i.attacker_nation = CavalryNation::Standard;
    assert!(resolve_charge(t, &i, &mut dice(Purpose::Charge, &[])).is_err());
}

/// 16.4: cavalry vs cavalry — defender checks first, Won/Draw/Lost, "both" size adjustments,
/// both retreat and are Blown; a winning stationary defender stays (16.4.3.2).
#[test]
fn cavalry_vs_cavalry_16_4() {
    let t = builtin();
    let mut def = cav(K::CavalryLight, Size::B, M::C);
    def.stationary = true;
    let i = charge(cav(K::CavalryLight, Size::C, M::B), def);
    // Defender first: C needs 3, stationary −2: 6 stands; attacker B needs 2: 1 fails →
    // Defender Won. Defender (Won) rolls 4 → 2 − 1 (both B or C) = 1; attacker (Lost) 6 →
    // 4M-3 − 1 = 3M-3.
    let r = resolve_charge(t, &i, &mut dice(Purpose::Charge, &[6, 1, 4, 6])).unwrap();
    assert_eq!(r.checks[0].side, Side::Defender);
    assert_eq!(r.outcome, ChargeOutcome::DefenderWon);
    assert_eq!(r.defender.loss, Loss::new(1, 0, 0));
    assert_eq!(r.attacker.loss, Loss::new(3, 0, -3));
    assert_eq!(r.attacker.morale_after, MoraleState::Routed);
    assert_eq!(r.attacker.retreat, Retreat::Rout);
    assert_eq!(r.defender.retreat, Retreat::None);
    assert!(!r.defender.blown);
    // Draw, both AA+: +1 each; both Blown and retreat 6–12.
    let i = charge(
        cav(K::CavalryHeavy, Size::AA, M::A),
        cav(K::CavalryHeavy, Size::AA, M::A),
    );
    let r = resolve_charge(t, &i, &mut dice(Purpose::Charge, &[3, 3, 2, 2])).unwrap();
    assert_eq!(r.outcome, ChargeOutcome::Draw);
    assert_eq!(r.attacker.loss, Loss::new(2, 0, 0));
    assert!(r.attacker.blown && r.defender.blown);
    assert_eq!(r.defender.retreat, Retreat::Cavalry { min: 6, max: 12 });
}

#[test]
fn charge_odds_sum_to_the_denominator() {
    let t = builtin();
    let mut i = charge(
        cav(K::CavalryHeavy, Size::A, M::B),
        Combatant::new(K::Infantry, Size::A, M::C),
    );
    i.decisions.follow_ons_same_target = 1;
    let o = charge_odds(t, &i).unwrap();
    assert_eq!(o.outcomes.values().sum::<u64>(), o.denominator);
    // Defender in Line: C needs 3, −1 → fails on 1–3: half the time.
    assert_eq!(o.outcomes["successful"] * 2, o.denominator);
}

/// 17.0 example: 3 Light GP at range 2 = FV 2, +1 Column = 3; roll 3 → 1M-2; B morale
/// reduces it to M-1: Shaken → DG; 1 P; Commander Loss roll 9: no effect.
#[test]
fn worked_example_17_0_austrian_battery() {
    let t = builtin();
    let mut tg = Combatant::new(K::Infantry, Size::A, M::B);
    tg.formation = F::Column;
    tg.morale_state = MoraleState::Shaken;
    tg.commanders = vec![CommanderIn::new("c", 2, false)];
    let i = ArtilleryFireInput {
        batteries: vec![Battery {
            gun_points: 3,
            heavy: false,
            range: 2,
        }],
        target: tg,
        target_in_cover: false,
        flanked_line: false,
        cannister: false,
        flank_entry: false,
        case_shot_vs_artillery: false,
        stacked_with_high_morale: false,
        night: false,
        skip_commander_loss: false,
    };
    let mut d = dice(Purpose::Fire, &[3]);
    d.push(Purpose::CommanderLoss, [4, 5]);
    let r = resolve_artillery_fire(t, &i, &mut d).unwrap();
    assert_eq!(r.groups[0].fire_value, Some(2));
    assert_eq!(r.groups[0].modified_fire_value, 3);
    assert_eq!(r.groups[0].rolls[0].table, Loss::new(1, 0, -2));
    assert_eq!(r.target.loss, Loss::new(1, 0, -1));
    assert_eq!(r.target.morale_after, MoraleState::Disorganized);
    assert_eq!(r.target.aftermath.commander_checks[0].roll, 9);
    assert!(r.target.aftermath.commanders_lost.is_empty());
}

/// 17.4.9 example: a C-morale Column enters a hex with a 2-GP Light battery: Cannister at
/// FV 2 (Column modifier ignored), rolls 1 and 5 → 1M-2 + M-1 = 1M-3: the Column routs.
/// With a 1-rated Commander it would be 1M-1.
#[test]
fn worked_example_17_4_9_cannister() {
    let t = builtin();
    let mut tg = Combatant::new(K::Infantry, Size::A, M::C);
    tg.formation = F::Column;
    let mut i = ArtilleryFireInput {
        batteries: vec![Battery {
            gun_points: 2,
            heavy: false,
            range: 1,
        }],
        target: tg,
        target_in_cover: false,
        flanked_line: false,
        cannister: true,
        flank_entry: false,
        case_shot_vs_artillery: false,
        stacked_with_high_morale: false,
        night: true, // Cannister is allowed at night (27.1.4)
        skip_commander_loss: true,
    };
    let r = resolve_artillery_fire(t, &i, &mut dice(Purpose::Fire, &[1, 5])).unwrap();
    assert_eq!(r.groups[0].modified_fire_value, 2);
    assert_eq!(r.target.loss, Loss::new(1, 0, -3));
    assert_eq!(r.target.morale_after, MoraleState::Routed);
    i.target.commanders = vec![CommanderIn::new("c", 1, false)];
    let r = resolve_artillery_fire(t, &i, &mut dice(Purpose::Fire, &[1, 5])).unwrap();
    assert_eq!(r.target.loss, Loss::new(1, 0, -1));
    i.cannister = false;
    assert!(resolve_artillery_fire(t, &i, &mut dice(Purpose::Fire, &[1])).is_err());
}

/// 17.3 example: two 4-GP Light batteries at cavalry 3 hexes away fire as FV 2+1 (5 GP) and
/// FV 1+1 (3 GP); losses add, only the worst Morale Change applies.
#[test]
fn worked_example_17_3_grand_battery() {
    let t = builtin();
    let tg = Combatant::new(K::CavalryLight, Size::A, M::D);
    let b = Battery {
        gun_points: 4,
        heavy: false,
        range: 3,
    };
    let i = ArtilleryFireInput {
        batteries: vec![b, b],
        target: tg,
        target_in_cover: false,
        flanked_line: false,
        cannister: false,
        flank_entry: false,
        case_shot_vs_artillery: false,
        stacked_with_high_morale: false,
        night: false,
        skip_commander_loss: true,
    };
    let r = resolve_artillery_fire(t, &i, &mut dice(Purpose::Fire, &[1, 1])).unwrap();
    assert_eq!(r.groups.len(), 2);
    assert_eq!(r.groups[0].modified_fire_value, 3);
    assert_eq!(r.groups[1].modified_fire_value, 2);
    // FV3 roll 1 = 1(1)M-2, FV2 roll 1 = 1M-2 → 2(1) (cavalry: no S) M-2.
    assert_eq!(r.target.loss, Loss::new(2, 0, -2));
}

/// Fire Value examples (17.2, 17.3): 3 Light at 2 = 2; 2 Light at 1 = 2; 4 Light at 3 = 1.
#[test]
fn fire_value_examples() {
    let t = builtin();
    let mut c = vec![];
    assert_eq!(fire_value(t, 3, false, 2, &mut c).unwrap(), Some(2));
    assert_eq!(fire_value(t, 2, false, 1, &mut c).unwrap(), Some(2));
    assert_eq!(fire_value(t, 4, false, 3, &mut c).unwrap(), Some(1));
    assert_eq!(fire_value(t, 3, false, 8, &mut c).unwrap(), None);
    assert_eq!(fire_value(t, 3, true, 8, &mut c).unwrap(), Some(1));
    assert!(c.is_empty(), "only seed cells so far");
    assert!(fire_value(t, 1, false, 1, &mut c).unwrap().is_some());
    assert_eq!(c.len(), 1);
    assert!(fire_value(t, 6, false, 1, &mut c).is_err());
    assert!(fire_value(t, 3, false, 10, &mut c).is_err());
}

#[test]
fn fire_modifiers_chart_p3() {
    let t = builtin();
    let fire = |tg: Combatant, cover: bool, flank: bool| {
        let i = ArtilleryFireInput {
            batteries: vec![Battery {
                gun_points: 5,
                heavy: false,
                range: 1,
            }],
            target: tg,
            target_in_cover: cover,
            flanked_line: flank,
            cannister: false,
            flank_entry: false,
            case_shot_vs_artillery: false,
            stacked_with_high_morale: false,
            night: false,
            skip_commander_loss: true,
        };
        resolve_artillery_fire(t, &i, &mut dice(Purpose::Fire, &[6]))
            .unwrap()
            .groups[0]
            .modified_fire_value
    };
    let line = Combatant::new(K::Infantry, Size::A, M::C);
    assert_eq!(fire(line.clone(), false, false), 5);
    assert_eq!(fire(line.clone(), false, true), 6);
    assert_eq!(fire(line.clone(), true, false), 4);
    let mut big = line.clone();
    big.size = Size::AA;
    big.formation = F::Column;
    assert_eq!(fire(big, false, false), 6, "+1 once, not per condition");
    assert_eq!(
        fire(Combatant::new(K::Skirmisher, Size::C, M::B), false, false),
        4
    );
}

#[test]
fn fire_odds_match_the_table() {
    let t = builtin();
    let i = ArtilleryFireInput {
        batteries: vec![Battery {
            gun_points: 5,
            heavy: false,
            range: 2,
        }],
        target: Combatant::new(K::Infantry, Size::A, M::D),
        target_in_cover: false,
        flanked_line: false,
        cannister: false,
        flank_entry: false,
        case_shot_vs_artillery: false,
        stacked_with_high_morale: false,
        night: false,
        skip_commander_loss: true,
    };
    // FV 4: rows 1..6 = 2(1)M-2, 1(1), 1M-2, 1, M-1, 0.
    let o = fire_odds(t, &i).unwrap();
    assert_eq!(o.denominator, 6);
    assert_eq!(o.outcomes["casualties"], 4);
    assert_eq!(o.outcomes["morale-only"], 1);
    assert_eq!(o.outcomes["no-effect"], 1);
}

/// 18 example: two French Skirmishers (FV 4) against a Spanish unit with a Skirmisher (FV 1)
/// hit on 1–3. Hit on infantry: M-1 and one Straggler; on cavalry: M-1 and a Commander Loss
/// Check; on artillery: M-1 and one gun point.
#[test]
fn worked_example_18_skirmisher_fire() {
    let t = builtin();
    let elite = SkirmisherFirer {
        quality: SkirmisherQuality::Elite,
        full: true,
    };
    let mut i = SkirmisherFireInput {
        firers: vec![elite, elite],
        target_skirmishers_halves: 2,
        target: Combatant::new(K::Infantry, Size::A, M::C),
        target_in_cover: false,
        night: false,
        skip_commander_loss: false,
    };
    let r = resolve_skirmisher_fire(t, &i, &mut dice(Purpose::Fire, &[3])).unwrap();
    assert_eq!(r.fire_value, Some(3));
    assert!(r.hit);
    assert_eq!(r.target.loss, Loss::new(0, 1, -1));
    let r = resolve_skirmisher_fire(t, &i, &mut dice(Purpose::Fire, &[4])).unwrap();
    assert!(!r.hit);
    i.target = Combatant::new(K::CavalryLight, Size::A, M::C);
    i.target.commanders = vec![CommanderIn::new("c", 1, false)];
    let mut d = dice(Purpose::Fire, &[1]);
    d.push(Purpose::CommanderLoss, [1, 1]);
    let r = resolve_skirmisher_fire(t, &i, &mut d).unwrap();
    assert_eq!(r.target.loss, Loss::new(0, 0, -1));
    assert_eq!(r.target.aftermath.commander_checks.len(), 1);
    // ½ or less: no roll (18.2).
    i.firers = vec![SkirmisherFirer {
        quality: SkirmisherQuality::Regular,
        full: false,
    }];
    i.target_skirmishers_halves = 0;
    let r = resolve_skirmisher_fire(t, &i, &mut dice(Purpose::Fire, &[])).unwrap();
    assert!(r.roll.is_none());
    i.night = true;
    assert!(resolve_skirmisher_fire(t, &i, &mut dice(Purpose::Fire, &[])).is_err());
}

/// 16.2.4 Breakoff Morale Check: +1 with a Commander rated 2+; British cavalry with a
/// Commander check without the +1 (26.4). 16.2.5 Breakoff modifiers by morale A..E.
#[test]
fn breakoff_check_and_modifiers() {
    let t = builtin();
    let def = Combatant::new(K::Infantry, Size::A, M::A);
    let mut att = cav(K::CavalryLight, Size::A, M::C);
    att.commanders = vec![CommanderIn::new("c", 2, false)];
    let i = charge(att, def);
    // Stand 6; Morale Check C needs 5: 4 + 1 passes; breakoff roll 4 + 0 → M-1; odd roll 2.
    let r = resolve_charge(t, &i, &mut dice(Purpose::Charge, &[6, 4, 4, 2])).unwrap();
    assert_eq!(r.outcome, ChargeOutcome::Breakoff);
    assert_eq!(r.breakoff_check.as_ref().unwrap().modifier, 1);
    assert_eq!(r.attacker.loss, Loss::new(0, 0, -1));
    let mut j = i.clone();
    j.attacker_nation = CavalryNation::British;
    j.skip_commander_loss = true;
    let r = resolve_charge(t, &j, &mut dice(Purpose::Charge, &[6, 4, 4, 2])).unwrap();
    assert_eq!(r.outcome, ChargeOutcome::Repulse);
    assert_eq!(r.breakoff_check.as_ref().unwrap().modifier, 0);
    for (m, want) in [(M::A, -2), (M::B, -1), (M::C, 0), (M::D, 1), (M::E, 2)] {
        let mut k = i.clone();
        k.attacker.morale_rating = m;
        let r = resolve_charge(t, &k, &mut dice(Purpose::Charge, &[6, 6, 4, 1])).unwrap();
        assert_eq!(r.attacker.loss_modifier, want, "{m:?}");
    }
}

/// Chart p3 Skirmisher fire modifiers: cover −2, Limbered/Square +1, Rifles +1; regular ½.
#[test]
fn skirmisher_fire_modifiers_chart_p3() {
    let t = builtin();
    let f = |q, full| SkirmisherFirer { quality: q, full };
    let mut i = SkirmisherFireInput {
        firers: vec![f(SkirmisherQuality::Rifles, true)],
        target_skirmishers_halves: 0,
        target: Combatant::new(K::ArtilleryLightFoot, Size::A, M::C),
        target_in_cover: true,
        night: false,
        skip_commander_loss: true,
    };
    i.target.formation = F::Limbered;
    let r = resolve_skirmisher_fire(t, &i, &mut dice(Purpose::Fire, &[2])).unwrap();
    // 2 − 2 + 1 + 1 = 2: hit on 2; artillery hit = 1 GP and M-1.
    assert_eq!(r.fire_value, Some(2));
    assert!(r.hit);
    assert_eq!(r.target.loss, Loss::new(1, 0, -1));
    // Two reduced regulars: ½ + ½ = 1 → FV 1.
    i.firers = vec![
        f(SkirmisherQuality::Regular, false),
        f(SkirmisherQuality::Regular, false),
    ];
    i.target_in_cover = false;
    i.target.formation = F::Unlimbered;
    let r = resolve_skirmisher_fire(t, &i, &mut dice(Purpose::Fire, &[1])).unwrap();
    assert_eq!(r.fire_value, Some(1));
}

/// Chart p3 fire modifiers for Cannister (flank entry −1, Column/AA+/terrain ignored), Case
/// Shot vs artillery, and 17.1.7 for artillery stacked with high-morale units.
#[test]
fn cannister_and_case_shot_modifiers() {
    let t = builtin();
    let mut tg = Combatant::new(K::Infantry, Size::AA, M::D);
    tg.formation = F::Column;
    let mut i = ArtilleryFireInput {
        batteries: vec![Battery {
            gun_points: 4,
            heavy: true,
            range: 3,
        }],
        target: tg,
        target_in_cover: true,
        flanked_line: false,
        cannister: true,
        flank_entry: true,
        case_shot_vs_artillery: false,
        stacked_with_high_morale: false,
        night: false,
        skip_commander_loss: true,
    };
    let r = resolve_artillery_fire(t, &i, &mut dice(Purpose::Fire, &[6, 6])).unwrap();
    assert_eq!(r.groups[0].range, 1);
    assert_eq!(
        r.groups[0].modified_fire_value, 3,
        "4 Heavy at 1 = 4, flank −1 only"
    );
    assert_eq!(r.groups[0].rolls.len(), 2);
    i.cannister = false;
    i.flank_entry = false;
    i.target_in_cover = false;
    i.target = Combatant::new(K::ArtilleryHeavyFoot, Size::A, M::D);
    i.case_shot_vs_artillery = true;
    i.stacked_with_high_morale = true;
    // 4 Heavy at 3 = 2, +1 Case Shot = 3; roll 3 → 1M-2, bonus → 1M-1.
    let r = resolve_artillery_fire(t, &i, &mut dice(Purpose::Fire, &[3])).unwrap();
    assert_eq!(r.groups[0].modified_fire_value, 3);
    assert_eq!(r.target.loss, Loss::new(1, 0, -1));
}

/// 16.2.7.2 decided afterwards: one Follow-on at a time on the original size column.
#[test]
fn follow_on_decided_after_the_charge() {
    use staffwork::combat::charge::{Decision, decisions_needed, resolve_follow_on_same_target};
    let t = builtin();
    let mut def = Combatant::new(K::Infantry, Size::AA, M::C);
    let i = charge(cav(K::CavalryHeavy, Size::A, M::B), def.clone());
    assert_eq!(
        decisions_needed(&i),
        vec![Decision::FormSquare, Decision::FollowOns { max: 3 }]
    );
    def.morale_state = MoraleState::Routed;
    def.size = Size::A; // shrunk by the first charge; the column stays AA+
    let j = charge(cav(K::CavalryHeavy, Size::A, M::B), def);
    let (f, sr, tr) =
        resolve_follow_on_same_target(t, &j, Size::AA, &mut dice(Purpose::Charge, &[3])).unwrap();
    // 3 + 1 (attacker size A) = 4 → AA+ column: 2(1).
    assert_eq!(f.loss, Loss::new(2, 1, 0));
    assert_eq!(sr.retreat, Retreat::Rout);
    assert_eq!(tr.dice.len(), 1);
}

/// 16.2.1 with 8.3 and 10.0 (decision 0195): infantry charged from its rear hex that forms
/// Square has no rear — the Check to Stand counts the Square (+1), not "attacked in rear"; one
/// that does not form Square takes the rear modifier.
#[test]
fn a_square_formed_against_a_charge_from_the_rear_has_no_rear() {
    let t = builtin();
    let mut def = Combatant::new(K::Infantry, Size::A, M::B);
    def.formation = F::Line;
    def.attacked_in_rear = true;
    let mut i = charge(cav(K::CavalryHeavy, Size::B, M::B), def);
    i.decisions.form_square = true;
    let r = resolve_charge(t, &i, &mut dice(Purpose::Charge, &[6, 6, 5, 5])).unwrap();
    assert!(r.formed_square);
    assert_eq!(names(r.checks[0].modifiers.clone()), ["in_square+1"]);
    assert!(
        r.notes.iter().any(|n| n.contains("no rear")),
        "{:?}",
        r.notes
    );
    i.decisions.form_square = false;
    let r = resolve_charge(t, &i, &mut dice(Purpose::Charge, &[6, 6, 5, 5])).unwrap();
    assert!(
        names(r.checks[0].modifiers.clone())
            .iter()
            .any(|m| m.starts_with("attacked_in_rear")),
        "{:?}",
        r.checks[0].modifiers
    );
}
