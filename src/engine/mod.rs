//! The pure engine of the NBS v3.0 command system: `decide(state, command, dice) -> events`
//! and `evolve(state, event) -> state`.
//!
//! Owns the rules of section 6 (orders, acceptance, delay, distortion, local initiative, attack
//! stoppage, HQs, command range), the sequence of play (5.1) and the optional Random Events (29). Must not: do IO, read the
//! clock, use ambient randomness, iterate hash containers, use floating point. Every die comes
//! from the [`Dice`] passed in and is stored in the event that used it.

mod borrowing;
pub mod combat_system;
pub mod command;
mod command_system;
pub mod event;
pub mod evolve;
mod extensions;
pub mod movement;
mod moving_brigades;
pub mod oob;
mod random_events;
mod relay;
mod sequence;
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

use crate::rules::dice::{Dice, DiceExhausted};
use crate::rules::tables::CommandTables;
use crate::scenario::Scenario;
use crate::scenario::clock::TurnInfo;
use crate::space::HexSpace;

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
            movement: crate::movement::tables::builtin(),
            move_map: crate::movement::MoveMap::new(scenario),
        }
    }

    /// The same engine with the given Movement Table (a game's overrides).
    pub fn with_movement(mut self, movement: &'a crate::movement::MovementTables) -> Self {
        self.movement = movement;
        self
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
        };
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
            Command::Start { presets, variants } => sequence::start(&mut ctx, presets, variants)?,
            Command::Advance => sequence::advance(&mut ctx)?,
            Command::IssueOrder {
                side,
                from,
                to,
                method,
                order,
            } => command_system::issue_order(&mut ctx, side, from, to, *method, order, None)?,
            Command::IssueRelayedOrder {
                side,
                from,
                via,
                to,
                method,
                order,
            } => command_system::issue_order(&mut ctx, side, from, to, *method, order, Some(via))?,
            Command::DeliverRelayedOrder { order } => relay::deliver(&mut ctx, *order)?,
            Command::RollInitiative {
                commander,
                command,
                order,
            } => command_system::roll_initiative(&mut ctx, commander, command, order)?,
            Command::LooseCannonOrder { command, order } => {
                command_system::loose_cannon_order(&mut ctx, command, order)?
            }
            Command::DefaultDefense { command } => {
                command_system::default_defense(&mut ctx, command)?
            }
            Command::Withdraw { command } => command_system::withdraw(&mut ctx, command)?,
            Command::Move {
                piece,
                to,
                path,
                formation,
                face,
                forced_march,
                extend,
                retract,
                backstep,
            } => command_system::move_piece(
                &mut ctx,
                piece,
                *to,
                path,
                movement::MoveOpts {
                    formation: *formation,
                    face: *face,
                    forced_march: *forced_march,
                    extend,
                    retract,
                    backstep: *backstep,
                },
            )?,
            Command::StageComplete { command } => {
                command_system::stage_complete(&mut ctx, command)?
            }
            Command::Combat {
                kind,
                attackers,
                defenders,
                options,
            } => combat_system::resolve(&mut ctx, kind, attackers, defenders, options)?,
            Command::Override { reason, action } => {
                command_system::umpire_override(&mut ctx, reason, action)?
            }
        }
        Ok(ctx.events)
    }

    /// The schedule entry of a turn (1-based); the last one for turns past the end.
    pub fn turn_info(&self, turn: u32) -> Option<&TurnInfo> {
        self.turns.get(turn.checked_sub(1)? as usize)
    }
}

/// A decision in progress: a scratch copy of the state that each emitted event is applied to,
/// so later segments see earlier results.
pub(crate) struct Ctx<'e, 'a, 'd> {
    pub eng: &'e Engine<'a>,
    pub state: GameState,
    pub events: Vec<Event>,
    pub dice: &'d mut dyn Dice,
}

impl Ctx<'_, '_, '_> {
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
        self.state
            .commands
            .get(command)
            .map(|c| c.side.clone())
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
