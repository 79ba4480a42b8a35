//! How King Joseph's orders travel at Talavera.
//!
//! - `talavera-jourdan-relay` (T4.2b): Joseph, who gives only In-Person orders (T4.2a), hands an
//!   order to Jourdan. Jourdan first accepts it himself (Joseph as sender, Jourdan as receiver,
//!   In-Person, and — holding no order of his own — the "none" Current Order term, decision
//!   0046), rides to the recipient, and re-issues it in person: the recipient then rolls with
//!   Jourdan's rating as the sender's. He carries one order at a time. Variant 5.3c gives the
//!   role to Victor; variants 5.3a and 5.3b remove it.
//! - `talavera-joseph-remote-control` (T4.3): from 8:00 pm on 27 July until Joseph enters the
//!   map he may send one order per turn from off-map; it travels from hex 62.05 and takes 1d6
//!   turns more.
//!
//! Owns who relays, when Joseph may order from off-map and the re-issue; the order's acceptance
//! stays in `command_system`.

use chrono::{NaiveDate, NaiveDateTime};

use super::event::EventKind;
use super::special_rules::has;
use super::state::{OrderOrigin, OrderStatus, Step};
use super::{Ctx, Refusal};
use crate::hex::Hex;
use crate::rules::Method;
use crate::rules::dice::Purpose;

const RELAY_RULE: &str = "talavera-jourdan-relay";
const REMOTE_RULE: &str = "talavera-joseph-remote-control";
/// T4.3: Joseph's off-map orders set out from this hex.
const REMOTE_ORIGIN: Hex = Hex::new(62, 5);

/// The commander who relays Joseph's orders, if anyone does (T4.2b; 5.3a–c).
pub(super) fn relayer(ctx: &Ctx) -> Option<&'static str> {
    let v = |id: &str| ctx.state.variants.contains(id);
    if !has(ctx, RELAY_RULE) || v("joseph-sends-aides") || v("jourdan-commands") {
        None
    } else if v("victor-messenger") {
        Some("victor")
    } else {
        Some("jourdan")
    }
}

/// T4.2b: may `via` take an order from `from` now? Returns the refusal if not.
pub(super) fn check_relay(ctx: &Ctx, from: &str, via: &str) -> Result<(), Refusal> {
    let Some(who) = relayer(ctx) else {
        return Err(Refusal::new(
            "no-relay",
            "T4.2b",
            "no commander relays orders in this game",
            "send the order in person or by aide",
        ));
    };
    if via != who {
        return Err(Refusal::new(
            "not-the-relay",
            "T4.2b",
            format!("`{via}` does not relay orders; {who} does"),
            format!("use --via {who}"),
        ));
    }
    let at = |p: &str| ctx.state.positions.get(p).copied();
    if at(from).is_none() || at(from) != at(via) {
        return Err(Refusal::new(
            "not-stacked",
            "T4.2b",
            format!("{from} hands the order to {via} in person: they must be stacked"),
            format!("move {via} back to {from} first"),
        ));
    }
    if let Some(busy) = ctx.state.orders.values().find(|o| {
        o.relay
            .as_ref()
            .is_some_and(|r| r.by == via && !r.delivered)
            && (o.status.is_pending() || o.status == OrderStatus::WithRelay)
    }) {
        return Err(Refusal::new(
            "relay-busy",
            "T4.2b",
            format!(
                "{via} already carries order {} and relays one order at a time",
                busy.number
            ),
            format!(
                "deliver it first (`staffwork relay --order {}`)",
                busy.number
            ),
        ));
    }
    Ok(())
}

/// T4.2b: the relaying commander, stacked with the recipient, re-issues the order he accepted.
pub(super) fn deliver(ctx: &mut Ctx, number: u32) -> Result<(), Refusal> {
    let o = ctx
        .state
        .orders
        .get(&number)
        .cloned()
        .ok_or_else(|| super::command_system::unknown_order(number))?;
    let Some(relay) = o
        .relay
        .clone()
        .filter(|_| o.status == OrderStatus::WithRelay)
    else {
        return Err(Refusal::new(
            "not-with-relay",
            "T4.2b",
            format!("order {number} is not held by a relaying commander"),
            "only an order the relaying commander has accepted can be re-issued",
        ));
    };
    if ctx.state.step != Step::Command || ctx.state.phasing() != o.side {
        return Err(Refusal::new(
            "wrong-step",
            "5.1",
            "a relayed order is re-issued in its side's Command Phase, like any order",
            "wait for your Command Phase (`staffwork turn`)",
        ));
    }
    if !super::command_system::stands_with(ctx, &relay.by, &o.recipient) {
        return Err(Refusal::new(
            "not-stacked",
            "T4.2b",
            format!(
                "{} must stand with `{}` to re-issue the order in person",
                relay.by, o.recipient
            ),
            format!("move {} to the recipient first", relay.by),
        ));
    }
    ctx.emit_side(
        &o.side,
        EventKind::OrderRelayed {
            order: number,
            by: relay.by.clone(),
        },
    );
    super::command_system::discard_delayed_for(ctx, &o.recipient, number);
    Ok(())
}

/// T4.3: remote orders begin at 8:00 pm on 27 July 1809.
fn remote_from() -> Option<NaiveDateTime> {
    NaiveDate::from_ymd_opt(1809, 7, 27)?.and_hms_opt(20, 0, 0)
}

/// T4.3: the hex an order from `from` sets out from when Joseph orders from off-map, or `None`
/// when the order is an ordinary one.
pub(super) fn remote_origin(ctx: &Ctx, from: &str, method: Method) -> Result<Option<Hex>, Refusal> {
    if !has(ctx, REMOTE_RULE) || from != "joseph" || ctx.state.positions.contains_key(from) {
        return Ok(None);
    }
    let now = ctx.eng.turn_info(ctx.state.turn).map(|t| t.time);
    if now.is_none() || now < remote_from() {
        return Err(Refusal::new(
            "remote-too-early",
            "T4.3",
            "Joseph may send orders from off the map only from 8:00 pm on 27 July",
            "use Initiative until then",
        ));
    }
    if method == Method::InPerson {
        return Err(Refusal::new(
            "remote-in-person",
            "T4.3",
            "Joseph is off the map: his remote orders go by aide",
            "use --method oral or --method written",
        ));
    }
    let turn = ctx.state.turn;
    if ctx
        .state
        .orders
        .values()
        .any(|o| o.sender == from && o.sent_turn == turn && o.origin == OrderOrigin::Sent)
    {
        return Err(Refusal::new(
            "remote-one-per-turn",
            "T4.3",
            "Joseph may send only one order per turn from off the map",
            "send the next one next turn",
        ));
    }
    Ok(Some(REMOTE_ORIGIN))
}

/// T4.3: the extra turns a remote order takes (1d6, logged).
pub(super) fn remote_delay(ctx: &mut Ctx, side: &str) -> Result<u32, Refusal> {
    let die = ctx.dice.roll(Purpose::Special, 6)?;
    let turns = u32::from(die.value);
    ctx.emit_side(
        side,
        EventKind::SpecialRuleRolled {
            rule: REMOTE_RULE.into(),
            dice: vec![die],
            happens: true,
        },
    );
    Ok(turns)
}
