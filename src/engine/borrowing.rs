//! Talavera T2.4, "Borrowing Spanish Divisions": the army commander (Wellesley) orders a
//! division of an allied corps (Cuesta's Army of Extremadura) directly. Switched on by the
//! scenario rule `talavera-borrowing`.
//!
//! - Cost and delivery are those of an order to the division alone (6.4).
//! - On arrival the division rolls for acceptance as usual, then the corps commander rolls "as
//!   if the order were sent to him as well" (T2.1's −4 on Engage orders applies), with −1 for
//!   each division already borrowed. The order waits for the slower of the two (decision 0046);
//!   if the corps commander's roll is Dt he throws it away: the order is discarded and the army
//!   commander may never order that division again.
//! - Once accepted, the division is on loan: Independent (6.8) and ordered without his roll.
//!   Ordered back to its corps it is returned; returned unwrecked its borrowing stops counting.
//! - Sent while the army commander stands with the corps commander, the corps commander counts
//!   the order as In-Person.
//! - The army commander may give two of the corps' cavalry brigades Independent Orders
//!   without borrowing; other brigades are ordered through their division.
//!
//! Owns these decisions; the acceptance procedure itself stays in `command_system`. The corps
//! is the one the scenario gives to `cuesta` (his successors inherit his habits, T2.1).

use super::event::EventKind;
use super::oob;
use super::state::{Loan, OrderRecord, Release};
use super::{Ctx, Refusal};
use crate::rules::dice::Purpose;
use crate::rules::{AcceptanceResult, Method};
use crate::scenario::{Echelon, OobRef};

const RULE: &str = "talavera-borrowing";

/// Cavalry brigades the army commander may order without borrowing (T2.4).
const FREE_CAVALRY_BRIGADES: usize = 2;

fn active(ctx: &Ctx) -> bool {
    super::special_rules::has(ctx, RULE)
}

/// T2.4: what an order from the army commander to a command of the lending corps needs: `None`
/// for an ordinary order, a [`Release`] for a borrowing order, or a refusal.
pub(super) fn release_for(
    ctx: &Ctx,
    from: &str,
    to: &str,
    method: Method,
) -> Result<Option<Release>, Refusal> {
    if !active(ctx) {
        return Ok(None);
    }
    let Some(corps) = super::special_rules::spanish_corps(ctx) else {
        return Ok(None);
    };
    let s = ctx.eng.scenario;
    if to == corps.id || !oob::is_ancestor(&ctx.state, &corps.id, to) {
        return Ok(None);
    }
    let loan = ctx.state.commands.get(to).and_then(|c| c.loan);
    match loan {
        Some(Loan::Barred) => {
            return Err(Refusal::new(
                "borrow-barred",
                "T2.4",
                format!(
                    "{} threw away an order to `{to}`: {from} may never order it again",
                    corps_commander_name(ctx, &corps.id)
                ),
                "order it through its corps commander, or borrow another division",
            ));
        }
        Some(Loan::Borrowed) => return Ok(None),
        _ => {}
    }
    // A brigade of a borrowed division is ordered like any brigade of the army.
    if oob::parent(&ctx.state, to)
        .and_then(|p| ctx.state.commands.get(&p))
        .is_some_and(|p| p.loan == Some(Loan::Borrowed))
    {
        return Ok(None);
    }
    match s.command(to) {
        Some(OobRef::Formation(f)) if f.echelon == Echelon::Division => {
            let with_corps_commander = oob::commander_of(s, &ctx.state, &corps.id)
                .and_then(|c| ctx.state.positions.get(&c.id))
                .is_some_and(|h| ctx.state.positions.get(from) == Some(h));
            Ok(Some(Release {
                corps: corps.id.clone(),
                // Away from him, an order handed to the division in person reaches him by word
                // of mouth: oral (decision 0046).
                method: match method {
                    _ if with_corps_commander => Method::InPerson,
                    Method::InPerson => Method::Oral,
                    m => m,
                },
            }))
        }
        Some(OobRef::Unit(u)) if u.kind.is_cavalry() => {
            let ordered: std::collections::BTreeSet<&str> = ctx
                .state
                .orders
                .values()
                .filter(|o| o.side == u.side && o.method.is_some())
                .filter(|o| {
                    s.unit(&o.recipient).is_some_and(|x| x.kind.is_cavalry())
                        && oob::is_ancestor(&ctx.state, &corps.id, &o.recipient)
                })
                .map(|o| o.recipient.as_str())
                .collect();
            if ordered.contains(to) || ordered.len() < FREE_CAVALRY_BRIGADES {
                Ok(None)
            } else {
                Err(Refusal::new(
                    "borrow-cavalry-limit",
                    "T2.4",
                    format!(
                        "{from} has already ordered {FREE_CAVALRY_BRIGADES} of the corps' cavalry brigades directly"
                    ),
                    "borrow the brigade's division instead",
                ))
            }
        }
        _ => Err(Refusal::new(
            "borrow-division",
            "T2.4",
            format!("`{to}` belongs to {}: borrow its division", corps.name),
            "address the division; only two cavalry brigades may be ordered directly",
        )),
    }
}

fn corps_commander_name(ctx: &Ctx, corps: &str) -> String {
    oob::commander_of(ctx.eng.scenario, &ctx.state, corps)
        .map_or_else(|| corps.to_string(), |c| c.name.clone())
}

/// T2.4: the corps commander's roll for a borrowing order; returns his result.
pub(super) fn roll_release(
    ctx: &mut Ctx,
    o: &OrderRecord,
    release: &Release,
) -> Result<AcceptanceResult, Refusal> {
    let s = ctx.eng.scenario;
    let corps = &release.corps;
    let sender = i32::from(oob::rating(s, &ctx.state, &o.sender));
    let receiver = oob::receiver_rating(s, &ctx.state, corps).unwrap_or(2);
    let current = super::command_system::current_order(ctx, corps);
    let penalty = -(ctx
        .state
        .commands
        .iter()
        .filter(|(id, c)| {
            *id != &o.recipient
                && matches!(c.loan, Some(Loan::Borrowed | Loan::ReturnedWrecked))
                && s.formation(id).is_some()
        })
        .count() as i32);
    let number =
        ctx.eng
            .tables
            .acceptance_number(sender, receiver, release.method, o.order_type, current)
            + super::special_rules::acceptance_modifier(ctx, corps, o.order_type)
            + penalty;
    let (roll, dice) = ctx.dice.roll_11_66(Purpose::Acceptance)?;
    let cell = ctx.eng.tables.acceptance(number, roll);
    let commander = ctx.state.commanders.get(corps).cloned().unwrap_or_default();
    ctx.emit_side(
        &o.side,
        EventKind::ReleaseRolled {
            order: o.number,
            corps: corps.clone(),
            commander,
            number,
            penalty,
            column: number.clamp(-3, 10),
            roll,
            dice: dice.to_vec(),
            result: cell.value,
            provenance: cell.provenance,
        },
    );
    Ok(cell.value)
}

/// T2.4: the corps commander threw the order away; the division is barred to the army commander.
pub(super) fn throw_away(ctx: &mut Ctx, o: &OrderRecord) {
    let who = corps_commander_name(ctx, o.release.as_ref().map_or("", |r| r.corps.as_str()));
    ctx.emit_side(
        &o.side,
        EventKind::OrderDiscarded {
            order: o.number,
            reason: format!("{who} threw the borrowing order away (T2.4)"),
        },
    );
    ctx.emit_side(
        &o.side,
        EventKind::DivisionBarred {
            division: o.recipient.clone(),
            order: o.number,
        },
    );
}

/// When an order is implemented: a borrowing order puts the division on loan; an order that
/// sends a borrowed division back to its corps returns it (T2.4).
pub(super) fn on_implemented(ctx: &mut Ctx, number: u32) {
    let Some(o) = ctx.state.orders.get(&number).cloned() else {
        return;
    };
    let loan = ctx.state.commands.get(&o.recipient).and_then(|c| c.loan);
    if let Some(r) = &o.release
        && loan != Some(Loan::Borrowed)
        && o.joins.as_deref() != Some(r.corps.as_str())
    {
        ctx.emit_side(
            &o.side,
            EventKind::DivisionBorrowed {
                division: o.recipient.clone(),
                order: number,
            },
        );
    } else if loan == Some(Loan::Borrowed)
        && super::special_rules::spanish_corps(ctx)
            .is_some_and(|c| o.joins.as_deref() == Some(c.id.as_str()))
    {
        let wrecked = ctx
            .state
            .commands
            .get(&o.recipient)
            .is_some_and(|c| c.wrecked);
        ctx.emit_side(
            &o.side,
            EventKind::DivisionReturned {
                division: o.recipient.clone(),
                wrecked,
            },
        );
    }
}
