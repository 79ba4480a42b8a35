//! Conformance cases: a plain-text, DATC-like format for situations, commands, forced dice and
//! expected outcomes, and the runner that checks them (`docs/conformance.md`).
//!
//! A case's commands are written in the same words as the CLI (without `--db`); the runner
//! parses them with the CLI's own parser and builds engine commands with the CLI's own code, so a
//! case exercises exactly what an umpire would run. Owns the case format and its evaluation;
//! must not print (the CLI reports results).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::Parser;
use serde::Serialize;

use crate::cli::{Cli, game_cmd};
use crate::engine::{Event, GameState};
use crate::game::{Game, GameError, NewGame};
use crate::rules::dice::{Dice, Purpose, ScriptedDice};

/// One case as written.
#[derive(Clone, Debug, Default)]
pub struct Case {
    pub file: PathBuf,
    pub line: usize,
    pub name: String,
    pub rules: Vec<String>,
    /// Free text naming the assumed table cells the case rests on, if any.
    pub assumed: Option<String>,
    pub scenario: Option<String>,
    /// An inline miniature scenario (TOML).
    pub scenario_toml: Option<String>,
    pub seed: u64,
    /// Scenario variants in play.
    pub variants: Vec<String>,
    /// Setup commands, run with the seeded dice before the case proper.
    pub given: Vec<Line>,
    pub commands: Vec<Line>,
    pub dice: Vec<Line>,
    pub expect: Vec<Line>,
}

/// A line of a case with its place in the file.
#[derive(Clone, Debug)]
pub struct Line {
    pub line: usize,
    pub text: String,
}

/// A problem reading a case file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{file}:{line}: {message}")]
pub struct FormatError {
    pub file: String,
    pub line: usize,
    pub message: String,
}

/// Outcome of one case.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CaseResult {
    pub file: String,
    pub line: usize,
    pub name: String,
    pub rules: Vec<String>,
    pub passed: bool,
    /// The first difference, for a failing case.
    pub failure: Option<String>,
}

/// Parse every case in a file.
pub fn parse(file: &Path, text: &str) -> Result<Vec<Case>, FormatError> {
    let err = |line: usize, message: String| FormatError {
        file: file.display().to_string(),
        line,
        message,
    };
    let mut cases: Vec<Case> = Vec::new();
    let mut section: Option<String> = None;
    let mut in_toml = false;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        if in_toml {
            if raw.trim() == "end-scenario" {
                in_toml = false;
            } else if let Some(c) = cases.last_mut() {
                let t = c.scenario_toml.get_or_insert_with(String::new);
                t.push_str(raw);
                t.push('\n');
            }
            continue;
        }
        let line = strip_comment(raw);
        if line.trim().is_empty() {
            continue;
        }
        let indented = line.starts_with(' ') || line.starts_with('\t');
        let t = line.trim();
        if !indented {
            let (key, value) = t.split_once(':').ok_or_else(|| {
                err(
                    n,
                    format!("expected `key: value` or an indented item, found `{t}`"),
                )
            })?;
            let value = value.trim();
            if key == "case" {
                cases.push(Case {
                    file: file.to_path_buf(),
                    line: n,
                    name: value.to_string(),
                    seed: 1,
                    ..Case::default()
                });
                section = None;
                continue;
            }
            let c = cases
                .last_mut()
                .ok_or_else(|| err(n, "a case starts with `case: NAME`".into()))?;
            match key {
                "rules" => {
                    c.rules = value
                        .split(',')
                        .map(|r| r.trim().to_string())
                        .filter(|r| !r.is_empty())
                        .collect()
                }
                "assumed" => c.assumed = Some(value.to_string()),
                "scenario" => c.scenario = Some(value.to_string()),
                "scenario-toml" => in_toml = true,
                "variants" => {
                    c.variants = value
                        .split(',')
                        .map(|v| v.trim().to_string())
                        .filter(|v| !v.is_empty())
                        .collect()
                }
                "seed" => {
                    c.seed = value
                        .parse()
                        .map_err(|_| err(n, format!("seed must be a number, not `{value}`")))?
                }
                "given" | "commands" | "dice" | "expect" => {
                    section = Some(key.to_string());
                    if !value.is_empty() {
                        return Err(err(
                            n,
                            format!("put the items of `{key}:` on indented lines below it"),
                        ));
                    }
                }
                other => {
                    return Err(err(
                        n,
                        format!(
                            "unknown key `{other}`; expected case, rules, assumed, scenario, scenario-toml, variants, seed, given, commands, dice, expect"
                        ),
                    ));
                }
            }
        } else {
            let c = cases
                .last_mut()
                .ok_or_else(|| err(n, "a case starts with `case: NAME`".into()))?;
            let item = Line {
                line: n,
                text: t.to_string(),
            };
            match section.as_deref() {
                Some("given") => c.given.push(item),
                Some("commands") => c.commands.push(item),
                Some("dice") => c.dice.push(item),
                Some("expect") => c.expect.push(item),
                _ => {
                    return Err(err(
                        n,
                        "an indented line must follow given:, commands:, dice: or expect:".into(),
                    ));
                }
            }
        }
    }
    if in_toml {
        return Err(err(
            text.lines().count(),
            "`scenario-toml:` is not closed by `end-scenario`".into(),
        ));
    }
    Ok(cases)
}

fn strip_comment(line: &str) -> String {
    // A `#` outside quotes starts a comment.
    let mut out = String::new();
    let mut quote = None;
    for ch in line.chars() {
        match (quote, ch) {
            (None, '#') => break,
            (None, '"' | '\'') => quote = Some(ch),
            (Some(q), c) if c == q => quote = None,
            _ => {}
        }
        out.push(ch);
    }
    out.trim_end().to_string()
}

/// Split a command line into words, honouring double and single quotes.
pub fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut has = false;
    let mut chars = line.chars();
    while let Some(ch) = chars.next() {
        match (quote, ch) {
            (None, c) if c.is_whitespace() => {
                if has {
                    words.push(std::mem::take(&mut cur));
                    has = false;
                }
            }
            (None, '"' | '\'') => {
                quote = Some(ch);
                has = true;
            }
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            (_, c) => {
                cur.push(c);
                has = true;
            }
        }
    }
    if quote.is_some() {
        return Err("unclosed quote".into());
    }
    if has {
        words.push(cur);
    }
    Ok(words)
}

/// Parse the dice section into scripted dice.
fn scripted_dice(case: &Case) -> Result<ScriptedDice, String> {
    let mut dice = ScriptedDice::new();
    for l in &case.dice {
        let (head, values) = l
            .text
            .split_once(':')
            .ok_or_else(|| format!("line {}: write dice as `[PURPOSE] KIND: VALUES`", l.line))?;
        let mut words: Vec<&str> = head.split_whitespace().collect();
        let kind = words
            .pop()
            .ok_or_else(|| format!("line {}: missing dice kind (d6, 2d6, 11..66)", l.line))?;
        let purpose = match words.as_slice() {
            [] => None,
            [p] => Some(purpose(p).ok_or_else(|| {
                format!(
                    "line {}: unknown purpose `{p}`; use one of {}",
                    l.line,
                    purposes()
                )
            })?),
            _ => {
                return Err(format!(
                    "line {}: expected `[PURPOSE] KIND: VALUES`",
                    l.line
                ));
            }
        };
        let mut vals = Vec::new();
        for v in values.split_whitespace() {
            let bad = || format!("line {}: `{v}` is not a {kind} result", l.line);
            match kind {
                "11..66" => {
                    let n: u8 = v.parse().map_err(|_| bad())?;
                    let (t, u) = (n / 10, n % 10);
                    if !(1..=6).contains(&t) || !(1..=6).contains(&u) {
                        return Err(bad());
                    }
                    vals.extend([t, u]);
                }
                "2d6" => {
                    let (a, b) = v.split_once('+').ok_or_else(|| {
                        format!("line {}: write 2d6 as two dice, e.g. 3+4", l.line)
                    })?;
                    for x in [a, b] {
                        let d: u8 = x.parse().map_err(|_| bad())?;
                        if !(1..=6).contains(&d) {
                            return Err(bad());
                        }
                        vals.push(d);
                    }
                }
                k if k.starts_with('d') => {
                    let sides: u8 = k[1..]
                        .parse()
                        .map_err(|_| format!("line {}: unknown dice kind `{k}`", l.line))?;
                    let d: u8 = v.parse().map_err(|_| bad())?;
                    if d == 0 || d > sides {
                        return Err(bad());
                    }
                    vals.push(d);
                }
                k => {
                    return Err(format!(
                        "line {}: unknown dice kind `{k}`; use d6, 2d6 or 11..66",
                        l.line
                    ));
                }
            }
        }
        match purpose {
            Some(p) => dice.push(p, vals),
            None => dice.push_any(vals),
        }
    }
    Ok(dice)
}

fn purpose(name: &str) -> Option<Purpose> {
    Purpose::ALL.into_iter().find(|p| {
        serde_json::to_value(p)
            .ok()
            .and_then(|v| v.as_str().map(|s| s == name))
            == Some(true)
    })
}

fn purposes() -> String {
    Purpose::ALL
        .iter()
        .filter_map(|p| {
            serde_json::to_value(p)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Load the case's scenario and start a game in memory.
fn start_game(case: &Case) -> Result<Game, String> {
    let (text, scenario) = if let Some(toml) = &case.scenario_toml {
        let s = crate::scenario::parse("(inline scenario)", toml)
            .map_err(|e| format!("inline scenario: {e}"))?;
        (toml.clone(), s)
    } else {
        // A path relative to the case file, or a bundled scenario's name.
        let name = case.scenario.as_deref().unwrap_or("tutorial-hall");
        let path = case
            .file
            .parent()
            .map(|d| d.join(name))
            .filter(|p| p.exists())
            .unwrap_or_else(|| PathBuf::from(name));
        let (_, text, s) =
            crate::scenario::source(&path).map_err(|e| format!("scenario `{name}`: {e}"))?;
        (text, s)
    };
    let mut new = NewGame::on(text, scenario, case.seed)
        .map_err(|(id, m)| format!("pre-set order {id}: {m}"))?;
    new.variants.clone_from(&case.variants);
    Game::in_memory(new).map_err(|e| e.to_string())
}

/// What a command line is expected to do.
enum Outcome {
    Ok,
    Refused(String),
    OrderError(String),
}

fn split_outcome(text: &str) -> Result<(&str, Outcome), String> {
    match text.rsplit_once("=>") {
        None => Ok((text.trim(), Outcome::Ok)),
        Some((cmd, exp)) => {
            let w: Vec<&str> = exp.split_whitespace().collect();
            match w.as_slice() {
                ["refused", code] => Ok((cmd.trim(), Outcome::Refused(code.to_string()))),
                ["order-error", code] => Ok((cmd.trim(), Outcome::OrderError(code.to_string()))),
                ["ok"] => Ok((cmd.trim(), Outcome::Ok)),
                _ => Err(format!(
                    "after `=>` write `refused CODE`, `order-error CODE` or `ok`, not `{}`",
                    exp.trim()
                )),
            }
        }
    }
}

/// Run one command line of a case.
fn run_line(
    game: &mut Game,
    line: &Line,
    dice: &mut dyn Dice,
    events: &mut Vec<Event>,
) -> Result<(), String> {
    let (cmd_text, outcome) =
        split_outcome(&line.text).map_err(|e| format!("line {}: {e}", line.line))?;
    let mut words = vec!["staffwork".to_string()];
    words.extend(split_words(cmd_text).map_err(|e| format!("line {}: {e}", line.line))?);
    words.extend(["--db".to_string(), ":memory:".to_string()]);
    let cli = Cli::try_parse_from(&words).map_err(|e| {
        let first = e.to_string().lines().next().unwrap_or_default().to_string();
        format!(
            "line {}: `{cmd_text}` is not a game command: {first}",
            line.line
        )
    })?;
    let built = game_cmd::build(game, &cli.command)
        .ok_or_else(|| format!("line {}: `{cmd_text}` is not a game command", line.line))?;
    let (actor, cmd) = match (built, &outcome) {
        (Ok(x), _) => x,
        (Err(game_cmd::BuildError::Order(checked)), Outcome::OrderError(code)) => {
            let codes: Vec<&str> = checked
                .diagnostics
                .iter()
                .filter(|d| d.severity == crate::order::Severity::Error)
                .map(|d| d.code)
                .collect();
            return if codes.contains(&code.as_str()) {
                Ok(())
            } else {
                Err(format!(
                    "line {}: expected order error `{code}`, the order language gave {codes:?}",
                    line.line
                ))
            };
        }
        (Err(game_cmd::BuildError::Order(checked)), _) => {
            let msgs: Vec<String> = checked
                .diagnostics
                .iter()
                .filter(|d| d.severity == crate::order::Severity::Error)
                .map(|d| format!("{}: {}", d.code, d.message))
                .collect();
            return Err(format!(
                "line {}: the order has errors: {}",
                line.line,
                msgs.join("; ")
            ));
        }
        (Err(game_cmd::BuildError::Usage(m)), _) => return Err(format!("line {}: {m}", line.line)),
    };
    // `turn --until-turn N` / `--until-end` repeat the advance, each step recorded on its own.
    if let crate::cli::Command::Turn(t) = &cli.command
        && matches!(outcome, Outcome::Ok)
    {
        let evs = game
            .advance(t.until(), Some(dice))
            .map_err(|e| format!("line {}: {e}", line.line))?;
        events.extend(evs);
        return Ok(());
    }
    match (game.execute_with(&actor, &cmd, dice), outcome) {
        (Ok(evs), Outcome::Ok) => {
            events.extend(evs);
            Ok(())
        }
        (Ok(_), Outcome::Refused(code)) => Err(format!(
            "line {}: expected refusal `{code}`, the command was accepted",
            line.line
        )),
        (Ok(_), Outcome::OrderError(code)) => Err(format!(
            "line {}: expected order error `{code}`, the order was accepted",
            line.line
        )),
        (Err(GameError::Refused(r)), Outcome::Refused(code)) if r.code == code => Ok(()),
        (Err(GameError::Refused(r)), Outcome::Refused(code)) => Err(format!(
            "line {}: expected refusal `{code}`, got `{}`: {}",
            line.line, r.code, r.message
        )),
        (Err(GameError::Refused(r)), _) => Err(format!(
            "line {}: refused [{}]: {}",
            line.line, r.code, r.message
        )),
        (Err(e), _) => Err(format!("line {}: {e}", line.line)),
    }
}

/// Run one case.
pub fn run_case(case: &Case) -> CaseResult {
    let failure = run_case_inner(case).err();
    CaseResult {
        file: case.file.display().to_string(),
        line: case.line,
        name: case.name.clone(),
        rules: case.rules.clone(),
        passed: failure.is_none(),
        failure,
    }
}

fn run_case_inner(case: &Case) -> Result<(), String> {
    let mut game = start_game(case)?;
    let mut setup_events = Vec::new();
    for l in &case.given {
        let seed = case.seed;
        let mut dice = crate::rules::dice::SeededDice::at(seed, game.state.dice.clone());
        run_line(&mut game, l, &mut dice, &mut setup_events).map_err(|e| format!("given: {e}"))?;
    }
    let mut dice = scripted_dice(case)?;
    let mut events = Vec::new();
    for l in &case.commands {
        run_line(&mut game, l, &mut dice, &mut events)?;
    }
    let unused = dice.unused();
    if !unused.is_empty() {
        let list: Vec<String> = unused
            .iter()
            .map(|(p, v)| {
                format!(
                    "{} {:?}",
                    p.map_or("any".to_string(), |p| format!("{p:?}")),
                    v
                )
            })
            .collect();
        return Err(format!("dice given but not used: {}", list.join(", ")));
    }
    for e in &case.expect {
        match check_sight(&game, e) {
            Some(r) => r?,
            None => check_expectation(&game.state, &events, e)?,
        }
    }
    Ok(())
}

/// `sees SIDE PIECE yes|no`: does the side see the piece on the map now (4.0, 14.1)? `None` for
/// any other expectation.
fn check_sight(game: &Game, l: &Line) -> Option<Result<(), String>> {
    let w: Vec<&str> = l.text.split_whitespace().collect();
    let ["sees", side, piece, want] = w.as_slice() else {
        return None;
    };
    let seen = crate::game::visible_positions(
        &game.state,
        &game.scenario,
        &crate::game::Viewer::Side(side.to_string()),
    )
    .contains_key(*piece);
    let got = yes_no(seen);
    Some(if got == *want {
        Ok(())
    } else {
        Err(format!(
            "line {}: {side} sees {piece}: expected {want}, got {got}",
            l.line
        ))
    })
}

fn kebab<T: Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    }
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

/// Compare one `expect:` line with the final state and the case's events.
fn check_expectation(state: &GameState, events: &[Event], l: &Line) -> Result<(), String> {
    let w: Vec<String> = split_words(&l.text).map_err(|e| format!("line {}: {e}", l.line))?;
    let w: Vec<&str> = w.iter().map(String::as_str).collect();
    let mismatch = |what: &str, expected: &str, actual: &str| {
        Err(format!(
            "line {}: {what}: expected {expected}, got {actual}",
            l.line
        ))
    };
    match w.as_slice() {
        ["order", n, field, rest @ ..] => {
            let n: u32 = n
                .parse()
                .map_err(|_| format!("line {}: `{n}` is not an order number", l.line))?;
            let o = state
                .orders
                .get(&n)
                .ok_or_else(|| format!("line {}: there is no order {n}", l.line))?;
            let want = rest.join(" ");
            let got = match *field {
                "status" => o.status.label(),
                "arrival-turn" => o.arrival_turn.to_string(),
                "sent-turn" => o.sent_turn.to_string(),
                "cost" => o.cost.to_string(),
                "type" => kebab(&o.order_type),
                "recipient" => o.recipient.clone(),
                "origin" => kebab(&o.origin),
                f => {
                    return Err(format!(
                        "line {}: unknown order field `{f}`; use status, arrival-turn, sent-turn, cost, type, recipient, origin",
                        l.line
                    ));
                }
            };
            if got == want {
                Ok(())
            } else {
                mismatch(&format!("order {n} {field}"), &want, &got)
            }
        }
        ["command", id, field, rest @ ..] => {
            let c = state
                .commands
                .get(*id)
                .ok_or_else(|| format!("line {}: there is no command `{id}`", l.line))?;
            let want = rest.join(" ");
            let got = match *field {
                "status" => kebab(&c.status),
                "wrecked" => yes_no(c.wrecked).into(),
                "independent" => yes_no(c.independent).into(),
                "distortion-unnoticed" => yes_no(c.distortion_unnoticed).into(),
                "commander-lost" => yes_no(c.commander_lost).into(),
                "order" => c.current_order.map_or("none".into(), |n| n.to_string()),
                "stage" => (c.stage + 1).to_string(),
                "loan" => c.loan.map_or("none".into(), |x| kebab(&x)),
                f => {
                    return Err(format!(
                        "line {}: unknown command field `{f}`; use status, wrecked, independent, distortion-unnoticed, commander-lost, order, stage, loan",
                        l.line
                    ));
                }
            };
            if got == want {
                Ok(())
            } else {
                mismatch(&format!("command {id} {field}"), &want, &got)
            }
        }
        ["command-points", side, n] => {
            let got = state
                .sides
                .get(*side)
                .map_or("no such side".into(), |s| s.command_points.to_string());
            if got == *n {
                Ok(())
            } else {
                mismatch(&format!("command points of {side}"), n, &got)
            }
        }
        ["turn", n] => {
            let got = state.turn.to_string();
            if got == *n {
                Ok(())
            } else {
                mismatch("turn", n, &got)
            }
        }
        ["step", s] => {
            let got = kebab(&state.step);
            if got == *s {
                Ok(())
            } else {
                mismatch("step", s, &got)
            }
        }
        ["phasing", s] => {
            let got = state.phasing().to_string();
            if got == *s {
                Ok(())
            } else {
                mismatch("phasing side", s, &got)
            }
        }
        ["position", piece, hex] => {
            let got = state
                .positions
                .get(*piece)
                .map_or("off-map".into(), |h| h.to_string());
            if got == *hex {
                Ok(())
            } else {
                mismatch(&format!("position of {piece}"), hex, &got)
            }
        }
        [neg @ ("event" | "no-event"), kind, fields @ ..] => {
            let mut want: BTreeMap<&str, &str> = BTreeMap::new();
            for f in fields {
                let (k, v) = f.split_once('=').ok_or_else(|| {
                    format!(
                        "line {}: write event fields as key=value, not `{f}`",
                        l.line
                    )
                })?;
                want.insert(k, v);
            }
            let matching = events.iter().filter(|e| e.kind_name() == *kind).any(|e| {
                let v = serde_json::to_value(e).unwrap_or_default();
                want.iter().all(|(k, val)| match k.strip_suffix('~') {
                    // `key~=value`: the array holds the value, or the text contains it.
                    Some(k) => field(&v, k).is_some_and(|x| match x {
                        serde_json::Value::Array(items) => items.iter().any(|i| scalar(i) == *val),
                        other => scalar(other).contains(val),
                    }),
                    None => field(&v, k).is_some_and(|x| scalar(x) == *val),
                })
            });
            match (*neg, matching) {
                ("event", true) | ("no-event", false) => Ok(()),
                ("event", false) => {
                    let seen: Vec<String> = events
                        .iter()
                        .filter(|e| e.kind_name() == *kind)
                        .map(|e| serde_json::to_string(&e.kind).unwrap_or_default())
                        .collect();
                    Err(format!(
                        "line {}: no `{kind}` event with {:?}; {} `{kind}` event(s) seen{}",
                        l.line,
                        want,
                        seen.len(),
                        if seen.is_empty() {
                            String::new()
                        } else {
                            format!(": {}", seen.join(" | "))
                        }
                    ))
                }
                _ => Err(format!(
                    "line {}: a `{kind}` event with {want:?} appeared but should not",
                    l.line
                )),
            }
        }
        _ => Err(format!(
            "line {}: cannot read expectation `{}`; see docs/conformance.md for the forms",
            l.line, l.text
        )),
    }
}

/// A field of an event by a dotted path (`order.recipient`); a number picks an element of an
/// array (`readback.checks.0.roll`).
fn field<'v>(v: &'v serde_json::Value, path: &str) -> Option<&'v serde_json::Value> {
    path.split('.').try_fold(v, |cur, k| match cur {
        serde_json::Value::Array(items) => k.parse::<usize>().ok().and_then(|i| items.get(i)),
        _ => cur.get(k),
    })
}

fn scalar(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Case files under the given paths (files, or folders searched for `*.case`), sorted.
pub fn collect(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut stack = vec![p.clone()];
            while let Some(d) = stack.pop() {
                let entries = std::fs::read_dir(&d)
                    .map_err(|e| format!("cannot read {}: {e}", d.display()))?;
                for e in entries.flatten() {
                    let path = e.path();
                    if path.is_dir() {
                        stack.push(path);
                    } else if path.extension().is_some_and(|x| x == "case") {
                        out.push(path);
                    }
                }
            }
        } else if p.exists() {
            out.push(p.clone());
        } else {
            return Err(format!("no such file or folder: {}", p.display()));
        }
    }
    out.sort();
    Ok(out)
}

/// Run every case in the files; format errors are failures of their own.
pub fn run_files(files: &[PathBuf]) -> Vec<CaseResult> {
    let mut results = Vec::new();
    for f in files {
        let text = match std::fs::read_to_string(f) {
            Ok(t) => t,
            Err(e) => {
                results.push(CaseResult {
                    file: f.display().to_string(),
                    line: 0,
                    name: "(file)".into(),
                    rules: vec![],
                    passed: false,
                    failure: Some(e.to_string()),
                });
                continue;
            }
        };
        match parse(f, &text) {
            Ok(cases) => results.extend(cases.iter().map(run_case)),
            Err(e) => results.push(CaseResult {
                file: e.file.clone(),
                line: e.line,
                name: "(format)".into(),
                rules: vec![],
                passed: false,
                failure: Some(e.message),
            }),
        }
    }
    results
}
