//! Zones of Influence (11) and stacking limits (9): who exerts a ZoI and into which hexes, the
//! Morale Degradation a move or a formation change in one costs (11.3), and the end-of-phase
//! stacking check (9.1, 9.2). The path module sees a ZoI only as a set of hexes.
//!
//! Must not: do IO or iterate hash containers; every loss of a Morale State is an event with
//! its rule and reason.

use std::collections::{BTreeMap, BTreeSet};

use super::Ctx;
use super::event::EventKind;
use crate::combat::MoraleState;
use crate::hex::Hex;
use crate::movement::facing;
use crate::scenario::{Strength, UnitFormation, UnitKind};

/// The hexes in a Zone of Influence of `side`'s enemies (11): adjacent to the frontal
/// hexsides of enemy infantry that is not in March Column, Disorganized or Routed (11.2), not
/// into or across Prohibited terrain, into Fortified or Town/Village hexes, or into hexes
/// holding other units of the exerting side (11.1). A unit whose corner is still open
/// (decision 0083) exerts it across every hexside that may be frontal (decision 0084).
pub(crate) fn enemy_zoi(ctx: &Ctx, side: &str) -> BTreeSet<Hex> {
    let s = ctx.eng.scenario;
    let map = &ctx.eng.move_map;
    let t = ctx.eng.movement;
    let mut out = BTreeSet::new();
    for (id, at) in &ctx.state.positions {
        let Some(u) = s.unit(id) else { continue };
        if u.side == side || u.kind != UnitKind::Infantry {
            continue;
        }
        let morale = ctx
            .state
            .units
            .get(id)
            .map(|x| x.morale)
            .unwrap_or_default();
        let f = super::movement::formation_now(s, &ctx.state, u);
        if matches!(f, UnitFormation::MarchColumn | UnitFormation::Routed) {
            continue; // 11.2
        }
        // 13.1.1: its Line Extensions exert a ZoI as any unit does, each by its own Morale
        // State and facing (13.1.2, decision 0153).
        let own = super::movement::facing_now(&ctx.state, u, f);
        let mut sources = vec![(*at, morale, own)];
        for h in super::extensions::of(&ctx.state, id) {
            let part = super::extensions::part(&ctx.state, id, h);
            // 13.2.1 with 10.0: one in Square faces, and exerts it, every way (decision 0198).
            let facing_set = if part.is_some_and(|p| p.square.is_some()) {
                None
            } else {
                part.and_then(|p| p.facing).map(|c| 1 << c.index()).or(own)
            };
            sources.push((h, part.map_or(morale, |p| p.morale), facing_set));
        }
        for (at, morale, facing_set) in sources {
            if matches!(morale, MoraleState::Disorganized | MoraleState::Routed) {
                continue; // 11.2
            }
            // 10.1.4: a Line in a Town/Village faces every way.
            let in_town = t.terrain_row(map.terrain(at)).0.town;
            let sides: Vec<usize> = match facing_set {
                Some(_) if in_town && f == UnitFormation::Line => (0..6).collect(),
                None => (0..6).collect(),
                Some(set) => {
                    let mut v: Vec<usize> = facing::members(set).flat_map(|c| c.front()).collect();
                    v.sort_unstable();
                    v.dedup();
                    v
                }
            };
            let neighbours = at.neighbours();
            for d in sides {
                let n = neighbours[d];
                if !map.contains(n) {
                    continue;
                }
                let row = t.terrain_row(map.terrain(n)).0;
                let prohibited = row.cell("line").halves.is_none()
                    || map
                        .hexside(at, n)
                        .and_then(|k| t.hexside.get(k))
                        .is_some_and(|r| r.cell("line").halves.is_none());
                let friendly = ctx.state.positions.iter().any(|(p, h)| {
                    *h == n && p != id && s.unit(p).is_some_and(|o| o.side == u.side)
                }) || super::extensions::all(ctx, Some(&u.side))
                    .iter()
                    .any(|(_, h)| *h == n);
                if prohibited || row.fortified || row.town || friendly {
                    continue; // 11.1
                }
                out.insert(n);
            }
        }
    }
    out
}

/// 11.3.1: changing formation in an enemy ZoI lowers the unit's Morale State; a unit that
/// becomes Disorganized has its remaining MP halved (11.3.2, 12.1.2). `left` is what it has
/// left after paying for the change. Returns false if it Routed.
pub(crate) fn formation_change_in_zoi(
    ctx: &mut Ctx,
    side: &str,
    unit: &str,
    at: Hex,
    left: u32,
) -> bool {
    if !enemy_zoi(ctx, side).contains(&at) {
        return true;
    }
    degrade(
        ctx,
        side,
        unit,
        "11.3.1",
        format!("changed formation in an enemy Zone of Influence at {at}"),
        left,
    )
}

/// Lower a unit's Morale State by one (11.3.2, 12.1.5, 9.2 — `rule` says which); if a moving
/// unit becomes Disorganized, it loses half its remaining `left` half-points (rounded down,
/// decision 0084; `left = 0` for a unit not moving or whose loss is already counted). A unit
/// that Routs owes a retreat of 6 hexes from the closest enemy (21.4, decision 0164). Returns
/// false if it Routed (its move stops).
pub(crate) fn degrade(
    ctx: &mut Ctx,
    side: &str,
    unit: &str,
    rule: &str,
    reason: String,
    left: u32,
) -> bool {
    degrade_part(ctx, side, unit, None, rule, reason, left)
}

/// The Morale State of `unit`, or of its Line Extension in `extension` (13.1.2).
pub(crate) fn morale_of(ctx: &Ctx, unit: &str, extension: Option<Hex>) -> MoraleState {
    extension
        .and_then(|h| super::extensions::part(&ctx.state, unit, h))
        .map(|p| p.morale)
        .unwrap_or_else(|| {
            ctx.state
                .units
                .get(unit)
                .map(|x| x.morale)
                .unwrap_or_default()
        })
}

/// `degrade` for a unit or, with `extension`, its Line Extension in that hex, which keeps its
/// own Morale State and MP (13.1.1: "the same … morale … characteristics as any other unit";
/// 13.1.2). An extension that Routs Routs its whole unit, which collapses into the parent's hex
/// and retreats (13.3.1).
pub(crate) fn degrade_part(
    ctx: &mut Ctx,
    side: &str,
    unit: &str,
    extension: Option<Hex>,
    rule: &str,
    reason: String,
    left: u32,
) -> bool {
    let before = morale_of(ctx, unit, extension);
    let after = before.shift(-1);
    ctx.emit_side(
        side,
        EventKind::MoraleDegraded {
            unit: unit.to_string(),
            morale: after,
            rule: rule.to_string(),
            reason,
            extension,
        },
    );
    if after == MoraleState::Disorganized && before != MoraleState::Disorganized && left > 0 {
        halve(ctx, side, unit, extension, left);
    }
    // 8.3.1.2: a Square that Routs leaves it (decision 0199).
    if after == MoraleState::Routed && before != MoraleState::Routed {
        super::retreat::routed_square_breaks(ctx, unit);
    }
    // 21.4: "a unit that becomes Routed immediately retreats 6 hexes" — from whatever cause.
    if after == MoraleState::Routed
        && before != MoraleState::Routed
        && ctx.retreating.as_deref() != Some(unit)
    {
        super::retreat::rout_retreat(ctx, side, unit);
    }
    after != MoraleState::Routed
}

/// 12.2.5: "Some terrain types can cause a unit to become Shaken or Disorganized as indicated on
/// the Movement Table. These results are only implemented if the unit is currently in a better
/// Morale State." `unit`, moving as `class`, enters `to` from `from` (not by Road Movement): the
/// table's `enters` cell, if any, lowers it to that state. Called after the step's Morale
/// Degradation (12.2.5: "implement the Morale Degradation first"). Retreats call it (21.4.7);
/// voluntary moves do not yet (decision 0165). True when it changed the unit.
#[allow(clippy::too_many_arguments)]
pub(crate) fn terrain_entry(
    ctx: &mut Ctx,
    side: &str,
    unit: &str,
    extension: Option<Hex>,
    class: &str,
    from: Hex,
    to: Hex,
    rule: &str,
) -> bool {
    let map = &ctx.eng.move_map;
    let terrain = map.terrain(to);
    let Some(e) = ctx
        .eng
        .movement
        .entry_effect(class, terrain, map.hexside(from, to))
    else {
        return false;
    };
    let target = match e.effect {
        crate::movement::tables::EntryEffect::Shaken => MoraleState::Shaken,
        crate::movement::tables::EntryEffect::Disorganized => MoraleState::Disorganized,
    };
    let now = morale_of(ctx, unit, extension);
    if now <= target {
        return false;
    }
    let reason = format!(
        "entered {terrain} at {to} as {class}: {} on the Movement Table ({}, {}; 12.2.5)",
        e.show(),
        e.rule,
        e.provenance
    );
    ctx.emit_side(
        side,
        EventKind::MoraleDegraded {
            unit: unit.to_string(),
            morale: target,
            rule: rule.to_string(),
            reason,
            extension,
        },
    );
    true
}

/// 12.1.2: a unit (or its Line Extension in `extension`) that becomes Disorganized while
/// moving halves its remaining MP.
pub(crate) fn halve(ctx: &mut Ctx, side: &str, unit: &str, extension: Option<Hex>, left: u32) {
    let lost = left / 2; // the unit keeps the larger half (decision 0084)
    if lost > 0 {
        ctx.emit_side(
            side,
            EventKind::MovementPointsLost {
                unit: unit.to_string(),
                half_mp: lost,
                rule: "12.1.2".into(),
                reason: "became Disorganized while moving: remaining MP halved".into(),
                extension,
            },
        );
    }
}

/// C strength levels of a unit for stacking (7.1.1: A = 2B = 4C).
fn c_levels(s: Option<Strength>) -> u32 {
    match s {
        None => 0,
        Some(Strength::C) => 1,
        Some(Strength::B) => 2,
        Some(Strength::A) => 4,
        Some(Strength::AA) => 8,
        Some(Strength::AAA) => 12,
    }
}

/// One side's stack in a hex, by stacking category (9.1).
#[derive(Default)]
struct Stack {
    units: Vec<String>,
    strength_c: u32,
    gun_points: u32,
    skirmishers: u32,
    wagons: u32,
}

/// 9.1, 9.2: at the end of a phase in which units moved or retreated, every hex over a
/// stacking limit (each category separately) has its stack's Morale State lowered by one.
pub(crate) fn stacking_check(ctx: &mut Ctx) {
    let s = ctx.eng.scenario;
    let t = ctx.eng.movement;
    for ((side, at), st) in stacks(ctx) {
        worst_morale(ctx, &side, at, &st.units);
        let over = over_limits(t, &st);
        if over.is_empty() {
            continue;
        }
        // Wagons have no Morale State.
        for unit in st
            .units
            .iter()
            .filter(|id| s.unit(id).is_some_and(|u| u.kind != UnitKind::Train))
        {
            let reason = format!(
                "over-stacked at {at}: {}; break the stack up next Movement Phase",
                over.join(", ")
            );
            degrade(ctx, &side, unit, "9.2", reason, 0);
        }
    }
}

/// 9.2: "Over-stacked hexes must be broken up in the next available friendly Movement Phase."
/// Ending `side`'s Operations window (its Movement Phase) is refused while a hex of its found
/// over-stacked at a check since its last one (the end of its previous phase, or the
/// opponent's since) is still over the limits (decision 0084). Stacks over-stacked in this
/// phase are only discovered as it ends, and bind the next one.
pub(crate) fn must_break_up(ctx: &Ctx, side: &str) -> Result<(), super::Refusal> {
    let s = ctx.eng.scenario;
    let since = (ctx.state.turn.saturating_sub(1), ctx.state.player);
    let mut hexes: BTreeMap<Hex, Vec<String>> = BTreeMap::new();
    for o in &ctx.state.over_stacked {
        let found_since = (o.turn, o.player) >= since;
        let still_there = ctx.state.positions.get(&o.unit) == Some(&o.hex);
        if found_since && still_there && s.unit(&o.unit).is_some_and(|u| u.side == side) {
            hexes.entry(o.hex).or_default().push(o.unit.clone());
        }
    }
    let stacks = stacks(ctx);
    for (hex, mut units) in hexes {
        let Some(st) = stacks.get(&(side.to_string(), hex)) else {
            continue;
        };
        let over = over_limits(ctx.eng.movement, st);
        if over.is_empty() {
            continue;
        }
        units.sort();
        units.dedup();
        return Err(super::Refusal::new(
            "over-stacked",
            "9.2",
            format!(
                "{side}'s stack at {hex} ({}) was found over-stacked and still is: {}; \"over-stacked hexes must be broken up in the next available friendly Movement Phase\" [hex {hex}]",
                units.join(", "),
                over.join(", ")
            ),
            "move units out of the hex before the phase ends (a Routed unit may move one hex to do it, 9.2); the umpire may place one elsewhere with `override --place PIECE=HEX` and a reason",
        ));
    }
    Ok(())
}

/// True when `side`'s stack at `at` is over a stacking limit (9.1).
pub(crate) fn over_stacked(ctx: &Ctx, side: &str, at: Hex) -> bool {
    stacks(ctx)
        .get(&(side.to_string(), at))
        .is_some_and(|st| !over_limits(ctx.eng.movement, st).is_empty())
}

/// The limits a stack is over (9.1), each as "N what (limit L)".
fn over_limits(t: &crate::movement::MovementTables, st: &Stack) -> Vec<String> {
    [
        ("strength_c", st.strength_c, "C strength levels"),
        ("gun_points", st.gun_points, "gun points"),
        ("skirmishers", st.skirmishers, "Skirmishers"),
        ("wagons", st.wagons, "wagons"),
    ]
    .iter()
    .filter(|(k, n, _)| *n > t.limit(k))
    .map(|(k, n, what)| format!("{n} {what} (limit {})", t.limit(k)))
    .collect()
}

/// Every side's stack in every hex, by stacking category (9.1).
fn stacks(ctx: &Ctx) -> BTreeMap<(String, Hex), Stack> {
    let s = ctx.eng.scenario;
    let mut stacks: BTreeMap<(String, Hex), Stack> = BTreeMap::new();
    for (id, at) in &ctx.state.positions {
        let Some(u) = s.unit(id) else { continue };
        // 12.6.1: a reinforcement that has not moved since it arrived is still in the column
        // extending off the map from its Entry Hex, not stacked in it (decision 0084).
        if ctx
            .state
            .movement
            .get(id)
            .is_some_and(|m| m.entering.is_some())
        {
            continue;
        }
        let st = stacks.entry((u.side.clone(), *at)).or_default();
        st.units.push(id.clone());
        match u.kind {
            UnitKind::Skirmisher => st.skirmishers += 1,
            UnitKind::Train => st.wagons += 1,
            k if k.is_artillery() => {
                let lost = ctx
                    .state
                    .units
                    .get(id)
                    .map_or(0, |x| u32::from(x.track.permanent));
                st.gun_points += u32::from(u.gun_points.unwrap_or(5)).saturating_sub(lost);
            }
            _ => {
                // 13.2: strength is divided evenly between the parent and its extensions,
                // any excess with the parent.
                let ext = super::extensions::of(&ctx.state, id);
                let total = c_levels(u.strength);
                let share = total / (1 + ext.len() as u32);
                st.strength_c += total - share * ext.len() as u32;
                for h in ext {
                    let e = stacks.entry((u.side.clone(), h)).or_default();
                    e.strength_c += share;
                }
            }
        }
    }
    stacks
}

/// 9.4: units in different Morale States stacked at the end of a phase adopt the worst Morale
/// State of the stack (wagons have none).
fn worst_morale(ctx: &mut Ctx, side: &str, at: Hex, units: &[String]) {
    let s = ctx.eng.scenario;
    let morale = |ctx: &Ctx, id: &str| {
        ctx.state
            .units
            .get(id)
            .map(|x| x.morale)
            .unwrap_or_default()
    };
    let fighting: Vec<&String> = units
        .iter()
        .filter(|id| s.unit(id).is_some_and(|u| u.kind != UnitKind::Train))
        .collect();
    let Some(worst) = fighting.iter().map(|id| morale(ctx, id)).min() else {
        return;
    };
    for id in fighting {
        if morale(ctx, id) > worst {
            ctx.emit_side(
                side,
                EventKind::MoraleDegraded {
                    unit: id.clone(),
                    morale: worst,
                    rule: "9.4".into(),
                    reason: format!("stacked at {at} with a unit in a worse Morale State"),
                    extension: None,
                },
            );
        }
    }
}
