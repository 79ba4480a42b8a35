//! A game: the scenario, the tables and the engine over one store. The application layer
//! (`app`) drives it: run a command (decide → append in one transaction → evolve), rebuild the state
//! by playback, verify by re-simulation, branch, and compute per-viewer views.
//!
//! Owns the glue; must not print, and must not decide rules (that is `engine`).

use std::path::Path;

use serde::Serialize;

use crate::engine::{Command, Engine, Event, GameState, Refusal, evolve};
use crate::rules::dice::SeededDice;
use crate::rules::tables::CommandTables;
use crate::scenario::Scenario;
use crate::store::{GameMeta, Head, Store, StoreError, StoredEvent, canonical};

/// Version string recorded in every game file.
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");
/// The dice algorithm recorded in every game file.
pub const RNG: &str = "chacha8-rand0.10-staffwork-d1";

/// Why a game operation failed.
#[derive(Debug, thiserror::Error)]
pub enum GameError {
    /// The engine refused the command; nothing was written.
    #[error("{0}")]
    Refused(Refusal),
    #[error("{0}")]
    Store(#[from] StoreError),
    /// The stored scenario or tables no longer load (a file from an incompatible version).
    #[error("the game file's {what} cannot be loaded: {why}")]
    Incompatible { what: &'static str, why: String },
    /// An argument outside what the game allows (`branch --at-turn 0`, a turn not yet played).
    #[error("{0}")]
    OutOfRange(String),
}

/// The combat tables of a game: the built-in ones with the game's overrides, if any.
fn combat_tables(overrides: &str) -> Result<crate::combat::CombatTables, GameError> {
    if overrides.trim().is_empty() {
        return Ok(crate::combat::tables::builtin().clone());
    }
    crate::combat::CombatTables::with_override(overrides).map_err(|e| GameError::Incompatible {
        what: "combat tables",
        why: e.to_string(),
    })
}

/// The Movement Table of a game: the built-in one with the game's overrides, if any.
fn movement_tables(overrides: &str) -> Result<crate::movement::MovementTables, GameError> {
    if overrides.trim().is_empty() {
        return Ok(crate::movement::tables::builtin().clone());
    }
    crate::movement::MovementTables::with_override(overrides).map_err(|e| GameError::Incompatible {
        what: "movement tables",
        why: e.to_string(),
    })
}

/// Everything needed to start a game.
pub struct NewGame {
    /// The scenario file's text, stored in the game.
    pub scenario_toml: String,
    pub scenario: Scenario,
    /// The command tables' text, stored in the game.
    pub tables_toml: String,
    pub tables: CommandTables,
    /// The user's combat table overrides (TOML, stored in the game; empty = built-in).
    pub combat_tables_toml: String,
    /// The user's Movement Table overrides (TOML, stored in the game; empty = built-in).
    pub movement_tables_toml: String,
    pub seed: u64,
    /// The scenario's pre-set orders, typed by the order language.
    pub presets: Vec<(String, crate::engine::TypedOrder)>,
    /// Scenario variants in play.
    pub variants: Vec<String>,
    /// Wall-clock time, metadata only.
    pub created_at: String,
}

impl NewGame {
    /// A new game on a scenario with the bundled command tables, its pre-set orders typed by the
    /// order language (`Err((preset id, why))` if one cannot be read).
    pub fn on(
        scenario_toml: String,
        scenario: Scenario,
        seed: u64,
    ) -> Result<NewGame, (String, String)> {
        let presets = type_presets(&scenario)?;
        Ok(NewGame {
            scenario_toml,
            scenario,
            tables_toml: crate::rules::tables::DEFAULT_TABLES_TOML.to_string(),
            tables: CommandTables::nbs().clone(),
            combat_tables_toml: String::new(),
            movement_tables_toml: String::new(),
            seed,
            presets,
            variants: Vec::new(),
            created_at: String::new(),
        })
    }
}

/// How far `turn` goes (rule 5.1): one step, to the first Command window of a game turn, or to
/// the end of the game. Every step is recorded as a command of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Until {
    Once,
    Turn(u32),
    End,
}

impl Until {
    /// Has the game reached the stopping point?
    pub fn reached(self, state: &GameState) -> bool {
        use crate::engine::Step;
        match self {
            _ if state.step == Step::GameOver => true,
            Until::Once => true,
            Until::Turn(t) => state.turn >= t && state.player == 0 && state.step == Step::Command,
            Until::End => false,
        }
    }
}

/// An open game.
pub struct Game {
    pub store: Store,
    pub scenario: Scenario,
    pub tables: CommandTables,
    /// The combat tables in force (built-in, or with the game's stored overrides).
    pub combat: crate::combat::CombatTables,
    /// The Movement Table in force (built-in, or with the game's stored overrides).
    pub movement: crate::movement::MovementTables,
    pub state: GameState,
    /// The head of the record `state` is the fold of: a write re-reads the events after it if
    /// another writer moved the head meanwhile (decision 0050).
    head: Head,
}

/// Outcome of verifying a game file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Verification {
    pub events: i64,
    pub commands: i64,
    pub last_hash: String,
    /// First event whose hash does not chain, if any.
    pub chain_broken_at: Option<i64>,
    /// First event that re-simulation did not reproduce byte for byte, if any.
    pub first_difference: Option<Difference>,
    /// Re-simulation was skipped (the file was written by another engine version or dice, or
    /// only the chain was asked for): the events were NOT re-simulated.
    pub resimulation_skipped: Option<String>,
    /// Why the record's structure does not read back cleanly (emptied tables, an event of no
    /// recorded command, a gap), if it does not.
    pub structure_problem: Option<String>,
    /// The game row's record of the head disagrees with the file (rows cut or added).
    pub record_mismatch: Option<String>,
}

impl Verification {
    /// The chain, the structure and the recorded head are sound (nothing about re-simulation).
    pub fn chain_ok(&self) -> bool {
        self.chain_broken_at.is_none()
            && self.structure_problem.is_none()
            && self.record_mismatch.is_none()
    }

    /// Everything checked and every command re-simulated to exactly the stored events.
    pub fn ok(&self) -> bool {
        self.chain_ok() && self.first_difference.is_none() && self.resimulation_skipped.is_none()
    }
}

/// Where re-simulation diverged from the record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Difference {
    pub seq: i64,
    pub command_seq: i64,
    pub recorded: String,
    pub resimulated: String,
}

/// Fold events into a fresh state (playback; no dice needed).
pub fn playback<'a>(engine: &Engine, events: impl IntoIterator<Item = &'a Event>) -> GameState {
    let mut state = engine.initial_state();
    for e in events {
        evolve(&mut state, e);
    }
    state
}

impl Game {
    /// Create a game file from a scenario and start it.
    pub fn create(db: &Path, new: NewGame) -> Result<Game, GameError> {
        Self::start(Some(db), new)
    }

    /// Start a game held in memory (conformance cases, what-if runs).
    pub fn in_memory(new: NewGame) -> Result<Game, GameError> {
        Self::start(None, new)
    }

    fn start(db: Option<&Path>, new: NewGame) -> Result<Game, GameError> {
        let NewGame {
            scenario_toml,
            scenario,
            tables_toml,
            tables,
            combat_tables_toml,
            movement_tables_toml,
            seed,
            presets,
            variants,
            created_at,
        } = new;
        let combat = combat_tables(&combat_tables_toml)?;
        let movement = movement_tables(&movement_tables_toml)?;
        let meta = GameMeta {
            scenario_id: scenario.meta.id.clone(),
            scenario_toml,
            seed,
            seed_spans: Vec::new(),
            ruleset: scenario.meta.ruleset.clone(),
            engine_version: ENGINE_VERSION.to_string(),
            tables_hash: tables.hash(),
            tables_toml,
            combat_tables_toml,
            movement_tables_toml,
            rng: RNG.to_string(),
            created_at,
            branched_from: None,
            chain: crate::store::CHAIN_VERSION,
        };
        // Pre-scenario losses (Talavera 7.1) must fit the loss charts this game plays with.
        crate::engine::combat_system::pre_scenario_losses(&scenario, &combat)
            .map_err(GameError::Refused)?;
        // Decide the start before creating the file, so a refusal leaves nothing behind.
        let engine = Engine::with_combat(&scenario, &tables, &combat).with_movement(&movement);
        let state = engine.initial_state();
        let start = Command::Start { presets, variants };
        let events = engine
            .decide(&state, &start, &mut SeededDice::new(seed))
            .map_err(GameError::Refused)?;
        drop(engine);
        // A new file is written under a temporary name and renamed into place once the start
        // is recorded: all or nothing.
        let store = match db {
            Some(db) => {
                let mut staged = Store::create_staged(db, &meta)?;
                staged.store().append("umpire", &start, &events)?;
                staged.publish()?
            }
            None => {
                let mut store = Store::in_memory(&meta)?;
                store.append("umpire", &start, &events)?;
                store
            }
        };
        let head = store.full_head()?;
        Ok(Game::assemble(
            store, scenario, tables, combat, movement, &events, head,
        ))
    }

    /// A game whose state is the playback of `events`.
    fn assemble(
        store: Store,
        scenario: Scenario,
        tables: CommandTables,
        combat: crate::combat::CombatTables,
        movement: crate::movement::MovementTables,
        events: &[Event],
        head: Head,
    ) -> Game {
        let state = playback(
            &Engine::with_combat(&scenario, &tables, &combat).with_movement(&movement),
            events,
        );
        Game {
            store,
            scenario,
            tables,
            combat,
            movement,
            state,
            head,
        }
    }

    /// Open a game file and rebuild its state by playback, refusing a file that does not read
    /// back cleanly (emptied tables, an unreadable command, an event of no recorded command, a
    /// broken chain): nothing is shown of, or written to, such a file.
    pub fn open(db: &Path) -> Result<Game, GameError> {
        let store = Store::open(db)?;
        let (head, _, events) = store.load_checked()?;
        let events: Vec<Event> = events.into_iter().map(|e| e.event).collect();
        Self::load(store, &events, head)
    }

    /// Open a game file whatever state its record is in, for `replay --verify`, which reports
    /// what it finds rather than refusing. A write still checks the record first.
    pub fn open_for_audit(db: &Path) -> Result<Game, GameError> {
        let store = Store::open(db)?;
        let events: Vec<Event> = store.events()?.into_iter().map(|e| e.event).collect();
        // An unchecked head: a write re-checks the whole record from the genesis first.
        let genesis = store.genesis_head();
        Self::load(store, &events, genesis)
    }

    fn load(store: Store, events: &[Event], head: Head) -> Result<Game, GameError> {
        let meta = store.meta().clone();
        let scenario =
            crate::scenario::parse("(stored scenario)", &meta.scenario_toml).map_err(|e| {
                GameError::Incompatible {
                    what: "scenario",
                    why: e.to_string(),
                }
            })?;
        let tables =
            CommandTables::from_toml_str("(stored tables)", &meta.tables_toml).map_err(|e| {
                GameError::Incompatible {
                    what: "tables",
                    why: e.to_string(),
                }
            })?;
        let combat = combat_tables(&meta.combat_tables_toml)?;
        let movement = movement_tables(&meta.movement_tables_toml)?;
        Ok(Game::assemble(
            store, scenario, tables, combat, movement, events, head,
        ))
    }

    pub fn engine(&self) -> Engine<'_> {
        Engine::with_combat(&self.scenario, &self.tables, &self.combat)
            .with_movement(&self.movement)
    }

    /// Decide a command against the game as it stands and write nothing: the events it would
    /// record and the state after them (`check --db`, issue 17). The dice are not the game's:
    /// they come from a seed unrelated to it, so a preview cannot tell the real rolls to come;
    /// its dice-bearing events are a sketch, never shown as the game's.
    pub fn preview(&self, cmd: &Command) -> Result<(Vec<Event>, GameState), GameError> {
        self.preview_all(std::slice::from_ref(cmd))
    }

    /// [`Game::preview`] of several commands, one after another on the same scratch state (a
    /// `move` of several pieces is checked whole before any is recorded).
    pub fn preview_all(&self, cmds: &[Command]) -> Result<(Vec<Event>, GameState), GameError> {
        self.preview_each(cmds)
            .map_err(|(_, r)| GameError::Refused(r))
    }

    /// [`Game::preview_all`], a refusal with the index of the command refused.
    pub fn preview_each(
        &self,
        cmds: &[Command],
    ) -> Result<(Vec<Event>, GameState), (usize, Refusal)> {
        let mut dice = SeededDice::new(0x5EED_0FC4_EC00);
        let engine = self.engine();
        let mut state = self.state.clone();
        let mut all = Vec::new();
        for (k, cmd) in cmds.iter().enumerate() {
            let events = engine.decide(&state, cmd, &mut dice).map_err(|r| (k, r))?;
            for e in &events {
                evolve(&mut state, e);
            }
            all.extend(events);
        }
        Ok((all, state))
    }

    /// Decide a command with the game's dice, append it with its events in one transaction,
    /// and apply them. A refusal writes nothing.
    pub fn execute(&mut self, actor: &str, cmd: &Command) -> Result<Vec<Event>, GameError> {
        self.run(actor, cmd, None)
    }

    /// As [`Game::execute`], with dice supplied by the caller (forced dice in conformance cases).
    pub fn execute_with(
        &mut self,
        actor: &str,
        cmd: &Command,
        dice: &mut dyn crate::rules::dice::Dice,
    ) -> Result<Vec<Event>, GameError> {
        self.run(actor, cmd, Some(dice))
    }

    /// Fold in the events another writer (the CLI beside a running server) appended since this
    /// game was loaded or last written, so a read or a preview is not decided on a stale state
    /// (decision 0050). One read of the head when nothing changed; the record is checked as a
    /// write would check it, and nothing is written.
    pub fn catch_up(&mut self) -> Result<(), GameError> {
        if self.store.full_head()? == self.head {
            return Ok(());
        }
        let Game {
            store,
            scenario,
            tables,
            combat,
            movement,
            state,
            head,
        } = self;
        let w = store.writer()?;
        let engine = Engine::with_combat(scenario, tables, combat).with_movement(movement);
        fold_in(&w, &engine, state, head)?;
        Ok(())
    }

    /// Decide and append in one write transaction (`BEGIN IMMEDIATE`), against the head that
    /// transaction sees: if another process or thread appended since this game was loaded, the
    /// new events are checked and folded in first, and the command is decided on that state, so
    /// concurrent writers serialise and never decide on a stale state (decision 0050).
    fn run(
        &mut self,
        actor: &str,
        cmd: &Command,
        forced: Option<&mut dyn crate::rules::dice::Dice>,
    ) -> Result<Vec<Event>, GameError> {
        let Game {
            store,
            scenario,
            tables,
            combat,
            movement,
            state,
            head,
        } = self;
        let mut w = store.writer()?;
        let engine = Engine::with_combat(scenario, tables, combat).with_movement(movement);
        let now = fold_in(&w, &engine, state, head)?;
        let decided = match forced {
            Some(dice) => engine.decide(state, cmd, dice),
            None => {
                let seed = w.meta().seed_for(now.commands + 1);
                engine.decide(state, cmd, &mut SeededDice::at(seed, state.dice.clone()))
            }
        };
        let events = decided.map_err(GameError::Refused)?;
        let new = w.append(&now, actor, cmd, &events)?;
        w.commit()?;
        for e in &events {
            evolve(state, e);
        }
        *head = new;
        Ok(events)
    }

    /// Run the automatic steps (`Command::Advance`) until `until`, with the game's dice or the
    /// given ones; returns every event.
    pub fn advance(
        &mut self,
        until: Until,
        mut dice: Option<&mut dyn crate::rules::dice::Dice>,
    ) -> Result<Vec<Event>, GameError> {
        // `--until-turn 3` at or after turn 3's first Command Phase names a point already
        // passed: refused, rather than run on to the next one.
        if let Until::Turn(t) = until
            && self.state.step != crate::engine::Step::GameOver
            && (self.state.turn > t || until.reached(&self.state))
        {
            return Err(GameError::Refused(crate::engine::Refusal::new(
                "turn-passed",
                "5.1",
                format!(
                    "the game is already at turn {} (player {}, {:?}): the first Command Phase of turn {t} has come",
                    self.state.turn,
                    self.state.player + 1,
                    self.state.step
                ),
                format!(
                    "give a later turn (`--until-turn {}`), or `turn` alone for one step",
                    self.state.turn + 1
                ),
            )));
        }
        let mut all = Vec::new();
        loop {
            let events = match dice.as_deref_mut() {
                Some(d) => self.execute_with("umpire", &Command::Advance, d)?,
                None => self.execute("umpire", &Command::Advance)?,
            };
            all.extend(events);
            if until.reached(&self.state) {
                return Ok(all);
            }
        }
    }

    /// Stored events, optionally only those up to a turn.
    pub fn events(&self, to_turn: Option<u32>) -> Result<Vec<StoredEvent>, GameError> {
        let mut evs = self.store.events()?;
        if let Some(t) = to_turn {
            evs.retain(|e| e.event.turn <= t);
        }
        Ok(evs)
    }

    /// Playback up to a turn (the state at the end of the recorded events of that turn).
    pub fn state_at(&self, to_turn: Option<u32>) -> Result<GameState, GameError> {
        let evs = self.events(to_turn)?;
        Ok(playback(&self.engine(), evs.iter().map(|e| &e.event)))
    }

    /// Check the record (chain, structure, the game row's head) and re-simulate every command
    /// from the seed, requiring exactly the stored events — byte-identical, no more and no fewer,
    /// each under the command that produced it. `chain_only` skips re-simulation (and says so).
    pub fn verify(&self) -> Result<Verification, GameError> {
        self.verify_with(false)
    }

    /// [`Game::verify`], or with `chain_only` the chain, structure and head checks alone.
    pub fn verify_with(&self, chain_only: bool) -> Result<Verification, GameError> {
        let chain_broken_at = self.store.verify_chain()?;
        let structure_problem = self.store.structure_problem()?;
        let stored = self.store.events().unwrap_or_default();
        let commands = self.store.commands().unwrap_or_default();
        let head = self.store.full_head()?;
        let record = self.store.recorded_head()?;
        let record_mismatch = crate::store::head_mismatch(&record, &head);
        let meta = self.store.meta();
        let mut v = Verification {
            events: head.events,
            commands: commands.len() as i64,
            last_hash: head.hash,
            chain_broken_at,
            first_difference: None,
            resimulation_skipped: None,
            structure_problem,
            record_mismatch,
        };
        if chain_only {
            v.resimulation_skipped = Some("only the chain was asked for (--chain-only)".into());
            return Ok(v);
        }
        if meta.engine_version != ENGINE_VERSION || meta.rng != RNG {
            v.resimulation_skipped = Some(format!(
                "written by staffwork {} ({}), this is {ENGINE_VERSION} ({RNG}); re-simulation needs the same engine, dice and tables — playback still works",
                meta.engine_version, meta.rng
            ));
            return Ok(v);
        }
        // Same engine and dice, other tables: the stored tables (or their recorded hash) were
        // changed after the game was created — say so, not that the versions differ.
        let tables = self.tables.hash();
        if meta.tables_hash != tables {
            v.resimulation_skipped = Some(format!(
                "the command tables stored in the file hash to {}, not the {} recorded when the game was created: they were changed outside staffwork; re-simulation needs the tables the game was played with",
                crate::store::short(&tables),
                crate::store::short(&meta.tables_hash)
            ));
            return Ok(v);
        }
        if v.structure_problem.is_some() {
            return Ok(v);
        }
        v.first_difference = self.resimulate(&commands, &stored)?;
        Ok(v)
    }

    /// Re-run every command and compare with the stored events in order: the first event (or
    /// missing or extra event) that differs, if any.
    fn resimulate(
        &self,
        commands: &[crate::store::StoredCommand],
        stored: &[StoredEvent],
    ) -> Result<Option<Difference>, GameError> {
        let meta = self.store.meta();
        let engine = self.engine();
        let mut state = engine.initial_state();
        let mut cursor = 0usize;
        let next_seq = |cursor: usize| {
            stored
                .get(cursor)
                .map_or(stored.len() as i64 + 1, |e| e.seq)
        };
        for c in commands {
            let mut dice = SeededDice::at(meta.seed_for(c.seq), state.dice.clone());
            let produced = match engine.decide(&state, &c.command, &mut dice) {
                Ok(evs) => evs,
                Err(r) => {
                    return Ok(Some(Difference {
                        seq: next_seq(cursor),
                        command_seq: c.seq,
                        recorded: format!("command {} accepted", c.seq),
                        resimulated: format!("refused: {r}"),
                    }));
                }
            };
            for (i, e) in produced.iter().enumerate() {
                let b = canonical(e)?;
                let recorded = stored.get(cursor + i).filter(|r| r.command_seq == c.seq);
                if recorded.map(|r| &r.payload) != Some(&b) {
                    return Ok(Some(Difference {
                        seq: next_seq(cursor + i),
                        command_seq: c.seq,
                        recorded: recorded.map_or_else(
                            || format!("(no event of command {} here)", c.seq),
                            |r| r.payload.clone(),
                        ),
                        resimulated: b,
                    }));
                }
                evolve(&mut state, e);
            }
            cursor += produced.len();
            // No more events under this command than re-simulation produced.
            if let Some(extra) = stored.get(cursor).filter(|r| r.command_seq == c.seq) {
                return Ok(Some(Difference {
                    seq: extra.seq,
                    command_seq: c.seq,
                    recorded: extra.payload.clone(),
                    resimulated: format!("(command {} produced no more events)", c.seq),
                }));
            }
        }
        // No events after the last command's.
        Ok(stored.get(cursor).map(|extra| Difference {
            seq: extra.seq,
            command_seq: extra.command_seq,
            recorded: extra.payload.clone(),
            resimulated: "(no recorded command produced this event)".into(),
        }))
    }

    /// A new game file holding this game's history up to the end of turn `at_turn` (commands
    /// whose events all fall in turns ≤ `at_turn`), optionally with new dice from there on.
    pub fn branch(
        &self,
        out: &Path,
        at_turn: u32,
        seed: Option<u64>,
        created_at: String,
    ) -> Result<Game, GameError> {
        let events = self.store.events()?;
        let commands = self.store.commands()?;
        // The turns a branch may start from: from the end of the start of the game to the last
        // turn the record has reached.
        let first = events
            .iter()
            .filter(|e| e.command_seq == 1)
            .map(|e| e.event.turn)
            .max()
            .unwrap_or(1);
        let reached = events.last().map_or(first, |e| e.event.turn);
        if at_turn < first || at_turn > reached {
            return Err(GameError::OutOfRange(format!(
                "--at-turn {at_turn} is outside the turns this game has recorded ({first} to {reached}); nothing was written"
            )));
        }
        let mut last = 0;
        for c in &commands {
            let in_range = events
                .iter()
                .filter(|e| e.command_seq == c.seq)
                .all(|e| e.event.turn <= at_turn);
            if !in_range {
                break;
            }
            last = c.seq;
        }
        let mut meta = self.store.meta().clone();
        meta.branched_from = Some(format!("{} at turn {at_turn}", meta.scenario_id));
        // A branch is a new file: its chain binds its own record, whatever its parent's format.
        meta.chain = crate::store::CHAIN_VERSION;
        meta.created_at = created_at;
        if let Some(s) = seed {
            if meta.seed_spans.is_empty() {
                meta.seed_spans.push((1, meta.seed));
            }
            meta.seed_spans.push((last + 1, s));
            meta.seed = s;
        }
        self.store.branch(out, &meta, last)?;
        Game::open(out)
    }
}

/// Refuse hex numbers an order's text names off the scenario's map (issue 12, decision 0052):
/// every `C.R` token in the text (digits, a point, digits; minus signs and a map letter
/// included), whatever the grammar made of it, gets an error naming the hex and the map's
/// bounds, unless the order language already flagged that span. A game never takes an order
/// to a place its map does not have.
pub fn refuse_off_map_hexes(checked: &mut crate::order::CheckedOrder, scenario: &Scenario) {
    let m = &scenario.map;
    let text = checked.text.clone();
    let b = text.as_bytes();
    let digits_from = |mut i: usize| {
        let start = i;
        if b.get(i) == Some(&b'-') {
            i += 1;
        }
        let d = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        (i > d).then_some((start, i))
    };
    let mut i = 0;
    while i < b.len() {
        let boundary = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'.');
        let Some((start, mid)) = boundary.then(|| digits_from(i)).flatten() else {
            i += 1;
            continue;
        };
        let Some((_, end)) = (b.get(mid) == Some(&b'.'))
            .then(|| digits_from(mid + 1))
            .flatten()
        else {
            i = mid.max(i + 1);
            continue;
        };
        let num = |s: &str| s.parse::<i64>().unwrap_or(i64::MAX);
        let (col, row) = (num(&text[start..mid]), num(&text[mid + 1..end]));
        let on_map = i32::try_from(col)
            .ok()
            .zip(i32::try_from(row).ok())
            .is_some_and(|(col, row)| {
                m.contains(crate::hex::Hex {
                    map: None,
                    col,
                    row,
                })
            });
        let flagged = checked.diagnostics.iter().any(|d| {
            d.code == "hex-off-map" && d.span.0 <= start && end <= d.span.1.max(d.span.0 + 1)
        });
        if !on_map && !flagged {
            checked.diagnostics.push(crate::order::Diagnostic {
                severity: crate::order::Severity::Error,
                code: "hex-off-map",
                message: format!("hex {} is not on the map", &text[start..end]),
                span: (start, end),
                help: format!(
                    "this map runs from column {} to {} and row {} to {}",
                    m.first_col, m.last_col, m.first_row, m.last_row
                ),
            });
        }
        i = end;
    }
}

/// The engine's view of an order the order language has read: type, stage postures, key.
pub fn typed_order(checked: &crate::order::CheckedOrder) -> crate::engine::TypedOrder {
    let stages: Vec<crate::rules::Posture> = checked.stages.iter().map(|s| s.posture).collect();
    let order_type = checked
        .order_type
        .unwrap_or(crate::rules::OrderType::General);
    crate::engine::TypedOrder {
        text: checked.text.clone(),
        readback: checked.readback.clone(),
        order_type,
        stages: if stages.is_empty() {
            vec![crate::rules::Posture::General]
        } else {
            stages
        },
        independent: checked.independent,
        key: checked.same_order_key(),
        // 6.9: "join X" names the formation to join; "with Y attached" the sub-units attached.
        joins: checked
            .stages
            .iter()
            .find(|st| st.action == crate::order::Action::Join)
            .and_then(|st| st.objectives.first())
            .and_then(|r| r.resolved.as_ref())
            .map(|r| r.id.clone()),
        attaches: checked
            .attached
            .iter()
            .filter_map(|r| r.resolved.as_ref().map(|x| x.id.clone()))
            .collect(),
    }
}

/// Type every pre-set order of a scenario (6.2.2). The recipient comes from the scenario, so
/// only an order the language cannot read at all is refused: `Err((preset id, why))`.
pub fn type_presets(
    scenario: &Scenario,
) -> Result<Vec<(String, crate::engine::TypedOrder)>, (String, String)> {
    scenario
        .preset_orders
        .iter()
        .map(|p| {
            let checked = crate::order::check_one(&p.text, Some(scenario), Some(&p.side));
            if checked.order_type.is_none() {
                let why: Vec<String> = checked
                    .diagnostics
                    .iter()
                    .map(|d| d.message.clone())
                    .collect();
                return Err((p.id.clone(), why.join("; ")));
            }
            Ok((p.id.clone(), typed_order(&checked)))
        })
        .collect()
}

/// The acceptance situation of an order (6.5): sender and receiver ratings, method, type, and
/// the recipient's current order as the game stands now.
pub fn acceptance_situation(
    game: &Game,
    number: u32,
) -> Result<crate::rules::odds::AcceptanceQuery, String> {
    acceptance_situation_in(&game.scenario, &game.state, number)
}

/// [`acceptance_situation`] over a scenario and a state (the conformance runner checks odds
/// mid-script, on a snapshot).
pub fn acceptance_situation_in(
    s: &Scenario,
    state: &GameState,
    number: u32,
) -> Result<crate::rules::odds::AcceptanceQuery, String> {
    let o = state
        .orders
        .get(&number)
        .ok_or_else(|| format!("there is no order {number}; see `staffwork log`"))?;
    let method = o.method.ok_or_else(|| {
        format!("order {number} was not sent by an aide or in person ({:?}); it needs no acceptance roll", o.origin)
    })?;
    let current = match state.current_posture(&o.recipient) {
        Some(crate::rules::Posture::Engage) => crate::rules::CurrentOrder::Engage,
        Some(crate::rules::Posture::General) => crate::rules::CurrentOrder::General,
        None => crate::rules::CurrentOrder::None,
    };
    Ok(crate::rules::odds::AcceptanceQuery {
        sender_rating: i32::from(crate::engine::oob::rating(s, state, &o.sender)),
        receiver_rating: crate::engine::oob::receiver_rating(s, state, &o.recipient).unwrap_or(2),
        method,
        order_type: o.order_type,
        current,
    })
}

/// Fold into `state` the events another writer appended after `head`, checked as a write checks
/// them (decision 0050); from an empty head (opened for audit) the record is folded afresh.
/// Returns the head the writer sees, now also `head`.
fn fold_in(
    w: &crate::store::Writer<'_>,
    engine: &Engine,
    state: &mut GameState,
    head: &mut Head,
) -> Result<Head, GameError> {
    let now = w.check_from(head)?;
    if now != *head {
        if head.events == 0 {
            *state = engine.initial_state();
        }
        for e in w.events_after(head.events)? {
            evolve(state, &e.event);
        }
        *head = now.clone();
    }
    Ok(now)
}
