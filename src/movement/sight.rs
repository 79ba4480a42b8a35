//! Line of sight (14.1) and visibility (14.1.5) on an NBS hex map, in integer arithmetic.
//!
//! The line runs centre to centre. The hexes it crosses are found by cube-coordinate
//! interpolation nudged both ways, so a line running exactly along a hexside takes both hexes
//! (14.1.2: "features in either hex may block"). A hex's height is its elevation, +1 for
//! Blocking terrain (14.1.2.2), +1 for a unit other than Skirmishers (14.1.2.3). Adjacent hexes
//! always see each other; features in the sighting and target hexes never count (14.1.1.1).
//! Between hexes of different levels the slope formula of 14.1.4 decides (decision 0082).
//!
//! Must not: know game state, sides or orders — the caller says which hexes hold units.

use std::collections::BTreeSet;

use serde::Serialize;

use super::path::MoveMap;
use super::tables::MovementTables;
use crate::hex::Hex;

fn cube(h: Hex) -> (i64, i64, i64) {
    let row_down = -i64::from(h.row);
    let q = i64::from(h.col);
    let r = row_down - (q - (q & 1)) / 2;
    (q, r, -q - r)
}

fn from_cube(q: i64, r: i64) -> Hex {
    let row_down = r + (q - (q & 1)) / 2;
    Hex::new(q as i32, (-row_down) as i32)
}

/// Round a scaled cube point (x, y, z with x + y + z = 0, each over `s`) to a hex.
fn round(x: i64, y: i64, z: i64, s: i64) -> Hex {
    let r = |v: i64| (2 * v + s).div_euclid(2 * s);
    let (mut rq, mut rr, rs) = (r(x), r(y), r(z));
    let (dq, dr, ds) = ((rq * s - x).abs(), (rr * s - y).abs(), (rs * s - z).abs());
    if dq > dr && dq > ds {
        rq = -rr - rs;
    } else if dr > ds {
        rr = -rq - rs;
    }
    from_cube(rq, rr)
}

/// The hexes strictly between `a` and `b` that the centre-to-centre line touches, in order
/// from `a`; both hexes where the line runs along a hexside.
pub fn hexes_between(a: Hex, b: Hex) -> Vec<Hex> {
    let n = i64::from(a.distance(b));
    if n < 2 {
        return Vec::new();
    }
    let (a, b) = (cube(a), cube(b));
    // Scale so that a nudge of ±(1, 1, −2) is far smaller than any non-tie rounding margin.
    let s = 6 * n;
    let mut out: Vec<Hex> = Vec::new();
    for i in 1..n {
        let x = (a.0 * (n - i) + b.0 * i) * 6;
        let y = (a.1 * (n - i) + b.1 * i) * 6;
        let z = (a.2 * (n - i) + b.2 * i) * 6;
        for (ex, ey, ez) in [(1, 1, -2), (-1, -1, 2)] {
            let h = round(x + ex, y + ey, z + ez, s);
            if !out.contains(&h) {
                out.push(h);
            }
        }
    }
    out
}

/// One intervening hex and what it contributes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SightHex {
    pub hex: Hex,
    pub terrain: String,
    pub elevation: u8,
    /// Blocking terrain adds a level (14.1.2.2).
    pub blocking_terrain: bool,
    /// A unit (not a Skirmisher) adds a level (14.1.2.3).
    pub unit: bool,
    pub height: u32,
    /// Does this hex block the line?
    pub blocks: bool,
    /// Why or why not, with the rule.
    pub why: String,
}

/// A ruling on whether `from` sees `to`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SightRuling {
    pub from: Hex,
    pub to: Hex,
    pub distance: u32,
    pub from_level: u8,
    pub to_level: u8,
    /// The visibility in force (hexes), `None` = unlimited (14.1.5).
    pub visibility: Option<u32>,
    pub visible: bool,
    /// The deciding rule and reason in words.
    pub rule: &'static str,
    pub reason: String,
    pub hexes: Vec<SightHex>,
}

/// Decide line of sight from `from` to `to`. `units` are hexes holding units other than
/// Skirmishers (14.1.2.3); `visibility` caps the range (14.1.5).
pub fn line_of_sight(
    map: &MoveMap,
    t: &MovementTables,
    from: Hex,
    to: Hex,
    units: &BTreeSet<Hex>,
    visibility: Option<u32>,
) -> SightRuling {
    let distance = from.distance(to);
    let (ea, eb) = (map.elevation(from), map.elevation(to));
    let mut r = SightRuling {
        from,
        to,
        distance,
        from_level: ea,
        to_level: eb,
        visibility,
        visible: true,
        rule: "14.1.1",
        reason: String::new(),
        hexes: Vec::new(),
    };
    if !map.contains(from) || !map.contains(to) {
        r.visible = false;
        r.rule = "2.1";
        r.reason = "a hex is off the map".into();
        return r;
    }
    if let Some(v) = visibility
        && distance > v
    {
        r.visible = false;
        r.rule = "14.1.5";
        r.reason = format!("{distance} hexes is beyond this turn's visibility of {v}");
        return r;
    }
    if distance <= 1 {
        r.reason = if distance == 0 {
            "the same hex".into()
        } else {
            "adjacent hexes always see each other (14.1.1.1)".into()
        };
        r.rule = "14.1.1.1";
        return r;
    }
    let (low, high, low_hex) = if ea <= eb {
        (u32::from(ea), u32::from(eb), from)
    } else {
        (u32::from(eb), u32::from(ea), to)
    };
    let dd = i64::from(distance);
    for h in hexes_between(from, to) {
        let terrain = map.terrain(h).to_string();
        let blocking_terrain = t.terrain_row(&terrain).0.blocking;
        let unit = units.contains(&h);
        let elevation = map.elevation(h);
        let height = u32::from(elevation) + u32::from(blocking_terrain) + u32::from(unit);
        let feature = blocking_terrain || unit;
        let (blocks, why) = if !map.contains(h) {
            (
                true,
                "off the map: when in doubt, blocked (14.1.2.4)".to_string(),
            )
        } else if ea == eb {
            // 14.1.3.1: anything higher than the common level blocks.
            (
                height > low,
                format!("height {height} against level {low} of both ends (14.1.3.1)"),
            )
        } else if height > high {
            (
                true,
                format!("height {height} above both ends ({low}, {high}) (14.1.3.2)"),
            )
        } else {
            // 14.1.4: blocked if height >= d(H−L)/D + L, d from the lower hex; in integers
            // height·D >= d·(H−L) + L·D. Bare ground exactly on the line is a smooth slope and
            // does not block (14.1.3.3); a feature on the line does (14.1.2.4).
            let d = i64::from(h.distance(low_hex));
            let lhs = i64::from(height) * dd;
            let rhs = d * i64::from(high - low) + i64::from(low) * dd;
            let blocks = if feature { lhs >= rhs } else { lhs > rhs };
            (
                blocks,
                format!(
                    "height {height} against the sight line at level {}/{dd}, {d} hexes from the lower end (14.1.4)",
                    rhs
                ),
            )
        };
        r.hexes.push(SightHex {
            hex: h,
            terrain,
            elevation,
            blocking_terrain,
            unit,
            height,
            blocks,
            why,
        });
    }
    if let Some(b) = r.hexes.iter().find(|x| x.blocks) {
        r.visible = false;
        r.rule = "14.1.2";
        let what = match (b.blocking_terrain, b.unit) {
            (true, true) => format!("{} with units", b.terrain),
            (true, false) => b.terrain.clone(),
            (false, true) => "units".to_string(),
            (false, false) => format!("level {} ground", b.elevation),
        };
        r.reason = format!("blocked at {} by {what}: {}", b.hex, b.why);
    } else {
        r.reason = "no intervening hex rises to the line".into();
    }
    r
}

/// Visibility in hexes for a turn's light (14.1.5): the scenario's Turn Record Track value,
/// else the table's; `None` = unlimited.
pub fn visibility(
    t: &MovementTables,
    scenario: &crate::scenario::Scenario,
    light: crate::scenario::clock::Light,
) -> Option<u32> {
    use crate::scenario::clock::Light;
    let v = &scenario.clock.visibility;
    let (own, key) = match light {
        Light::Day => (v.day, "day"),
        Light::Dawn => (v.dawn, "dawn"),
        Light::Dusk => (v.dusk, "dusk"),
        Light::Night => (v.night, "night"),
    };
    let n = own.or_else(|| t.visibility.get(key).map(|s| s.hexes))?;
    (n > 0).then_some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_straight_column_line_touches_each_hex_between() {
        let a = Hex::new(5, 5);
        let b = Hex::new(5, 9);
        assert_eq!(
            hexes_between(a, b),
            vec![Hex::new(5, 6), Hex::new(5, 7), Hex::new(5, 8)]
        );
    }

    #[test]
    fn cube_round_trip() {
        for c in -3..8 {
            for r in -3..8 {
                let h = Hex::new(c, r);
                let (q, rr, _) = cube(h);
                assert_eq!(from_cube(q, rr), h);
            }
        }
    }

    #[test]
    fn a_line_along_a_hexside_takes_both_hexes_14_1_2() {
        // 5.5 to 7.5 (distance 2) passes between 6.4 and 6.5.
        let a = Hex::new(5, 5);
        let b = Hex::new(7, 5);
        assert_eq!(a.distance(b), 2);
        let mid = hexes_between(a, b);
        assert_eq!(mid.len(), 2, "{mid:?}");
        for h in &mid {
            assert!(h.is_adjacent(a) && h.is_adjacent(b));
        }
    }

    #[test]
    fn every_hex_between_is_nearer_than_the_ends() {
        let a = Hex::new(2, 3);
        let b = Hex::new(11, 9);
        let d = a.distance(b);
        for h in hexes_between(a, b) {
            assert!(h.distance(a) < d && h.distance(b) < d, "{h}");
        }
    }
}
