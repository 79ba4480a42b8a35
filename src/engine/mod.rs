//! The pure engine of the NBS v3.0 command system: `decide(state, command, dice) -> events`
//! and `evolve(state, event) -> state`.
//!
//! Owns the rules of section 6 (orders, acceptance, delay, distortion, local initiative, attack
//! stoppage, HQs, command range), the sequence of play (5.1) and the optional Random Events (29). Must not: do IO, read the
//! clock, use ambient randomness, iterate hash containers, use floating point. Every die comes
//! from the [`Dice`] passed in and is stored in the event that used it.

pub mod aspect;
mod borrowing;
pub mod combat_system;
pub mod command;
mod command_system;
pub mod describe;
pub mod event;
pub mod evolve;
mod extensions;
pub mod movement;
mod moving_brigades;
pub mod oob;
pub mod opportunity;
mod random_events;
mod relay;
mod retreat;
mod sequence;
pub mod sighted;
mod special_rules;
pub mod state;
mod temporary_division;
mod zones;

pub use command::{CombatKind, Command, OverrideAction, TypedOrder};
pub use event::{Event, EventKind, Visibility, WithdrawalCause};
pub use evolve::evolve;
pub use state::{
    CommandStatus, GameState, OrderOrigin, OrderRecord, OrderStatus, RandomEffects, Step,
};

use crate::hex::Hex;
use crate::rules::dice::{Dice, DiceExhausted};
use crate::rules::tables::CommandTables;
use crate::scenario::Scenario;
use crate::scenario::clock::TurnInfo;
use crate::space::{HexSpace, Space};

/// Why the engine refused a command. Nothing is recorded when a command is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Refusal {
    /// Stable kebab-case code, e.g. `not-enough-command-points`.
    pub code: &'static str,
    /// Rule number the refusal rests on, e.g. `6.4.1`.
    pub rule: &'static str,
    pub message: String,
    pub help: String,
}

impl Refusal {
    pub(crate) fn new(
        code: &'static str,
        rule: &'static str,
        message: impl Into<String>,
        help: impl Into<String>,
    ) -> Self {
        Refusal {
            code,
            rule,
            message: message.into(),
            help: help.into(),
        }
    }
}

impl From<DiceExhausted> for Refusal {
    fn from(e: DiceExhausted) -> Self {
        Refusal::new(
            "die-not-given",
            "",
            e.to_string(),
            "give the die in the case's dice section",
        )
    }
}

/// The engine for one game: the scenario, the tables in force and the map.
pub struct Engine<'a> {
    pub scenario: &'a Scenario,
    pub tables: &'a CommandTables,
    /// The combat tables in force (chart p3–p6).
    pub combat: &'a crate::combat::CombatTables,
    pub space: HexSpace,
    pub turns: Vec<TurnInfo>,
    /// Command range answers already computed (6.11), by (from, to, range): the map never
    /// changes during a game, so neither do they (issue 16: the range check at the end of every
    /// player turn is mostly asked again for pieces that have not moved). A memo of a pure
    /// function, so deciding stays pure; a `Mutex` so one engine serves a study's threads.
    range_memo: std::sync::Mutex<std::collections::BTreeMap<(Hex, Hex, u32), bool>>,
    /// The Movement Table in force (chart p2).
    pub movement: &'a crate::movement::MovementTables,
    /// The map as units move over it (terrain, hexsides, slopes, roads).
    pub move_map: crate::movement::MoveMap,
}

impl<'a> Engine<'a> {
    /// An engine with the built-in combat tables.
    pub fn new(scenario: &'a Scenario, tables: &'a CommandTables) -> Self {
        Self::with_combat(scenario, tables, crate::combat::tables::builtin())
    }

    /// An engine with the given combat tables (a game's overrides).
    pub fn with_combat(
        scenario: &'a Scenario,
        tables: &'a CommandTables,
        combat: &'a crate::combat::CombatTables,
    ) -> Self {
        Engine {
            scenario,
            tables,
            combat,
            space: HexSpace::new(scenario),
            turns: scenario.clock.turns(),
            range_memo: Default::default(),
            movement: crate::movement::tables::builtin(),
            move_map: crate::movement::MoveMap::new(scenario),
        }
    }

    /// The same engine with the given Movement Table (a game's overrides).
    pub fn with_movement(mut self, movement: &'a crate::movement::MovementTables) -> Self {
        self.movement = movement;
        self
    }

    /// Is `b` within command range `range` of `a` (6.11, `Space::range_distance`)? Memoised.
    pub(crate) fn in_range(&self, a: Hex, b: Hex, range: u32) -> bool {
        let key = (a, b, range);
        if let Ok(memo) = self.range_memo.lock()
            && let Some(&known) = memo.get(&key)
        {
            return known;
        }
        let r = self.space.range_distance(a, b, range).is_some();
        if let Ok(mut memo) = self.range_memo.lock() {
            memo.insert(key, r);
        }
        r
    }

    /// The empty state before `Command::Start`.
    pub fn initial_state(&self) -> GameState {
        GameState {
            scenario_id: self.scenario.meta.id.clone(),
            turn: 0,
            player: 0,
            side_order: Vec::new(),
            step: Step::Command,
            sides: Default::default(),
            commands: Default::default(),
            orders: Default::default(),
            positions: Default::default(),
            arrived: Default::default(),
            units: Default::default(),
            movement: Default::default(),
            commanders: Default::default(),
            due: Default::default(),
            variants: Default::default(),
            dice: Default::default(),
            random_events: Default::default(),
            eliminated: Default::default(),
            over_stacked: Default::default(),
            events: 0,
        }
    }

    /// Decide what a command does: the events it produces, or why it is refused. The state is
    /// not changed; apply the events with [`evolve`].
    pub fn decide(
        &self,
        state: &GameState,
        cmd: &Command,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, Refusal> {
        let mut ctx = Ctx {
            eng: self,
            state: state.clone(),
            events: Vec::new(),
            dice,
            retreating: None,
        };
        Self::dispatch(&mut ctx, cmd)?;
        Ok(ctx.events)
    }

    /// As [`Engine::decide`], on a state the caller gives up (what-if studies, issue 16): no
    /// clone of the whole state, and no second fold. The events are byte-identical to
    /// `decide`'s; on success the returned state is the given one with every event applied by
    /// [`evolve`] (the scratch state `Ctx::emit` keeps, which only `emit` changes). On a refusal
    /// the state is consumed, possibly half-way through the command: use it only when a refusal
    /// ends the caller's use of that state (a study run ends on a refused `Advance`).
    pub fn decide_owned(
        &self,
        state: GameState,
        cmd: &Command,
        dice: &mut dyn Dice,
    ) -> Result<(GameState, Vec<Event>), Refusal> {
        let mut ctx = Ctx {
            eng: self,
            state,
            events: Vec::new(),
            dice,
            retreating: None,
        };
        Self::dispatch(&mut ctx, cmd)?;
        Ok((ctx.state, ctx.events))
    }

    /// The body of `decide`: one flat match over the commands.
    fn dispatch(ctx: &mut Ctx, cmd: &Command) -> Result<(), Refusal> {
        if ctx.state.step == Step::GameOver && !matches!(cmd, Command::Override { .. }) {
            return Err(Refusal::new(
                "game-over",
                "",
                "the game is over",
                "branch the game to play on with other orders",
            ));
        }
        if !matches!(cmd, Command::Start { .. }) && ctx.state.turn == 0 {
            return Err(Refusal::new(
                "not-started",
                "",
                "the game has not started",
                "start it with `staffwork new`",
            ));
        }
        match cmd {
            Command::Start { presets, variants } => sequence::start(ctx, presets, variants)?,
            Command::Advance => sequence::advance(ctx)?,
            Command::IssueOrder {
                side,
                from,
                to,
                method,
                order,
            } => command_system::issue_order(ctx, side, from, to, *method, order, None)?,
            Command::IssueRelayedOrder {
                side,
                from,
                via,
                to,
                method,
                order,
            } => command_system::issue_order(ctx, side, from, to, *method, order, Some(via))?,
            Command::DeliverRelayedOrder { order } => relay::deliver(ctx, *order)?,
            Command::RollInitiative {
                commander,
                command,
                order,
            } => command_system::roll_initiative(ctx, commander, command, order)?,
            Command::LooseCannonOrder { command, order } => {
                command_system::loose_cannon_order(ctx, command, order)?
            }
            Command::DefaultDefense { command } => command_system::default_defense(ctx, command)?,
            Command::Withdraw { command } => command_system::withdraw(ctx, command)?,
            Command::Move {
                piece,
                to,
                path,
                formation,
                face,
                forced_march,
                extend,
                retract,
                extension,
                backstep,
                retreat_from: Some(cause),
                as_seen: _,
            } => {
                let plain = formation.is_none()
                    && face.is_none()
                    && *forced_march == 0
                    && extend.is_empty()
                    && retract.is_empty()
                    && extension.is_none()
                    && !backstep;
                if !plain {
                    return Err(Refusal::new(
                        "retreat-only",
                        "21.4",
                        "a retreat is only a retreat: no formation change, facing, Forced March, extensions or backstep with --retreat-from",
                        "retreat first; the unit may then face as it likes (10.1.3)",
                    ));
                }
                command_system::retreat_piece(ctx, piece, *to, path, *cause)?
            }
            Command::Move {
                piece,
                to,
                path,
                formation,
                face,
                forced_march,
                extend,
                retract,
                extension,
                backstep,
                retreat_from: None,
                as_seen,
            } => command_system::move_piece(
                ctx,
                piece,
                *to,
                path,
                movement::MoveOpts {
                    formation: *formation,
                    face: *face,
                    forced_march: *forced_march,
                    extend,
                    retract,
                    extension: *extension,
                    backstep: *backstep,
                    as_seen: *as_seen,
                },
            )?,
            Command::StageComplete { command } => command_system::stage_complete(ctx, command)?,
            Command::Combat {
                kind,
                attackers,
                defenders,
                options,
            } => combat_system::resolve(ctx, kind, attackers, defenders, options)?,
            Command::Override { reason, action } => {
                command_system::umpire_override(ctx, reason, action)?
            }
            Command::Message { side, from, text } => message(ctx, side, from, text)?,
            Command::Retract {
                commands,
                reason,
                restore,
                at_events,
                taken_back,
            } => retract(ctx, commands, reason, restore, *at_events, taken_back)?,
        }
        Ok(())
    }

    /// The schedule entry of a turn (1-based); the last one for turns past the end.
    pub fn turn_info(&self, turn: u32) -> Option<&TurnInfo> {
        self.turns.get(turn.checked_sub(1)? as usize)
    }
}

/// Decision 0124: the umpire's retraction. The engine checks only that the record has not
/// moved on since it was planned; what may be retracted (nothing a side could have seen) is
/// judged by the application layer, which alone reads the record.
fn retract(
    ctx: &mut Ctx,
    commands: &[i64],
    reason: &str,
    restore: &str,
    at_events: u64,
    taken_back: &[String],
) -> Result<(), Refusal> {
    if serde_json::from_str::<GameState>(restore).is_err() {
        return Err(Refusal::new(
            "bad-snapshot",
            "",
            "the state to restore is not a game state",
            "ask for the undo again",
        ));
    }
    if ctx.state.events != at_events || commands.is_empty() {
        return Err(Refusal::new(
            "record-moved-on",
            "",
            "the record changed since this retraction was planned",
            "ask for the undo again",
        ));
    }
    ctx.emit(
        Visibility::Public,
        EventKind::Retracted {
            commands: commands.len(),
            reason: reason.to_string(),
        },
    );
    ctx.emit(
        Visibility::Umpire,
        EventKind::StateRestored {
            state: restore.to_string(),
            taken_back: taken_back.to_vec(),
        },
    );
    Ok(())
}

/// A decision in progress: a scratch copy of the state that each emitted event is applied to,
/// so later segments see earlier results.
pub(crate) struct Ctx<'e, 'a, 'd> {
    pub eng: &'e Engine<'a>,
    pub state: GameState,
    pub events: Vec<Event>,
    pub dice: &'d mut dyn Dice,
    /// The unit whose retreat is being carried out: a rout on the way is owed from where the
    /// retreat ends (21.4), not from the hex it routed in.
    pub retreating: Option<String>,
}

impl<'e, 'a, 'd> Ctx<'e, 'a, 'd> {
    /// A scratch context of `state` for a preview that explains or prices without deciding
    /// anything: its dice are an empty script, so a die asked for is refused, not rolled.
    pub fn preview(
        eng: &'e Engine<'a>,
        state: &GameState,
        dice: &'d mut crate::rules::dice::ScriptedDice,
    ) -> Self {
        Ctx {
            eng,
            state: state.clone(),
            events: Vec::new(),
            dice,
            retreating: None,
        }
    }

    /// Record an event and apply it to the scratch state.
    pub fn emit(&mut self, visibility: Visibility, kind: EventKind) {
        let ev = Event {
            turn: self.state.turn,
            visibility,
            kind,
        };
        let lost_commander = match &ev.kind {
            EventKind::CommanderLost {
                command,
                lost: true,
            } => Some(command.clone()),
            _ => None,
        };
        let implemented = match &ev.kind {
            EventKind::OrderAccepted {
                order,
                implemented: true,
            }
            | EventKind::OrderImplemented { order } => Some(*order),
            EventKind::PresetOrder { order } if order.status == OrderStatus::Accepted => {
                Some(order.number)
            }
            _ => None,
        };
        evolve(&mut self.state, &ev);
        self.events.push(ev);
        if let Some(n) = implemented {
            command_system::transfers_on_implementation(self, n);
            borrowing::on_implemented(self, n);
        }
        if let Some(command) = lost_commander
            && !temporary_division::dissolve_if_temporary(
                self,
                &command,
                "lost its commander (V2.3)",
            )
        {
            command_system::replace_commander(self, &command);
        }
    }

    /// An event only `side` (and the umpire) may see.
    pub fn emit_side(&mut self, side: &str, kind: EventKind) {
        self.emit(Visibility::Side(side.to_string()), kind);
    }

    pub fn scenario(&self) -> &Scenario {
        self.eng.scenario
    }

    pub fn night(&self) -> bool {
        self.eng
            .turn_info(self.state.turn)
            .is_some_and(|t| t.light == crate::scenario::clock::Light::Night)
    }

    /// The side a command belongs to.
    pub fn side_of(&self, command: &str) -> Result<String, Refusal> {
        self.command(command).map(|c| c.side.clone())
    }

    /// A command's state, or the refusal naming the nearest ids when there is no such command
    /// (a lookup that refuses, never an index that panics).
    pub fn command(&self, command: &str) -> Result<&state::CommandState, Refusal> {
        self.state
            .commands
            .get(command)
            .ok_or_else(|| unknown_command(self.eng.scenario, command))
    }
}

/// Refusal for a command id that is not in the order of battle, with the nearest ids.
pub(crate) fn unknown_command(s: &Scenario, command: &str) -> Refusal {
    let mut ids: Vec<(usize, &str)> = oob::commands(s)
        .iter()
        .map(|c| {
            (
                crate::text::edit_distance(&c.id, command),
                s.command(&c.id).map_or("", |c| c.id()),
            )
        })
        .collect();
    ids.sort();
    let near: Vec<&str> = ids.iter().take(3).map(|(_, id)| *id).collect();
    Refusal::new(
        "unknown-command",
        "6.1",
        format!("`{command}` is not a command of this scenario"),
        format!(
            "use a formation or brigade id; nearest: {}",
            near.join(", ")
        ),
    )
}

/// The longest message a side and the umpire may exchange, in characters.
pub const MESSAGE_MAX_CHARS: usize = 2000;

/// A message between a side and the umpire: recorded for that side only (4.0: the other side
/// never learns of it). Refused when the side is unknown, the sender is neither the side nor the
/// umpire, or the text is empty or too long.
fn message(ctx: &mut Ctx, side: &str, from: &str, text: &str) -> Result<(), Refusal> {
    if !ctx.state.sides.contains_key(side) {
        return Err(Refusal::new(
            "unknown-side",
            "",
            format!("there is no side `{side}` in this game"),
            format!("use one of: {}", ctx.state.side_order.join(", ")),
        ));
    }
    if from != side && from != "umpire" {
        return Err(Refusal::new(
            "message-sender",
            "",
            format!("a message to the {side} table comes from `{side}` or `umpire`, not `{from}`"),
            "sides write only to the umpire; the umpire answers each side apart",
        ));
    }
    let text = text.trim();
    if text.is_empty() || text.chars().count() > MESSAGE_MAX_CHARS {
        return Err(Refusal::new(
            "message-length",
            "",
            format!(
                "a message has 1 to {MESSAGE_MAX_CHARS} characters; this one has {}",
                text.chars().count()
            ),
            "write something, or split a long message",
        ));
    }
    ctx.emit_side(
        side,
        EventKind::MessageSent {
            side: side.to_string(),
            from: from.to_string(),
            text: text.to_string(),
        },
    );
    Ok(())
}
