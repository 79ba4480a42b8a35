//! Per-seat reports and the record's integrity: `status`, `log`, `replay` (with `--verify`,
//! `--chain-only`, `--receipt`) and `receipt`.
//!
//! Every per-side document comes from `view` (the one allow-list of what a seat may see); this
//! file only prints it. User text is printed through `text::visible`. Must not decide what a
//! seat sees.

use std::path::PathBuf;

use clap::Args;
use serde_json::json;

use super::game_cmd::{LogArgs, describe, open_game, print_where_for, status_text};
use super::{CmdResult, Failure, Format};
use crate::game::Viewer;
use crate::text::visible as shown;

/// `staffwork status`: the game as one seat may see it.
pub fn status(a: LogArgs) -> CmdResult {
    let game = open_game(&a.db)?;
    let viewer = a.view.viewer(&game.scenario)?;
    let doc = crate::view::status(&game, &viewer);
    if a.format == Format::Json {
        return super::print_json(&doc);
    }
    print_where_for(&game, &viewer);
    println!("\ncommands:");
    for c in doc["commands"].as_array().into_iter().flatten() {
        let order = c["order"]
            .as_u64()
            .map(|n| format!(" order {n}"))
            .unwrap_or_default();
        let wrecked = if c["wrecked"] == true {
            ", WRECKED"
        } else {
            ""
        };
        // Talavera T2.4: on loan to the army commander, or barred to him.
        let loan = c["loan"]
            .as_str()
            .map(|l| format!(", {l}"))
            .unwrap_or_default();
        if let Some(parent) = c["follows"].as_str() {
            println!(
                "  {:<16} {:<10} acts on {parent}'s orders{wrecked}{loan}",
                c["command"].as_str().unwrap_or(""),
                c["side"].as_str().unwrap_or("")
            );
            continue;
        }
        println!(
            "  {:<16} {:<10} {}{order}{wrecked}{loan}",
            c["command"].as_str().unwrap_or(""),
            c["side"].as_str().unwrap_or(""),
            c["status"].as_str().unwrap_or("")
        );
    }
    let positions = doc["positions"].as_object().cloned().unwrap_or_default();
    println!("\npositions ({} visible):", positions.len());
    for (p, h) in &positions {
        println!("  {p:<20} {}", h.as_str().unwrap_or(""));
    }
    let hurt: Vec<&serde_json::Value> = doc["units"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|u| {
            u["permanent"] != 0
                || u["stragglers"] != 0
                || u["skirmisher_losses"] != 0
                || u["morale"] != "normal"
                || u["blown"] == true
        })
        .collect();
    if !hurt.is_empty() {
        println!("\nlosses (P (S) <n>, boxes left of the loss chart; 7.1, 20.4):");
        for u in hurt {
            let wrecked = if u["wrecked"] == true {
                ", WRECKED"
            } else {
                ""
            };
            let morale = u["morale"].as_str().unwrap_or("");
            let morale = if morale == "normal" {
                String::new()
            } else {
                format!(", {morale}")
            };
            println!(
                "  {:<20} {} ({}) <{}>   {} of {} boxes left{morale}{wrecked}",
                u["unit"].as_str().unwrap_or(""),
                u["permanent"],
                u["stragglers"],
                u["skirmisher_losses"],
                u["remaining"],
                u["boxes"],
            );
        }
    }
    Ok(())
}

/// `staffwork log`: the Order Log (6.4.5) and the events a seat may see, numbered for that seat.
pub fn log(a: LogArgs) -> CmdResult {
    let game = open_game(&a.db)?;
    let viewer = crate::view::effective(&a.view.viewer(&game.scenario)?, &game.state);
    let events = game
        .store
        .events()
        .map_err(|e| Failure::Usage(e.to_string()))?;
    let seen = crate::view::seen_events(&events, &viewer);
    if a.format == Format::Json {
        return super::print_json(&json!({
            "viewer": viewer.name(),
            "orders": crate::view::order_log(&game, &viewer),
            "events": seen,
        }));
    }
    println!("Order Log (6.4.5) — {}:", viewer.name());
    println!(
        "  {:>3}  {:<6} {:<6} {:<10} {:<14} {:<10} {:<8} status",
        "no", "sent", "arrive", "sender", "receiver", "method", "type"
    );
    let time = |n: u32| {
        game.engine()
            .turn_info(n)
            .map(|i| i.time.format("%H:%M").to_string())
            .unwrap_or_else(|| "start".into())
    };
    for o in crate::view::orders(&game.state, &viewer) {
        let method = o
            .method
            .map_or("—".to_string(), |m| format!("{m:?}").to_lowercase());
        println!(
            "  {:>3}  {:<6} {:<6} {:<10} {:<14} {:<10} {:<8} {}",
            o.number,
            time(o.sent_turn),
            time(o.arrival_turn),
            o.sender,
            o.recipient,
            method,
            format!("{:?}", o.order_type).to_lowercase(),
            shown(&status_text(&o.status))
        );
        println!("       \"{}\"", shown(o.text.trim()));
        println!("       read back: {}", shown(&o.readback));
    }
    // Numbered per seat: a side's numbers and count say nothing of what it did not see.
    println!("\nEvents seen by {}:", viewer.name());
    for e in seen {
        match e.seq {
            Some(seq) => println!(
                "  #{seq:<4} t{:<3} {}",
                e.event.turn,
                shown(&describe(e.event))
            ),
            None => println!(
                "  {:<5} t{:<3} {}",
                e.number,
                e.event.turn,
                shown(&describe(e.event))
            ),
        }
    }
    Ok(())
}

#[derive(Args, Debug)]
pub struct ReplayArgs {
    #[arg(long)]
    pub db: PathBuf,
    /// Stop the playback after this turn.
    #[arg(long)]
    pub to_turn: Option<u32>,
    /// Check the record (hash chain, every event under a recorded command, the game row's head)
    /// and re-simulate every command from the seed: exactly the stored events, no more and no
    /// fewer. A verify that cannot re-simulate fails unless `--chain-only` is given.
    #[arg(long)]
    pub verify: bool,
    /// With --verify: check the chain and structure only, without re-simulating (reported as
    /// "chain only, NOT re-simulated"). For files from another staffwork version.
    #[arg(long, requires = "verify")]
    pub chain_only: bool,
    /// With --verify: a receipt (from `staffwork receipt`) the file must still contain; a file
    /// cut back before the receipt, or rewritten, fails.
    #[arg(long, requires = "verify", value_name = "RECEIPT")]
    pub receipt: Option<PathBuf>,
    #[command(flatten)]
    pub view: super::game_cmd::ViewArgs,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// A receipt: a keyed digest of the record's head that a player or the umpire keeps, so that a
/// file later cut back or rewritten before that point is evident (decision 0050). A side's
/// receipt holds no count and no hash: only the digest, which cannot be tested against guesses
/// without the file's key.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct Receipt {
    pub staffwork_receipt: u32,
    pub scenario: String,
    pub seat: String,
    pub turn: u32,
    pub digest: String,
    /// Umpire's receipts only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head_hash: Option<String>,
}

/// `staffwork replay`: play back, and with `--verify` check the record.
pub fn replay(a: ReplayArgs) -> CmdResult {
    // Verification reports what it finds in a damaged record; playback alone refuses one.
    let game = if a.verify {
        crate::game::Game::open_for_audit(&a.db).map_err(|e| Failure::Usage(e.to_string()))?
    } else {
        open_game(&a.db)?
    };
    let viewer = crate::view::effective(&a.view.viewer(&game.scenario)?, &game.state);
    if a.verify && viewer != Viewer::Umpire {
        return Err(Failure::Usage(
            "--verify is the umpire's: it reads every hidden event; a side checks the file with its receipt through the umpire".into(),
        ));
    }
    let state = game
        .state_at(a.to_turn)
        .map_err(|e| Failure::Usage(e.to_string()))?;
    let verification = if a.verify {
        Some(
            game.verify_with(a.chain_only)
                .map_err(|e| Failure::Usage(e.to_string()))?,
        )
    } else {
        None
    };
    let receipt = match &a.receipt {
        Some(path) => Some(check_receipt(&game, path)?),
        None => None,
    };
    let verified = verification
        .as_ref()
        .is_none_or(|v| if a.chain_only { v.chain_ok() } else { v.ok() });
    let ok = verified && receipt.as_ref().is_none_or(|r| r.is_ok());
    // A side sees its own orders only; the total is the umpire's.
    let orders = crate::view::orders(&state, &viewer).len();
    if a.format == Format::Json {
        let mut doc =
            json!({"viewer": viewer.name(), "turn": state.turn, "orders": orders, "ok": ok});
        if viewer == Viewer::Umpire {
            doc["events"] = json!(state.events);
            doc["verification"] = json!(verification);
            doc["chain_only"] = json!(a.chain_only);
            if let Some(r) = &receipt {
                doc["receipt"] = match r {
                    Ok(n) => json!({"ok": true, "events": n}),
                    Err(why) => json!({"ok": false, "why": why}),
                };
            }
        }
        super::print_json(&doc)?;
    } else {
        if viewer == Viewer::Umpire {
            println!(
                "played back {} events: turn {}, {orders} orders",
                state.events, state.turn
            );
        } else {
            println!("played back: turn {}, {orders} orders of yours", state.turn);
        }
        if let Some(v) = &verification {
            println!("{}", verdict(v, a.chain_only));
        }
        match &receipt {
            Some(Ok(n)) => println!(
                "receipt: ok — the file still holds the record the receipt was given for (its first {n} events)"
            ),
            Some(Err(why)) => println!("receipt: FAILED — {why}"),
            None => {}
        }
    }
    if ok { Ok(()) } else { Err(Failure::Judged) }
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

/// Does the file still hold the record a receipt was given for? `Ok(events)` or why not.
fn check_receipt(
    game: &crate::game::Game,
    path: &std::path::Path,
) -> Result<Result<i64, String>, Failure> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure::Usage(format!("cannot read receipt {}: {e}", path.display())))?;
    let r: Receipt = serde_json::from_str(&text).map_err(|e| {
        Failure::Usage(format!(
            "{} is not a staffwork receipt ({e}); make one with `staffwork receipt --db GAME --out FILE`",
            path.display()
        ))
    })?;
    if r.scenario != game.store.meta().scenario_id {
        return Ok(Err(format!(
            "the receipt is for a game of `{}`, this file is a game of `{}`",
            shown(&r.scenario),
            game.store.meta().scenario_id
        )));
    }
    let found = game
        .store
        .find_receipt(&r.digest)
        .map_err(|e| Failure::Usage(e.to_string()))?;
    Ok(found.ok_or_else(|| {
        format!(
            "the file no longer holds the record the {} receipt of turn {} was given for: it was cut back or rewritten",
            shown(&r.seat),
            r.turn
        )
    }))
}

#[derive(Args, Debug)]
pub struct ReceiptArgs {
    #[arg(long)]
    pub db: PathBuf,
    /// Write the receipt to this file (JSON) as well as printing it.
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub view: super::game_cmd::ViewArgs,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// `staffwork receipt`: a digest of the record as it stands, to keep and check later with
/// `replay --verify --receipt`.
pub fn receipt(a: ReceiptArgs) -> CmdResult {
    let game = open_game(&a.db)?;
    let viewer = a.view.viewer(&game.scenario)?;
    let head = game
        .store
        .full_head()
        .map_err(|e| Failure::Usage(e.to_string()))?;
    let digest = game
        .store
        .receipt_digest(head.events, &head.hash)
        .map_err(|e| Failure::Usage(e.to_string()))?;
    let umpire = viewer == Viewer::Umpire;
    let r = Receipt {
        staffwork_receipt: 1,
        scenario: game.store.meta().scenario_id.clone(),
        seat: viewer.name().to_string(),
        turn: game.state.turn,
        digest,
        events: umpire.then_some(head.events),
        head_hash: umpire.then(|| head.hash.clone()),
    };
    let json = serde_json::to_string_pretty(&r).map_err(|e| Failure::Usage(e.to_string()))?;
    if let Some(out) = &a.out {
        std::fs::write(out, format!("{json}\n"))
            .map_err(|e| Failure::Usage(format!("cannot write {}: {e}", out.display())))?;
    }
    if a.format == Format::Json {
        println!("{json}");
    } else {
        println!(
            "receipt for {} at turn {}: {}",
            r.seat,
            r.turn,
            crate::store::short(&r.digest)
        );
        if let Some(out) = &a.out {
            println!(
                "written to {}; check the game later with `staffwork replay --db {} --verify --receipt {}`",
                out.display(),
                a.db.display(),
                out.display()
            );
        }
    }
    Ok(())
}
