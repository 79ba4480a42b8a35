//! Scenario special rules that change the command system, each switched on by the stable id a
//! scenario lists in `[[special_rules]]` (and off by a variant where the rules say so):
//!
//! - `vimeiro-french-initiative-minus-one` (V3.1): French commanders roll Initiative one column
//!   lower; variant `junot-wakes-up` (5.4) lifts it.
//! - `vimeiro-british-no-independent-infantry` (V2.1): British infantry brigades may not receive
//!   Independent Orders.
//! - `vimeiro-temporary-divisions` (V2.3): a temporary division ceases to exist when it fails a
//!   Stoppage Check, carries out a Loose Cannon or loses its commander.
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
//! The commanders are named by their ids in the scenario (`cuesta`, `joseph`, `victor`).
//! Owns these hooks; the rules they modify stay in `command_system`. Not yet here: borrowing
//! Spanish divisions (T2.4), Jourdan relaying orders (T4.2b), Joseph's remote control (T4.3).

use super::event::EventKind;
use super::oob;
use super::state::OrderStatus;
use super::{Ctx, Refusal};
use crate::rules::dice::Purpose;
use crate::scenario::UnitKind;

fn has(ctx: &Ctx, rule: &str) -> bool {
    ctx.eng.scenario.special_rules.iter().any(|r| r.id == rule)
}

fn variant(ctx: &Ctx, id: &str) -> bool {
    ctx.state.variants.contains(id)
}

/// V3.1: the Initiative column modifier for a side's commanders.
pub(super) fn initiative_modifier(ctx: &Ctx, side: &str) -> i32 {
    if has(ctx, "vimeiro-french-initiative-minus-one")
        && side == "french"
        && !variant(ctx, "junot-wakes-up")
    {
        -1
    } else {
        0
    }
}

/// T2.1: extra Acceptance Number modifier for an order (−2 more for Cuesta on Engage/Complex).
pub(super) fn acceptance_modifier(
    ctx: &Ctx,
    recipient: &str,
    order_type: crate::rules::OrderType,
) -> i32 {
    let cuesta = oob::commander_of(ctx.eng.scenario, &ctx.state, recipient)
        .is_some_and(|c| c.id == "cuesta");
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
    if has(ctx, "talavera-victor-stoppage") && victor && on_initiative {
        0
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

/// Is this command a temporary division under V2.3?
fn temporary(ctx: &Ctx, command: &str) -> bool {
    has(ctx, "vimeiro-temporary-divisions")
        && ctx
            .eng
            .scenario
            .formation(command)
            .is_some_and(|f| f.temporary)
        && ctx
            .state
            .commands
            .get(command)
            .is_some_and(|c| !c.dissolved)
}

/// V2.3: dissolve a temporary division (its brigades revert to the army, its commander leaves).
/// Returns whether it did.
pub(super) fn dissolve_if_temporary(ctx: &mut Ctx, command: &str, reason: &str) -> bool {
    if !temporary(ctx, command) {
        return false;
    }
    let side = ctx.state.commands[command].side.clone();
    ctx.emit_side(
        &side,
        EventKind::TemporaryDivisionDissolved {
            division: command.to_string(),
            reason: reason.to_string(),
        },
    );
    true
}

/// Orders to a dissolved temporary division are refused.
pub(super) fn require_exists(ctx: &Ctx, command: &str) -> Result<(), Refusal> {
    if ctx.state.commands.get(command).is_some_and(|c| c.dissolved) {
        return Err(Refusal::new(
            "dissolved",
            "V2.3",
            format!("`{command}` has ceased to exist"),
            "address its brigades, or form a new temporary division",
        ));
    }
    Ok(())
}

/// V2.5: at the start of each British Command Phase from 10:30, Burrard may land.
pub(super) fn command_phase_start(ctx: &mut Ctx, side: &str) -> Result<(), Refusal> {
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
    let old = ctx.state.sides[side].army_commander.clone();
    let hq = ctx.state.sides[side].army_hq.clone();
    ctx.emit_side(
        side,
        EventKind::ArmyCommanderReplaced {
            side: side.to_string(),
            old: old.clone(),
            new: burrard.to_string(),
            reason: "Burrard lands and takes command (V2.5)".into(),
        },
    );
    if let Some(h) = ctx.state.positions.get(&hq).copied() {
        ctx.emit_side(
            side,
            EventKind::PieceMoved {
                piece: burrard.to_string(),
                from: None,
                to: h,
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
        dissolve_if_temporary(
            ctx,
            &t,
            "automatic stoppage when Burrard took command (V2.5)",
        );
    }
}
