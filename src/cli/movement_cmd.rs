//! `staffwork los` and `staffwork path`: explain a line-of-sight or movement ruling hex by hex
//! (14.1, 12; chart p2), as text or JSON. Prints; the rulings come from `movement` and
//! `engine::movement`.

use std::path::PathBuf;

use clap::Args;
use serde_json::json;

use super::{CmdResult, Failure, Format};
use crate::game::Game;
use crate::hex::Hex;
use crate::movement::tables::show_halves;

/// `staffwork los`: may a unit in FROM see TO now?
#[derive(Args, Debug)]
#[command(
    long_about = "Line of sight (14.1) from one hex to another as the game stands: the line runs centre to \
centre; each hex it crosses counts its elevation, +1 for Blocking terrain (woods, towns, orchards in the \
Movement Table) and +1 for units other than Skirmishers. Adjacent hexes always see each other; the sighting \
and target hexes never block. Between different levels the 14.1.4 slope formula decides; when in doubt, \
blocked. This turn's visibility (14.1.5, night = 1 hex) caps the range.",
    after_help = "Example: staffwork los --db game.db 5.05 9.07 --format json\nExit codes: 0 visible or blocked (see the ruling), 2 usage or IO error."
)]
pub struct LosArgs {
    /// The game file (SQLite).
    #[arg(long)]
    pub db: PathBuf,
    /// Sighting hex, e.g. 5.05.
    pub from: Hex,
    /// Target hex.
    pub to: Hex,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// `staffwork path`: what would moving a unit cost?
#[derive(Args, Debug)]
#[command(
    long_about = "The ruling on moving a unit (12; chart p2) as the game stands, without moving it: its \
formation, Movement Allowance and MP already spent this phase, then each hex of the path with its terrain, \
hexside and slope costs and their provenance (seed / derived / assumed). Without --path the cheapest legal \
path is found (ties go to the lowest hex). A refusal names the rule and the hex.",
    after_help = "Example: staffwork path --db game.db --piece 2-2-i --to 9.07\nExit codes: 0 legal, 1 refused (the rule and hex are printed), 2 usage or IO error."
)]
pub struct PathArgs {
    /// The game file (SQLite).
    #[arg(long)]
    pub db: PathBuf,
    /// Unit id.
    #[arg(long)]
    pub piece: String,
    /// Destination hex.
    #[arg(long)]
    pub to: Hex,
    /// Check this path instead of finding one: the hexes in order, e.g. `--path 5.06,5.07`.
    #[arg(long, value_delimiter = ',', num_args = 1..)]
    pub path: Vec<Hex>,
    /// End facing this hex corner (10.1): NNE, E, SSE, SSW, W, NNW.
    #[arg(long)]
    pub face: Option<crate::movement::facing::Corner>,
    /// With 1 or 2 sets of Forced March (12.5.6): the road only, +3 MP a set (no die rolled).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=2))]
    pub forced_march: u8,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

fn open(db: &std::path::Path) -> Result<Game, Failure> {
    Game::open(db).map_err(|e| Failure::Usage(e.to_string()))
}

pub fn los(a: LosArgs) -> CmdResult {
    let game = open(&a.db)?;
    let s = &game.scenario;
    let map = crate::movement::MoveMap::new(s);
    let blockers: std::collections::BTreeSet<Hex> = game
        .state
        .positions
        .iter()
        .filter(|(p, _)| {
            s.unit(p)
                .is_some_and(|u| u.kind != crate::scenario::UnitKind::Skirmisher)
        })
        .map(|(_, h)| *h)
        .collect();
    for h in [a.from, a.to] {
        if !map.contains(h) {
            return Err(Failure::Usage(format!(
                "{h} is off the map (columns {}–{}, rows {}–{})",
                s.map.first_col, s.map.last_col, s.map.first_row, s.map.last_row
            )));
        }
    }
    let light = game
        .engine()
        .turn_info(game.state.turn)
        .map_or(crate::scenario::clock::Light::Day, |t| t.light);
    let visibility = crate::movement::sight::visibility(&game.movement, s, light);
    let r = crate::movement::sight::line_of_sight(
        &map,
        &game.movement,
        a.from,
        a.to,
        &blockers,
        visibility,
    );
    if a.format == Format::Json {
        return super::emit_json(&r);
    }
    println!(
        "{} (level {}) to {} (level {}): {} hexes, visibility {}",
        r.from,
        r.from_level,
        r.to,
        r.to_level,
        r.distance,
        r.visibility
            .map_or("unlimited".to_string(), |v| format!("{v} hexes"))
    );
    for h in &r.hexes {
        println!(
            "  {} {:<12} level {}{}{} → height {}: {} — {}",
            h.hex,
            h.terrain,
            h.elevation,
            if h.blocking_terrain {
                " +1 blocking"
            } else {
                ""
            },
            if h.unit { " +1 units" } else { "" },
            h.height,
            if h.blocks { "BLOCKS" } else { "clear" },
            h.why
        );
    }
    println!(
        "{} ({}): {}",
        if r.visible { "VISIBLE" } else { "BLOCKED" },
        r.rule,
        r.reason
    );
    Ok(())
}

pub fn path(a: PathArgs) -> CmdResult {
    let game = open(&a.db)?;
    let engine = game.engine();
    match engine.explain_move_with(&game.state, &a.piece, a.to, &a.path, a.face, a.forced_march) {
        Ok(x) => {
            if a.format == Format::Json {
                return super::emit_json(&json!({"ok": true, "move": x}));
            }
            let m = &x.mover;
            println!(
                "{} ({:?}, moves as {}): {} MP allowance, {} spent this phase",
                x.piece,
                x.formation,
                m.class,
                show_halves(m.allowance),
                show_halves(m.spent)
            );
            let mut run = 0;
            for st in &x.ruling.steps {
                run += st.cost;
                println!(
                    "  {} → {} {:<12} {:>3} MP  (total {}){}: {}",
                    st.from,
                    st.to,
                    st.terrain,
                    show_halves(st.cost),
                    show_halves(run),
                    if st.road { " by road, 12.5" } else { "" },
                    st.parts.join(", ")
                );
            }
            let r = &x.ruling;
            let faces = |c: Option<u8>| {
                c.map_or(
                    "all-around (10.0)".to_string(),
                    crate::movement::facing::show_set,
                )
            };
            println!(
                "  faces {} now; ends facing {} (10.0, 12.1.1: it enters frontal hexes only)",
                faces(m.facing),
                r.facing.map_or(faces(None), |c| c.to_string())
            );
            if !r.zoi_degradations.is_empty() {
                let at: Vec<String> = r.zoi_degradations.iter().map(|h| h.to_string()).collect();
                println!(
                    "  Morale Degradation (11.3.1: enemy ZoI to ZoI) entering {}{}{}",
                    at.join(", "),
                    if r.halved > 0 {
                        format!(
                            "; becoming DG halves the MP left: {} MP lost (12.1.2)",
                            show_halves(r.halved)
                        )
                    } else {
                        String::new()
                    },
                    if r.routed {
                        "; it Routs and stops there (11.3.2)"
                    } else {
                        ""
                    }
                );
            }
            if !r.entry_effects.is_empty() {
                let at: Vec<String> = r.entry_effects.iter().map(|h| h.to_string()).collect();
                println!(
                    "  the terrain makes it Shaken or DG entering {} (12.2.5: the Movement Table's `enters` cells, `rules show movement`){}",
                    at.join(", "),
                    if r.halved > 0 && r.zoi_degradations.is_empty() {
                        format!(
                            "; becoming DG halves the MP left: {} MP lost (12.1.2)",
                            show_halves(r.halved)
                        )
                    } else {
                        String::new()
                    }
                );
            }
            if let (Some(short), Some(end)) = (r.halted_short_of, r.path.last()) {
                println!(
                    "  the MP it keeps after halving pay only as far as {end}: it stops there, short of {short} (12.1.2, 11.3.2)"
                );
            }
            if r.minimum_move {
                println!(
                    "LEGAL by 12.1.5: {} MP is more than the {} MP left, but a unit that has spent nothing may move one hex — it spends everything and loses a Morale State",
                    show_halves(r.cost),
                    show_halves(r.remaining)
                );
            } else if r.square_move {
                println!(
                    "LEGAL by 8.3.2: a Square moves one clear hex after passing a Morale Check"
                );
            } else {
                println!(
                    "LEGAL: {} MP of {} left (least certain cell: {})",
                    show_halves(r.cost),
                    show_halves(r.remaining),
                    r.provenance
                );
            }
            Ok(())
        }
        Err(r) => {
            if a.format == Format::Json {
                super::emit_json(
                    &json!({"ok": false, "refused": {"code": r.code, "rule": r.rule, "message": r.message, "help": r.help}}),
                )?;
                return Err(Failure::Judged);
            }
            println!("REFUSED [{}] (rule {}): {}", r.code, r.rule, r.message);
            println!("  help: {}", r.help);
            Err(Failure::Judged)
        }
    }
}

/// `staffwork rules show movement`: the Movement Table with the provenance of every cell.
pub fn show_table(file: Option<&std::path::Path>, format: Format) -> CmdResult {
    let (t, origin) = match file {
        None => (
            crate::movement::tables::builtin().clone(),
            "built-in tables/nbs-3.0/movement.toml".to_string(),
        ),
        Some(p) => {
            let text = crate::text::read_file(p)
                .map_err(|e| Failure::Usage(format!("cannot read {}: {e}", p.display())))?;
            let t = crate::movement::MovementTables::with_override(&text).map_err(|e| {
                eprintln!("{}: {e}", p.display());
                Failure::Judged
            })?;
            (t, format!("built-in with {}", p.display()))
        }
    };
    if format == Format::Json {
        return super::emit_json(&json!({"origin": origin, "movement": t}));
    }
    let mark = |p: crate::provenance::Provenance| match p {
        crate::provenance::Provenance::Seed => "",
        crate::provenance::Provenance::Derived => "†",
        crate::provenance::Provenance::Assumed => "*",
    };
    let mut assumed = Vec::new();
    println!("NBS v3.0 Movement Table (chart p2) — {origin}");
    println!("cells: plain = seed, † = derived, * = assumed; P = Prohibited; MP\n");
    println!("Movement Allowance (chart p2, 12.1.3)");
    for (k, v) in &t.allowance {
        println!(
            "  {k:<16} {:>3}{}",
            show_halves(v.halves),
            mark(v.provenance)
        );
        if v.provenance == crate::provenance::Provenance::Assumed {
            assumed.push(format!("allowance.{k}"));
        }
    }
    println!("\nOther costs");
    for (k, v) in &t.costs {
        println!(
            "  {k:<22} {:>3}{}  ({})",
            show_halves(v.halves),
            mark(v.provenance),
            v.rule
        );
        if v.provenance == crate::provenance::Provenance::Assumed {
            assumed.push(format!("costs.{k}"));
        }
    }
    let header = crate::movement::tables::CLASSES
        .iter()
        .map(|c| format!("{c:>10}"))
        .collect::<String>();
    let rows = |title: &str,
                section: &str,
                rows: Vec<&crate::movement::tables::Row>,
                assumed: &mut Vec<String>| {
        println!("\n{title}\n  {:<14}{header}  flags", "");
        for r in rows {
            let cells: String = crate::movement::tables::CLASSES
                .iter()
                .map(|c| {
                    let cell = r.cell(c);
                    if cell.provenance == crate::provenance::Provenance::Assumed {
                        assumed.push(format!("{section}.{}.{c}", r.name));
                    }
                    format!(
                        "{:>10}",
                        format!("{}{}", cell.show(), mark(cell.provenance))
                    )
                })
                .collect();
            let mut flags = Vec::new();
            if r.blocking {
                flags.push("B");
            }
            if r.hindering {
                flags.push("H");
            }
            if r.fortified {
                flags.push("fortified");
            }
            if r.town {
                flags.push("town");
            }
            // 12.2.5: the Sh/DG entry effects, e.g. `line DG*`.
            let enters: Vec<String> = r
                .enters
                .iter()
                .map(|(c, e)| format!("{c} {}{}", e.show(), mark(e.provenance)))
                .collect();
            let flags = if enters.is_empty() {
                flags.join(" ")
            } else {
                format!("{} enters: {}", flags.join(" "), enters.join(", "))
            };
            println!("  {:<14}{cells}  {flags}  ({})", r.name, r.rule);
        }
    };
    rows(
        "Terrain (hex entered; B blocks LOS 14.1.2.2, H Hindering)",
        "terrain",
        t.terrain.values().collect(),
        &mut assumed,
    );
    rows(
        "Hexsides (added, 12.2.1)",
        "hexside",
        t.hexside.values().collect(),
        &mut assumed,
    );
    rows(
        "Slopes by levels changed (added, 12.2.6)",
        "slope",
        t.slope.iter().collect(),
        &mut assumed,
    );
    println!("\nVisibility (14.1.5; 0 = unlimited; a scenario's [clock.visibility] wins)");
    for (k, v) in &t.visibility {
        println!("  {k:<6} {:>3}{}  {}", v.hexes, mark(v.provenance), v.note);
        if v.provenance == crate::provenance::Provenance::Assumed {
            assumed.push(format!("visibility.{k}"));
        }
    }
    println!("\nAssumed cells ({}):", assumed.len());
    for a in &assumed {
        println!("  {a}");
    }
    Ok(())
}
