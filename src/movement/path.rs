//! Paths over an NBS hex map for combat units (12): the cost of each step by the Movement
//! Table, a given path checked hex by hex, and the cheapest legal path (`space::dijkstra`,
//! integer half-points, ties broken by the lowest predecessor so the answer never depends on
//! iteration order).
//!
//! Owns the geometry of a move: terrain, hexsides, slopes, roads (12.5), prohibited terrain
//! (12.2.2), enemy hexes (12.3.1), the map edge (12.3.4), the one-hex minimum move (12.1.5) and
//! Square movement (8.3.2). Must not: know orders, roll dice, or read game state — the engine
//! hands in the mover and who stands where.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::facing::{self, Corner, Corners};
use super::tables::{EntryEffect, MovementTables, show_halves};
use crate::hex::Hex;
use crate::provenance::Provenance;
use crate::scenario::Scenario;
use crate::space::{Features, Reached, Ties, dijkstra};

/// The movement facts of a scenario's map.
#[derive(Clone, Debug)]
pub struct MoveMap {
    /// Extent, roads and hexside features, shared with the commander's paths (`space`).
    features: Features,
    terrain: BTreeMap<Hex, String>,
    elevation: BTreeMap<Hex, u8>,
}

impl MoveMap {
    /// The map of a scenario.
    pub fn new(s: &Scenario) -> Self {
        let m = &s.map;
        let mut terrain = BTreeMap::new();
        let mut elevation = BTreeMap::new();
        for col in m.first_col..=m.last_col {
            for row in m.first_row..=m.last_row {
                let h = Hex::new(col, row);
                terrain.insert(h, m.terrain_at(h).unwrap_or("clear").to_string());
                elevation.insert(h, m.elevation_at(h));
            }
        }
        MoveMap {
            features: Features::new(s),
            terrain,
            elevation,
        }
    }

    /// True when the hex is on the playing area.
    pub fn contains(&self, h: Hex) -> bool {
        self.features.contains(h)
    }

    /// Terrain name of an on-map hex ("clear" off the grid's legend).
    pub fn terrain(&self, h: Hex) -> &str {
        self.terrain.get(&h).map_or("clear", String::as_str)
    }

    /// Elevation level of a hex (0 off the map).
    pub fn elevation(&self, h: Hex) -> u8 {
        self.elevation.get(&h).copied().unwrap_or(0)
    }

    /// True when a road runs from `a` into the adjacent `b`.
    pub fn is_road(&self, a: Hex, b: Hex) -> bool {
        self.features.is_road(a, b)
    }

    /// True when the hex lies on a road.
    pub fn on_road(&self, h: Hex) -> bool {
        h.neighbours().iter().any(|n| self.features.is_road(h, *n))
    }

    /// The hexside feature between two adjacent hexes, unless bridged.
    pub fn hexside(&self, a: Hex, b: Hex) -> Option<&'static str> {
        self.features.hexside(a, b)
    }
}

/// Who is moving, as the engine sees him now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Mover {
    /// Movement class: a column of the Movement Table (`line`, `column`, …).
    pub class: &'static str,
    /// Movement Allowance in half-points (chart p2, after scenario exceptions).
    pub allowance: u32,
    /// Half-points already spent this Movement Phase (12.1.4).
    pub spent: u32,
    /// May use Road Movement (12.5: infantry only in Column).
    pub road_movement: bool,
    /// In Square: one hex into clear terrain, all MP (8.3.2).
    pub square: bool,
    /// At most this many hexes this phase (Vimeiro V2: British guns ≤ 3), if limited.
    pub max_hexes: Option<u32>,
    /// Hexes already moved this phase (for `max_hexes`).
    pub hexes_moved: u32,
    /// The corners it may be facing now (10.0; several while the scenario left it open,
    /// decision 0083), or `None` for all-around frontal facing (Skirmishers, Squares).
    pub facing: Option<Corners>,
    /// A Line: all-around frontal facing while in a Town/Village hex (10.1.4).
    pub town_all_around: bool,
    /// The corner to face at the end of the move, if asked (10.1).
    pub face: Option<Corner>,
    /// Forced March (12.5.6): Road Movement only.
    pub road_only: bool,
    /// Half-points of `spent` that its place in an arriving column cost (12.6.1).
    pub column: u32,
    /// Its Morale State as a level: 0 Routed, 1 Disorganized, 2 Shaken, 3 Normal, 4 Blood
    /// Lust (for Morale Degradation on the way, 11.3.2).
    pub morale: u8,
}

impl Mover {
    /// Half-points left this phase.
    pub fn left(&self) -> u32 {
        self.allowance.saturating_sub(self.spent)
    }
}

/// 12.6.1: what one hex of the column off the map costs a unit entering at `entry` — the road
/// rate where a road enters there and the unit may use Road Movement, else the Entry Hex's
/// terrain (decision 0085). Half-points.
pub fn entry_cost(map: &MoveMap, t: &MovementTables, m: &Mover, entry: Hex) -> u32 {
    if m.road_movement && map.on_road(entry) {
        return t.cost("road");
    }
    let (row, _) = t.terrain_row(map.terrain(entry));
    row.cell(m.class).halves.unwrap_or(0)
}

/// Who stands where, as far as the mover is concerned.
#[derive(Clone, Debug, Default)]
pub struct Occupancy {
    /// Hexes holding enemy units (12.3.1).
    pub enemy: BTreeSet<Hex>,
    /// Hexes holding friendly infantry, cavalry, artillery or wagons: Road Movement may not
    /// enter them (12.5).
    pub road_blocked: BTreeSet<Hex>,
    /// Hexes in an enemy Zone of Influence (11).
    pub zoi: BTreeSet<Hex>,
}

/// One step of a path and what it cost.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Step {
    pub from: Hex,
    pub to: Hex,
    pub terrain: String,
    /// Half-points.
    pub cost: u32,
    /// By Road Movement (12.5).
    pub road: bool,
    /// What the cost is made of, e.g. `woods 4 (assumed)`, `stream +2 (assumed)`, `slope +1`.
    pub parts: Vec<String>,
    /// The least certain cell used.
    pub provenance: Provenance,
    /// The corner it faces on entering `to` (10.0, after any turn it made before leaving
    /// `from`), `None` for all-around frontal facing: fire or a charge at this hex of the path
    /// reads its flank and rear from it (10, 16.5.2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub facing: Option<Corner>,
}

/// A legal path and its price.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Ruling {
    pub path: Vec<Hex>,
    pub steps: Vec<Step>,
    /// Half-points the path costs by the table.
    pub cost: u32,
    /// Half-points charged to the unit: the cost, or all that is left for a minimum move.
    pub charged: u32,
    /// Half-points the unit had left before moving.
    pub remaining: u32,
    /// Moved by 12.1.5 (one hex with insufficient MP; −1 Morale State).
    pub minimum_move: bool,
    /// Moved as a Square (8.3.2; a Morale Check first).
    pub square_move: bool,
    /// The corner it faces at the end (10.0), `None` for all-around frontal facing.
    pub facing: Option<Corner>,
    /// Hexes entered directly from an enemy ZoI hex into another: a Morale State lost at each
    /// (11.3.1).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub zoi_degradations: Vec<Hex>,
    /// Hexes whose terrain made it Shaken or Disorganized on entering them (12.2.5, the
    /// Movement Table's `enters` cells; only from a better Morale State, never by Road
    /// Movement).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub entry_effects: Vec<Hex>,
    /// Half-points lost by becoming Disorganized on the way (12.1.2, 11.3.2).
    pub halved: u32,
    /// It Routed on the way and stopped where `path` ends (11.3.2).
    pub routed: bool,
    /// It became Disorganized on the way and the MP left after halving (12.1.2, 11.3.2) could
    /// not pay for the rest of the path: it stopped where `path` ends, short of this hex, the
    /// destination asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub halted_short_of: Option<Hex>,
    /// Set by the engine when a side's planned path halted against what it could not see
    /// (decision 0181).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub halt: Option<Halt>,
    /// The corner it faced where it started (10.0), `None` for all-around frontal facing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_facing: Option<Corner>,
    /// The least certain cell used.
    pub provenance: Provenance,
}

impl Ruling {
    /// Half-points it had left on reaching each hex of `path` (the start hex first), for
    /// halving what was left where it became Disorganized (12.1.2).
    pub fn left_at_each_hex(&self) -> Vec<u32> {
        let mut left = self.remaining;
        let mut out = vec![left];
        for (i, s) in self.steps.iter().enumerate() {
            // A minimum move (12.1.5) or a Square's (8.3.2) spends everything.
            let cost = if self.charged >= self.remaining && i + 1 == self.steps.len() {
                left
            } else {
                s.cost
            };
            left = left.saturating_sub(cost);
            out.push(left);
        }
        out
    }

    /// The corner it faced at each hex of `path` (the start hex first, then on entering each),
    /// or nothing for all-around frontal facing (10.0).
    pub fn facing_at_each_hex(&self) -> Vec<Corner> {
        let Some(start) = self.start_facing else {
            return Vec::new();
        };
        let mut out = vec![start];
        for s in &self.steps {
            match s.facing {
                Some(c) => out.push(c),
                None => return Vec::new(),
            }
        }
        out
    }
}

/// A side's planned path halted against the truth (4.0, decision 0181): why, where the rule
/// bit, and the destination it was going to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Halt {
    pub short_of: Hex,
    pub code: &'static str,
    pub rule: &'static str,
    pub hex: Option<Hex>,
}

/// Why a path is illegal: the rule, the hex, and what to do instead.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Illegal {
    pub code: &'static str,
    pub rule: &'static str,
    pub hex: Option<Hex>,
    pub message: String,
    pub help: String,
}

fn illegal(
    code: &'static str,
    rule: &'static str,
    hex: Option<Hex>,
    message: String,
    help: &str,
) -> Illegal {
    Illegal {
        code,
        rule,
        hex,
        message,
        help: help.into(),
    }
}

/// The cost of stepping from `a` into the adjacent `b` for a class: `Err` names why it is
/// prohibited. `road` asks for the Road Movement rate (12.5), when a road runs there.
pub fn step_cost(
    map: &MoveMap,
    t: &MovementTables,
    class: &str,
    a: Hex,
    b: Hex,
    road: bool,
) -> Result<Step, Illegal> {
    let terrain = map.terrain(b).to_string();
    if road && map.is_road(a, b) {
        // 12.5: follow the road, pay the road cost, ignore other terrain.
        let c = &t.costs["road"];
        return Ok(Step {
            from: a,
            to: b,
            terrain,
            cost: c.halves,
            road: true,
            parts: vec![format!("road {} ({})", show_halves(c.halves), c.provenance)],
            provenance: c.provenance,
            facing: None,
        });
    }
    let (row, unknown) = t.terrain_row(&terrain);
    let cell = row.cell(class);
    let Some(mut cost) = cell.halves else {
        return Err(illegal(
            "prohibited",
            "12.2.2",
            Some(b),
            format!("{b} is {terrain}, Prohibited terrain for {class} (chart p2)"),
            "go round it",
        ));
    };
    let mut prov = cell.provenance;
    let mut parts = vec![if unknown {
        format!(
            "{terrain} moves as clear {} (assumed: not in the movement table)",
            cell.show()
        )
    } else {
        format!("{terrain} {} ({})", cell.show(), cell.provenance)
    }];
    if unknown {
        prov = Provenance::Assumed;
    }
    if let Some(kind) = map.hexside(a, b)
        && let Some(r) = t.hexside.get(kind)
    {
        let c = r.cell(class);
        let Some(x) = c.halves else {
            return Err(illegal(
                "prohibited-hexside",
                "12.2.2",
                Some(b),
                format!("the {kind} between {a} and {b} is Prohibited for {class}"),
                "cross at a bridge, ford or gate",
            ));
        };
        cost += x;
        prov = prov.max(c.provenance);
        parts.push(format!("{kind} +{} ({})", c.show(), c.provenance));
    }
    let climb = u32::from(map.elevation(a).abs_diff(map.elevation(b)));
    if let Some(r) = t.slope_row(climb) {
        let c = r.cell(class);
        let Some(x) = c.halves else {
            return Err(illegal(
                "prohibited-slope",
                "12.2.6",
                Some(b),
                format!(
                    "{a} to {b} changes {climb} elevation levels: an {} slope, Prohibited for {class}",
                    r.name
                ),
                "go round it",
            ));
        };
        cost += x;
        prov = prov.max(c.provenance);
        parts.push(format!("{} +{} ({})", r.name, c.show(), c.provenance));
    }
    Ok(Step {
        from: a,
        to: b,
        terrain,
        cost,
        road: false,
        parts,
        provenance: prov,
        facing: None,
    })
}

/// The cheaper legal way of taking one step: Road Movement when allowed and cheaper.
fn best_step(
    map: &MoveMap,
    t: &MovementTables,
    m: &Mover,
    occ: &Occupancy,
    a: Hex,
    b: Hex,
) -> Result<Step, Illegal> {
    let road_ok = m.road_movement && map.is_road(a, b) && !occ.road_blocked.contains(&b);
    if m.road_only {
        if !road_ok {
            return Err(illegal(
                "forced-march-road",
                "12.5.6.1",
                Some(b),
                format!("{a} to {b} is not Road Movement: a Forced March must keep to the road"),
                "follow the road (not into hexes of friendly units, 12.5.3), or move without --forced-march",
            ));
        }
        return step_cost(map, t, m.class, a, b, true);
    }
    let off = step_cost(map, t, m.class, a, b, false);
    if road_ok && let Ok(r) = step_cost(map, t, m.class, a, b, true) {
        // On a tie the road is taken: its turns are free while it continues (12.5.1).
        return match off {
            Ok(o) if o.cost < r.cost => Ok(o),
            _ => Ok(r),
        };
    }
    off
}

fn check_entry(map: &MoveMap, occ: &Occupancy, a: Hex, b: Hex) -> Result<(), Illegal> {
    if !map.contains(b) {
        return Err(illegal(
            "off-map",
            "12.3.4",
            Some(b),
            format!("{b} is off the map"),
            "units may not leave the map unless a scenario rule says so",
        ));
    }
    if !a.is_adjacent(b) {
        return Err(illegal(
            "not-adjacent",
            "12.0",
            Some(b),
            format!("{a} to {b} is not a step to an adjacent hex"),
            "a path is a contiguous list of adjacent hexes",
        ));
    }
    if occ.enemy.contains(&b) {
        return Err(illegal(
            "enemy-hex",
            "12.3.1",
            Some(b),
            format!("{b} holds enemy units"),
            "enter an enemy hex only by Close Combat (`combat close`) or a Charge (`combat charge`)",
        ));
    }
    Ok(())
}

/// True when turning at `h` costs nothing for this mover: a Line in a Town/Village hex has
/// all-around frontal facing (10.1.4).
fn turns_free_at(map: &MoveMap, t: &MovementTables, m: &Mover, h: Hex) -> bool {
    m.town_all_around && t.terrain_row(map.terrain(h)).0.town
}

/// The turn from `a` to `b` as a step's cost part.
fn turn_part(t: &MovementTables, a: Corner, b: Corner, cost: u32) -> String {
    let rule = if cost == t.cost("about_face") && a.index().abs_diff(b.index()) == 3 {
        "10.1.2"
    } else {
        "10.1.1"
    };
    format!("turn {a}→{b} +{} (seed, {rule})", show_halves(cost))
}

/// 10.1, 12.1.1: the cheapest way of facing along a path — every step leaves by a frontal
/// hexside, turning first where it must — adding each turn's cost to its step, and the corner
/// faced at the end (the one asked for, else the cheapest, ties to the lowest corner). Turns
/// are free while continuing Road Movement (12.5.1) and for a Line in a Town/Village (10.1.4).
/// `None` for a mover with all-around frontal facing.
fn plan_facing(
    map: &MoveMap,
    t: &MovementTables,
    m: &Mover,
    steps: &mut [Step],
) -> Option<(Corner, Corner)> {
    let set = m.facing?;
    let mut cost: [Option<u32>; 6] = [None; 6];
    for c in facing::members(set) {
        cost[c.index()] = Some(0);
    }
    // back[i][c] = (corner before step i, turn cost) for arriving at step i facing c.
    let mut back: Vec<[(usize, u32); 6]> = Vec::with_capacity(steps.len());
    for i in 0..steps.len() {
        let (a, b) = (steps[i].from, steps[i].to);
        let d = facing::direction(a, b).unwrap_or(0);
        let free = turns_free_at(map, t, m, a) || (steps[i].road && i > 0 && steps[i - 1].road);
        let mut next: [Option<u32>; 6] = [None; 6];
        let mut from = [(0usize, 0u32); 6];
        for to in Corner::fronting(d) {
            for (c, x) in cost.iter().enumerate() {
                let Some(x) = x else { continue };
                let turn = if free {
                    0
                } else {
                    facing::turn_cost(t, Corner::from_index(c), to)
                };
                let total = x + turn;
                if next[to.index()].is_none_or(|n| total < n) {
                    next[to.index()] = Some(total);
                    from[to.index()] = (c, turn);
                }
            }
        }
        cost = next;
        back.push(from);
    }
    let last = steps.last().map(|s| s.to)?;
    let end_free = turns_free_at(map, t, m, last);
    let (end, end_turn) = match m.face {
        Some(w) => {
            let (c, turn) = cost
                .iter()
                .enumerate()
                .filter_map(|(c, x)| x.map(|x| (c, x)))
                .map(|(c, x)| {
                    let turn = if end_free {
                        0
                    } else {
                        facing::turn_cost(t, Corner::from_index(c), w)
                    };
                    (c, x + turn, turn)
                })
                .min_by_key(|(c, total, _)| (*total, *c))
                .map(|(c, _, turn)| (c, turn))?;
            if turn > 0 {
                let s = steps.last_mut()?;
                s.cost += turn;
                s.parts.push(turn_part(t, Corner::from_index(c), w, turn));
            }
            (c, Some(w))
        }
        None => {
            let c = cost
                .iter()
                .enumerate()
                .filter_map(|(c, x)| x.map(|x| (x, c)))
                .min()
                .map(|(_, c)| c)?;
            (c, road_end_facing(map, steps, Corner::from_index(c)))
        }
    };
    let mut at = end;
    for i in (0..steps.len()).rev() {
        let (prev, turn) = back[i][at];
        if turn > 0 {
            let part = turn_part(t, Corner::from_index(prev), Corner::from_index(at), turn);
            steps[i].cost += turn;
            steps[i].parts.insert(0, part);
        }
        steps[i].facing = Some(Corner::from_index(at));
        at = prev;
    }
    Some((
        end_turn.unwrap_or(Corner::from_index(end)),
        Corner::from_index(at),
    ))
}

/// 12.5.2: a unit that ends its move on the road is faced, for nothing, with a frontal hexside
/// toward the next hex along the road (the nearer of the two corners that do; the first road
/// hex in N…NW order where the road forks). `None` when it did not end by road or the road ends.
fn road_end_facing(map: &MoveMap, steps: &[Step], now: Corner) -> Option<Corner> {
    let last = steps.last().filter(|s| s.road)?;
    let next = last
        .to
        .neighbours()
        .into_iter()
        .find(|n| *n != last.from && map.is_road(last.to, *n))?;
    let d = facing::direction(last.to, next)?;
    Corner::fronting(d).into_iter().min_by_key(|c| {
        let k = (c.index() + 6 - now.index()) % 6;
        (k.min(6 - k), c.index())
    })
}

/// Check a given path (`path[0]` is where the unit stands) for a mover.
pub fn check_path(
    map: &MoveMap,
    t: &MovementTables,
    m: &Mover,
    occ: &Occupancy,
    path: &[Hex],
) -> Result<Ruling, Illegal> {
    enemy_last(occ, |o| check_given(map, t, m, o, path))
}

/// 12.3.1 is ruled last: a move that fails for anything else (its cost, the terrain, the map
/// edge) is refused for that, as if no enemy stood on the way, and only a move that could
/// otherwise be made is refused for the enemy hex it enters. So a side cannot learn where
/// enemy units it does not see stand (4.0) by asking for moves its units could never make.
fn enemy_last(
    occ: &Occupancy,
    judge: impl Fn(&Occupancy) -> Result<Ruling, Illegal>,
) -> Result<Ruling, Illegal> {
    let ruled = judge(occ);
    if ruled.is_ok() || occ.enemy.is_empty() {
        return ruled;
    }
    // Refused: asked again with no enemy hexes (only refusals pay for the second search).
    let mut clear = occ.clone();
    clear.enemy.clear();
    judge(&clear)?;
    ruled
}

fn check_given(
    map: &MoveMap,
    t: &MovementTables,
    m: &Mover,
    occ: &Occupancy,
    path: &[Hex],
) -> Result<Ruling, Illegal> {
    let remaining = m.allowance.saturating_sub(m.spent);
    if path.len() < 2 {
        return Err(illegal(
            "empty-path",
            "12.0",
            path.first().copied(),
            "a path needs at least one hex to move to".into(),
            "give the hexes to move through, ending at the destination",
        ));
    }
    let mut steps = Vec::new();
    for w in path.windows(2) {
        check_entry(map, occ, w[0], w[1])?;
        steps.push(best_step(map, t, m, occ, w[0], w[1])?);
    }
    let planned = plan_facing(map, t, m, &mut steps);
    let (facing, start_facing) = (planned.map(|p| p.0), planned.map(|p| p.1));
    let cost = steps.iter().fold(0u32, |a, s| a.saturating_add(s.cost));
    let provenance = steps.iter().map(|s| s.provenance).max().unwrap_or_default();
    let hexes = steps.len() as u32;
    if let Some(max) = m.max_hexes
        && m.hexes_moved + hexes > max
    {
        // A Routed unit moves only to break up an over-stacked hex (9.2); otherwise a
        // scenario rule limits it.
        let (rule, why) = if m.morale == 0 {
            (
                "9.2",
                "a Routed unit may move one hex to break up an over-stacked hex",
            )
        } else {
            (
                "scenario",
                "a scenario rule limits it (e.g. Vimeiro: British guns ≤ 3 hexes)",
            )
        };
        return Err(illegal(
            "hex-limit",
            rule,
            Some(path[path.len() - 1]),
            format!(
                "this unit may move at most {} hex(es) this phase ({} already)",
                max.saturating_sub(m.hexes_moved),
                m.hexes_moved
            ),
            why,
        ));
    }
    // 12.2.5: the Morale State each step's terrain would lower the mover to (Sh 2, DG 1).
    let enters: Vec<Option<u8>> = steps
        .iter()
        .map(|s| entry_level(map, t, m.class, s))
        .collect();
    let walk =
        |budget: Option<u32>, morale: u8| walk_zoi(&steps, &enters, occ, morale, remaining, budget);
    let ruling = |w: Walk, charged, minimum_move, square_move| {
        let taken = w.taken;
        Ruling {
            path: path[..=taken].to_vec(),
            steps: steps[..taken].to_vec(),
            cost,
            charged,
            remaining,
            minimum_move,
            square_move,
            facing,
            zoi_degradations: w.degraded,
            entry_effects: w.entered,
            halved: w.lost,
            routed: w.routed,
            halted_short_of: None,
            halt: None,
            start_facing,
            provenance,
        }
    };
    if m.square {
        // 8.3.2: one hex, into clear terrain, having started in Square; all MP.
        let s = &steps[0];
        if hexes > 1 || m.spent > 0 {
            return Err(illegal(
                "square-one-hex",
                "8.3.2",
                Some(path[path.len() - 1]),
                "a Square moves a single hex a phase".into(),
                "change formation first (8.3.3) to move further",
            ));
        }
        if s.terrain != "clear" || s.parts.len() > 1 {
            return Err(illegal(
                "square-clear-only",
                "8.3.2",
                Some(s.to),
                format!(
                    "{} is {}: a Square moves only into clear terrain",
                    s.to,
                    s.parts.join(", ")
                ),
                "change formation first (8.3.3)",
            ));
        }
        return Ok(ruling(walk(None, m.morale), remaining, false, true));
    }
    let w = walk(Some(remaining), m.morale);
    let Some(at) = w.out_of_mp else {
        let charged = steps[..w.taken].iter().map(|s| s.cost).sum();
        return Ok(ruling(w, charged, false, false));
    };
    // 12.1.5: a unit that has spent nothing may always move one hex (not into Prohibited
    // terrain, which `best_step` refused already) — it spends everything and loses a state.
    if hexes == 1 && m.spent == 0 && m.allowance > 0 {
        // Its Morale State is lowered before the terrain's effect is judged (12.2.5).
        return Ok(ruling(
            walk(None, m.morale.saturating_sub(1)),
            remaining,
            true,
            false,
        ));
    }
    // 12.1.2 with 11.3.2: the path was affordable, but becoming Disorganized on the way halved
    // what was left; it goes as far as it can pay for and stops there. The facing it ends
    // with is the one it entered that hex with.
    if w.lost > 0 && cost <= remaining && w.taken > 0 {
        let charged = steps[..w.taken].iter().map(|s| s.cost).sum();
        let end = facing.and(steps[w.taken - 1].facing);
        let mut r = ruling(w, charged, false, false);
        r.halted_short_of = Some(path[path.len() - 1]);
        r.facing = end;
        return Ok(r);
    }
    let halved = if w.lost > 0 {
        format!(
            "; {} MP were lost when it became Disorganized (12.1.2)",
            show_halves(w.lost)
        )
    } else {
        String::new()
    };
    Err(illegal(
        "not-enough-mp",
        "12.1.3",
        Some(at),
        format!(
            "the path costs {} MP; {} MP left of {} (runs out entering {at}){halved}",
            show_halves(cost),
            show_halves(remaining),
            show_halves(m.allowance)
        ),
        "stop short, or move on next turn (`staffwork path` shows the cheapest route)",
    ))
}

/// A path walked step by step for Morale Degradation (11.3) and its MP.
struct Walk {
    /// Steps taken (all, unless it Routed or ran out).
    taken: usize,
    degraded: Vec<Hex>,
    entered: Vec<Hex>,
    lost: u32,
    routed: bool,
    /// The hex it could not pay to enter, if `budget` ran out.
    out_of_mp: Option<Hex>,
}

/// 12.2.5: the Morale State level (Sh 2, DG 1) a step's terrain or hexside lowers a mover of
/// `class` to on entering, by the Movement Table's `enters` cells; none by Road Movement
/// (chart p2: "when entering without Road Movement").
pub fn entry_level(map: &MoveMap, t: &MovementTables, class: &str, s: &Step) -> Option<u8> {
    if s.road {
        return None;
    }
    t.entry_effect(class, &s.terrain, map.hexside(s.from, s.to))
        .map(|e| match e.effect {
            EntryEffect::Shaken => 2,
            EntryEffect::Disorganized => 1,
        })
}

/// 11.3.1: each step directly from an enemy ZoI hex into another lowers the Morale State by
/// one; then (12.2.5: "implement the Morale Degradation first") terrain that makes it Shaken
/// or DG does so if it is in a better state. Becoming Disorganized halves the MP left (12.1.2,
/// rounded down, decision 0084); Routing stops the move (11.3.2). `budget` None: the MP are
/// not checked (Square, 12.1.5).
fn walk_zoi(
    steps: &[Step],
    enters: &[Option<u8>],
    occ: &Occupancy,
    morale: u8,
    remaining: u32,
    budget: Option<u32>,
) -> Walk {
    let mut w = Walk {
        taken: 0,
        degraded: Vec::new(),
        entered: Vec::new(),
        lost: 0,
        routed: false,
        out_of_mp: None,
    };
    let mut left = budget.unwrap_or(remaining);
    let mut morale = morale;
    for (i, s) in steps.iter().enumerate() {
        if budget.is_some() {
            if s.cost > left {
                w.out_of_mp = Some(s.to);
                return w;
            }
            left -= s.cost;
        } else {
            left = 0;
        }
        w.taken += 1;
        let was = morale;
        if occ.zoi.contains(&s.from) && occ.zoi.contains(&s.to) {
            w.degraded.push(s.to);
            morale = morale.saturating_sub(1);
            if morale == 0 {
                w.routed = true;
                return w;
            }
        }
        if let Some(level) = enters.get(i).copied().flatten()
            && morale > level
        {
            w.entered.push(s.to);
            morale = level;
        }
        if morale == 1 && was > 1 {
            let lost = left / 2; // the unit keeps the larger half (decision 0084)
            w.lost += lost;
            left -= lost;
        }
    }
    w
}

/// The cheapest legal path from `from` to `to` (Dijkstra; ties by the lowest hex). If `to` is
/// adjacent and too dear, the 12.1.5 minimum move is the answer.
pub fn cheapest(
    map: &MoveMap,
    t: &MovementTables,
    m: &Mover,
    occ: &Occupancy,
    from: Hex,
    to: Hex,
) -> Result<Ruling, Illegal> {
    enemy_last(occ, |o| cheapest_given(map, t, m, o, from, to))
}

fn cheapest_given(
    map: &MoveMap,
    t: &MovementTables,
    m: &Mover,
    occ: &Occupancy,
    from: Hex,
    to: Hex,
) -> Result<Ruling, Illegal> {
    if from == to {
        return Err(illegal(
            "empty-path",
            "12.0",
            Some(to),
            format!("the unit is already at {to}"),
            "name another hex",
        ));
    }
    if from.is_adjacent(to) || m.square {
        return check_given(map, t, m, occ, &[from, to]);
    }
    check_entry_final(map, occ, to)?;
    let r = search(map, t, m, occ, from, to, true);
    // A path round the Zones of Influence or the terrain that shakes (12.2.5) may be too dear;
    // the cheapest one then stands. One that halts short when it becomes Disorganized
    // (12.1.2) gives way to one that arrives.
    match r {
        Err(e) if e.code == "not-enough-mp" => search(map, t, m, occ, from, to, false),
        Ok(r) if r.halted_short_of.is_some() => match search(map, t, m, occ, from, to, false) {
            Ok(o) if o.halted_short_of.is_none() => Ok(o),
            _ => Ok(r),
        },
        r => r,
    }
}

/// Dijkstra over hex × corner × on-road; `avoid_zoi` ranks paths by Morale Degradations first.
fn search(
    map: &MoveMap,
    t: &MovementTables,
    m: &Mover,
    occ: &Occupancy,
    from: Hex,
    to: Hex,
    avoid_zoi: bool,
) -> Result<Ruling, Illegal> {
    // Search without the allowance cap first, so a too-far destination is told its price.
    // A node is a hex, the corner faced there (6 = all-around) and whether it was entered by
    // Road Movement (turns are free while it continues, 12.5.1).
    type Node = (Hex, usize, bool);
    let starts: Vec<usize> = match m.facing {
        None => vec![6],
        Some(set) => facing::members(set).map(Corner::index).collect(),
    };
    // 11.3: a path that costs no Morale State beats a cheaper one that does, so the price is
    // (Morale Degradations, half-points).
    let reached = dijkstra(
        starts.into_iter().map(|c| (from, c, false)),
        (0u32, 0u32),
        |node: Node| node.0 == to,
        |node, d, offer| {
            let (h, c, on_road) = node;
            for (dir, n) in h.neighbours().into_iter().enumerate() {
                if check_entry(map, occ, h, n).is_err() {
                    continue;
                }
                let Ok(s) = best_step(map, t, m, occ, h, n) else {
                    continue;
                };
                let free = c == 6 || turns_free_at(map, t, m, h) || (on_road && s.road);
                let options: Vec<(usize, u32)> = if c == 6 {
                    vec![(6, 0)]
                } else {
                    Corner::fronting(dir)
                        .iter()
                        .map(|x| {
                            let turn = if free {
                                0
                            } else {
                                facing::turn_cost(t, Corner::from_index(c), *x)
                            };
                            (x.index(), turn)
                        })
                        .collect()
                };
                for (nc, turn) in options {
                    // 11.3.1 and 12.2.5: a step that would cost a Morale State.
                    let degrades = u32::from(
                        avoid_zoi
                            && ((occ.zoi.contains(&h) && occ.zoi.contains(&n))
                                || entry_level(map, t, m.class, &s).is_some_and(|l| l < m.morale)),
                    );
                    let nd = (
                        d.0 + degrades,
                        d.1.saturating_add(s.cost).saturating_add(turn),
                    );
                    offer((n, nc, s.road), nd);
                }
            }
        },
        Ties::LowestPredecessor,
    );
    let Some(Reached { mut node, prev, .. }) = reached else {
        return Err(illegal(
            "no-path",
            "12.2.2",
            Some(to),
            format!("no legal path leads from {from} to {to}"),
            "it is cut off by Prohibited terrain or enemy units",
        ));
    };
    let mut path = vec![to];
    while let Some(p) = prev.get(&node) {
        path.push(p.0);
        node = *p;
    }
    path.reverse();
    check_given(map, t, m, occ, &path)
}

fn check_entry_final(map: &MoveMap, occ: &Occupancy, to: Hex) -> Result<(), Illegal> {
    if !map.contains(to) {
        return Err(illegal(
            "off-map",
            "12.3.4",
            Some(to),
            format!("{to} is off the map"),
            "units may not leave the map unless a scenario rule says so",
        ));
    }
    if occ.enemy.contains(&to) {
        return Err(illegal(
            "enemy-hex",
            "12.3.1",
            Some(to),
            format!("{to} holds enemy units"),
            "enter an enemy hex only by Close Combat (`combat close`) or a Charge (`combat charge`)",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movement::tables::builtin;

    fn tutorial() -> (Scenario, MoveMap) {
        let s = crate::scenario::bundled("tutorial-hall").expect("bundled tutorial loads");
        let m = MoveMap::new(&s);
        (s, m)
    }

    fn line() -> Mover {
        Mover {
            class: "line",
            allowance: 16,
            spent: 0,
            road_movement: false,
            square: false,
            max_hexes: None,
            hexes_moved: 0,
            facing: None,
            town_all_around: true,
            face: None,
            road_only: false,
            column: 0,
            morale: 3,
        }
    }

    #[test]
    fn line_pays_two_per_clear_hex_12_2() {
        let (_, m) = tutorial();
        let occ = Occupancy::default();
        // Find a clear hex and a clear neighbour at the same level with no hexside.
        let a = Hex::new(5, 5);
        let b = Hex::new(5, 6);
        assert_eq!(m.terrain(a), "clear");
        assert_eq!(m.terrain(b), "clear");
        let r = check_path(&m, builtin(), &line(), &occ, &[a, b]).unwrap();
        assert_eq!(r.cost, 4);
        assert!(!r.minimum_move);
    }

    #[test]
    fn off_map_and_enemy_hexes_are_refused_12_3() {
        let (_, m) = tutorial();
        let mut occ = Occupancy::default();
        let a = Hex::new(5, 5);
        let e = check_path(&m, builtin(), &line(), &occ, &[a, Hex::new(5, 99)]).unwrap_err();
        assert_eq!(e.code, "off-map");
        occ.enemy.insert(Hex::new(5, 6));
        let e = check_path(&m, builtin(), &line(), &occ, &[a, Hex::new(5, 6)]).unwrap_err();
        assert_eq!((e.code, e.rule), ("enemy-hex", "12.3.1"));
        assert_eq!(e.hex, Some(Hex::new(5, 6)));
    }

    #[test]
    fn too_far_is_refused_with_the_hex_where_mp_run_out_12_1_3() {
        let (_, m) = tutorial();
        let occ = Occupancy::default();
        let path: Vec<Hex> = (5..=10).map(|r| Hex::new(5, r)).collect();
        let e = check_path(&m, builtin(), &line(), &occ, &path).unwrap_err();
        assert_eq!(e.code, "not-enough-mp");
        assert_eq!(e.hex, Some(Hex::new(5, 10)));
    }

    #[test]
    fn minimum_move_takes_one_hex_for_everything_12_1_5() {
        let (_, m) = tutorial();
        let occ = Occupancy::default();
        let mut mv = line();
        mv.allowance = 2; // less than the 2 MP (4 halves) a clear hex costs a Line
        let r = check_path(&m, builtin(), &mv, &occ, &[Hex::new(5, 5), Hex::new(5, 6)]).unwrap();
        assert!(r.minimum_move);
        assert_eq!(r.charged, 2);
        mv.spent = 1;
        assert!(check_path(&m, builtin(), &mv, &occ, &[Hex::new(5, 5), Hex::new(5, 6)]).is_err());
    }

    #[test]
    fn cheapest_path_is_deterministic_and_legal() {
        let (_, m) = tutorial();
        let occ = Occupancy::default();
        let r1 = cheapest(&m, builtin(), &line(), &occ, Hex::new(5, 5), Hex::new(7, 7)).unwrap();
        let r2 = cheapest(&m, builtin(), &line(), &occ, Hex::new(5, 5), Hex::new(7, 7)).unwrap();
        assert_eq!(r1, r2);
        assert_eq!(r1.path.first(), Some(&Hex::new(5, 5)));
        assert_eq!(r1.path.last(), Some(&Hex::new(7, 7)));
        assert!(r1.cost <= 16);
    }

    #[test]
    fn terrain_entry_effect_only_without_road_movement_12_2_5() {
        let (_, m) = tutorial();
        let step = |road| Step {
            from: Hex::new(5, 5),
            to: Hex::new(5, 6),
            terrain: "village".into(),
            cost: 6,
            road,
            parts: Vec::new(),
            provenance: Provenance::Seed,
            facing: None,
        };
        // 19.3: a Line entering a village becomes DG (level 1); by Road Movement it does not
        // (chart p2: "when entering without Road Movement"), nor does a Column.
        assert_eq!(entry_level(&m, builtin(), "line", &step(false)), Some(1));
        assert_eq!(entry_level(&m, builtin(), "line", &step(true)), None);
        assert_eq!(entry_level(&m, builtin(), "column", &step(false)), None);
    }
}
