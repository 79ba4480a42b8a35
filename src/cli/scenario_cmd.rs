//! `staffwork scenario check|show`: validate and print scenario files.
//!
//! Both accept a path or, when no such file exists, the name of a bundled scenario
//! (`tutorial-hall`, `vimeiro-1808`). `show` prints a readable summary — clock, sides and
//! command points (6.4.1), the order-of-battle tree (6.1), map, gazetteer, pre-set orders
//! (6.2.2), reinforcements (12.6), victory, special rules, variants — and ends with every value
//! that is our assumption. `--format json` prints the scenario itself plus `summary` and
//! `assumed` keys.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Subcommand;

use super::{CmdResult, Failure, Format};
use crate::provenance::Provenance;
use crate::scenario::{self, Formation, Scenario, Unit, UnitKind};

#[derive(Subcommand, Debug)]
pub enum ScenarioCmd {
    /// Validate a scenario file; every problem is reported with file, line and field.
    Check {
        /// The scenario file (TOML), or a bundled scenario name (`vimeiro-1808`).
        file: PathBuf,
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// Print a scenario: clock, sides, order of battle, map, places, pre-set orders,
    /// reinforcements, victory, special rules, variants and every assumed value.
    Show {
        /// The scenario file (TOML), or a bundled scenario name (`tutorial-hall`, `vimeiro-1808`).
        file: PathBuf,
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
}

pub fn run(cmd: ScenarioCmd) -> CmdResult {
    match cmd {
        ScenarioCmd::Check { file, format } => match scenario::load_or_bundled(&file) {
            Ok((origin, s)) => {
                if format == Format::Json {
                    super::emit_json(
                        &serde_json::json!({"file": origin, "valid": true, "id": s.meta.id, "problems": []}),
                    )
                } else {
                    println!("{origin}: ok ({})", s.meta.title);
                    Ok(())
                }
            }
            Err(scenario::ScenarioError::Invalid(problems)) => {
                report_problems(&file, format, &problems)
            }
            Err(e) => Err(Failure::Usage(e.to_string())),
        },
        ScenarioCmd::Show { file, format } => match scenario::load_or_bundled(&file) {
            Ok((_, s)) => {
                if format == Format::Json {
                    super::emit_json(&show_json(&s))
                } else {
                    print!("{}", show_text(&s));
                    Ok(())
                }
            }
            Err(scenario::ScenarioError::Invalid(problems)) => {
                report_problems(&file, format, &problems)
            }
            Err(e) => Err(Failure::Usage(e.to_string())),
        },
    }
}

fn report_problems(
    file: &std::path::Path,
    format: Format,
    problems: &[scenario::Problem],
) -> CmdResult {
    if format == Format::Json {
        super::emit_json(&serde_json::json!({"file": file, "valid": false, "problems": problems}))?;
    } else {
        for p in problems {
            println!("{p}");
        }
        println!("{} problem(s) in {}", problems.len(), file.display());
    }
    Err(Failure::Judged)
}

/// Command Points per turn by the army commander's rating (6.4.1), from the bundled tables.
fn command_points(rating: u8) -> Option<u8> {
    (rating <= 4).then(|| crate::rules::tables::CommandTables::nbs().command_points(rating))
}

fn json_summary(s: &Scenario) -> serde_json::Value {
    let turns = s.clock.turns();
    let sides: Vec<serde_json::Value> = s
        .sides
        .iter()
        .map(|side| {
            let k = s.army_commander(&side.id);
            serde_json::json!({
                "id": side.id,
                "army": side.army,
                "army_commander": k.map(|k| k.id.clone()),
                "rating": k.map(|k| k.rating),
                "command_points": k.and_then(|k| command_points(k.rating)),
            })
        })
        .collect();
    serde_json::json!({ "turns": turns.len(), "sides": sides })
}

fn show_json(s: &Scenario) -> serde_json::Value {
    let mut v = serde_json::to_value(s).unwrap_or(serde_json::Value::Null);
    let assumed: Vec<serde_json::Value> = scenario::assumed_values(s)
        .iter()
        .map(|a| {
            serde_json::json!({"entity": a.entity, "field": a.field, "value": a.value, "text": a.to_string()})
        })
        .collect();
    if let serde_json::Value::Object(m) = &mut v {
        m.insert("summary".into(), json_summary(s));
        m.insert("assumed".into(), serde_json::Value::Array(assumed));
    }
    v
}

fn star(assumed: &[String], field: &str) -> &'static str {
    if assumed.iter().any(|a| a == field) {
        "*"
    } else {
        ""
    }
}

fn kind_text(k: UnitKind) -> &'static str {
    match k {
        UnitKind::Infantry => "infantry",
        UnitKind::CavalryLight => "light cavalry",
        UnitKind::CavalryHeavy => "heavy cavalry",
        UnitKind::CavalryLancer => "lancers",
        UnitKind::ArtilleryLightFoot => "light foot artillery",
        UnitKind::ArtilleryHeavyFoot => "heavy foot artillery",
        UnitKind::ArtilleryLightHorse => "light horse artillery",
        UnitKind::ArtilleryHeavyHorse => "heavy horse artillery",
        UnitKind::Skirmisher => "skirmisher",
        UnitKind::Train => "train",
    }
}

fn hhmm(t: chrono::NaiveDateTime) -> String {
    t.format("%H:%M").to_string()
}

fn commander_text(s: &Scenario, id: &str) -> String {
    match s.commander(id) {
        Some(k) => format!(
            "{} (rating {}{}{})",
            k.name,
            k.rating,
            star(&k.assumed, "rating"),
            if k.fighter {
                format!(", Fighter{}", star(&k.assumed, "fighter"))
            } else {
                String::new()
            }
        ),
        None => format!("`{id}` (unknown)"),
    }
}

fn where_text(s: &Scenario, id: &str, position: Option<&scenario::Position>) -> String {
    if let Some(p) = position {
        return format!("at {p}");
    }
    match s.arrival_of(id) {
        Some(r) => {
            let mut t = format!("arrives {} at {} ({})", hhmm(r.time), r.entry, r.id);
            if let Some(v) = &r.variant {
                let _ = write!(t, " with variant {v}");
            }
            t
        }
        None => "off map".into(),
    }
}

fn unit_line(out: &mut String, s: &Scenario, u: &Unit, indent: usize, note: &str) {
    let size = if u.kind.is_artillery() {
        format!(
            "{} GP{}",
            u.gun_points.unwrap_or(5),
            if u.gun_points.is_none() {
                " (default, 3.3(7))"
            } else {
                star(&u.assumed, "gun_points")
            }
        )
    } else if let Some(st) = u.strength {
        format!("strength {st:?}{}", star(&u.assumed, "strength"))
    } else {
        String::new()
    };
    let morale = u
        .morale
        .map(|m| format!(", morale {m:?}{}", star(&u.assumed, "morale")))
        .unwrap_or_default();
    let short = u.short.as_deref().unwrap_or(&u.id);
    let _ = write!(
        out,
        "{:indent$}- {short}: {} — {}{}{size}{morale}, {}",
        "",
        u.name,
        kind_text(u.kind),
        if size.is_empty() { "" } else { ", " },
        where_text(s, &u.id, u.position.as_ref()),
    );
    if u.independent {
        out.push_str(" [independent, 6.8]");
    }
    if u.borrowed {
        out.push_str(" [on loan to the army commander, T2.4]");
    }
    if let Some(l) = &u.losses {
        let _ = write!(out, " [losses {}, 7.1]", l.0.trim());
    }
    if !note.is_empty() {
        let _ = write!(out, " [{note}]");
    }
    if !u.regiments.is_empty() {
        let _ = write!(out, "\n{:indent$}    ({})", "", u.regiments.join(", "));
    }
    out.push('\n');
}

fn formation_tree(out: &mut String, s: &Scenario, f: &Formation, indent: usize, depth: usize) {
    let short = f
        .short
        .as_deref()
        .map(|x| format!(" [{x}]"))
        .unwrap_or_default();
    let _ = write!(out, "{:indent$}{} {}{short}", "", f.echelon, f.name);
    if let Some(k) = &f.commander {
        let _ = write!(out, " — {}", commander_text(s, k));
        if let Some(p) = s.commander(k).and_then(|k| k.position.as_ref()) {
            let _ = write!(out, " at {p}");
        }
    }
    if let Some(h) = &f.hq {
        let _ = write!(out, "; HQ at {h}");
    } else if f.echelon != scenario::Echelon::Division {
        let _ = write!(out, "; HQ {}", where_text(s, &f.id, None));
    }
    if f.temporary {
        out.push_str(" [temporary division, V2.3]");
    }
    if f.independent {
        out.push_str(" [independent, 6.8]");
    }
    if f.borrowed {
        out.push_str(" [on loan to the army commander, T2.4]");
    }
    if let Some(n) = f.wreck_at {
        let _ = write!(out, " [wrecked at {n} wrecked brigades, 21.6.2]");
    }
    if let Some(l) = &f.losses {
        let _ = write!(out, " [losses {}, 7.1]", l.0.trim());
    }
    if f.parent.is_some() && f.hq.is_none() && f.commander.is_some() {
        let pos = f
            .commander
            .as_deref()
            .and_then(|k| s.commander(k))
            .and_then(|k| k.position.as_ref());
        if pos.is_none() {
            let _ = write!(out, "; {}", where_text(s, &f.id, None));
        }
    }
    out.push('\n');
    let inner = indent + 4;
    if !f.succession.is_empty() {
        let _ = writeln!(
            out,
            "{:inner$}succession (25): {}",
            "",
            f.succession.join(" → ")
        );
    }
    if !f.relieved_by.is_empty() {
        let _ = writeln!(
            out,
            "{:inner$}may be relieved by: {}",
            "",
            f.relieved_by.join(", ")
        );
    }
    // Units: own units not attached to a temporary division, then temporary members.
    for u in s.child_units(&f.id) {
        match s.temporary_division_of(&u.id) {
            Some(t) if t.id != f.id => {}
            _ => unit_line(out, s, u, inner, ""),
        }
    }
    for m in &f.members {
        if let Some(u) = s.unit(m)
            && u.parent != f.id
        {
            unit_line(
                out,
                s,
                u,
                inner,
                &format!("member; OOB parent {}", u.parent),
            );
        }
    }
    if depth < 16 {
        for child in s.child_formations(&f.id) {
            if child.id != f.id {
                formation_tree(out, s, child, inner, depth + 1);
            }
        }
    }
}

fn show_text(s: &Scenario) -> String {
    let mut o = String::new();
    let m = &s.meta;
    let _ = writeln!(o, "{}  [{}]", m.title, m.id);
    let _ = writeln!(o, "  date {} · ruleset {}", m.date, m.ruleset);
    if !m.description.is_empty() {
        let _ = writeln!(o, "  {}", m.description.trim());
    }
    if !m.sources.is_empty() {
        let _ = writeln!(o, "\nSources");
        for x in &m.sources {
            let _ = writeln!(o, "  - {x}");
        }
    }
    if !m.approximations.is_empty() {
        let _ = writeln!(o, "\nApproximations");
        for x in &m.approximations {
            let _ = writeln!(o, "  - {x}");
        }
    }

    // Clock.
    let turns = s.clock.turns();
    let count = |l: scenario::clock::Light| turns.iter().filter(|t| t.light == l).count();
    let _ = writeln!(o, "\nClock (3.1, 27.1.1)");
    let _ = writeln!(
        o,
        "  first turn {}, last turn {}: {} turns ({} day, {} dawn, {} dusk, {} night)",
        s.clock.first_turn.format("%Y-%m-%d %H:%M"),
        s.clock.last_turn.format("%Y-%m-%d %H:%M"),
        turns.len(),
        count(scenario::clock::Light::Day),
        count(scenario::clock::Light::Dawn),
        count(scenario::clock::Light::Dusk),
        count(scenario::clock::Light::Night),
    );
    let _ = writeln!(o, "  first player: {}", s.clock.first_player);
    match (s.clock.night_starts, s.clock.night_ends) {
        (Some(a), Some(b)) => {
            let _ = writeln!(
                o,
                "  night {}–{} (60-minute turns)",
                a.format("%H:%M"),
                b.format("%H:%M")
            );
        }
        _ => {
            let _ = writeln!(o, "  night: none set (all turns 30 minutes)");
        }
    }
    let times = |v: &[chrono::NaiveTime]| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.iter()
                .map(|t| t.format("%H:%M").to_string())
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    let _ = writeln!(
        o,
        "  dawn: {}; dusk: {}",
        times(&s.clock.dawn),
        times(&s.clock.dusk)
    );

    // Sides.
    let _ = writeln!(o, "\nSides (command points per turn, 6.4.1)");
    for side in &s.sides {
        let k = s.army_commander(&side.id);
        let _ = writeln!(
            o,
            "  {} — {}: army {}, commander {}, {} CP/turn",
            side.id,
            side.name,
            side.army,
            k.map_or("none".to_string(), |k| commander_text(s, &k.id)),
            k.and_then(|k| command_points(k.rating))
                .map_or("?".to_string(), |c| c.to_string()),
        );
    }

    // Order of battle.
    for side in &s.sides {
        let _ = writeln!(o, "\nOrder of battle: {} (6.1)", side.name);
        if let Some(army) = s.formation(&side.army) {
            formation_tree(&mut o, s, army, 2, 0);
        }
        let loose: Vec<_> = s
            .commanders
            .iter()
            .filter(|k| k.side == side.id && s.formation_of_commander(&k.id).is_none())
            .collect();
        if !loose.is_empty() {
            let _ = writeln!(o, "  commanders without a formation at the start:");
            for k in loose {
                let mut roles = Vec::new();
                if let Some(b) = &k.brigade {
                    roles.push(format!("leads brigade {b}"));
                }
                for f in &s.formations {
                    if f.succession.contains(&k.id) {
                        roles.push(format!("succession of {}", f.id));
                    }
                    if f.relieved_by.contains(&k.id) {
                        roles.push(format!("may relieve the commander of {}", f.id));
                    }
                }
                let _ = writeln!(
                    o,
                    "    - {} — {}; {}",
                    commander_text(s, &k.id),
                    roles.join("; "),
                    where_text(s, &k.id, k.position.as_ref())
                );
            }
        }
    }

    // Map.
    let map = &s.map;
    let (w, h) = map.size();
    let _ = writeln!(o, "\nMap (2.1)");
    let _ = writeln!(
        o,
        "  columns {}–{}, rows {}–{} ({w} × {h} hexes); provenance {}",
        map.first_col, map.last_col, map.first_row, map.last_row, map.provenance
    );
    let max_elev = map
        .elevation
        .chars()
        .filter_map(|c| c.to_digit(10))
        .max()
        .unwrap_or(0);
    let _ = writeln!(o, "  elevation levels 0–{max_elev}");
    let _ = writeln!(o, "  legend (commander cost, 6.4.7):");
    for (ch, name) in &map.legend {
        let n = map.terrain.chars().filter(|c| c.to_string() == *ch).count();
        let cost = s
            .commander_costs
            .terrain
            .get(name)
            .map(|c| format!("{} ({})", mp_text(c.mp), c.provenance))
            .unwrap_or_else(|| "no cost".into());
        let _ = writeln!(o, "    {ch} {name}: {n} hexes, {cost}");
    }
    let road = &s.commander_costs.road;
    let _ = writeln!(
        o,
        "    road: {} ({}); commander allowance {} MP",
        mp_text(road.mp),
        road.provenance,
        s.commander_costs.allowance
    );
    for n in &map.notes {
        let _ = writeln!(o, "  note: {n}");
    }

    // Places.
    if !s.places.is_empty() {
        let _ = writeln!(o, "\nPlaces");
        for p in &s.places {
            let mut loc = if !p.hexsides.is_empty() {
                format!("{} hexsides", p.hexsides.len())
            } else if p.hexes.len() > 8 {
                format!(
                    "{} hexes, {} … {}",
                    p.hexes.len(),
                    p.hexes[0],
                    p.hexes[p.hexes.len() - 1]
                )
            } else {
                p.hexes
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            if !p.hexsides.is_empty() && p.hexsides.len() <= 3 {
                loc = p
                    .hexsides
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ");
            }
            let prov = if p.provenance == Provenance::Seed {
                String::new()
            } else {
                format!(" [{}]", p.provenance)
            };
            let _ = writeln!(
                o,
                "  {} — {} ({}): {loc}{prov}",
                p.id,
                p.name,
                serde_name(&p.kind)
            );
            if !p.aliases.is_empty() {
                let _ = writeln!(o, "      aliases: {}", p.aliases.join("; "));
            }
        }
    }

    // Pre-set orders.
    if !s.preset_orders.is_empty() {
        let _ = writeln!(o, "\nPre-set orders (6.2.2)");
        for p in &s.preset_orders {
            let status = serde_name(&p.status);
            let _ = writeln!(o, "  {} → {} ({}), {status}", p.id, p.to, p.side);
            let _ = writeln!(o, "      \"{}\"", p.text);
            if !p.source.is_empty() {
                let _ = writeln!(o, "      source: {}", p.source);
            }
        }
    }

    // Reinforcements.
    if !s.reinforcements.is_empty() {
        let _ = writeln!(o, "\nReinforcements (12.6)");
        for r in &s.reinforcements {
            let _ = write!(
                o,
                "  {} {} ({}) at {}: {}",
                hhmm(r.time),
                r.id,
                r.side,
                r.entry,
                r.arrives.join(", ")
            );
            if let Some(c) = &r.condition {
                let _ = write!(
                    o,
                    "; from {} each Command Phase on {}{} (d{})",
                    hhmm(r.time),
                    c.min,
                    if c.min < c.sides { "+" } else { "" },
                    c.sides
                );
            }
            out_line(&mut o);
            if !r.orders.is_empty() {
                let _ = writeln!(o, "      orders: {}", r.orders.join(", "));
            }
            if let Some(v) = &r.variant {
                let _ = writeln!(o, "      only with variant {v}");
            }
            if !r.unless_variants.is_empty() {
                let _ = writeln!(
                    o,
                    "      not with variant(s) {}",
                    r.unless_variants.join(", ")
                );
            }
            if !r.notes.is_empty() {
                let _ = writeln!(o, "      {}", r.notes);
            }
        }
    }

    // Victory.
    let v = &s.victory;
    if !v.conditions.is_empty() || !v.points.is_empty() || !v.levels.is_empty() {
        let _ = writeln!(o, "\nVictory");
        for c in &v.conditions {
            let _ = writeln!(o, "  - {c}");
        }
        for p in &v.points {
            let _ = writeln!(o, "  {:+} VP {}: {}", p.points, p.side, p.for_);
        }
        if !v.levels.is_empty() {
            let names: Vec<&str> = s.sides.iter().map(|x| x.id.as_str()).collect();
            let margin = if names.len() >= 2 {
                format!("{} − {}", names[0], names[1])
            } else {
                "margin".into()
            };
            let _ = writeln!(o, "  levels by {margin}:");
            for l in &v.levels {
                let range = match (l.min, l.max) {
                    (Some(a), Some(b)) if a == b => format!("{a:+}"),
                    (Some(a), Some(b)) => format!("{a:+} to {b:+}"),
                    (Some(a), None) => format!("{a:+} or more"),
                    (None, Some(b)) => format!("{b:+} or less"),
                    (None, None) => "any".into(),
                };
                let _ = writeln!(o, "    {range}: {}", l.result);
            }
        }
    }

    if !s.special_rules.is_empty() {
        let _ = writeln!(o, "\nSpecial rules");
        for r in &s.special_rules {
            let _ = writeln!(o, "  {} {} — {}", r.rule, r.id, r.name);
            if !r.text.is_empty() {
                let _ = writeln!(o, "      {}", r.text);
            }
        }
    }
    if !s.variants.is_empty() {
        let _ = writeln!(o, "\nVariants");
        for x in &s.variants {
            let vp = if x.victory_points.is_empty() {
                String::new()
            } else {
                format!(" ({})", x.victory_points)
            };
            let _ = writeln!(o, "  {} {} — {}{vp}", x.rule, x.id, x.name);
            let _ = writeln!(o, "      {}", x.effect);
        }
    }
    if !s.random_events.is_empty() {
        let _ = writeln!(
            o,
            "\nRandom events game table (29.1 \"Game Table\"; variant random-events)"
        );
        for e in &s.random_events {
            let rolls: Vec<String> = e.roll.iter().map(u8::to_string).collect();
            let how = e.effect.as_deref().map_or_else(
                || "the umpire applies it".to_string(),
                |x| format!("effect {x}"),
            );
            let _ = writeln!(
                o,
                "  {} {}: {} ({how}){}",
                e.side,
                rolls.join(", "),
                e.name,
                star(&e.assumed, "text")
            );
        }
    }

    let assumed = scenario::assumed_values(s);
    let _ = writeln!(
        o,
        "\nAssumed values ({}; * marks them above)",
        assumed.len()
    );
    if assumed.is_empty() {
        let _ = writeln!(o, "  none");
    }
    for a in &assumed {
        let _ = writeln!(o, "  {a}");
    }
    o
}

/// `1 MP`, `½ MP`, `1½ MP`, or `prohibited`.
fn mp_text(mp: Option<scenario::MpCost>) -> String {
    match mp {
        None => "prohibited".into(),
        Some(m) => {
            let (whole, half) = (m.halves() / 2, m.halves() % 2 == 1);
            match (whole, half) {
                (0, true) => "½ MP".into(),
                (w, true) => format!("{w}½ MP"),
                (w, false) => format!("{w} MP"),
            }
        }
    }
}

/// The serde (kebab-case) name of an enum value, as written in the file.
fn serde_name<T: serde::Serialize>(x: &T) -> String {
    serde_json::to_value(x)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn out_line(o: &mut String) {
    o.push('\n');
}
