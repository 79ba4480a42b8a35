//! Which way an attack comes (10.0 with 15, 16, 17): the arc — front, flank or rear — of the
//! unit attacked (or of the battery a unit enters) that the attacker comes through, read from
//! the recorded facing and the attacker's hex, and whether a Line's flanks are secure (chart p4
//! note 1). The combat system asks it; the umpire may rule otherwise with a recorded reason
//! (`combat … --attack-arc/--flanks --ruling TEXT`, decision 0140).
//!
//! Must not: decide combat results (that is `crate::combat`) or do IO. Where a unit's facing is
//! still open (a scenario's hexside facing, or none; decision 0083) it is read in that unit's
//! favour — the most frontal arc any of its possible corners gives.

use serde::{Deserialize, Serialize};

use super::Ctx;
use crate::combat::MoraleState;
use crate::hex::Hex;
use crate::movement::facing::{self, Arc, Corner, Corners};
use crate::scenario::{UnitFormation, UnitKind};

/// A unit's facing as combat reads it (10.0 sidebar).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Facing {
    /// Standard facing: one of these corners (more than one while the set-up leaves it open).
    Corners(Corners),
    /// All-around frontal facing: Skirmishers, Squares, a Line in a Town/Village.
    AllFront(&'static str),
    /// All-around rear facing: Routed units (21.1).
    AllRear,
}

/// What the game read about an attack's direction, for the readback and the combat text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AspectReadback {
    /// The unit whose facing decides: the defender's Lead Unit, or the battery for Cannister.
    pub unit: String,
    /// Its facing: `SSW`, `N front (NNE or NNW)`, `all-around front (Square)`, …
    pub facing: String,
    /// The hexside(s) of its hex the attack comes through (`N`, `NE`, …; two where it comes
    /// exactly through a corner).
    pub through: Vec<String>,
    /// `front`, `flank` or `rear`.
    pub arc: String,
    /// For a defending Line in a charge: both flank hexes hold Hindering terrain or friendly
    /// infantry in Line (chart p4 note 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flanks_secure: Option<bool>,
    /// `facing` when read from the map, else `umpire: REASON`.
    pub ruled_by: String,
}

/// The umpire's ruling on an attack's direction, recorded with the combat (decision 0140).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AspectRuling {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arc: Option<Arc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flanks_secure: Option<bool>,
    pub reason: String,
}

const SIDES: [&str; 6] = ["N", "NE", "SE", "S", "SW", "NW"];

fn facing_of(ctx: &Ctx, unit: &str, at: Hex) -> Facing {
    let s = ctx.eng.scenario;
    let Some(u) = s.unit(unit) else {
        return Facing::AllFront("no facing");
    };
    // 16.5, 17.4: at an earlier hex of its path, the formation it had there (decision 0156).
    let f = super::opportunity::formation_at(&ctx.state, unit, at)
        .unwrap_or_else(|| super::movement::formation_now(s, &ctx.state, u));
    let routed = ctx
        .state
        .units
        .get(unit)
        .is_some_and(|x| x.morale == MoraleState::Routed);
    if routed || f == UnitFormation::Routed {
        return Facing::AllRear; // 10.0 sidebar, 21.1
    }
    let in_town = ctx
        .eng
        .movement
        .terrain_row(ctx.eng.move_map.terrain(at))
        .0
        .town;
    // 13.2.1 with 10.0: a Line Extension in Square faces every way (decision 0198).
    if super::extensions::part(&ctx.state, unit, at).is_some_and(|p| p.square.is_some()) {
        return Facing::AllFront("Square");
    }
    // 8.3.2 with 13.2.1: one that moved its one hex in Square faced every way where it started
    // (decision 0211).
    if super::opportunity::extension_square_left(&ctx.state, unit, at) {
        return Facing::AllFront("Square");
    }
    // 13.1.2: a Line Extension faces as it last turned, once it has (decision 0153).
    if let Some(c) = super::extensions::part(&ctx.state, unit, at).and_then(|p| p.facing) {
        return Facing::Corners(1 << c.index());
    }
    // 10, 16.5.2: fired on or charged at an earlier hex of its path, it faced as it did there
    // (decision 0183).
    let earlier = super::opportunity::facing_at(&ctx.state, unit, at)
        .filter(|_| super::movement::facing_now(&ctx.state, u, f).is_some());
    // 13.1.1, 10.0: a Line Extension at an earlier hex of its own path faced as it did there
    // (decision 0189); the parent's own path is read first where both passed.
    if earlier.is_none()
        && let Some(c) = super::opportunity::extension_facing_at(&ctx.state, unit, at)
    {
        return Facing::Corners(1 << c.index());
    }
    match earlier
        .map(|c| 1 << c.index())
        .or_else(|| super::movement::facing_now(&ctx.state, u, f))
    {
        None if u.kind == UnitKind::Skirmisher => Facing::AllFront("Skirmisher"),
        None => Facing::AllFront("Square"),
        // 10.1.4: a Line in a Town/Village faces every way.
        Some(_) if in_town && u.kind == UnitKind::Infantry && f == UnitFormation::Line => {
            Facing::AllFront("Line in a Town/Village")
        }
        Some(set) => Facing::Corners(set),
    }
}

fn show(f: Facing) -> String {
    match f {
        Facing::Corners(set) => facing::show_set(set),
        Facing::AllFront(why) => format!("all-around front ({why})"),
        Facing::AllRear => "all-around rear (Routed)".into(),
    }
}

/// The hexsides of `to` that something coming from `from` crosses last: the one toward an
/// adjacent hex, else those toward the hexes next to `to` on the centre-to-centre line (two
/// where the line runs along a hexside, 14.1.2).
pub(crate) fn entry_sides(from: Hex, to: Hex) -> Vec<usize> {
    if let Some(d) = facing::direction(to, from) {
        return vec![d];
    }
    let mut v: Vec<usize> = crate::movement::sight::hexes_between(from, to)
        .into_iter()
        .filter_map(|h| facing::direction(to, h))
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

fn rank(a: Arc) -> u8 {
    match a {
        Arc::Front => 0,
        Arc::Flank => 1,
        Arc::Rear => 2,
    }
}

/// The arc of a corner toward hexsides `sides`: the most frontal of them when the attack comes
/// through a corner of the hex (one hexside frontal is frontal, 17.1.6 errata).
fn arc_for(c: Corner, sides: &[usize]) -> Arc {
    sides
        .iter()
        .map(|s| c.arc(*s))
        .min_by_key(|a| rank(*a))
        .unwrap_or(Arc::Front)
}

/// The corners of `f` that give the most frontal arc toward `sides`, and that arc.
fn best(f: Facing, sides: &[usize]) -> (Arc, Vec<Corner>) {
    match f {
        Facing::AllFront(_) => (Arc::Front, Vec::new()),
        Facing::AllRear => (Arc::Rear, Vec::new()),
        Facing::Corners(set) => {
            let arc = facing::members(set)
                .map(|c| arc_for(c, sides))
                .min_by_key(|a| rank(*a))
                .unwrap_or(Arc::Front);
            let corners = facing::members(set)
                .filter(|c| arc_for(*c, sides) == arc)
                .collect();
            (arc, corners)
        }
    }
}

/// Chart p4 note 1: both flank hexes of the stack hold Hindering terrain or friendly infantry
/// in Line (a Line Extension is a unit in Line, 13.0).
fn flanks_secure_for(ctx: &Ctx, side: &str, at: Hex, c: Corner) -> bool {
    let s = ctx.eng.scenario;
    let map = &ctx.eng.move_map;
    let t = ctx.eng.movement;
    let n = at.neighbours();
    (0..6).filter(|d| c.arc(*d) == Arc::Flank).all(|d| {
        let h = n[d];
        if !map.contains(h) {
            return false;
        }
        let hindering = t.terrain_row(map.terrain(h)).0.hindering;
        let line = ctx.state.positions.iter().any(|(p, x)| {
            *x == h
                && s.unit(p).is_some_and(|u| {
                    u.side == side
                        && u.kind == UnitKind::Infantry
                        && super::movement::formation_now(s, &ctx.state, u) == UnitFormation::Line
                })
        });
        let extension = super::extensions::all(ctx, Some(side))
            .iter()
            .any(|(_, x)| *x == h);
        hindering || line || extension
    })
}

/// How the attack from `from` meets `unit` at `at`; `with_flanks` for a defending Line in a
/// charge. The umpire's ruling, if any, replaces what it sets.
pub(crate) fn read(
    ctx: &Ctx,
    unit: &str,
    at: Hex,
    from: Hex,
    with_flanks: bool,
    ruling: Option<&AspectRuling>,
) -> (Arc, Option<bool>, AspectReadback) {
    let f = facing_of(ctx, unit, at);
    let sides = entry_sides(from, at);
    let (mut arc, corners) = best(f, &sides);
    let side = ctx
        .eng
        .scenario
        .unit(unit)
        .map(|u| u.side.clone())
        .unwrap_or_default();
    let mut secure = with_flanks.then(|| {
        // An open facing is read in the Line's favour (decision 0140).
        corners
            .iter()
            .any(|c| flanks_secure_for(ctx, &side, at, *c))
    });
    let mut ruled_by = "facing".to_string();
    if let Some(r) = ruling {
        arc = r.arc.unwrap_or(arc);
        if with_flanks && r.flanks_secure.is_some() {
            secure = r.flanks_secure;
        }
        ruled_by = format!("umpire: {}", r.reason);
    }
    let readback = AspectReadback {
        unit: unit.to_string(),
        facing: show(f),
        through: sides.iter().map(|s| SIDES[*s].to_string()).collect(),
        arc: arc_name(arc).into(),
        flanks_secure: secure,
        ruled_by,
    };
    (arc, secure, readback)
}

pub(crate) fn arc_name(a: Arc) -> &'static str {
    match a {
        Arc::Front => "front",
        Arc::Flank => "flank",
        Arc::Rear => "rear",
    }
}

/// The line the combat text shows for it.
pub fn describe(a: &AspectReadback) -> String {
    let through = if a.through.is_empty() {
        String::new()
    } else {
        format!(" through its {} hexside", a.through.join("/"))
    };
    let flanks = match a.flanks_secure {
        Some(true) => "; flanks secure (chart p4 note 1)",
        Some(false) => "; flanks not secure",
        None => "",
    };
    format!(
        "attack on {} ({}){through}: {} arc (10.0){flanks} — {}",
        a.unit, a.facing, a.arc, a.ruled_by
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_adjacent_attacker_crosses_one_hexside_and_a_distant_one_may_cross_a_corner() {
        let to = Hex::new(5, 5);
        // N neighbour
        assert_eq!(entry_sides(Hex::new(5, 6), to), vec![0]);
        // Straight up the column: through the N hexside.
        assert_eq!(entry_sides(Hex::new(5, 8), to), vec![0]);
        // 17.1.6 errata: some lines run along a hexside and cross a corner (two hexsides).
        let two = entry_sides(Hex::new(7, 6), to);
        assert!(!two.is_empty() && two.len() <= 2, "{two:?}");
    }

    #[test]
    fn an_open_facing_is_read_in_the_units_favour() {
        // Facing N hexside: corners NNE or NNW. An attack through S is rear for both.
        let set = facing::corners_of(Some(crate::scenario::Facing::N));
        assert_eq!(best(Facing::Corners(set), &[3]).0, Arc::Rear);
        // Through SE: rear for NNW (SE is index 2: NNW=5 → (2+6-5)%6=3 rear) but flank for
        // NNE: flank wins.
        assert_eq!(best(Facing::Corners(set), &[2]).0, Arc::Flank);
        // Through a corner between a front and a flank hexside: front (17.1.6 errata).
        assert_eq!(arc_for(Corner::NNE, &[1, 2]), Arc::Front);
        assert_eq!(best(Facing::AllRear, &[0]).0, Arc::Rear);
        assert_eq!(best(Facing::AllFront("Square"), &[3]).0, Arc::Front);
    }
}
