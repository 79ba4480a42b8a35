//! Line Extensions (13): a Line of B strength or more deploying battalions into adjacent hexes.
//! Owns generating (13.1.3) and removing (13.1.4) them with their MP, the 13.2 restrictions and
//! the hexes an extended unit holds. Extensions live in the unit's movement bookkeeping, facing
//! as it faces (decision 0087); ZoI, stacking and occupancy read them from here.
//!
//! Must not: do IO; every refusal names the rule and the hex.

use super::event::EventKind;
use super::{Ctx, GameState, Refusal};
use crate::hex::Hex;
use crate::movement::path;
use crate::movement::tables::show_halves;
use crate::scenario::{Strength, Unit, UnitFormation, UnitKind};

/// The hexes of a unit's Line Extensions.
pub(crate) fn of(state: &GameState, unit: &str) -> Vec<Hex> {
    state
        .movement
        .get(unit)
        .map(|m| m.extensions.clone())
        .unwrap_or_default()
}

/// The own state of a unit's Line Extension in `hex` (13.1.2), if it has one there.
pub(crate) fn part<'s>(
    state: &'s GameState,
    unit: &str,
    hex: Hex,
) -> Option<&'s super::state::ExtensionPart> {
    state
        .movement
        .get(unit)?
        .extension_parts
        .iter()
        .find(|p| p.hex == hex)
}

/// Every Line Extension of a side's units (all sides with `None`): (parent, hex).
pub(crate) fn all(ctx: &Ctx, side: Option<&str>) -> Vec<(String, Hex)> {
    let s = ctx.eng.scenario;
    ctx.state
        .movement
        .iter()
        .filter(|(id, _)| side.is_none_or(|x| s.unit(id).is_some_and(|u| u.side == x)))
        .flat_map(|(id, m)| m.extensions.iter().map(move |h| (id.clone(), *h)))
        .collect()
}

/// The size an extended unit fights with in one of its hexes (13.2: "Strength levels must be
/// evenly divided between the parent and Line Extensions—with any excess in the parent's hex";
/// an extension is at least C): `at_extension` for an extension's hex, else the parent's.
pub(crate) fn size_in(
    state: &GameState,
    unit: &str,
    at_extension: bool,
    whole: crate::combat::Size,
) -> crate::combat::Size {
    let n = of(state, unit).len() as u32;
    if n == 0 {
        return whole;
    }
    let units = u32::from(whole.units());
    let share = (units / (n + 1)).max(1);
    let mine = if at_extension {
        share
    } else {
        units.saturating_sub(n * share).max(1)
    };
    crate::combat::Size::from_units(mine)
}

/// 13.1.1: a Line Extension "has the same … combat and target characteristics as any other
/// unit": a combat by or against one names its parent alone and the extension's hex
/// (`--attacker-at`, `--defender-at`). Returns the side and that hex.
pub(crate) fn fighting_at(
    state: &GameState,
    s: &crate::scenario::Scenario,
    ids: &[String],
    role: &str,
    at: Hex,
) -> Result<(String, Hex), Refusal> {
    let [id] = ids else {
        return Err(no(
            "extension-alone",
            "13.1.1",
            format!(
                "name the {role} extension's parent alone with the hex of the extension ({at}); {} units named",
                ids.len()
            ),
            "a Line Extension fights as a unit of its own",
        ));
    };
    let u = s
        .unit(id)
        .ok_or_else(|| super::command_system::unknown_unit(id))?;
    if !of(state, id).contains(&at) {
        let have: Vec<String> = of(state, id).iter().map(|h| h.to_string()).collect();
        return Err(no(
            "not-an-extension",
            "13.0",
            format!(
                "`{id}` has no Line Extension in {at} [hex {at}]; its extensions: {}",
                if have.is_empty() {
                    "none".to_string()
                } else {
                    have.join(", ")
                }
            ),
            "name the hex of one of its extensions, or fight with the unit in its own hex",
        ));
    }
    Ok((u.side.clone(), at))
}

/// 13.3.2: "If the unit no longer has enough strength to support its Line Extensions, eliminate
/// one or more Line Extensions until the unit can support the remainder" — B supports one, A or
/// more two (13.2). The last generated goes first; recorded as a retraction costing nothing.
pub(crate) fn unsupported(ctx: &mut Ctx, side: &str, unit: &str, size: crate::combat::Size) {
    use crate::combat::Size;
    let have = of(&ctx.state, unit);
    let may = match size {
        Size::C => 0,
        Size::B => 1,
        _ => 2,
    };
    if have.len() <= may {
        return;
    }
    let gone: Vec<Hex> = have[may..].to_vec();
    ctx.emit_side(
        side,
        EventKind::LineRetracted {
            unit: unit.to_string(),
            hexes: gone,
            half_mp: 0,
            eliminated: true,
        },
    );
}

/// How many extensions a strength may support (13.2: B or more one, A or more two).
fn may_have(s: Option<Strength>) -> usize {
    match s {
        None | Some(Strength::C) => 0,
        Some(Strength::B) => 1,
        Some(_) => 2,
    }
}

fn no(code: &'static str, rule: &'static str, msg: String, help: &str) -> Refusal {
    Refusal::new(
        code,
        rule,
        msg,
        format!("{help}; the umpire may rule otherwise with `override` and a reason"),
    )
}

/// 13.1.3, 13.2: generate Line Extensions from `u` at `at` into `hexes`.
pub(super) fn extend(
    ctx: &mut Ctx,
    side: &str,
    u: &Unit,
    at: Hex,
    hexes: &[Hex],
) -> Result<(), Refusal> {
    let s = ctx.eng.scenario;
    let f = super::movement::formation_now(s, &ctx.state, u);
    if u.kind != UnitKind::Infantry || f != UnitFormation::Line {
        return Err(no(
            "extension",
            "13.2",
            format!(
                "`{}` is {:?} in {f:?}: only infantry in Line generates Line Extensions [hex {at}]",
                u.id, u.kind
            ),
            "change to Line first (`--formation line`)",
        ));
    }
    let have = of(&ctx.state, &u.id);
    let max = may_have(u.strength);
    if have.len() + hexes.len() > max {
        return Err(no(
            "extension",
            "13.2",
            format!(
                "`{}` ({:?} strength) may have {max} Line Extension(s); it has {} and asks for {} [hex {at}]",
                u.id,
                u.strength.unwrap_or(Strength::C),
                have.len(),
                hexes.len()
            ),
            "B strength supports one, A or more two, never more than two (13.2)",
        ));
    }
    let theirs = all(ctx, Some(side));
    let enemy_at: Vec<Hex> = ctx
        .state
        .positions
        .iter()
        .filter(|(p, _)| s.unit(p).is_some_and(|x| x.side != side))
        .map(|(_, h)| *h)
        .chain(
            all(ctx, None)
                .into_iter()
                .filter(|(p, _)| s.unit(p).is_some_and(|x| x.side != side))
                .map(|(_, h)| h),
        )
        .collect();
    for (i, hex) in hexes.iter().enumerate() {
        if !at.is_adjacent(*hex) || !ctx.eng.move_map.contains(*hex) {
            return Err(no(
                "extension-hex",
                "13.1.3",
                format!("{hex} is not a hex on the map next to `{}` at {at}", u.id),
                "place a Line Extension in a hex adjacent to its parent",
            ));
        }
        if enemy_at.contains(hex) {
            return Err(no(
                "enemy-hex",
                "12.3.1",
                format!("{hex} holds enemy units"),
                "a Line Extension moves like any unit (13.1.1)",
            ));
        }
        if theirs.iter().any(|(_, h)| h == hex) || hexes[..i].contains(hex) {
            return Err(no(
                "extension-stack",
                "13.2",
                format!("{hex} already holds a Line Extension"),
                "Line Extensions never stack with other Line Extensions (13.2)",
            ));
        }
    }
    let mut m = super::movement::mover(ctx, u, f)?;
    let one = ctx.eng.movement.cost("formation_change");
    for hex in hexes {
        let step = path::step_cost(&ctx.eng.move_map, ctx.eng.movement, "line", at, *hex, false)
            .map_err(|e| no(e.code, e.rule, e.message, &e.help))?;
        // 13.1.3: 1 MP for both, and the extension pays its hex and hexside too; it starts with
        // the parent's remaining MP (13.1.2).
        let need = one + step.cost;
        if m.left() < need {
            return Err(no(
                "not-enough-mp",
                "13.1.3",
                format!(
                    "extending into {hex} costs the extension {} MP ({}); `{}` has {} MP left [hex {hex}]",
                    show_halves(need),
                    step.parts.join(", "),
                    u.id,
                    show_halves(m.left())
                ),
                "extend next Movement Phase",
            ));
        }
        ctx.emit_side(
            side,
            EventKind::LineExtended {
                unit: u.id.clone(),
                hex: *hex,
                half_mp: one,
                extension_half_mp: need,
            },
        );
        m.spent += one;
    }
    Ok(())
}

/// 13.1.4: remove Line Extensions; the parent pays its own hex (and any hexside between) + 1
/// MP, once for up to two rejoining together.
pub(super) fn retract(
    ctx: &mut Ctx,
    side: &str,
    u: &Unit,
    at: Hex,
    hexes: &[Hex],
) -> Result<(), Refusal> {
    let have = of(&ctx.state, &u.id);
    if let Some(h) = hexes.iter().find(|h| !have.contains(h)) {
        return Err(no(
            "extension-hex",
            "13.1.4",
            format!("`{}` has no Line Extension in {h}", u.id),
            "see `staffwork status` for its extensions",
        ));
    }
    let t = ctx.eng.movement;
    let mut cost = 0;
    for h in hexes {
        let step =
            path::step_cost(&ctx.eng.move_map, t, "line", *h, at, false).map_or(0, |s| s.cost);
        cost = cost.max(step);
    }
    cost += t.cost("formation_change");
    let f = super::movement::formation_now(ctx.eng.scenario, &ctx.state, u);
    let m = super::movement::mover(ctx, u, f)?;
    // 13.1.4: "If the extension had fewer MPs left than the parent, use the Line Extension's
    // remaining MPs for the parent" (13.3.1: the fewest of them).
    let (turn, player) = (ctx.state.turn, ctx.state.player);
    let left = hexes
        .iter()
        .filter_map(|h| part(&ctx.state, &u.id, *h))
        .map(|p| m.allowance.saturating_sub(p.spent_in(turn, player).halves))
        .fold(m.left(), u32::min);
    if cost > left {
        return Err(no(
            "not-enough-mp",
            "13.1.4",
            format!(
                "taking back the extensions costs {} MP; `{}` has {} MP left [hex {at}]",
                show_halves(cost),
                u.id,
                show_halves(left)
            ),
            "retract next Movement Phase",
        ));
    }
    ctx.emit_side(
        side,
        EventKind::LineRetracted {
            unit: u.id.clone(),
            hexes: hexes.to_vec(),
            half_mp: cost,
            eliminated: false,
        },
    );
    Ok(())
}

/// 13.0, 8.2.3: why an extended unit may not do this, if it has extensions.
pub(super) fn refuse_if_extended(
    state: &GameState,
    u: &Unit,
    at: Hex,
    what: &str,
    rule: &'static str,
) -> Result<(), Refusal> {
    let have = of(state, &u.id);
    if have.is_empty() {
        return Ok(());
    }
    let list: Vec<String> = have.iter().map(|h| h.to_string()).collect();
    Err(no(
        "extended",
        rule,
        format!(
            "`{}` has Line Extensions in {}: it may not {what} [hex {at}]",
            u.id,
            list.join(", ")
        ),
        "take them back first: `move --to <its hex> --retract HEX,…` (13.1.4)",
    ))
}

/// 13.0: "at the end of every phase they must be adjacent to their parent". A parent with
/// extensions out may move, but like an extension's own move (decision 0153) it must end next
/// to each of them, and never in one's hex (that is rejoining, 13.1.4).
pub(super) fn refuse_if_apart(state: &GameState, u: &Unit, to: Hex) -> Result<(), Refusal> {
    let have = of(state, &u.id);
    if have.contains(&to) {
        return Err(no(
            "extension-rejoin",
            "13.1.4",
            format!(
                "`{}` has a Line Extension in {to}: moving into it is rejoining it [hex {to}]",
                u.id
            ),
            &format!(
                "take it back with `move --piece {} --to <its hex> --retract {to}`",
                u.id
            ),
        ));
    }
    let apart: Vec<String> = have
        .iter()
        .filter(|h| !h.is_adjacent(to))
        .map(|h| h.to_string())
        .collect();
    if apart.is_empty() {
        return Ok(());
    }
    Err(no(
        "extension-apart",
        "13.0",
        format!(
            "`{}` would end at {to}, not next to its Line Extension(s) in {}: extensions end every phase next to their parent [hex {to}]",
            u.id,
            apart.join(", ")
        ),
        "move the extensions first (`move --extension HEX`), end the parent next to them, or take them back (13.1.4)",
    ))
}
