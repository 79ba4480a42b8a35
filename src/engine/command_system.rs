//! The rules of NBS section 6, one function per rule: issuing orders (6.4), arrival (6.4.7),
//! acceptance (6.5), delay reduction (6.5.2), distortion (6.5.3), Initiative (6.6.1), Loose
//! Cannon (6.6.1.6), Default Defense (6.6.2), Emergency Withdrawal (6.6.3), Attack Stoppage
//! (6.7), Independent Orders (6.8), HQs (6.10), command range (6.11) and night command (27.2).

use std::collections::BTreeMap;

use super::command::{OverrideAction, TypedOrder};
use super::event::{EventKind, Visibility, WithdrawalCause};
use super::oob;
use super::state::*;
use super::{Ctx, Refusal, unknown_command};
use crate::hex::Hex;
use crate::rules::dice::Purpose;
use crate::rules::{AcceptanceResult, CurrentOrder, InitiativeResult, Method, Posture};
use crate::scenario::{Echelon, OobRef, UnitKind};
use crate::space::Space;

fn require_step(ctx: &Ctx, step: Step, what: &str) -> Result<(), Refusal> {
    if ctx.state.step == step {
        return Ok(());
    }
    let (when, hint) = match step {
        Step::Command => (
            "in the Command Phase",
            "run `staffwork turn` until the next Command Phase",
        ),
        Step::Operations => (
            "in the Operations window (fire, movement, close combat)",
            "run `staffwork turn` to close the Command Phase",
        ),
        Step::GameOver => ("after the game", ""),
    };
    Err(Refusal::new(
        "wrong-step",
        "5.1",
        format!("{what} is done {when}"),
        hint,
    ))
}

fn require_phasing(ctx: &Ctx, side: &str, what: &str) -> Result<(), Refusal> {
    if ctx.state.phasing() == side {
        Ok(())
    } else {
        Err(Refusal::new(
            "not-phasing",
            "5.1",
            format!(
                "{what}: it is the {} player's turn, not {side}'s",
                ctx.state.phasing()
            ),
            "wait for your own player turn",
        ))
    }
}

/// The Current Order acceptance term of a command (6.5): Engage −1, General 0, No Orders +1.
pub(super) fn current_order(ctx: &Ctx, command: &str) -> CurrentOrder {
    match ctx.state.current_posture(command) {
        Some(Posture::Engage) => CurrentOrder::Engage,
        Some(Posture::General) => CurrentOrder::General,
        None => CurrentOrder::None,
    }
}

/// Where a piece stands, if on the map.
fn pos(ctx: &Ctx, piece: &str) -> Option<Hex> {
    ctx.state.positions.get(piece).copied()
}

/// 6.4: the army commander writes an order, pays its command points and sends it — or hands it
/// in person to the commander who relays it (`via`, Talavera T4.2b).
pub(super) fn issue_order(
    ctx: &mut Ctx,
    side: &str,
    from: &str,
    to: &str,
    method: Method,
    order: &TypedOrder,
    via: Option<&str>,
) -> Result<(), Refusal> {
    require_step(ctx, Step::Command, "Issuing orders")?;
    require_phasing(ctx, side, "Issuing orders")?;
    let ss = ctx.state.sides.get(side).cloned().unwrap_or_default();
    let remote = check_sender(ctx, side, from, to, method, via, &ss)?;
    check_recipient(ctx, to, method, order)?;
    let release = super::borrowing::release_for(ctx, from, to, method)?;
    let arrival_turn = arrival_turn(ctx, from, to, method, via, remote, &ss)?;
    super::random_events::check_order_due(ctx, to, arrival_turn)?;
    let cost = ctx.eng.tables.order_cost(method, order.order_type);
    if cost > ss.command_points {
        return Err(Refusal::new(
            "not-enough-command-points",
            "6.4.1",
            format!(
                "the order costs {cost} command points; {side} has {} left this turn",
                ss.command_points
            ),
            "send it orally, make it General, or wait for next turn (points are not saved)",
        ));
    }
    // T4.3: a remote order rides 1d6 turns more.
    let arrival_turn = if remote.is_some() {
        arrival_turn + super::relay::remote_delay(ctx, side)?
    } else {
        arrival_turn
    };
    let mut record = OrderRecord::new(
        ctx.state.next_order_number(),
        order,
        Routing {
            side: side.to_string(),
            sender: from.to_string(),
            recipient: to.to_string(),
            method: Some(method),
            cost,
            sent_turn: ctx.state.turn,
            arrival_turn,
            origin: OrderOrigin::Sent,
            status: OrderStatus::InTransit,
        },
    );
    record.release = release;
    record.relay = via.map(|by| super::state::Relay {
        by: by.to_string(),
        delivered: false,
    });
    let number = record.number;
    ctx.emit_side(side, EventKind::OrderIssued { order: record });
    if via.is_some() {
        // It reaches the relaying commander, not yet its recipient.
        ctx.emit_side(side, EventKind::OrderArrived { order: number });
    } else if arrival_turn <= ctx.state.turn {
        arrive(ctx, number);
    }
    Ok(())
}

/// 5.1, 6.4, T4.2b, T4.3: may `from` issue an order to `to` this segment, and by this way?
/// Returns the off-map origin of a remote order (T4.3), if it is one.
fn check_sender(
    ctx: &Ctx,
    side: &str,
    from: &str,
    to: &str,
    method: Method,
    via: Option<&str>,
    ss: &SideState,
) -> Result<Option<Hex>, Refusal> {
    if ss.initiative_begun {
        return Err(Refusal::new(
            "order-issue-over",
            "5.1",
            "the Order Issue segment is over: Local Initiative has begun this Command Phase",
            "issue orders before any initiative roll, Default Defense or withdrawal",
        ));
    }
    if from != ss.army_commander {
        return Err(Refusal::new(
            "not-army-commander",
            "6.4",
            format!(
                "only the army commander ({}) issues orders; `{from}` cannot",
                ss.army_commander
            ),
            "subordinates give orders only through Local Initiative (`staffwork initiative`)",
        ));
    }
    require_army_hq_still(ctx, side, method)?;
    let recipient_side = ctx.side_of(to)?;
    if recipient_side != side {
        return Err(Refusal::new(
            "enemy-recipient",
            "6.4",
            format!("`{to}` is not one of {side}'s commands"),
            "address an order to your own side",
        ));
    }
    super::temporary_division::require_exists(ctx, to)?;
    super::special_rules::may_order(ctx, from, to)?;
    // T4.3: Joseph's orders from off the map.
    let remote = super::relay::remote_origin(ctx, from, method)?;
    if remote.is_none() && via.is_none() {
        super::special_rules::check_sender(ctx, from, method)?;
    }
    if let Some(via) = via {
        if method != Method::InPerson {
            return Err(Refusal::new(
                "relay-in-person",
                "T4.2b",
                "an order for a relaying commander is handed over in person",
                "use --method in-person",
            ));
        }
        super::relay::check_relay(ctx, from, via)?;
    }
    Ok(remote)
}

/// 6.5.3, 6.10.1, 27.2.2, 6.5.2: may the recipient take this order now?
fn check_recipient(ctx: &Ctx, to: &str, method: Method, order: &TypedOrder) -> Result<(), Refusal> {
    let s = ctx.eng.scenario;
    let rc = ctx
        .state
        .commands
        .get(to)
        .ok_or_else(|| unknown_command(s, to))?;
    // 6.5.3: no new order until the distortion is discovered.
    if rc.distortion_unnoticed {
        return Err(Refusal::new(
            "distortion-unnoticed",
            "6.5.3",
            format!(
                "the last order to `{to}` was distorted and the army commander has not yet discovered it"
            ),
            "a 5 or 6 at the start of a later Command Phase discovers it; meanwhile the command may roll for Initiative",
        ));
    }
    let echelon = oob::echelon(s, to);
    if echelon == Some(Echelon::Army) && method != Method::InPerson {
        return Err(Refusal::new(
            "army-hq-in-person",
            "6.10.1",
            "orders to the Army HQ must be given in person",
            "use --method in-person",
        ));
    }
    check_structure(ctx, to, order)?;
    // 27.2.2: at night an Engage order to a corps is rewritten as Independent Orders per division.
    if ctx.night() && echelon == Some(Echelon::Corps) && order.stages.contains(&Posture::Engage) {
        return Err(Refusal::new(
            "night-engage-corps",
            "27.2.2",
            "at night an Engage order to a corps must be written as Independent Orders, one per division",
            "send each division its own Independent Order conforming to the corps' order",
        ));
    }
    // 6.5.2 / 6.6.1.5: re-sending the same order to improve its result is forbidden.
    if let Some(same) = ctx.state.pending_orders(to).find(|o| o.key == order.key) {
        return Err(Refusal::new(
            "same-order",
            "6.5.2",
            format!(
                "order {} to `{to}` is the same order and is still {}",
                same.number,
                status_word(&same.status)
            ),
            "re-sending an order to improve its acceptance is forbidden; send a different order or wait",
        ));
    }
    Ok(())
}

/// 6.4.3, 6.4.6, 6.4.7: the turn the order reaches its recipient (before a T4.3 remote delay):
/// now in person, after the courier's time by aide.
fn arrival_turn(
    ctx: &Ctx,
    from: &str,
    to: &str,
    method: Method,
    via: Option<&str>,
    remote: Option<Hex>,
    ss: &SideState,
) -> Result<u32, Refusal> {
    let s = ctx.eng.scenario;
    let hub = oob::hub_piece(s, &ctx.state, to).ok_or_else(|| unknown_command(s, to))?;
    let commander_hex = pos(ctx, from);
    Ok(match method {
        // T4.2b: handed to the relaying commander, stacked with the sender (checked above).
        Method::InPerson if via.is_some() => ctx.state.turn,
        Method::InPerson => {
            if !stands_with(ctx, from, to) {
                return Err(Refusal::new(
                    "not-stacked",
                    "6.4.3",
                    format!("an in-person order needs {from} stacked with the recipient `{to}`"),
                    "move the army commander to the recipient first, or send an aide",
                ));
            }
            if ss.in_person_since_hq {
                return Err(Refusal::new(
                    "touch-base",
                    "6.4.6",
                    "between two in-person orders the army commander must return to the Army HQ",
                    "move him through the Army HQ hex first",
                ));
            }
            ctx.state.turn
        }
        Method::Oral | Method::Written => {
            // T4.3: Joseph's remote orders set out from off the map, without the 6.4.6 check.
            if remote.is_none() && !ss.commander_with_hq_at_start {
                return Err(Refusal::new(
                    "away-from-hq",
                    "6.4.6",
                    "aide-delivered orders need the army commander stacked with the Army HQ at the start of the Command Phase",
                    "give the order in person, or move the commander to the HQ and send it next turn",
                ));
            }
            let (Some(a), Some(b)) = (remote.or(commander_hex), pos(ctx, &hub)) else {
                return Err(Refusal::new(
                    "recipient-off-map",
                    "6.4.7",
                    format!("`{to}` is not on the map, so no aide can reach it"),
                    "wait until the command arrives",
                ));
            };
            let cost = ctx.eng.space.commander_cost(a, b).ok_or_else(|| {
                Refusal::new(
                    "no-path",
                    "6.4.7",
                    format!("no commander path from {a} to {b}"),
                    "check the map's prohibited terrain",
                )
            })?;
            ctx.state.turn + cost.courier_turns()
        }
    })
}

/// 6.4.3: is the commander stacked with the recipient — its hub piece, or (6.4 box) its
/// commander, who may stand in for a corps HQ?
pub(super) fn stands_with(ctx: &Ctx, commander: &str, recipient: &str) -> bool {
    let s = ctx.eng.scenario;
    let here = pos(ctx, commander);
    here.is_some()
        && [
            oob::hub_piece(s, &ctx.state, recipient),
            oob::commander_of(s, &ctx.state, recipient).map(|c| c.id.clone()),
        ]
        .into_iter()
        .flatten()
        .any(|p| pos(ctx, &p) == here)
}

/// 25: a lost commander is replaced by the first of the formation's successors (scenario
/// `succession`); a successor may keep his own command too. Without one the formation stays
/// leaderless (receiver and stoppage ratings fall back to 2, decision 0043).
pub(crate) fn replace_commander(ctx: &mut Ctx, command: &str) {
    let s = ctx.eng.scenario;
    let Some(f) = s.formation(command) else {
        return;
    };
    let Some(old) = ctx.state.commanders.get(command).cloned() else {
        return;
    };
    let Some(new) = f.succession.iter().find(|c| **c != old).cloned() else {
        return;
    };
    ctx.emit_side(
        &f.side,
        EventKind::CommanderReplaced {
            command: command.to_string(),
            old,
            new,
        },
    );
}

/// What the order does to the order of battle must be allowed: Independent Orders (6.8.1,
/// Vimeiro V2.1) and sub-unit transfers and attachments (6.9).
fn check_structure(ctx: &Ctx, to: &str, order: &TypedOrder) -> Result<(), Refusal> {
    // V2.3: an order to the brigade of an unformed temporary division's commander forms it.
    if let Some(division) = super::temporary_division::formed_by(ctx, to) {
        return super::temporary_division::check_forming(ctx, &division, to, order);
    }
    let s = ctx.eng.scenario;
    let already = ctx.state.commands.get(to).is_some_and(|c| c.independent);
    let eligible = |id: &str| {
        oob::may_be_independent(s, &ctx.state, id) && !super::special_rules::no_independent(ctx, id)
    };
    if order.independent && !already && !eligible(to) {
        return Err(Refusal::new(
            "independent-not-allowed",
            "6.8.1",
            format!("`{to}` may not receive an Independent Order"),
            "Independent Orders go to divisions of a corps, brigades not in a division, and cavalry brigades (and the scenario may forbid more)",
        ));
    }
    let side = ctx.side_of(to)?;
    let movable =
        |id: &str| ctx.state.commands.get(id).is_some_and(|c| c.independent) || eligible(id);
    if let Some(target) = &order.joins {
        let ok_target = s.formation(target).is_some_and(|f| f.side == side)
            && target != to
            && !oob::is_ancestor(&ctx.state, to, target);
        if !ok_target {
            return Err(Refusal::new(
                "bad-transfer",
                "6.9",
                format!("`{to}` cannot join `{target}`"),
                "a command joins a formation of its own side that is not below it",
            ));
        }
        if !movable(to) {
            return Err(Refusal::new(
                "transfer-not-allowed",
                "6.9",
                format!("`{to}` may not transfer"),
                "only sub-units that are independent, or could receive Independent Orders, may transfer",
            ));
        }
    }
    for a in &order.attaches {
        if ctx.side_of(a).ok().as_deref() != Some(side.as_str()) || !movable(a) || a == to {
            return Err(Refusal::new(
                "transfer-not-allowed",
                "6.9",
                format!("`{a}` may not be attached to `{to}`"),
                "only sub-units of your side that are independent, or could receive Independent Orders, may be attached",
            ));
        }
    }
    super::moving_brigades::may_be_ordered(ctx, to)?;
    super::special_rules::check_attachment(ctx, to, order)
}

/// 6.9: once an order that transfers or attaches sub-units is implemented, they belong to their
/// new parent (decision 0042: at once, without waiting to come within command range).
pub(crate) fn transfers_on_implementation(ctx: &mut Ctx, order: u32) {
    if super::temporary_division::form_on_implementation(ctx, order) {
        return;
    }
    let Some(o) = ctx.state.orders.get(&order).cloned() else {
        return;
    };
    if let Some(target) = &o.joins {
        ctx.emit_side(
            &o.side,
            EventKind::SubUnitTransferred {
                command: o.recipient.clone(),
                to: target.clone(),
                order,
            },
        );
    }
    for a in &o.attaches {
        ctx.emit_side(
            &o.side,
            EventKind::SubUnitTransferred {
                command: a.clone(),
                to: o.recipient.clone(),
                order,
            },
        );
    }
}

fn status_word(s: &OrderStatus) -> &'static str {
    match s {
        OrderStatus::InTransit => "in transit",
        OrderStatus::Arrived => "awaiting acceptance",
        OrderStatus::Delayed { .. } => "in delay",
        _ => "pending",
    }
}

/// 6.4.7: an order reaches its recipient; any pending delayed orders are discarded.
pub(super) fn arrive(ctx: &mut Ctx, number: u32) {
    let Some(o) = ctx.state.orders.get(&number).cloned() else {
        return;
    };
    ctx.emit_side(&o.side, EventKind::OrderArrived { order: number });
    discard_delayed_for(ctx, &o.recipient, number);
}

/// 6.4.7: order `number` reached `recipient`: its orders in delay are discarded.
pub(super) fn discard_delayed_for(ctx: &mut Ctx, recipient: &str, number: u32) {
    let delayed: Vec<(u32, String)> = ctx
        .state
        .orders
        .values()
        .filter(|x| x.number != number && x.recipient == recipient)
        .filter(|x| matches!(x.status, OrderStatus::Delayed { .. }))
        .filter(|x| x.relay.as_ref().is_none_or(|r| r.delivered))
        .map(|x| (x.number, x.side.clone()))
        .collect();
    for (d, side) in delayed {
        ctx.emit_side(
            &side,
            EventKind::OrderDiscarded {
                order: d,
                reason: format!("order {number} arrived (6.4.7)"),
            },
        );
    }
}

/// An order is accepted: implemented, waiting for its corps commander (6.5.1), or — accepted
/// by a relaying commander — carried on (T4.2b).
fn accept(ctx: &mut Ctx, o: &OrderRecord) {
    match &o.relay {
        Some(r) if !r.delivered => ctx.emit_side(
            &o.side,
            EventKind::RelayAccepted {
                order: o.number,
                by: r.by.clone(),
            },
        ),
        _ => {
            let implemented = implemented_now(ctx, &o.recipient);
            ctx.emit_side(
                &o.side,
                EventKind::OrderAccepted {
                    order: o.number,
                    implemented,
                },
            );
        }
    }
}

/// May the corps' order be implemented now: is its commander in the HQ hex (6.5.1)?
fn implemented_now(ctx: &Ctx, recipient: &str) -> bool {
    let s = ctx.eng.scenario;
    if oob::echelon(s, recipient) != Some(Echelon::Corps) {
        return true;
    }
    let Some(c) = oob::commander_of(s, &ctx.state, recipient) else {
        return true;
    };
    let hq = oob::hq_piece(recipient);
    pos(ctx, &c.id).is_some() && pos(ctx, &c.id) == pos(ctx, &hq)
}

/// 6.5: New Order Acceptance for every order that arrived for the phasing side.
pub(crate) fn acceptance_segment(ctx: &mut Ctx, side: &str) -> Result<(), Refusal> {
    let arrived: Vec<OrderRecord> = ctx
        .state
        .orders
        .values()
        .filter(|o| o.side == side && o.status == OrderStatus::Arrived)
        .cloned()
        .collect();
    for o in arrived {
        let n = o.number;
        match o.origin {
            // 6.6.1.4: initiative orders are accepted automatically here.
            OrderOrigin::Initiative
            | OrderOrigin::LooseCannon
            | OrderOrigin::Preset
            | OrderOrigin::Imposed => {
                let implemented = implemented_now(ctx, &o.recipient);
                ctx.emit_side(
                    side,
                    EventKind::OrderAccepted {
                        order: n,
                        implemented,
                    },
                );
            }
            OrderOrigin::Sent => roll_acceptance(ctx, &o)?,
        }
    }
    Ok(())
}

/// 6.5: Acceptance Number = sender + receiver + method + type + current order; roll 11..66.
/// A borrowing order is rolled for twice (T2.4); a relayed order first by its relaying commander,
/// then by its recipient with the relaying commander as sender (T4.2b).
fn roll_acceptance(ctx: &mut Ctx, o: &OrderRecord) -> Result<(), Refusal> {
    let s = ctx.eng.scenario;
    let rating = |id: &str| i32::from(oob::rating(s, &ctx.state, id));
    let method = o.method.unwrap_or(Method::Written);
    let number = match &o.relay {
        // T4.2b: the relaying commander holds no order of his own (decision 0046).
        Some(r) if !r.delivered => ctx.eng.tables.acceptance_number(
            rating(&o.sender),
            rating(&r.by),
            method,
            o.order_type,
            CurrentOrder::None,
        ),
        _ => {
            let sender = o
                .relay
                .as_ref()
                .map_or(o.sender.as_str(), |r| r.by.as_str());
            // Vimeiro V5.5 Junot Wakes Up: that turn's orders as from a level-4 leader.
            let sender = super::random_events::sender_rating(ctx, o, rating(sender));
            let receiver = oob::receiver_rating(s, &ctx.state, &o.recipient).unwrap_or(2);
            let current = current_order(ctx, &o.recipient);
            ctx.eng
                .tables
                .acceptance_number(sender, receiver, method, o.order_type, current)
                + super::special_rules::acceptance_modifier(ctx, &o.recipient, o.order_type)
        }
    };
    let column = number.clamp(-3, 10);
    let (roll, dice) = ctx.dice.roll_11_66(Purpose::Acceptance)?;
    let cell = ctx.eng.tables.acceptance(number, roll);
    ctx.emit_side(
        &o.side,
        EventKind::AcceptanceRolled {
            order: o.number,
            number,
            column,
            roll,
            dice: dice.to_vec(),
            result: cell.value,
            provenance: cell.provenance,
        },
    );
    let mut result = cell.value;
    // T2.4: the corps commander rolls too; the order waits for the slower of the two.
    if let Some(release) = &o.release {
        match super::borrowing::roll_release(ctx, o, release)? {
            AcceptanceResult::Dt => {
                super::borrowing::throw_away(ctx, o);
                return Ok(());
            }
            theirs if result != AcceptanceResult::Dt => result = result.min(theirs),
            _ => {}
        }
    }
    match result {
        AcceptanceResult::A => accept(ctx, o),
        AcceptanceResult::Dt => {
            ctx.emit_side(&o.side, EventKind::OrderDistorted { order: o.number })
        }
        delay => {
            let needs = delay_needs(ctx.eng.tables, delay);
            ctx.emit_side(
                &o.side,
                EventKind::OrderDelayed {
                    order: o.number,
                    needs,
                },
            );
        }
    }
    Ok(())
}

/// The least die that ends a delay, from the tables in force (6.5.2).
pub(crate) fn delay_needs(
    tables: &crate::rules::tables::CommandTables,
    result: AcceptanceResult,
) -> u8 {
    tables.delay_needs(result).map_or(6, |c| c.value)
}

/// The status an order starts in when it is put in force accepted or in delay (6.2.2).
pub(crate) fn initial_status(
    tables: &crate::rules::tables::CommandTables,
    result: AcceptanceResult,
) -> OrderStatus {
    match result {
        AcceptanceResult::A => OrderStatus::Accepted,
        AcceptanceResult::Dt => OrderStatus::Distorted,
        delay => OrderStatus::Delayed {
            needs: delay_needs(tables, delay),
        },
    }
}

/// 6.5.2: from the turn after the delay result, one die per turn; the delay number or more
/// accepts the order that turn.
pub(crate) fn delay_reduction_segment(ctx: &mut Ctx, side: &str) -> Result<(), Refusal> {
    let turn = ctx.state.turn;
    let delayed: Vec<(u32, u8)> = ctx
        .state
        .orders
        .values()
        .filter(|o| o.side == side && o.status_turn < turn)
        .filter_map(|o| match o.status {
            OrderStatus::Delayed { needs } => Some((o.number, needs)),
            _ => None,
        })
        .collect();
    for (order, needs) in delayed {
        let die = ctx.dice.roll(Purpose::DelayReduction, 6)?;
        let accepted = die.value >= needs;
        let one = die.value == 1;
        ctx.emit_side(
            side,
            EventKind::DelayRolled {
                order,
                needs,
                dice: vec![die],
                accepted,
            },
        );
        if accepted {
            let o = ctx
                .state
                .orders
                .get(&order)
                .cloned()
                .ok_or_else(|| unknown_order(order))?;
            accept(ctx, &o);
        } else if one {
            // 5.7: Ney throws away his order on a delay reduction roll of 1.
            super::special_rules::delay_roll_of_one(ctx, order);
        }
    }
    Ok(())
}

/// Discard orders awaiting acceptance (delayed, or arriving this turn) and, unless `keep_current`,
/// stop executing the accepted one. Orders in transit for a future turn still arrive (6.6.1.5,
/// 6.6.2.2, 6.6.3.7).
pub(super) fn discard_pending(ctx: &mut Ctx, command: &str, reason: &str) {
    let turn = ctx.state.turn;
    let side = ctx
        .state
        .commands
        .get(command)
        .map(|c| c.side.clone())
        .unwrap_or_default();
    let doomed: Vec<u32> = ctx
        .state
        .orders
        .values()
        .filter(|o| o.recipient == command)
        .filter(|o| match o.status {
            OrderStatus::Delayed { .. } | OrderStatus::Arrived | OrderStatus::AwaitingCommander => {
                true
            }
            OrderStatus::InTransit => o.arrival_turn <= turn,
            _ => false,
        })
        .map(|o| o.number)
        .collect();
    for order in doomed {
        ctx.emit_side(
            &side,
            EventKind::OrderDiscarded {
                order,
                reason: reason.to_string(),
            },
        );
    }
}

/// 6.10.1: "Written orders cannot be issued from a moving Army HQ until it arrives at its final
/// destination, but otherwise it functions normally." The Army HQ is moving from the moment its
/// move order is implemented until the umpire marks its first stage done (`stage`): the HQ's
/// move is that stage; later stages are the army's ("… and await further orders"; decision
/// 0091).
fn require_army_hq_still(ctx: &Ctx, side: &str, method: Method) -> Result<(), Refusal> {
    if method != Method::Written {
        return Ok(());
    }
    let s = ctx.eng.scenario;
    let Some(army) = s
        .sides
        .iter()
        .find(|x| x.id == side)
        .map(|x| x.army.as_str())
    else {
        return Ok(());
    };
    let moving = ctx.state.commands.get(army).and_then(|c| {
        (c.status == CommandStatus::Ordered && c.stage == 0)
            .then_some(c.current_order)
            .flatten()
    });
    if let Some(order) = moving {
        return Err(Refusal::new(
            "army-hq-moving",
            "6.10.1",
            format!(
                "the Army HQ is moving under order {order}: no written orders until it arrives at its final destination"
            ),
            format!(
                "send the order orally or in person, or once the HQ has arrived mark its move done with `staffwork stage --command {army}`"
            ),
        ));
    }
    Ok(())
}

/// Discard the command's own accepted order (6.6.1.4). The Initiative order that replaces it is
/// implemented in the New Order Acceptance segment; until then the command executes nothing.
fn discard_current(ctx: &mut Ctx, command: &str, reason: &str) {
    let Some(c) = ctx.state.commands.get(command) else {
        return;
    };
    let side = c.side.clone();
    let current = c.current_order.filter(|n| {
        ctx.state
            .orders
            .get(n)
            .is_some_and(|o| o.status == OrderStatus::Accepted)
    });
    if let Some(order) = current {
        ctx.emit_side(
            &side,
            EventKind::OrderDiscarded {
                order,
                reason: reason.to_string(),
            },
        );
    }
}

/// Local Initiative happens in the phasing player's Command Phase (5.1), once per command per
/// turn (6.6). Returns the command's side.
fn local_initiative_allowed(ctx: &Ctx, command: &str, what: &str) -> Result<String, Refusal> {
    require_step(ctx, Step::Command, what)?;
    let side = ctx.side_of(command)?;
    require_phasing(ctx, &side, what)?;
    require_no_local_initiative(ctx, command)?;
    Ok(side)
}

/// 6.6: a command may use only one kind of local initiative per turn.
fn require_no_local_initiative(ctx: &Ctx, command: &str) -> Result<(), Refusal> {
    if ctx
        .state
        .commands
        .get(command)
        .and_then(|c| c.local_initiative_turn)
        == Some(ctx.state.turn)
    {
        return Err(Refusal::new(
            "local-initiative-used",
            "6.6",
            format!("`{command}` has already used local initiative this turn"),
            "a command may use only one of Initiative, Default Defense and Emergency Withdrawal per turn",
        ));
    }
    Ok(())
}

/// The rating a commander (or a brigade rolling for itself) uses for Initiative (6.6.1.3), with
/// the scenario's special modifiers.
fn initiative_rating(ctx: &Ctx, commander: &str, command: &str) -> Result<(u8, i32), Refusal> {
    let s = ctx.eng.scenario;
    let side = ctx.side_of(command)?;
    let special = super::special_rules::initiative_modifier(ctx, &side);
    // A cavalry or independent brigade rolls for itself at rating 2 (6.6.1.1, 6.6.1.3).
    if commander == command {
        if let Some(OobRef::Unit(u)) = s.command(command) {
            let independent = ctx
                .state
                .commands
                .get(command)
                .is_some_and(|c| c.independent);
            if u.kind.is_cavalry() || independent {
                return Ok((2, special));
            }
        }
        return Err(Refusal::new(
            "may-not-roll",
            "6.6.1.1",
            format!("`{command}` cannot roll for initiative by itself"),
            "only cavalry brigades and independent brigades roll for themselves; name their commander instead",
        ));
    }
    let c = s.commander(commander).ok_or_else(|| {
        Refusal::new(
            "unknown-commander",
            "6.6.1.1",
            format!("`{commander}` is not a commander"),
            "use a commander id from the scenario",
        )
    })?;
    let own = oob::formation_of(&ctx.state, commander)
        .and_then(|f| s.formation(f))
        .ok_or_else(|| {
            Refusal::new(
                "may-not-roll",
                "6.6.1.1",
                format!("{} commands nothing", c.name),
                "",
            )
        })?;
    match own.echelon {
        Echelon::Army => {
            return Err(Refusal::new(
                "army-no-initiative",
                "6.6.1.1",
                "army commanders never issue Initiative Orders",
                "send an order instead",
            ));
        }
        Echelon::Corps | Echelon::Division => {}
    }
    if own.id != command
        && !oob::is_ancestor(&ctx.state, &own.id, command)
        && !super::special_rules::messenger_initiative(ctx, commander, command)
    {
        return Err(Refusal::new(
            "not-his-command",
            "6.6.1.1",
            format!(
                "{} may roll only for his own command or its sub-units, not `{command}`",
                c.name
            ),
            "name the commander of that command",
        ));
    }
    Ok((oob::rating(s, &ctx.state, &c.id), special))
}

/// 6.6.1.2: one attempt per command per turn; only one commander may try for a command or
/// its sub-units (a corps may not roll after one of its divisions failed, nor a division after
/// its corps).
fn require_no_initiative_roll(ctx: &Ctx, command: &str) -> Result<(), Refusal> {
    let turn = ctx.state.turn;
    for (id, c) in &ctx.state.commands {
        if c.initiative_roll_turn != Some(turn) {
            continue;
        }
        if id == command
            || oob::is_ancestor(&ctx.state, id, command)
            || oob::is_ancestor(&ctx.state, command, id)
        {
            return Err(Refusal::new(
                "initiative-attempted",
                "6.6.1.2",
                format!("an Initiative roll for `{id}` was already made this turn"),
                "one attempt per command per turn; a corps commander may still roll for his other divisions",
            ));
        }
    }
    Ok(())
}

/// 6.6.1: roll on the Initiative Table; on Initiative the new order is written free and accepted
/// in the coming acceptance segment; on a Loose Cannon the opponent writes a one-turn order.
pub(super) fn roll_initiative(
    ctx: &mut Ctx,
    commander: &str,
    command: &str,
    order: &TypedOrder,
) -> Result<(), Refusal> {
    let side = local_initiative_allowed(ctx, command, "Local Initiative")?;
    require_no_initiative_roll(ctx, command)?;
    super::special_rules::may_roll_initiative(ctx, command)?;
    super::temporary_division::require_exists(ctx, command)?;
    let (rating, special) = initiative_rating(ctx, commander, command)?;
    // 6.6.1.5: initiative may not re-issue an order in transit or in delay.
    if let Some(same) = ctx
        .state
        .pending_orders(command)
        .find(|o| o.key == order.key)
    {
        return Err(Refusal::new(
            "same-order",
            "6.6.1.5",
            format!(
                "order {} to `{command}` is the same order and still pending",
                same.number
            ),
            "initiative may not re-issue an order in transit or in delay",
        ));
    }
    if super::temporary_division::formed_by(ctx, command).is_some() {
        return Err(Refusal::new(
            "temporary-by-initiative",
            "V2.3",
            format!(
                "a temporary division is not formed by Initiative: `{command}` may not roll for it"
            ),
            "the army commander forms it by an order to the brigade",
        ));
    }
    check_structure(ctx, command, order)?;
    // Chart p1: +1 column if the command is already under General Orders.
    let general = ctx.state.current_posture(command) == Some(Posture::General);
    let column = crate::rules::tables::CommandTables::initiative_column(i32::from(rating), general)
        + special;
    let (roll, dice) = ctx.dice.roll_11_66(Purpose::Initiative)?;
    let cell = ctx.eng.tables.initiative(column, roll);
    ctx.emit_side(
        &side,
        EventKind::InitiativeRolled {
            command: command.to_string(),
            commander: commander.to_string(),
            rating,
            column,
            roll,
            dice: dice.to_vec(),
            result: cell.value,
            provenance: cell.provenance,
        },
    );
    match cell.value {
        InitiativeResult::NoEffect => {}
        InitiativeResult::Initiative => {
            discard_pending(ctx, command, "discarded by an Initiative Order (6.6.1.5)");
            // 6.6.1.4: "Any orders currently Accepted or in Delay are discarded" at once, so the
            // command checks no Attack Stoppage for the order it just lost.
            discard_current(
                ctx,
                command,
                "discarded: the command gained Initiative (6.6.1.4)",
            );
            let record = OrderRecord::new(
                ctx.state.next_order_number(),
                order,
                Routing {
                    side: side.clone(),
                    sender: commander.to_string(),
                    recipient: command.to_string(),
                    method: None,
                    cost: 0,
                    sent_turn: ctx.state.turn,
                    arrival_turn: ctx.state.turn,
                    origin: OrderOrigin::Initiative,
                    status: OrderStatus::Arrived,
                },
            );
            ctx.emit_side(&side, EventKind::OrderIssued { order: record });
        }
        InitiativeResult::LooseCannon => {
            discard_pending(ctx, command, "cancelled by a Loose Cannon (6.6.1.6)");
            ctx.emit_side(
                &side,
                EventKind::StatusChanged {
                    command: command.to_string(),
                    status: CommandStatus::LooseCannon,
                    reason: "Loose Cannon: the opponent writes a one-turn order (6.6.1.6)".into(),
                },
            );
        }
    }
    Ok(())
}

/// 6.6.1.6: the opponent writes the Loose Cannon's one-turn order; it replaces all orders.
pub(super) fn loose_cannon_order(
    ctx: &mut Ctx,
    command: &str,
    order: &TypedOrder,
) -> Result<(), Refusal> {
    let side = ctx.side_of(command)?;
    let c = ctx.command(command)?;
    if c.status != CommandStatus::LooseCannon || c.current_order.is_some() {
        return Err(Refusal::new(
            "no-loose-cannon",
            "6.6.1.6",
            format!("`{command}` is not awaiting a Loose Cannon order"),
            "only a command that rolled a Loose Cannon this turn takes one",
        ));
    }
    let writer = ctx
        .state
        .side_order
        .iter()
        .find(|s| **s != side)
        .cloned()
        .unwrap_or_default();
    let record = OrderRecord::new(
        ctx.state.next_order_number(),
        order,
        Routing {
            side: side.clone(),
            sender: format!("{writer} (Loose Cannon)"),
            recipient: command.to_string(),
            method: None,
            cost: 0,
            sent_turn: ctx.state.turn,
            arrival_turn: ctx.state.turn,
            origin: OrderOrigin::LooseCannon,
            status: OrderStatus::Arrived,
        },
    );
    let n = record.number;
    // Both players see the order: one wrote it, the other must carry it out.
    ctx.emit(Visibility::Public, EventKind::OrderIssued { order: record });
    ctx.emit(
        Visibility::Public,
        EventKind::OrderAccepted {
            order: n,
            implemented: true,
        },
    );
    Ok(())
}

/// 6.6.2: Default Defense — discard the order, defend in place, hub frozen.
pub(super) fn default_defense(ctx: &mut Ctx, command: &str) -> Result<(), Refusal> {
    let side = local_initiative_allowed(ctx, command, "Default Defense")?;
    // 6.6.2.1 with 6.3.4 (decision 0091): a division acting on its corps' order is under
    // orders — the corps' — so only a command with no order of its own nor its parent's is in
    // No Orders Status and refused.
    if ctx.state.current_posture(command).is_none() {
        let c = ctx.command(command)?;
        let whose = if c.follows_parent {
            format!(
                "has no order of its own and its parent `{}` has none either",
                c.parent.as_deref().unwrap_or("-")
            )
        } else {
            "has no order".to_string()
        };
        return Err(Refusal::new(
            "no-orders-no-default-defense",
            "6.6.2.1",
            format!(
                "`{command}` {whose}: it is in No Orders Status and may not adopt Default Defense"
            ),
            "only a command under orders (its own or, for a sub-unit, its parent's) may adopt Default Defense",
        ));
    }
    discard_pending(ctx, command, "discarded by Default Defense (6.6.2.2)");
    ctx.emit_side(
        &side,
        EventKind::DefaultDefenseDeclared {
            command: command.to_string(),
        },
    );
    Ok(())
}

/// 6.6.3: a voluntary Emergency Withdrawal.
pub(super) fn withdraw(ctx: &mut Ctx, command: &str) -> Result<(), Refusal> {
    local_initiative_allowed(ctx, command, "An Emergency Withdrawal")?;
    begin_withdrawal(ctx, command, WithdrawalCause::Voluntary);
    Ok(())
}

/// 6.6.3.1, 6.6.3.7: a one-turn order to withdraw; accepted, delayed and arriving orders are lost.
pub(super) fn begin_withdrawal(ctx: &mut Ctx, command: &str, cause: WithdrawalCause) {
    let side = ctx
        .state
        .commands
        .get(command)
        .map(|c| c.side.clone())
        .unwrap_or_default();
    discard_pending(ctx, command, "lost in the Emergency Withdrawal (6.6.3.7)");
    ctx.emit_side(
        &side,
        EventKind::WithdrawalBegan {
            command: command.to_string(),
            cause,
        },
    );
}

/// 21.2: the least die roll that passes a Morale Check for a morale rating (A 3, B 4, C 5, D 6, E 6).
fn morale_check_needs(rating: crate::scenario::MoraleRating) -> u8 {
    use crate::scenario::MoraleRating::*;
    match rating {
        A => 3,
        B => 4,
        C => 5,
        D | E => 6,
    }
}

/// 6.6.3.6: every infantry unit of a withdrawing command makes a Morale Check; failure = 1
/// straggler. +1 if stacked with a commander rated 2 or more (21.2).
pub(super) fn straggler_checks(ctx: &mut Ctx, side: &str, command: &str) -> Result<(), Refusal> {
    let s = ctx.eng.scenario;
    for id in oob::member_units(s, &ctx.state, command) {
        let Some(u) = s.unit(&id) else { continue };
        if u.kind != UnitKind::Infantry || !ctx.state.positions.contains_key(&id) {
            continue;
        }
        let needs = morale_check_needs(u.morale.unwrap_or(crate::scenario::MoraleRating::C));
        let here = pos(ctx, &id);
        let with_commander = s
            .commanders
            .iter()
            .any(|c| c.rating >= 2 && pos(ctx, &c.id) == here);
        let die = ctx.dice.roll(Purpose::Morale, 6)?;
        let straggler = die.value + u8::from(with_commander) < needs;
        ctx.emit_side(
            side,
            EventKind::StragglerCheck {
                unit: id,
                needs,
                dice: vec![die],
                straggler,
                waived: None,
            },
        );
    }
    Ok(())
}

/// 6.7: every command that will execute an Engage stage this turn checks Attack Stoppage as a
/// whole. New orders are accepted after this segment, so a command never checks in its first
/// turn under a new order (6.7 sidebar). A command not yet on the map never checks (6.7.3).
pub(crate) fn stoppage_segment(ctx: &mut Ctx, side: &str) -> Result<(), Refusal> {
    let s = ctx.eng.scenario;
    let checking: Vec<String> = ctx
        .state
        .commands
        .iter()
        .filter(|(_, c)| c.side == side && c.status == CommandStatus::Ordered)
        // 6.6.1.4: an order discarded when the command gained Initiative is not executed.
        .filter(|(_, c)| {
            c.current_order
                .and_then(|n| ctx.state.orders.get(&n))
                .is_none_or(|o| o.status == OrderStatus::Accepted)
        })
        .filter(|(id, _)| ctx.state.current_posture(id) == Some(Posture::Engage))
        .filter(|(id, _)| {
            // 6.7.3: on the map (a corps whose HQ has not arrived counts its sub-units on the map).
            !oob::sub_units(s, &ctx.state, id).is_empty()
        })
        .map(|(id, _)| id.clone())
        .collect();
    for command in checking {
        let subs = oob::sub_units(s, &ctx.state, &command);
        let wrecked_subs = subs
            .iter()
            .filter(|id| ctx.state.commands.get(*id).is_some_and(|c| c.wrecked))
            .count() as u32;
        // 6.9 box: a division's lost commander counts "for that order only", a corps' original
        // Corps Commander for the rest of the game.
        let corps = oob::echelon(s, &command) == Some(Echelon::Corps);
        let commander_lost = ctx
            .state
            .commands
            .get(&command)
            .is_some_and(|c| c.commander_lost || (corps && c.original_commander_lost));
        let wrecked = wrecked_subs + u32::from(commander_lost);
        let step1 = ctx.eng.tables.stoppage_result(subs.len() as u32, wrecked);
        let rating = super::special_rules::stoppage_rating(
            ctx,
            &command,
            oob::command_rating(s, &ctx.state, &command),
        );
        let step2 = ctx.eng.tables.stoppage_needed(step1.value, rating);
        let night = ctx.night();
        let (roll, dice) = ctx.dice.roll_2d6(Purpose::Stoppage)?;
        let modified = i32::from(roll)
            + if night {
                ctx.eng.tables.night_stoppage_modifier()
            } else {
                0
            };
        let passed = modified >= i32::from(step2.value);
        ctx.emit_side(
            side,
            EventKind::StoppageChecked {
                command: command.clone(),
                sub_units: subs.len() as u32,
                wrecked,
                commander_lost,
                result: step1.value,
                rating,
                needed: step2.value,
                night,
                roll,
                dice: dice.to_vec(),
                passed,
                provenance: step1.provenance.max(step2.provenance),
            },
        );
        // V2.3: a temporary division that fails ceases to exist; otherwise 6.6.3.9: failing
        // Attack Stoppage forces an Emergency Withdrawal.
        if !passed
            && !super::temporary_division::dissolve_if_temporary(
                ctx,
                &command,
                "failed its Attack Stoppage check (V2.3)",
            )
        {
            begin_withdrawal(ctx, &command, WithdrawalCause::Stoppage);
        }
    }
    Ok(())
}

/// Move a commander, HQ or unit, checking what the engine can: map bounds, HQs bolted to the
/// ground (6.10.1), frozen hubs under Default Defense (6.6.2), a commander's allowance.
/// A retreat (21.4), by the unit's owner in either player's operations window.
pub(super) fn retreat_piece(
    ctx: &mut Ctx,
    piece: &str,
    to: Hex,
    path: &[Hex],
    cause: Hex,
) -> Result<(), Refusal> {
    // A retreat owed is made at once, in the Command Phase too: the Rally Phase's ends a player
    // turn (21.5 F, "immediately retreated"; decision 0164).
    let owed = ctx
        .state
        .movement
        .get(piece)
        .is_some_and(|m| m.retreat_due.is_some());
    if !(owed && ctx.state.step == Step::Command) {
        require_step(ctx, Step::Operations, "A retreat")?;
    }
    super::retreat::retreat(ctx, piece, to, path, cause)
}

pub(super) fn move_piece(
    ctx: &mut Ctx,
    piece: &str,
    to: Hex,
    path: &[Hex],
    opts: super::movement::MoveOpts<'_>,
) -> Result<(), Refusal> {
    require_step(ctx, Step::Operations, "Movement")?;
    let s = ctx.eng.scenario;
    let (side, owner_command) = piece_owner(ctx, piece)?;
    // 6.10.2: an overrun Army HQ withdraws at once, in the enemy's turn too.
    let withdraw_from = owner_command
        .as_deref()
        .filter(|_| piece.starts_with("hq:"))
        .and_then(|c| ctx.state.commands.get(c))
        .and_then(|c| c.hq_withdraw_from);
    if withdraw_from.is_none() {
        // A piece that must move in the enemy's turn (a retreat, a rout) is placed by the
        // umpire; the help says how (issue 17).
        require_phasing(ctx, &side, "Movement").map_err(|mut r| {
            r.help = format!(
                "a piece moves in its own side's turn (12); a retreat or rout (21.4) is carried out now with `move --piece {piece} --retreat-from CAUSE --to HEX --path …`, anything else the umpire places: `staffwork override --place {piece}=HEX --reason WHY`"
            );
            r
        })?;
    }
    if !ctx.eng.space.contains(to) {
        return Err(Refusal::new(
            "off-map",
            "2.1",
            format!(
                "{to} is off the map (columns {}–{}, rows {}–{})",
                s.map.first_col, s.map.last_col, s.map.first_row, s.map.last_row
            ),
            "choose a hex on the map",
        ));
    }
    let from = pos(ctx, piece).ok_or_else(|| {
        Refusal::new(
            "not-on-map",
            "12.6",
            format!("`{piece}` is not on the map yet"),
            "it enters as a reinforcement",
        )
    })?;
    if let Some(cmd) = &owner_command {
        let st = ctx.state.commands.get(cmd).map(|c| c.status);
        let is_hub = oob::hub_piece(s, &ctx.state, cmd).as_deref() == Some(piece);
        let echelon = oob::echelon(s, cmd);
        if is_hub && st == Some(CommandStatus::DefaultDefense) {
            return Err(Refusal::new(
                "frozen-hub",
                "6.6.2",
                format!("`{piece}` is frozen in place under Default Defense"),
                "it needs new orders or an Emergency Withdrawal to move",
            ));
        }
        if let Some(h) = withdraw_from {
            // 6.10.2: "must withdraw at least 6 hexes, but can move up to its full Movement
            // Allowance" (the allowance is checked below).
            if to.distance(h) < 6 {
                return Err(Refusal::new(
                    "withdrawal-too-short",
                    "6.10.2",
                    format!(
                        "the overrun Army HQ must withdraw at least 6 hexes from {h}; {to} is {}",
                        to.distance(h)
                    ),
                    "choose a hex 6 or more hexes away, within the HQ's movement allowance",
                ));
            }
        } else if piece.starts_with("hq:") {
            let may = match echelon {
                // 6.10.1: the Army HQ needs a specific in-person General order to move.
                Some(Echelon::Army) => st == Some(CommandStatus::Ordered),
                // 6.10.1, 6.3.4: a corps HQ moves within its corps' orders; without orders it is bolted.
                _ => matches!(
                    st,
                    Some(
                        CommandStatus::Ordered
                            | CommandStatus::Withdrawing
                            | CommandStatus::LooseCannon
                    )
                ),
            };
            if !may {
                return Err(Refusal::new(
                    "hq-bolted",
                    "6.10.1",
                    format!("`{piece}` is bolted to the ground: it has no orders to move"),
                    "an HQ moves only within its command's orders (the Army HQ needs an in-person General order)",
                ));
            }
        }
    }
    if piece.starts_with("hq:") || s.commander(piece).is_some() {
        // T2.3: some commanders move slower than the chart's allowance.
        let mp = super::special_rules::commander_allowance(ctx, piece, s.commander_costs.allowance);
        let cost = ctx.eng.space.commander_cost(from, to);
        if cost.is_none_or(|c| c.halves > mp * 2) {
            return Err(Refusal::new(
                "too-far",
                "chart p2",
                format!("{from} to {to} is beyond {piece}'s {mp} movement points"),
                "move in stages over several turns",
            ));
        }
    }
    // V2.4, T3.4: some brigades move only with the army commander, who rides along.
    let rider = super::moving_brigades::check_move(ctx, piece, from, to)?;
    if let Some(u) = s.unit(piece) {
        // 8, 12: a unit's path, formation change and Movement Points.
        super::movement::move_unit(ctx, &side, u, from, to, path, opts)?;
    } else {
        if opts.formation.is_some()
            || opts.face.is_some()
            || opts.forced_march > 0
            || !opts.extend.is_empty()
            || !opts.retract.is_empty()
            || opts.backstep
        {
            return Err(Refusal::new(
                "formation",
                "10.0",
                format!("`{piece}` is a commander or HQ: it has no formation or facing"),
                "drop --formation and --face (10.0 sidebar: commanders and HQs have no facing)",
            ));
        }
        let path = commander_path(from, to, path)?;
        ctx.emit_side(
            &side,
            EventKind::moved_free(piece.to_string(), from, to, path),
        );
    }
    if let Some(p) = rider {
        ctx.emit_side(&side, EventKind::moved_free(p, from, to, Vec::new()));
    }
    implement_waiting_corps_orders(ctx, &side);
    if s.unit(piece).is_some() {
        overrun_hqs(ctx, &side, piece, to);
    }
    Ok(())
}

/// A commander's given path, checked for contiguity (its cost is checked as a whole, 6.4.7).
fn commander_path(from: Hex, to: Hex, given: &[Hex]) -> Result<Vec<Hex>, Refusal> {
    if given.is_empty() {
        return Ok(Vec::new());
    }
    let mut p = given.to_vec();
    if p.first() != Some(&from) {
        p.insert(0, from);
    }
    if p.last() != Some(&to) {
        return Err(Refusal::new(
            "path-end",
            "12.0",
            format!(
                "the path ends at {} but the move is to {to}",
                p[p.len() - 1]
            ),
            "end the path at the destination",
        ));
    }
    if let Some(w) = p.windows(2).find(|w| !w[0].is_adjacent(w[1])) {
        return Err(Refusal::new(
            "not-adjacent",
            "12.0",
            format!(
                "{} to {} is not a step to an adjacent hex [hex {}]",
                w[0], w[1], w[1]
            ),
            "a path is a contiguous list of adjacent hexes",
        ));
    }
    Ok(p)
}

/// 6.10.2: an enemy HQ alone in a hex its enemy's units enter is overrun. A Corps HQ displaces
/// to its side's nearest stack and its corps must execute an Emergency Withdrawal in its next
/// Command Phase (6.6.3.10). An Army HQ is not displaced: it loses any move order awaiting
/// acceptance and its owner must withdraw it at least 6 hexes (up to its allowance) with `move`,
/// which refuses a shorter withdrawal.
fn overrun_hqs(ctx: &mut Ctx, mover_side: &str, by: &str, hex: Hex) {
    let s = ctx.eng.scenario;
    let occupied_by = |side: &str, h: Hex, state: &GameState| {
        state
            .positions
            .iter()
            .any(|(p, at)| *at == h && s.unit(p).is_some_and(|u| u.side == side))
    };
    let hqs: Vec<(String, String)> = ctx
        .state
        .positions
        .iter()
        .filter(|(p, at)| **at == hex && p.starts_with("hq:"))
        .filter_map(|(p, _)| s.formation(&p[3..]).map(|f| (p.clone(), f.id.clone())))
        .filter(|(_, f)| s.formation(f).is_some_and(|f| f.side != mover_side))
        .collect();
    for (hq, formation) in hqs {
        let side = s
            .formation(&formation)
            .map(|f| f.side.clone())
            .unwrap_or_default();
        if occupied_by(&side, hex, &ctx.state) {
            continue;
        }
        // The nearest hex holding one of its side's units (ties: the lowest hex).
        let refuge = ctx
            .state
            .positions
            .iter()
            .filter(|(p, at)| **at != hex && s.unit(p).is_some_and(|u| u.side == side))
            .map(|(_, at)| (at.distance(hex), *at))
            .min()
            .map(|(_, at)| at);
        ctx.emit(
            Visibility::Public,
            EventKind::HqOverrun {
                hq: hq.clone(),
                formation: formation.clone(),
                by: by.to_string(),
                hex,
            },
        );
        let army = oob::echelon(s, &formation) == Some(Echelon::Army);
        if let Some(to) = refuge.filter(|_| !army) {
            ctx.emit_side(
                &side,
                EventKind::PieceMoved {
                    left: Vec::new(),
                    facings: Vec::new(),
                    piece: hq.clone(),
                    from: Some(hex),
                    to,
                    path: Vec::new(),
                    half_mp: None,
                },
            );
        }
        if army {
            discard_pending(
                ctx,
                &formation,
                "lost when the Army HQ was overrun (6.10.2)",
            );
        }
    }
}

/// 6.5.1: a corps order accepted while its commander was away is implemented the instant he
/// enters the HQ hex.
fn implement_waiting_corps_orders(ctx: &mut Ctx, side: &str) {
    let waiting: Vec<(u32, String)> = ctx
        .state
        .orders
        .values()
        .filter(|o| o.side == side && o.status == OrderStatus::AwaitingCommander)
        .map(|o| (o.number, o.recipient.clone()))
        .collect();
    for (order, recipient) in waiting {
        if implemented_now(ctx, &recipient) {
            ctx.emit_side(side, EventKind::OrderImplemented { order });
        }
    }
}

/// Which side a piece belongs to and which command it is the hub or member of.
fn piece_owner(ctx: &Ctx, piece: &str) -> Result<(String, Option<String>), Refusal> {
    let s = ctx.eng.scenario;
    if let Some(f) = piece.strip_prefix("hq:").and_then(|id| s.formation(id)) {
        return Ok((f.side.clone(), Some(f.id.clone())));
    }
    if let Some(c) = s.commander(piece) {
        return Ok((
            c.side.clone(),
            oob::formation_of(&ctx.state, &c.id).map(str::to_string),
        ));
    }
    if let Some(u) = s.unit(piece) {
        let cmd = if oob::is_brigade(u.kind) {
            Some(u.id.clone())
        } else {
            None
        };
        return Ok((u.side.clone(), cmd));
    }
    Err(Refusal::new(
        "unknown-piece",
        "",
        format!("`{piece}` is not a commander, HQ or unit of this scenario"),
        "use a commander id, `hq:<formation id>` or a unit id",
    ))
}

/// 6.3.3: the command finished its current stage; after the last, the order is complete and the
/// command enters No Orders (6.3.4.1 case 5).
pub(super) fn stage_complete(ctx: &mut Ctx, command: &str) -> Result<(), Refusal> {
    let side = ctx.side_of(command)?;
    require_phasing(ctx, &side, "Completing a stage")?;
    let c = ctx.command(command)?.clone();
    let Some(order) = c
        .current_order
        .and_then(|n| ctx.state.orders.get(&n))
        .cloned()
    else {
        return Err(Refusal::new(
            "no-order",
            "6.3.3",
            format!("`{command}` has no order to complete"),
            "",
        ));
    };
    if c.stage + 1 < order.stages.len() {
        ctx.emit_side(
            &side,
            EventKind::StageAdvanced {
                command: command.to_string(),
                stage: c.stage + 1,
            },
        );
    } else {
        ctx.emit_side(
            &side,
            EventKind::StatusChanged {
                command: command.to_string(),
                status: CommandStatus::NoOrders,
                reason: "order completed (6.3.4.1)".into(),
            },
        );
    }
    Ok(())
}

/// Command range at the end of the Movement Phase (6.11): brigades to their division commander
/// (4 hexes) or corps HQ (8), divisions to their corps HQ (8); halved in No Orders (6.11.3);
/// at night ½ under General orders and ¼ otherwise (27.2.1). Adjacent is always in command.
pub(crate) fn command_range_check(ctx: &mut Ctx, side: &str) -> Vec<String> {
    let s = ctx.eng.scenario;
    // Per command: its parent and, for each counter it may trace to, whether it is in range.
    let mut traced: Vec<(String, String, Vec<bool>)> = Vec::new();
    for (id, c) in &ctx.state.commands {
        if c.side != side || c.independent {
            continue;
        }
        let Some(parent) = oob::parent(&ctx.state, id) else {
            continue;
        };
        let Some(pf) = s.formation(&parent) else {
            continue;
        };
        let (anchors, base) = match (pf.echelon, oob::echelon(s, id)) {
            (Echelon::Division, None) => {
                let mut a: Vec<String> = pf.commander.iter().cloned().collect();
                // T4.5: 1-IV may trace to the IV Corps HQ instead of Sebastiani.
                a.extend(super::special_rules::other_divisional_anchor(ctx, pf));
                (a, 4u32)
            }
            (Echelon::Corps, _) => (vec![oob::hq_piece(&pf.id)], 8),
            _ => continue,
        };
        let Some(hub) = oob::hub_piece(s, &ctx.state, id) else {
            continue;
        };
        let Some(a) = pos(ctx, &hub) else {
            continue;
        };
        // Range follows the parent's order status (the command chain's orders).
        let posture = ctx.state.current_posture(&parent);
        let range = if ctx.night() {
            match posture {
                Some(Posture::General) => base / 2,
                _ => base / 4,
            }
        } else if posture.is_none() {
            base / 2
        } else {
            base
        };
        let in_range: Vec<bool> = anchors
            .iter()
            .filter_map(|anchor| pos(ctx, anchor))
            // Adjacent units are always in command (chart p2).
            .map(|b| a.distance(b) <= 1 || ctx.eng.in_range(a, b, range))
            .collect();
        if !in_range.is_empty() {
            traced.push((id.clone(), parent, in_range));
        }
    }
    // All of a division trace to the same counter (T4.5): the one most of them reach; a tie
    // goes to the first (the commander himself).
    let mut reach: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (_, parent, in_range) in &traced {
        let counts = reach
            .entry(parent)
            .or_insert_with(|| vec![0; in_range.len()]);
        for (n, ok) in counts.iter_mut().zip(in_range) {
            *n += usize::from(*ok);
        }
    }
    let chosen = |parent: &str| {
        reach.get(parent).map_or(0, |counts| {
            let best = counts.iter().copied().max().unwrap_or(0);
            counts.iter().position(|n| *n == best).unwrap_or(0)
        })
    };
    let out: Vec<String> = traced
        .iter()
        .filter(|(_, parent, in_range)| !in_range.get(chosen(parent)).copied().unwrap_or(true))
        .map(|(id, _, _)| id.clone())
        .collect();
    ctx.emit_side(
        side,
        EventKind::CommandRangeChecked {
            out_of_command: out.clone(),
        },
    );
    out
}

/// An umpire override: recorded with its reason (umpire only), then its effect.
pub(super) fn umpire_override(
    ctx: &mut Ctx,
    reason: &str,
    action: &OverrideAction,
) -> Result<(), Refusal> {
    if reason.trim().is_empty() {
        return Err(Refusal::new(
            "no-reason",
            "",
            "an override needs a reason",
            "pass --reason \"…\"",
        ));
    }
    // Validate before recording anything.
    let side = override_side(ctx, action)?;
    // The record must say what was done: an action that cannot be written down is refused, not
    // recorded as an empty text.
    let text = serde_json::to_string(action).map_err(|e| {
        Refusal::new(
            "override-not-recorded",
            "",
            format!("the override could not be written to the record: {e}"),
            "this is a bug in staffwork; report it with the command given",
        )
    })?;
    ctx.emit(
        Visibility::Umpire,
        EventKind::Override {
            reason: reason.to_string(),
            action: text,
        },
    );
    override_effect(ctx, &side.unwrap_or_default(), action)
}

/// Refusal for a unit id the scenario does not have.
pub(super) fn unknown_unit(id: &str) -> Refusal {
    Refusal::new(
        "unknown-unit",
        "",
        format!("`{id}` is not a unit of this scenario"),
        "use a unit id from `staffwork scenario show`",
    )
}

/// Refusal for an order number no order has (6.4.5).
pub(super) fn unknown_order(number: u32) -> Refusal {
    Refusal::new(
        "unknown-order",
        "6.4.5",
        format!("there is no order {number}"),
        "see `staffwork log`",
    )
}

/// Check an override's target and name the side it concerns (`None`: the umpire's alone).
fn override_side(ctx: &Ctx, action: &OverrideAction) -> Result<Option<String>, Refusal> {
    Ok(match action {
        OverrideAction::SetWrecked { command, .. }
        | OverrideAction::SetCommanderLost { command, .. }
        | OverrideAction::SetStatus { command, .. } => Some(ctx.side_of(command)?),
        OverrideAction::Place { piece, to } => {
            if !ctx.eng.space.contains(*to) {
                return Err(Refusal::new(
                    "off-map",
                    "2.1",
                    format!("{to} is off the map"),
                    "choose a hex on the map",
                ));
            }
            Some(piece_owner(ctx, piece)?.0)
        }
        OverrideAction::DiscardOrder { order } => Some(
            ctx.state
                .orders
                .get(order)
                .map(|o| o.side.clone())
                .ok_or_else(|| unknown_order(*order))?,
        ),
        OverrideAction::ImposeOrder { command, .. } => Some(ctx.side_of(command)?),
        OverrideAction::Reroll { order } => {
            let o = ctx
                .state
                .orders
                .get(order)
                .ok_or_else(|| unknown_order(*order))?;
            if o.method.is_none()
                || !matches!(
                    o.status,
                    OrderStatus::Delayed { .. } | OrderStatus::Distorted
                )
            {
                return Err(Refusal::new(
                    "not-rerollable",
                    "6.5",
                    format!("order {order} is not a sent order in delay or distorted"),
                    "only the acceptance of a sent order now in delay or distorted can be rolled again",
                ));
            }
            Some(o.side.clone())
        }
        OverrideAction::Ruling { .. } => None,
        OverrideAction::SetUnit {
            unit,
            losses,
            morale,
            blown,
        } => {
            check_set_unit(ctx, unit, *losses, *morale, *blown)?;
            None
        }
    })
}

/// An override's effect, as the events of the rules it stands in for. One flat match with an
/// arm per override action.
fn override_effect(ctx: &mut Ctx, side: &str, action: &OverrideAction) -> Result<(), Refusal> {
    match action {
        OverrideAction::SetWrecked { command, wrecked } => ctx.emit_side(
            side,
            EventKind::WreckedChanged {
                command: command.clone(),
                wrecked: *wrecked,
            },
        ),
        OverrideAction::SetCommanderLost { command, lost } => ctx.emit_side(
            side,
            EventKind::CommanderLost {
                command: command.clone(),
                lost: *lost,
            },
        ),
        OverrideAction::Place { piece, to } => {
            let from = pos(ctx, piece);
            ctx.emit_side(
                side,
                EventKind::PieceMoved {
                    left: Vec::new(),
                    facings: Vec::new(),
                    piece: piece.clone(),
                    from,
                    to: *to,
                    path: Vec::new(),
                    half_mp: None,
                },
            );
            implement_waiting_corps_orders(ctx, side);
        }
        OverrideAction::DiscardOrder { order } => ctx.emit_side(
            side,
            EventKind::OrderDiscarded {
                order: *order,
                reason: "umpire ruling".into(),
            },
        ),
        OverrideAction::SetStatus { command, status } => ctx.emit_side(
            side,
            EventKind::StatusChanged {
                command: command.clone(),
                status: *status,
                reason: "umpire ruling".into(),
            },
        ),
        OverrideAction::ImposeOrder {
            command,
            order,
            status,
        } => {
            use super::command::ImposedStatus as I;
            let result = match status {
                I::Accepted => AcceptanceResult::A,
                I::D4 => AcceptanceResult::D4,
                I::D5 => AcceptanceResult::D5,
                I::D6 => AcceptanceResult::D6,
            };
            let status = initial_status(ctx.eng.tables, result);
            discard_pending(ctx, command, "replaced by the umpire's order");
            let record = OrderRecord::new(
                ctx.state.next_order_number(),
                order,
                Routing {
                    side: side.to_string(),
                    sender: "umpire".into(),
                    recipient: command.clone(),
                    method: None,
                    cost: 0,
                    sent_turn: ctx.state.turn,
                    arrival_turn: ctx.state.turn,
                    origin: OrderOrigin::Preset,
                    status,
                },
            );
            ctx.emit_side(side, EventKind::PresetOrder { order: record });
        }
        OverrideAction::Reroll { order } => {
            ctx.emit_side(side, EventKind::OrderArrived { order: *order });
            let Some(o) = ctx.state.orders.get(order).cloned() else {
                return Err(unknown_order(*order));
            };
            roll_acceptance(ctx, &o)?;
        }
        OverrideAction::Ruling { .. } => {}
        OverrideAction::SetUnit {
            unit,
            losses,
            morale,
            blown,
        } => {
            let now = ctx.state.units.get(unit).cloned().unwrap_or_default();
            let mut track = now.track;
            if let Some(l) = losses {
                track.permanent = l.permanent;
                track.stragglers = l.stragglers;
            }
            // The umpire's correction of a unit is his: the owner learns it at the table.
            ctx.emit(
                Visibility::Umpire,
                EventKind::UnitStateSet {
                    unit: unit.clone(),
                    track,
                    morale: morale.unwrap_or(now.morale),
                    blown: blown.unwrap_or(now.blown),
                },
            );
            // 8.3.1.2: "Squares that become Routed of course enter Routed formation instead":
            // a Square the umpire sets Routed leaves it as one a combat Routs (decision 0199),
            // seen as the override is, by the umpire (decision 0206).
            super::retreat::routed_square_breaks_seen(ctx, unit, Visibility::Umpire);
        }
    }
    Ok(())
}

/// Validate `override --set-unit`: a unit with a Loss Chart row, losses that fit its boxes
/// (20.4), Stragglers only for infantry (20.3), Blown only for cavalry (22.2).
fn check_set_unit(
    ctx: &Ctx,
    unit: &str,
    losses: Option<super::command::LossMarks>,
    morale: Option<crate::combat::MoraleState>,
    blown: Option<bool>,
) -> Result<(), Refusal> {
    let s = ctx.eng.scenario;
    let Some(u) = s.unit(unit) else {
        let mut ids: Vec<(usize, &str)> = s
            .units
            .iter()
            .map(|u| (crate::text::edit_distance(&u.id, unit), u.id.as_str()))
            .collect();
        ids.sort();
        let near: Vec<&str> = ids.iter().take(3).map(|(_, id)| *id).collect();
        return Err(Refusal::new(
            "unknown-unit",
            "",
            format!("--set-unit: `{unit}` is not a unit of this scenario"),
            format!("use a unit id; nearest: {}", near.join(", ")),
        ));
    };
    let Some(st) = ctx.state.units.get(unit) else {
        return Err(Refusal::new(
            "no-loss-chart",
            "20.4",
            format!("--set-unit: `{unit}` has no Loss Chart row (trains take no losses)"),
            "set the state of a brigade, battery or skirmisher",
        ));
    };
    if losses.is_none() && morale.is_none() && blown.is_none() {
        return Err(Refusal::new(
            "nothing-to-set",
            "",
            format!("--set-unit {unit}: nothing to set"),
            "add --losses \"P (S)\", --morale-state STATE, --blown or --not-blown",
        ));
    }
    if let Some(l) = losses {
        let boxes = st.track.boxes;
        let marked = u16::from(l.permanent) + u16::from(l.stragglers);
        if marked > u16::from(boxes) {
            return Err(Refusal::new(
                "losses-over-boxes",
                "20.4",
                format!(
                    "--losses {} ({}) marks {marked} boxes; `{unit}` has {boxes}",
                    l.permanent, l.stragglers
                ),
                format!(
                    "mark at most {boxes} boxes, e.g. --losses \"{} ({})\"",
                    l.permanent.min(boxes),
                    boxes
                        .saturating_sub(l.permanent.min(boxes))
                        .min(l.stragglers)
                ),
            ));
        }
        if l.stragglers > 0 && !u.kind.is_infantry() {
            return Err(Refusal::new(
                "no-stragglers",
                "20.3",
                format!(
                    "--losses {} ({}): `{unit}` is not infantry and has no Stragglers",
                    l.permanent, l.stragglers
                ),
                format!(
                    "only infantry loses Stragglers; write --losses \"{}\"",
                    l.permanent
                ),
            ));
        }
    }
    if blown == Some(true) && !u.kind.is_cavalry() {
        return Err(Refusal::new(
            "not-cavalry",
            "22.2",
            format!("--blown: `{unit}` is not cavalry"),
            "only cavalry becomes Blown; drop --blown",
        ));
    }
    Ok(())
}
