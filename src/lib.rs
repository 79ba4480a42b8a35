//! staffwork: an order-writing command simulation for Napoleonic battles.
//!
//! Written orders ("2nd Div: attack up the Säter road and capture Hall") are parsed by a pest
//! grammar ([`order`]), resolved against a [`scenario`], and run through the command system of
//! the Napoleonic Battle Series v3.0 by a pure [`engine`] whose tables are data ([`rules`]).
//! Every command and die is logged by [`store`] so games replay exactly. [`cli`] is the only
//! module that prints.
//!
//! See `docs/ARCHITECTURE.md` for the code map and the invariants.

// pest's parser derive, built without `std` (Cargo.toml), names `::alloc`.
extern crate alloc;

pub mod app;
pub mod cli;
pub mod combat;
pub mod conformance;
pub mod engine;
pub mod game;
pub mod hex;
pub mod movement;
pub mod names;
pub mod order;
pub mod provenance;
pub mod rules;
pub mod scenario;
pub mod space;
pub mod store;
pub mod study;
pub mod text;
pub mod units;
pub mod view;
pub mod web;
