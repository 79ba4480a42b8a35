//! A game: the scenario, the tables and the engine over one store. This is the application layer
//! the CLI drives: run a command (decide → append in one transaction → evolve), rebuild the state
//! by playback, verify by re-simulation, branch, and compute per-viewer views.
//!
//! Owns the glue; must not print, and must not decide rules (that is `engine`).

use std::path::Path;

use serde::Serialize;

use crate::engine::{Command, Engine, Event, GameState, Refusal, Visibility, evolve};
use crate::rules::dice::SeededDice;
use crate::rules::tables::CommandTables;
use crate::scenario::Scenario;
use crate::store::{GameMeta, Store, StoreError, StoredEvent, canonical};

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
}

/// Who is looking.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Viewer {
    Umpire,
    Side(String),
}

impl Viewer {
    /// May this viewer see an event with this visibility?
    pub fn sees(&self, v: &Visibility) -> bool {
        match (self, v) {
            (Viewer::Umpire, _) => true,
            (_, Visibility::Public) => true,
            (Viewer::Side(s), Visibility::Side(t)) => s == t,
            (Viewer::Side(_), Visibility::Umpire) => false,
        }
    }
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
    /// Re-simulation was skipped (e.g. the file was written by another engine version).
    pub resimulation_skipped: Option<String>,
}

impl Verification {
    pub fn ok(&self) -> bool {
        self.chain_broken_at.is_none() && self.first_difference.is_none()
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
        let mut store = match db {
            Some(db) => Store::create(db, &meta)?,
            None => Store::in_memory(&meta)?,
        };
        store.append("umpire", &start, &events)?;
        Ok(Game::assemble(
            store, scenario, tables, combat, movement, &events,
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
        }
    }

    /// Open a game file and rebuild its state by playback.
    pub fn open(db: &Path) -> Result<Game, GameError> {
        let store = Store::open(db)?;
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
        let events: Vec<Event> = store.events()?.into_iter().map(|e| e.event).collect();
        Ok(Game::assemble(
            store, scenario, tables, combat, movement, &events,
        ))
    }

    pub fn engine(&self) -> Engine<'_> {
        Engine::with_combat(&self.scenario, &self.tables, &self.combat)
            .with_movement(&self.movement)
    }

    /// Decide a command with the game's dice, append it with its events in one transaction,
    /// and apply them. A refusal writes nothing.
    pub fn execute(&mut self, actor: &str, cmd: &Command) -> Result<Vec<Event>, GameError> {
        let next = self.store.next_command_seq()?;
        let seed = self.store.meta().seed_for(next);
        let mut dice = SeededDice::at(seed, self.state.dice.clone());
        self.execute_with(actor, cmd, &mut dice)
    }

    /// As [`Game::execute`], with dice supplied by the caller (forced dice in conformance cases).
    pub fn execute_with(
        &mut self,
        actor: &str,
        cmd: &Command,
        dice: &mut dyn crate::rules::dice::Dice,
    ) -> Result<Vec<Event>, GameError> {
        let events = self
            .engine()
            .decide(&self.state, cmd, dice)
            .map_err(GameError::Refused)?;
        self.store.append(actor, cmd, &events)?;
        for e in &events {
            evolve(&mut self.state, e);
        }
        Ok(events)
    }

    /// Run the automatic steps (`Command::Advance`) until `until`, with the game's dice or the
    /// given ones; returns every event.
    pub fn advance(
        &mut self,
        until: Until,
        mut dice: Option<&mut dyn crate::rules::dice::Dice>,
    ) -> Result<Vec<Event>, GameError> {
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

    /// Check the hash chain and re-simulate every command from the seed, requiring
    /// byte-identical events.
    pub fn verify(&self) -> Result<Verification, GameError> {
        let chain_broken_at = self.store.verify_chain()?;
        let stored = self.store.events()?;
        let commands = self.store.commands()?;
        let (events, last_hash) = self.store.head()?;
        let meta = self.store.meta();
        let mut v = Verification {
            events,
            commands: commands.len() as i64,
            last_hash,
            chain_broken_at,
            first_difference: None,
            resimulation_skipped: None,
        };
        if meta.engine_version != ENGINE_VERSION
            || meta.rng != RNG
            || meta.tables_hash != self.tables.hash()
        {
            v.resimulation_skipped = Some(format!(
                "written by staffwork {} ({}); re-simulation needs the same engine, dice and tables — playback still works",
                meta.engine_version, meta.rng
            ));
            return Ok(v);
        }
        let engine = self.engine();
        let mut state = engine.initial_state();
        let mut cursor = 0usize;
        for c in &commands {
            let mut dice = SeededDice::at(meta.seed_for(c.seq), state.dice.clone());
            let produced = match engine.decide(&state, &c.command, &mut dice) {
                Ok(evs) => evs,
                Err(r) => {
                    let seq = stored.get(cursor).map_or(0, |e| e.seq);
                    v.first_difference = Some(Difference {
                        seq,
                        command_seq: c.seq,
                        recorded: format!("command {} accepted", c.seq),
                        resimulated: format!("refused: {r}"),
                    });
                    return Ok(v);
                }
            };
            let recorded: Vec<&StoredEvent> =
                stored.iter().filter(|e| e.command_seq == c.seq).collect();
            let n = produced.len().max(recorded.len());
            for i in 0..n {
                let a = recorded
                    .get(i)
                    .map(|e| e.payload.clone())
                    .unwrap_or_default();
                let b = produced.get(i).map(canonical).unwrap_or_default();
                if a != b {
                    let seq = recorded
                        .get(i)
                        .map_or_else(|| recorded.last().map_or(0, |e| e.seq + 1), |e| e.seq);
                    v.first_difference = Some(Difference {
                        seq,
                        command_seq: c.seq,
                        recorded: a,
                        resimulated: b,
                    });
                    return Ok(v);
                }
            }
            for e in &produced {
                evolve(&mut state, e);
            }
            cursor += recorded.len();
        }
        Ok(v)
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

/// Events a viewer may see (4.0: a side never sees the other's orders, dice, losses or the
/// umpire's overrides).
pub fn visible<'a>(events: &'a [StoredEvent], viewer: &Viewer) -> Vec<&'a StoredEvent> {
    events
        .iter()
        .filter(|e| viewer.sees(&e.event.visibility))
        .collect()
}

/// Pieces a viewer may see on the map (4.0): all for the umpire; for a side its own pieces and
/// the enemy pieces one of its units, commanders or HQs can see — line of sight (14.1) within
/// this turn's visibility (14.1.5). Decision 0081 replaces decision 0041's 12-hex radius.
/// Uses the built-in Movement Table's Blocking terrain.
pub fn visible_positions(
    state: &GameState,
    scenario: &Scenario,
    viewer: &Viewer,
) -> std::collections::BTreeMap<String, crate::hex::Hex> {
    let Viewer::Side(side) = viewer else {
        return state.positions.clone();
    };
    let map = crate::movement::MoveMap::new(scenario);
    let sight = Sight::new(state, scenario, &map);
    state
        .positions
        .iter()
        .filter(|(piece, hex)| {
            side_of_piece(scenario, piece).as_deref() == Some(side.as_str())
                || sight.seen_by(side, **hex)
        })
        .map(|(p, h)| (p.clone(), *h))
        .collect()
}

/// Where a side last saw an enemy piece it cannot see now (4.0).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct LastSeen {
    pub hex: crate::hex::Hex,
    pub turn: u32,
    /// The turn's clock time, `HH:MM`.
    pub time: String,
}

/// Enemy pieces a side saw at some turn's end but cannot see now: "last seen at HH:MM" (4.0).
/// Looks at the position at the end of each turn's events (and at the start), with the line of
/// sight of that moment.
pub fn last_seen(
    events: &[Event],
    scenario: &Scenario,
    side: &str,
) -> std::collections::BTreeMap<String, LastSeen> {
    use std::collections::BTreeMap;
    let tables = CommandTables::nbs();
    let engine = Engine::new(scenario, tables);
    let turns = scenario.clock.turns();
    let viewer = Viewer::Side(side.to_string());
    let mut state = engine.initial_state();
    let mut seen: BTreeMap<String, LastSeen> = BTreeMap::new();
    let look = |state: &GameState, seen: &mut BTreeMap<String, LastSeen>| {
        let time = turns
            .get(state.turn.saturating_sub(1) as usize)
            .map(|t| t.time.format("%H:%M").to_string())
            .unwrap_or_default();
        for (p, h) in visible_positions(state, scenario, &viewer) {
            if side_of_piece(scenario, &p).as_deref() != Some(side) {
                seen.insert(
                    p,
                    LastSeen {
                        hex: h,
                        turn: state.turn,
                        time: time.clone(),
                    },
                );
            }
        }
    };
    for (i, e) in events.iter().enumerate() {
        evolve(&mut state, e);
        let turn_ends = events.get(i + 1).is_none_or(|n| n.turn != e.turn);
        if turn_ends {
            look(&state, &mut seen);
        }
    }
    let now = visible_positions(&state, scenario, &viewer);
    seen.retain(|p, _| !now.contains_key(p) && state.positions.contains_key(p));
    seen
}

/// The side a piece (commander, `hq:<formation>`, unit) belongs to.
fn side_of_piece(scenario: &Scenario, piece: &str) -> Option<String> {
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

/// Who can see which hexes this turn: each side's eyes, the hexes whose units block sight
/// (14.1.2.3: all but Skirmishers) and the visibility (14.1.5).
struct Sight<'a> {
    map: &'a crate::movement::MoveMap,
    eyes: std::collections::BTreeMap<String, std::collections::BTreeSet<crate::hex::Hex>>,
    blockers: std::collections::BTreeSet<crate::hex::Hex>,
    visibility: Option<u32>,
}

impl<'a> Sight<'a> {
    fn new(state: &GameState, scenario: &Scenario, map: &'a crate::movement::MoveMap) -> Self {
        let mut eyes: std::collections::BTreeMap<String, std::collections::BTreeSet<_>> =
            Default::default();
        let mut blockers = std::collections::BTreeSet::new();
        for (p, h) in &state.positions {
            if let Some(side) = side_of_piece(scenario, p) {
                eyes.entry(side).or_default().insert(*h);
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
            blockers,
            visibility,
        }
    }

    /// Can one of `side`'s pieces see `target`?
    fn seen_by(&self, side: &str, target: crate::hex::Hex) -> bool {
        let t = crate::movement::tables::builtin();
        self.eyes.get(side).is_some_and(|eyes| {
            eyes.iter().any(|e| {
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
    let o = game
        .state
        .orders
        .get(&number)
        .ok_or_else(|| format!("there is no order {number}; see `staffwork log`"))?;
    let method = o.method.ok_or_else(|| {
        format!("order {number} was not sent by an aide or in person ({:?}); it needs no acceptance roll", o.origin)
    })?;
    let s = &game.scenario;
    let current = match game.state.current_posture(&o.recipient) {
        Some(crate::rules::Posture::Engage) => crate::rules::CurrentOrder::Engage,
        Some(crate::rules::Posture::General) => crate::rules::CurrentOrder::General,
        None => crate::rules::CurrentOrder::None,
    };
    Ok(crate::rules::odds::AcceptanceQuery {
        sender_rating: i32::from(crate::engine::oob::rating(s, &game.state, &o.sender)),
        receiver_rating: crate::engine::oob::receiver_rating(s, &game.state, &o.recipient)
            .unwrap_or(2),
        method,
        order_type: o.order_type,
        current,
    })
}
