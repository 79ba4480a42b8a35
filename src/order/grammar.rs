//! The pest parser generated from `grammar/orders.pest`.
//!
//! Owns: the derive and nothing else. Only [`super::lower`] may use `Rule`, `Pair` or `Pairs`;
//! no pest type leaves the lowering.

#[derive(pest_derive::Parser)]
#[grammar = "grammar/orders.pest"]
pub(crate) struct OrderParser;
