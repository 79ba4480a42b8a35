//! The umpire's game loop on the command line: `new`, `order`, `turn`, `initiative`,
//! `loose-cannon`, `default-defense`, `withdraw`, `stage`, `move`, `combat`, `override`,
//! `relay`, `status`, `log`, `replay`, `receipt`, `branch`.
//!
//! Each command line becomes an [`app::Request`] (the arguments are the application layer's own
//! clap structs, with `--db` and `--format` added here), is executed by [`app::execute`], and
//! the typed response is printed as text or JSON. A refused command prints why (exit 1) and
//! leaves the file unchanged. The CLI acts as the umpire; `--side`/`--observer` pick the seat of
//! a view, a playback or a receipt. Text that echoes user input goes through `text::visible`.

use std::path::{Path, PathBuf};

use clap::Args;
use serde::Serialize;
use serde_json::json;

use super::{CmdResult, Failure, Format};
use crate::app::{self, AppError, Request, Response};
use crate::engine::describe::status_text;
use crate::game::{Game, GameError};
use crate::text::visible as shown;
use crate::view::Viewer;

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

/// A game action asked from a seat (`--side`, `--observer` or the umpire): `--db`, the
/// request's own arguments, the seat, `--format`.
#[derive(Args, Debug)]
pub struct AsSeat<T: Args> {
    /// The game file (SQLite).
    #[arg(long)]
    pub db: PathBuf,
    #[command(flatten)]
    pub request: T,
    #[command(flatten)]
    pub view: ViewArgs,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// `--side SIDE`, `--observer` or `--umpire`: whose view to show.
#[derive(Args, Debug, Clone)]
pub struct ViewArgs {
    /// Show one side's view: its own orders and units, and of the enemy only what rule 4.0 reveals.
    #[arg(long, conflicts_with = "umpire")]
    pub side: Option<String>,
    /// Show the umpire's master view (the default).
    #[arg(long, conflicts_with = "observer")]
    pub umpire: bool,
    /// Show an observer's view: public events only while the game runs, everything once it is
    /// over (decision 0051).
    #[arg(long, conflicts_with = "side")]
    pub observer: bool,
}

impl ViewArgs {
    /// The seat asked for, checked against the game's sides (`view::seat`).
    pub(crate) fn viewer(&self, scenario: &crate::scenario::Scenario) -> Result<Viewer, Failure> {
        crate::view::seat(scenario, self.side.as_deref(), self.observer).map_err(Failure::Usage)
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
    /// The game file (SQLite).
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
            eprintln!("refused [{}]{rule}: {}", r.code, shown(&r.message));
            if !r.help.is_empty() {
                eprintln!("  help: {}", shown(&r.help));
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
            eprintln!("refused: {}; nothing was written.", shown(&m));
            Failure::Judged
        }
        other if judged => {
            eprintln!("error: {}", shown(&other.to_string()));
            Failure::Judged
        }
        other => Failure::Usage(other.to_string()),
    }
}

/// Open a game file; one that does not read back cleanly is refused as judged bad (exit 1).
pub(crate) fn open(db: &Path) -> Result<Game, Failure> {
    Game::open(db).map_err(|e| match e {
        GameError::Store(e @ crate::store::StoreError::Corrupt { .. }) => {
            eprintln!("error: {e}");
            Failure::Judged
        }
        e => Failure::Usage(e.to_string()),
    })
}

/// An order text as given: the text itself, `@FILE` or `-` for standard input.
fn read_text(text: &str) -> Result<String, Failure> {
    if text == "-" {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)
            .and_then(|_| crate::text::utf8(bytes))
            .map_err(|e| Failure::Usage(format!("cannot read the order from standard input: {e}")))
    } else if let Some(path) = text.strip_prefix('@') {
        crate::text::read_file(path).map_err(|e| Failure::Usage(format!("cannot read {path}: {e}")))
    } else {
        Ok(text.to_string())
    }
}

/// The game file, the format, the seat asked for (`None`: the umpire) and the request of a game
/// command line; order texts given as `@FILE` or `-` are read here.
type GameLine = (PathBuf, Format, Option<ViewArgs>, Request);

fn request_of(cmd: super::Command) -> Result<GameLine, Failure> {
    use super::Command as C;
    fn on<T: Args>(a: OnGame<T>, f: impl FnOnce(T) -> Request) -> GameLine {
        (a.db, a.format, None, f(a.request))
    }
    fn seated<T: Args>(a: AsSeat<T>, f: impl FnOnce(T) -> Request) -> GameLine {
        (a.db, a.format, Some(a.view), f(a.request))
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
        C::Message(a) => on(a, Request::Message),
        C::Move(a) => on(a, Request::Move),
        C::Combat(a) => on(a, Request::Combat),
        C::Override(a) => on(a, Request::Override),
        C::Undo(a) => on(a, Request::Undo),
        C::Replay(a) => seated(a, Request::Replay),
        C::Receipt(a) => seated(a, Request::Receipt),
        C::Branch(a) => on(a, Request::Branch),
        C::Status(a) => (a.db, a.format, Some(a.view), Request::Status),
        C::Log(a) => (a.db, a.format, Some(a.view), Request::Log),
        _ => return Err(Failure::Usage("not a game command".into())),
    })
}

/// A game command line (everything but `new`): open the game, execute the request as the
/// umpire (a view, playback or receipt as its `--side` or `--observer`), print the response.
pub fn run(cmd: super::Command) -> CmdResult {
    let (db, format, view, request) = request_of(cmd)?;
    let mut game = match &request {
        // Verification reports what it finds in a damaged record; everything else refuses one.
        Request::Replay(r) if r.verify => {
            Game::open_for_audit(&db).map_err(|e| Failure::Usage(e.to_string()))?
        }
        _ => open(&db)?,
    };
    let seat = match &view {
        Some(v) => v.viewer(&game.scenario)?,
        None => Viewer::Umpire,
    };
    let response = app::execute(&mut game, &seat, &request).map_err(|e| report(e, format))?;
    if let (Response::Receipt(r), Request::Receipt(q)) = (&response, &request) {
        return print_receipt(r, q, &db, format);
    }
    if format == Format::Json {
        return print_response(&response);
    }
    match &response {
        Response::Applied(a) => {
            for e in &a.events {
                println!("{}", shown(&e.describe()));
                super::workbench_cmd::print_details(e);
            }
            super::workbench_cmd::print_warnings(&a.diagnostics);
            print_opportunity(&a.opportunity_fire);
            print_reactions(&a.reaction_charges);
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
        // `show` and `report` are printed by workbench_cmd, a combat's odds by odds_combat.
        Response::Receipt(_)
        | Response::CombatOdds(_)
        | Response::Show(_)
        | Response::ShowFormation(_)
        | Response::Report(_) => Ok(()),
    }
}

/// The Opportunity Fire a move offers (17.4): each battery, the hexes of the path in its zone,
/// and the command that fires it.
fn print_opportunity(offers: &[crate::engine::opportunity::OpportunityOffer]) {
    use crate::engine::opportunity::zone_hexes_text as show;
    for o in offers {
        // 17.4.2: a Line Extension that moved on its own is a target of its own.
        let (target, at) = match o.extension {
            Some(h) => (
                format!("{}'s Line Extension (now {h})", o.target),
                format!(" --defender-at {h}"),
            ),
            None => (o.target.clone(), String::new()),
        };
        let changes = show(&o.formation_changes);
        if !o.formation_changes.is_empty() {
            println!(
                "Opportunity Fire (17.4 trigger 3): {} ({}) at {} may fire at {}'s formation change at {}; fire with `combat fire --attacker {} --defender {} --opportunity-at HEX --formation-change`",
                o.battery, o.side, o.battery_hex, o.target, changes, o.battery, o.target
            );
        }
        if o.hexes.is_empty() {
            continue;
        }
        let hexes = show(&o.hexes);
        println!(
            "Opportunity Fire (17.4): {} ({}) at {} may fire at {} in {}; fire with `combat fire --attacker {} --defender {}{at} --opportunity-at HEX`",
            o.battery, o.side, o.battery_hex, target, hexes, o.battery, o.target
        );
    }
}

/// The Reaction Charges a move offers (16.5): each cavalry unit, the hexes in its Reaction
/// Zone (those needing its Morale Check marked, 16.5.5), and the command that charges.
fn print_reactions(offers: &[crate::engine::opportunity::ReactionOffer]) {
    use crate::engine::opportunity::reaction_hexes_text as show;
    for o in offers {
        let what = if o.retreat { "retreat" } else { "move" };
        let mut at = Vec::new();
        if !o.hexes.is_empty() {
            at.push(format!("its {what} in {}", show(&o.hexes)));
        }
        if !o.formation_changes.is_empty() {
            at.push(format!(
                "its formation change at {}",
                show(&o.formation_changes)
            ));
        }
        // 13.1.1: a Line Extension that moved or changed formation on its own is a target of its
        // own, aimed at with --defender-at (decision 0211).
        let (target, aim) = match o.extension {
            Some(h) => (
                format!("{}'s Line Extension (now {h})", o.target),
                format!(" --defender-at {h}"),
            ),
            None => (o.target.clone(), String::new()),
        };
        println!(
            "Reaction Charge (16.5): {} ({}) at {} may charge {} on {}; charge with `combat charge --attacker {} --defender {}{aim} --reaction --at HEX`",
            o.cavalry,
            o.side,
            o.cavalry_hex,
            target,
            at.join("; "),
            o.cavalry,
            o.target
        );
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
        Response::Receipt(r) => super::emit_json(r),
        Response::CombatOdds(v) => super::emit_json(v),
        Response::Show(v) => super::emit_json(v),
        Response::ShowFormation(v) => super::emit_json(v),
        Response::Report(r) => super::emit_json(r),
    }
}

/// `receipt`: print it, and write it to `--out`.
fn print_receipt(
    r: &app::Receipt,
    q: &app::ReceiptRequest,
    db: &Path,
    format: Format,
) -> CmdResult {
    let json = super::out::json(r)?;
    if let Some(out) = &q.out {
        std::fs::write(out, &json)
            .map_err(|e| Failure::Usage(format!("cannot write {}: {e}", out.display())))?;
    }
    if format == Format::Json {
        return super::emit(&json);
    }
    let mut text = format!(
        "receipt for {} at turn {}: {}",
        r.seat,
        r.turn,
        crate::store::short(&r.digest)
    );
    if let Some(out) = &q.out {
        text.push_str(&format!(
            "\nwritten to {}; check the game later with `staffwork replay --db {} --verify --receipt {}`",
            out.display(),
            db.display(),
            out.display()
        ));
    }
    super::emit(&text)
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

/// A unit enum's name as the JSON spells it (`no-orders`, `march-column`); empty if it is not a
/// plain name.
fn wire_name<T: Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        _ => String::new(),
    }
}

/// The text of `status`.
pub(crate) fn print_status(s: &app::StatusView) {
    print_where(&s.at);
    if !s.last_seen.is_empty() {
        println!("enemy out of sight (4.0):");
    }
    for (piece, l) in &s.last_seen {
        println!(
            "  {piece}: last seen at {} (turn {}) in {}",
            l.time, l.turn, l.hex
        );
    }
    print_opportunity(&s.opportunity_fire);
    print_reactions(&s.reaction_charges);
    for w in &s.cavalry_withdrawals {
        let choice = if w.must_withdraw {
            "must withdraw"
        } else {
            "must Reaction Charge it or withdraw"
        };
        println!(
            "Cavalry Withdrawal (22.1): {} ({}) at {} has {} adjacent and {choice} 6–12 hexes before the phase ends: `move --piece {} --retreat-from {} --to HEX --path …`",
            w.cavalry, w.side, w.cavalry_hex, w.mover, w.cavalry, w.mover_hex
        );
    }
    println!("\ncommands:");
    for c in &s.commands {
        let order = c.order.map(|n| format!(" order {n}")).unwrap_or_default();
        let wrecked = if c.wrecked { ", WRECKED" } else { "" };
        // Talavera T2.4: on loan to the army commander, or barred to him.
        let loan = c
            .loan
            .map(|l| format!(", {}", wire_name(&l)))
            .unwrap_or_default();
        if let Some(parent) = &c.follows {
            println!(
                "  {:<16} {:<10} acts on {parent}'s orders{wrecked}{loan}",
                c.command, c.side
            );
            continue;
        }
        let status = wire_name(&c.status);
        println!(
            "  {:<16} {:<10} {status}{order}{wrecked}{loan}",
            c.command, c.side
        );
    }
    println!("\npositions ({} visible):", s.positions.len());
    for (p, h) in &s.positions {
        println!("  {p:<20} {h}");
    }
    // 4.0: seen, but no Commander near enough to examine it (decision 0161).
    for h in &s.enemy_stacks {
        println!("  {:<20} {h}", "an enemy stack");
    }
    if !s.formations.is_empty() {
        println!("\nformation and facing (8, 10):");
    }
    for f in &s.formations {
        let formation = wire_name(&f.formation);
        // 13.1.2: each extension's own Morale State, facing and MP (decision 0153).
        let ext: Vec<String> = if f.extension_parts.is_empty() {
            f.extensions.iter().map(|h| h.to_string()).collect()
        } else {
            f.extension_parts
                .iter()
                .map(|p| {
                    // 13.2.1: one in Square says so (decision 0198).
                    let square = if p.formation == crate::scenario::UnitFormation::Square {
                        "in square, "
                    } else {
                        ""
                    };
                    format!(
                        "{} ({square}{}, faces {}, {} MP spent)",
                        p.hex,
                        wire_name(&p.morale),
                        p.facing,
                        p.mp_spent
                    )
                })
                .collect()
        };
        let ext = if ext.is_empty() {
            String::new()
        } else {
            format!(", Line Extensions in {} (13)", ext.join(", "))
        };
        println!(
            "  {:<20} {formation:<12} faces {:<24} {} MP spent this phase{ext}",
            f.unit, f.facing, f.mp_spent
        );
    }
    let hurt: Vec<&app::view::UnitEntry> = s.units.iter().filter(|u| u.hurt()).collect();
    if !hurt.is_empty() {
        println!("\nlosses (P (S) <n>, boxes left of the loss chart; 7.1, 20.4):");
        for u in hurt {
            let wrecked = if u.wrecked { ", WRECKED" } else { "" };
            let morale = match u.morale {
                crate::combat::MoraleState::Normal => String::new(),
                m => format!(", {}", wire_name(&m)),
            };
            println!(
                "  {:<20} {} ({}) <{}>   {} of {} boxes left{morale}{wrecked}",
                u.unit, u.permanent, u.stragglers, u.skirmisher_losses, u.remaining, u.boxes,
            );
        }
    }
}

/// The text of `log`: the seat's orders and the events it sees, numbered for that seat (the
/// umpire's by the file's sequence numbers).
fn print_log(l: &app::LogView) {
    println!("Order Log (6.4.5) — {}:", l.viewer);
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
            shown(&o.sender),
            shown(&o.receiver),
            method,
            format!("{:?}", o.order_type).to_lowercase(),
            shown(&status_text(&o.status))
        );
        println!("       \"{}\"", shown(o.text.trim()));
        println!("       read back: {}", shown(&o.readback));
    }
    // Numbered per seat: a side's numbers and count say nothing of what it did not see.
    println!("\nEvents seen by {}:", l.viewer);
    for e in &l.events {
        let number = match e.seq {
            Some(seq) => format!("#{seq:<4}"),
            None => format!("{:<5}", e.number),
        };
        println!(
            "  {number} t{:<3} {}",
            e.event.turn,
            shown(&e.event.describe())
        );
    }
}

/// The text of `replay`.
fn print_replay(r: &app::Replayed) {
    match r.events {
        Some(events) => println!(
            "played back {events} events: turn {}, {} orders",
            r.turn, r.orders
        ),
        None => println!("played back: turn {}, {} orders of yours", r.turn, r.orders),
    }
    if let Some(v) = &r.verification {
        println!("{}", verdict(v, r.chain_only));
    }
    match &r.receipt {
        Some(c) if c.ok => println!(
            "receipt: ok — the file still holds the record the receipt was given for (its first {} events)",
            c.events.unwrap_or_default()
        ),
        Some(c) => println!("receipt: FAILED — {}", c.why.as_deref().unwrap_or_default()),
        None => {}
    }
}

/// One line (or a few) saying what `verify` found.
fn verdict(v: &crate::game::Verification, chain_only: bool) -> String {
    if let Some(why) = &v.structure_problem {
        return format!("verify: FAILED — the record does not read back cleanly: {why}");
    }
    if let Some(seq) = v.chain_broken_at {
        return format!(
            "verify: FAILED — the hash chain breaks at event {seq} (its payload or hash was altered)"
        );
    }
    if let Some(why) = &v.record_mismatch {
        return format!("verify: FAILED — {why}");
    }
    if let Some(d) = &v.first_difference {
        return format!(
            "verify: FAILED — re-simulation differs at event {} (command {}):\n  recorded:    {}\n  resimulated: {}",
            d.seq, d.command_seq, d.recorded, d.resimulated
        );
    }
    match &v.resimulation_skipped {
        Some(why) if chain_only => format!(
            "verify: chain only, NOT re-simulated — hash chain intact over {} events, {} commands ({why})",
            v.events, v.commands
        ),
        Some(why) => format!(
            "verify: FAILED — chain only, NOT re-simulated: {why}. The chain is intact over {} events; pass --chain-only to accept a chain check alone",
            v.events
        ),
        None => format!(
            "verify: ok — hash chain intact over {} events, {} commands re-simulated to exactly the stored events (last hash {})",
            v.events,
            v.commands,
            crate::store::short(&v.last_hash)
        ),
    }
}
