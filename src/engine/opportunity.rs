//! Opportunity Fire offered along a move (17.4): which enemy batteries may fire at a unit that
//! moved, and at which hexes of its path. The Opportunity Fire Zone is "those hexes in the
//! unit's fire arc and LOS which are at or within 3 hexes", the battery's own hex included.
//! Nothing is rolled here: the battery's side (or the umpire) fires with
//! `combat fire --opportunity-at HEX`, which checks the same zone (`zone_range`). Decision 0167.
//!
//! Its triggers and 17.4.1's limits (once at a unit each phase, Cannister included; one firer
//! per trigger), formation changes and Line Extensions as targets, and a Rout by it stopping
//! the move (decision 0154). The same offers for Reaction Charges (16.5): which enemy cavalry
//! may charge a unit that moved, changed formation or retreated in its Reaction Zone, and where
//! (decision 0155).
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
    /// The target is the unit's Line Extension now in this hex, which moved on its own
    /// (17.4.2): fire with `--defender-at HEX`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extension: Option<Hex>,
    /// The hexes of the path in the battery's zone, in path order, with their range: the
    /// firer picks one (17.4.1: one fire at a unit per Movement Phase).
    pub hexes: Vec<ZoneHex>,
    /// The hexes of the zone where the unit changed formation in this phase (17.4 trigger 3):
    /// fire with `--opportunity-at HEX --formation-change`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub formation_changes: Vec<ZoneHex>,
}

/// What made a unit a target (17.4's triggers). 17.4.1: "A single unit may only be fired at
/// by one unit (or stack …) per trigger" (decision 0154).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trigger {
    /// Where the unit was: the hex of its path, of its formation change, or the battery's hex
    /// it entered.
    pub hex: Hex,
    pub kind: TriggerKind,
}

/// Which of 17.4's triggers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TriggerKind {
    /// Triggers 1, 4 and 5: entering a hex of the zone, leaving it, ending the move in it —
    /// one trigger per hex of the path (decision 0154).
    Move,
    /// Trigger 3: a formation change in the zone.
    FormationChange,
    /// Trigger 2: entering the battery's hex, fired on with Cannister (17.4.9).
    Cannister,
}

impl std::fmt::Display for Trigger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            TriggerKind::Move => write!(f, "its move through {}", self.hex),
            TriggerKind::FormationChange => write!(f, "its formation change at {}", self.hex),
            TriggerKind::Cannister => write!(f, "its entering the battery's hex {}", self.hex),
        }
    }
}

/// 17.4.1 with 17.4.9 for one Opportunity Fire by `batteries` at `targets` on `trigger`: each
/// battery fires at a given unit once each Movement Phase, Cannister included ("the artillery
/// gets to Opportunity Fire (if it hasn't done so already) using Cannister", 15.4.3; "it must
/// hold its fire", 16.2), and one firer (unit or stack) per trigger. The refusal names the rule
/// and the hex.
pub(crate) fn once_per_trigger(
    state: &GameState,
    batteries: &[String],
    targets: &[String],
    extension: Option<Hex>,
    trigger: Trigger,
) -> Result<(), Refusal> {
    for target in targets {
        let key = target_key(target, extension);
        if let Some(b) = batteries.iter().find(|b| fired_at(state, b, &key)) {
            return Err(Refusal::new(
                "already-fired",
                "17.4.1",
                format!(
                    "`{b}` has already fired Opportunity Fire at `{key}` in this Movement Phase{}",
                    if trigger.kind == TriggerKind::Cannister {
                        " (Cannister is its Opportunity Fire, 17.4.9)"
                    } else {
                        ""
                    }
                ),
                "a battery fires at a given unit once each Movement Phase; the umpire may allow it with --allow-fire --ruling REASON",
            ));
        }
        let earlier = state.movement.get(target).and_then(|m| {
            m.fired_on.iter().find(|f| {
                (f.turn, f.player) == (state.turn, state.player)
                    && f.trigger == trigger
                    && f.extension == extension
            })
        });
        if let Some(f) = earlier {
            return Err(Refusal::new(
                "one-firer-per-trigger",
                "17.4.1",
                format!(
                    "`{key}` was already fired on for {trigger} by {}: a unit is fired at by one unit (or stack) per trigger",
                    f.by.join(", ")
                ),
                "batteries that may fire together (17.3) fire in one command; the umpire may allow it with --allow-fire --ruling REASON",
            ));
        }
    }
    Ok(())
}

/// A hex of a path in a battery's Opportunity Fire Zone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZoneHex {
    pub hex: Hex,
    pub range: u32,
}

/// "36.08 (range 2), 35.08 (range 1)": the hexes of a path in a battery's zone, as the command
/// line and the umpire's console both show them.
pub fn zone_hexes_text(z: &[ZoneHex]) -> String {
    z.iter()
        .map(|z| format!("{} (range {})", z.hex, z.range))
        .collect::<Vec<_>>()
        .join(", ")
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
/// entering a hex of the zone, leaving it, ending the move in it) and where it changed
/// formation in this phase (trigger 3). A Commander moving alone triggers none (17.4.8); only
/// the enemy's batteries fire, each on a trigger no battery has fired on yet (17.4.1).
pub(crate) fn offers(ctx: &Ctx, mover: &str, path: &[Hex]) -> Vec<OpportunityOffer> {
    let changes = offered_changes_this_phase(&ctx.state, mover);
    let mut out = offers_at(ctx, mover, None, path, &changes);
    // 17.4.2: each Line Extension that moved on its own this phase is a target of its own.
    let parts: Vec<Hex> = ctx.state.movement.get(mover).map_or_else(Vec::new, |m| {
        m.extension_parts.iter().map(|p| p.hex).collect()
    });
    for hex in parts {
        let own = extension_path_this_phase(&ctx.state, mover, hex);
        // 8.2.1, 17.4 trigger 3: its own change out of Square (8.3.3) too (decision 0205).
        let changed = extension_changes_this_phase(&ctx.state, mover, hex);
        if !own.is_empty() || !changed.is_empty() {
            out.extend(offers_at(ctx, mover, Some(hex), &own, &changed));
        }
    }
    out
}

/// The offers at `mover` (its Line Extension in `extension`) for `path` and formation
/// `changes`.
fn offers_at(
    ctx: &Ctx,
    mover: &str,
    extension: Option<Hex>,
    path: &[Hex],
    changes: &[Hex],
) -> Vec<OpportunityOffer> {
    let key = target_key(mover, extension);
    let s = ctx.eng.scenario;
    let Some(m) = s.unit(mover) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (id, at) in &ctx.state.positions {
        let Some(b) = s.unit(id) else { continue };
        // 17.4.1: once each Movement Phase at a given unit.
        if b.side == m.side || !b.kind.is_artillery() || fired_at(&ctx.state, id, &key) {
            continue;
        }
        let in_zone = |hexes: &[Hex], kind: TriggerKind| {
            let mut out: Vec<ZoneHex> = Vec::new();
            for hex in hexes {
                let open = out.iter().all(|z| z.hex != *hex)
                    && !fired_on(&ctx.state, mover, extension, Trigger { hex: *hex, kind });
                if let (true, Ok(range)) = (open, zone_range(ctx, id, *at, mover, *hex)) {
                    out.push(ZoneHex { hex: *hex, range });
                }
            }
            out
        };
        let hexes = in_zone(path, TriggerKind::Move);
        let formation_changes = in_zone(changes, TriggerKind::FormationChange);
        if !hexes.is_empty() || !formation_changes.is_empty() {
            out.push(OpportunityOffer {
                target: mover.to_string(),
                battery: id.clone(),
                side: b.side.clone(),
                battery_hex: *at,
                extension,
                hexes,
                formation_changes,
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

/// 17.4 with 11.3.2: a unit Routed by Opportunity Fire fired at it in hex `at` of its path
/// stops there ("If the moving unit Routs, its movement stops"): the rest of the path was not
/// travelled, so it stands at `at` and its retreat is owed from there (decision 0154). The
/// move's events stand; this one follows them.
pub(crate) fn stop_move(ctx: &mut Ctx, side: &str, target: &str, at: Hex) {
    let routed = ctx
        .state
        .units
        .get(target)
        .is_some_and(|u| u.morale == MoraleState::Routed);
    if routed {
        move_stopped(
            ctx,
            side,
            target,
            at,
            "17.4",
            format!("Routed by Opportunity Fire at {at}: its movement stops there (11.3.2)"),
            0,
        );
    }
}

/// 12.1.2 with 17.4: "Disorganized units have their remaining Movement Points halved". A unit
/// made Disorganized (from a better state, `was`) by Opportunity Fire at hex `at` of the path it
/// moved along this phase loses half of what it had left there (the larger half kept, decision
/// 0084); if the rest of the path cost more than it kept, it went only as far as it could pay
/// for and stops there (`move-stopped`, rule 12.1.2), the MP of the hexes beyond given back.
/// Nothing for a move recorded before these figures were (decision 0182).
pub(crate) fn halve_at(ctx: &mut Ctx, side: &str, target: &str, at: Hex, was: MoraleState) {
    let now = ctx.state.units.get(target).map(|u| u.morale);
    if now != Some(MoraleState::Disorganized) || was <= MoraleState::Disorganized {
        return;
    }
    let Some(path) = path_this_phase(&ctx.state, target) else {
        return;
    };
    let left = ctx
        .state
        .movement
        .get(target)
        .map(|m| m.last_left.clone())
        .unwrap_or_default();
    let Some(i) = path.iter().position(|h| *h == at) else {
        return;
    };
    if left.len() != path.len() {
        return;
    }
    let lost = left[i] / 2;
    let kept = left[i] - lost;
    let end = path.len() - 1;
    // 12.1.5: fired on at its start hex, it had spent nothing yet; if what it kept no longer
    // pays for its first hex, it may still move that one hex (decision 0187).
    if i == 0 && end > 0 && kept < left[0] - left[1] && spent_before(ctx, target, &left) == 0 {
        minimum_move_after_fire(ctx, side, target, &path, &left, kept);
        return;
    }
    if lost > 0 {
        mp_lost(
            ctx,
            side,
            target,
            None,
            lost,
            "12.1.2",
            format!(
                "Disorganized by Opportunity Fire at {at}: the {} MP it had left there halved",
                crate::movement::tables::show_halves(left[i])
            ),
        );
    }
    let k = reach(&left, i, kept);
    if k < end {
        let unspent = left[k].saturating_sub(left[end]);
        move_stopped(
            ctx,
            side,
            target,
            path[k],
            "12.1.2",
            format!(
                "Disorganized by Opportunity Fire at {at}, it kept {} MP, which pay for the path only as far as {}",
                crate::movement::tables::show_halves(kept),
                path[k]
            ),
            unspent,
        );
    }
}

/// The farthest index of `left` (the half-points left at each hex of a path) that `kept`
/// half-points pay for from index `i` (12.1.2).
fn reach(left: &[u32], i: usize, kept: u32) -> usize {
    (i..left.len())
        .rev()
        .find(|&k| left[i].saturating_sub(left[k]) <= kept)
        .unwrap_or(i)
}

/// 12.1.2 with 13.1.1, 13.1.3 and 17.4.2: Opportunity Fire at `target`'s Line Extension now in
/// `ext`, at hex `at` of the path it moved along on its own this phase, that left it
/// Disorganized (from a better state, `was`). Its move "is considered movement by the Line
/// Extension for all purposes" (13.1.3), so it is judged as `halve_at` judges a unit's: what it
/// had left at `at` (`extension-moved`'s `left`; at the hex it stands in, what it has left now)
/// is halved, the larger half kept; where the kept half does not pay for the rest of its path,
/// it stops where they run out (`move-stopped` naming the extension). 12.1.5's one-hex move
/// after fire at its start hex applies as to a unit (decision 0187). Stopped in a hex not next
/// to its parent, 13.3.3: a parent that has not moved this phase must end next to it (its move
/// is refused otherwise, 13.0); next to one that has, it is placed (`beside_parent`, a second
/// `move-stopped`, rule 13.3.3). Decision 0192.
pub(crate) fn halve_extension_at(
    ctx: &mut Ctx,
    side: &str,
    target: &str,
    ext: Hex,
    at: Hex,
    was: Option<MoraleState>,
) {
    let Some(was) = was else { return };
    let Some(part) = super::extensions::part(&ctx.state, target, ext).cloned() else {
        return;
    };
    if part.morale != MoraleState::Disorganized || was <= MoraleState::Disorganized {
        return;
    }
    let mut path = extension_path_this_phase(&ctx.state, target, ext);
    // 12.1.2 with 17.4 trigger 3: fired on at its change out of Square (8.3.3) where it stands,
    // having not moved since, it has what it has left now halved (decision 0205, as 0188 for a
    // unit).
    if !path.contains(&at)
        && at == ext
        && extension_changes_this_phase(&ctx.state, target, ext) == [at]
    {
        path = vec![at];
    }
    let Some(i) = path.iter().position(|h| *h == at) else {
        return;
    };
    let end = path.len() - 1;
    // At the hex it stands in, what it has left now, counted as before the fire (a turn in
    // place since included); elsewhere, what its move recorded.
    let mut left = part.last_left.clone();
    if i == end {
        let Some(u) = ctx.eng.scenario.unit(target).cloned() else {
            return;
        };
        let mut before = part.clone();
        before.morale = was;
        let Ok(m) = super::movement::extension_mover(ctx, &u, &before) else {
            return;
        };
        left = vec![0; path.len()];
        left[end] = m.left();
    } else if left.len() != path.len() {
        return;
    }
    let lost = left[i] / 2;
    let kept = left[i] - lost;
    let show = crate::movement::tables::show_halves;
    // 12.1.5 with 13.1.3: fired on at its start hex having spent nothing this phase, it may
    // still move the one hex, using up all it had, at the cost of a Morale State.
    let spent = part
        .spent_in(ctx.state.turn, ctx.state.player)
        .halves
        .saturating_sub(left[0].saturating_sub(left[end]));
    if i == 0 && end > 0 && kept < left[0] - left[1] && spent == 0 {
        let why = format!(
            "Disorganized by Opportunity Fire at its start hex {at}, it kept {} MP, too few for the {} MP to {}; it moves that one hex by 12.1.5 (13.1.3)",
            show(kept),
            show(left[0] - left[1]),
            path[1]
        );
        if left[end] > 0 {
            mp_lost(
                ctx,
                side,
                target,
                Some(ext),
                left[end],
                "12.1.5",
                format!("{why}, which uses up its entire Movement Allowance"),
            );
        }
        let (first, unspent) = (path[1], 0);
        extension_stopped(
            ctx,
            side,
            target,
            ext,
            first,
            "12.1.5",
            why.clone(),
            unspent,
        );
        super::zones::degrade_part(
            ctx,
            side,
            target,
            Some(first),
            "12.1.5",
            format!("{why}, at the cost of a Morale State"),
            0,
        );
        return;
    }
    // Nothing lost still marks it halved, so its allowance is not halved again (21.1).
    mp_lost(
        ctx,
        side,
        target,
        Some(ext),
        lost,
        "12.1.2",
        format!(
            "Disorganized by Opportunity Fire at {at}: the {} MP it had left there halved",
            show(left[i])
        ),
    );
    let k = reach(&left, i, kept);
    if k == end {
        return;
    }
    let cut = format!(
        "Disorganized by Opportunity Fire at {at}, it kept {} MP, which pay for its path only as far as {}",
        show(kept),
        path[k]
    );
    let unspent = left[k].saturating_sub(left[end]);
    extension_stopped(ctx, side, target, ext, path[k], "12.1.2", cut, unspent);
    placed_beside_moved_parent(ctx, side, target, path[k]);
}

/// 13.3.3: `target`'s Line Extension stopped at `at` apart from a parent that has already moved
/// this phase is placed next to it at once (`move-stopped`, rule 13.3.3; decisions 0192,
/// 0196). Next to its parent, or with a parent still to move (which must end next to it, 13.0),
/// it stays.
pub(crate) fn placed_beside_moved_parent(ctx: &mut Ctx, side: &str, target: &str, at: Hex) {
    let Some(parent_at) = ctx.state.positions.get(target).copied() else {
        return;
    };
    if super::extensions::part(&ctx.state, target, at).is_none()
        || at.is_adjacent(parent_at)
        || path_this_phase(&ctx.state, target).is_none()
    {
        return;
    }
    if let Some(h) = beside_parent(ctx, target, parent_at, at) {
        extension_stopped(
            ctx,
            side,
            target,
            at,
            h,
            "13.3.3",
            format!(
                "stopped at {at} apart from its parent at {parent_at}, which has already moved: placed next to it"
            ),
            0,
        );
    }
}

/// 16.5.6 with 13.1.1 and 8.3.1.1: `target`'s Line Extension in `ext`, met by a Reaction Charge
/// at `at`, an earlier hex of its own move, forms Square there, which ends its move: it stops at
/// `at` (`move-stopped` naming it, rule 16.5), before the Square is formed (decision 0211). Its
/// only voluntary formation change, out of Square (8.3.3), is made in place before it moves,
/// never farther along its path, so none is undone (decision 0197's rule has nothing to undo).
pub(crate) fn extension_stopped_by_reaction(
    ctx: &mut Ctx,
    side: &str,
    target: &str,
    ext: Hex,
    at: Hex,
) {
    extension_stopped(
        ctx,
        side,
        target,
        ext,
        at,
        "16.5",
        format!(
            "formed Square against the Reaction Charge at {at}, which ends its move (16.5.6, 8.3.1.1): its movement stops there"
        ),
        0,
    );
}

/// 13.3.3 at the end of `side`'s Movement Phase: "If the parent unit has not moved yet, it must
/// end its movement adjacent to the Line Extension if possible. If … the parent unit failed to
/// move adjacent to the Line Extension, the Line Extension is placed in a hex adjacent to the
/// parent unit in its current Morale State at the end of the Movement Phase." Each of the side's
/// Line Extensions not next to its parent is placed as `beside_parent` says (`move-stopped`,
/// rule 13.3.3); with no such hex, the umpire's. Decision 0192.
pub(crate) fn place_extensions_apart(ctx: &mut Ctx, side: &str) {
    let apart: Vec<(String, Hex, Hex)> = super::extensions::all(ctx, Some(side))
        .into_iter()
        .filter_map(|(unit, h)| {
            let p = ctx.state.positions.get(&unit).copied()?;
            (!h.is_adjacent(p)).then_some((unit, h, p))
        })
        .collect();
    for (unit, h, p) in apart {
        if let Some(to) = beside_parent(ctx, &unit, p, h) {
            extension_stopped(
                ctx,
                side,
                &unit,
                h,
                to,
                "13.3.3",
                format!(
                    "apart from its parent at {p} at the end of the Movement Phase: placed next to it"
                ),
                0,
            );
        }
    }
}

/// 13.3.3: the hex next to `parent_at` where `unit`'s Line Extension stopped at `from` is
/// placed: on the map, holding no enemy piece and no other Line Extension, one the extension
/// could occupy — not Prohibited terrain, hexside or slope for a Line stepping there from its
/// parent (12.2.2, 12.2.6; the check generating an extension makes, 13.1.3) — the nearest to
/// `from` (the first in the neighbours' order N, NE, SE, S, SW, NW on a tie). Decisions 0192,
/// 0196.
fn beside_parent(ctx: &Ctx, unit: &str, parent_at: Hex, from: Hex) -> Option<Hex> {
    let s = ctx.eng.scenario;
    let side = s.unit(unit)?.side.clone();
    let taken: Vec<Hex> = super::extensions::all(ctx, None)
        .into_iter()
        .filter(|(p, h)| !(p == unit && *h == from))
        .map(|(_, h)| h)
        .chain(
            ctx.state
                .positions
                .iter()
                .filter(|(p, _)| s.unit(p).is_some_and(|x| x.side != side))
                .map(|(_, h)| *h),
        )
        .collect();
    parent_at
        .neighbours()
        .into_iter()
        .filter(|h| ctx.eng.move_map.contains(*h) && !taken.contains(h))
        .filter(|h| {
            // 13.2: a Line Extension is infantry in Line (the class 13.1.3's generation uses).
            crate::movement::path::step_cost(
                &ctx.eng.move_map,
                ctx.eng.movement,
                "line",
                parent_at,
                *h,
                false,
            )
            .is_ok()
        })
        .min_by_key(|h| h.distance(from))
}

/// `target`'s Line Extension in `ext` stops at `at`, a hex of its own path (`move-stopped`
/// naming it), `unspent` half-points given back. Nothing when it already stands there.
#[allow(clippy::too_many_arguments)]
fn extension_stopped(
    ctx: &mut Ctx,
    side: &str,
    target: &str,
    ext: Hex,
    at: Hex,
    rule: &str,
    reason: String,
    unspent: u32,
) {
    if ext != at {
        emit_stop(ctx, side, target, at, rule, reason, unspent, Some(ext));
    }
}

/// The `move-stopped` event of `target` (or of its Line Extension in `extension`), told to
/// `side` (4.0; decisions 0182, 0192).
#[allow(clippy::too_many_arguments)]
fn emit_stop(
    ctx: &mut Ctx,
    side: &str,
    target: &str,
    at: Hex,
    rule: &str,
    reason: String,
    unspent: u32,
    extension: Option<Hex>,
) {
    ctx.emit_side(
        side,
        super::EventKind::MoveStopped {
            unit: target.to_string(),
            at,
            rule: rule.into(),
            reason,
            unspent_half_mp: unspent,
            extension,
            phase_move: None,
        },
    );
}

/// 12.1.2 with 17.4 trigger 3: fire at `target`'s formation change at `at` that left it
/// Disorganized (from a better state, `was`) halves the MP it had left then, for the rest of
/// the phase. A change made before its last move, at that move's start hex, is judged as fire
/// there (`halve_at`: the move is cut where what it kept runs out); any other — the change it
/// just made where it stands — halves what it has left now (decision 0188).
pub(crate) fn halve_at_formation_change(
    ctx: &mut Ctx,
    side: &str,
    target: &str,
    at: Hex,
    was: MoraleState,
) {
    let now = ctx.state.units.get(target).map(|u| u.morale);
    if now != Some(MoraleState::Disorganized) || was <= MoraleState::Disorganized {
        return;
    }
    // A non-phasing target (a Square formed against a charge, 17.4.6) has no MP to halve in
    // the enemy's Movement Phase (12.1.4: they are its own phase's).
    let own = ctx.eng.scenario.unit(target).map(|u| u.side.as_str());
    if own != Some(ctx.state.phasing()) {
        return;
    }
    let stands = ctx.state.positions.get(target).copied();
    let path = path_this_phase(&ctx.state, target).unwrap_or_default();
    if halve_before_earlier_move(ctx, side, target, at, &path) {
        return;
    }
    if path.len() > 1 && path[0] == at && stands != Some(at) {
        halve_at(ctx, side, target, at, was);
        return;
    }
    let Some(u) = ctx.eng.scenario.unit(target).cloned() else {
        return;
    };
    // What it has left, counted as before the fire: a unit Disorganized at the start of the
    // phase has its Movement Allowance halved instead (21.1), which is not this case.
    let mut before = ctx.state.clone();
    if let Some(x) = before.units.get_mut(target) {
        x.morale = was;
    }
    let formation = super::movement::formation_now(ctx.eng.scenario, &before, &u);
    let mut dice = crate::rules::dice::ScriptedDice::new();
    let left = {
        let c = Ctx::preview(ctx.eng, &before, &mut dice);
        super::movement::mover_or_unlimbered(&c, &u, formation).map(|m| m.left())
    };
    let Ok(left) = left else {
        return;
    };
    // The larger half kept (decision 0084); nothing lost still marks it halved (21.1).
    mp_lost(
        ctx,
        side,
        target,
        None,
        left / 2,
        "12.1.2",
        format!(
            "Disorganized by Opportunity Fire at its formation change at {at}: the {} MP it had left halved for the rest of the phase",
            crate::movement::tables::show_halves(left)
        ),
    );
}

/// 12.1.2 with 17.4 trigger 3 (decision 0193): fire at `target`'s formation change at `at`
/// made before a move of this phase that is not its last (it moved again since). What it had
/// left there, after the change was paid (that move's `left` at its start), is halved; the
/// kept half pays for that move and the later ones, in order, as far as it goes: where it runs
/// out, the unit stops (`move-stopped`, rule 12.1.2, naming the move with `phase_move` when it
/// is not the last), the moves and formation changes beyond never made (each change undone by
/// `formation-changed` back, 0 MP, rule 12.1.2) and what they cost given back. False (nothing
/// done) when that change was not made before such a move or the figures were not recorded.
fn halve_before_earlier_move(
    ctx: &mut Ctx,
    side: &str,
    target: &str,
    at: Hex,
    path: &[Hex],
) -> bool {
    let phase = (ctx.state.turn, ctx.state.player);
    let Some(m) = ctx.state.movement.get(target) else {
        return false;
    };
    let legs: Vec<super::state::PhaseLeg> = m
        .phase_moves
        .iter()
        .filter(|l| (l.turn, l.player) == phase)
        .cloned()
        .collect();
    let Some(change) = changes_this_phase(&ctx.state, target)
        .filter(|c| c.hex == at)
        .last()
        .copied()
    else {
        return false;
    };
    let n = change.moves_before as usize;
    // Only a change before a move that is not the last: the last is `halve_at`'s (0188).
    if n + 1 >= legs.len()
        || legs[n].path.first() != Some(&at)
        || legs.last().is_none_or(|l| l.path != path)
    {
        return false;
    }
    let spent_now = m.spent_in(phase.0, phase.1).halves;
    let spent_at = |j: usize, k: usize| {
        let l = &legs[j];
        l.spent_before + l.left[0].saturating_sub(l.left[k])
    };
    let left = legs[n].left[0];
    let lost = left / 2;
    let kept = left - lost;
    let start = spent_at(n, 0);
    // The farthest point of the moves from the change on that the kept half pays for.
    let points: Vec<(usize, usize)> = (n..legs.len())
        .flat_map(|j| (0..legs[j].path.len()).map(move |k| (j, k)))
        .collect();
    let (j, k) = points
        .iter()
        .rev()
        .find(|(j, k)| spent_at(*j, *k).saturating_sub(start) <= kept)
        .copied()
        .unwrap_or((n, 0));
    // A move's start that cost nothing since the one before ended is that move's end: it
    // stopped in the move it travelled (its path is the one offered, 17.4).
    let (mut j, mut k) = (j, k);
    while k == 0 && j > n && spent_at(j, 0) == spent_at(j - 1, legs[j - 1].path.len() - 1) {
        j -= 1;
        k = legs[j].path.len() - 1;
    }
    let show = crate::movement::tables::show_halves;
    mp_lost(
        ctx,
        side,
        target,
        None,
        lost,
        "12.1.2",
        format!(
            "Disorganized by Opportunity Fire at its formation change at {at}, made before an earlier move of this phase: the {} MP it had left there halved",
            show(left)
        ),
    );
    let last = legs.len() - 1;
    if (j, k) == (last, legs[last].path.len() - 1) {
        return true;
    }
    // The formation changes made after move `j` were never made.
    let beyond: Vec<super::state::FormationChangeAt> = changes_this_phase(&ctx.state, target)
        .filter(|c| c.moves_before as usize > j)
        .copied()
        .collect();
    undo_changes(ctx, side, target, &beyond, "12.1.2");
    let hex = legs[j].path[k];
    ctx.emit_side(
        side,
        super::EventKind::MoveStopped {
            unit: target.to_string(),
            at: hex,
            rule: "12.1.2".into(),
            reason: format!(
                "Disorganized by Opportunity Fire at its formation change at {at}, it kept {} MP, which pay for its moves of this phase only as far as {hex}",
                show(kept)
            ),
            unspent_half_mp: spent_now.saturating_sub(spent_at(j, k)),
            extension: None,
            phase_move: (j < last).then_some(j as u32),
        },
    );
    true
}

/// `movement-points-lost` for `target`, or for its Line Extension in `extension` (13.1.2: its
/// own MP), told to its side.
fn mp_lost(
    ctx: &mut Ctx,
    side: &str,
    target: &str,
    extension: Option<Hex>,
    half_mp: u32,
    rule: &str,
    reason: String,
) {
    ctx.emit_side(
        side,
        super::EventKind::MovementPointsLost {
            unit: target.to_string(),
            half_mp,
            rule: rule.into(),
            reason,
            extension,
        },
    );
}

/// Half-points `target` spent this phase before the move whose figures are `left` (the move's
/// own charge, `left[0] − left[last]`, taken from what it has spent). Anything it spent after
/// the move (a formation change at its end) counts too, so the answer errs towards "spent".
fn spent_before(ctx: &Ctx, target: &str, left: &[u32]) -> u32 {
    let (turn, player) = (ctx.state.turn, ctx.state.player);
    let spent = ctx
        .state
        .movement
        .get(target)
        .map(|m| m.spent_in(turn, player).halves)
        .unwrap_or_default();
    let charged = left[0].saturating_sub(left[left.len() - 1]);
    spent.saturating_sub(charged)
}

/// 12.1.5 after 17.4 and 12.1.2: "A unit that has not spent any Movement Points this Movement
/// Phase, but still has insufficient Movement Points to enter an adjacent hex, can always move
/// one hex … uses up the entire Movement Allowance … reduces its Morale State by 1." The unit
/// Disorganized by fire at its start hex goes one hex along its path and no farther
/// (`move-stopped` there if the path went on), spends all it had (`movement-points-lost`, rule
/// 12.1.5) and loses a Morale State, from Disorganized to Routed, owing its retreat from that
/// hex (21.4). Decision 0187.
fn minimum_move_after_fire(
    ctx: &mut Ctx,
    side: &str,
    target: &str,
    path: &[Hex],
    left: &[u32],
    kept: u32,
) {
    let (start, first) = (path[0], path[1]);
    let show = crate::movement::tables::show_halves;
    let why = format!(
        "Disorganized by Opportunity Fire at its start hex {start}, it kept {} MP, too few for the {} MP to {first}; it moves that one hex by 12.1.5",
        show(kept),
        show(left[0] - left[1])
    );
    let rest = left[left.len() - 1];
    if rest > 0 {
        mp_lost(
            ctx,
            side,
            target,
            None,
            rest,
            "12.1.5",
            format!("{why}, which uses up its entire Movement Allowance"),
        );
    }
    move_stopped(ctx, side, target, first, "12.1.5", why.clone(), 0);
    super::zones::degrade(
        ctx,
        side,
        target,
        "12.1.5",
        format!("{why}, at the cost of a Morale State"),
        0,
    );
}

/// 17.4.6: "A unit Disorganized by Opportunity Fire does not form Square." Fire at `target` in
/// hex `at` (of its path, or of its formation change with `formation_change`) that left it
/// Disorganized (from a better state, `was`) undoes a Square it formed after that moment in
/// this phase: at a later hex of its path, or the very formation change fired on. The Square's
/// formation change is not rewritten: `formation-changed` back to what it left (0 MP, rule
/// 17.4.6) follows it. Decision 0159.
pub(crate) fn undo_square(
    ctx: &mut Ctx,
    side: &str,
    target: &str,
    at: Hex,
    formation_change: bool,
    was: MoraleState,
) {
    let now = ctx.state.units.get(target).map(|u| u.morale);
    if now != Some(MoraleState::Disorganized) || was <= MoraleState::Disorganized {
        return;
    }
    let Some(last) = changes_this_phase(&ctx.state, target).last().copied() else {
        return;
    };
    let formation = ctx.state.movement.get(target).and_then(|m| m.formation);
    if last.to != UnitFormation::Square || formation != Some(UnitFormation::Square) {
        return;
    }
    let path = path_this_phase(&ctx.state, target).unwrap_or_default();
    let index = |h: Hex| path.iter().position(|x| *x == h);
    let later = match (index(at), index(last.hex)) {
        (Some(i), Some(j)) => j > i || (j == i && formation_change),
        _ => last.hex == at && formation_change,
    };
    if !later {
        return;
    }
    ctx.emit_side(
        side,
        super::EventKind::FormationChanged {
            unit: target.to_string(),
            from: UnitFormation::Square,
            to: last.from,
            half_mp: 0,
            rule: "17.4.6".into(),
            extension: None,
        },
    );
}

/// 17.4.6 with 13.2.1: "A unit Disorganized by Opportunity Fire does not form Square." Fire at
/// the Square `target`'s Line Extension in `ext` formed against a charge in this phase (at
/// `at`, its hex; `--square-fire`) that left it Disorganized (from a better state, `was`)
/// undoes it: `formation-changed` Square → Line, 0 MP, rule 17.4.6, for the extension (it is
/// never in Column, 13.2.1). Decision 0205, as 0159 for a unit.
pub(crate) fn undo_extension_square(
    ctx: &mut Ctx,
    side: &str,
    target: &str,
    ext: Hex,
    at: Hex,
    was: Option<MoraleState>,
) {
    let Some(was) = was else { return };
    let Some(part) = super::extensions::part(&ctx.state, target, ext) else {
        return;
    };
    if at != ext
        || part.morale != MoraleState::Disorganized
        || was <= MoraleState::Disorganized
        || part.square != Some((ctx.state.turn, ctx.state.player))
    {
        return;
    }
    ctx.emit_side(
        side,
        super::EventKind::FormationChanged {
            unit: target.to_string(),
            from: UnitFormation::Square,
            to: UnitFormation::Line,
            half_mp: 0,
            rule: "17.4.6".into(),
            extension: Some(ext),
        },
    );
}

/// `target` stands where its move ended, beyond `at`: it stops at `at` instead (`MoveStopped`,
/// never a rewrite of the move's events), `unspent` half-points of the move given back.
/// Nothing when it already stands at `at` or is gone.
fn move_stopped(
    ctx: &mut Ctx,
    side: &str,
    target: &str,
    at: Hex,
    rule: &str,
    reason: String,
    unspent: u32,
) {
    if ctx.state.positions.get(target).is_some_and(|h| *h != at) {
        undo_changes_beyond(ctx, side, target, at, rule);
        emit_stop(ctx, side, target, at, rule, reason, unspent, None);
    }
}

/// The formation changes `target` made farther along the path it moved along this phase than
/// `at`, where it is stopped, were never made (as decision 0193 has it for a halving): each is
/// undone, the latest first (`formation-changed` back, 0 MP, the stop's rule, `never_made`), so
/// the unit stands at `at` in the formation it had there. Decision 0197.
fn undo_changes_beyond(ctx: &mut Ctx, side: &str, target: &str, at: Hex, rule: &str) {
    if !super::event::never_made(rule) {
        return;
    }
    let path = path_this_phase(&ctx.state, target).unwrap_or_default();
    let Some(i) = path.iter().position(|h| *h == at) else {
        return;
    };
    let beyond: Vec<super::state::FormationChangeAt> = changes_this_phase(&ctx.state, target)
        .filter(|c| path.iter().position(|h| *h == c.hex).is_some_and(|j| j > i))
        .copied()
        .collect();
    undo_changes(ctx, side, target, &beyond, rule);
}

/// The formation changes `beyond` a stop were never made: each is undone, latest first, by a
/// `formation-changed` back to what it left, 0 MP, under `rule` (decisions 0193, 0197). A change
/// already undone (a Square 17.4.6 undid) is not undone twice.
fn undo_changes(
    ctx: &mut Ctx,
    side: &str,
    target: &str,
    beyond: &[super::state::FormationChangeAt],
    rule: &str,
) {
    let mut now = ctx.state.movement.get(target).and_then(|m| m.formation);
    for c in beyond.iter().rev() {
        if now != Some(c.to) {
            continue;
        }
        now = Some(c.from);
        ctx.emit_side(
            side,
            super::EventKind::FormationChanged {
                unit: target.to_string(),
                from: c.to,
                to: c.from,
                half_mp: 0,
                rule: rule.into(),
                extension: None,
            },
        );
    }
}

/// Has a battery fired Opportunity Fire at `target` (its Line Extension in `extension`) on
/// `trigger` in the current phase (17.4.1)?
fn fired_on(state: &GameState, target: &str, extension: Option<Hex>, trigger: Trigger) -> bool {
    state.movement.get(target).is_some_and(|m| {
        m.fired_on.iter().any(|f| {
            (f.turn, f.player) == (state.turn, state.player)
                && f.trigger == trigger
                && f.extension == extension
        })
    })
}

/// The name 17.4.1's records give a target: the unit, or its Line Extension in `extension`,
/// a target of its own (17.4.2: "Movement or Formation Change activities of a unit and its
/// Line Extensions generate Opportunity Fire separately").
pub(crate) fn target_key(unit: &str, extension: Option<Hex>) -> String {
    match extension {
        Some(h) => format!("{unit}@{h}"),
        None => unit.to_string(),
    }
}

/// The path `unit`'s Line Extension now in `hex` moved along on its own in the current
/// Movement Phase (its generation, 13.1.3, or its own move, 13.1.1): 17.4.2. Not a path of an
/// earlier phase, nor a turn in place (17.4.8, 16.5.9; decision 0212).
pub(crate) fn extension_path_this_phase(state: &GameState, unit: &str, hex: Hex) -> Vec<Hex> {
    let phase = (state.turn, state.player);
    super::extensions::part(state, unit, hex)
        .filter(|p| p.moved.is_some_and(|m| (m.turn, m.player) == phase))
        .filter(|p| p.last_path_in == Some(phase))
        .map_or_else(Vec::new, |p| p.last_path.clone())
}

/// The hex where `unit`'s Line Extension now in `hex` left its Square by a Formation Change of
/// its own (8.3.3) in the current phase, if it did: 8.2.1 "Units that change formation within
/// the Opportunity Fire zone of enemy artillery may be fired upon", and 17.4.2 makes the
/// extension's formation change a trigger of its own. Decision 0205.
pub(crate) fn extension_changes_this_phase(state: &GameState, unit: &str, hex: Hex) -> Vec<Hex> {
    super::extensions::part(state, unit, hex)
        .and_then(|p| p.left_square)
        .filter(|(turn, player, _)| (*turn, *player) == (state.turn, state.player))
        .map(|(_, _, at)| vec![at])
        .unwrap_or_default()
}

/// The hexes where the Line Extension of `unit` now in `hex` changed formation in the current
/// phase and may be fired on for it (17.4 trigger 3): its change out of Square (8.3.3, offered)
/// and the Square it formed against a charge in this phase (13.2.1, 16.2.1), fired on only
/// inside the charge (17.4.6, `--square-fire`), as a unit's (decisions 0195, 0205).
pub(crate) fn extension_fireable_changes(state: &GameState, unit: &str, hex: Hex) -> Vec<Hex> {
    let mut out = extension_changes_this_phase(state, unit, hex);
    let formed_now = super::extensions::part(state, unit, hex)
        .is_some_and(|p| p.square == Some((state.turn, state.player)));
    if formed_now && !out.contains(&hex) {
        out.push(hex);
    }
    out
}

/// 17.4 trigger 3 for a Line Extension's change between Line and Square (8.3.3 out of it,
/// 16.2.1 into it): "the firer gets to choose which of the two formations the unit is
/// considered in" — the one artillery fire counts as vulnerable (17.0), as for a unit
/// (`fired_on_as`, decision 0154): Square. `None` if it made no such change at `at` in this
/// phase. Decision 0205.
pub(crate) fn extension_fired_on_as(
    state: &GameState,
    unit: &str,
    hex: Hex,
    at: Hex,
) -> Option<UnitFormation> {
    if !extension_fireable_changes(state, unit, hex).contains(&at) {
        return None;
    }
    let vulnerable = crate::combat::fire::vulnerable_formation;
    Some(
        if vulnerable(UnitFormation::Line) || !vulnerable(UnitFormation::Square) {
            UnitFormation::Line
        } else {
            UnitFormation::Square
        },
    )
}

/// The hexes where `unit` changed formation in the current phase (17.4 trigger 3).
pub(crate) fn formation_changes_this_phase(state: &GameState, unit: &str) -> Vec<Hex> {
    changes_this_phase(state, unit).map(|c| c.hex).collect()
}

/// The formation changes of `unit` in the current phase that offer Opportunity Fire (17.4
/// trigger 3) and Reaction Charges (16.5): all but a Square formed against a charge, whose
/// fire is inside the charge (17.4.6, `--square-fire`; decision 0195).
fn offered_changes_this_phase(state: &GameState, unit: &str) -> Vec<Hex> {
    changes_this_phase(state, unit)
        .filter(|c| !c.in_charge)
        .map(|c| c.hex)
        .collect()
}

fn changes_this_phase<'s>(
    state: &'s GameState,
    unit: &str,
) -> impl Iterator<Item = &'s super::state::FormationChangeAt> {
    let phase = (state.turn, state.player);
    state
        .movement
        .get(unit)
        .into_iter()
        .flat_map(|m| &m.formation_changed_at)
        .filter(move |c| (c.turn, c.player) == phase)
}

/// 17.4 trigger 3: "the firer gets to choose which of the two formations the unit is considered
/// in (usually choosing the one with the best fire modifiers)". The engine chooses for it the
/// one artillery fire counts as vulnerable (17.0: Column, Square, Limbered …), else the
/// formation it changed to (decision 0154). `None` if the unit changed no formation at `hex`.
pub(crate) fn fired_on_as(
    state: &GameState,
    unit: &str,
    hex: Hex,
) -> Option<crate::scenario::UnitFormation> {
    let c = changes_this_phase(state, unit)
        .filter(|c| c.hex == hex)
        .last()?;
    let vulnerable = crate::combat::fire::vulnerable_formation;
    Some(if vulnerable(c.to) || !vulnerable(c.from) {
        c.to
    } else {
        c.from
    })
}

/// The path `unit` moved along in the current Movement Phase, if it spent MP in it (12.0):
/// the hexes a battery may Opportunity Fire at it in.
pub(crate) fn path_this_phase(state: &GameState, unit: &str) -> Option<Vec<Hex>> {
    let m = state.movement.get(unit)?;
    let moved = m.moved?;
    let phase = (state.turn, state.player);
    (moved.turn == state.turn
        && moved.player == state.player
        && m.last_path_in.is_none_or(|p| p == phase)
        && !m.last_path.is_empty())
    .then(|| m.last_path.clone())
}

/// 16.5.1: the Reaction Zone reaches "1 to 3 hexes from the unit".
pub const REACTION_RANGE: u32 = 3;

/// One cavalry unit that may Reaction Charge a unit that moved, and where (16.5).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReactionOffer {
    /// The unit that moved.
    pub target: String,
    pub cavalry: String,
    /// The cavalry's side (the one that decides whether to charge).
    pub side: String,
    pub cavalry_hex: Hex,
    /// The target is the unit's Line Extension now in this hex, which moved or changed formation
    /// on its own (13.1.1, 13.1.3): charge with `--defender-at HEX` (decision 0211).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extension: Option<Hex>,
    /// The hexes of the path in its Reaction Zone (triggers a, c and d), in path order.
    pub hexes: Vec<ReactionHex>,
    /// The hexes of the zone where the unit changed formation in this phase (trigger b).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub formation_changes: Vec<ReactionHex>,
    /// The path was a retreat (21.4): 17.4.5 spares it Opportunity Fire, 16.5 does not.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub retreat: bool,
}

/// A hex of a path in a cavalry unit's Reaction Zone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReactionHex {
    pub hex: Hex,
    pub range: u32,
    /// Outside the cavalry's frontal arc: it must pass a Morale Check to charge (16.5.5).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub morale_check: bool,
}

/// "36.08 (range 2), 35.08 (range 1, Morale Check 16.5.5)": a Reaction Zone's hexes as the
/// command line and the umpire's console both show them.
pub fn reaction_hexes_text(z: &[ReactionHex]) -> String {
    z.iter()
        .map(|z| {
            let check = if z.morale_check {
                ", Morale Check 16.5.5"
            } else {
                ""
            };
            format!("{} (range {}{check})", z.hex, z.range)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Is `hex` in the Reaction Zone of `cavalry` at `at` (16.5.1: 1 to 3 hexes, any direction, in
/// line of sight, not terrain hindering Cavalry Charges)? With whether it lies outside the
/// cavalry's frontal arc (16.5.5).
fn reaction_range(
    ctx: &Ctx,
    cavalry: &str,
    at: Hex,
    target: &str,
    hex: Hex,
) -> Option<ReactionHex> {
    let range = at.distance(hex);
    if range == 0 || range > REACTION_RANGE {
        return None;
    }
    let t = ctx.eng.movement;
    let map = &ctx.eng.move_map;
    if !map.contains(hex) || t.terrain_row(map.terrain(hex)).0.hindering {
        return None;
    }
    if !sight_from(ctx, at, target, hex).visible {
        return None;
    }
    let (arc, _, _) = super::aspect::read(ctx, cavalry, at, hex, false, None);
    Some(ReactionHex {
        hex,
        range,
        morale_check: arc != Arc::Front,
    })
}

/// May `cavalry` Reaction Charge now? Not at night (27.1.3), nor Blown, Shaken or worse (16.1.1,
/// 22.1.1).
fn may_react(ctx: &Ctx, cavalry: &str) -> bool {
    let st = ctx.state.units.get(cavalry).cloned().unwrap_or_default();
    !ctx.night() && !st.blown && st.morale > MoraleState::Shaken
}

/// The enemy cavalry that may Reaction Charge `mover` (its Line Extension in `extension`, a
/// target of its own, 13.1.1; decision 0211) (16.5): the hexes of its path (a move or a
/// retreat, `retreat`) and of its formation changes in each one's Reaction Zone. Facing
/// changes never trigger one (16.5.9): they have no path.
pub(crate) fn reaction_offers(
    ctx: &Ctx,
    mover: &str,
    extension: Option<Hex>,
    path: &[Hex],
    changes: &[Hex],
    retreat: bool,
) -> Vec<ReactionOffer> {
    let s = ctx.eng.scenario;
    let Some(m) = s.unit(mover) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (id, at) in &ctx.state.positions {
        let Some(c) = s.unit(id) else { continue };
        if c.side == m.side || !c.kind.is_cavalry() || !may_react(ctx, id) {
            continue;
        }
        let in_zone = |hexes: &[Hex]| {
            let mut out: Vec<ReactionHex> = Vec::new();
            for hex in hexes {
                if out.iter().all(|z| z.hex != *hex)
                    && let Some(z) = reaction_range(ctx, id, *at, mover, *hex)
                {
                    out.push(z);
                }
            }
            out
        };
        let hexes = in_zone(path);
        let formation_changes = in_zone(changes);
        if !hexes.is_empty() || !formation_changes.is_empty() {
            out.push(ReactionOffer {
                target: mover.to_string(),
                cavalry: id.clone(),
                side: c.side.clone(),
                cavalry_hex: *at,
                extension,
                hexes,
                formation_changes,
                retreat,
            });
        }
    }
    out
}

/// 16.5: the hex `at` of `target`'s move, formation change or retreat in the current phase at
/// which `cavalry` may Reaction Charge it — one of the hexes offered (decision 0155) — or the
/// refusal naming the rule and the hex. With `extension`, the target is `target`'s Line
/// Extension now in that hex, charged at a hex of its own move or formation change (13.1.1,
/// 13.1.3; decision 0211).
pub(crate) fn reaction_hex(
    ctx: &Ctx,
    cavalry: &str,
    target: &str,
    extension: Option<Hex>,
    at: Hex,
) -> Result<ReactionHex, Refusal> {
    let offers: Vec<ReactionOffer> = ctx
        .eng
        .reaction_offers_for(&ctx.state, target)
        .into_iter()
        .filter(|o| o.cavalry == cavalry)
        .collect();
    let hexes = |o: &ReactionOffer| -> Vec<ReactionHex> {
        o.hexes
            .iter()
            .chain(&o.formation_changes)
            .copied()
            .collect()
    };
    let found = offers
        .iter()
        .filter(|o| o.extension == extension)
        .flat_map(hexes)
        .find(|z| z.hex == at);
    if let Some(z) = found {
        return Ok(z);
    }
    let open: Vec<String> = offers
        .iter()
        .filter(|o| o.extension == extension)
        .flat_map(hexes)
        .map(|z| z.hex.to_string())
        .collect();
    // The other parts of the unit that may be charged at `at`: its Line Extensions (13.1.1)
    // or the unit itself, named so the player can aim at the right one.
    let elsewhere: Vec<String> = offers
        .iter()
        .filter(|o| o.extension != extension && hexes(o).iter().any(|z| z.hex == at))
        .map(|o| match o.extension {
            Some(h) => format!("its Line Extension now in {h} (--defender-at {h})"),
            None => "the unit itself (without --defender-at)".to_string(),
        })
        .collect();
    let who = match extension {
        Some(h) => format!("`{target}`'s Line Extension in {h}"),
        None => format!("`{target}`"),
    };
    Err(Refusal::new(
        "not-offered",
        "16.5",
        if open.is_empty() {
            format!(
                "{who} did not move, change formation or retreat in the Reaction Zone of `{cavalry}` in this phase, so not at {at}"
            )
        } else {
            format!(
                "`{cavalry}` may Reaction Charge {who} at {} in this phase, not at {at}",
                open.join(" ")
            )
        },
        if elsewhere.is_empty() {
            "a Reaction Charge answers a move in the cavalry's Reaction Zone (16.5.1): name a hex it offers".to_string()
        } else {
            format!(
                "a Reaction Charge answers a move in the cavalry's Reaction Zone (16.5.1); at {at} it is offered against {}",
                elsewhere.join(" and ")
            )
        },
    ))
}

/// 16.5.3 for a Reaction Charge by `cavalry` at `targets` in hex `at`: "A Cavalry Charge can
/// only have one Reaction Charge made against it during its charge. You are allowed to initiate
/// a Reaction Charge against another reaction charge, but ONLY if the initial Reaction Charge
/// was triggered by a non-cavalry unit. … Reaction Charges are not allowed into the target hex
/// of a charging cavalry." A cavalry unit is "charging" in a phase in which it made a charge,
/// and its charge movement and retreat are the moves it makes in it (decision 0156).
pub(crate) fn reaction_limits(
    ctx: &Ctx,
    cavalry: &str,
    targets: &[String],
    at: Hex,
) -> Result<(), Refusal> {
    const HELP: &str = "the umpire may allow it with --allow-reaction --ruling REASON";
    let s = ctx.eng.scenario;
    let phase = (ctx.state.turn, ctx.state.player);
    let charges_of = |id: &str| -> Vec<&super::state::ChargeMade> {
        ctx.state
            .movement
            .get(id)
            .into_iter()
            .flat_map(|m| &m.charges)
            .filter(|c| (c.turn, c.player) == phase)
            .collect()
    };
    // Another cavalry's charge: its target hex is not open to a Reaction Charge.
    for (id, _) in ctx.state.movement.iter().filter(|(id, _)| *id != cavalry) {
        if let Some(c) = charges_of(id).into_iter().find(|c| c.target_hex == at) {
            return Err(Refusal::new(
                "into-charge-target",
                "16.5.3",
                format!(
                    "{at} is the target hex of `{id}`'s charge at `{}` in this phase: Reaction Charges are not allowed into the target hex of a charging cavalry",
                    c.target
                ),
                HELP,
            ));
        }
    }
    for t in targets {
        if !s.unit(t).is_some_and(|u| u.kind.is_cavalry()) {
            continue;
        }
        let charges = charges_of(t);
        if charges.is_empty() {
            continue;
        }
        if let Some(c) = charges
            .iter()
            .find(|c| c.reaction && s.unit(&c.target).is_some_and(|u| u.kind.is_cavalry()))
        {
            return Err(Refusal::new(
                "reaction-against-reaction",
                "16.5.3",
                format!(
                    "`{t}`'s charge in this phase was a Reaction Charge triggered by cavalry (`{}`): it may not be answered by another Reaction Charge [hex {at}]",
                    c.target
                ),
                HELP,
            ));
        }
        let earlier = ctx.state.movement.get(t).and_then(|m| {
            m.reaction_charged
                .iter()
                .find(|r| (r.turn, r.player) == phase)
        });
        if let Some(r) = earlier {
            return Err(Refusal::new(
                "one-reaction-per-charge",
                "16.5.3",
                format!(
                    "`{t}`'s charge already had a Reaction Charge made against it in this phase, by `{}` at {} (a failed 16.5.5 Morale Check counts) [hex {at}]",
                    r.by, r.at
                ),
                HELP,
            ));
        }
    }
    Ok(())
}

/// 16.5.5: a cavalry unit that failed its Morale Check "cannot Reaction Charge the triggering
/// unit": once it has reacted to `target` in this phase (charged or failed), it does not again.
/// A Line Extension (`extension`, its hex now) is a triggering unit of its own (13.1.1; decision
/// 0211): reacting to the unit does not bar reacting to its extension, nor the other way round.
pub(crate) fn not_again(
    ctx: &Ctx,
    cavalry: &str,
    target: &str,
    extension: Option<Hex>,
    at: Hex,
) -> Result<(), Refusal> {
    let phase = (ctx.state.turn, ctx.state.player);
    let earlier = ctx.state.movement.get(target).and_then(|m| {
        m.reaction_charged
            .iter()
            .find(|r| (r.turn, r.player) == phase && r.by == cavalry && r.extension == extension)
    });
    let who = target_key(target, extension);
    match earlier {
        Some(r) => Err(Refusal::new(
            "already-reacted",
            "16.5.5",
            format!(
                "`{cavalry}` already reacted to `{who}` at {} in this phase (a failed Morale Check included): it cannot Reaction Charge it again [hex {at}]",
                r.at
            ),
            "the umpire may allow it with --allow-reaction --ruling REASON",
        )),
        None => Ok(()),
    }
}

/// The formation `unit` had at hex `at` of its path in the current phase (16.5 trigger a: the
/// charge "takes place after the unit has entered the hex"): the one it left for its first
/// formation change farther along the path, else its formation now. `None` if `at` is not on
/// its path or nothing changed after it.
pub(crate) fn formation_at(
    state: &GameState,
    unit: &str,
    at: Hex,
) -> Option<crate::scenario::UnitFormation> {
    let path = path_this_phase(state, unit)?;
    let i = path.iter().position(|h| *h == at)?;
    changes_this_phase(state, unit)
        .filter_map(|c| {
            let j = path.iter().position(|h| *h == c.hex)?;
            (j > i).then_some((j, c.from))
        })
        .min_by_key(|(j, _)| *j)
        .map(|(_, f)| f)
}

/// The formation `unit`'s Line Extension now in `ext` had at `at`, a hex of its own path in the
/// current phase (16.5 trigger a, 17.4; decision 0211): where it stands, its formation now; at
/// an earlier hex, Line, or Square if it moved its one hex in Square (8.3.2) — a Square formed
/// against a charge in this phase was formed where it stands, after it passed `at` (16.2.1,
/// 8.3.1.1). `None` if it has no extension in `ext`.
pub(crate) fn extension_formation_at(
    state: &GameState,
    unit: &str,
    ext: Hex,
    at: Hex,
) -> Option<UnitFormation> {
    let p = super::extensions::part(state, unit, ext)?;
    Some(
        if at != ext && p.square == Some((state.turn, state.player)) {
            UnitFormation::Line
        } else {
            p.formation()
        },
    )
}

/// 8.3.2 with 13.2.1 and 10.0: one of `unit`'s Line Extensions moved its one hex in Square this
/// phase from `at`, so it faced every way there (decision 0211). Where the parent's own path
/// passed `at` too, the parent is read (decision 0189).
pub(crate) fn extension_square_left(state: &GameState, unit: &str, at: Hex) -> bool {
    if path_this_phase(state, unit).is_some_and(|p| p.contains(&at)) {
        return false;
    }
    state
        .movement
        .get(unit)
        .into_iter()
        .flat_map(|m| &m.extension_parts)
        .filter(|p| p.hex != at)
        .any(|p| {
            extension_path_this_phase(state, unit, p.hex).contains(&at)
                && extension_formation_at(state, unit, p.hex, at) == Some(UnitFormation::Square)
        })
}

/// The corner `unit` faced at `at`, a hex of the path it moved along this phase before the hex
/// it ended in (10.0): fire or a charge there reads its flank and rear from it (10, 16.5.2;
/// decision 0183). `None` at the hex it stands in (its facing now decides), off the path, or
/// for a move recorded without facings (older files, all-around frontal facing).
pub(crate) fn facing_at(
    state: &GameState,
    unit: &str,
    at: Hex,
) -> Option<crate::movement::facing::Corner> {
    let path = path_this_phase(state, unit)?;
    let i = path.iter().position(|h| *h == at)?;
    if i + 1 >= path.len() {
        return None;
    }
    state.movement.get(unit)?.last_facings.get(i).copied()
}

/// The corner one of `unit`'s Line Extensions faced at `at`, an earlier hex of the path it
/// moved along on its own this phase (not the hex it stands in): 13.1.1, 10.0, decision 0189.
pub(crate) fn extension_facing_at(
    state: &GameState,
    unit: &str,
    at: Hex,
) -> Option<crate::movement::facing::Corner> {
    let phase = (state.turn, state.player);
    state
        .movement
        .get(unit)?
        .extension_parts
        .iter()
        .filter(|p| p.moved.is_some_and(|m| (m.turn, m.player) == phase))
        .filter(|p| p.last_path_in == Some(phase))
        .find_map(|p| {
            let i = p.last_path.iter().position(|h| *h == at)?;
            (i + 1 < p.last_path.len())
                .then(|| p.last_facings.get(i).copied())
                .flatten()
        })
}

/// 16.5 with 16.5.6, 16.5.7: a Reaction Charge at hex `at` of `target`'s path that Routs it,
/// makes it form Square or sends it back (`retreats`) ends its move there: the rest of the path
/// was not travelled (as `stop_move` for Opportunity Fire). Not stopped, a non-cavalry unit
/// continues "with any remaining MPs" (the charge spends none), so it stands where it ended.
pub(crate) fn stop_reacted(
    ctx: &mut Ctx,
    side: &str,
    target: &str,
    at: Hex,
    formed_square: bool,
    retreats: bool,
) {
    let routed = ctx
        .state
        .units
        .get(target)
        .is_some_and(|u| u.morale == MoraleState::Routed);
    let why = if routed {
        "Routed by the Reaction Charge"
    } else if formed_square {
        "formed Square against the Reaction Charge, which ends its move (16.5.6, 8.3.1.1)"
    } else if retreats {
        "retreats after the Reaction Charge (16.5.7, 16.4.3)"
    } else {
        return;
    };
    move_stopped(
        ctx,
        side,
        target,
        at,
        "16.5",
        format!("{why} at {at}: its movement stops there"),
        0,
    );
}

/// 22.1: the hexes a Cavalry Withdrawal covers, "6-12 hexes".
pub const WITHDRAWAL_HEXES: std::ops::RangeInclusive<usize> = 6..=12;

/// A Cavalry Withdrawal owed (22.1): enemy infantry or artillery moved adjacent to `cavalry`,
/// which must Reaction Charge it or withdraw 6–12 hexes (`must_withdraw`: it may not charge,
/// 22.1.1, 22.1.3). Computed from the state, like the offers (decision 0157).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WithdrawalOwed {
    pub cavalry: String,
    /// The cavalry's side (the one that chooses).
    pub side: String,
    /// Where the cavalry stood when the enemy came adjacent.
    pub cavalry_hex: Hex,
    /// The unit that moved adjacent, and where it stands: the withdrawal's cause (21.4.1).
    pub mover: String,
    pub mover_hex: Hex,
    /// It may not Reaction Charge: Blown, Disorganized, Routed, unable to charge (22.1.1), or
    /// Limbered Horse Artillery (22.1.3).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub must_withdraw: bool,
}

/// Where `unit` stood at the start of its withdrawal in this phase, if it made one (a move
/// along a path without MP: `move --retreat-from`), and how many hexes it went.
fn withdrawn(state: &GameState, unit: &str) -> Option<(Hex, usize)> {
    let (t, p, path) = state.movement.get(unit)?.last_retreat.as_ref()?;
    ((*t, *p) == (state.turn, state.player))
        .then(|| path.first().map(|h| (*h, path.len().saturating_sub(1))))
        .flatten()
}

/// 22.1: "If, during movement, an infantry and/or artillery stack moves adjacent to an enemy
/// cavalry unit, that cavalry unit has the choice of immediately Reaction Charging the moving
/// unit, or withdrawing 6-12 hexes … The cavalry unit can NOT choose to remain in its current
/// hex." Owed by each enemy cavalry unit (and Limbered Horse Artillery, 22.1.3) next to a hex
/// the mover entered in this phase, until it Reaction Charges the mover or withdraws 6–12
/// hexes. A failed 16.5.5 Morale Check settles nothing: the cavalry "is forced to withdraw".
pub(crate) fn withdrawals_owed(ctx: &Ctx) -> Vec<WithdrawalOwed> {
    let s = ctx.eng.scenario;
    let state = &ctx.state;
    let phase = (state.turn, state.player);
    let mut out = Vec::new();
    for (mover, mover_hex) in &state.positions {
        let Some(m) = s.unit(mover) else { continue };
        if !(m.kind.is_infantry() || m.kind.is_artillery()) {
            continue;
        }
        let Some(path) = path_this_phase(state, mover) else {
            continue;
        };
        for (id, now) in &state.positions {
            let Some(c) = s.unit(id) else { continue };
            if c.side == m.side {
                continue;
            }
            let horse_artillery = matches!(
                c.kind,
                UnitKind::ArtilleryLightHorse | UnitKind::ArtilleryHeavyHorse
            ) && super::movement::formation_now(s, state, c)
                == crate::scenario::UnitFormation::Limbered;
            if !c.kind.is_cavalry() && !horse_artillery {
                continue;
            }
            let (was, went) = withdrawn(state, id).unwrap_or((*now, 0));
            if !path[1..].iter().any(|h| h.distance(was) == 1) {
                continue;
            }
            if WITHDRAWAL_HEXES.contains(&went) {
                continue;
            }
            let charged = state.movement.get(id).is_some_and(|x| {
                x.charges
                    .iter()
                    .any(|ch| (ch.turn, ch.player) == phase && ch.target == *mover)
            });
            if charged {
                continue;
            }
            let st = state.units.get(id).cloned().unwrap_or_default();
            out.push(WithdrawalOwed {
                cavalry: id.clone(),
                side: c.side.clone(),
                cavalry_hex: was,
                mover: mover.clone(),
                mover_hex: *mover_hex,
                must_withdraw: horse_artillery
                    || st.blown
                    || st.morale <= MoraleState::Disorganized
                    || !may_react(ctx, id),
            });
        }
    }
    out
}

/// 22.1 at the end of a phase: the phase does not end while a Cavalry Withdrawal is owed (as
/// 9.2's over-stacked hexes, decision 0084); the umpire may place the cavalry with `override
/// --place` and a reason (decision 0157).
pub(crate) fn must_withdraw(ctx: &Ctx) -> Result<(), Refusal> {
    let Some(w) = withdrawals_owed(ctx).into_iter().next() else {
        return Ok(());
    };
    Err(Refusal::new(
        "withdrawal-owed",
        "22.1",
        format!(
            "`{}` ({}) at {} has `{}` adjacent: it must {}withdraw 6–12 hexes before the phase ends [hex {}]",
            w.cavalry,
            w.side,
            w.cavalry_hex,
            w.mover,
            if w.must_withdraw {
                ""
            } else {
                "Reaction Charge it (`combat charge --reaction --at HEX`) or "
            },
            w.cavalry_hex
        ),
        format!(
            "withdraw with `move --piece {} --retreat-from {} --to HEX --path …` (6–12 hexes); the umpire may place it with `override --place {}=HEX` and a reason",
            w.cavalry, w.mover_hex, w.cavalry
        ),
    ))
}

/// 22.1: a withdrawal `unit` owes is 6–12 hexes; `None` when it owes none.
pub(crate) fn withdrawal_length(ctx: &Ctx, unit: &str, hexes: usize) -> Option<Refusal> {
    let w = withdrawals_owed(ctx)
        .into_iter()
        .find(|w| w.cavalry == unit)?;
    (!WITHDRAWAL_HEXES.contains(&hexes)).then(|| {
        Refusal::new(
            "withdrawal-length",
            "22.1",
            format!(
                "`{unit}` withdraws from `{}` 6–12 hexes (22.1); the path has {hexes} [hex {}]",
                w.mover, w.cavalry_hex
            ),
            "give 6 to 12 hexes",
        )
    })
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

    /// The Opportunity Fire `unit`'s activity in the current Movement Phase offers (17.4): its
    /// path and its formation changes; no die is rolled.
    pub fn opportunity_offers_for(&self, state: &GameState, unit: &str) -> Vec<OpportunityOffer> {
        let path = path_this_phase(state, unit).unwrap_or_default();
        let extension_moved = state.movement.get(unit).is_some_and(|m| {
            m.extension_parts.iter().any(|p| {
                !extension_path_this_phase(state, unit, p.hex).is_empty()
                    || !extension_changes_this_phase(state, unit, p.hex).is_empty()
            })
        });
        if path.is_empty() && !extension_moved && offered_changes_this_phase(state, unit).is_empty()
        {
            return Vec::new();
        }
        self.opportunity_offers(state, unit, &path)
    }

    /// The Reaction Charges `unit`'s activity in the current phase offers (16.5): its move, its
    /// formation changes and its retreat (16.5.2: "in any phase"); and each of its Line
    /// Extensions' own, apart (13.1.1, 13.1.3; decision 0211); no die is rolled.
    pub fn reaction_offers_for(&self, state: &GameState, unit: &str) -> Vec<ReactionOffer> {
        let path = path_this_phase(state, unit).unwrap_or_default();
        let changes = offered_changes_this_phase(state, unit);
        let retreat = state
            .movement
            .get(unit)
            .and_then(|m| m.last_retreat.as_ref())
            .filter(|(t, p, _)| (*t, *p) == (state.turn, state.player))
            .map(|(_, _, path)| path.clone())
            .unwrap_or_default();
        // 13.1.1: a Line Extension has "the same movement … and target characteristics as any
        // other unit"; 13.1.3: its generation "is considered movement by the Line Extension for
        // all purposes (such as … Reaction Charges …)". Its own path and its change out of
        // Square (8.3.3) are triggers a–d and b of its own, as for Opportunity Fire (17.4.2).
        let parts: Vec<(Hex, Vec<Hex>, Vec<Hex>)> = state
            .movement
            .get(unit)
            .map_or(&[][..], |m| &m.extension_parts[..])
            .iter()
            .map(|p| {
                (
                    p.hex,
                    extension_path_this_phase(state, unit, p.hex),
                    extension_changes_this_phase(state, unit, p.hex),
                )
            })
            .filter(|(_, own, changed)| !own.is_empty() || !changed.is_empty())
            .collect();
        if path.is_empty() && changes.is_empty() && retreat.is_empty() && parts.is_empty() {
            return Vec::new();
        }
        let mut dice = crate::rules::dice::ScriptedDice::new();
        let ctx = Ctx::preview(self, state, &mut dice);
        let mut out = Vec::new();
        if !path.is_empty() || !changes.is_empty() {
            out.extend(reaction_offers(&ctx, unit, None, &path, &changes, false));
        }
        if !retreat.is_empty() {
            out.extend(reaction_offers(&ctx, unit, None, &retreat, &[], true));
        }
        for (hex, own, changed) in parts {
            out.extend(reaction_offers(
                &ctx,
                unit,
                Some(hex),
                &own,
                &changed,
                false,
            ));
        }
        out
    }

    /// The Cavalry Withdrawals owed in the current phase (22.1): the umpire's pending items
    /// beside the Reaction Charges.
    pub fn withdrawals_pending(&self, state: &GameState) -> Vec<WithdrawalOwed> {
        let mut dice = crate::rules::dice::ScriptedDice::new();
        let ctx = Ctx::preview(self, state, &mut dice);
        withdrawals_owed(&ctx)
    }

    /// Every unit's Reaction Charges open in the current phase (16.5): the umpire's pending
    /// items beside the Opportunity Fire.
    pub fn reaction_pending(&self, state: &GameState) -> Vec<ReactionOffer> {
        state
            .movement
            .keys()
            .flat_map(|u| self.reaction_offers_for(state, u))
            .collect()
    }

    /// Every unit that moved or changed formation in the current Movement Phase and the
    /// Opportunity Fire it offers (17.4): the umpire's pending items.
    pub fn opportunity_pending(&self, state: &GameState) -> Vec<OpportunityOffer> {
        state
            .movement
            .keys()
            .flat_map(|u| self.opportunity_offers_for(state, u))
            .collect()
    }
}
