//! The web table's one door into the game: every read and every action the pages make goes
//! through here, and every one of them is an application-layer request (`crate::app`) made with
//! the seat of the signed-in player. What a seat sees is what `app`'s views give that seat
//! (`Request::Status`, `Request::Log`, built on `crate::view`, the one allow-list); this file
//! only reshapes them for the pages.
//!
//! Owns: the single writer (one `Mutex<Game>`: each request is decided and appended in one
//! transaction, issue 9), web seat → `app::Seat`, the [`View`] every page, fragment, JSON and
//! live update is built from, and the order check as you type. Must not: render HTML, touch
//! SQLite (that is `store`), build engine commands or decide rules (that is `app`/`engine`), or
//! widen what `app` gives a seat (it may only narrow it: decision 0110).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use serde::Serialize;

use crate::app::{self, AppError, LogView, Request, Response, StatusView};
use crate::engine::{EventKind, OrderStatus, Step};
use crate::game::{Game, GameError};
use crate::hex::Hex;
use crate::view::Viewer;

use super::seats::Seat;

/// What a seat may see: the umpire everything; a side its own table; the observer what is public
/// (everything once the game is over). `as_side` is the umpire's "view as side X" and is ignored
/// for every other seat. The decision itself is `crate::view`'s; this only picks the viewer.
pub fn viewer(seat: &Seat, as_side: Option<&str>) -> Viewer {
    match seat {
        Seat::Umpire => match as_side {
            Some(s) => Viewer::Side(s.to_string()),
            None => Viewer::Umpire,
        },
        Seat::Side(s) => Viewer::Side(s.clone()),
        Seat::Observer => Viewer::Observer,
    }
}

/// A refused request: what was wrong, where, and what to do.
#[derive(Clone, Debug, Serialize)]
pub struct WebRefusal {
    /// Stable code (the engine's refusal code, or one of ours).
    pub code: String,
    /// Rule number, when the engine gave one.
    pub rule: String,
    pub message: String,
    pub help: String,
}

impl WebRefusal {
    pub fn new(code: &str, message: impl Into<String>, help: impl Into<String>) -> Self {
        WebRefusal {
            code: code.into(),
            rule: String::new(),
            message: message.into(),
            help: help.into(),
        }
    }
}

impl From<GameError> for WebRefusal {
    fn from(e: GameError) -> Self {
        AppError::from(e).into()
    }
}

impl From<AppError> for WebRefusal {
    fn from(e: AppError) -> Self {
        match e {
            AppError::Refused(r) => WebRefusal {
                code: r.code.to_string(),
                rule: r.rule.to_string(),
                message: r.message.clone(),
                help: r.help.clone(),
            },
            AppError::Order(checked) => {
                let first = checked
                    .diagnostics
                    .iter()
                    .find(|d| d.severity == crate::order::Severity::Error)
                    .map(|d| d.message.clone())
                    .unwrap_or_default();
                WebRefusal::new(
                    "order-has-errors",
                    format!("the order has errors: {first}"),
                    "correct the underlined words; nothing was sent",
                )
            }
            AppError::Forbidden(m) => {
                WebRefusal::new("forbidden", m, "ask the umpire in a message")
            }
            AppError::BadRequest(m) => WebRefusal::new("bad-request", m, ""),
            AppError::Game(g) => WebRefusal::new(
                "game-file",
                g.to_string(),
                "the game file could not be read or written; check the disk and restart the server",
            ),
            other => WebRefusal::new("bad-request", other.to_string(), ""),
        }
    }
}
/// One piece on a seat's map.
#[derive(Clone, Debug, Serialize)]
pub struct PieceView {
    pub id: String,
    pub name: String,
    pub side: String,
    /// `unit`, `commander` or `hq`.
    pub role: &'static str,
    /// For units: `infantry`, `cavalry-light`, … (empty for commanders and HQs).
    pub kind: String,
    pub hex: Hex,
    /// Strength, formation, facing and state: only for the seat's own pieces (or the umpire).
    pub detail: Option<PieceDetail>,
}

/// What only the owner (and the umpire) knows of a unit.
#[derive(Clone, Debug, Serialize)]
pub struct PieceDetail {
    pub strength: String,
    pub formation: String,
    pub facing: String,
    /// Morale state, Blown, losses as `P/S of boxes`.
    pub state: String,
    /// Its Line Extensions, each with its own Morale State, facing and MP spent (13.1.2).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub extensions: Vec<app::view::ExtensionEntry>,
}

/// An enemy piece seen before but not now.
#[derive(Clone, Debug, Serialize)]
pub struct Ghost {
    pub id: String,
    pub name: String,
    pub hex: Hex,
    /// Clock time of the last sighting (`HH:MM`).
    pub last_seen: String,
}

/// One order in an order book, as its side may know it.
#[derive(Clone, Debug, Serialize)]
pub struct OrderView {
    pub number: u32,
    pub side: String,
    pub recipient: String,
    pub text: String,
    pub readback: String,
    pub method: String,
    pub order_type: String,
    pub cost: u8,
    pub sent_turn: u32,
    pub arrival_turn: u32,
    pub status: String,
    /// Objective hexes and the recipient's hex, to draw the route.
    pub from_hex: Option<Hex>,
    pub objective: Vec<Hex>,
    /// An order in transit: the sender's hex, the recipient's hex and how far the aide has
    /// ridden in percent of the courier time (6.4.7), as the seat sees both ends.
    pub courier: Option<(Hex, Hex, u32)>,
}

/// One event line.
#[derive(Clone, Debug, Serialize)]
pub struct EventLine {
    pub turn: u32,
    pub text: String,
    /// Dice, for the umpire's log only (empty for others).
    pub dice: String,
}

/// One message between a side and the umpire.
#[derive(Clone, Debug, Serialize)]
pub struct MessageView {
    pub turn: u32,
    pub side: String,
    pub from: String,
    pub text: String,
}

/// Everything a seat's page shows, built from `app`'s status and log for the seat.
#[derive(Clone, Debug, Serialize)]
pub struct View {
    pub title: String,
    pub turn: u32,
    pub time: String,
    pub phasing: String,
    pub step: String,
    pub game_over: bool,
    /// The seat's side (None for the umpire and observer).
    pub side: Option<String>,
    /// Command points left: the seat's own side when phasing, or every side for the umpire.
    pub command_points: Vec<(String, u8)>,
    pub sides: Vec<(String, String)>,
    pub pieces: Vec<PieceView>,
    pub ghosts: Vec<Ghost>,
    /// Hexes of enemy stacks seen but not examined (4.0, decision 0161).
    pub stacks: Vec<Hex>,
    pub orders: Vec<OrderView>,
    pub events: Vec<EventLine>,
    pub messages: Vec<MessageView>,
    /// Command ranges: (centre, radius in hexes) of the seat's own commanders and HQs (6.11).
    pub ranges: Vec<(Hex, u32)>,
    /// Recipients the side may write to: (command id, name).
    pub recipients: Vec<(String, String)>,
    /// The seat's own pieces that may be moved: (piece id, name).
    pub movable: Vec<(String, String)>,
    /// The side's commanders (for an initiative roll): (id, name).
    pub commanders: Vec<(String, String)>,
    /// The umpire's deadline for this phase, in words (set by the web table, not the game).
    pub deadline: Option<String>,
    /// Opportunity Fire open in this Movement Phase (17.4), as `app`'s status gives it to the
    /// seat: the umpire's pending items.
    pub opportunity_fire: Vec<crate::engine::opportunity::OpportunityOffer>,
    /// Reaction Charges open in this phase (16.5), as `app`'s status gives them to the seat.
    pub reaction_charges: Vec<crate::engine::opportunity::ReactionOffer>,
    /// Cavalry Withdrawals owed (22.1), as `app`'s status gives them to the seat.
    pub cavalry_withdrawals: Vec<crate::engine::opportunity::WithdrawalOwed>,
}

/// The order check as you type.
#[derive(Clone, Debug, Serialize)]
pub struct CheckView {
    pub text: String,
    pub readback: String,
    pub order_type: String,
    pub recipient: Option<String>,
    pub diagnostics: Vec<DiagnosticView>,
    /// The engine's answer for the chosen method against the present state: cost and arrival,
    /// or why it would be refused.
    pub cost: Option<u8>,
    pub arrives: Option<String>,
    pub refusal: Option<WebRefusal>,
}

/// One diagnostic with the offending words located (byte offsets into `text`).
#[derive(Clone, Debug, Serialize)]
pub struct DiagnosticView {
    pub severity: String,
    pub code: String,
    pub message: String,
    pub help: String,
    pub start: usize,
    pub end: usize,
}

/// The game behind the web table: one writer, many readers.
pub struct Backend {
    game: Mutex<Game>,
    db: PathBuf,
    /// The objective hexes of an order text as its side's order reader resolves them, by (side,
    /// text): the map draws them on every view, and reading an order costs about a millisecond.
    objectives: Mutex<Objectives>,
    /// Views built at the record's present head, by seat as it looks (`Viewer`): a first load
    /// asks for `/play` and then `/map`, which are the same view, and the sighting and last-seen
    /// replay in it are most of its cost. Any write moves the head and empties it.
    views: Mutex<Views>,
}

/// The head (events, commands, last hash) the cached views were built at, and the views.
type Views = Option<((i64, i64, String), BTreeMap<String, View>)>;

type Objectives = BTreeMap<(String, String), Vec<Hex>>;

fn word<T: Serialize>(t: &T) -> String {
    match serde_json::to_value(t) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(v) => v.to_string(),
        Err(_) => String::new(),
    }
}

/// An umpire's override with only its reason set; the caller sets the one action.
fn override_request(reason: &str) -> app::OverrideRequest {
    app::OverrideRequest {
        reason: reason.trim().to_string(),
        wreck: None,
        unwreck: None,
        commander_lost: None,
        place: None,
        discard_order: None,
        no_orders: None,
        ruling: None,
        reroll: None,
        impose_order: None,
        text: None,
        status: app::ImposedStatusArg::Accepted,
        set_unit: None,
        losses: None,
        morale_state: None,
        blown: false,
        not_blown: false,
    }
}

/// What the umpire's override form asks for.
#[derive(Clone, Debug)]
pub enum OverrideAsk {
    Ruling(String),
    Discard(u32),
    Reroll(u32),
    Wreck(String),
    Unwreck(String),
    NoOrders(String),
    CommanderLost(String),
    /// Put an order (text) in force for a command, accepted.
    Impose(String, String),
}

/// A move as the movement form asks for it.
#[derive(Clone, Debug, Default)]
pub struct MoveAsk {
    pub piece: String,
    pub to: Option<Hex>,
    pub path: Vec<Hex>,
    pub formation: Option<crate::scenario::UnitFormation>,
    pub face: Option<crate::movement::facing::Corner>,
    /// The umpire's reason for placing the piece regardless of the movement rules (an override).
    pub reason: Option<String>,
}

impl Backend {
    /// Open a game file.
    pub fn open(db: &Path) -> Result<Backend, GameError> {
        let game = Game::open(db)?;
        Ok(Backend {
            game: Mutex::new(game),
            db: db.to_path_buf(),
            objectives: Mutex::new(BTreeMap::new()),
            views: Mutex::new(None),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Game> {
        // A panic while holding the lock cannot leave half a command: the store's transaction
        // either committed or did not, so the state is still usable.
        let mut g = self.game.lock().unwrap_or_else(|p| p.into_inner());
        // The umpire may write with the CLI while the table runs: every read, check and
        // preview sees the file as it stands. A file that does not read back is reported by
        // the request itself (a write checks the record again).
        if let Err(e) = g.catch_up() {
            tracing::warn!("the game file did not read back: {e}");
        }
        g
    }

    pub fn db(&self) -> &Path {
        &self.db
    }

    /// Side ids and names, in player order (the scenario's; nothing in it is secret).
    pub fn sides(&self) -> Vec<(String, String)> {
        let g = self.lock();
        g.scenario
            .sides
            .iter()
            .map(|s| (s.id.clone(), s.name.clone()))
            .collect()
    }

    pub fn scenario_title(&self) -> String {
        self.lock().scenario.meta.title.clone()
    }

    pub fn game_over(&self) -> bool {
        self.lock().state.step == Step::GameOver
    }

    /// Where the game stands (turn, phasing side, step), as every seat may know it.
    pub fn phase_key(&self) -> String {
        let g = self.lock();
        let w = app::where_(&g, &Viewer::Observer);
        format!("{}/{}/{}", w.turn, w.phasing, word(&w.step))
    }

    /// Run `f` with the scenario (the map drawing needs it; nothing in it is secret).
    pub fn with_scenario<R>(&self, f: impl FnOnce(&crate::scenario::Scenario) -> R) -> R {
        f(&self.lock().scenario)
    }

    /// The per-seat sequence: how many events this seat is shown (`app`'s log for the seat,
    /// numbered for it). It grows only when something the seat may see happens, so it tells
    /// nothing of hidden events.
    pub fn sequence(&self, seat: &Seat) -> u64 {
        let mut g = self.lock();
        let v = viewer(seat, None);
        let Ok(log) = log_of(&mut g, &v) else {
            return 0;
        };
        // The log's own orders and the state's distortion marks: no status (line of sight and
        // last-seen replay) on every live update.
        let hidden = if crate::view::effective(&v, &g.state) == Viewer::Umpire {
            Default::default()
        } else {
            log.orders
                .iter()
                .filter(|o| o.status == OrderStatus::Distorted)
                .filter(|o| {
                    g.state
                        .commands
                        .get(&o.receiver)
                        .is_some_and(|c| c.distortion_unnoticed)
                })
                .map(|o| o.number)
                .collect()
        };
        log.events
            .iter()
            .filter(|e| shown(&e.event.kind, &hidden))
            .count() as u64
    }

    /// Seat tokens (hashes) stored in the game file.
    pub fn seat_tokens(&self) -> Result<Vec<(String, String)>, GameError> {
        Ok(self.lock().store.seat_tokens()?)
    }

    pub fn set_seat_token(&self, seat: &str, hash: &str, at: &str) -> Result<(), GameError> {
        Ok(self.lock().store.set_seat_token(seat, hash, at)?)
    }

    /// The view of a seat (umpire: optionally as one side).
    pub fn view(&self, seat: &Seat, as_side: Option<&str>) -> Result<View, WebRefusal> {
        let mut g = self.lock();
        let v = viewer(seat, as_side);
        // The file's head: the view the cache holds was built from exactly this record.
        let head = g
            .store
            .full_head()
            .map(|h| (h.events, h.commands, h.hash))
            .map_err(GameError::from)?;
        let who = format!("{v:?}");
        let mut views = self.views.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((at, cached)) = views.as_ref()
            && *at == head
            && let Some(view) = cached.get(&who)
        {
            return Ok(view.clone());
        }
        let status = status_of(&mut g, &v)?;
        let log = log_of(&mut g, &v)?;
        let mut objectives = self.objectives.lock().unwrap_or_else(|p| p.into_inner());
        let view = build_view(&g, &v, &status, &log, &mut objectives);
        match views.as_mut() {
            Some((at, cached)) if *at == head => {
                cached.insert(who, view.clone());
            }
            _ => *views = Some((head, BTreeMap::from([(who, view.clone())]))),
        }
        Ok(view)
    }

    /// Read an order as the side writes it (the order reader's `check`, as the CLI's), and ask
    /// the application layer what sending it now would cost and when it would arrive, without
    /// writing anything (`app::preview`).
    pub fn check(
        &self,
        seat: &Seat,
        text: &str,
        to: Option<&str>,
        method: app::MethodArg,
    ) -> CheckView {
        // An over-long text is refused before the game is locked (decision 0176).
        if let Err(e) = app::order_text_fits(text) {
            return CheckView {
                text: text.to_string(),
                readback: String::new(),
                order_type: String::new(),
                recipient: None,
                diagnostics: Vec::new(),
                cost: None,
                arrives: None,
                refusal: Some(e.into()),
            };
        }
        let g = self.lock();
        let side = match seat {
            Seat::Side(s) => Some(s.as_str()),
            _ => None,
        };
        let checked = crate::order::check_one(text, Some(&g.scenario), side);
        let to = to.filter(|t| !t.is_empty()).map(str::to_string);
        let recipient = to.clone().or_else(|| {
            checked
                .recipient
                .as_ref()
                .and_then(|r| r.resolved.as_ref())
                .map(|r| r.id.clone())
        });
        let diagnostics = checked
            .diagnostics
            .iter()
            .map(|d| DiagnosticView {
                severity: d.severity.to_string(),
                code: d.code.to_string(),
                message: d.message.clone(),
                help: d.help.clone(),
                start: d.span.0.min(text.len()),
                end: d.span.1.min(text.len()),
            })
            .collect();
        let mut view = CheckView {
            text: text.to_string(),
            readback: checked.readback.clone(),
            order_type: checked.order_type.map(|t| word(&t)).unwrap_or_default(),
            recipient: recipient.clone(),
            diagnostics,
            cost: None,
            arrives: None,
            refusal: None,
        };
        let (Some(side), Some(_)) = (side, recipient) else {
            return view;
        };
        if checked.has_errors() {
            return view;
        }
        let req = Request::Order(app::OrderRequest {
            side: side.to_string(),
            from: None,
            to,
            method,
            via: None,
            text: text.to_string(),
        });
        match app::preview(&g, &viewer(seat, None), &req) {
            Ok(events) => {
                // An order to several commands is a copy to each (decision 0184): their
                // costs add up, and each copy rides on its own.
                let mut arrives: Vec<String> = Vec::new();
                for e in events {
                    if let EventKind::OrderIssued { order } = e.kind {
                        view.cost = Some(view.cost.unwrap_or(0).saturating_add(order.cost));
                        let at = turn_time(&g, order.arrival_turn);
                        if !arrives.contains(&at) {
                            arrives.push(at);
                        }
                    }
                }
                if !arrives.is_empty() {
                    view.arrives = Some(arrives.join(", "));
                }
            }
            Err(AppError::Order(_)) => {}
            Err(e) => view.refusal = Some(e.into()),
        }
        view
    }

    /// Execute one request for a seat (decided and appended in one transaction).
    fn execute(&self, seat: &Seat, req: &Request) -> Result<Response, WebRefusal> {
        let mut g = self.lock();
        Ok(app::execute(&mut g, &viewer(seat, None), req)?)
    }

    /// Send an order for the seat's side; errors in the text refuse it. Returns its number.
    pub fn send_order(
        &self,
        seat: &Seat,
        text: &str,
        to: Option<&str>,
        method: app::MethodArg,
    ) -> Result<u32, WebRefusal> {
        let Seat::Side(side) = seat else {
            return Err(WebRefusal::new(
                "not-a-side",
                "only a side's seat sends orders",
                "the umpire imposes orders with an override",
            ));
        };
        let req = Request::Order(app::OrderRequest {
            side: side.clone(),
            from: None,
            to: to.filter(|t| !t.is_empty()).map(str::to_string),
            method,
            via: None,
            text: text.to_string(),
        });
        let events = applied(self.execute(seat, &req)?);
        events
            .iter()
            .find_map(|e| match &e.kind {
                EventKind::OrderIssued { order } => Some(order.number),
                _ => None,
            })
            .ok_or_else(|| WebRefusal::new("no-order", "no order was recorded", ""))
    }

    /// The path and cost the engine would take for a move, without moving: the piece's own
    /// seat or the umpire (12.0).
    pub fn explain_move(&self, seat: &Seat, ask: &MoveAsk) -> Result<String, WebRefusal> {
        let g = self.lock();
        let req = move_request(ask)?;
        let events = app::preview(&g, &viewer(seat, None), &req)
            .map_err(|r| WebRefusal::from(r).in_words_of(FORM_FIELDS))?;
        let mut out = Vec::new();
        for e in &events {
            out.push(crate::engine::describe::describe(e));
        }
        Ok(out.join("; "))
    }

    /// Move a piece through the application layer: a side its own pieces; the umpire any, and
    /// with a reason places it ignoring the movement rules (an override).
    pub fn move_piece(&self, seat: &Seat, ask: &MoveAsk) -> Result<String, WebRefusal> {
        let reason = ask
            .reason
            .as_deref()
            .map(str::trim)
            .filter(|r| !r.is_empty());
        let req = match (seat, reason, ask.to) {
            (Seat::Umpire, Some(r), Some(to)) => Request::Override(app::OverrideRequest {
                place: Some(format!("{}={to}", ask.piece)),
                ..override_request(r)
            }),
            _ => move_request(ask)?,
        };
        let events = applied(
            self.execute(seat, &req)
                .map_err(|r| r.in_words_of(FORM_FIELDS))?,
        );
        Ok(events
            .iter()
            .map(crate::engine::describe::describe)
            .collect::<Vec<_>>()
            .join("; "))
    }

    /// A message between a side and the umpire.
    pub fn message(&self, seat: &Seat, side: &str, text: &str) -> Result<(), WebRefusal> {
        let from = match seat {
            Seat::Umpire => "umpire".to_string(),
            Seat::Side(s) => s.clone(),
            Seat::Observer => {
                return Err(WebRefusal::new("forbidden", "an observer only watches", ""));
            }
        };
        let req = Request::Message(app::MessageRequest {
            side: side.to_string(),
            from,
            text: text.to_string(),
        });
        self.execute(seat, &req).map(|_| ())
    }

    /// Default Defense for a command of the side (6.6.2).
    pub fn default_defense(&self, seat: &Seat, command: &str) -> Result<(), WebRefusal> {
        let req = Request::DefaultDefense(app::CommandRequest {
            command: command.to_string(),
        });
        self.execute(seat, &req)
            .map(|_| ())
            .map_err(|r| r.in_words_of(FORM_FIELDS))
    }

    /// A roll for Initiative (6.6.1): `commander` tries to seize the initiative for `command`;
    /// the order is written if the roll succeeds. Errors in the order text refuse it.
    pub fn initiative(
        &self,
        seat: &Seat,
        commander: &str,
        command: &str,
        text: &str,
    ) -> Result<(), WebRefusal> {
        let req = Request::Initiative(app::InitiativeRequest {
            commander: commander.to_string(),
            command: (!command.trim().is_empty()).then(|| command.trim().to_string()),
            text: text.to_string(),
        });
        self.execute(seat, &req).map(|_| ())
    }

    /// The umpire runs the automatic steps up to the next one that needs a person (5.1).
    pub fn advance(&self, seat: &Seat) -> Result<(), WebRefusal> {
        self.execute(seat, &Request::Turn(app::TurnRequest::default()))
            .map(|_| ())
    }

    /// An umpire override with its reason.
    pub fn override_action(
        &self,
        seat: &Seat,
        reason: &str,
        ask: OverrideAsk,
    ) -> Result<(), WebRefusal> {
        if reason.trim().is_empty() {
            return Err(WebRefusal::new(
                "no-reason",
                "an override needs a reason",
                "write why, for the record",
            ));
        }
        let base = override_request(reason);
        let o = match ask {
            OverrideAsk::Ruling(t) => app::OverrideRequest {
                ruling: Some(t),
                ..base
            },
            OverrideAsk::Discard(n) => app::OverrideRequest {
                discard_order: Some(n),
                ..base
            },
            OverrideAsk::Reroll(n) => app::OverrideRequest {
                reroll: Some(n),
                ..base
            },
            OverrideAsk::Wreck(c) => app::OverrideRequest {
                wreck: Some(c),
                ..base
            },
            OverrideAsk::Unwreck(c) => app::OverrideRequest {
                unwreck: Some(c),
                ..base
            },
            OverrideAsk::NoOrders(c) => app::OverrideRequest {
                no_orders: Some(c),
                ..base
            },
            OverrideAsk::CommanderLost(c) => app::OverrideRequest {
                commander_lost: Some(c),
                ..base
            },
            OverrideAsk::Impose(c, text) => app::OverrideRequest {
                impose_order: Some(c),
                text: Some(text),
                ..base
            },
        };
        self.execute(seat, &Request::Override(o)).map(|_| ())
    }

    /// Resolve a combat (the CLI's `combat`, with its defaults for the options the form does
    /// not offer).
    pub fn combat(
        &self,
        seat: &Seat,
        procedure: app::ProcedureArg,
        attackers: Vec<String>,
        defenders: Vec<String>,
        choices: CombatChoices,
    ) -> Result<String, WebRefusal> {
        let CombatChoices {
            square,
            skirmisher_stands,
            allow_entry,
            ruling,
            opportunity_at,
            formation_change,
            allow_fire,
            reaction_at,
            allow_reaction,
            attacker_at,
            defender_at,
            attack_arc,
            flanks,
            fortified,
            cannister,
            reaction,
            follow_on,
            follow_ons,
            quality,
            defender_quality,
            skirmisher_absorbs,
            square_fire,
        } = choices;
        let req = Request::Combat(app::CombatRequest {
            // 16.2.1: the defender's player decides; unsaid, a charge that allows it is refused.
            form_square: square == Some(true),
            no_square: square == Some(false),
            // 15.1.7: the lone Skirmisher's player's choice in Hindering terrain (decision 0152).
            skirmisher_stands: skirmisher_stands == Some(true),
            skirmisher_retreats: skirmisher_stands == Some(false),
            // 12.1.1, 15.1.4: the umpire lets a non-frontal entry stand, with a reason (0151);
            // the same reason rules an arc or a Line's flanks (10.0, 0140).
            allow_entry,
            ruling,
            opportunity_at,
            // 17.4 trigger 3, and the umpire's 17.4.1 ruling (decision 0154).
            formation_change,
            allow_fire,
            // 16.5: the Reaction Charge at a hex of the move, and the umpire's 16.5.3 ruling
            // (decision 0156).
            reaction_at,
            allow_reaction,
            // 13.1.1: a Line Extension fights as a unit of its own (decision 0144).
            attacker_at,
            defender_at,
            attack_arc,
            flanks,
            fortified,
            cannister,
            reaction,
            follow_on,
            follow_ons,
            quality: quality.unwrap_or(app::QualityArg::Elite),
            defender_quality: defender_quality.unwrap_or(app::QualityArg::Elite),
            skirmisher_absorbs,
            // 17.4.6: Opportunity Fire at the Square formed inside the charge (decision 0194).
            square_fire,
            ..app::CombatRequest::between(procedure, attackers, defenders)
        });
        let events = applied(
            self.execute(seat, &req)
                .map_err(|r| r.in_words_of(COMBAT_FIELDS))?,
        );
        Ok(events
            .iter()
            .map(crate::engine::describe::describe)
            .collect::<Vec<_>>()
            .join("; "))
    }

    /// Branch the game into a new file next to this one, up to the end of `at_turn`.
    pub fn branch(&self, seat: &Seat, name: &str, at_turn: u32) -> Result<PathBuf, WebRefusal> {
        let ok = !name.is_empty()
            && name.len() <= 64
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !ok {
            return Err(WebRefusal::new(
                "bad-branch-name",
                format!("`{name}` is not a file name this server writes"),
                "use 1–64 letters, digits, - or _ (the file is NAME.db next to the game)",
            ));
        }
        let dir = self.db.parent().unwrap_or(Path::new("."));
        let out = dir.join(format!("{name}.db"));
        let req = Request::Branch(app::BranchRequest {
            at_turn,
            out: out.clone(),
            seed: None,
        });
        match self.execute(seat, &req)? {
            Response::Branched(b) => Ok(b.out),
            _ => Ok(out),
        }
    }

    /// Verify the game file (hash chain and re-simulation): the umpire's `replay --verify`.
    pub fn verify(&self) -> Result<bool, WebRefusal> {
        let req = Request::Replay(app::ReplayRequest {
            verify: true,
            ..Default::default()
        });
        match self.execute(&Seat::Umpire, &req)? {
            Response::Replayed(r) => Ok(r.ok),
            _ => Ok(false),
        }
    }
}

fn move_request(ask: &MoveAsk) -> Result<Request, WebRefusal> {
    let to = ask.to.or(ask.path.last().copied()).ok_or_else(|| {
        WebRefusal::new(
            "no-destination",
            "the move names no destination hex",
            "click a hex on the map, or type one like 18.09",
        )
    })?;
    Ok(Request::Move(app::MoveRequest {
        piece: vec![ask.piece.clone()],
        to: Some(to),
        path: ask.path.clone(),
        formation: ask.formation,
        face: ask.face,
        ..Default::default()
    }))
}

fn applied(r: Response) -> Vec<crate::engine::Event> {
    match r {
        Response::Applied(a) => a.events,
        _ => Vec::new(),
    }
}

/// `app`'s status for a viewer. The umpire's "view as side" is the side's own view.
fn status_of(g: &mut Game, v: &Viewer) -> Result<StatusView, WebRefusal> {
    match app::execute(g, v, &Request::Status)? {
        Response::Status(s) => Ok(*s),
        _ => Err(WebRefusal::new("internal", "status gave no status", "")),
    }
}

fn log_of(g: &mut Game, v: &Viewer) -> Result<LogView, WebRefusal> {
    match app::execute(g, v, &Request::Log)? {
        Response::Log(l) => Ok(l),
        _ => Err(WebRefusal::new("internal", "log gave no log", "")),
    }
}

fn turn_time(game: &Game, turn: u32) -> String {
    game.engine()
        .turn_info(turn)
        .map(|t| t.time.format("%H:%M").to_string())
        .unwrap_or_else(|| format!("turn {turn}"))
}

/// Orders whose distortion the seat's own status says is not yet discovered (6.5.3): the sender
/// believes them accepted (decision 0110). Empty for the umpire's own view.
fn undiscovered(status: &StatusView) -> std::collections::BTreeSet<u32> {
    if status.viewer == "umpire" {
        return Default::default();
    }
    status
        .orders
        .iter()
        .filter(|o| o.status == OrderStatus::Distorted)
        .filter(|o| {
            status
                .commands
                .iter()
                .any(|c| c.command == o.receiver && c.distortion_unnoticed)
        })
        .map(|o| o.number)
        .collect()
}

/// Is this event shown, given the orders whose distortion the sender has not discovered? The
/// web narrows `app`'s log here and only here (decision 0110): never widens it.
fn shown(kind: &EventKind, undiscovered: &std::collections::BTreeSet<u32>) -> bool {
    match kind {
        EventKind::OrderDistorted { order } => !undiscovered.contains(order),
        EventKind::AcceptanceRolled { order, result, .. }
            if *result == crate::rules::AcceptanceResult::Dt =>
        {
            !undiscovered.contains(order)
        }
        _ => true,
    }
}

fn status_label(
    o: &app::view::OrderEntry,
    undiscovered: &std::collections::BTreeSet<u32>,
) -> String {
    match &o.status {
        OrderStatus::Distorted if undiscovered.contains(&o.number) => {
            "accepted (as far as you know)".into()
        }
        OrderStatus::Delayed { needs } => format!("delayed (D{needs})"),
        OrderStatus::Discarded { reason } => format!("discarded: {reason}"),
        other => other.label().replace('-', " "),
    }
}

/// The page's view, from `app`'s status and log for the viewer and the (public) scenario.
fn build_view(
    game: &Game,
    v: &Viewer,
    status: &StatusView,
    log: &LogView,
    objectives: &mut Objectives,
) -> View {
    let sc = &game.scenario;
    let seat = crate::view::effective(v, &game.state);
    let umpire = seat == Viewer::Umpire;
    let side = match &seat {
        Viewer::Side(x) => Some(x.clone()),
        _ => None,
    };
    let owns = |piece: &str| piece_side(sc, piece).is_some_and(|s| crate::view::owns(&seat, &s));
    let hidden = undiscovered(status);
    let pieces = map_pieces(sc, status);
    let orders = status
        .orders
        .iter()
        .map(|o| order_view(game, status, o, &hidden, objectives))
        .collect();
    let (events, messages) = event_lines(log, &hidden, umpire);
    let command_points = status
        .sides
        .iter()
        .map(|s| (s.side.clone(), s.command_points))
        .collect();
    let ranges = command_ranges(game, status, &owns);
    let recipients = match &side {
        Some(_) => recipients(game, status),
        None => Vec::new(),
    };
    let movable = pieces
        .iter()
        .filter(|p| owns(&p.id))
        .map(|p| (p.id.clone(), p.name.clone()))
        .collect();
    let commanders = match &side {
        Some(x) => sc
            .commanders
            .iter()
            .filter(|c| c.side == *x)
            .map(|c| (c.id.clone(), c.name.clone()))
            .collect(),
        None => Vec::new(),
    };
    View {
        title: sc.meta.title.clone(),
        turn: status.turn,
        time: turn_time(game, status.turn),
        phasing: status.phasing.clone(),
        step: match status.step {
            Step::Command => "Command Phase (orders, initiative)".into(),
            Step::Operations => "Operations (fire, movement, combat, rally)".into(),
            Step::GameOver => "game over".into(),
        },
        game_over: status.step == Step::GameOver,
        side,
        command_points,
        sides: sc
            .sides
            .iter()
            .map(|x| (x.id.clone(), x.name.clone()))
            .collect(),
        pieces,
        ghosts: ghosts(sc, status),
        stacks: status.enemy_stacks.clone(),
        orders,
        events,
        messages,
        ranges,
        recipients,
        movable,
        commanders,
        deadline: None,
        opportunity_fire: status.opportunity_fire.clone(),
        reaction_charges: status.reaction_charges.clone(),
        cavalry_withdrawals: status.cavalry_withdrawals.clone(),
    }
}

/// The map's pieces the seat sees, with the detail of the ones `app` described to it.
fn map_pieces(sc: &crate::scenario::Scenario, status: &StatusView) -> Vec<PieceView> {
    let units: BTreeMap<&str, &app::view::UnitEntry> =
        status.units.iter().map(|u| (u.unit.as_str(), u)).collect();
    let formations: BTreeMap<&str, &app::view::FormationEntry> = status
        .formations
        .iter()
        .map(|f| (f.unit.as_str(), f))
        .collect();
    let mut pieces = Vec::new();
    for (id, hex) in &status.positions {
        let (name, role, kind, detail) = if let Some(u) = sc.unit(id) {
            // Strength, formation, facing and state only of the seat's own units: `app` gives
            // their loss chart and formation to the owner (and the umpire) only.
            let detail = match (units.get(id.as_str()), formations.get(id.as_str())) {
                (Some(us), Some(f)) => Some(PieceDetail {
                    strength: u.strength.map(|x| word(&x)).unwrap_or_else(|| {
                        u.gun_points
                            .map(|g| format!("{g} gun points"))
                            .unwrap_or_default()
                    }),
                    formation: word(&f.formation),
                    facing: f.facing.clone(),
                    state: format!(
                        "{}{}, losses {}P/{}S of {}",
                        word(&us.morale),
                        if us.blown { ", blown" } else { "" },
                        us.permanent,
                        us.stragglers,
                        us.boxes
                    ),
                    extensions: f.extension_parts.clone(),
                }),
                _ => None,
            };
            (u.name.clone(), "unit", word(&u.kind), detail)
        } else if let Some(c) = sc.commander(id) {
            (c.name.clone(), "commander", String::new(), None)
        } else if let Some(f) = id.strip_prefix("hq:").and_then(|f| sc.formation(f)) {
            (format!("HQ {}", f.name), "hq", String::new(), None)
        } else {
            (id.clone(), "unit", String::new(), None)
        };
        pieces.push(PieceView {
            id: id.clone(),
            name,
            side: piece_side(sc, id).unwrap_or_default(),
            role,
            kind,
            hex: *hex,
            detail,
        });
    }
    pieces
}

/// Where the seat last saw the enemy pieces it no longer sees.
fn ghosts(sc: &crate::scenario::Scenario, status: &StatusView) -> Vec<Ghost> {
    status
        .last_seen
        .iter()
        .map(|(p, seen)| Ghost {
            id: p.clone(),
            name: sc
                .unit(p)
                .map(|u| u.name.clone())
                .or_else(|| sc.commander(p).map(|c| c.name.clone()))
                .unwrap_or_else(|| p.clone()),
            hex: seen.hex,
            last_seen: seen.time.clone(),
        })
        .collect()
}

/// The seat's log as lines (dice only for the umpire) and its messages apart.
fn event_lines(
    log: &LogView,
    hidden: &std::collections::BTreeSet<u32>,
    umpire: bool,
) -> (Vec<EventLine>, Vec<MessageView>) {
    let mut lines = Vec::new();
    let mut messages = Vec::new();
    for e in &log.events {
        if !shown(&e.event.kind, hidden) {
            continue;
        }
        if let EventKind::MessageSent { side, from, text } = &e.event.kind {
            messages.push(MessageView {
                turn: e.event.turn,
                side: side.clone(),
                from: from.clone(),
                text: text.clone(),
            });
            continue;
        }
        let dice = if umpire {
            e.event
                .dice()
                .iter()
                .map(|d| d.value.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        } else {
            String::new()
        };
        lines.push(EventLine {
            turn: e.event.turn,
            text: crate::engine::describe::describe(&e.event),
            dice,
        });
    }
    (lines, messages)
}

/// The commands a side may address an order to: its own, not dissolved.
fn recipients(game: &Game, status: &StatusView) -> Vec<(String, String)> {
    status
        .commands
        .iter()
        .filter(|c| {
            game.state
                .commands
                .get(&c.command)
                .is_none_or(|x| !x.dissolved)
        })
        .map(|c| (c.command.clone(), command_name(&game.scenario, &c.command)))
        .collect()
}

fn command_name(sc: &crate::scenario::Scenario, id: &str) -> String {
    sc.formation(id)
        .map(|f| f.name.clone())
        .or_else(|| sc.unit(id).map(|u| u.name.clone()))
        .unwrap_or_else(|| id.to_string())
}

fn piece_side(s: &crate::scenario::Scenario, piece: &str) -> Option<String> {
    if let Some(f) = piece.strip_prefix("hq:").and_then(|id| s.formation(id)) {
        return Some(f.side.clone());
    }
    s.commander(piece)
        .map(|c| c.side.clone())
        .or_else(|| s.unit(piece).map(|u| u.side.clone()))
}

fn order_view(
    game: &Game,
    status: &StatusView,
    o: &app::view::OrderEntry,
    hidden: &std::collections::BTreeSet<u32>,
    objectives: &mut Objectives,
) -> OrderView {
    let sc = &game.scenario;
    // The route starts at the recipient's hub, where the seat sees it (its own piece).
    let hub = crate::engine::oob::hub_piece(sc, &game.state, &o.receiver);
    let from_hex = hub.and_then(|h| status.positions.get(&h).copied());
    // The objective: the places the order names, as the order language resolves them.
    let objective = objectives
        .entry((o.side.clone(), o.text.clone()))
        .or_insert_with(|| {
            crate::order::check_one(&o.text, Some(sc), Some(&o.side))
                .places
                .iter()
                .filter_map(|r| r.resolved.as_ref())
                .filter_map(|r| sc.place(&r.id))
                .filter_map(|p| p.hexes.first().copied())
                .collect()
        })
        .clone();
    OrderView {
        number: o.number,
        side: o.side.clone(),
        recipient: command_name(sc, &o.receiver),
        text: o.text.clone(),
        readback: o.readback.clone(),
        method: o
            .method
            .map(|m| word(&m))
            .unwrap_or_else(|| word(&o.origin)),
        order_type: word(&o.order_type),
        cost: o.cost,
        sent_turn: o.sent_turn,
        arrival_turn: o.arrival_turn,
        status: status_label(o, hidden),
        from_hex,
        objective,
        courier: courier(status, o, from_hex),
    }
}

/// Where an aide with an order in transit is, as far as the seat can tell: on the line from
/// the sender to the recipient, by the share of the courier time gone (6.4.7).
fn courier(
    status: &StatusView,
    o: &app::view::OrderEntry,
    to: Option<Hex>,
) -> Option<(Hex, Hex, u32)> {
    if o.status != OrderStatus::InTransit {
        return None;
    }
    let from = *status.positions.get(&o.sender)?;
    let to = to?;
    let total = o.arrival_turn.saturating_sub(o.sent_turn).max(1);
    let gone = status.turn.saturating_sub(o.sent_turn).min(total);
    Some((from, to, gone * 100 / total))
}

/// Command ranges of the seat's own leaders as the seat sees them placed (6.11): a division
/// commander reaches 4 hexes, a corps HQ 8.
fn command_ranges(game: &Game, status: &StatusView, own: &dyn Fn(&str) -> bool) -> Vec<(Hex, u32)> {
    use crate::scenario::model::Echelon;
    let mut out = Vec::new();
    for f in &game.scenario.formations {
        let (piece, radius) = match f.echelon {
            Echelon::Division => match game.state.commanders.get(&f.id) {
                Some(c) => (c.clone(), 4),
                None => continue,
            },
            Echelon::Corps => (crate::engine::oob::hq_piece(&f.id), 8),
            Echelon::Army => continue,
        };
        if !own(&piece) {
            continue;
        }
        if let Some(h) = status.positions.get(&piece) {
            out.push((*h, radius));
        }
    }
    out
}

impl std::fmt::Display for WebRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} [{}]", self.message, self.code)
    }
}

/// The defending player's and the umpire's choices the combat form offers: every option of
/// `staffwork combat` (`app::CombatRequest`), in the form's terms.
#[derive(Clone, Debug, Default)]
pub struct CombatChoices {
    /// A charge's target forms Square (16.2.1): yes, no, or unsaid.
    pub square: Option<bool>,
    /// A lone Skirmisher attacked in Hindering terrain stands (true) or retreats (false)
    /// (15.1.7); unsaid, the engine asks.
    pub skirmisher_stands: Option<bool>,
    /// The umpire allows a Close Combat entry across a non-frontal hexside (12.1.1, 15.1.4).
    pub allow_entry: bool,
    /// The umpire's reason for the entry, the arc or the flanks; recorded with the combat.
    pub ruling: Option<String>,
    /// Opportunity Fire at this hex of the move just made (17.4; `combat fire --opportunity-at`).
    pub opportunity_at: Option<crate::hex::Hex>,
    /// That fire answers a formation change there, not the move (17.4 trigger 3).
    pub formation_change: bool,
    /// The umpire lets a fire stand that 17.4.1 refuses, with the reason in `ruling`.
    pub allow_fire: bool,
    /// A Reaction Charge at this hex of the move (16.5; `combat charge --reaction --at`).
    pub reaction_at: Option<crate::hex::Hex>,
    /// The umpire lets a Reaction Charge stand that 16.5.3 refuses, with the reason in `ruling`.
    pub allow_reaction: bool,
    /// The attacker is the Line Extension of the one unit named, in this hex (13.1.1).
    pub attacker_at: Option<crate::hex::Hex>,
    /// The defender is the Line Extension of the one unit named, in this hex (13.1.1).
    pub defender_at: Option<crate::hex::Hex>,
    /// The umpire rules the arc the attack comes through (10.0), with a reason.
    pub attack_arc: Option<app::ArcArg>,
    /// The umpire rules a charged Line's flanks (chart p4 note 1), with a reason.
    pub flanks: Option<app::FlanksArg>,
    /// The defender is behind fortified terrain (15.2.1).
    pub fortified: bool,
    /// Fire: Cannister at units entering the battery's hex (17.4.9).
    pub cannister: bool,
    /// Charge: a Reaction Charge (16.5).
    pub reaction: bool,
    /// Charge: a Follow-on Charge against a new target (16.2.7.3).
    pub follow_on: bool,
    /// Charge: Follow-on Charges against the same target after a success (0–3, 16.2.7.2).
    pub follow_ons: u8,
    /// The attacking and defending Skirmishers' quality (18, 26.3); unsaid, Elite.
    pub quality: Option<app::QualityArg>,
    pub defender_quality: Option<app::QualityArg>,
    /// Skirmishers taking a stack's even losses (20.2): `UNIT` or `UNIT=N` each.
    pub skirmisher_absorbs: Vec<String>,
    /// Charge: the batteries firing at the Square its target forms, before the charge goes on
    /// (17.4.6; `combat charge --square-fire`, decision 0194).
    pub square_fire: Vec<String>,
}

/// The combat form's fields and the command-line flags they stand for (`staffwork combat`): a
/// refusal worded for the command line names the field the web user fills in instead. The
/// console's labels are read from here too, so the two never drift apart.
pub const COMBAT_FIELDS: &[(&str, &str)] = &[
    ("--attacker", "attackers"),
    ("--defender", "defenders"),
    ("--attacker-at", "attacker's Line Extension at hex"),
    ("--defender-at", "defender's Line Extension at hex"),
    ("--opportunity-at", "Opportunity Fire at hex"),
    ("--formation-change", "at a formation change"),
    ("--allow-fire", "allow a second firer"),
    ("--at", "Reaction Charge at hex"),
    ("--allow-reaction", "allow a Reaction Charge 16.5.3 refuses"),
    ("--allow-entry", "allow a non-frontal entry"),
    ("--ruling", "umpire's reason"),
    ("--attack-arc", "arc ruled"),
    ("--flanks", "Line's flanks ruled"),
    ("--form-square", "target forms Square"),
    ("--no-square", "target does not form Square"),
    ("--skirmisher-stands", "Skirmisher stands and fights"),
    ("--skirmisher-retreats", "Skirmisher retreats one hex"),
    ("--skirmisher-absorbs", "Skirmisher absorbs losses"),
    ("--square-fire", "batteries firing at the Square"),
    ("--cannister", "Cannister"),
    ("--fortified", "defender fortified"),
    ("--reaction", "Reaction Charge"),
    ("--follow-on", "a Follow-on Charge at a new target"),
    ("--follow-ons", "Follow-on Charges"),
    ("--quality", "attacking Skirmishers' quality"),
    ("--defender-quality", "defending Skirmishers' quality"),
];

/// The other forms' fields (movement, Default Defense, Initiative, orders) and the flags of the
/// commands they stand for: their refusals name the field too.
pub const FORM_FIELDS: &[(&str, &str)] = &[
    ("--piece", "piece"),
    ("--to", "destination hex"),
    ("--path", "through hexes"),
    ("--formation", "formation"),
    ("--face", "face"),
    ("--command", "command"),
    ("--commander", "commander"),
    ("--reason", "reason"),
];

/// The form label a flag stands for, if the form has it.
pub fn field_label(fields: &[(&str, &'static str)], flag: &str) -> Option<&'static str> {
    fields.iter().find(|(f, _)| *f == flag).map(|(_, l)| *l)
}

/// `text` with each command-line flag the form has (`fields`) named as its field: a quoted
/// command (`` `… --allow-entry --ruling REASON` ``) that names one becomes "the “…” and “…”
/// fields"; a bare flag becomes "the “…” field". Other text is kept.
pub fn in_form_words(text: &str, fields: &[(&str, &'static str)]) -> String {
    let labels = |span: &str| -> Vec<&'static str> {
        flags(span).filter_map(|f| field_label(fields, f)).collect()
    };
    let named = |ls: &[&str]| {
        let quoted: Vec<String> = ls.iter().map(|l| format!("“{l}”")).collect();
        let plural = if ls.len() > 1 { "fields" } else { "field" };
        format!("the {} {plural}", quoted.join(" and "))
    };
    // Quoted commands first: odd pieces between backticks.
    let mut out = String::new();
    for (i, piece) in text.split('`').enumerate() {
        let ls = labels(piece);
        if i % 2 == 1 {
            if ls.is_empty() {
                out.push('`');
                out.push_str(piece);
                out.push('`');
            } else {
                out.push_str(&named(&ls));
            }
            continue;
        }
        // Bare flags, each replaced where it stands.
        let mut rest = piece;
        while let Some(at) = rest.find("--") {
            out.push_str(&rest[..at]);
            let len = 2 + rest[at + 2..]
                .find(|c: char| !(c.is_ascii_lowercase() || c == '-'))
                .unwrap_or(rest.len() - at - 2);
            let flag = &rest[at..at + len];
            match field_label(fields, flag) {
                Some(l) => out.push_str(&named(&[l])),
                None => out.push_str(flag),
            }
            rest = &rest[at + len..];
        }
        out.push_str(rest);
    }
    out
}

/// The `--flag` words in a text, whole (`--defender-quality`, never its `--defender`).
fn flags(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_lowercase() || c == '-'))
        .filter(|w| w.starts_with("--") && w.len() > 2)
}

impl WebRefusal {
    /// The refusal told in a form's words (`in_form_words`).
    pub fn in_words_of(self, fields: &[(&str, &'static str)]) -> Self {
        WebRefusal {
            message: in_form_words(&self.message, fields),
            help: in_form_words(&self.help, fields),
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_for_the_command_line_names_the_forms_fields() {
        let t = in_form_words(
            "the umpire may allow it with `--allow-entry --ruling REASON`",
            COMBAT_FIELDS,
        );
        assert_eq!(
            t,
            "the umpire may allow it with the “allow a non-frontal entry” and “umpire's reason” fields"
        );
        // A whole flag, never a prefix of a longer one; unknown flags and quotes are kept.
        assert_eq!(
            in_form_words(
                "drop --defender-quality, not `move --face N`",
                COMBAT_FIELDS
            ),
            "drop the “defending Skirmishers' quality” field, not `move --face N`"
        );
        assert_eq!(
            in_form_words(
                "--skirmisher-absorbs: `x` is not a Skirmisher",
                COMBAT_FIELDS
            ),
            "the “Skirmisher absorbs losses” field: `x` is not a Skirmisher"
        );
    }
}
