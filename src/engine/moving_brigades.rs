//! Brigades that move with the army commander.
//!
//! - `vimeiro-defend-in-place` (V2.4): British infantry brigades not in a temporary division are
//!   on automatic "defend in place". They move only with the army commander (Wellesley, and
//!   Burrard after him, who "commands as Wellesley did", V2.5), who must stand with the brigade;
//!   otherwise only one hex, to close with an adjacent enemy.
//! - `talavera-wellesley-style` (T3.4): Wellesley — not his replacements — may move any brigade he
//!   stands with, whatever its orders, command radius or stoppage.
//!
//! In both the commander rides along: moving the brigade moves him to its new hex. The engine
//! checks that he stands with the brigade when it moves; that he stood with it when the Movement
//! Phase began, and T3.4's division commander "tagging along", are the umpire's (decision 0047).
//! Owns the question "may this brigade move, and who goes with it?"; the move itself stays in
//! `command_system::move_piece`.

use super::oob;
use super::special_rules::has;
use super::{Ctx, Refusal};
use crate::hex::Hex;
use crate::scenario::UnitKind;

/// May `piece` move from `from` to `to` under these rules? Returns the commander who moves
/// with it, if one does.
pub(super) fn check_move(
    ctx: &Ctx,
    piece: &str,
    from: Hex,
    to: Hex,
) -> Result<Option<String>, Refusal> {
    let s = ctx.eng.scenario;
    let Some(u) = s.unit(piece).filter(|u| oob::is_brigade(u.kind)) else {
        return Ok(None);
    };
    let Some(commander) = ctx.state.sides.get(&u.side).map(|x| &x.army_commander) else {
        return Ok(None);
    };
    let with_commander = ctx.state.positions.get(commander) == Some(&from);
    let style = has(ctx, "talavera-wellesley-style") && commander == "wellesley";
    if (style || defends_in_place(ctx, piece)) && with_commander {
        return Ok(Some(commander.clone()));
    }
    if !defends_in_place(ctx, piece) {
        return Ok(None);
    }
    // V2.4: one hex into Close Combat — to a hex next to an enemy unit.
    let enemy_next = ctx
        .state
        .positions
        .iter()
        .any(|(p, at)| at.distance(to) <= 1 && s.unit(p).is_some_and(|e| e.side != u.side));
    if from.distance(to) == 1 && enemy_next {
        return Ok(None);
    }
    Err(Refusal::new(
        "moves-with-army-commander",
        "V2.4",
        format!(
            "`{piece}` defends in place: it moves only with {commander}, or one hex to close with the enemy"
        ),
        format!("move {commander} to its hex first, or form a temporary division (V2.3)"),
    ))
}

/// V2.4: a British infantry brigade not in a temporary division is on automatic "defend in
/// place" orders; it moves only with the army commander. An order to it (other than the V2.3
/// order to a commander's brigade forming his division, which `check_structure` takes first)
/// is refused at sending, before any command point is spent — it could never be carried out.
pub(super) fn may_be_ordered(ctx: &Ctx, to: &str) -> Result<(), Refusal> {
    if !defends_in_place(ctx, to) {
        return Ok(());
    }
    let commander = ctx
        .eng
        .scenario
        .unit(to)
        .and_then(|u| ctx.state.sides.get(&u.side))
        .map_or("the army commander".to_string(), |s| {
            s.army_commander.clone()
        });
    Err(Refusal::new(
        "defends-in-place",
        "V2.4",
        format!(
            "`{to}` is on automatic \"defend in place\" orders: it takes no orders and moves only with {commander} (or one hex into close combat)"
        ),
        format!(
            "move {commander} to its hex, then move the brigade: he rides with it (`staffwork move --piece {to} --to HEX`); or put it in a temporary division by an order to Hill's, Ferguson's or Crawfurd's brigade (V2.3)"
        ),
    ))
}

/// V2.4: a British infantry brigade not in a temporary division that exists now.
fn defends_in_place(ctx: &Ctx, piece: &str) -> bool {
    let s = ctx.eng.scenario;
    has(ctx, "vimeiro-defend-in-place")
        && s.unit(piece)
            .is_some_and(|u| u.side == "british" && u.kind == UnitKind::Infantry)
        && !oob::parent(&ctx.state, piece)
            .is_some_and(|p| super::temporary_division::temporary(ctx, &p))
}
