//! The umpire's game loop on the command line: `new`, `order`, `turn`, `initiative`,
//! `loose-cannon`, `default-defense`, `withdraw`, `stage`, `move`, `combat`, `override`,
//! `relay`, `status`, `log`, `replay`, `branch`.
//!
//! Each command line becomes an [`app::Request`] (the arguments are the application layer's own
//! clap structs, with `--db` and `--format` added here), is executed by [`app::execute`], and
//! the typed response is printed as text or JSON. A refused command prints why (exit 1) and
//! leaves the file unchanged. The CLI acts as the umpire; `--side` picks the seat of a view.

use std::path::{Path, PathBuf};

use clap::Args;
use serde::Serialize;
use serde_json::json;

use super::{CmdResult, Failure, Format};
use crate::app::{self, AppError, Request, Response};
use crate::engine::describe::status_text;
use crate::game::{Game, Viewer};

/// A game action on a game file: `--db`, the request's own arguments, `--format`.
#[derive(Args, Debug)]
pub struct OnGame<T: Args> {
    /// The game file (SQLite).
    #[arg(long)]
    pub db: PathBuf,
    #[command(flatten)]
    pub request: T,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// `--side SIDE` or `--umpire`: whose view to show.
#[derive(Args, Debug, Clone)]
pub struct ViewArgs {
    /// Show one side's view: its own orders and units, and of the enemy only what rule 4.0 reveals.
    #[arg(long, conflicts_with = "umpire")]
    pub side: Option<String>,
    /// Show the umpire's master view (the default).
    #[arg(long)]
    pub umpire: bool,
}

impl ViewArgs {
    fn viewer(&self) -> Viewer {
        match &self.side {
            Some(s) => Viewer::Side(s.clone()),
            None => Viewer::Umpire,
        }
    }
}

#[derive(Args, Debug)]
pub struct NewArgs {
    /// The game file to create (SQLite).
    #[arg(long)]
    pub db: PathBuf,
    #[command(flatten)]
    pub request: app::NewRequest,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

#[derive(Args, Debug)]
pub struct LogArgs {
    #[arg(long)]
    pub db: PathBuf,
    #[command(flatten)]
    pub view: ViewArgs,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// A refusal or failure as the CLI reports it: text on stderr, or a JSON document on stdout.
pub(crate) fn report(e: AppError, format: Format) -> Failure {
    let judged = e.is_judged();
    if format == Format::Json {
        let doc = match &e {
            AppError::Refused(r) => {
                json!({"ok": false, "refused": {"code": r.code, "rule": r.rule, "message": r.message, "help": r.help}})
            }
            AppError::Order(checked) => json!({"ok": false, "order": checked}),
            other => json!({"ok": false, "error": other.to_string()}),
        };
        if judged {
            return match super::emit_json(&doc) {
                Ok(()) => Failure::Judged,
                Err(f) => f,
            };
        }
        return Failure::Usage(e.to_string());
    }
    match e {
        AppError::Refused(r) => {
            let rule = if r.rule.is_empty() {
                String::new()
            } else {
                format!(" (rule {})", r.rule)
            };
            eprintln!("refused [{}]{rule}: {}", r.code, r.message);
            if !r.help.is_empty() {
                eprintln!("  help: {}", r.help);
            }
            eprintln!("nothing was written.");
            Failure::Judged
        }
        AppError::Order(checked) => {
            super::check_cmd::print_order_text(&checked.text, &checked);
            eprintln!("the order has errors; nothing was written.");
            Failure::Judged
        }
        AppError::Scenario(e) if judged => {
            eprintln!("{e}");
            Failure::Judged
        }
        AppError::Forbidden(m) => {
            eprintln!("refused: {m}; nothing was written.");
            Failure::Judged
        }
        other if judged => {
            eprintln!("error: {other}");
            Failure::Judged
        }
        other => Failure::Usage(other.to_string()),
    }
}

fn open(db: &Path) -> Result<Game, Failure> {
    Game::open(db).map_err(|e| Failure::Usage(e.to_string()))
}

/// An order text as given: the text itself, `@FILE` or `-` for standard input.
fn read_text(text: &str) -> Result<String, Failure> {
    if text == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s).map_err(|e| {
            Failure::Usage(format!("cannot read the order from standard input: {e}"))
        })?;
        Ok(s)
    } else if let Some(path) = text.strip_prefix('@') {
        std::fs::read_to_string(path)
            .map_err(|e| Failure::Usage(format!("cannot read {path}: {e}")))
    } else {
        Ok(text.to_string())
    }
}

/// The game file, the format and the request of a game command line; order texts given as
/// `@FILE` or `-` are read here.
fn request_of(cmd: super::Command) -> Result<(PathBuf, Format, Request), Failure> {
    use super::Command as C;
    fn on<T: Args>(a: OnGame<T>, f: impl FnOnce(T) -> Request) -> (PathBuf, Format, Request) {
        (a.db, a.format, f(a.request))
    }
    Ok(match cmd {
        C::Order(mut a) => {
            a.request.text = read_text(&a.request.text)?;
            on(a, Request::Order)
        }
        C::Initiative(mut a) => {
            a.request.text = read_text(&a.request.text)?;
            on(a, Request::Initiative)
        }
        C::LooseCannon(mut a) => {
            a.request.text = read_text(&a.request.text)?;
            on(a, Request::LooseCannon)
        }
        C::Relay(a) => on(a, Request::Relay),
        C::Turn(a) => on(a, Request::Turn),
        C::DefaultDefense(a) => on(a, Request::DefaultDefense),
        C::Withdraw(a) => on(a, Request::Withdraw),
        C::Stage(a) => on(a, Request::Stage),
        C::Move(a) => on(a, Request::Move),
        C::Combat(a) => on(a, Request::Combat),
        C::Override(a) => on(a, Request::Override),
        C::Replay(a) => on(a, Request::Replay),
        C::Branch(a) => on(a, Request::Branch),
        C::Status(a) => (a.db, a.format, Request::Status),
        C::Log(a) => (a.db, a.format, Request::Log),
        _ => return Err(Failure::Usage("not a game command".into())),
    })
}

/// A game command line (everything but `new`): open the game, execute the request as the
/// umpire (a view as its `--side`), print the response.
pub fn run(cmd: super::Command) -> CmdResult {
    let seat = match &cmd {
        super::Command::Status(a) | super::Command::Log(a) => a.view.viewer(),
        _ => Viewer::Umpire,
    };
    let (db, format, request) = request_of(cmd)?;
    let mut game = open(&db)?;
    let response = app::execute(&mut game, &seat, &request).map_err(|e| report(e, format))?;
    if format == Format::Json {
        return print_response(&response);
    }
    match &response {
        Response::Applied(a) => {
            for e in &a.events {
                println!("{}", e.describe());
            }
            if matches!(request, Request::Turn(_)) {
                print_where(&app::where_(&game, &seat));
            }
            Ok(())
        }
        Response::Status(s) => {
            print_status(s);
            Ok(())
        }
        Response::Log(l) => {
            print_log(l);
            Ok(())
        }
        Response::Replayed(r) => {
            print_replay(r);
            if r.ok { Ok(()) } else { Err(Failure::Judged) }
        }
        Response::Branched(b) => {
            println!(
                "branched {} at turn {} into {} ({} events kept)",
                db.display(),
                b.at_turn,
                b.out.display(),
                b.events
            );
            print_where(&b.at);
            Ok(())
        }
        Response::Odds(o) => super::odds_cmd::print_order_odds(o, &db, format),
    }
}

/// The JSON of a response: `{"ok": true, …}` with the response's own fields, as every game
/// command has printed it (a failed verification says `"ok": false` and exits 1).
fn print_response(response: &Response) -> CmdResult {
    #[derive(Serialize)]
    struct Ok<'a, T> {
        ok: bool,
        #[serde(flatten)]
        body: &'a T,
    }
    match response {
        Response::Applied(a) => super::emit_json(&Ok { ok: true, body: a }),
        // Views are documents of their own, without an `ok`.
        Response::Status(s) => super::emit_json(s),
        Response::Log(l) => super::emit_json(l),
        Response::Replayed(r) => {
            super::emit_json(r)?;
            if r.ok { Ok(()) } else { Err(Failure::Judged) }
        }
        Response::Branched(b) => super::emit_json(&Ok { ok: true, body: b }),
        Response::Odds(o) => super::odds_cmd::print_order_odds(o, Path::new(""), Format::Json),
    }
}

pub fn new(a: NewArgs) -> CmdResult {
    let prepared = match app::prepare_new(&a.request) {
        Ok(p) => p,
        Err(AppError::Scenario(e @ crate::scenario::ScenarioError::Io { .. }))
            if !Path::new(&a.request.scenario).exists() =>
        {
            let names: Vec<&str> = crate::scenario::BUNDLED
                .iter()
                .map(|(f, _)| f.trim_end_matches(".toml"))
                .collect();
            let crate::scenario::ScenarioError::Io { message, .. } = e else {
                unreachable!("matched above")
            };
            return Err(Failure::Usage(format!(
                "no scenario file `{}` ({message}); bundled scenarios: {}",
                a.request.scenario,
                names.join(", ")
            )));
        }
        Err(AppError::Tables(e)) if !matches!(e, crate::rules::tables::TableError::Io { .. }) => {
            return Err(super::odds_cmd::report_tables(
                &e,
                a.request.tables.as_deref(),
                a.format,
            ));
        }
        Err(e) => return Err(report(e, a.format)),
    };
    let (_, created) = app::create(Some(&a.db), prepared).map_err(|e| report(e, a.format))?;
    if a.format == Format::Json {
        return super::emit_json(
            &json!({"ok": true, "db": a.db, "scenario": created.scenario, "seed": created.seed, "turn": created.turn, "phasing": created.phasing}),
        );
    }
    println!(
        "created {} ({}), seed {}",
        a.db.display(),
        created.title,
        created.seed
    );
    print_where(&created.at);
    Ok(())
}

/// Where the game stands; the phasing side's command points only for the umpire and that side.
pub(crate) fn print_where(w: &app::Where) {
    let window = match w.step {
        crate::engine::Step::Command => "Command Phase (orders and local initiative)",
        crate::engine::Step::Operations => "operations (fire, movement, close combat, rally)",
        crate::engine::Step::GameOver => "game over",
    };
    let points = w
        .command_points
        .map(|p| format!("; {p} command points left"))
        .unwrap_or_default();
    println!(
        "turn {} ({}), {} player, {window} window{points}",
        w.turn, w.time, w.phasing
    );
}

/// The text of `status`.
pub(crate) fn print_status(s: &app::StatusView) {
    print_where(&s.at);
    println!("\ncommands:");
    for c in &s.commands {
        let order = c.order.map(|n| format!(" order {n}")).unwrap_or_default();
        let wrecked = if c.wrecked { ", WRECKED" } else { "" };
        // Talavera T2.4: on loan to the army commander, or barred to him.
        let loan = c
            .loan
            .and_then(|l| serde_json::to_value(l).ok())
            .and_then(|v| v.as_str().map(|l| format!(", {l}")))
            .unwrap_or_default();
        if let Some(parent) = &c.follows {
            println!(
                "  {:<16} {:<10} acts on {parent}'s orders{wrecked}{loan}",
                c.command, c.side
            );
            continue;
        }
        let status = serde_json::to_value(c.status)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        println!(
            "  {:<16} {:<10} {status}{order}{wrecked}{loan}",
            c.command, c.side
        );
    }
    println!("\npositions ({} visible):", s.positions.len());
    for (p, h) in &s.positions {
        println!("  {p:<20} {h}");
    }
    let hurt: Vec<&app::view::UnitEntry> = s.units.iter().filter(|u| u.hurt()).collect();
    if !hurt.is_empty() {
        println!("\nlosses (P (S) <n>, boxes left of the loss chart; 7.1, 20.4):");
        for u in hurt {
            let wrecked = if u.wrecked { ", WRECKED" } else { "" };
            let morale = match u.morale {
                crate::combat::MoraleState::Normal => String::new(),
                m => serde_json::to_value(m)
                    .ok()
                    .and_then(|v| v.as_str().map(|m| format!(", {m}")))
                    .unwrap_or_default(),
            };
            println!(
                "  {:<20} {} ({}) <{}>   {} of {} boxes left{morale}{wrecked}",
                u.unit, u.permanent, u.stragglers, u.skirmisher_losses, u.remaining, u.boxes,
            );
        }
    }
}

/// The text of `log`.
fn print_log(l: &app::LogView) {
    let who = if l.viewer == "umpire" {
        " — umpire".to_string()
    } else {
        format!(" — {}", l.viewer)
    };
    println!("Order Log (6.4.5){who}:");
    println!(
        "  {:>3}  {:<6} {:<6} {:<10} {:<14} {:<10} {:<8} status",
        "no", "sent", "arrive", "sender", "receiver", "method", "type"
    );
    for o in &l.orders {
        let method = o
            .method
            .map_or("—".to_string(), |m| format!("{m:?}").to_lowercase());
        println!(
            "  {:>3}  {:<6} {:<6} {:<10} {:<14} {:<10} {:<8} {}",
            o.number,
            o.time_sent,
            o.arrival_time,
            o.sender,
            o.receiver,
            method,
            format!("{:?}", o.order_type).to_lowercase(),
            status_text(&o.status)
        );
        println!("       \"{}\"", o.text.trim());
        println!("       read back: {}", o.readback);
    }
    println!("\nEvents ({} of {} visible):", l.events.len(), l.recorded);
    for e in &l.events {
        println!(
            "  #{:<4} t{:<3} {}",
            e.seq,
            e.event.turn,
            e.event.describe()
        );
    }
}

/// The text of `replay`.
fn print_replay(r: &app::Replayed) {
    println!(
        "played back {} events: turn {}, {} orders",
        r.events, r.turn, r.orders
    );
    let Some(v) = &r.verification else {
        return;
    };
    match (
        &v.chain_broken_at,
        &v.first_difference,
        &v.resimulation_skipped,
    ) {
        (Some(seq), _, _) => println!(
            "verify: FAILED — the hash chain breaks at event {seq} (its payload or hash was altered)"
        ),
        (None, Some(d), _) => println!(
            "verify: FAILED — re-simulation differs at event {} (command {}):\n  recorded:    {}\n  resimulated: {}",
            d.seq, d.command_seq, d.recorded, d.resimulated
        ),
        (None, None, Some(why)) => println!(
            "verify: hash chain ok over {} events; re-simulation skipped: {why}",
            v.events
        ),
        (None, None, None) => println!(
            "verify: ok — hash chain intact over {} events, {} commands re-simulated byte for byte (last hash {})",
            v.events,
            v.commands,
            v.last_hash.get(..16).unwrap_or(&v.last_hash)
        ),
    }
}
