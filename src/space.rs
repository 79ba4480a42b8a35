//! Space: distance, path cost and adjacency behind one interface (DESIGN: the five rule systems
//! use hexes, an area graph or a tabletop; the engine asks only [`Space`]).
//!
//! [`HexSpace`] implements it for an NBS hex map: commander movement cost for courier delivery
//! (6.4.7) and command-range counting (6.11). Owns path finding over the map — the one
//! [`dijkstra`], which the units' paths (`movement::path`, 12) use too — and the map's roads and
//! hexside features as both read them ([`Features`]); must not know about orders or game state.
//! All costs are integers in half movement points (roads cost ½).

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap};

use crate::hex::Hex;
use crate::provenance::Provenance;
use crate::scenario::{PlaceKind, Scenario};

/// What the engine needs to know about space, whatever the rule system's map.
pub trait Space {
    /// True when a location is on the playing area.
    fn contains(&self, h: Hex) -> bool;
    /// Straight distance in hexes (or areas, or inches) between two locations.
    fn distance(&self, a: Hex, b: Hex) -> u32;
    /// Cheapest commander path cost from `a` to `b` in half-MP, or `None` if unreachable.
    fn commander_cost(&self, a: Hex, b: Hex) -> Option<PathCost>;
    /// Distance for command range (6.11): hexes counted with rough terrain as 2 unless along a
    /// road. `None` if unreachable within `limit` (the search stops there).
    fn range_distance(&self, a: Hex, b: Hex, limit: u32) -> Option<u32>;
}

/// A path cost and the provenance of the least certain cost it used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathCost {
    /// Cost in half movement points.
    pub halves: u32,
    /// `Assumed` if any step used an assumed cost, else `Derived` or `Seed`.
    pub provenance: Provenance,
}

impl PathCost {
    /// Courier transit in turns: MP / 10, rounded up (6.4.7).
    pub fn courier_turns(self) -> u32 {
        self.halves.div_ceil(20)
    }
}

/// An NBS hex map with commander costs, roads and hexside features from a scenario.
#[derive(Clone, Debug)]
pub struct HexSpace {
    features: Features,
    /// Cost to enter each hex off-road, `None` when prohibited; with the cost's provenance.
    enter: BTreeMap<Hex, (Option<u32>, Provenance)>,
    /// Hexes that count double for command range (woods, swamp, steep slope; 6.11).
    rough: BTreeSet<Hex>,
    road_cost: (u32, Provenance),
    /// Extra commander cost to cross a hexside feature ("stream", "river", "wall").
    hexside_cost: BTreeMap<&'static str, (u32, Provenance)>,
}

/// A hexside as a key: its two hexes, lower first.
fn key(a: Hex, b: Hex) -> (Hex, Hex) {
    if a <= b { (a, b) } else { (b, a) }
}

/// The map's extent, roads and hexside features, read once from a scenario for every path over
/// it: the commander's (6.4.7, 6.11) and the units' (12).
#[derive(Clone, Debug)]
pub struct Features {
    first: (i32, i32),
    last: (i32, i32),
    /// Road steps, both directions.
    road: BTreeSet<(Hex, Hex)>,
    /// Hexside feature by hexside: "stream", "river", "wall".
    hexside: BTreeMap<(Hex, Hex), &'static str>,
    /// Bridges, fords and gates (gates in a wall are crossed like a bridge, Talavera T1.2e): a
    /// hexside feature crossed there costs nothing extra.
    crossings: BTreeSet<(Hex, Hex)>,
}

impl Features {
    /// The features of a scenario's map.
    pub fn new(s: &Scenario) -> Self {
        let m = &s.map;
        let mut road = BTreeSet::new();
        let mut hexside = BTreeMap::new();
        let mut crossings = BTreeSet::new();
        for p in &s.places {
            match p.kind {
                PlaceKind::Road => {
                    for w in p.hexes.windows(2) {
                        if w[0].is_adjacent(w[1]) {
                            road.insert((w[0], w[1]));
                            road.insert((w[1], w[0]));
                        }
                    }
                }
                PlaceKind::Stream | PlaceKind::River | PlaceKind::Wall => {
                    let kind = match p.kind {
                        PlaceKind::Stream => "stream",
                        PlaceKind::River => "river",
                        _ => "wall",
                    };
                    for hs in &p.hexsides {
                        hexside.insert(key(hs.0, hs.1), kind);
                    }
                }
                PlaceKind::Bridge | PlaceKind::Ford | PlaceKind::Gate => {
                    for hs in &p.hexsides {
                        crossings.insert(key(hs.0, hs.1));
                    }
                }
                _ => {}
            }
        }
        Features {
            first: (m.first_col, m.first_row),
            last: (m.last_col, m.last_row),
            road,
            hexside,
            crossings,
        }
    }

    /// True when the hex is on the playing area.
    pub fn contains(&self, h: Hex) -> bool {
        h.map.is_none()
            && (self.first.0..=self.last.0).contains(&h.col)
            && (self.first.1..=self.last.1).contains(&h.row)
    }

    /// True when a road runs from `a` into the adjacent `b`.
    pub fn is_road(&self, a: Hex, b: Hex) -> bool {
        self.road.contains(&(a, b))
    }

    /// The hexside feature between two adjacent hexes, unless a bridge, ford or gate crosses it.
    pub fn hexside(&self, a: Hex, b: Hex) -> Option<&'static str> {
        let k = key(a, b);
        if self.crossings.contains(&k) {
            return None;
        }
        self.hexside.get(&k).copied()
    }
}

/// Where a search ended: the goal node reached, its cost, and each node's predecessor on the
/// cheapest way found to it (walk back from `node` for the path).
#[derive(Debug)]
pub struct Reached<N, C> {
    pub node: N,
    pub cost: C,
    pub prev: BTreeMap<N, N>,
}

/// How a search settles two ways to a node at the same cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ties {
    /// The way found first stays (the commander's costs: only the cost is asked for).
    FirstFound,
    /// The way from the lower predecessor wins (the units' paths, so the path itself never
    /// depends on the order the heap pops equal costs).
    LowestPredecessor,
}

/// Dijkstra's search over integer costs, the one path finder of the crate: `starts` at cost
/// `zero`, stopping at the first node popped for which `goal` holds. `edges(node, cost, offer)`
/// offers each successor with its total cost; `offer` returns true when it is the best way to it
/// so far (the caller may then record what it carries along, such as a provenance). Maps and the
/// heap are ordered, so the answer never depends on iteration order; a cost ties on its node.
pub fn dijkstra<N: Ord + Copy, C: Ord + Copy>(
    starts: impl IntoIterator<Item = N>,
    zero: C,
    goal: impl Fn(N) -> bool,
    mut edges: impl FnMut(N, C, &mut dyn FnMut(N, C) -> bool),
    ties: Ties,
) -> Option<Reached<N, C>> {
    let mut best: BTreeMap<N, C> = BTreeMap::new();
    let mut prev: BTreeMap<N, N> = BTreeMap::new();
    let mut heap = BinaryHeap::new();
    for n in starts {
        best.insert(n, zero);
        heap.push(Reverse((zero, n)));
    }
    while let Some(Reverse((d, node))) = heap.pop() {
        if goal(node) {
            return Some(Reached {
                node,
                cost: d,
                prev,
            });
        }
        if best.get(&node).is_some_and(|x| *x < d) {
            continue;
        }
        edges(node, d, &mut |next, nd| {
            let better = match best.get(&next) {
                None => true,
                Some(x) => {
                    nd < *x
                        || (ties == Ties::LowestPredecessor
                            && nd == *x
                            && prev.get(&next).is_some_and(|p| node < *p))
                }
            };
            if better {
                best.insert(next, nd);
                prev.insert(next, node);
                heap.push(Reverse((nd, next)));
            }
            better
        });
    }
    None
}

impl HexSpace {
    /// Build the space of a scenario's map.
    pub fn new(s: &Scenario) -> Self {
        let m = &s.map;
        let costs = &s.commander_costs;
        let mut enter = BTreeMap::new();
        let mut rough = BTreeSet::new();
        for col in m.first_col..=m.last_col {
            for row in m.first_row..=m.last_row {
                let h = Hex::new(col, row);
                let terrain = m.terrain_at(h).unwrap_or("clear");
                let cost = costs.terrain.get(terrain);
                let entry = match cost {
                    Some(c) => (c.mp.map(|x| x.halves()), c.provenance),
                    // A terrain without a cost was refused by validation; treat as clear.
                    None => (Some(2), Provenance::Assumed),
                };
                if entry.0.is_some_and(|h| h >= 4) {
                    rough.insert(h);
                }
                enter.insert(h, entry);
            }
        }
        let hexside_cost = ["stream", "river", "wall"]
            .into_iter()
            .filter_map(|kind| {
                let c = costs.hexside.get(kind)?;
                Some((
                    kind,
                    (c.mp.map_or(u32::MAX / 4, |x| x.halves()), c.provenance),
                ))
            })
            .collect();
        HexSpace {
            features: Features::new(s),
            enter,
            rough,
            road_cost: (
                costs.road.mp.map_or(1, |x| x.halves()),
                costs.road.provenance,
            ),
            hexside_cost,
        }
    }

    /// Cost of one step from `a` into the adjacent `b`, with its provenance.
    fn step(&self, a: Hex, b: Hex) -> Option<(u32, Provenance)> {
        let road = self.features.is_road(a, b);
        let (base, prov) = if road {
            self.road_cost
        } else {
            let (c, p) = self.enter.get(&b)?;
            ((*c)?, *p)
        };
        let crossing = self
            .features
            .hexside(a, b)
            .and_then(|kind| self.hexside_cost.get(kind));
        let (extra, prov2) = match crossing {
            Some(x) if !road => *x,
            _ => (0, Provenance::Seed),
        };
        Some((base + extra, prov.max(prov2)))
    }

    /// Cheapest path from `a` to `b` no dearer than `limit` (every step costs at least 1, so a
    /// target further than `limit` hexes is not searched for).
    /// `min_step` is the least a step can cost: a hex that cannot reach `b` within `limit`
    /// even at that cost per remaining hex is not explored (A*-style pruning; exact, because
    /// such a hex lies on no path to `b` within the limit). 0 explores everything.
    fn dijkstra(
        &self,
        a: Hex,
        b: Hex,
        limit: u32,
        min_step: u32,
        step: impl Fn(Hex, Hex) -> Option<(u32, Provenance)>,
    ) -> Option<PathCost> {
        if !self.contains(a) || !self.contains(b) || a.distance(b) > limit {
            return None;
        }
        // The provenance of the cheapest way to each hex: the least certain cost on it.
        let mut prov: BTreeMap<Hex, Provenance> = BTreeMap::new();
        prov.insert(a, Provenance::Seed);
        let reached = dijkstra(
            [a],
            0u32,
            |h| h == b,
            |h, d, offer| {
                let here = prov.get(&h).copied().unwrap_or(Provenance::Seed);
                for n in h.neighbours() {
                    if !self.contains(n) {
                        continue;
                    }
                    let Some((c, p)) = step(h, n) else { continue };
                    let nd = d.saturating_add(c);
                    let rest = n.distance(b).saturating_mul(min_step);
                    if nd.saturating_add(rest) <= limit && offer(n, nd) {
                        prov.insert(n, here.max(p));
                    }
                }
            },
            Ties::FirstFound,
        )?;
        Some(PathCost {
            halves: reached.cost,
            provenance: prov.get(&b).copied().unwrap_or(Provenance::Seed),
        })
    }
}

impl Space for HexSpace {
    fn contains(&self, h: Hex) -> bool {
        self.features.contains(h)
    }

    fn distance(&self, a: Hex, b: Hex) -> u32 {
        a.distance(b)
    }

    fn commander_cost(&self, a: Hex, b: Hex) -> Option<PathCost> {
        self.dijkstra(a, b, u32::MAX, 0, |x, y| self.step(x, y))
    }

    fn range_distance(&self, a: Hex, b: Hex, limit: u32) -> Option<u32> {
        // 6.11: count hexes; woods, swamp and steep slope count 2 unless a road negates this.
        let step = |x: Hex, y: Hex| {
            let prohibited = self.enter.get(&y).is_none_or(|(c, _)| c.is_none());
            if prohibited {
                return None;
            }
            let rough = self.rough.contains(&y) && !self.features.is_road(x, y);
            Some((if rough { 2 } else { 1 }, Provenance::Seed))
        };
        // Every step costs 1 or 2 (issue 16: prune what cannot reach `b` within the range).
        self.dijkstra(a, b, limit, 1, step).map(|p| p.halves)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tutorial() -> HexSpace {
        HexSpace::new(&crate::scenario::bundled("tutorial-hall").expect("bundled tutorial loads"))
    }

    /// A diamond 0 → {1, 2} → 3, both ways costing 3 (0→1 costs 2 and 1→3 costs 1; 0→2 costs
    /// 1 and 2→3 costs 2), so 2 is popped first and offers 3 first: the units' paths take the
    /// way through the lower predecessor (1), the commander's keep the way found first (2).
    #[test]
    fn the_one_search_settles_ties_as_asked() {
        let search = |ties: Ties| {
            dijkstra(
                [0u32],
                0u32,
                |n| n == 3,
                |n, d, offer| match n {
                    0 => {
                        offer(1, d + 2);
                        offer(2, d + 1);
                    }
                    1 => {
                        offer(3, d + 1);
                    }
                    2 => {
                        offer(3, d + 2);
                    }
                    _ => {}
                },
                ties,
            )
            .map(|r| (r.cost, r.prev[&3]))
        };
        assert_eq!(search(Ties::LowestPredecessor), Some((3, 1)));
        assert_eq!(search(Ties::FirstFound), Some((3, 2)));
        assert_eq!(
            dijkstra([0u32], 0u32, |n| n == 9, |_, _, _| {}, Ties::FirstFound).map(|r| r.cost),
            None
        );
    }

    #[test]
    fn road_costs_half_a_point_per_hex_6_4_7() {
        let s = tutorial();
        // Army HQ 2.10 to Hinzeberg 8.10 along the Hinzeberg road: 6 hexes at 1/2 = 3 MP.
        let c = s.commander_cost(Hex::new(2, 10), Hex::new(8, 10)).unwrap();
        assert_eq!(c.halves, 6);
        assert_eq!(c.courier_turns(), 1);
    }

    #[test]
    fn courier_turns_round_up_mp_over_ten_6_4_7() {
        let c = PathCost {
            halves: 21,
            provenance: Provenance::Seed,
        };
        assert_eq!(c.courier_turns(), 2); // 10.5 MP -> 2 turns
        let c = PathCost {
            halves: 20,
            provenance: Provenance::Seed,
        };
        assert_eq!(c.courier_turns(), 1);
        let c = PathCost {
            halves: 0,
            provenance: Provenance::Seed,
        };
        assert_eq!(c.courier_turns(), 0);
    }

    #[test]
    fn crossing_the_stream_off_the_bridge_costs_extra() {
        let s = tutorial();
        // 11.05 -> 12.05 crosses the Viskan with no bridge: clear (1) + stream (2) = 3 MP.
        let c = s.commander_cost(Hex::new(11, 5), Hex::new(12, 5)).unwrap();
        assert_eq!(c.halves, 6);
        assert_eq!(c.provenance, Provenance::Assumed);
    }

    #[test]
    fn off_map_is_unreachable() {
        let s = tutorial();
        assert!(
            s.commander_cost(Hex::new(2, 10), Hex::new(99, 10))
                .is_none()
        );
    }
}
