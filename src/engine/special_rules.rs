//! Scenario special rules that change the command system, each switched on by the stable id a
//! scenario lists in `[[special_rules]]` (and off by a variant where the rules say so):
//!
//! - `vimeiro-french-initiative-minus-one` (V3.1): French commanders roll Initiative one column
//!   lower; variant `junot-wakes-up` (5.4) lifts it.
//! - `vimeiro-british-no-independent-infantry` (V2.1): British infantry brigades may not receive
//!   Independent Orders.
//! - `vimeiro-temporary-divisions` (V2.3): see `temporary_division`.
//! - `vimeiro-defend-in-place` (V2.4) and `talavera-wellesley-style` (T3.4): see
//!   `moving_brigades`.
//! - `vimeiro-burrard` (V2.5): from 10:30 (13:00 with `early-lunch`), a 1–2 at the start of each
//!   British Command Phase lands Burrard: he takes command, orders in transit are cancelled and
//!   temporary divisions suffer automatic stoppage.
//!
//! - `talavera-cuesta-engage-minus-four` (T2.1): Cuesta accepts Engage and Complex orders at −4
//!   instead of −2.
//! - `talavera-joseph-in-person` (T4.2a): Joseph may only issue In-Person orders.
//! - `talavera-victor-stoppage` (T4.2c): acting on Initiative, Victor checks stoppage as a
//!   0-rated commander.
//!
//! - `talavera-extremadura-corps` (T2.1): no British unit may join or be attached to Cuesta's
//!   corps.
//! - `talavera-spanish-cavalry-morale` (T2.2a): Spanish cavalry checks morale before charging
//!   cavalry, and stays put if it fails.
//! - `talavera-spanish-unease` (T2.2b): with three British divisions wrecked, every Morale Change
//!   a Spanish unit takes in combat is one worse.
//!
//! - `talavera-tartana` (T2.3, "La tartana de Cuesta"): Cuesta moves 7 MP, as limbered foot
//!   artillery, not a commander's allowance (not under variant 5.4a).
//!
//! - `talavera-sebastiani` (T4.5): Sebastiani leads IV Corps and 1-IV; 1-IV's brigades may
//!   trace command range to him or to the IV Corps HQ, all to the same one (variant 5.7 revokes
//!   it).
//!
//! Talavera variants (switched on with `staffwork new --variant`):
//!
//! - `joseph-sends-aides` (5.3a): Joseph may send aide orders; Jourdan relays nothing; the other
//!   French officers roll Initiative and Attack Stoppage one lower.
//! - `jourdan-commands` (5.3b): Jourdan is the French army commander from the start; Victor
//!   rates 2.
//! - `victor-messenger` (5.3c): Victor relays Joseph's orders (see `relay`) and may roll
//!   Initiative for any French division he stands with.
//! - `cuesta-misunderstood` (5.4a): Cuesta rates 3; Wellesley may not order him or his
//!   divisions; no British Initiative.
//! - `cuesta-moron` (5.4b): no Spanish Initiative; at the start of each Allied Command Phase
//!   2d6: 10 a random Spanish division throws its order away, 11 it withdraws into Talavera
//!   (a second 11: across the Tajo bridge and off the map), 12 it attacks the nearest French.
//! - `ney` (5.7): a Delay Reduction roll of 1 makes Ney (IV Corps) throw his order away.
//!
//! The commanders are named by their ids in the scenario (`cuesta`, `joseph`, `jourdan`,
//! `victor`, `sebastiani`); "Spanish" means Cuesta's corps. Owns these hooks; the rules they
//! modify stay in `command_system`. Borrowing (T2.4) is in `borrowing`, relaying and remote
//! orders (T4.2b, T4.3) in `relay`.

use super::event::EventKind;
use super::oob;
use super::state::{OrderOrigin, OrderStatus};
use super::{Ctx, Refusal};
use crate::rules::dice::Purpose;
use crate::scenario::UnitKind;

/// The side a command belongs to ("" for an unknown one).
fn command_side<'a>(ctx: &'a Ctx, command: &str) -> &'a str {
    ctx.state
        .commands
        .get(command)
        .map_or("", |c| c.side.as_str())
}

/// Is the scenario rule `rule` in play?
pub(super) fn has(ctx: &Ctx, rule: &str) -> bool {
    ctx.eng.scenario.special_rules.iter().any(|r| r.id == rule)
}

fn variant(ctx: &Ctx, id: &str) -> bool {
    ctx.state.variants.contains(id)
}

/// Ratings a variant changes (Talavera 5.3b Victor 2, 5.4a Cuesta 3): variant, commander,
/// rating.
const VARIANT_RATINGS: &[(&str, &str, u8)] = &[
    ("jourdan-commands", "victor", 2),
    ("cuesta-misunderstood", "cuesta", 3),
];

/// A commander's rating as a variant in play sets it, if one does.
pub(crate) fn variant_rating(
    variants: &std::collections::BTreeSet<String>,
    commander: &str,
) -> Option<u8> {
    VARIANT_RATINGS
        .iter()
        .find(|(v, c, _)| *c == commander && variants.contains(*v))
        .map(|(_, _, r)| *r)
}

/// 5.3a: the French officers other than Joseph roll one lower for Initiative and Stoppage.
fn disgusted(ctx: &Ctx, side: &str) -> bool {
    side == "french" && variant(ctx, "joseph-sends-aides")
}

/// V3.1, 5.3a: the Initiative column modifier for a side's commanders.
pub(super) fn initiative_modifier(ctx: &Ctx, side: &str) -> i32 {
    let vimeiro = has(ctx, "vimeiro-french-initiative-minus-one")
        && side == "french"
        && !variant(ctx, "junot-wakes-up")
        && !super::random_events::in_force(ctx, "vimeiro-junot-wakes-up");
    -i32::from(vimeiro) - i32::from(disgusted(ctx, side))
}

/// Cuesta's corps (the Army of Extremadura, T2.1; the corps Wellesley borrows from, T2.4), if
/// the scenario has one: the one the scenario gives to `cuesta`, whoever leads it now.
pub(super) fn spanish_corps<'a>(ctx: &Ctx<'_, 'a, '_>) -> Option<&'a crate::scenario::Formation> {
    let s: &'a crate::scenario::Scenario = ctx.eng.scenario;
    s.formations.iter().find(|f| {
        f.echelon == crate::scenario::Echelon::Corps && f.commander.as_deref() == Some("cuesta")
    })
}

/// Is `command` Cuesta's corps or part of it?
fn spanish(ctx: &Ctx, command: &str) -> bool {
    spanish_corps(ctx)
        .is_some_and(|c| c.id == command || oob::is_ancestor(&ctx.state, &c.id, command))
}

/// 5.4a: Wellesley may not order Cuesta or his divisions.
pub(super) fn may_order(ctx: &Ctx, _from: &str, to: &str) -> Result<(), Refusal> {
    if variant(ctx, "cuesta-misunderstood") && spanish(ctx, to) {
        return Err(Refusal::new(
            "cuesta-misunderstood",
            "T5.4a",
            format!("Cuesta Misunderstood: `{to}` takes no orders from Wellesley"),
            "Cuesta acts only by Initiative in this variant",
        ));
    }
    Ok(())
}

/// 5.4a no British Initiative; 5.4b no Spanish Initiative.
pub(super) fn may_roll_initiative(ctx: &Ctx, command: &str) -> Result<(), Refusal> {
    let side = command_side(ctx, command);
    if spanish_corps(ctx).is_none_or(|c| c.side != side) {
        return Ok(());
    }
    let is_spanish = spanish(ctx, command);
    if variant(ctx, "cuesta-misunderstood") && !is_spanish {
        return Err(Refusal::new(
            "no-initiative",
            "T5.4a",
            "Cuesta Misunderstood: no British Initiative",
            "send an order instead",
        ));
    }
    if variant(ctx, "cuesta-moron") && is_spanish {
        return Err(Refusal::new(
            "no-initiative",
            "T5.4b",
            "Cuesta Moron: no Spanish Initiative",
            "borrow the division, or wait for Cuesta",
        ));
    }
    Ok(())
}

/// 5.3c: Victor may roll Initiative for any French division he stands with.
pub(super) fn messenger_initiative(ctx: &Ctx, commander: &str, command: &str) -> bool {
    let at = |p: &str| ctx.state.positions.get(p).copied();
    variant(ctx, "victor-messenger")
        && commander == "victor"
        && oob::echelon(ctx.eng.scenario, command) == Some(crate::scenario::Echelon::Division)
        && ctx
            .state
            .commands
            .get(command)
            .is_some_and(|c| c.side == "french")
        && oob::hub_piece(ctx.eng.scenario, &ctx.state, command)
            .is_some_and(|h| at(&h).is_some() && at(&h) == at(commander))
}

/// 5.7: a Delay Reduction roll of 1 makes Ney (commanding IV Corps) throw his order away: it is
/// lost as a distorted order is, and must be discovered (6.5.3).
pub(super) fn delay_roll_of_one(ctx: &mut Ctx, order: u32) {
    if !variant(ctx, "ney") {
        return;
    }
    let Some(o) = ctx.state.orders.get(&order) else {
        return;
    };
    let ney_corps = ctx
        .eng
        .scenario
        .formation(&o.recipient)
        .is_some_and(|f| f.commander.as_deref() == Some("sebastiani"));
    if ney_corps {
        let side = o.side.clone();
        ctx.emit_side(&side, EventKind::OrderDistorted { order });
    }
}

/// T2.1: extra Acceptance Number modifier for an order (−2 more for Cuesta on Engage/Complex).
pub(super) fn acceptance_modifier(
    ctx: &Ctx,
    recipient: &str,
    order_type: crate::rules::OrderType,
) -> i32 {
    // His successors inherit his habits (T2.1): the corps counts, whoever leads it.
    let cuesta = oob::commander_of(ctx.eng.scenario, &ctx.state, recipient)
        .is_some_and(|c| c.id == "cuesta")
        || spanish_corps(ctx).is_some_and(|c| c.id == recipient);
    if has(ctx, "talavera-cuesta-engage-minus-four")
        && cuesta
        && order_type != crate::rules::OrderType::General
    {
        -2
    } else {
        0
    }
}

/// T4.2a: Joseph issues only In-Person orders.
pub(super) fn check_sender(
    ctx: &Ctx,
    sender: &str,
    method: crate::rules::Method,
) -> Result<(), Refusal> {
    if has(ctx, "talavera-joseph-in-person")
        && sender == "joseph"
        && method != crate::rules::Method::InPerson
        && !variant(ctx, "joseph-sends-aides")
    {
        return Err(Refusal::new(
            "in-person-only",
            "T4.2a",
            "Joseph may only issue In-Person orders",
            "ride to the recipient and use --method in-person, or relay through Jourdan",
        ));
    }
    Ok(())
}

/// T4.2c: Victor, acting on Initiative, checks stoppage as a 0-rated commander.
pub(super) fn stoppage_rating(ctx: &Ctx, command: &str, rating: u8) -> u8 {
    let victor =
        oob::commander_of(ctx.eng.scenario, &ctx.state, command).is_some_and(|c| c.id == "victor");
    let on_initiative = ctx
        .state
        .commands
        .get(command)
        .and_then(|c| c.current_order)
        .and_then(|n| ctx.state.orders.get(&n))
        .is_some_and(|o| o.origin == super::state::OrderOrigin::Initiative);
    let side = command_side(ctx, command);
    if has(ctx, "talavera-victor-stoppage") && victor && on_initiative {
        0
    } else if disgusted(ctx, side) {
        rating.saturating_sub(1)
    } else {
        rating
    }
}

/// V2.1: a British infantry brigade may not receive an Independent Order.
pub(super) fn no_independent(ctx: &Ctx, command: &str) -> bool {
    has(ctx, "vimeiro-british-no-independent-infantry")
        && ctx
            .eng
            .scenario
            .unit(command)
            .is_some_and(|u| u.side == "british" && u.kind == UnitKind::Infantry)
}

/// Scenario rules at the start of a side's Command Phase: Burrard (V2.5), Cuesta Moron (5.4b).
pub(super) fn command_phase_start(ctx: &mut Ctx, side: &str) -> Result<(), Refusal> {
    burrard_may_land(ctx, side)?;
    cuesta_moron(ctx, side)
}

/// 5.3b: Jourdan commands the French army from the start.
pub(super) fn game_start(ctx: &mut Ctx) {
    if !variant(ctx, "jourdan-commands") || ctx.eng.scenario.commander("jourdan").is_none() {
        return;
    }
    let Some(old) = ctx
        .state
        .sides
        .get("french")
        .map(|s| s.army_commander.clone())
    else {
        return;
    };
    ctx.emit_side(
        "french",
        EventKind::ArmyCommanderReplaced {
            side: "french".into(),
            old,
            new: "jourdan".into(),
            reason: "Jourdan commands the army (Talavera 5.3b)".into(),
            removed: false,
        },
    );
}

/// 5.4b Cuesta Moron: 2d6 at the start of each Allied Command Phase; 10–12 send a random
/// Spanish division its own way. The division is chosen with one die over the divisions in id
/// order.
fn cuesta_moron(ctx: &mut Ctx, side: &str) -> Result<(), Refusal> {
    use crate::rules::{OrderType, Posture};
    let Some(corps) = spanish_corps(ctx) else {
        return Ok(());
    };
    if !variant(ctx, "cuesta-moron") || corps.side != side {
        return Ok(());
    }
    let (roll, dice) = ctx.dice.roll_2d6(Purpose::Special)?;
    let divisions: Vec<String> = oob::sub_units(ctx.eng.scenario, &ctx.state, &corps.id)
        .into_iter()
        .filter(|d| ctx.eng.scenario.formation(d).is_some())
        .collect();
    let happens = roll >= 10 && !divisions.is_empty();
    ctx.emit_side(
        side,
        EventKind::SpecialRuleRolled {
            rule: "cuesta-moron".into(),
            dice: dice.to_vec(),
            happens,
        },
    );
    if !happens {
        return Ok(());
    }
    let pick = ctx.dice.roll(Purpose::Special, divisions.len() as u8)?;
    ctx.emit_side(
        side,
        EventKind::SpecialRuleRolled {
            rule: "cuesta-moron".into(),
            dice: vec![pick],
            happens: true,
        },
    );
    let division = divisions[usize::from(pick.value - 1)].clone();
    let withdrew_before = ctx.state.orders.values().any(|o| {
        o.recipient == division && o.origin == OrderOrigin::Imposed && o.key == MORON_WITHDRAW
    });
    let (key, text, posture) = match roll {
        10 => {
            ctx.emit_side(
                side,
                EventKind::StatusChanged {
                    command: division,
                    status: super::state::CommandStatus::NoOrders,
                    reason: "Cuesta Moron: it throws its order away (T5.4b)".into(),
                },
            );
            return Ok(());
        }
        11 if withdrew_before => (
            "t5.4b-tajo",
            "Cross the Tajo bridge and leave the map to the south (T5.4b).",
            Posture::General,
        ),
        11 => (
            MORON_WITHDRAW,
            "Withdraw into Talavera on Independent Orders (T5.4b).",
            Posture::General,
        ),
        _ => (
            "t5.4b-attack",
            "Attack the nearest French formation on Independent Orders (T5.4b).",
            Posture::Engage,
        ),
    };
    let order = super::command::TypedOrder {
        text: text.into(),
        readback: text.into(),
        order_type: if posture == Posture::Engage {
            OrderType::Engage
        } else {
            OrderType::General
        },
        stages: vec![posture],
        independent: true,
        key: key.into(),
        joins: None,
        attaches: Vec::new(),
    };
    let record = super::state::OrderRecord::new(
        ctx.state.next_order_number(),
        &order,
        super::state::Routing {
            side: side.to_string(),
            sender: "cuesta".into(),
            recipient: division,
            method: None,
            cost: 0,
            sent_turn: ctx.state.turn,
            arrival_turn: ctx.state.turn,
            origin: OrderOrigin::Imposed,
            status: OrderStatus::Arrived,
        },
    );
    ctx.emit_side(side, EventKind::OrderIssued { order: record });
    Ok(())
}

/// The key of Cuesta Moron's withdrawal order (a second one sends the division off the map).
const MORON_WITHDRAW: &str = "t5.4b-withdraw";

/// V2.5: at the start of each British Command Phase from 10:30, Burrard may land.
fn burrard_may_land(ctx: &mut Ctx, side: &str) -> Result<(), Refusal> {
    if !has(ctx, "vimeiro-burrard") || side != "british" {
        return Ok(());
    }
    let s = ctx.eng.scenario;
    let Some(burrard) = s.commander("burrard") else {
        return Ok(());
    };
    if ctx
        .state
        .sides
        .get(side)
        .is_some_and(|x| x.army_commander == burrard.id)
    {
        return Ok(());
    }
    let from = if variant(ctx, "early-lunch") {
        (13, 0)
    } else {
        (10, 30)
    };
    let now = ctx.eng.turn_info(ctx.state.turn).map(|t| t.time.time());
    let start = chrono::NaiveTime::from_hms_opt(from.0, from.1, 0);
    let lands = if variant(ctx, "no-breakfast") {
        true
    } else {
        if now.is_none() || now < start {
            return Ok(());
        }
        let die = ctx.dice.roll(Purpose::Special, 6)?;
        let happens = die.value <= 2;
        ctx.emit_side(
            side,
            EventKind::SpecialRuleRolled {
                rule: "vimeiro-burrard".into(),
                dice: vec![die],
                happens,
            },
        );
        happens
    };
    if lands {
        burrard_takes_command(ctx, side, &burrard.id);
    }
    Ok(())
}

fn burrard_takes_command(ctx: &mut Ctx, side: &str, burrard: &str) {
    let Some((old, hq)) = ctx
        .state
        .sides
        .get(side)
        .map(|s| (s.army_commander.clone(), s.army_hq.clone()))
    else {
        return;
    };
    ctx.emit_side(
        side,
        EventKind::ArmyCommanderReplaced {
            side: side.to_string(),
            old: old.clone(),
            new: burrard.to_string(),
            reason: "Burrard lands and takes command (V2.5)".into(),
            removed: true,
        },
    );
    if let Some(h) = ctx.state.positions.get(&hq).copied() {
        ctx.emit_side(
            side,
            EventKind::PieceMoved {
                left: Vec::new(),
                facings: Vec::new(),
                piece: burrard.to_string(),
                from: None,
                to: h,
                path: Vec::new(),
                half_mp: None,
            },
        );
    }
    let in_transit: Vec<u32> = ctx
        .state
        .orders
        .values()
        .filter(|o| o.side == side && o.status == OrderStatus::InTransit)
        .map(|o| o.number)
        .collect();
    for order in in_transit {
        ctx.emit_side(
            side,
            EventKind::OrderDiscarded {
                order,
                reason: "cancelled when Burrard took command (V2.5)".into(),
            },
        );
    }
    let temporary: Vec<String> = ctx
        .eng
        .scenario
        .formations
        .iter()
        .filter(|f| f.side == side && f.temporary)
        .map(|f| f.id.clone())
        .collect();
    for t in temporary {
        super::temporary_division::dissolve_if_temporary(
            ctx,
            &t,
            "automatic stoppage when Burrard took command (V2.5)",
        );
    }
}

/// T2.2a: Spanish cavalry checks morale (21.2) before charging, or reaction-charging, enemy
/// cavalry; on a failure it stays in place (it may try another target later). Returns whether
/// it balks. The check is a `special-rule-rolled` event (`happens`: it charges).
pub(super) fn spanish_cavalry_balks(
    ctx: &mut Ctx,
    attacker: &crate::combat::Combatant,
    attackers: &[String],
    defenders: &[String],
) -> Result<bool, Refusal> {
    const RULE: &str = "talavera-spanish-cavalry-morale";
    let s = ctx.eng.scenario;
    let cavalry = |id: &String| s.unit(id).is_some_and(|u| u.kind.is_cavalry());
    if !has(ctx, RULE)
        || !attackers
            .first()
            .is_some_and(|a| cavalry(a) && spanish(ctx, a))
        || !defenders.first().is_some_and(cavalry)
    {
        return Ok(false);
    }
    let mut trace = crate::combat::Trace::default();
    let check = crate::combat::morale::morale_check(
        ctx.eng.combat,
        attacker.morale_rating,
        &attacker.commanders,
        true,
        0,
        Purpose::Morale,
        ctx.dice,
        &mut trace,
    )
    .map_err(|e| match e {
        crate::combat::CombatError::Dice(d) => Refusal::from(d),
        other => Refusal::new("illegal-combat", "T2.2a", other.to_string(), ""),
    })?;
    let side = command_side(ctx, &attackers[0]).to_string();
    ctx.emit_side(
        &side,
        EventKind::SpecialRuleRolled {
            rule: RULE.into(),
            dice: trace.dice,
            happens: check.passed,
        },
    );
    Ok(!check.passed)
}

/// T2.2b Spanish Unease: once three British divisions are wrecked, every Morale Change a Spanish
/// unit takes in combat is one worse (M−1 → M−2, M+2 → M+1); no change stays no change.
pub(super) fn spanish_unease(
    ctx: &Ctx,
    unit: &str,
    before: crate::combat::MoraleState,
    after: crate::combat::MoraleState,
) -> crate::combat::MoraleState {
    let Some(corps) = spanish_corps(ctx) else {
        return after;
    };
    let s = ctx.eng.scenario;
    let british_wrecked = ctx
        .state
        .commands
        .iter()
        .filter(|(id, c)| {
            c.side == corps.side
                && c.wrecked
                && oob::echelon(s, id) == Some(crate::scenario::Echelon::Division)
                && !spanish(ctx, id)
        })
        .count();
    if has(ctx, "talavera-spanish-unease")
        && british_wrecked >= 3
        && spanish(ctx, unit)
        && after != before
    {
        after.shift(-1)
    } else {
        after
    }
}

/// T2.3: Cuesta rides in his carriage, 7 MP a turn (the engine counts them over commander
/// costs); variant 5.4a ignores the rule. Everyone else has the chart's allowance.
pub(super) fn commander_allowance(ctx: &Ctx, piece: &str, allowance: u32) -> u32 {
    /// "La tartana de Cuesta": the foot artillery column's 7 MP.
    const TARTANA_MP: u32 = 7;
    if has(ctx, "talavera-tartana") && piece == "cuesta" && !variant(ctx, "cuesta-misunderstood") {
        TARTANA_MP.min(allowance)
    } else {
        allowance
    }
}

/// T4.5: the brigades of a division its corps commander leads himself (Sebastiani's 1-IV) may
/// trace command range to the corps HQ instead of him; variant 5.7 (Ney) revokes the rule.
pub(super) fn other_divisional_anchor(
    ctx: &Ctx,
    division: &crate::scenario::Formation,
) -> Option<String> {
    if !has(ctx, "talavera-sebastiani") || variant(ctx, "ney") {
        return None;
    }
    let corps = ctx
        .eng
        .scenario
        .formation(division.parent.as_deref()?)
        .filter(|c| c.echelon == crate::scenario::Echelon::Corps)?;
    (corps.commander.is_some() && corps.commander == division.commander)
        .then(|| oob::hq_piece(&corps.id))
}

/// T2.1: no British unit may be attached to the Army of Extremadura (join it, or be attached to
/// one of its commands).
pub(super) fn check_attachment(
    ctx: &Ctx,
    to: &str,
    order: &super::command::TypedOrder,
) -> Result<(), Refusal> {
    if !has(ctx, "talavera-extremadura-corps") || spanish_corps(ctx).is_none() {
        return Ok(());
    }
    let into_spanish = |target: &str, unit: &str| spanish(ctx, target) && !spanish(ctx, unit);
    let joins = order.joins.as_deref().is_some_and(|t| into_spanish(t, to));
    let attached = order.attaches.iter().find(|a| into_spanish(to, a));
    if joins || attached.is_some() {
        let who = attached.map_or(to, String::as_str);
        return Err(Refusal::new(
            "no-british-in-extremadura",
            "T2.1",
            format!("`{who}` may not be attached to the Army of Extremadura"),
            "British units stay out of Cuesta's corps; borrow a Spanish division instead (T2.4)",
        ));
    }
    Ok(())
}
