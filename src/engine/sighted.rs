//! What a side sees of the enemy this turn (4.0, 14.1): each side's eyes and Commanders, the
//! units that block sight and the visibility (`Sight`), and the game as a side sees it when it
//! plans a move (`seen_state`, decision 0181). `view` builds every seat's map from `Sight`; the
//! engine plans a side's move on `seen_state`. Must not: know seats, front ends or events.

use std::collections::{BTreeMap, BTreeSet};

use super::GameState;
use crate::hex::Hex;

/// How far from a friendly Commander an enemy stack may be examined (4.0).
pub const EXAMINE_RANGE: u32 = 12;

/// The game as `side` sees it (4.0, double-blind play): every enemy piece it does not see is
/// gone, with its Line Extensions, Zone of Influence and blocking of sight. A stack seen but
/// not examined stays (the side knows something stands there, decision 0161). A side plans its
/// moves on this (decision 0181); the move itself is carried out against the whole state.
pub fn seen_state(
    state: &GameState,
    scenario: &crate::scenario::Scenario,
    side: &str,
) -> GameState {
    let map = crate::movement::MoveMap::new(scenario);
    let sight = Sight::new(state, scenario, &map);
    let extensions = |p: &str| {
        state
            .movement
            .get(p)
            .map(|m| m.extensions.clone())
            .unwrap_or_default()
    };
    let unseen: Vec<String> = state
        .positions
        .iter()
        .filter(|(p, at)| {
            side_of_piece(scenario, p).is_some_and(|s| s != side)
                && !sight.seen_by(side, **at)
                && !extensions(p).iter().any(|h| sight.seen_by(side, *h))
        })
        .map(|(p, _)| p.clone())
        .collect();
    let mut seen = state.clone();
    for p in &unseen {
        seen.positions.remove(p);
        if let Some(m) = seen.movement.get_mut(p) {
            m.extensions.clear();
        }
    }
    seen
}

/// The side a piece (commander, `hq:<formation>`, unit) belongs to.
pub fn side_of_piece(scenario: &crate::scenario::Scenario, piece: &str) -> Option<String> {
    if let Some(f) = piece
        .strip_prefix("hq:")
        .and_then(|id| scenario.formation(id))
    {
        return Some(f.side.clone());
    }
    scenario
        .commander(piece)
        .map(|c| c.side.clone())
        .or_else(|| scenario.unit(piece).map(|u| u.side.clone()))
}

/// Who can see which hexes this turn: each side's eyes (and its Commanders', who examine
/// stacks, 4.0), the hexes whose units block sight (14.1.2.3: all but Skirmishers) and the
/// visibility (14.1.5).
pub struct Sight<'a> {
    map: &'a crate::movement::MoveMap,
    eyes: BTreeMap<String, BTreeSet<Hex>>,
    commanders: BTreeMap<String, BTreeSet<Hex>>,
    blockers: BTreeSet<Hex>,
    visibility: Option<u32>,
}

impl<'a> Sight<'a> {
    pub fn new(
        state: &GameState,
        scenario: &crate::scenario::Scenario,
        map: &'a crate::movement::MoveMap,
    ) -> Self {
        let mut eyes: BTreeMap<String, BTreeSet<_>> = Default::default();
        let mut commanders: BTreeMap<String, BTreeSet<_>> = Default::default();
        let mut blockers = BTreeSet::new();
        for (p, h) in &state.positions {
            if let Some(side) = side_of_piece(scenario, p) {
                eyes.entry(side).or_default().insert(*h);
            }
            if let Some(c) = scenario.commander(p) {
                commanders.entry(c.side.clone()).or_default().insert(*h);
            }
            if scenario
                .unit(p)
                .is_some_and(|u| u.kind != crate::scenario::UnitKind::Skirmisher)
            {
                blockers.insert(*h);
            }
        }
        let light = scenario
            .clock
            .turns()
            .get(state.turn.saturating_sub(1) as usize)
            .map_or(crate::scenario::clock::Light::Day, |t| t.light);
        let visibility =
            crate::movement::sight::visibility(crate::movement::tables::builtin(), scenario, light);
        Sight {
            map,
            eyes,
            commanders,
            blockers,
            visibility,
        }
    }

    /// Can one of `side`'s pieces see `target`?
    pub fn seen_by(&self, side: &str, target: Hex) -> bool {
        self.sees_from(self.eyes.get(side), target, None)
    }

    /// May `side` examine the stack at `target`: one of its Commanders at or within 12 hexes
    /// of it, with line of sight (4.0)?
    pub fn examined_by(&self, side: &str, target: Hex) -> bool {
        self.sees_from(self.commanders.get(side), target, Some(EXAMINE_RANGE))
    }

    fn sees_from(&self, eyes: Option<&BTreeSet<Hex>>, target: Hex, within: Option<u32>) -> bool {
        let t = crate::movement::tables::builtin();
        eyes.is_some_and(|eyes| {
            eyes.iter()
                .filter(|e| within.is_none_or(|r| e.distance(target) <= r))
                .any(|e| {
                    crate::movement::sight::line_of_sight(
                        self.map,
                        t,
                        *e,
                        target,
                        &self.blockers,
                        self.visibility,
                    )
                    .visible
                })
        })
    }
}
