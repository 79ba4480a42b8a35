//! The application layer: every game action a front end offers, as a typed [`Request`], checked
//! for a [`Seat`] and executed against a [`Game`] by one function, [`execute`], which returns a
//! typed, serialisable [`Response`] or an [`AppError`].
//!
//! The CLI, the conformance runner, the demo and any later front end (web, study runner) go
//! through here; none of them builds an engine command itself. Owns: requests, the seat check,
//! request → engine command (`build`), views and reports (`view`), the words of a command line
//! (`words`). Must not print, must not decide rules (that is `engine`), and touches files only
//! through `game`/`store` and the scenario and table loaders.

mod build;
mod named;
pub mod request;
pub mod view;
mod words;

use std::path::Path;

use clap::Subcommand;
use serde::{Deserialize, Serialize};

use crate::engine::{Command, Refusal};
use crate::game::{Game, GameError, NewGame, Viewer};
use crate::rules::dice::Dice;

pub use request::*;
pub use view::{
    Applied, Branched, Created, LogView, OrderOdds, Replayed, StatusView, Where, order_log, where_,
};
pub use words::{parse_request, split_words};

/// Who is asking: a side, the umpire (and later an observer). The same type as the viewer of
/// the views, so what a seat may do and what it may see are decided over one value.
pub type Seat = Viewer;

/// A game action, as every front end asks for it. The subcommand names are the CLI's.
#[derive(Subcommand, Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "kebab-case")]
pub enum Request {
    /// Send an order (6.4).
    Order(OrderRequest),
    /// Re-issue a relayed order in person (Talavera T4.2b).
    Relay(RelayRequest),
    /// Run the automatic steps up to the next one that needs a person (5.1).
    Turn(TurnRequest),
    /// Roll for Initiative (6.6.1).
    Initiative(InitiativeRequest),
    /// Write a Loose Cannon's one-turn order (6.6.1.6).
    LooseCannon(LooseCannonRequest),
    /// Adopt Default Defense (6.6.2).
    DefaultDefense(CommandRequest),
    /// A voluntary Emergency Withdrawal (6.6.3).
    Withdraw(CommandRequest),
    /// Mark the current stage of a command's order complete (6.3.3).
    Stage(CommandRequest),
    /// Move a piece.
    Move(MoveRequest),
    /// Resolve a combat (14–19).
    Combat(CombatRequest),
    /// An umpire's override, recorded with its reason.
    Override(OverrideRequest),
    /// The game as the seat may see it.
    Status,
    /// The Order Log and the events as the seat may see them.
    Log,
    /// Play the recorded events back; optionally verify.
    Replay(ReplayRequest),
    /// Copy the game up to a turn into a new file.
    Branch(BranchRequest),
    /// The exact acceptance odds of a pending order (6.5).
    Odds(OddsRequest),
}

/// What a request produced.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "response", rename_all = "kebab-case")]
pub enum Response {
    /// A command was recorded: its events.
    Applied(Applied),
    Status(Box<StatusView>),
    Log(LogView),
    Replayed(Replayed),
    Branched(Branched),
    Odds(OrderOdds),
}

/// Why a request was not carried out. Nothing was written in any case.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// The engine refused the command (a rule, with its number).
    #[error("refused [{}]: {}", .0.code, .0.message)]
    Refused(Refusal),
    /// The order language found errors in an order text; the checked order has the diagnostics.
    #[error("the order has errors")]
    Order(Box<crate::order::CheckedOrder>),
    /// The seat may not make this request (a side acting for the enemy, a side asking for the
    /// umpire's tools).
    #[error("{0}")]
    Forbidden(String),
    /// The request itself is malformed (a missing or contradictory argument, an unknown side).
    #[error("{0}")]
    BadRequest(String),
    /// The scenario of a new game is invalid or unreadable.
    #[error(transparent)]
    Scenario(#[from] crate::scenario::ScenarioError),
    /// The command tables of a new game are invalid or unreadable.
    #[error(transparent)]
    Tables(#[from] crate::rules::tables::TableError),
    /// The game file could not be read or written.
    #[error("{0}")]
    Game(GameError),
}

impl AppError {
    /// Was the input read and judged bad (exit 1), rather than unusable (exit 2)?
    pub fn is_judged(&self) -> bool {
        match self {
            AppError::Refused(_) | AppError::Order(_) | AppError::Forbidden(_) => true,
            AppError::Scenario(e) => !matches!(e, crate::scenario::ScenarioError::Io { .. }),
            AppError::Tables(e) => !matches!(e, crate::rules::tables::TableError::Io { .. }),
            AppError::BadRequest(_) | AppError::Game(_) => false,
        }
    }
}

impl From<GameError> for AppError {
    fn from(e: GameError) -> Self {
        match e {
            GameError::Refused(r) => AppError::Refused(r),
            other => AppError::Game(other),
        }
    }
}

/// Check a request for a seat and execute it with the game's own dice.
pub fn execute(game: &mut Game, seat: &Seat, req: &Request) -> Result<Response, AppError> {
    execute_with(game, seat, req, None)
}

/// [`execute`] with other dice (scripted dice in a conformance case). `None` uses the game's.
pub fn execute_with(
    game: &mut Game,
    seat: &Seat,
    req: &Request,
    dice: Option<&mut dyn Dice>,
) -> Result<Response, AppError> {
    let req = &named::resolve_names(game, req)?;
    authorize(game, seat, req)?;
    match req {
        Request::Turn(t) => {
            let events = game.advance(t.until(), dice)?;
            Ok(applied(game, events))
        }
        Request::Status => Ok(Response::Status(Box::new(view::status(game, seat)))),
        Request::Log => Ok(Response::Log(view::log(game, seat)?)),
        Request::Replay(r) => replay(game, r).map(Response::Replayed),
        Request::Branch(b) => branch(game, b, seat).map(Response::Branched),
        Request::Odds(o) => order_odds(game, o.order).map(Response::Odds),
        _ => {
            let (actor, cmd) = command(game, req)?;
            let events = match dice {
                Some(d) => game.execute_with(&actor, &cmd, d)?,
                None => game.execute(&actor, &cmd)?,
            };
            Ok(applied(game, events))
        }
    }
}

fn applied(game: &Game, events: Vec<crate::engine::Event>) -> Response {
    Response::Applied(Applied {
        events,
        turn: game.state.turn,
        step: game.state.step,
    })
}

/// The engine command a request asks for, and the actor recorded with it. `turn` is one
/// `Advance`; views, replay, branch and odds are not commands (refused as a bad request).
pub fn command(game: &Game, req: &Request) -> Result<(String, Command), AppError> {
    match req {
        Request::Order(a) => build::order(game, a),
        Request::Relay(a) => Ok(build::relay(game, a.order)),
        Request::Turn(_) => Ok(("umpire".into(), Command::Advance)),
        Request::Initiative(a) => build::initiative(game, a),
        Request::LooseCannon(a) => build::loose_cannon(game, a),
        Request::DefaultDefense(a) => build::on_command(game, &a.command, |command| {
            Command::DefaultDefense { command }
        }),
        Request::Withdraw(a) => {
            build::on_command(game, &a.command, |command| Command::Withdraw { command })
        }
        Request::Stage(a) => build::on_command(game, &a.command, |command| {
            Command::StageComplete { command }
        }),
        Request::Move(a) => Ok((
            "player".into(),
            Command::Move {
                piece: a.piece.clone(),
                to: a.to,
            },
        )),
        Request::Combat(a) => build::combat(game, a),
        Request::Override(a) => build::override_(game, a),
        Request::Status
        | Request::Log
        | Request::Replay(_)
        | Request::Branch(_)
        | Request::Odds(_) => Err(AppError::BadRequest(
            "a view or report, not a game command".into(),
        )),
    }
}

/// May this seat make this request? The umpire may do everything; a side acts only for itself
/// (and writes the enemy's Loose Cannon order, 6.6.1.6), sees its own views, and leaves the
/// umpire's tools (turn, override, replay, branch) to the umpire.
fn authorize(game: &Game, seat: &Seat, req: &Request) -> Result<(), AppError> {
    let side = match seat {
        Viewer::Umpire => return Ok(()),
        Viewer::Side(s) => s,
    };
    if !game.state.sides.contains_key(side) {
        let known: Vec<&str> = game.state.sides.keys().map(String::as_str).collect();
        return Err(AppError::BadRequest(format!(
            "unknown side `{side}`; this game's sides are {}",
            known.join(", ")
        )));
    }
    let own = |owner: Option<String>| owner.as_deref() == Some(side.as_str());
    let forbidden = |what: &str| Err(AppError::Forbidden(format!("the {side} side {what}")));
    let command_side = |c: &str| build::side_of_command(game, c);
    match req {
        Request::Status | Request::Log => Ok(()),
        Request::Order(a) if a.side == *side => Ok(()),
        Request::Order(_) => forbidden("writes only its own orders (6.4)"),
        Request::Initiative(a) => {
            let command = a.command.clone().or_else(|| {
                game.scenario
                    .formation_of_commander(&a.commander)
                    .map(|f| f.id.clone())
            });
            if own(command.and_then(|c| command_side(&c))) {
                Ok(())
            } else {
                forbidden("rolls for Initiative only for its own commands (6.6.1)")
            }
        }
        Request::LooseCannon(a) => match command_side(&a.command) {
            Some(s) if s != *side => Ok(()),
            _ => forbidden("writes the Loose Cannon order of an enemy command only (6.6.1.6)"),
        },
        Request::DefaultDefense(a) | Request::Withdraw(a) | Request::Stage(a) => {
            if own(command_side(&a.command)) {
                Ok(())
            } else {
                forbidden("acts only for its own commands")
            }
        }
        Request::Move(a) if own(build::side_of_piece(game, &a.piece)) => Ok(()),
        Request::Move(_) => forbidden("moves only its own pieces"),
        Request::Combat(a) => {
            let lead = a.attackers.first().map(String::as_str).unwrap_or_default();
            if own(game.scenario.unit(lead).map(|u| u.side.clone())) {
                Ok(())
            } else {
                forbidden("attacks only with its own units (14.2)")
            }
        }
        Request::Relay(a) if own(game.state.orders.get(&a.order).map(|o| o.side.clone())) => Ok(()),
        Request::Relay(_) => forbidden("relays only its own orders (T4.2b)"),
        Request::Odds(o) => {
            if own(game.state.orders.get(&o.order).map(|x| x.side.clone())) {
                Ok(())
            } else {
                // The same words whether the order is the enemy's or does not exist (4.0).
                Err(AppError::BadRequest(format!(
                    "there is no order {} of the {side} side; see `staffwork log`",
                    o.order
                )))
            }
        }
        Request::Turn(_) => forbidden("does not run the sequence of play; the umpire does (5.1)"),
        Request::Override(_) => forbidden("cannot override; only the umpire can"),
        Request::Replay(_) => forbidden("cannot replay the whole game; only the umpire can"),
        Request::Branch(_) => forbidden("cannot branch the game; only the umpire can"),
    }
}

fn replay(game: &Game, r: &ReplayRequest) -> Result<Replayed, AppError> {
    let state = game.state_at(r.to_turn)?;
    let verification = if r.verify { Some(game.verify()?) } else { None };
    let ok = verification.as_ref().is_none_or(|v| v.ok());
    Ok(Replayed {
        turn: state.turn,
        events: state.events,
        orders: state.orders.len(),
        verification,
        ok,
    })
}

fn branch(game: &Game, b: &BranchRequest, seat: &Seat) -> Result<Branched, AppError> {
    let new = game.branch(&b.out, b.at_turn, b.seed, now())?;
    Ok(Branched {
        out: b.out.clone(),
        at_turn: b.at_turn,
        turn: new.state.turn,
        events: new.state.events,
        at: where_(&new, seat),
    })
}

fn order_odds(game: &Game, number: u32) -> Result<OrderOdds, AppError> {
    let situation =
        crate::game::acceptance_situation(game, number).map_err(AppError::BadRequest)?;
    Ok(OrderOdds {
        order: number,
        odds: crate::rules::odds::acceptance(&game.tables, situation),
        tables_hash: game.tables.hash(),
    })
}

/// Wall-clock time for the game file's metadata; the engine never sees it.
#[allow(clippy::disallowed_methods)]
fn now() -> String {
    chrono::Local::now()
        .format("%Y-%m-%dT%H:%M:%S%:z")
        .to_string()
}

/// Load what a new game needs: the scenario (a file or a bundled name), the command tables
/// (bundled or the user's file), the combat table overrides, the variants.
pub fn prepare_new(req: &NewRequest) -> Result<NewGame, AppError> {
    let (_, scenario_toml, scenario) = crate::scenario::source(Path::new(&req.scenario))?;
    let mut new = NewGame::on(scenario_toml, scenario, req.seed).map_err(|(id, msg)| {
        AppError::BadRequest(format!(
            "pre-set order `{id}` cannot be read by the order language: {msg}"
        ))
    })?;
    if let Some(p) = &req.tables {
        new.tables = crate::rules::tables::CommandTables::load(p)?;
        new.tables_toml = std::fs::read_to_string(p)
            .map_err(|e| AppError::BadRequest(format!("cannot read {}: {e}", p.display())))?;
    }
    if let Some(p) = &req.combat_tables {
        new.combat_tables_toml = std::fs::read_to_string(p)
            .map_err(|e| AppError::BadRequest(format!("cannot read {}: {e}", p.display())))?;
    }
    new.variants.clone_from(&req.variant);
    new.created_at = now();
    Ok(new)
}

/// Create a game file (or, with `db = None`, a game in memory) from a prepared new game.
pub fn create(db: Option<&Path>, new: NewGame) -> Result<(Game, Created), AppError> {
    let seed = new.seed;
    let game = match db {
        Some(p) => Game::create(p, new)?,
        None => Game::in_memory(new)?,
    };
    let created = Created {
        scenario: game.scenario.meta.id.clone(),
        title: game.scenario.meta.title.clone(),
        seed,
        turn: game.state.turn,
        phasing: game.state.phasing().to_string(),
        at: where_(&game, &Viewer::Umpire),
    };
    Ok((game, created))
}
