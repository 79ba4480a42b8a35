//! Opportunity Fire offered along a move (17.4): which enemy batteries may fire at a unit that
//! moved, and at which hexes of its path. The Opportunity Fire Zone is "those hexes in the
//! unit's fire arc and LOS which are at or within 3 hexes", the battery's own hex included.
//! Nothing is rolled here: the battery's side (or the umpire) fires with
//! `combat fire --opportunity-at HEX`, which checks the same zone (`zone_range`). Decision 0167.
//!
//! Must not: roll dice or resolve fire (that is `combat_system`), or decide who may see an
//! offer (that is `app`/`view`).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::{Ctx, GameState, Refusal};
use crate::combat::MoraleState;
use crate::hex::Hex;
use crate::movement::facing::Arc;
use crate::scenario::{UnitFormation, UnitKind};

/// 17.4: the zone reaches "at or within 3 hexes".
pub const ZONE_RANGE: u32 = 3;

/// One battery that may Opportunity Fire at a unit that moved, and where.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpportunityOffer {
    /// The unit that moved.
    pub target: String,
    pub battery: String,
    /// The side the battery belongs to (the one that decides whether to fire).
    pub side: String,
    pub battery_hex: Hex,
    /// The hexes of the path in the battery's zone, in path order, with their range: the
    /// firer picks one (17.4.1: one fire at a unit per Movement Phase).
    pub hexes: Vec<ZoneHex>,
}

/// A hex of a path in a battery's Opportunity Fire Zone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZoneHex {
    pub hex: Hex,
    pub range: u32,
}

/// Is `hex` in the Opportunity Fire Zone of `battery` at `at` (17.4)? Its range, or the
/// refusal saying which condition fails: an Unlimbered battery (17.1.1) not Disorganized or
/// Routed, within 3 hexes, through its frontal hexsides (17.0 "fire through their frontal
/// hexes") and in line of sight (14.1).
pub(crate) fn zone_range(
    ctx: &Ctx,
    battery: &str,
    at: Hex,
    target: &str,
    hex: Hex,
) -> Result<u32, Refusal> {
    let s = ctx.eng.scenario;
    let Some(u) = s.unit(battery) else {
        return Err(super::command_system::unknown_unit(battery));
    };
    if !u.kind.is_artillery() {
        return Err(Refusal::new(
            "not-artillery",
            "17.4",
            format!("`{battery}` is not artillery: only batteries fire Opportunity Fire"),
            "",
        ));
    }
    let unfit = ctx
        .state
        .units
        .get(battery)
        .is_some_and(|x| x.morale <= MoraleState::Disorganized);
    if unfit || super::movement::formation_now(s, &ctx.state, u) != UnitFormation::Unlimbered {
        return Err(Refusal::new(
            "may-not-fire",
            "17.4",
            format!(
                "`{battery}` is Limbered, Disorganized or Routed: it has no Opportunity Fire Zone"
            ),
            "only Unlimbered artillery in a better Morale State fires (17.1.1)",
        ));
    }
    let range = at.distance(hex);
    if range > ZONE_RANGE {
        return Err(Refusal::new(
            "out-of-zone",
            "17.4",
            format!(
                "{hex} is {range} hexes from `{battery}` at {at}: its Opportunity Fire Zone reaches 3"
            ),
            "name a hex of the target's path at or within 3 hexes",
        ));
    }
    if range > 0 {
        let (arc, _, r) = super::aspect::read(ctx, battery, at, hex, false, None);
        if arc != Arc::Front {
            return Err(Refusal::new(
                "out-of-zone",
                "17.4",
                format!(
                    "{hex} is in the {} arc of `{battery}` at {at} (facing {}): its zone is its fire arc, the frontal hexes",
                    r.arc, r.facing
                ),
                "",
            ));
        }
        let sight = sight_from(ctx, at, target, hex);
        if !sight.visible {
            return Err(Refusal::new(
                "out-of-zone",
                "17.4",
                format!(
                    "`{battery}` at {at} has no line of sight to {hex} ({} {})",
                    sight.rule, sight.reason
                ),
                "",
            ));
        }
    }
    Ok(range)
}

/// Line of sight from `from` to `to` as the battery sees it (14.1): units other than
/// Skirmishers block (14.1.2.3), but not the target itself, which was at `to` then; the turn's
/// visibility caps it (14.1.5).
fn sight_from(ctx: &Ctx, from: Hex, target: &str, to: Hex) -> crate::movement::sight::SightRuling {
    let s = ctx.eng.scenario;
    let blockers: BTreeSet<Hex> = ctx
        .state
        .positions
        .iter()
        .filter(|(p, _)| {
            p.as_str() != target && s.unit(p).is_some_and(|u| u.kind != UnitKind::Skirmisher)
        })
        .map(|(_, h)| *h)
        .collect();
    let light = ctx
        .eng
        .turn_info(ctx.state.turn)
        .map_or(crate::scenario::clock::Light::Day, |t| t.light);
    let visibility = crate::movement::sight::visibility(ctx.eng.movement, s, light);
    crate::movement::sight::line_of_sight(
        &ctx.eng.move_map,
        ctx.eng.movement,
        from,
        to,
        &blockers,
        visibility,
    )
}

/// The batteries that may Opportunity Fire at `mover` along `path` (17.4 triggers 1, 4 and 5:
/// entering a hex of the zone, leaving it, ending the move in it). A Commander moving alone
/// triggers none (17.4.8); only the enemy's batteries fire.
pub(crate) fn offers(ctx: &Ctx, mover: &str, path: &[Hex]) -> Vec<OpportunityOffer> {
    let s = ctx.eng.scenario;
    let Some(m) = s.unit(mover) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (id, at) in &ctx.state.positions {
        let Some(b) = s.unit(id) else { continue };
        // 17.4.1: once each Movement Phase at a given unit.
        if b.side == m.side || !b.kind.is_artillery() || fired_at(&ctx.state, id, mover) {
            continue;
        }
        let mut hexes: Vec<ZoneHex> = Vec::new();
        for hex in path {
            if hexes.iter().any(|z| z.hex == *hex) {
                continue;
            }
            if let Ok(range) = zone_range(ctx, id, *at, mover, *hex) {
                hexes.push(ZoneHex { hex: *hex, range });
            }
        }
        if !hexes.is_empty() {
            out.push(OpportunityOffer {
                target: mover.to_string(),
                battery: id.clone(),
                side: b.side.clone(),
                battery_hex: *at,
                hexes,
            });
        }
    }
    out
}

/// Has `battery` fired Opportunity Fire at `target` in the current Movement Phase (17.4.1)?
pub(crate) fn fired_at(state: &GameState, battery: &str, target: &str) -> bool {
    state.movement.get(battery).is_some_and(|m| {
        m.opportunity_fired
            .iter()
            .any(|(t, p, u)| (*t, *p) == (state.turn, state.player) && u == target)
    })
}

/// The path `unit` moved along in the current Movement Phase, if it spent MP in it (12.0):
/// the hexes a battery may Opportunity Fire at it in.
pub(crate) fn path_this_phase(state: &GameState, unit: &str) -> Option<Vec<Hex>> {
    let m = state.movement.get(unit)?;
    let moved = m.moved?;
    (moved.turn == state.turn && moved.player == state.player && !m.last_path.is_empty())
        .then(|| m.last_path.clone())
}

impl super::Engine<'_> {
    /// The Opportunity Fire `mover`'s move along `path` offers the enemy's batteries in `state`
    /// (17.4); no die is rolled.
    pub fn opportunity_offers(
        &self,
        state: &GameState,
        mover: &str,
        path: &[Hex],
    ) -> Vec<OpportunityOffer> {
        let mut dice = crate::rules::dice::ScriptedDice::new();
        let ctx = Ctx::preview(self, state, &mut dice);
        offers(&ctx, mover, path)
    }

    /// Every unit that moved in the current Movement Phase and the Opportunity Fire its path
    /// offers (17.4): the umpire's pending items.
    pub fn opportunity_pending(&self, state: &GameState) -> Vec<OpportunityOffer> {
        state
            .movement
            .keys()
            .filter_map(|u| path_this_phase(state, u).map(|p| (u, p)))
            .flat_map(|(u, p)| self.opportunity_offers(state, u, &p))
            .collect()
    }
}
