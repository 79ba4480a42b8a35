//! Movement and sight for NBS v3.0 (rules 8–14.1, chart p2): the Movement Table as data
//! ([`tables`]), the cost and legality of a path and the cheapest legal path ([`path`]), and
//! line of sight and visibility ([`sight`]).
//!
//! Pure like `combat`: no IO, no clock, no dice, no hash iteration, no floating point in a
//! rule. Must not hold game state: the engine hands in the mover, the occupancy and the map.

pub mod facing;
pub mod path;
pub mod sight;
pub mod tables;

pub use path::{Illegal, MoveMap, Mover, Occupancy, Ruling, Step};
pub use tables::{MovementTableError, MovementTables};
