//! The umpire's workbench on the command line (issue 17): `show` (one unit at a glance) and
//! `report` (what a seat learned in one game turn, as text, JSON or an HTML page to send).
//!
//! Each is an [`app::Request`] executed by [`app::execute`] for the seat asked (`--side`,
//! `--observer`, or the umpire); this file only prints. Text that echoes the record goes through
//! `text::visible`; HTML is escaped here.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::game_cmd::{ViewArgs, open, report as failed};
use super::{CmdResult, Format};
use crate::app::workbench::{FormationView, TurnReport, UnitView};
use crate::app::{self, Request, Response};
use crate::text::visible as shown;

/// `staffwork show --db G UNIT [--side S]`.
#[derive(Args, Debug)]
pub struct ShowArgs {
    /// The game file (SQLite).
    #[arg(long)]
    pub db: PathBuf,
    #[command(flatten)]
    pub request: app::ShowRequest,
    #[command(flatten)]
    pub view: ViewArgs,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// Output of `report`: text, JSON, or a self-contained HTML page.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    #[default]
    Text,
    Json,
    Html,
}

/// `staffwork report --db G --side S --turn N`.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// The game file (SQLite).
    #[arg(long)]
    pub db: PathBuf,
    #[command(flatten)]
    pub request: app::ReportRequest,
    #[command(flatten)]
    pub view: ViewArgs,
    /// text for the terminal, json for programs, html for a page to send to the side.
    #[arg(long, value_enum, default_value_t)]
    pub format: ReportFormat,
}

fn ask(
    db: &std::path::Path,
    view: &ViewArgs,
    req: Request,
    format: Format,
) -> Result<Response, super::Failure> {
    let mut game = open(db)?;
    let seat = view.viewer(&game.scenario)?;
    app::execute(&mut game, &seat, &req).map_err(|e| failed(e, format))
}

/// `show`.
pub fn show(a: ShowArgs) -> CmdResult {
    match ask(&a.db, &a.view, Request::Show(a.request), a.format)? {
        Response::Show(v) => match a.format {
            Format::Json => super::emit_json(&v),
            Format::Text => super::emit(&show_text(&v)),
        },
        Response::ShowFormation(v) => match a.format {
            Format::Json => super::emit_json(&v),
            Format::Text => super::emit(&formation_text(&v)),
        },
        _ => Err(super::Failure::Usage("show answered something else".into())),
    }
}

/// A formation as text: its commander, its order and status, then its pieces one a line.
pub fn formation_text(v: &FormationView) -> String {
    let mut t = format!(
        "{} ({}) — {}, {}\n",
        shown(&v.name),
        v.formation,
        v.side,
        word(&v.echelon)
    );
    if let Some(n) = &v.commander {
        t.push_str(&format!("  commander  {}\n", shown(n)));
    }
    if let Some(c) = &v.command {
        t.push_str(&command_lines(c, false));
    }
    t.push_str("  members:\n");
    for m in &v.members {
        let at = m
            .position
            .map_or("not on the map".to_string(), |h| h.to_string());
        t.push_str(&format!(
            "    {:<10} {:<22} {at}\n",
            m.role,
            format!("{} ({})", shown(&m.name), m.piece)
        ));
    }
    t
}

fn word<T: serde::Serialize>(x: &T) -> String {
    serde_json::to_value(x)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The command a piece belongs to and the order it acts on ("umpire's order" when the umpire
/// imposed it), as `show` prints them for a unit and a formation alike.
fn command_lines(c: &crate::app::workbench::ActingCommand, with_commander: bool) -> String {
    let mut t = String::new();
    t.push_str(&format!(
        "  command    {} ({}), {}{}\n",
        shown(&c.name),
        c.command,
        word(&c.status),
        if c.wrecked { ", WRECKED" } else { "" }
    ));
    if let (true, Some(n)) = (with_commander, &c.commander) {
        t.push_str(&format!("  commander  {}\n", shown(n)));
    }
    match &c.order {
        Some(o) => {
            let stage = if o.stage > 0 {
                format!(", stage {} of {}", o.stage, o.stages)
            } else {
                String::new()
            };
            let by = if o.origin == "umpire" {
                "umpire's order".to_string()
            } else {
                "order".to_string()
            };
            t.push_str(&format!(
                "  order      {by} {}: {} ({}{stage})\n",
                o.number,
                shown(&o.readback),
                o.status
            ));
        }
        None => t.push_str("  order      none\n"),
    }
    t
}

/// A unit as text, one fact a line.
pub fn show_text(v: &UnitView) -> String {
    let mut t = format!(
        "{} ({}) — {}{}, {}\n",
        shown(&v.name),
        v.unit,
        v.side,
        if v.enemy { ", ENEMY" } else { "" },
        word(&v.kind)
    );
    match v.position {
        Some(h) => t.push_str(&format!("  position   {h}\n")),
        None => t.push_str("  position   not on the map\n"),
    }
    if let (Some(f), Some(face)) = (&v.formation, &v.facing) {
        t.push_str(&format!("  formation  {} facing {face}\n", word(f)));
    }
    if let Some(s) = &v.strength {
        t.push_str(&format!("  strength   {}\n", word(s)));
    }
    if let Some(g) = v.gun_points {
        t.push_str(&format!("  guns       {g} gun points\n"));
    }
    if let Some(l) = &v.losses {
        t.push_str(&format!(
            "  losses     {} ({}) — {} of {} boxes left\n",
            l.permanent, l.stragglers, l.remaining, l.boxes
        ));
    }
    if let Some(m) = &v.morale {
        let rating = v.morale_rating.as_ref().map(word).unwrap_or_default();
        let blown = if v.blown == Some(true) { ", Blown" } else { "" };
        t.push_str(&format!(
            "  morale     {} (rating {rating}){blown}\n",
            word(m)
        ));
    }
    if let Some(c) = &v.command {
        t.push_str(&command_lines(c, true));
    } else if v.enemy {
        t.push_str("  (an enemy unit: only what can be seen on the map is shown, 4.0)\n");
    }
    t
}

/// `report`.
pub fn report(a: ReportArgs) -> CmdResult {
    let format = if a.format == ReportFormat::Json {
        Format::Json
    } else {
        Format::Text
    };
    let Response::Report(r) = ask(&a.db, &a.view, Request::Report(a.request), format)? else {
        return Err(super::Failure::Usage(
            "report answered something else".into(),
        ));
    };
    match a.format {
        ReportFormat::Json => super::emit_json(&r),
        ReportFormat::Text => super::emit(&report_text(&r)),
        ReportFormat::Html => super::emit(&report_html(&r)),
    }
}

const SECTIONS: [(&str, &str); 5] = [
    ("arrivals", "Arrivals"),
    ("orders", "Orders and acceptance"),
    ("combat", "Combat"),
    ("losses", "Losses"),
    ("messages", "Messages"),
];

fn seat_title(r: &TurnReport) -> String {
    if r.viewer == "umpire" {
        "the umpire".into()
    } else {
        format!("the {} side", r.viewer)
    }
}

/// The report as text: a heading, one block per section that has lines, the enemy seen.
pub fn report_text(r: &TurnReport) -> String {
    let mut t = format!(
        "Report for {}, turn {} ({})\n",
        seat_title(r),
        r.turn,
        r.time
    );
    for (key, title) in SECTIONS {
        let lines: Vec<_> = r.lines.iter().filter(|l| l.section == key).collect();
        if lines.is_empty() {
            continue;
        }
        t.push_str(&format!("\n{title}:\n"));
        for l in lines {
            t.push_str(&format!("  {}\n", shown(&l.text)));
        }
    }
    if r.viewer != "umpire" {
        t.push_str("\nEnemy seen at the end of the turn (4.0, 14.1):\n");
        if r.enemy_seen.is_empty() && r.enemy_stacks.is_empty() {
            t.push_str("  none\n");
        }
        for p in &r.enemy_seen {
            t.push_str(&format!("  ENEMY {} at {}\n", shown(&p.name), p.hex));
        }
        for h in &r.enemy_stacks {
            t.push_str(&format!(
                "  ENEMY stack at {h} (no Commander near enough to examine it, 4.0)\n"
            ));
        }
    }
    t
}

fn esc(s: &str) -> String {
    shown(s)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The report as a self-contained HTML page (no scripts, no outside resources).
pub fn report_html(r: &TurnReport) -> String {
    let title = esc(&format!(
        "Report for {}, turn {} ({})",
        seat_title(r),
        r.turn,
        r.time
    ));
    let mut h = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title>\n<style>body{{font-family:serif;max-width:48em;margin:2em auto}} .enemy{{color:#a00;font-weight:bold}}</style></head>\n<body>\n<h1>{title}</h1>\n"
    );
    for (key, name) in SECTIONS {
        let lines: Vec<_> = r.lines.iter().filter(|l| l.section == key).collect();
        if lines.is_empty() {
            continue;
        }
        h.push_str(&format!("<h2>{name}</h2>\n<ul>\n"));
        for l in lines {
            h.push_str(&format!("<li>{}</li>\n", esc(&l.text)));
        }
        h.push_str("</ul>\n");
    }
    if r.viewer != "umpire" {
        h.push_str("<h2>Enemy seen at the end of the turn</h2>\n<ul>\n");
        if r.enemy_seen.is_empty() && r.enemy_stacks.is_empty() {
            h.push_str("<li>none</li>\n");
        }
        for p in &r.enemy_seen {
            h.push_str(&format!(
                "<li><span class=\"enemy\">ENEMY</span> {} at {}</li>\n",
                esc(&p.name),
                p.hex
            ));
        }
        for x in &r.enemy_stacks {
            h.push_str(&format!(
                "<li><span class=\"enemy\">ENEMY</span> stack at {x} (not examined, 4.0)</li>\n"
            ));
        }
        h.push_str("</ul>\n");
    }
    h.push_str("</body></html>\n");
    h
}

/// `check --db G --side S --method M [--to X] FILE|--text T`: the order as `order` would take
/// it now, written nowhere (decision 0123). Exit 0 if it would be recorded, 1 if not.
pub fn check_on_game(db: &std::path::Path, args: super::check_cmd::CheckArgs) -> CmdResult {
    let text = super::check_cmd::read_input(&args)?;
    let Some(method) = args.method else {
        return Err(super::Failure::Usage(
            "check --db previews an order as `order` sends it: give --method (in-person, oral or written)".into(),
        ));
    };
    let side = args.side.clone().unwrap_or_default();
    let game = open(db)?;
    let seat = ViewArgs {
        side: Some(side.clone()),
        umpire: false,
        observer: false,
    }
    .viewer(&game.scenario)?;
    let req = app::OrderRequest {
        side,
        from: args.from.clone(),
        to: args.to.clone(),
        method,
        via: None,
        text: text.clone(),
    };
    let p = app::workbench::preview(&game, &seat, &req).map_err(|e| failed(e, args.format))?;
    if args.format == Format::Json {
        super::emit_json(&p)?;
        return if p.legal {
            Ok(())
        } else {
            Err(super::Failure::Judged)
        };
    }
    let mut out = super::check_cmd::order_text(&text, &p.order);
    if p.order.has_errors() {
        out.push_str("the order has errors: `order` would refuse it. Nothing was written.\n");
        super::emit(&out)?;
        return Err(super::Failure::Judged);
    }
    if let Some(r) = &p.refused {
        out.push_str(&format!(
            "`order` would be refused [{}] (rule {}): {}\n  help: {}\nNothing was written.\n",
            r.code,
            r.rule,
            shown(&r.message),
            shown(&r.help)
        ));
        super::emit(&out)?;
        return Err(super::Failure::Judged);
    }
    out.push_str(&format!(
        "would be order {} to {}: cost {} CP of {} left, arrives turn {} ({}), {}\n",
        p.number.unwrap_or_default(),
        p.recipient.as_deref().unwrap_or("?"),
        p.cost.unwrap_or_default(),
        p.points_before.unwrap_or_default(),
        p.arrival_turn.unwrap_or_default(),
        p.arrival_time.as_deref().unwrap_or("-"),
        p.status.as_deref().unwrap_or("")
    ));
    if let Some(o) = &p.odds {
        out.push_str(&super::odds_cmd::acceptance_text(o));
    }
    for c in &p.copies {
        out.push_str(&format!(
            "and order {} to {}: cost {} CP, arrives turn {} ({}), {}\n",
            c.number,
            c.recipient,
            c.cost,
            c.arrival_turn,
            c.arrival_time.as_deref().unwrap_or("-"),
            c.status
        ));
    }
    out.push_str("Nothing was written.\n");
    super::emit(&out)
}

/// The warnings kept with an accepted order, and what was found (issue 17).
pub(crate) fn print_warnings(d: &[crate::order::Diagnostic]) {
    for w in d {
        println!("  {}[{}]: {}", w.severity, w.code, shown(&w.message));
        if !w.help.is_empty() {
            println!("        = help: {}", shown(&w.help));
        }
    }
    if !d.is_empty() {
        println!("1 order: 0 error(s), {} warning(s)", d.len());
    }
}

/// The details under an event's line: a combat's modifiers and table lines (issue 17).
pub(crate) fn print_details(e: &crate::engine::Event) {
    if let crate::engine::EventKind::CombatDice {
        readback: Some(r), ..
    } = &e.kind
    {
        for l in crate::engine::describe::combat_lines(r) {
            println!("    {}", shown(&l));
        }
    }
}
