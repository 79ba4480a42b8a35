//! Hex numbers and hex-grid geometry (NBS 2.1.1, 3.3).
//!
//! NBS numbers a hex `CC.RR`: column counted left to right, row counted bottom to top, with an
//! optional map letter in multi-map games (`B29.17`). Columns are vertical files of flat-topped
//! hexes; **odd columns sit half a hex lower than even ones** (decision 0002). This module owns
//! parsing, printing, neighbours and distance; it knows nothing of terrain.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One hex of the map, `CC.RR`, with an optional map letter.
///
/// ```
/// use staffwork::hex::Hex;
/// let h: Hex = "29.17".parse().unwrap();
/// assert_eq!(h, Hex::new(29, 17));
/// assert_eq!(h.to_string(), "29.17");
/// assert_eq!(h.distance("29.21".parse().unwrap()), 4);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Hex {
    /// Map letter for multi-map games (`b'B'` in `B29.17`), or `None`.
    pub map: Option<u8>,
    /// Column, counted from the left edge.
    pub col: i32,
    /// Row, counted from the bottom edge.
    pub row: i32,
}

/// Why a hex number could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HexParseError {
    /// `"29-17"`, `"hill"`: not of the form `CC.RR`.
    #[error(
        "`{0}` is not a hex number; expected CC.RR such as 29.17 (optionally with a map letter, B29.17)"
    )]
    Malformed(String),
}

impl Hex {
    /// A hex on the single (unlettered) map.
    pub const fn new(col: i32, row: i32) -> Self {
        Hex {
            map: None,
            col,
            row,
        }
    }

    /// Cube coordinates (q, r, s) used for distance. Odd columns are shifted half a hex down.
    fn cube(self) -> (i32, i32, i32) {
        // Work with rows counted downwards so the usual "odd-q" conversion applies.
        let row_down = -self.row;
        let q = self.col;
        let r = row_down - (self.col - (self.col & 1)) / 2;
        (q, r, -q - r)
    }

    /// The hex that stands to `to` as `self` stands to `from`: `self` moved by the step from
    /// `from` to `to`, in cube coordinates so a shape keeps its form across odd and even
    /// columns (a formation moving as one, decision 0162). Takes `to`'s map letter.
    pub fn translated(self, from: Hex, to: Hex) -> Hex {
        let (q, r, _) = self.cube();
        let (fq, fr, _) = from.cube();
        let (tq, tr, _) = to.cube();
        let (q, r) = (q + tq - fq, r + tr - fr);
        let row_down = r + (q - (q & 1)) / 2;
        Hex {
            map: to.map,
            col: q,
            row: -row_down,
        }
    }

    /// Hex distance (number of hexes moved to go from `self` to `other`), ignoring map letters.
    pub fn distance(self, other: Hex) -> u32 {
        let (q1, r1, s1) = self.cube();
        let (q2, r2, s2) = other.cube();
        ((q1 - q2).unsigned_abs() + (r1 - r2).unsigned_abs() + (s1 - s2).unsigned_abs()) / 2
    }

    /// The six neighbours, in a fixed order (N, NE, SE, S, SW, NW). Some may be off the map.
    pub fn neighbours(self) -> [Hex; 6] {
        let (c, r) = (self.col, self.row);
        // Odd columns are half a hex lower, so their side neighbours are at r and r-1;
        // even columns' side neighbours are at r and r+1.
        let (upper, lower) = if c & 1 == 1 { (r, r - 1) } else { (r + 1, r) };
        let m = self.map;
        [
            Hex {
                map: m,
                col: c,
                row: r + 1,
            },
            Hex {
                map: m,
                col: c + 1,
                row: upper,
            },
            Hex {
                map: m,
                col: c + 1,
                row: lower,
            },
            Hex {
                map: m,
                col: c,
                row: r - 1,
            },
            Hex {
                map: m,
                col: c - 1,
                row: lower,
            },
            Hex {
                map: m,
                col: c - 1,
                row: upper,
            },
        ]
    }

    /// True when the two hexes share a side.
    pub fn is_adjacent(self, other: Hex) -> bool {
        self.distance(other) == 1
    }
}

impl fmt::Display for Hex {
    /// Prints the NBS form: `2.10`, `29.07`, `B29.17`. Rows below 10 get a leading zero.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(m) = self.map {
            write!(f, "{}", m as char)?;
        }
        write!(f, "{}.{:02}", self.col, self.row)
    }
}

impl FromStr for Hex {
    type Err = HexParseError;

    /// Reads `29.17`, `2.10`, `B29.17`, `29.7` (rows may omit the leading zero).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || HexParseError::Malformed(s.to_string());
        let t = s.trim();
        let (map, rest) = match t.as_bytes().first() {
            Some(b) if b.is_ascii_alphabetic() => (Some(b.to_ascii_uppercase()), &t[1..]),
            _ => (None, t),
        };
        let (c, r) = rest.split_once('.').ok_or_else(bad)?;
        let digits =
            |x: &str| !x.is_empty() && x.len() <= 3 && x.bytes().all(|b| b.is_ascii_digit());
        if !digits(c) || !digits(r) {
            return Err(bad());
        }
        Ok(Hex {
            map,
            col: c.parse().map_err(|_| bad())?,
            row: r.parse().map_err(|_| bad())?,
        })
    }
}

impl Serialize for Hex {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Hex {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_nbs_hex_numbers() {
        let h: Hex = "29.17".parse().unwrap();
        assert_eq!(h, Hex::new(29, 17));
        assert_eq!(h.to_string(), "29.17");
        assert_eq!("2.10".parse::<Hex>().unwrap().to_string(), "2.10");
        assert_eq!("38.2".parse::<Hex>().unwrap().to_string(), "38.02");
        let b: Hex = "B29.17".parse().unwrap();
        assert_eq!(b.map, Some(b'B'));
        assert_eq!(b.to_string(), "B29.17");
        assert!("hill".parse::<Hex>().is_err());
        assert!("29-17".parse::<Hex>().is_err());
        assert!(".17".parse::<Hex>().is_err());
    }

    #[test]
    fn every_neighbour_is_at_distance_one_and_symmetric() {
        for h in [
            Hex::new(10, 10),
            Hex::new(11, 10),
            Hex::new(0, 0),
            Hex::new(3, 1),
        ] {
            for n in h.neighbours() {
                assert_eq!(h.distance(n), 1, "{h} -> {n}");
                assert!(n.neighbours().contains(&h), "{n} should list {h}");
            }
        }
    }

    #[test]
    fn a_shape_translated_keeps_its_distances() {
        let shape = [
            Hex::new(5, 6),
            Hex::new(4, 6),
            Hex::new(6, 6),
            Hex::new(5, 9),
        ];
        for (from, to) in [
            (Hex::new(5, 6), Hex::new(8, 7)),
            (Hex::new(5, 6), Hex::new(6, 6)),
            (Hex::new(4, 6), Hex::new(4, 2)),
        ] {
            let moved: Vec<Hex> = shape.iter().map(|h| h.translated(from, to)).collect();
            assert_eq!(from.translated(from, to), to);
            for (i, a) in shape.iter().enumerate() {
                for (j, b) in shape.iter().enumerate() {
                    assert_eq!(a.distance(*b), moved[i].distance(moved[j]), "{from} → {to}");
                }
            }
        }
    }

    #[test]
    fn distance_counts_hexes_along_columns_and_rows() {
        assert_eq!(Hex::new(5, 5).distance(Hex::new(5, 9)), 4);
        assert_eq!(Hex::new(2, 10).distance(Hex::new(8, 10)), 6);
        assert_eq!(Hex::new(2, 10).distance(Hex::new(2, 10)), 0);
    }
}
