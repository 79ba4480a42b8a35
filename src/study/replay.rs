//! `study --db G --from-turn K`: re-run a recorded game's commands from turn K with other
//! seeds. A command the new state refuses ends that run's agreement with the record; the study
//! counts how many runs diverged, at which command and turn, and why (the refusal's code).
//!
//! Owns reading the game file once (through `game`, which goes through `store`) and the
//! divergence counts. Must not print; the runs hold no store.

use std::collections::BTreeMap;
use std::path::Path;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::run::run_seed;
use crate::engine::{Command, Engine, GameState, evolve};
use crate::game::{Game, GameError};
use crate::rules::dice::SeededDice;
use crate::rules::tables::CommandTables;
use crate::scenario::Scenario;

/// A recorded game, held in memory from turn K on.
pub struct Recorded {
    pub scenario: Scenario,
    pub tables: CommandTables,
    pub combat: crate::combat::CombatTables,
    /// The state before the first command played in turn K (playback of the record).
    pub state: GameState,
    /// The recorded commands from there on: (command seq, command).
    pub commands: Vec<(i64, Command)>,
    pub from_turn: u32,
    pub seed: u64,
}

/// Why a game cannot be studied.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("{0}")]
    Game(#[from] GameError),
    #[error("{db}: the game has no command in turn {turn} or later (it is at turn {last})")]
    NoCommands { db: String, turn: u32, last: u32 },
}

/// Read the game file and play its record back up to turn `from_turn`.
pub fn load(db: &Path, from_turn: u32) -> Result<Recorded, ReplayError> {
    let game = Game::open(db)?;
    let commands = game.store.commands().map_err(GameError::from)?;
    let events = game.store.events().map_err(GameError::from)?;
    let engine = game.engine();
    let mut state = engine.initial_state();
    let mut ev = events.iter().peekable();
    let mut first = None;
    for (i, c) in commands.iter().enumerate() {
        if state.turn >= from_turn && !matches!(c.command, Command::Start { .. }) {
            first = Some(i);
            break;
        }
        while let Some(e) = ev.next_if(|e| e.command_seq <= c.seq) {
            evolve(&mut state, &e.event);
        }
    }
    drop(engine);
    let Some(first) = first else {
        return Err(ReplayError::NoCommands {
            db: db.display().to_string(),
            turn: from_turn,
            last: game.state.turn,
        });
    };
    let seed = game.store.meta().seed;
    Ok(Recorded {
        commands: commands[first..]
            .iter()
            .map(|c| (c.seq, c.command.clone()))
            .collect(),
        scenario: game.scenario,
        tables: game.tables,
        combat: game.combat,
        state,
        from_turn,
        seed,
    })
}

/// Where one run left the record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Divergence {
    pub command_seq: i64,
    pub turn: u32,
    /// The command's type (`issue-order`, `advance`, …).
    pub command: String,
    /// The refusal's code and rule.
    pub code: String,
    pub rule: String,
    /// The first run that diverged here, and the refusal in words.
    pub example_run: u64,
    pub message: String,
    pub runs: u64,
}

/// The outcome of a replay study.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplaySummary {
    pub from_turn: u32,
    pub recorded_seed: u64,
    pub seed: u64,
    pub runs: u64,
    pub commands_replayed: usize,
    /// Runs in which every recorded command was accepted again.
    pub agreed: u64,
    pub diverged: u64,
    /// Where and why, most frequent first.
    pub divergences: Vec<Divergence>,
    /// Runs diverged per turn (index = turn).
    pub diverged_by_turn: Vec<u64>,
}

fn kind(cmd: &Command) -> String {
    serde_json::to_value(cmd)
        .ok()
        .and_then(|v| v.get("type").and_then(|t| t.as_str()).map(str::to_string))
        .unwrap_or_default()
}

/// One run: `None` when the record was followed to the end, else where it left it.
fn replay_one(rec: &Recorded, engine: &Engine, seed: u64, run: u64) -> Option<(Divergence, u64)> {
    let mut state = rec.state.clone();
    let mut dice = SeededDice::at(run_seed(seed, run), state.dice.clone());
    for (seq, cmd) in &rec.commands {
        match engine.decide(&state, cmd, &mut dice) {
            Ok(events) => {
                for e in &events {
                    evolve(&mut state, e);
                }
            }
            Err(r) => {
                return Some((
                    Divergence {
                        command_seq: *seq,
                        turn: state.turn,
                        command: kind(cmd),
                        code: r.code.to_string(),
                        rule: r.rule.to_string(),
                        example_run: run,
                        message: r.message,
                        runs: 1,
                    },
                    run,
                ));
            }
        }
    }
    None
}

/// Re-run the record `runs` times with the study seed `seed`.
pub fn study(rec: &Recorded, runs: u64, seed: u64, threads: usize) -> ReplaySummary {
    let engine = Engine::with_combat(&rec.scenario, &rec.tables, &rec.combat);
    let go = || -> Vec<Option<(Divergence, u64)>> {
        (0..runs)
            .into_par_iter()
            .map(|i| replay_one(rec, &engine, seed, i))
            .collect()
    };
    let results = match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) => pool.install(go),
        Err(_) => go(),
    };
    let mut by_place: BTreeMap<(i64, String), Divergence> = BTreeMap::new();
    let mut by_turn = Vec::new();
    let mut diverged = 0;
    for (d, _) in results.into_iter().flatten() {
        diverged += 1;
        let t = d.turn as usize;
        if by_turn.len() <= t {
            by_turn.resize(t + 1, 0);
        }
        by_turn[t] += 1;
        by_place
            .entry((d.command_seq, d.code.clone()))
            .and_modify(|x| x.runs += 1)
            .or_insert(d);
    }
    let mut divergences: Vec<Divergence> = by_place.into_values().collect();
    divergences.sort_by(|a, b| b.runs.cmp(&a.runs).then(a.command_seq.cmp(&b.command_seq)));
    ReplaySummary {
        from_turn: rec.from_turn,
        recorded_seed: rec.seed,
        seed,
        runs,
        commands_replayed: rec.commands.len(),
        agreed: runs - diverged,
        diverged,
        divergences,
        diverged_by_turn: by_turn,
    }
}
