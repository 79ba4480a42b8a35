//! Facing (10): a unit faces a hex corner; the two hexsides beside that corner are its front,
//! the next two its flanks, the last two its rear (10.0 box). Owns the six corners, which arc a
//! hexside is in, what turning costs (10.1.1–10.1.2), and how a scenario's hexside facing is
//! read (decision 0083). Must not: know units, formations or the map's terrain — the path
//! module asks, the engine decides who has all-around frontal facing (10.0 sidebar).
//!
//! Geometry: [`Hex::neighbours`] lists the hexsides N, NE, SE, S, SW, NW (indices 0–5) of a
//! flat-topped hex. Corner `i` lies between hexside `i` and hexside `i+1`, so the corners, by
//! compass bearing, are NNE, E, SSE, SSW, W, NNW.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::tables::MovementTables;
use crate::hex::Hex;
use crate::scenario::Facing;

/// The hex corner a unit faces (10.0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Corner {
    NNE,
    E,
    SSE,
    SSW,
    W,
    NNW,
}

/// All corners, in index order.
pub const CORNERS: [Corner; 6] = [
    Corner::NNE,
    Corner::E,
    Corner::SSE,
    Corner::SSW,
    Corner::W,
    Corner::NNW,
];

/// Which side of a unit a hexside is on (10.0 box).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Arc {
    Front,
    Flank,
    Rear,
}

impl Corner {
    /// Index 0–5 (corner `i` is between hexsides `i` and `i+1`).
    pub fn index(self) -> usize {
        CORNERS.iter().position(|c| *c == self).unwrap_or(0)
    }

    /// The corner of an index (taken modulo 6).
    pub fn from_index(i: usize) -> Corner {
        CORNERS[i % 6]
    }

    /// The two frontal hexside indices.
    pub fn front(self) -> [usize; 2] {
        let i = self.index();
        [i, (i + 1) % 6]
    }

    /// The arc of hexside `side` (0–5) for a unit facing this corner.
    pub fn arc(self, side: usize) -> Arc {
        match (side + 6 - self.index()) % 6 {
            0 | 1 => Arc::Front,
            2 | 5 => Arc::Flank,
            _ => Arc::Rear,
        }
    }

    /// The two corners that put hexside `side` in front (10.0): the one before it and the one
    /// after it.
    pub fn fronting(side: usize) -> [Corner; 2] {
        [Corner::from_index(side + 5), Corner::from_index(side)]
    }

    /// The compass name (`NNE`).
    pub fn name(self) -> &'static str {
        match self {
            Corner::NNE => "NNE",
            Corner::E => "E",
            Corner::SSE => "SSE",
            Corner::SSW => "SSW",
            Corner::W => "W",
            Corner::NNW => "NNW",
        }
    }
}

impl fmt::Display for Corner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Corner {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        CORNERS
            .iter()
            .find(|c| c.name().eq_ignore_ascii_case(s.trim()))
            .copied()
            .ok_or_else(|| {
                format!(
                    "`{s}` is not a hex corner; expected one of NNE, E, SSE, SSW, W, NNW (10.0: \
                     units face a corner; N, NE, SE, S, SW, NW are hexsides)"
                )
            })
    }
}

/// The hexside index (0–5, N..NW) from `a` into the adjacent `b`, if adjacent.
pub fn direction(a: Hex, b: Hex) -> Option<usize> {
    a.neighbours().iter().position(|n| *n == b)
}

/// The hexside index of a scenario's hexside facing (N = 0 … NW = 5).
pub fn side_index(f: Facing) -> usize {
    match f {
        Facing::N => 0,
        Facing::NE => 1,
        Facing::SE => 2,
        Facing::S => 3,
        Facing::SW => 4,
        Facing::NW => 5,
    }
}

/// A set of corners a unit may be facing, as a bitmask (bit `i` = corner `i`).
pub type Corners = u8;

/// Every corner: a unit whose set-up facing the scenario does not give (decision 0083).
pub const ANY_CORNER: Corners = 0b11_1111;

/// The corners a scenario's hexside facing allows: that hexside is frontal, so either corner
/// beside it (decision 0083).
pub fn corners_of(f: Option<Facing>) -> Corners {
    match f {
        None => ANY_CORNER,
        Some(f) => Corner::fronting(side_index(f))
            .iter()
            .fold(0, |m, c| m | 1 << c.index()),
    }
}

/// The corners in a set, in index order.
pub fn members(set: Corners) -> impl Iterator<Item = Corner> {
    CORNERS
        .into_iter()
        .filter(move |c| set & (1 << c.index()) != 0)
}

/// Half-points to turn from `a` to `b` (10.1.1: 1 MP per corner; 10.1.2: 1 MP for 180°).
pub fn turn_cost(t: &MovementTables, a: Corner, b: Corner) -> u32 {
    let d = (a.index() + 6 - b.index()) % 6;
    let k = d.min(6 - d) as u32;
    let corner = t.cost("facing_corner");
    let about = t.cost("about_face");
    // Turning k corners one by one, or about-facing and coming back 3 − k corners.
    (k * corner).min(about + (3 - k) * corner)
}

/// How to show a facing that may still be open: `NNE`, `N front (NNW or NNE)`, `any`.
pub fn show_set(set: Corners) -> String {
    let v: Vec<Corner> = members(set).collect();
    match v.as_slice() {
        [one] => one.to_string(),
        [a, b] if (b.index() + 6 - a.index()) % 6 == 1 || (a.index() + 6 - b.index()) % 6 == 1 => {
            // The hexside between two neighbouring corners is the shared frontal one.
            let side = if (a.index() + 1) % 6 == b.index() {
                b.index()
            } else {
                a.index()
            };
            let names = ["N", "NE", "SE", "S", "SW", "NW"];
            format!("{} front ({a} or {b})", names[side])
        }
        _ if set == ANY_CORNER => "not set (any corner)".into(),
        _ => v.iter().map(|c| c.name()).collect::<Vec<_>>().join(" or "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movement::tables::builtin;

    #[test]
    fn arcs_of_a_corner_are_two_front_two_flank_two_rear_10_0() {
        let c = Corner::NNE; // between N (0) and NE (1)
        let arcs: Vec<Arc> = (0..6).map(|s| c.arc(s)).collect();
        assert_eq!(
            arcs,
            vec![
                Arc::Front,
                Arc::Front,
                Arc::Flank,
                Arc::Rear,
                Arc::Rear,
                Arc::Flank
            ]
        );
        assert_eq!(Corner::E.front(), [1, 2]);
    }

    #[test]
    fn turning_costs_one_per_corner_and_one_for_180_10_1() {
        let t = builtin();
        assert_eq!(turn_cost(t, Corner::NNE, Corner::NNE), 0);
        assert_eq!(turn_cost(t, Corner::NNE, Corner::E), 2);
        assert_eq!(turn_cost(t, Corner::NNE, Corner::NNW), 2);
        assert_eq!(turn_cost(t, Corner::NNE, Corner::SSE), 4);
        assert_eq!(turn_cost(t, Corner::NNE, Corner::SSW), 2);
    }

    #[test]
    fn a_hexside_facing_leaves_the_two_corners_beside_it() {
        let set = corners_of(Some(Facing::N));
        let v: Vec<Corner> = members(set).collect();
        assert_eq!(v, vec![Corner::NNE, Corner::NNW]);
        assert_eq!(show_set(set), "N front (NNE or NNW)");
        assert_eq!(
            show_set(corners_of(Some(Facing::SE))),
            "SE front (E or SSE)"
        );
        assert_eq!("ssw".parse::<Corner>(), Ok(Corner::SSW));
        assert!("N".parse::<Corner>().is_err());
    }
}
