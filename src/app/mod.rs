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
pub use build::{ORDER_MAX_CHARS, order_text_fits};
pub(crate) mod named;
pub mod request;
pub mod view;
mod words;
pub mod workbench;

use std::path::Path;

use clap::Subcommand;
use serde::{Deserialize, Serialize};

use crate::engine::combat_system::CombatInput;
use crate::engine::{Command, Refusal};
use crate::game::{Game, GameError, NewGame};
use crate::rules::dice::Dice;
use crate::view::Viewer;

pub use request::*;
pub use view::{
    Applied, Branched, Created, LogView, OrderOdds, Receipt, ReceiptCheck, Replayed, StatusView,
    Where, order_log, where_,
};
pub use words::{parse_request, split_words};

/// Who is asking: a side, the umpire or an observer (`crate::view::Viewer`). The same type as the viewer of
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
    /// A message between a side and the umpire, seen by that side and the umpire only.
    Message(MessageRequest),
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
    /// Play the recorded events back; optionally verify (the umpire's).
    Replay(ReplayRequest),
    /// A keyed digest of the record as it stands, for the seat to keep (decision 0050).
    Receipt(ReceiptRequest),
    /// Copy the game up to a turn into a new file.
    Branch(BranchRequest),
    /// The exact acceptance odds of a pending order (6.5).
    Odds(OddsRequest),
    /// The exact odds of a combat between pieces of the game, fought as its combat would fight
    /// it now: the same combatants and the arcs read from facing (10.0; the umpire's, decision
    /// 0166).
    CombatOdds(CombatRequest),
    /// One unit at a glance, as the seat may see it.
    Show(ShowRequest),
    /// What the seat learned in one game turn.
    Report(ReportRequest),
    /// Take back the last command(s) no side could yet have seen (the umpire's).
    Undo(UndoRequest),
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
    Receipt(Receipt),
    Branched(Branched),
    Odds(OrderOdds),
    CombatOdds(Box<view::CombatOddsView>),
    Show(Box<workbench::UnitView>),
    /// `show` of a formation (decision 0162).
    ShowFormation(Box<workbench::FormationView>),
    Report(workbench::TurnReport),
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
///
/// A side's seat types and is shown its own order numbers (1, 2, 3 … among its orders), never
/// the engine's, which count the enemy's too (decision 0160): the request's numbers are
/// translated here on the way in, and the response's and refusal's on the way out.
pub fn execute_with(
    game: &mut Game,
    seat: &Seat,
    req: &Request,
    dice: Option<&mut dyn Dice>,
) -> Result<Response, AppError> {
    let before = crate::view::OrderNumbers::for_seat(&game.state, seat);
    let req = &engine_numbers(&before, seat, req)?;
    let response =
        execute_engine_numbers(game, seat, req, dice).map_err(|e| seat_words(&before, e))?;
    let after = crate::view::OrderNumbers::for_seat(&game.state, seat);
    Ok(seat_numbers(&after, response))
}

/// The request with the seat's order numbers replaced by the engine's. A side naming an order
/// it does not have is told so in the same words whether the number is the enemy's or no one's.
fn engine_numbers(
    numbers: &crate::view::OrderNumbers,
    seat: &Seat,
    req: &Request,
) -> Result<Request, AppError> {
    let mut req = req.clone();
    let number = match &mut req {
        Request::Odds(o) => &mut o.order,
        Request::Relay(r) => &mut r.order,
        _ => return Ok(req),
    };
    match numbers.engine(*number) {
        Some(n) => *number = n,
        None => {
            return Err(AppError::BadRequest(format!(
                "there is no order {number} of the {} side; see `staffwork log`",
                seat.name()
            )));
        }
    }
    Ok(req)
}

/// A response in the seat's order numbers. The views and reports are built for the seat
/// already; a command's events and the odds of an order are renumbered here.
fn seat_numbers(numbers: &crate::view::OrderNumbers, response: Response) -> Response {
    if numbers.is_engine() {
        return response;
    }
    match response {
        Response::Applied(mut a) => {
            a.events = a.events.iter().map(|e| numbers.event(e)).collect();
            Response::Applied(a)
        }
        Response::Odds(mut o) => {
            o.order = numbers.shown(o.order);
            Response::Odds(o)
        }
        other => other,
    }
}

/// An error in the seat's order numbers: the engine writes its own numbers into refusals.
fn seat_words(numbers: &crate::view::OrderNumbers, e: AppError) -> AppError {
    match e {
        AppError::Refused(mut r) => {
            r.message = numbers.text(&r.message);
            r.help = numbers.text(&r.help);
            AppError::Refused(r)
        }
        AppError::BadRequest(m) => AppError::BadRequest(numbers.text(&m)),
        AppError::Forbidden(m) => AppError::Forbidden(numbers.text(&m)),
        other => other,
    }
}

/// [`execute_with`] in the engine's order numbers.
fn execute_engine_numbers(
    game: &mut Game,
    seat: &Seat,
    req: &Request,
    dice: Option<&mut dyn Dice>,
) -> Result<Response, AppError> {
    let req = &named::resolve_names(game, req, seat)?;
    // A formation moving as one is a move of its pieces, each checked for the seat.
    let req = &whole_as_pieces(game, req)?;
    authorize(game, seat, req)?;
    match req {
        Request::Turn(t) => {
            let events = game.advance(t.until(), dice)?;
            Ok(applied(game, events))
        }
        Request::Status => Ok(Response::Status(Box::new(view::status(game, seat)))),
        Request::Log => Ok(Response::Log(view::log(game, seat)?)),
        Request::Replay(r) => replay(game, r, seat).map(Response::Replayed),
        Request::Receipt(_) => receipt(game, seat).map(Response::Receipt),
        Request::Branch(b) => branch(game, b, seat).map(Response::Branched),
        Request::Odds(o) => order_odds(game, o.order).map(Response::Odds),
        Request::CombatOdds(a) => combat_odds(game, a).map(|v| Response::CombatOdds(Box::new(v))),
        Request::Show(s) if game.scenario.unit(&s.unit).is_none() => {
            workbench::show_formation(game, seat, &s.unit)
                .map(|v| Response::ShowFormation(Box::new(v)))
        }
        Request::Show(s) => {
            workbench::show(game, seat, &s.unit).map(|v| Response::Show(Box::new(v)))
        }
        Request::Report(r) => workbench::report(game, seat, r.turn).map(Response::Report),
        Request::Move(a) if a.piece.len() > 1 => {
            let moves: Vec<Command> = build::moves(a)?
                .into_iter()
                .map(|m| as_seat_sees(seat, m))
                .collect();
            // Checked together on the game as it stands, then moved one by one.
            game.preview_all(&moves).map_err(|e| match e {
                GameError::Refused(r) => AppError::Refused(refused_member(game, &moves, r)),
                e => AppError::Game(e),
            })?;
            let mut events = Vec::new();
            let mut dice = dice;
            for m in &moves {
                events.extend(match dice.as_deref_mut() {
                    Some(d) => game.execute_with("player", m, d)?,
                    None => game.execute("player", m)?,
                });
            }
            let mut done = applied(game, events);
            offer_opportunity(game, seat, &mut done);
            Ok(done)
        }
        _ => {
            let built: Vec<(String, Command)> = commands(game, req)?
                .into_iter()
                .map(|(actor, cmd)| (actor, as_seat_sees(seat, cmd)))
                .collect();
            // A side is refused in words that say nothing of the pieces it cannot see
            // (view::refusal_for); the umpire is told the engine's own reason.
            let for_seat = |game: &Game, e: GameError, cmd: &Command| match (e, seat) {
                (GameError::Refused(r), Viewer::Side(side)) => {
                    GameError::Refused(crate::view::refusal_for(game, side, cmd, r))
                }
                (e, _) => e,
            };
            // Several copies of one order (decision 0184) are checked together before any
            // is recorded: all are sent, or none.
            if built.len() > 1 {
                check_copies(game, &built).map_err(|(e, cmd)| for_seat(game, e, cmd))?;
            }
            let mut events = Vec::new();
            let mut dice = dice;
            for (actor, cmd) in &built {
                let result = match dice.as_deref_mut() {
                    Some(d) => game.execute_with(actor, cmd, d),
                    None => game.execute(actor, cmd),
                };
                events.extend(result.map_err(|e| for_seat(game, e, cmd))?);
            }
            let mut done = applied(game, events);
            // The warnings of an accepted order are kept with its events (issue 17).
            if let (Request::Order(a), Response::Applied(x)) = (req, &mut done) {
                x.diagnostics = build::read_order(&a.text, game, &a.side, a.to.as_deref())
                    .map(|c| c.diagnostics)
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|d| d.severity == crate::order::Severity::Warning)
                    .collect();
            }
            offer_opportunity(game, seat, &mut done);
            Ok(done)
        }
    }
}

/// A side's move is planned against what the side sees (`Command::Move::as_seen`, 4.0,
/// decision 0181); the umpire's with everything. A retreat's path is given, not planned.
fn as_seat_sees(seat: &Seat, mut cmd: Command) -> Command {
    if let (
        Viewer::Side(_),
        Command::Move {
            as_seen,
            retreat_from: None,
            ..
        },
    ) = (seat, &mut cmd)
    {
        *as_seen = true;
    }
    cmd
}

/// `move --whole FORMATION` as the move of its pieces (`build::whole`, decision 0162); any
/// other request as it is.
fn whole_as_pieces(game: &Game, req: &Request) -> Result<Request, AppError> {
    Ok(match req {
        Request::Move(a) if a.whole.is_some() => Request::Move(build::whole(game, a)?),
        other => other.clone(),
    })
}

/// A refusal of a move of several pieces, naming the piece and hex refused (decision 0162):
/// the first move that does not go through after the ones before it.
fn refused_member(game: &Game, moves: &[Command], r: Refusal) -> Refusal {
    let failed = (0..moves.len()).find(|i| game.preview_all(&moves[..=*i]).is_err());
    let Some(Command::Move { piece, to, .. }) = failed.map(|i| &moves[i]) else {
        return r;
    };
    Refusal {
        message: format!("{piece} to {to}: {}", r.message),
        help: format!("{}; nothing moved", r.help),
        ..r
    }
}

/// What a game command would record now, without recording it: the seat check, the names and
/// the engine's decision against the present state with throw-away dice, nothing written. For a
/// front end's live check (the web order desk's cost and courier arrival, 6.4). Dice rolled in
/// the preview are not the game's and mean nothing; views and reports are a bad request.
pub fn preview(
    game: &Game,
    seat: &Seat,
    req: &Request,
) -> Result<Vec<crate::engine::Event>, AppError> {
    // In the seat's order numbers, as `execute_with` (decision 0160).
    let mut numbers = crate::view::OrderNumbers::for_seat(&game.state, seat);
    let req = &engine_numbers(&numbers, seat, req)?;
    let req = &named::resolve_names(game, req, seat)?;
    let req = &whole_as_pieces(game, req)?;
    authorize(game, seat, req)?;
    if matches!(req, Request::Turn(_)) {
        return Err(AppError::BadRequest(
            "the sequence of play is not previewed".into(),
        ));
    }
    let engine = game.engine();
    let mut dice = crate::rules::dice::SeededDice::new(0);
    let mut state = std::borrow::Cow::Borrowed(&game.state);
    let mut events = Vec::new();
    for (_, cmd) in commands(game, req)? {
        let cmd = as_seat_sees(seat, cmd);
        // A side previews its move on the game as it sees it, so the answer for a hex holding
        // an enemy it does not see is the answer for an empty one (4.0, decision 0181).
        if let (Viewer::Side(side), Command::Move { .. }, std::borrow::Cow::Borrowed(_)) =
            (seat, &cmd, &state)
        {
            state = std::borrow::Cow::Owned(crate::engine::sighted::seen_state(
                &game.state,
                &game.scenario,
                side,
            ));
        }
        let decided = engine
            .decide(&state, &cmd, &mut dice)
            .map_err(|r| match seat {
                Viewer::Side(side) => {
                    AppError::Refused(crate::view::refusal_for(game, side, &cmd, r))
                }
                _ => AppError::Refused(r),
            })
            .map_err(|e| seat_words(&numbers, e))?;
        for e in &decided {
            crate::engine::evolve(state.to_mut(), e);
        }
        events.extend(decided);
    }
    numbers.learn(&events);
    Ok(events.iter().map(|e| numbers.event(e)).collect())
}

fn applied(game: &Game, events: Vec<crate::engine::Event>) -> Response {
    Response::Applied(Applied {
        events,
        turn: game.state.turn,
        step: game.state.step,
        diagnostics: Vec::new(),
        opportunity_fire: Vec::new(),
        reaction_charges: Vec::new(),
    })
}

/// 17.4: the Opportunity Fire the moves among `done`'s events offer, as the seat may see it.
fn offer_opportunity(game: &Game, seat: &Seat, done: &mut Response) {
    let Response::Applied(a) = done else { return };
    let engine = game.engine();
    let mut units: Vec<&str> = Vec::new();
    for e in &a.events {
        let unit = match &e.kind {
            // A move that spent MP; a retreat (17.4.5) or a placement spends none.
            crate::engine::EventKind::PieceMoved {
                piece,
                path,
                half_mp: Some(_),
                ..
            } if !path.is_empty() => piece,
            // 17.4 trigger 3: a formation change in the zone; 17.4.2: a Line Extension's own
            // move (or its appearing in its hex, 13.1.3) and its change out of Square (8.3.3).
            // A Square against a charge offers nothing (17.4.6: its fire is the charge's;
            // decisions 0195, 0198): the offers are read from the state, which knows it.
            crate::engine::EventKind::FormationChanged { unit, .. }
            | crate::engine::EventKind::ExtensionMoved { unit, .. }
            | crate::engine::EventKind::LineExtended { unit, .. } => unit,
            _ => continue,
        };
        if !units.contains(&unit.as_str()) {
            units.push(unit);
        }
    }
    let offers = units
        .iter()
        .flat_map(|u| engine.opportunity_offers_for(&game.state, u))
        .collect();
    a.opportunity_fire = crate::view::opportunity_for(seat, offers);
    // 16.5: the Reaction Charges the same activity offers, a retreat's too (16.5.2).
    let retreated = a.events.iter().filter_map(|e| match &e.kind {
        crate::engine::EventKind::PieceMoved {
            piece,
            path,
            half_mp: None,
            ..
        } if !path.is_empty() => Some(piece.as_str()),
        _ => None,
    });
    let mut all: Vec<&str> = units.clone();
    for u in retreated {
        if !all.contains(&u) {
            all.push(u);
        }
    }
    let reactions = all
        .into_iter()
        .flat_map(|u| engine.reaction_offers_for(&game.state, u))
        .collect();
    a.reaction_charges = crate::view::reactions_for(seat, reactions);
}

/// The copies of one order to several commands (decision 0184) decided one after another on
/// the game as it stands, nothing written: the events and state they would give, or a refusal
/// that says which copy failed.
pub(super) fn check_copies<'a>(
    game: &Game,
    built: &'a [(String, Command)],
) -> Result<(Vec<crate::engine::Event>, crate::engine::GameState), (GameError, &'a Command)> {
    let cmds: Vec<Command> = built.iter().map(|(_, c)| c.clone()).collect();
    game.preview_each(&cmds).map_err(|(k, r)| {
        let cmd = &built[k].1;
        let to = match cmd {
            Command::IssueOrder { to, .. } | Command::IssueRelayedOrder { to, .. } => to.as_str(),
            _ => "",
        };
        let message = format!(
            "the copy to {to} ({} of {} copies of this order, one per command it names): {}",
            k + 1,
            cmds.len(),
            r.message
        );
        let help = format!("{}; or send the order to fewer commands at once", r.help);
        let r = crate::engine::Refusal { message, help, ..r };
        (GameError::Refused(r), cmd)
    })
}

/// The engine commands of a request with their actors: one, except an order addressed to
/// several commands, which is a copy to each (decision 0184).
fn commands(game: &Game, req: &Request) -> Result<Vec<(String, Command)>, AppError> {
    match req {
        Request::Order(a) => build::orders(game, a),
        _ => Ok(vec![command(game, req)?]),
    }
}

/// The engine command a request asks for, and the actor recorded with it. `turn` is one
/// `Advance`; views, replay, branch and odds are not commands (refused as a bad request).
pub fn command(game: &Game, req: &Request) -> Result<(String, Command), AppError> {
    match req {
        Request::Order(a) => match build::orders(game, a)?.as_slice() {
            [one] => Ok(one.clone()),
            _ => Err(AppError::BadRequest(
                "an order to several commands is several orders; `execute` sends them".into(),
            )),
        },
        Request::Relay(a) => Ok(build::relay(game, a.order)),
        Request::Turn(_) => Ok(("umpire".into(), Command::Advance)),
        Request::Message(a) => Ok((
            a.from.clone(),
            Command::Message {
                side: a.side.clone(),
                from: a.from.clone(),
                text: a.text.clone(),
            },
        )),
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
        Request::Move(a) => match build::moves(a)?.as_slice() {
            [one] => Ok(("player".into(), one.clone())),
            _ => Err(AppError::BadRequest(
                "several pieces are several moves; `execute` runs them".into(),
            )),
        },
        Request::Combat(a) => build::combat(game, a),
        Request::Override(a) => build::override_(game, a),
        Request::Undo(a) => build::undo(game, a),
        Request::Status
        | Request::Log
        | Request::Replay(_)
        | Request::Receipt(_)
        | Request::Branch(_)
        | Request::Odds(_)
        | Request::CombatOdds(_)
        | Request::Show(_)
        | Request::Report(_) => Err(AppError::BadRequest(
            "a view or report, not a game command".into(),
        )),
    }
}

/// May this seat make this request? The umpire may do everything; a side acts only for itself
/// (and writes the enemy's Loose Cannon order, 6.6.1.6), sees its own views, and leaves the
/// umpire's tools (turn, override, replay, branch) to the umpire.
pub(crate) fn authorize(game: &Game, seat: &Seat, req: &Request) -> Result<(), AppError> {
    let side = match seat {
        Viewer::Umpire => return Ok(()),
        // An observer watches: the views, a playback and a receipt, nothing else (0051).
        Viewer::Observer => {
            return match req {
                Request::Status
                | Request::Log
                | Request::Receipt(_)
                | Request::Show(_)
                | Request::Report(_) => Ok(()),
                Request::Replay(r) if !r.verify => Ok(()),
                _ => Err(AppError::Forbidden(
                    "an observer only watches (status, log, replay, receipt)".into(),
                )),
            };
        }
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
        Request::Status
        | Request::Log
        | Request::Receipt(_)
        | Request::Show(_)
        | Request::Report(_) => Ok(()),
        Request::Replay(r) if !r.verify => Ok(()),
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
        // 21.4: a side retreats a unit a combat required to retreat, or one that is Routed; any
        // other retreat is the umpire's to order (decision 0171).
        Request::Move(a)
            if a.retreat_from.is_some()
                && a.piece
                    .iter()
                    .all(|p| own(build::side_of_piece(game, build::piece_name(p))))
                && a.piece.iter().any(|p| {
                    let id = build::piece_name(p);
                    let due = game
                        .state
                        .movement
                        .get(id)
                        .is_some_and(|m| m.retreat_due.is_some());
                    let routed = game
                        .state
                        .units
                        .get(id)
                        .is_some_and(|u| u.morale == crate::combat::MoraleState::Routed);
                    !due && !routed
                }) =>
        {
            forbidden(
                "retreats only a unit a combat required to retreat, or a Routed one (21.4); \
                 any other retreat is the umpire's to order",
            )
        }
        Request::Move(a)
            if a.piece
                .iter()
                .all(|p| own(build::side_of_piece(game, build::piece_name(p)))) =>
        {
            Ok(())
        }
        Request::Move(_) => forbidden("moves only its own pieces"),
        Request::Combat(a) if a.ruling.is_some() => forbidden(
            "cannot rule the attack's arc, flanks or entry, nor allow a fire 17.4.1 refuses (10.0, 12.1.1, 17.4.1); only the umpire can",
        ),
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
        Request::Message(a) if a.side == *side && a.from == *side => Ok(()),
        Request::Message(_) => forbidden("writes messages only from its own table to the umpire"),
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
        Request::CombatOdds(_) => forbidden(
            "cannot ask a combat's odds from the game: they read the enemy's units (strength, losses, morale, facing), which are the umpire's (4.0); use `odds close-combat|charge|fire` with the flags you know",
        ),
        Request::Turn(_) => forbidden("does not run the sequence of play; the umpire does (5.1)"),
        Request::Override(_) => forbidden("cannot override; only the umpire can"),
        Request::Undo(_) => forbidden("cannot take commands back; only the umpire can"),
        Request::Replay(_) => forbidden(
            "cannot verify: --verify reads every hidden event, so it is the umpire's; a side checks the file with its receipt through the umpire",
        ),
        Request::Branch(_) => forbidden("cannot branch the game; only the umpire can"),
    }
}

/// Play back (to a turn) and, for the umpire, verify the record and check a receipt. A game
/// opened for verification should come from `Game::open_for_audit`, so a damaged record is
/// reported rather than refused.
fn replay(game: &Game, r: &ReplayRequest, seat: &Seat) -> Result<Replayed, AppError> {
    let seat = &crate::view::effective(seat, &game.state);
    let umpire = *seat == Viewer::Umpire;
    let state = game.state_at(r.to_turn)?;
    let verification = if r.verify {
        Some(game.verify_with(r.chain_only)?)
    } else {
        None
    };
    let receipt = match &r.receipt {
        Some(path) => Some(check_receipt(game, path)?),
        None => None,
    };
    let verified = verification
        .as_ref()
        .is_none_or(|v| if r.chain_only { v.chain_ok() } else { v.ok() });
    let ok = verified && receipt.as_ref().is_none_or(|c| c.ok);
    Ok(Replayed {
        viewer: seat.name().to_string(),
        turn: state.turn,
        // A side sees its own orders only; the total is the umpire's.
        orders: crate::view::orders(&state, seat).len(),
        events: umpire.then_some(state.events),
        verification,
        chain_only: r.chain_only,
        receipt,
        ok,
    })
}

/// Does the file still hold the record a receipt was given for?
fn check_receipt(game: &Game, path: &Path) -> Result<ReceiptCheck, AppError> {
    let text = crate::text::read_file(path).map_err(|e| {
        AppError::BadRequest(format!("cannot read receipt {}: {e}", path.display()))
    })?;
    let r: Receipt = serde_json::from_str(&text).map_err(|e| {
        AppError::BadRequest(format!(
            "{} is not a staffwork receipt ({e}); make one with `staffwork receipt --db GAME --out FILE`",
            path.display()
        ))
    })?;
    let failed = |why: String| ReceiptCheck {
        ok: false,
        events: None,
        why: Some(why),
    };
    if r.scenario != game.store.meta().scenario_id {
        return Ok(failed(format!(
            "the receipt is for a game of `{}`, this file is a game of `{}`",
            crate::text::visible(&r.scenario),
            game.store.meta().scenario_id
        )));
    }
    let found = game
        .store
        .find_receipt(&r.digest)
        .map_err(|e| AppError::Game(e.into()))?;
    Ok(match found {
        Some(n) => ReceiptCheck {
            ok: true,
            events: Some(n),
            why: None,
        },
        None => failed(format!(
            "the file no longer holds the record the {} receipt of turn {} was given for: it was cut back or rewritten",
            crate::text::visible(&r.seat),
            r.turn
        )),
    })
}

/// A receipt for a seat: the keyed digest of the record's head; the umpire's also carries the
/// event count and head hash.
fn receipt(game: &Game, seat: &Seat) -> Result<Receipt, AppError> {
    let err = |e: crate::store::StoreError| AppError::Game(e.into());
    let head = game.store.full_head().map_err(err)?;
    let digest = game
        .store
        .receipt_digest(head.events, &head.hash)
        .map_err(err)?;
    let umpire = *seat == Viewer::Umpire;
    Ok(Receipt {
        staffwork_receipt: 1,
        scenario: game.store.meta().scenario_id.clone(),
        seat: seat.name().to_string(),
        turn: game.state.turn,
        digest,
        events: umpire.then_some(head.events),
        head_hash: umpire.then(|| head.hash.clone()),
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

/// The exact odds of the combat `a` names, as the game would fight it now (decision 0166): the
/// engine builds the combat core's input as `combat` does — the same refusals — and the odds
/// enumerate every die over it with the game's combat tables.
fn combat_odds(game: &Game, a: &CombatRequest) -> Result<view::CombatOddsView, AppError> {
    let (_, command) = build::combat(game, a)?;
    let Command::Combat {
        kind,
        attackers,
        defenders,
        options,
    } = command
    else {
        unreachable!("build::combat builds a combat");
    };
    let preview = game
        .engine()
        .combat_preview(&game.state, &kind, &attackers, &defenders, &options)
        .map_err(AppError::Refused)?;
    let t = &game.combat;
    let odds = match &preview.input {
        CombatInput::CloseCombat(i) => crate::combat::odds::close_combat_odds(t, i),
        CombatInput::Charge(i) => crate::combat::odds::charge_odds(t, i),
        CombatInput::ArtilleryFire(i) => crate::combat::odds::fire_odds(t, i),
    }
    .map_err(|e| AppError::BadRequest(format!("no odds for this combat: {e}")))?;
    Ok(view::CombatOddsView {
        procedure: a.procedure,
        attackers,
        defenders,
        aspects: preview.aspects,
        input: preview.input,
        odds,
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
        new.tables_toml = crate::text::read_file(p)
            .map_err(|e| AppError::BadRequest(format!("cannot read {}: {e}", p.display())))?;
    }
    if let Some(p) = &req.combat_tables {
        new.combat_tables_toml = crate::text::read_file(p)
            .map_err(|e| AppError::BadRequest(format!("cannot read {}: {e}", p.display())))?;
    }
    if let Some(p) = &req.movement_tables {
        new.movement_tables_toml = crate::text::read_file(p)
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
