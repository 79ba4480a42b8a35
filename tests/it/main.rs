//! The integration tests, one binary: each module drives the built `staffwork` binary or the library.
//! New integration tests go here as a module (one file each) rather than as a new top-level test
//! crate, so `cargo test` links one binary instead of one per file.

mod app_layer;
mod architecture;
mod attack_arcs;
mod cli_help;
mod combat_charge_fire;
mod combat_cli;
mod combat_close;
mod combat_tables;
mod common;
mod demo;
mod fog_stacks;
mod formation_move;
mod game_cli;
mod hostile;
mod integrity_concurrency;
mod integrity_record;
mod movement_cli;
mod movement_facing;
mod odds_from_game;
mod opportunity_fire;
mod order_clauses;
mod order_cli;
mod order_corpus;
mod order_corpus_eval;
mod order_docs;
mod order_meaning_rules;
mod order_natural_leads;
mod order_props;
mod order_reader;
mod order_umpire;
mod random_events;
mod reaction_offers;
mod replay_props;
mod rules_cli;
mod scenario_check;
mod scenario_show;
mod scenario_talavera;
mod scenario_vimeiro;
mod study;
mod tidy;
mod umpire_time;
mod view_props;
mod web;
mod workbench;
