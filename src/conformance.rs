//! Conformance cases: a plain-text, DATC-like format for situations, commands, forced dice and
//! expected outcomes, and the runner that checks them (`docs/conformance.md`).
//!
//! A case's commands are written in the same words as the CLI (without `--db`); the runner
//! parses them into [`app::Request`]s and executes them through the application layer, as the
//! CLI does, so a case exercises exactly what an umpire would run. Owns the case format and its evaluation;
//! must not print (the CLI reports results).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::app::{self, AppError, Response, split_words};
use crate::engine::{Event, GameState};
use crate::game::{Game, NewGame};
use crate::rules::dice::{Dice, Purpose, ScriptedDice};
use crate::view::Viewer;

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
    /// Refused with this code, or with any code (`=> refused` or `=> refused any`).
    Refused(Option<String>),
    OrderError(String),
}

fn split_outcome(text: &str) -> Result<(&str, Outcome), String> {
    match text.rsplit_once("=>") {
        None => Ok((text.trim(), Outcome::Ok)),
        Some((cmd, exp)) => {
            let w: Vec<&str> = exp.split_whitespace().collect();
            match w.as_slice() {
                ["refused"] | ["refused", "any"] => Ok((cmd.trim(), Outcome::Refused(None))),
                ["refused", code] => Ok((cmd.trim(), Outcome::Refused(Some(code.to_string())))),
                ["order-error", code] => Ok((cmd.trim(), Outcome::OrderError(code.to_string()))),
                ["ok"] => Ok((cmd.trim(), Outcome::Ok)),
                _ => Err(format!(
                    "after `=>` write `refused CODE`, `refused any`, `order-error CODE` or `ok`, not `{}`",
                    exp.trim()
                )),
            }
        }
    }
}

/// Run one command line of a case: parsed into a request and executed by the application
/// layer as the umpire, exactly as the CLI would.
fn run_line(
    game: &mut Game,
    line: &Line,
    dice: &mut dyn Dice,
    events: &mut Vec<Event>,
) -> Result<(), String> {
    let (cmd_text, outcome) =
        split_outcome(&line.text).map_err(|e| format!("line {}: {e}", line.line))?;
    let request = app::parse_request(cmd_text).map_err(|first| {
        format!(
            "line {}: `{cmd_text}` is not a game command: {first}",
            line.line
        )
    })?;
    let result = app::execute_with(game, &Viewer::Umpire, &request, Some(dice));
    match (result, outcome) {
        (Ok(Response::Applied(a)), Outcome::Ok) => {
            events.extend(a.events);
            Ok(())
        }
        (Ok(Response::Applied(_)), Outcome::Refused(code)) => Err(format!(
            "line {}: expected refusal `{}`, the command was accepted",
            line.line,
            code.as_deref().unwrap_or("any")
        )),
        (Ok(Response::Applied(_)), Outcome::OrderError(code)) => Err(format!(
            "line {}: expected order error `{code}`, the order was accepted",
            line.line
        )),
        (Ok(_), _) => Err(format!(
            "line {}: `{cmd_text}` is not a game command",
            line.line
        )),
        (Err(AppError::Order(checked)), Outcome::OrderError(code)) => {
            let codes: Vec<&str> = error_diagnostics(&checked).map(|d| d.code).collect();
            if codes.contains(&code.as_str()) {
                Ok(())
            } else {
                Err(format!(
                    "line {}: expected order error `{code}`, the order language gave {codes:?}",
                    line.line
                ))
            }
        }
        (Err(AppError::Order(checked)), _) => {
            let msgs: Vec<String> = error_diagnostics(&checked)
                .map(|d| format!("{}: {}", d.code, d.message))
                .collect();
            Err(format!(
                "line {}: the order has errors: {}",
                line.line,
                msgs.join("; ")
            ))
        }
        // An unscripted die is a fault of the case, never the refusal it expected.
        (Err(AppError::Refused(r)), _) if r.code == "die-not-given" => Err(format!(
            "line {}: `{cmd_text}` asked for a die the case did not give: {}",
            line.line, r.message
        )),
        (Err(AppError::Refused(_)), Outcome::Refused(None)) => Ok(()),
        (Err(AppError::Refused(r)), Outcome::Refused(Some(code))) if r.code == code => Ok(()),
        (Err(AppError::Refused(r)), Outcome::Refused(Some(code))) => Err(format!(
            "line {}: expected refusal `{code}`, got `{}`: {}",
            line.line, r.code, r.message
        )),
        (Err(AppError::Refused(r)), _) => Err(format!(
            "line {}: refused [{}]: {}",
            line.line, r.code, r.message
        )),
        (Err(e), _) => Err(format!("line {}: {e}", line.line)),
    }
}

fn error_diagnostics(
    checked: &crate::order::CheckedOrder,
) -> impl Iterator<Item = &crate::order::Diagnostic> {
    checked
        .diagnostics
        .iter()
        .filter(|d| d.severity == crate::order::Severity::Error)
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

/// When an `expect:` line is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum When {
    /// After the last command (a line with no prefix).
    End,
    /// `after K:` — right after the K-th line of `commands:` (1-based).
    After(usize),
    /// `at turn N:` — after the last command that leaves the game in turn N (the end of turn N
    /// as far as the case goes).
    AtTurn(u32),
}

/// Split the `after K:` / `at turn N:` prefix off an expectation.
fn split_when(l: &Line) -> Result<(When, &str), String> {
    let t = l.text.trim();
    let bad = |what: &str| format!("line {}: {what}", l.line);
    if let Some(rest) = t.strip_prefix("after ") {
        let (k, tail) = rest
            .split_once(':')
            .ok_or_else(|| bad("write `after K: EXPECTATION` (K: a command's number)"))?;
        let k: usize = k
            .trim()
            .trim_start_matches("command")
            .trim()
            .parse()
            .map_err(|_| {
                bad(&format!(
                    "`after {k}:`: K is the number of a command (1, 2, …)"
                ))
            })?;
        return Ok((When::After(k), tail.trim()));
    }
    if let Some(rest) = t.strip_prefix("at turn ") {
        let (n, tail) = rest
            .split_once(':')
            .ok_or_else(|| bad("write `at turn N: EXPECTATION`"))?;
        let n: u32 = n
            .trim()
            .parse()
            .map_err(|_| bad(&format!("`at turn {n}:`: N is a game turn number")))?;
        return Ok((When::AtTurn(n), tail.trim()));
    }
    Ok((When::End, t))
}

/// What an expectation is checked against: the game at one point and the events up to it.
struct View<'a> {
    /// The game's engine, for what it offers (17.4, 16.5) in `state`.
    engine: crate::engine::Engine<'a>,
    scenario: &'a crate::scenario::Scenario,
    tables: &'a crate::rules::tables::CommandTables,
    state: &'a GameState,
    events: &'a [Event],
}

fn run_case_inner(case: &Case) -> Result<(), String> {
    let mut game = start_game(case)?;
    let mut setup_events = Vec::new();
    for l in &case.given {
        let seed = case.seed;
        let mut dice = crate::rules::dice::SeededDice::at(seed, game.state.dice.clone());
        run_line(&mut game, l, &mut dice, &mut setup_events).map_err(|e| format!("given: {e}"))?;
    }
    let mut expect: Vec<(When, &Line, &str)> = Vec::new();
    for l in &case.expect {
        let (when, text) = split_when(l)?;
        if let When::After(k) = when
            && (k == 0 || k > case.commands.len())
        {
            return Err(format!(
                "line {}: `after {k}:` but the case has {} command(s)",
                l.line,
                case.commands.len()
            ));
        }
        expect.push((when, l, text));
    }
    let mut dice = scripted_dice(case)?;
    let mut events = Vec::new();
    // `at turn N:` expectations wait for the game to leave turn N: the last snapshot in it.
    let mut at_turn: BTreeMap<u32, (GameState, usize)> = BTreeMap::new();
    at_turn.insert(game.state.turn, (game.state.clone(), 0));
    for (i, l) in case.commands.iter().enumerate() {
        run_line(&mut game, l, &mut dice, &mut events)?;
        let k = i + 1;
        let view = View {
            engine: game.engine(),
            scenario: &game.scenario,
            tables: &game.tables,
            state: &game.state,
            events: &events,
        };
        for (_, e, text) in expect.iter().filter(|(w, ..)| *w == When::After(k)) {
            check_expectation(&view, e, text)
                .map_err(|m| format!("after command {k} (`{}`): {m}", l.text))?;
        }
        if expect
            .iter()
            .any(|(w, ..)| *w == When::AtTurn(game.state.turn))
        {
            at_turn.insert(game.state.turn, (game.state.clone(), events.len()));
        }
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
    for (when, e, text) in &expect {
        match when {
            When::End => check_expectation(
                &View {
                    engine: game.engine(),
                    scenario: &game.scenario,
                    tables: &game.tables,
                    state: &game.state,
                    events: &events,
                },
                e,
                text,
            )?,
            When::AtTurn(n) => {
                let (state, upto) = at_turn.get(n).ok_or_else(|| {
                    format!(
                        "line {}: `at turn {n}:` but the game was never in turn {n} (it ran from turn {} to {})",
                        e.line,
                        at_turn.keys().next().copied().unwrap_or_default(),
                        game.state.turn
                    )
                })?;
                let view = View {
                    engine: game.engine(),
                    scenario: &game.scenario,
                    tables: &game.tables,
                    state,
                    events: &events[..*upto],
                };
                check_expectation(&view, e, text)
                    .map_err(|m| format!("at the end of turn {n}: {m}"))?;
            }
            When::After(_) => {}
        }
    }
    Ok(())
}

/// `sees SIDE PIECE yes|no`: does the side see the piece on the map now, by name or as an enemy
/// stack it may not examine (4.0, 14.1)? `examines SIDE PIECE yes|no`: may it name the piece —
/// one of its Commanders within 12 hexes with line of sight (4.0, decision 0161)? `None` for
/// any other expectation.
fn check_sight(view: &View, l: &Line, text: &str) -> Option<Result<(), String>> {
    let w: Vec<&str> = text.split_whitespace().collect();
    let [verb @ ("sees" | "examines"), side, piece, want] = w.as_slice() else {
        return None;
    };
    let sighting =
        crate::view::sighting(view.state, view.scenario, &Viewer::Side(side.to_string()));
    let named = sighting.named.contains_key(*piece);
    let as_stack = view
        .state
        .positions
        .get(*piece)
        .is_some_and(|h| sighting.stacks.contains(h));
    let got = yes_no(if *verb == "sees" {
        named || as_stack
    } else {
        named
    });
    Some(if got == *want {
        Ok(())
    } else {
        Err(format!(
            "line {}: {side} {verb} {piece}: expected {want}, got {got}",
            l.line
        ))
    })
}

/// `opportunity-offered BATTERY TARGET HEX yes|no`: is Opportunity Fire open now from the
/// battery at the unit in that hex, of its path or of a formation change (17.4)? A TARGET
/// `UNIT@HEX` names the unit's Line Extension now in HEX alone (17.4.2, 13.1.1).
/// `reaction-offered CAVALRY TARGET HEX yes|no|check`: is a Reaction Charge open from the cavalry
/// at the unit in that hex (16.5), `check` when it needs the cavalry's Morale Check (16.5.5)?
/// The umpire's pending items, as `status` shows them. `None` for any other expectation.
fn check_offers(view: &View, l: &Line, text: &str) -> Option<Result<(), String>> {
    let w: Vec<&str> = text.split_whitespace().collect();
    let [
        verb @ ("opportunity-offered" | "reaction-offered"),
        by,
        target,
        hex,
        want,
    ] = w.as_slice()
    else {
        return None;
    };
    // `UNIT@HEX`: the unit's Line Extension now in HEX alone (13.1.1, 17.4.2; decision 0211);
    // a bare unit matches the unit and its extensions.
    let (unit, part) = match target.split_once('@') {
        Some((u, h)) => (u, Some(h)),
        None => (*target, None),
    };
    let aimed = |extension: Option<crate::hex::Hex>| {
        part.is_none_or(|h| extension.is_some_and(|x| x.to_string() == h))
    };
    let got = if *verb == "opportunity-offered" {
        let open = view
            .engine
            .opportunity_pending(view.state)
            .into_iter()
            .filter(|o| o.battery == *by && o.target == unit && aimed(o.extension))
            .any(|o| {
                o.hexes
                    .iter()
                    .chain(&o.formation_changes)
                    .any(|z| z.hex.to_string() == *hex)
            });
        yes_no(open)
    } else {
        let found = view
            .engine
            .reaction_pending(view.state)
            .into_iter()
            .filter(|o| o.cavalry == *by && o.target == unit && aimed(o.extension))
            .flat_map(|o| o.hexes.into_iter().chain(o.formation_changes))
            .find(|z| z.hex.to_string() == *hex);
        match found {
            Some(z) if z.morale_check => "check",
            Some(_) => "yes",
            None => "no",
        }
    };
    Some(if got == *want {
        Ok(())
    } else {
        Err(format!(
            "line {}: {verb} {by} {target} {hex}: expected {want}, got {got}",
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

/// What an expectation accepts: a value, one of several, a range or an inequality.
#[derive(Clone, Debug, PartialEq)]
enum Want {
    Is(String),
    OneOf(Vec<String>),
    /// Inclusive range `A..B` of whole numbers.
    In(i64, i64),
    Cmp(&'static str, i64),
    Not(String),
}

impl Want {
    /// Read the words after the field: `V`, `one-of A B …`, `in A..B`, `>= N` (also `<=`, `>`,
    /// `<`, `!= V`).
    fn parse(words: &[&str]) -> Result<Want, String> {
        let num = |w: &str| {
            w.parse::<i64>()
                .map_err(|_| format!("`{w}` is not a whole number"))
        };
        match words {
            ["one-of", rest @ ..] if !rest.is_empty() => {
                Ok(Want::OneOf(rest.iter().map(|w| w.to_string()).collect()))
            }
            ["in", range] => {
                let (a, b) = range
                    .split_once("..")
                    .ok_or_else(|| format!("write a range as A..B, not `{range}`"))?;
                Ok(Want::In(num(a)?, num(b)?))
            }
            ["!=", rest @ ..] if !rest.is_empty() => Ok(Want::Not(rest.join(" "))),
            [op @ (">=" | "<=" | ">" | "<"), n] => {
                let op = match *op {
                    ">=" => ">=",
                    "<=" => "<=",
                    ">" => ">",
                    _ => "<",
                };
                Ok(Want::Cmp(op, num(n)?))
            }
            _ => Ok(Want::Is(words.join(" "))),
        }
    }

    /// Read an event field's value after its operator (`k=v`, `k=a|b`, `k=A..B`, `k>=N` …).
    fn of_field(op: &str, v: &str) -> Result<Want, String> {
        let num = |w: &str| {
            w.parse::<i64>()
                .map_err(|_| format!("`{w}` is not a whole number"))
        };
        Ok(match op {
            "=" => {
                if v.contains('|') {
                    Want::OneOf(v.split('|').map(str::to_string).collect())
                } else if let Some((a, b)) = v.split_once("..")
                    && let (Ok(a), Ok(b)) = (a.parse::<i64>(), b.parse::<i64>())
                {
                    Want::In(a, b)
                } else {
                    Want::Is(v.to_string())
                }
            }
            "!=" => Want::Not(v.to_string()),
            ">=" => Want::Cmp(">=", num(v)?),
            "<=" => Want::Cmp("<=", num(v)?),
            ">" => Want::Cmp(">", num(v)?),
            _ => Want::Cmp("<", num(v)?),
        })
    }

    fn matches(&self, got: &str) -> bool {
        let n = got.parse::<i64>().ok();
        match self {
            Want::Is(v) => got == v,
            Want::OneOf(vs) => vs.iter().any(|v| v == got),
            Want::In(a, b) => n.is_some_and(|n| (*a..=*b).contains(&n)),
            Want::Not(v) => got != v,
            Want::Cmp(op, v) => n.is_some_and(|n| match *op {
                ">=" => n >= *v,
                "<=" => n <= *v,
                ">" => n > *v,
                _ => n < *v,
            }),
        }
    }
}

impl std::fmt::Display for Want {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Want::Is(v) => write!(f, "{v}"),
            Want::OneOf(vs) => write!(f, "one of {}", vs.join(", ")),
            Want::In(a, b) => write!(f, "{a}..{b}"),
            Want::Not(v) => write!(f, "anything but {v}"),
            Want::Cmp(op, v) => write!(f, "{op} {v}"),
        }
    }
}

/// Compare a value with what is wanted.
fn compare(l: &Line, what: &str, want: &[&str], got: &str) -> Result<(), String> {
    let want = Want::parse(want).map_err(|e| format!("line {}: {what}: {e}", l.line))?;
    if want.matches(got) {
        Ok(())
    } else {
        Err(format!(
            "line {}: {what}: expected {want}, got {got}",
            l.line
        ))
    }
}

/// `extension UNIT HEX formation|morale V`: a Line Extension's own formation (Line, or Square,
/// 13.2.1) and Morale State (13.1.2); `none` when the unit has no extension in that hex.
fn check_extension(
    state: &GameState,
    l: &Line,
    piece: &str,
    hex: &str,
    field: &str,
    rest: &[&str],
) -> Result<(), String> {
    let at: crate::hex::Hex = hex
        .parse()
        .map_err(|_| format!("line {}: `{hex}` is not a hex", l.line))?;
    let part = state
        .movement
        .get(piece)
        .and_then(|m| m.extension_parts.iter().find(|p| p.hex == at));
    let got = match (part, field) {
        (None, _) => "none".to_string(),
        (Some(p), "formation") => kebab(&p.formation()),
        (Some(p), _) => kebab(&p.morale),
    };
    compare(
        l,
        &format!("{field} of {piece}'s Line Extension at {hex}"),
        rest,
        &got,
    )
}

/// Compare one `expect:` line (its text without the `after`/`at turn` prefix) with the game.
fn check_expectation(view: &View, l: &Line, text: &str) -> Result<(), String> {
    if let Some(r) = check_sight(view, l, text) {
        return r;
    }
    if let Some(r) = check_offers(view, l, text) {
        return r;
    }
    // `distance(a, b) >= 6` is written as `distance a b >= 6`.
    let text = match text.strip_prefix("distance(") {
        Some(rest) => format!("distance {}", rest.replacen([',', ')'], " ", 2)),
        None => text.to_string(),
    };
    let w: Vec<String> = split_words(&text).map_err(|e| format!("line {}: {e}", l.line))?;
    let w: Vec<&str> = w.iter().map(String::as_str).collect();
    let state = view.state;
    match w.as_slice() {
        ["order", n, field, rest @ ..] => {
            let n: u32 = n
                .parse()
                .map_err(|_| format!("line {}: `{n}` is not an order number", l.line))?;
            let o = state
                .orders
                .get(&n)
                .ok_or_else(|| format!("line {}: there is no order {n}", l.line))?;
            // A status such as `delayed D4` is two words; `one-of` lists single words.
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
            compare(l, &format!("order {n} {field}"), rest, &got)
        }
        ["command", id, field, rest @ ..] => {
            let c = state
                .commands
                .get(*id)
                .ok_or_else(|| format!("line {}: there is no command `{id}`", l.line))?;
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
            compare(l, &format!("command {id} {field}"), rest, &got)
        }
        ["command-points", side, rest @ ..] => {
            let got = state
                .sides
                .get(*side)
                .map_or("no such side".into(), |s| s.command_points.to_string());
            compare(l, &format!("command points of {side}"), rest, &got)
        }
        ["turn", rest @ ..] => compare(l, "turn", rest, &state.turn.to_string()),
        ["step", rest @ ..] => compare(l, "step", rest, &kebab(&state.step)),
        ["phasing", rest @ ..] => compare(l, "phasing side", rest, state.phasing()),
        ["position", piece, rest @ ..] => {
            let got = state
                .positions
                .get(*piece)
                .map_or("off-map".into(), |h| h.to_string());
            compare(l, &format!("position of {piece}"), rest, &got)
        }
        ["formation", piece, rest @ ..] => {
            // 8.0: the formation the game holds for the unit now (its scenario's until changed).
            let got = view.scenario.unit(piece).map_or_else(
                || "no such unit".into(),
                |u| {
                    kebab(&crate::engine::movement::formation_now(
                        view.scenario,
                        state,
                        u,
                    ))
                },
            );
            compare(l, &format!("formation of {piece}"), rest, &got)
        }
        ["morale", piece, rest @ ..] => {
            // 21.1: the unit's Morale State now (a Line Extension's own is `extension`).
            let got = state
                .units
                .get(*piece)
                .map(|u| u.morale)
                .unwrap_or_default();
            compare(l, &format!("Morale State of {piece}"), rest, &kebab(&got))
        }
        [
            "extension",
            piece,
            hex,
            field @ ("formation" | "morale"),
            rest @ ..,
        ] => check_extension(state, l, piece, hex, field, rest),
        ["distance", a, b, rest @ ..] => {
            let at = |p: &str| {
                state
                    .positions
                    .get(p)
                    .copied()
                    .or_else(|| p.parse::<crate::hex::Hex>().ok())
                    .ok_or_else(|| {
                        format!(
                            "line {}: `{p}` is neither a piece on the map nor a hex",
                            l.line
                        )
                    })
            };
            let d = at(a)?.distance(at(b)?);
            compare(
                l,
                &format!("distance from {a} to {b}"),
                rest,
                &d.to_string(),
            )
        }
        ["odds", rest @ ..] => check_odds(view, l, rest),
        [neg @ ("event" | "no-event"), kind, fields @ ..] => {
            check_event(view.events, l, *neg == "no-event", kind, fields)
        }
        _ => Err(format!(
            "line {}: cannot read expectation `{}`; see docs/conformance.md for the forms",
            l.line, l.text
        )),
    }
}

/// `event KIND k=v …` / `no-event KIND …`: some event of that kind (not) having those fields.
fn check_event(
    events: &[Event],
    l: &Line,
    negated: bool,
    kind: &str,
    fields: &[&str],
) -> Result<(), String> {
    let mut want: Vec<(&str, Option<Want>, &str)> = Vec::new();
    for f in fields {
        // The operator: the first of `>=`, `<=`, `!=`, `~=`, `=`, `>`, `<` in the word.
        let at = f.find(['=', '>', '<', '!', '~']).ok_or_else(|| {
            format!(
                "line {}: write event fields as key=value (or key>=N, key=A..B, key=a|b), not `{f}`",
                l.line
            )
        })?;
        let (k, tail) = f.split_at(at);
        let op = [">=", "<=", "!=", "~=", "=", ">", "<"]
            .into_iter()
            .find(|op| tail.starts_with(op))
            .ok_or_else(|| format!("line {}: cannot read the operator in `{f}`", l.line))?;
        let v = &tail[op.len()..];
        let w = if op == "~=" {
            None
        } else {
            Some(Want::of_field(op, v).map_err(|e| format!("line {}: `{f}`: {e}", l.line))?)
        };
        want.push((k, w, v));
    }
    let matching = events.iter().filter(|e| e.kind_name() == kind).any(|e| {
        let v = serde_json::to_value(e).unwrap_or_default();
        want.iter().all(|(k, w, val)| match w {
            // `key~=value`: the array holds the value, or the text contains it.
            None => field(&v, k).is_some_and(|x| match x {
                serde_json::Value::Array(items) => items.iter().any(|i| scalar(i) == *val),
                other => scalar(other).contains(val),
            }),
            Some(w) => field(&v, k).is_some_and(|x| w.matches(&scalar(x))),
        })
    });
    let wanted: Vec<String> = fields.iter().map(|f| f.to_string()).collect();
    match (negated, matching) {
        (false, true) | (true, false) => Ok(()),
        (false, false) => {
            let seen: Vec<String> = events
                .iter()
                .filter(|e| e.kind_name() == kind)
                .map(|e| {
                    format!(
                        "turn={} {}",
                        e.turn,
                        serde_json::to_string(&e.kind).unwrap_or_default()
                    )
                })
                .collect();
            Err(format!(
                "line {}: no `{kind}` event with {}; {} `{kind}` event(s) seen{}",
                l.line,
                wanted.join(" "),
                seen.len(),
                if seen.is_empty() {
                    String::new()
                } else {
                    format!(": {}", seen.join(" | "))
                }
            ))
        }
        (true, true) => Err(format!(
            "line {}: a `{kind}` event with {} appeared but should not",
            l.line,
            wanted.join(" ")
        )),
    }
}

/// `odds …`: the exact odds of a check, as `staffwork odds` computes them.
///
/// - `odds acceptance order N RESULT = K/36` — a pending order in its situation at this point;
/// - `odds acceptance --sender-rating … RESULT = K/36`, `odds initiative --rating R [--general]
///   RESULT = K/36`, `odds stoppage --sub-units … pass = K/36` — the tables alone.
///
/// RESULT: `A` (accepted), `D4`, `D5`, `D6`, `Dt`; `initiative`, `no-effect`, `loose-cannon`.
fn check_odds(view: &View, l: &Line, words: &[&str]) -> Result<(), String> {
    let bad = |m: String| format!("line {}: {m}", l.line);
    let eq = words
        .iter()
        .position(|w| *w == "=")
        .ok_or_else(|| bad("write odds as `odds CHECK … RESULT = K/36`".into()))?;
    let (lhs, rhs) = (&words[..eq], &words[eq + 1..]);
    let want = match rhs {
        [frac] => frac
            .split_once('/')
            .and_then(|(a, b)| Some((a.parse::<u64>().ok()?, b.parse::<u64>().ok()?)))
            .ok_or_else(|| bad(format!("`{frac}` is not a fraction K/N")))?,
        _ => return Err(bad("after `=` write one fraction, e.g. 18/36".into())),
    };
    let (result, query) = lhs
        .split_last()
        .ok_or_else(|| bad("name the check and the result".into()))?;
    let got: (u64, u64) = match query {
        ["acceptance", "order", n] => {
            let n: u32 = n
                .parse()
                .map_err(|_| bad(format!("`{n}` is not an order number")))?;
            let q =
                crate::game::acceptance_situation_in(view.scenario, view.state, n).map_err(bad)?;
            let o = crate::rules::odds::acceptance(view.tables, q);
            (
                u64::from(o.count(acceptance_result(result).ok_or_else(|| {
                    bad(format!(
                        "`{result}` is not an acceptance result (A, D4, D5, D6, Dt)"
                    ))
                })?)),
                u64::from(o.out_of),
            )
        }
        [check, flags @ ..] => table_odds(view.tables, check, flags, result).map_err(bad)?,
        [] => {
            return Err(bad(
                "name the check: acceptance, initiative or stoppage".into()
            ));
        }
    };
    // Compare as fractions: 18/36 = 1/2.
    if u128::from(got.0) * u128::from(want.1) == u128::from(want.0) * u128::from(got.1) {
        Ok(())
    } else {
        Err(bad(format!(
            "odds {} {result}: expected {}/{}, got {}/{}",
            query.join(" "),
            want.0,
            want.1,
            got.0,
            got.1
        )))
    }
}

fn acceptance_result(w: &str) -> Option<crate::rules::AcceptanceResult> {
    use crate::rules::AcceptanceResult as R;
    R::ALL
        .into_iter()
        .find(|r| r.to_string().eq_ignore_ascii_case(w) || (w == "accepted" && *r == R::A))
}

/// The flags of a table-only odds query, as `staffwork odds` spells them: `--name value` or a
/// bare `--name` (a switch).
struct OddsFlags<'a>(Vec<(&'a str, Option<&'a str>)>);

impl<'a> OddsFlags<'a> {
    fn parse(words: &[&'a str]) -> Result<Self, String> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < words.len() {
            let name = words[i]
                .strip_prefix("--")
                .ok_or_else(|| format!("`{}` is not a flag (`--name value`)", words[i]))?;
            let value = words.get(i + 1).filter(|w| !w.starts_with("--")).copied();
            i += 1 + usize::from(value.is_some());
            out.push((name, value));
        }
        Ok(OddsFlags(out))
    }

    fn switch(&self, name: &str) -> bool {
        self.0.iter().any(|(n, _)| *n == name)
    }

    fn value(&self, name: &str) -> Result<&'a str, String> {
        self.0
            .iter()
            .find(|(n, _)| *n == name)
            .and_then(|(_, v)| *v)
            .ok_or_else(|| format!("give `--{name} VALUE`"))
    }

    fn number<T: std::str::FromStr>(&self, name: &str) -> Result<T, String> {
        let v = self.value(name)?;
        v.parse()
            .map_err(|_| format!("`--{name} {v}`: expected a number"))
    }

    /// A value among kebab-case names, as the CLI's value enums spell them.
    fn choice<T: Copy>(&self, name: &str, choices: &[(&str, T)]) -> Result<T, String> {
        let v = self.value(name)?;
        choices
            .iter()
            .find(|(n, _)| *n == v)
            .map(|(_, t)| *t)
            .ok_or_else(|| {
                let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
                format!("`--{name} {v}`: expected one of {}", names.join(", "))
            })
    }
}

/// The odds of a table-only query (`staffwork odds acceptance|initiative|stoppage` flags).
fn table_odds(
    tables: &crate::rules::tables::CommandTables,
    check: &str,
    flags: &[&str],
    result: &str,
) -> Result<(u64, u64), String> {
    use crate::rules::{CurrentOrder, Method, OrderType};
    let f = OddsFlags::parse(flags)?;
    match check {
        "acceptance" => {
            let q = crate::rules::odds::AcceptanceQuery {
                sender_rating: f.number("sender-rating")?,
                receiver_rating: f.number("receiver-rating")?,
                method: f.choice(
                    "method",
                    &[
                        ("in-person", Method::InPerson),
                        ("oral", Method::Oral),
                        ("written", Method::Written),
                    ],
                )?,
                order_type: f.choice(
                    "type",
                    &[
                        ("engage", OrderType::Engage),
                        ("general", OrderType::General),
                        ("complex", OrderType::Complex),
                    ],
                )?,
                current: f.choice(
                    "current",
                    &[
                        ("engage", CurrentOrder::Engage),
                        ("general", CurrentOrder::General),
                        ("none", CurrentOrder::None),
                    ],
                )?,
            };
            let o = crate::rules::odds::acceptance(tables, q);
            let r = acceptance_result(result).ok_or_else(|| {
                format!("`{result}` is not an acceptance result (A, D4, D5, D6, Dt)")
            })?;
            Ok((u64::from(o.count(r)), u64::from(o.out_of)))
        }
        "initiative" => {
            let o =
                crate::rules::odds::initiative(tables, f.number("rating")?, f.switch("general"));
            let r = o
                .counts
                .iter()
                .find(|c| kebab(&c.result) == result)
                .ok_or_else(|| {
                    format!("`{result}` is not an initiative result (initiative, no-effect, loose-cannon)")
                })?;
            Ok((u64::from(r.count), u64::from(o.out_of)))
        }
        "stoppage" => {
            if result != "pass" {
                return Err(format!(
                    "a stoppage check's odds are of `pass`, not `{result}`"
                ));
            }
            let o = crate::rules::odds::stoppage(
                tables,
                f.number("sub-units")?,
                f.number("wrecked")?,
                f.number("rating")?,
                f.switch("night"),
            );
            Ok((u64::from(o.pass), u64::from(o.out_of)))
        }
        _ => Err("odds expectations cover acceptance, initiative and stoppage".into()),
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
        let text = match crate::text::read_file(f) {
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
