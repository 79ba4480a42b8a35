//! Retreats (21.4) carried out as moves: `move --piece P --retreat-from CAUSE --path …`. Owns the
//! checks of a retreat's path — hexes, not MP (21.4); the first two hexes away from the cause
//! (21.4.1); never closer to enemy combat units within 4 hexes (21.4.1 with its clarification);
//! not into enemy units or Prohibited terrain (21.4.2); a Routed unit retreats 6 hexes (21.4) —
//! and what a retreat does on the way: Morale Degradation from one enemy ZoI hex directly into
//! another (11.3.1), a Routed unit lowering the friendly stacks it passes through (21.4.4),
//! Unlimbered artillery limbering (21.4.6), terrain that Shakes or Disorganizes (21.4.7,
//! decision 0165). The retreating unit may then face as it likes (10.1.3; the `piece-moved`
//! carries no MP). Decision 0141. Also which Routed stacks must retreat at the end of their
//! Rally Phase, and how far (21.5 F; decision 0164), and the removal of a unit that cannot
//! retreat as it must (21.4.2; decision 0169).
//!
//! Must not: do IO, roll dice or decide which units a combat makes retreat (the combat result
//! says so; the owner or the umpire carries it out, in either player's turn).

use super::event::{EventKind, Visibility};
use super::state::RetreatDue;
use super::{Ctx, Refusal};
use crate::combat::MoraleState;
use crate::hex::Hex;
use crate::scenario::{Unit, UnitFormation, UnitKind};

/// The most hexes a retreat may take (22.1: cavalry withdraws up to 12).
const MAX_HEXES: usize = 12;
/// A Routed unit retreats this many hexes (21.4).
const ROUT_HEXES: usize = 6;
/// A Routed stack ends the Rally Phase at least this many hexes from the enemy (21.5 F).
const RALLY_CLEAR_OF: u32 = 6;

fn no(code: &'static str, rule: &'static str, msg: String, help: &str) -> Refusal {
    Refusal::new(
        code,
        rule,
        msg,
        format!("{help}; the umpire may place it anyway with `override --place` and a reason"),
    )
}

/// The Movement Table class a retreating unit crosses terrain as (chart p2): artillery limbers
/// to retreat (21.4.6).
fn class_of(u: &Unit, f: UnitFormation) -> &'static str {
    match (u.kind, f) {
        (UnitKind::Skirmisher, _) => "skirmish",
        (k, _) if k.is_artillery() => "artillery",
        (k, _) if k.is_cavalry() => "cavalry",
        (UnitKind::Train, _) => "train",
        (_, UnitFormation::Column | UnitFormation::MarchColumn) => "column",
        _ => "line",
    }
}

/// The closest enemy combat unit (not commanders, HQs or trains; Line Extensions count): its
/// distance in hexes and its hex, the first by piece id among equals; `None` with no enemy.
fn closest_enemy(ctx: &Ctx, side: &str, at: Hex) -> Option<(u32, Hex)> {
    let s = ctx.eng.scenario;
    ctx.state
        .positions
        .iter()
        .filter(|(p, _)| {
            s.unit(p)
                .is_some_and(|u| u.side != side && u.kind != UnitKind::Train)
        })
        .map(|(_, h)| (h.distance(at), *h))
        .chain(
            super::extensions::all(ctx, None)
                .into_iter()
                .filter(|(p, _)| s.unit(p).is_some_and(|u| u.side != side))
                .map(|(_, h)| (h.distance(at), h)),
        )
        .min_by_key(|(d, _)| *d)
}

/// Hexes to the nearest enemy combat unit, if any.
fn nearest_enemy(ctx: &Ctx, side: &str, at: Hex) -> Option<u32> {
    closest_enemy(ctx, side, at).map(|(d, _)| d)
}

/// 21.5 F: "Any remaining Routed stacks that are within 6 hexes of enemy units, retreat as
/// described in 21.4"; the 21.4 sidebar says how far: "A Routed unit that is less than 6 hexes
/// from any enemy units at the end of the friendly Rally Phase is immediately retreated until it
/// is 6 hexes away from the closest enemy unit. Otherwise, it stays in place." The retreat a
/// Routed unit of `side` at `at` owes, away from the closest enemy combat unit, and that unit's
/// distance; `None` when it is 6 or more hexes away (decision 0164).
pub(super) fn rally_rout_due(
    ctx: &Ctx,
    side: &str,
    unit: &str,
    at: Hex,
) -> Option<(RetreatDue, u32)> {
    let (d, cause) = closest_enemy(ctx, side, at)?;
    if d >= RALLY_CLEAR_OF {
        return None;
    }
    let retreat = RetreatDue {
        unit: unit.to_string(),
        cause,
        // Each hex puts it at most one hex farther away.
        min: (RALLY_CLEAR_OF - d) as u8,
        max: MAX_HEXES as u8,
        came_from: None,
        clear_of: Some(RALLY_CLEAR_OF as u8),
    };
    Some((retreat, d))
}

/// 21.4 (decision 0164): a unit that has just Routed outside combat (a Morale Degradation,
/// 11.3.2, 9.2, 12.1.5, 21.4.4) owes a retreat of 6 hexes away from the closest enemy combat
/// unit ("A unit that becomes Routed, from whatever cause, is immediately retreated 6 hexes away
/// from the closest enemy unit", 21.4 sidebar). Nothing is owed off the map or with no enemy.
pub(super) fn rout_retreat(ctx: &mut Ctx, side: &str, unit: &str) {
    let Some(at) = ctx.state.positions.get(unit).copied() else {
        return;
    };
    let Some((nearest, cause)) = closest_enemy(ctx, side, at) else {
        return;
    };
    let retreat = RetreatDue {
        unit: unit.to_string(),
        cause,
        min: ROUT_HEXES as u8,
        max: ROUT_HEXES as u8,
        came_from: None,
        clear_of: None,
    };
    ctx.emit_side(side, EventKind::RoutRetreatRequired { retreat, nearest });
    remove_if_trapped(ctx, unit);
}

/// 8.3.1.2: "Squares that become Routed of course enter Routed formation instead." The engine
/// carries the Routed formation as the Routed Morale State (8.1: "Routed formation, which is also
/// a Morale State (21.1)"; a Routed unit's facing is all-around rear, it has no ZoI and moves only
/// by retreating) over the formation it keeps under the marker; a Square cannot be that — it may
/// not move more than one hex (8.3.2) and a Rout retreats six (21.4). So a unit in Square that
/// is Routed leaves it at once for Column, the formation the rulebook gives a Square that breaks
/// down (8.3.2 a failed Square move, 8.3.4 Close Combat): `formation-changed` Square → Column, 0
/// MP, rule 8.3.1.2, before its retreat. Not an Opportunity Fire or Reaction Charge trigger
/// (17.4.5, 16.5.9: a Rout is no voluntary formation change). Decision 0199.
pub(super) fn routed_square_breaks(ctx: &mut Ctx, unit: &str) {
    let Some(side) = ctx.eng.scenario.unit(unit).map(|u| u.side.clone()) else {
        return;
    };
    routed_square_breaks_seen(ctx, unit, Visibility::Side(side));
}

/// `routed_square_breaks` with the change seen as `visibility` says: the umpire's
/// `override --set-unit … --morale-state routed` is his own record, and so is the Square it
/// breaks (8.3.1.2, decision 0206).
pub(super) fn routed_square_breaks_seen(ctx: &mut Ctx, unit: &str, visibility: Visibility) {
    let s = ctx.eng.scenario;
    let Some(u) = s.unit(unit) else { return };
    let routed = ctx
        .state
        .units
        .get(unit)
        .is_some_and(|x| x.morale == MoraleState::Routed);
    if !routed || super::movement::formation_now(s, &ctx.state, u) != UnitFormation::Square {
        return;
    }
    ctx.emit(
        visibility,
        EventKind::FormationChanged {
            unit: unit.to_string(),
            from: UnitFormation::Square,
            to: UnitFormation::Column,
            half_mp: 0,
            rule: ROUTED_SQUARE.into(),
            extension: None,
        },
    );
}

/// The rule of a Square's breaking when it Routs (8.3.1.2, decision 0199).
pub(crate) const ROUTED_SQUARE: &str = "8.3.1.2";

/// 21.5 F (decision 0164): the side's Routed units on the map fewer than 6 hexes from the enemy
/// as its Rally Phase ends each owe a retreat, recorded like a combat's (decision 0147).
pub(super) fn rally_rout_retreats(ctx: &mut Ctx, side: &str) {
    let s = ctx.eng.scenario;
    let routed: Vec<(String, Hex)> = ctx
        .state
        .positions
        .iter()
        .filter(|(p, _)| s.unit(p).is_some_and(|u| u.side == side))
        .filter(|(p, _)| {
            ctx.state
                .units
                .get(*p)
                .is_some_and(|x| x.morale == MoraleState::Routed)
        })
        .map(|(p, h)| (p.clone(), *h))
        .collect();
    for (unit, at) in routed {
        if let Some((retreat, nearest)) = rally_rout_due(ctx, side, &unit, at) {
            ctx.emit_side(side, EventKind::RoutRetreatRequired { retreat, nearest });
            remove_if_trapped(ctx, &unit);
        }
    }
}

/// The retreat the combat required (decision 0147): from its cause, for as many hexes as its
/// result said; or the Rally Phase's (21.5 F, decision 0164): until the unit is 6 hexes from
/// the closest enemy unit, and no farther.
fn check_due(
    ctx: &Ctx,
    side: &str,
    d: &RetreatDue,
    path: &[Hex],
    cause: Hex,
) -> Result<(), Refusal> {
    let hexes = path.len();
    if cause != d.cause {
        return Err(no(
            "retreat-cause",
            "21.4.1",
            format!(
                "`{}` must retreat from {}, the cause the combat gave, not {cause} [hex {cause}]",
                d.unit, d.cause
            ),
            &format!("give --retreat-from {}", d.cause),
        ));
    }
    if let Some(clear) = d.clear_of {
        return check_clear_of(ctx, side, d, path, u32::from(clear));
    }
    let (min, max) = (usize::from(d.min), usize::from(d.max));
    if (min..=max).contains(&hexes) {
        return Ok(());
    }
    let want = if min == max {
        format!("{min}")
    } else {
        format!("{min} to {max}")
    };
    let back = d.came_from.map_or(String::new(), |h| {
        format!(
            " beyond {h}, the hex it came from, which is its retreat's first hex (21.4.1: \"the first hex has to be the hex it came from for the attacker\")"
        )
    });
    Err(no(
        "retreat-length",
        "21.4",
        format!(
            "the combat requires `{}` to retreat {want} hexes{back}; the path has {hexes}",
            d.unit
        ),
        "a unit that cannot retreat the required number of hexes is removed (21.4.2)",
    ))
}

/// 21.5 F with the 21.4 sidebar: the Routed stack retreats "until it is 6 hexes away from the
/// closest enemy unit": its last hex is that far from every enemy combat unit and no hex
/// before it is (it stops there).
fn check_clear_of(
    ctx: &Ctx,
    side: &str,
    d: &RetreatDue,
    path: &[Hex],
    clear: u32,
) -> Result<(), Refusal> {
    let away = |h: Hex| nearest_enemy(ctx, side, h).unwrap_or(u32::MAX);
    let last = path.len() - 1;
    for (i, &h) in path.iter().enumerate() {
        let far = away(h);
        if i < last && far >= clear {
            return Err(no(
                "rout-past-clear",
                "21.5",
                format!(
                    "`{}` is {far} hexes from the closest enemy unit at {h}, hex {} of the {}: a Routed stack \"is immediately retreated until it is 6 hexes away from the closest enemy unit\" and stops there (21.5 F) [hex {h}]",
                    d.unit,
                    i + 1,
                    path.len()
                ),
                &format!("end the retreat at {h}"),
            ));
        }
        if i == last && far < clear {
            return Err(no(
                "rout-not-clear",
                "21.5",
                format!(
                    "`{}` would end at {h}, {far} hexes from the closest enemy unit: a Routed stack retreats until it is {clear} hexes away (21.5 F) [hex {h}]",
                    d.unit
                ),
                "go on until it is 6 hexes from every enemy combat unit; a unit that cannot is removed (21.4.2)",
            ));
        }
    }
    Ok(())
}

/// Check a retreat's path against 21.4, 21.4.1 and 21.4.2; `path` runs from the first hex
/// entered to the last.
fn check_path(
    ctx: &Ctx,
    u: &Unit,
    from: Hex,
    path: &[Hex],
    cause: Hex,
    routed: bool,
    due: Option<&RetreatDue>,
) -> Result<(), Refusal> {
    let id = &u.id;
    if path.is_empty() || path.len() > MAX_HEXES {
        return Err(no(
            "retreat-length",
            "21.4",
            format!(
                "a retreat of {} hexes: give 1 to {MAX_HEXES} hexes",
                path.len()
            ),
            "a beaten unit retreats one hex (15.3.8), a Routed one 6 (21.4), cavalry 6–12 (16.2)",
        ));
    }
    if let Some(d) = due {
        check_due(ctx, &u.side, d, path, cause)?;
    } else if routed && path.len() != ROUT_HEXES {
        return Err(no(
            "rout-six-hexes",
            "21.4",
            format!(
                "`{id}` is Routed and retreats {ROUT_HEXES} hexes (21.4: \"a unit that becomes Routed immediately retreats 6 hexes\"); the path has {}",
                path.len()
            ),
            "give six hexes; a unit that cannot retreat them is removed (21.4.2)",
        ));
    }
    // 22.1: a Cavalry Withdrawal owed is this move without a combat's retreat: 6–12 hexes.
    if due.is_none()
        && let Some(r) = super::opportunity::withdrawal_length(ctx, id, path.len())
    {
        return Err(r);
    }
    let f = super::movement::formation_now(ctx.eng.scenario, &ctx.state, u);
    let class = class_of(u, f);
    // Far causes (artillery fire beyond 2 hexes) do not fix the first two hexes (21.4.1).
    let near_cause = from.distance(cause) <= 2;
    let mut prev = from;
    for (i, &h) in path.iter().enumerate() {
        check_step(ctx, u, class, (i, prev, h), cause, near_cause, false)?;
        prev = h;
    }
    Ok(())
}

/// One step of a retreat, the `i`th hex entered, from `prev` into `h` (21.4, 21.4.1, 21.4.2);
/// `through_prohibited` lets it cross Prohibited terrain (21.4.2's Stragglers exception).
fn check_step(
    ctx: &Ctx,
    u: &Unit,
    class: &str,
    (i, prev, h): (usize, Hex, Hex),
    cause: Hex,
    near_cause: bool,
    through_prohibited: bool,
) -> Result<(), Refusal> {
    let map = &ctx.eng.move_map;
    let t = ctx.eng.movement;
    let enemy_at = |h: Hex| {
        ctx.state
            .positions
            .iter()
            .any(|(p, x)| *x == h && ctx.eng.scenario.unit(p).is_some_and(|o| o.side != u.side))
            || super::extensions::all(ctx, None)
                .iter()
                .any(|(p, x)| *x == h && ctx.eng.scenario.unit(p).is_some_and(|o| o.side != u.side))
    };
    if !prev.is_adjacent(h) {
        return Err(no(
            "retreat-not-adjacent",
            "21.4",
            format!("{h} is not next to {prev}: a retreat goes hex by hex [hex {h}]"),
            "list every hex of the retreat with --path",
        ));
    }
    if !crate::space::Space::contains(&ctx.eng.space, h) {
        return Err(no(
            "off-map",
            "21.4.2",
            format!("{h} is off the map [hex {h}]"),
            "a unit that cannot retreat is removed (21.4.2)",
        ));
    }
    if enemy_at(h) {
        return Err(no(
            "retreat-into-enemy",
            "21.4.2",
            format!("{h} holds enemy units: a retreat may not enter it [hex {h}]"),
            "retreat round them; a unit that cannot retreat is removed (21.4.2)",
        ));
    }
    if !through_prohibited {
        crate::movement::path::step_cost(map, t, class, prev, h, false).map_err(|e| {
            no(
                "retreat-prohibited",
                "21.4.2",
                format!("{} [hex {h}]", e.message),
                "a unit that can retreat only into Prohibited terrain is removed (21.4.2)",
            )
        })?;
    }
    if i < 2 && near_cause && h.distance(cause) <= prev.distance(cause) {
        return Err(no(
            "retreat-toward-cause",
            "21.4.1",
            format!(
                "{h} is not farther from {cause} than {prev}: \"the first two hexes of a retreat must be further away from the cause of the retreat\" [hex {h}]"
            ),
            "step away from the cause",
        ));
    }
    if let (Some(before), Some(after)) = (
        nearest_enemy(ctx, &u.side, prev),
        nearest_enemy(ctx, &u.side, h),
    ) && after <= 4
        && after < before
    {
        return Err(no(
            "retreat-toward-enemy",
            "21.4.1",
            format!(
                "{h} is {after} hexes from the nearest enemy combat unit, {prev} was {before}: \"no hex entered during the retreat may be closer to enemy combat units within 4 hexes than the previous hex\" [hex {h}]"
            ),
            "keep at least as far from the enemy as the hex before",
        ));
    }
    Ok(())
}

/// Carry out a retreat of `unit` along `path` (ending at `to`) away from `cause` (21.4).
pub(super) fn retreat(
    ctx: &mut Ctx,
    unit: &str,
    to: Hex,
    path: &[Hex],
    cause: Hex,
) -> Result<(), Refusal> {
    let s = ctx.eng.scenario;
    let u = s.unit(unit).ok_or_else(|| {
        Refusal::new(
            "not-a-unit",
            "21.4",
            format!("`{unit}` is not a combat unit: only units retreat"),
            "commanders and HQs move with `move`",
        )
    })?;
    let from = ctx.state.positions.get(unit).copied().ok_or_else(|| {
        Refusal::new(
            "not-on-map",
            "21.4",
            format!("`{unit}` is not on the map"),
            "",
        )
    })?;
    // A one-hex retreat may be given by its destination alone.
    let path: Vec<Hex> = if path.is_empty() {
        vec![to]
    } else {
        path.to_vec()
    };
    if path.last() != Some(&to) {
        return Err(no(
            "path-end",
            "21.4",
            format!("the retreat's --path must end at --to {to}"),
            "end the path at the destination",
        ));
    }
    let morale = |ctx: &Ctx| {
        ctx.state
            .units
            .get(unit)
            .map(|x| x.morale)
            .unwrap_or_default()
    };
    let routed = morale(ctx) == MoraleState::Routed;
    let due = ctx
        .state
        .movement
        .get(unit)
        .and_then(|m| m.retreat_due.clone());
    check_path(ctx, u, from, &path, cause, routed, due.as_ref())?;
    let side = u.side.clone();
    // 13.0: extensions end every phase next to their parent; a retreating unit takes them with
    // it (as a Routed one collapses, 13.3.1), for nothing.
    let extensions = super::extensions::of(&ctx.state, unit);
    if !extensions.is_empty() {
        ctx.emit_side(
            &side,
            EventKind::LineRetracted {
                unit: unit.to_string(),
                hexes: extensions,
                half_mp: 0,
                eliminated: false,
            },
        );
    }
    // 21.4.6: artillery limbers to retreat.
    let f = super::movement::formation_now(s, &ctx.state, u);
    if u.kind.is_artillery() && f == UnitFormation::Unlimbered {
        ctx.emit_side(
            &side,
            EventKind::FormationChanged {
                unit: unit.to_string(),
                from: f,
                to: UnitFormation::Limbered,
                half_mp: 0,
                rule: "21.4.6".into(),
                extension: None,
            },
        );
    }
    // 11.3.1: "A unit retreats from one ZoI hex directly into another."
    let zoi = super::zones::enemy_zoi(ctx, &side);
    ctx.retreating = Some(unit.to_string());
    let class = class_of(u, f);
    let mut prev = from;
    for &h in &path {
        if zoi.contains(&prev) && zoi.contains(&h) && morale(ctx) != MoraleState::Routed {
            super::zones::degrade(
                ctx,
                &side,
                unit,
                "11.3.1",
                format!(
                    "retreated from one enemy Zone of Influence hex ({prev}) directly into another ({h})"
                ),
                0,
            );
        }
        // 21.4.7: "A retreating unit that enters terrain that would cause it to become Shaken or
        // DG suffers the effect just as a voluntarily moving unit would" — after the step's
        // Morale Degradation (12.2.5); a retreat never uses Road Movement (decision 0165).
        super::zones::terrain_entry(ctx, &side, unit, None, class, prev, h, "21.4.7");
        prev = h;
    }
    // 21.4.4: a Routed stack retreating through a friendly stack lowers that stack by one.
    if routed {
        for &h in &path[..path.len() - 1] {
            let through: Vec<String> = ctx
                .state
                .positions
                .iter()
                .filter(|(p, x)| {
                    **x == h && p.as_str() != unit && s.unit(p).is_some_and(|o| o.side == side)
                })
                .map(|(p, _)| p.clone())
                .collect();
            for other in through {
                if ctx
                    .state
                    .units
                    .get(&other)
                    .is_some_and(|x| x.morale == MoraleState::Routed)
                {
                    continue;
                }
                super::zones::degrade(
                    ctx,
                    &side,
                    &other,
                    "21.4.4",
                    format!("`{unit}` routed through its hex {h}"),
                    0,
                );
            }
        }
    }
    ctx.retreating = None;
    let mut full = vec![from];
    full.extend(&path);
    ctx.emit_side(
        &side,
        EventKind::PieceMoved {
            left: Vec::new(),
            facings: Vec::new(),
            piece: unit.to_string(),
            from: Some(from),
            to,
            path: full,
            half_mp: None,
        },
    );
    // 21.4: routed on the way, it owes 6 hexes more from where it stands now.
    if !routed && morale(ctx) == MoraleState::Routed {
        rout_retreat(ctx, &side, unit);
    }
    Ok(())
}

/// Can `u`, owing `d`, make its retreat from `from` (21.4, 21.4.1)? A search over the hexes it
/// could stand in after each step (each step's legality depends only on the step and whether
/// it is one of the first two, so a layer of hexes is enough): a retreat of `min` hexes, or
/// for 21.5 F one that reaches a hex 6 hexes from the enemy. `through_prohibited` for 21.4.2's
/// Stragglers exception.
fn can_retreat(ctx: &Ctx, u: &Unit, from: Hex, d: &RetreatDue, through_prohibited: bool) -> bool {
    let f = super::movement::formation_now(ctx.eng.scenario, &ctx.state, u);
    let class = class_of(u, f);
    let near_cause = from.distance(d.cause) <= 2;
    let clear = d.clear_of.map(u32::from);
    let is_clear =
        |h: Hex| clear.is_some_and(|c| nearest_enemy(ctx, &u.side, h).unwrap_or(u32::MAX) >= c);
    let steps = if clear.is_some() {
        MAX_HEXES
    } else {
        usize::from(d.min)
    };
    if steps == 0 {
        return true;
    }
    let mut layer = std::collections::BTreeSet::from([from]);
    for i in 0..steps {
        let mut next = std::collections::BTreeSet::new();
        for &prev in &layer {
            for h in prev.neighbours() {
                if check_step(
                    ctx,
                    u,
                    class,
                    (i, prev, h),
                    d.cause,
                    near_cause,
                    through_prohibited,
                )
                .is_ok()
                {
                    next.insert(h);
                }
            }
        }
        if clear.is_some() {
            if next.iter().any(|h| is_clear(*h)) {
                return true;
            }
        } else if i + 1 == steps {
            return !next.is_empty();
        }
        if next.is_empty() {
            return false;
        }
        layer = next;
    }
    false
}

/// 21.4.2: "If a unit cannot retreat the required number of hexes, due to the enemy or
/// Prohibited terrain, it is removed. For infantry and cavalry units, the remainder of its
/// strength is marked off as Permanent Casualties (exception: Infantry units that can trace a
/// path through Prohibited terrain mark off the remainder as Stragglers instead)." Called once a
/// retreat is owed: when no legal retreat exists the unit is removed at once (decision 0169).
/// A unit without a Loss Chart (a train) is removed too, with nothing to mark off: the rule
/// removes "a unit", and only the marking is for infantry and cavalry.
pub(super) fn remove_if_trapped(ctx: &mut Ctx, unit: &str) {
    let s = ctx.eng.scenario;
    let (Some(u), Some(from)) = (s.unit(unit), ctx.state.positions.get(unit).copied()) else {
        return;
    };
    let Some(d) = ctx
        .state
        .movement
        .get(unit)
        .and_then(|m| m.retreat_due.clone())
    else {
        return;
    };
    if can_retreat(ctx, u, from, &d, false) {
        return;
    }
    if u.kind == UnitKind::Train {
        // 21.4.2 "it is removed": a train has no strength to mark off (26.2.3: wagons are
        // destroyed by the enemy ending in their hex; trapped, they are lost the same way).
        ctx.emit_side(
            &u.side,
            EventKind::RetreatBlocked {
                unit: unit.to_string(),
                cause: d.cause,
                hexes: d.min,
                stragglers: false,
                no_chart: true,
            },
        );
        return;
    }
    let Some(st) = ctx.state.units.get(unit).cloned() else {
        return;
    };
    if st.track.boxes == 0 {
        return;
    }
    let stragglers = u.kind == UnitKind::Infantry && can_retreat(ctx, u, from, &d, true);
    let side = u.side.clone();
    let left = st.track.remaining();
    let mut track = st.track;
    if stragglers {
        track.stragglers = track.stragglers.saturating_add(left);
    } else {
        track.permanent = track.permanent.saturating_add(left);
    }
    ctx.emit_side(
        &side,
        EventKind::RetreatBlocked {
            unit: unit.to_string(),
            cause: d.cause,
            hexes: d.min,
            stragglers,
            no_chart: false,
        },
    );
    ctx.emit_side(
        &side,
        EventKind::UnitLossesTaken {
            unit: unit.to_string(),
            losses: super::combat_system::UnitLosses {
                permanent: if stragglers { 0 } else { left },
                stragglers: if stragglers { left } else { 0 },
                morale_change: 0,
                morale_after: st.morale,
                retreat: crate::combat::Retreat::None,
                blown: st.blown,
                track,
                extension: None,
            },
        },
    );
}
