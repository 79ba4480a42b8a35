//! Vimeiro V2.3, "Temporary Divisions" (scenario rule `vimeiro-temporary-divisions`).
//!
//! - A temporary division is formed around Hill, Ferguson or Crawfurd by an order — by aide or
//!   in person, never by Initiative — to the commander's own brigade, naming the brigades (up to
//!   two more) and the battery (at most one) it takes in and the division's task. When the order
//!   is accepted the division exists: its commander is placed with his brigade and acts as a
//!   Divisional Commander, and the order is the division's.
//! - It ceases to exist (its brigades revert to the army) when it fails a Stoppage Check,
//!   carries out a Loose Cannon or loses its commander, or when Burrard lands (V2.5). It may
//!   then be formed again by a new order.
//! - A temporary formation with no `members` in the scenario starts unformed ("kept off-board
//!   until called up").
//!
//! Owns forming, dissolving and the checks on orders to such divisions; the order's acceptance
//! stays in `command_system`.

use super::command::TypedOrder;
use super::event::EventKind;
use super::special_rules::has;
use super::{Ctx, Refusal};

const RULE: &str = "vimeiro-temporary-divisions";

/// Brigades a temporary division may take in besides its commander's own, and batteries (V2.3).
const MAX_OTHER_BRIGADES: usize = 2;
const MAX_BATTERIES: usize = 1;

/// Is this command a temporary division under V2.3 that exists now?
pub(super) fn temporary(ctx: &Ctx, command: &str) -> bool {
    has(ctx, RULE)
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
    let Some(side) = ctx.state.commands.get(command).map(|c| c.side.clone()) else {
        return false;
    };
    ctx.emit_side(
        &side,
        EventKind::TemporaryDivisionDissolved {
            division: command.to_string(),
            reason: reason.to_string(),
        },
    );
    // An order still pending for a division that no longer exists can never be carried out:
    // it is discarded, not left to roll its delay (issue 17).
    let pending: Vec<u32> = ctx
        .state
        .orders
        .values()
        .filter(|o| o.recipient == command && o.status.is_pending())
        .map(|o| o.number)
        .collect();
    for order in pending {
        ctx.emit_side(
            &side,
            EventKind::OrderDiscarded {
                order,
                reason: "its temporary division ceased to exist (V2.3)".into(),
            },
        );
    }
    true
}

/// Orders to a dissolved temporary division are refused.
pub(super) fn require_exists(ctx: &Ctx, command: &str) -> Result<(), Refusal> {
    if ctx.state.commands.get(command).is_some_and(|c| c.dissolved) {
        return Err(Refusal::new(
            "dissolved",
            "V2.3",
            format!("`{command}` does not exist now: it is not formed, or has ceased to exist"),
            "address its brigades, or form it by an order to its commander's brigade naming its brigades and battery",
        ));
    }
    Ok(())
}

/// The temporary division an order to `to` would form: `to` is the own brigade of a commander
/// whose temporary division does not exist now (V2.3).
pub(super) fn formed_by(ctx: &Ctx, to: &str) -> Option<String> {
    if !has(ctx, RULE) {
        return None;
    }
    let s = ctx.eng.scenario;
    let commander = s
        .commanders
        .iter()
        .find(|c| c.brigade.as_deref() == Some(to))?;
    let f = s.formation_of_commander(&commander.id)?;
    (f.temporary && ctx.state.commands.get(&f.id).is_some_and(|c| c.dissolved))
        .then(|| f.id.clone())
}

/// V2.3: the units a forming order names must make a legal temporary division.
pub(super) fn check_forming(
    ctx: &Ctx,
    division: &str,
    to: &str,
    order: &TypedOrder,
) -> Result<(), Refusal> {
    let s = ctx.eng.scenario;
    let side = s.formation(division).map_or("", |f| f.side.as_str());
    let bad = |why: String| {
        Err(Refusal::new(
            "bad-temporary-division",
            "V2.3",
            why,
            "name up to two other brigades and at most one battery of your army, none in another temporary division",
        ))
    };
    if in_formed_temporary(ctx, to) {
        return bad(format!("`{to}` serves in another temporary division"));
    }
    let (mut brigades, mut batteries) = (0, 0);
    for a in &order.attaches {
        let Some(u) = s.unit(a).filter(|u| u.side == side && a != to) else {
            return bad(format!("`{a}` cannot join `{division}`"));
        };
        if u.kind.is_artillery() {
            batteries += 1;
        } else if u.kind.counts_as_sub_unit() {
            brigades += 1;
        } else {
            return bad(format!("`{a}` is neither a brigade nor a battery"));
        }
        if in_formed_temporary(ctx, a) {
            return bad(format!("`{a}` serves in another temporary division"));
        }
    }
    if brigades > MAX_OTHER_BRIGADES || batteries > MAX_BATTERIES {
        return bad(format!(
            "{brigades} other brigade(s) and {batteries} battery(ies) are too many"
        ));
    }
    Ok(())
}

/// Does the unit belong to a temporary division that exists now?
fn in_formed_temporary(ctx: &Ctx, unit: &str) -> bool {
    let parent = match ctx.state.commands.get(unit) {
        Some(c) => c.parent.clone(),
        // Batteries are not commands: they count by the scenario's members.
        None => ctx
            .eng
            .scenario
            .temporary_division_of(unit)
            .map(|f| f.id.clone()),
    };
    parent.is_some_and(|p| temporary(ctx, &p))
}

/// V2.3: a forming order was implemented: the division exists, its commander joins his brigade
/// and the order is the division's. Returns whether the order formed one.
pub(super) fn form_on_implementation(ctx: &mut Ctx, order: u32) -> bool {
    // Only an order the army commander sent forms one (pre-set "defend in place" orders do not).
    let Some(o) = ctx
        .state
        .orders
        .get(&order)
        .filter(|o| o.origin == super::state::OrderOrigin::Sent)
        .cloned()
    else {
        return false;
    };
    let Some(division) = formed_by(ctx, &o.recipient) else {
        return false;
    };
    let s = ctx.eng.scenario;
    let mut members = vec![o.recipient.clone()];
    members.extend(o.attaches.iter().cloned());
    let commander = ctx
        .state
        .commanders
        .get(&division)
        .cloned()
        .unwrap_or_default();
    ctx.emit_side(
        &o.side,
        EventKind::TemporaryDivisionFormed {
            division: division.clone(),
            commander: commander.clone(),
            members,
            order,
        },
    );
    let brigade_hex = ctx.state.positions.get(&o.recipient).copied();
    if let Some(to) = brigade_hex
        && ctx.state.positions.get(&commander) != Some(&to)
        && s.commander(&commander).is_some()
    {
        let from = ctx.state.positions.get(&commander).copied();
        ctx.emit_side(
            &o.side,
            EventKind::PieceMoved {
                left: Vec::new(),
                facings: Vec::new(),
                piece: commander,
                from,
                to,
                path: Vec::new(),
                half_mp: None,
            },
        );
    }
    true
}
