//! The plan file: a scenario, the orders to send, the initiative rolls to make, the umpire's
//! scripted events and what to measure, as TOML (docs/studies.md).
//!
//! Owns reading a plan and compiling it against its scenario into engine commands, with every
//! problem located (file, line, field, plan id) and a hint. Must not run the engine or print.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::engine::{Command, OverrideAction, TypedOrder};
use crate::rules::Method;
use crate::scenario::Scenario;

/// Why a plan cannot be run. Every variant names the place and says what was expected.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error("{path}: cannot read the plan: {message}")]
    Io { path: String, message: String },
    /// The TOML does not parse or has the wrong shape.
    #[error("{path}:{line}:{column}: {message}")]
    Syntax {
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
    /// A value is wrong: `at` names the table entry and field, e.g. `orders[2] (loison-attack).to`.
    #[error("{path}: {at}: {message} (hint: {hint})")]
    Invalid {
        path: String,
        at: String,
        message: String,
        hint: String,
    },
}

/// The file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PlanFile {
    plan: PlanMeta,
    #[serde(default)]
    orders: Vec<OrderEntry>,
    #[serde(default)]
    initiative: Vec<InitiativeEntry>,
    #[serde(default)]
    events: Vec<EventEntry>,
    #[serde(default)]
    measures: MeasuresEntry,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PlanMeta {
    name: String,
    /// A bundled scenario id or a path relative to the plan file.
    scenario: String,
    #[serde(default)]
    variants: Vec<String>,
    #[serde(default)]
    description: String,
    #[serde(default)]
    sources: Vec<String>,
    /// Stop after this turn's player turns (default: the scenario's last turn).
    until_turn: Option<u32>,
    /// Stop after the turn of this clock time ("13:00").
    until_time: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct OrderEntry {
    id: String,
    from: String,
    to: String,
    method: Method,
    text: String,
    turn: Option<u32>,
    time: Option<String>,
    /// Send once this plan order has reached `after_status` (and not before `turn`/`time`).
    after: Option<String>,
    #[serde(default)]
    after_status: Trigger,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct InitiativeEntry {
    id: String,
    commander: String,
    command: String,
    text: String,
    turn: Option<u32>,
    time: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EventEntry {
    turn: Option<u32>,
    time: Option<String>,
    action: EventAction,
    /// The command concerned (wreck, restore, commander-lost, stage-complete).
    command: Option<String>,
    /// The plan order concerned (discard-order).
    order: Option<String>,
    reason: String,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
enum EventAction {
    /// 21.6: the command is wrecked.
    Wreck,
    /// 21.6: the command is no longer wrecked.
    Restore,
    /// 25: the command's commander is lost (his successor takes over).
    CommanderLost,
    /// The courier is taken: a plan order is discarded.
    DiscardOrder,
    /// 6.3.3: the command's current stage is done — for a moving Army HQ, that it has arrived at
    /// its final destination, so written orders may go out again (6.10.1).
    StageComplete,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct MeasuresEntry {
    /// Plan order ids to report (default: all).
    #[serde(default)]
    orders: Vec<String>,
    /// Commands to report per order status, initiative, stoppage and withdrawals (default: the
    /// recipients of the plan's orders and initiative rolls).
    #[serde(default)]
    commands: Vec<String>,
}

/// When a conditional order goes out.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Trigger {
    /// The earlier order reached its recipient.
    Arrived,
    /// The earlier order was accepted (6.5.1), implemented or not.
    Accepted,
    /// The earlier order was implemented (6.2.1).
    #[default]
    Implemented,
}

/// An order to send, compiled.
#[derive(Clone, Debug)]
pub struct PlanOrder {
    pub id: String,
    pub side: String,
    pub from: String,
    pub to: String,
    pub method: Method,
    pub order: TypedOrder,
    /// Not before this turn (1 when only a condition is given).
    pub turn: u32,
    /// Index of an earlier plan order and the status it must reach.
    pub after: Option<(usize, Trigger)>,
}

/// An initiative roll to make (6.6.1), compiled.
#[derive(Clone, Debug)]
pub struct PlanInitiative {
    pub id: String,
    pub side: String,
    pub commander: String,
    pub command: String,
    pub order: TypedOrder,
    pub turn: u32,
}

/// An umpire's scripted event: an override at the opening of a turn's first Command window.
#[derive(Clone, Debug)]
pub struct PlanEvent {
    pub turn: u32,
    /// For `discard-order`: the plan order whose number is discarded (known only in a run).
    pub discard: Option<usize>,
    pub command: Option<Command>,
    pub reason: String,
}

/// A plan compiled against its scenario, ready to run.
#[derive(Clone, Debug)]
pub struct Plan {
    pub name: String,
    pub description: String,
    pub sources: Vec<String>,
    pub scenario: Scenario,
    pub presets: Vec<(String, TypedOrder)>,
    pub variants: Vec<String>,
    pub orders: Vec<PlanOrder>,
    pub initiative: Vec<PlanInitiative>,
    pub events: Vec<PlanEvent>,
    /// Plan order indices reported.
    pub measured_orders: Vec<usize>,
    /// Command ids reported.
    pub measured_commands: Vec<String>,
    /// The last turn played.
    pub last_turn: u32,
    /// Clock time of each turn ("08:00"), index 0 = turn 1.
    pub turn_labels: Vec<String>,
    /// SHA-256 of the plan text and the scenario text: results of different plans never merge.
    pub hash: String,
}

/// Read and compile a plan file.
pub fn load(path: &Path) -> Result<Plan, PlanError> {
    let text = crate::text::read_file(path).map_err(|e| PlanError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    parse(path, &text)
}

/// Compile a plan's text; `path` locates errors and relative scenario paths.
pub fn parse(path: &Path, text: &str) -> Result<Plan, PlanError> {
    let shown = path.display().to_string();
    let file: PlanFile = toml::from_str(text).map_err(|e| {
        let (line, column) = e.span().map_or((1, 1), |s| line_col(text, s.start));
        PlanError::Syntax {
            path: shown.clone(),
            line,
            column,
            message: e.message().to_string(),
        }
    })?;
    let c = Compiler { path: &shown };
    let (scenario_text, scenario) = c.scenario(path, &file.plan.scenario)?;
    c.compile(file, scenario, text, &scenario_text)
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

struct Compiler<'p> {
    path: &'p str,
}

impl Compiler<'_> {
    fn bad(&self, at: String, message: impl Into<String>, hint: impl Into<String>) -> PlanError {
        PlanError::Invalid {
            path: self.path.to_string(),
            at,
            message: message.into(),
            hint: hint.into(),
        }
    }

    fn scenario(&self, plan: &Path, name: &str) -> Result<(String, Scenario), PlanError> {
        if let Some((file, text)) = crate::scenario::bundled_text(name) {
            let s = crate::scenario::parse(file, text).map_err(|e| {
                self.bad("plan.scenario".into(), e.to_string(), "a bundled scenario")
            })?;
            return Ok((text.to_string(), s));
        }
        let p: PathBuf = plan.parent().unwrap_or(Path::new(".")).join(name);
        let text = crate::text::read_file(&p).map_err(|e| {
            self.bad(
                "plan.scenario".into(),
                format!("`{name}` is neither a bundled scenario nor a readable file ({e})"),
                "use a bundled id (vimeiro-1808, talavera-1809, …) or a path relative to the plan",
            )
        })?;
        let s = crate::scenario::parse(&p.display().to_string(), &text).map_err(|e| {
            self.bad(
                "plan.scenario".into(),
                e.to_string(),
                "fix the scenario file",
            )
        })?;
        Ok((text, s))
    }

    fn compile(
        &self,
        file: PlanFile,
        scenario: Scenario,
        plan_text: &str,
        scenario_text: &str,
    ) -> Result<Plan, PlanError> {
        let turn_labels: Vec<String> = scenario
            .clock
            .turns()
            .iter()
            .map(|t| t.time.format("%H:%M").to_string())
            .collect();
        let presets = crate::game::type_presets(&scenario).map_err(|(id, why)| {
            self.bad(format!("scenario preset `{id}`"), why, "fix the scenario")
        })?;
        for (i, v) in file.plan.variants.iter().enumerate() {
            if !scenario.variants.iter().any(|x| &x.id == v) {
                let known: Vec<&str> = scenario.variants.iter().map(|x| x.id.as_str()).collect();
                return Err(self.bad(
                    format!("plan.variants[{i}]"),
                    format!("`{v}` is not a variant of {}", scenario.meta.id),
                    format!("variants: {}", known.join(", ")),
                ));
            }
        }
        let last_turn = self
            .when(
                &turn_labels,
                "plan".into(),
                file.plan.until_turn,
                &file.plan.until_time,
            )?
            .unwrap_or(turn_labels.len() as u32);
        let orders = self.orders(&scenario, &turn_labels, &file.orders)?;
        let initiative = self.initiative(&scenario, &turn_labels, &file.initiative)?;
        let events = self.events(&scenario, &turn_labels, &file.events, &orders)?;
        let (measured_orders, measured_commands) =
            self.measures(&scenario, &file.measures, &orders, &initiative)?;
        let hash = {
            use sha2::{Digest, Sha256};
            let mut h = Sha256::new();
            h.update(plan_text.as_bytes());
            h.update([0]);
            h.update(scenario_text.as_bytes());
            format!("{:x}", h.finalize())
        };
        Ok(Plan {
            name: file.plan.name,
            description: file.plan.description,
            sources: file.plan.sources,
            presets,
            variants: file.plan.variants,
            orders,
            initiative,
            events,
            measured_orders,
            measured_commands,
            last_turn,
            turn_labels,
            hash,
            scenario,
        })
    }

    /// The turn an entry names by `turn` (1-based) or by `time` (a turn's HH:MM), if any.
    fn when(
        &self,
        turn_labels: &[String],
        at: String,
        turn: Option<u32>,
        time: &Option<String>,
    ) -> Result<Option<u32>, PlanError> {
        let last = turn_labels.len() as u32;
        match (turn, time) {
            (Some(_), Some(_)) => Err(self.bad(at, "both `turn` and `time` given", "give one")),
            (Some(t), None) if t == 0 || t > last => Err(self.bad(
                format!("{at}.turn"),
                format!("turn {t} is not in the scenario"),
                format!("turns run from 1 to {last}"),
            )),
            (Some(t), None) => Ok(Some(t)),
            (None, Some(hm)) => turn_labels
                .iter()
                .position(|l| l == hm.trim())
                .map(|i| Some(i as u32 + 1))
                .ok_or_else(|| {
                    self.bad(
                        format!("{at}.time"),
                        format!("no turn starts at `{hm}`"),
                        format!(
                            "use a turn's time as HH:MM, from {} to {}",
                            turn_labels.first().map_or("", String::as_str),
                            turn_labels.last().map_or("", String::as_str)
                        ),
                    )
                }),
            (None, None) => Ok(None),
        }
    }

    /// The `[[orders]]` table: each order read against the scenario, sent at a turn or after an
    /// earlier order.
    fn orders(
        &self,
        scenario: &Scenario,
        turn_labels: &[String],
        entries: &[OrderEntry],
    ) -> Result<Vec<PlanOrder>, PlanError> {
        let mut orders: Vec<PlanOrder> = Vec::new();
        for (i, o) in entries.iter().enumerate() {
            let at = format!("orders[{i}] ({})", o.id);
            if orders.iter().any(|x| x.id == o.id) || o.id.trim().is_empty() {
                return Err(self.bad(
                    format!("{at}.id"),
                    "order ids must be unique and not empty",
                    "rename it",
                ));
            }
            let side = self.commander_side(scenario, &o.from, format!("{at}.from"))?;
            self.command(scenario, &o.to, format!("{at}.to"))?;
            let order = self.order(scenario, &side, &o.text, format!("{at}.text"))?;
            let after = match &o.after {
                None => None,
                Some(a) => match orders.iter().position(|x| &x.id == a) {
                    Some(k) => Some((k, o.after_status)),
                    None => {
                        return Err(self.bad(
                            format!("{at}.after"),
                            format!("`{a}` is not an earlier order of this plan"),
                            "name the id of an order listed above this one",
                        ));
                    }
                },
            };
            let turn = self.when(turn_labels, at.clone(), o.turn, &o.time)?;
            if turn.is_none() && after.is_none() {
                return Err(self.bad(
                    at,
                    "no `turn`, `time` or `after`",
                    "say when the order is sent",
                ));
            }
            orders.push(PlanOrder {
                id: o.id.clone(),
                side,
                from: o.from.clone(),
                to: o.to.clone(),
                method: o.method,
                order,
                turn: turn.unwrap_or(1),
                after,
            });
        }
        Ok(orders)
    }

    /// The `[[initiative]]` table: each roll's order read against the scenario, at its turn.
    fn initiative(
        &self,
        scenario: &Scenario,
        turn_labels: &[String],
        entries: &[InitiativeEntry],
    ) -> Result<Vec<PlanInitiative>, PlanError> {
        let mut initiative = Vec::new();
        for (i, r) in entries.iter().enumerate() {
            let at = format!("initiative[{i}] ({})", r.id);
            let side = self.commander_side(scenario, &r.commander, format!("{at}.commander"))?;
            self.command(scenario, &r.command, format!("{at}.command"))?;
            let order = self.order(scenario, &side, &r.text, format!("{at}.text"))?;
            let turn = self
                .when(turn_labels, at.clone(), r.turn, &r.time)?
                .ok_or_else(|| {
                    self.bad(
                        at.clone(),
                        "no `turn` or `time`",
                        "say when the roll is made",
                    )
                })?;
            initiative.push(PlanInitiative {
                id: r.id.clone(),
                side,
                commander: r.commander.clone(),
                command: r.command.clone(),
                order,
                turn,
            });
        }
        Ok(initiative)
    }

    /// The `[[events]]` table: each scripted event as the command it is (an umpire override,
    /// a stage completed) or an order to discard.
    fn events(
        &self,
        scenario: &Scenario,
        turn_labels: &[String],
        entries: &[EventEntry],
        orders: &[PlanOrder],
    ) -> Result<Vec<PlanEvent>, PlanError> {
        let mut events = Vec::new();
        for (i, e) in entries.iter().enumerate() {
            let at = format!("events[{i}]");
            let turn = self
                .when(turn_labels, at.clone(), e.turn, &e.time)?
                .ok_or_else(|| {
                    self.bad(at.clone(), "no `turn` or `time`", "say when it happens")
                })?;
            let need_command = |c: &Option<String>| -> Result<String, PlanError> {
                let c = c.clone().ok_or_else(|| {
                    self.bad(
                        format!("{at}.command"),
                        "this action needs a `command`",
                        "a formation or brigade id",
                    )
                })?;
                self.command(scenario, &c, format!("{at}.command"))?;
                Ok(c)
            };
            let umpire = |action| {
                Some(Command::Override {
                    reason: e.reason.clone(),
                    action,
                })
            };
            let (command, discard) = match e.action {
                EventAction::Wreck | EventAction::Restore => (
                    umpire(OverrideAction::SetWrecked {
                        command: need_command(&e.command)?,
                        wrecked: e.action == EventAction::Wreck,
                    }),
                    None,
                ),
                EventAction::CommanderLost => (
                    umpire(OverrideAction::SetCommanderLost {
                        command: need_command(&e.command)?,
                        lost: true,
                    }),
                    None,
                ),
                EventAction::StageComplete => (
                    Some(Command::StageComplete {
                        command: need_command(&e.command)?,
                    }),
                    None,
                ),
                EventAction::DiscardOrder => {
                    let id = e.order.clone().unwrap_or_default();
                    let k = orders.iter().position(|x| x.id == id).ok_or_else(|| {
                        self.bad(
                            format!("{at}.order"),
                            format!("`{id}` is not an order of this plan"),
                            "name a plan order id",
                        )
                    })?;
                    (None, Some(k))
                }
            };
            events.push(PlanEvent {
                turn,
                discard,
                command,
                reason: e.reason.clone(),
            });
        }
        Ok(events)
    }

    /// The `[measures]` table: the orders measured (by index; all when none are named) and the
    /// commands measured (those the plan addresses, in order, when none are named).
    fn measures(
        &self,
        scenario: &Scenario,
        m: &MeasuresEntry,
        orders: &[PlanOrder],
        initiative: &[PlanInitiative],
    ) -> Result<(Vec<usize>, Vec<String>), PlanError> {
        let measured_orders = if m.orders.is_empty() {
            (0..orders.len()).collect()
        } else {
            let mut v = Vec::new();
            for (i, id) in m.orders.iter().enumerate() {
                v.push(orders.iter().position(|o| &o.id == id).ok_or_else(|| {
                    self.bad(
                        format!("measures.orders[{i}]"),
                        format!("`{id}` is not an order of this plan"),
                        "name a plan order id",
                    )
                })?);
            }
            v
        };
        let measured_commands = if m.commands.is_empty() {
            let mut v: Vec<String> = Vec::new();
            for c in orders
                .iter()
                .map(|o| &o.to)
                .chain(initiative.iter().map(|r| &r.command))
            {
                if !v.contains(c) {
                    v.push(c.clone());
                }
            }
            v
        } else {
            for (i, c) in m.commands.iter().enumerate() {
                self.command(scenario, c, format!("measures.commands[{i}]"))?;
            }
            m.commands.clone()
        };
        Ok((measured_orders, measured_commands))
    }

    fn commander_side(&self, s: &Scenario, id: &str, at: String) -> Result<String, PlanError> {
        match s.commander(id) {
            Some(c) => Ok(c.side.clone()),
            None => {
                let mut near: Vec<(usize, &str)> = s
                    .commanders
                    .iter()
                    .map(|c| (crate::text::edit_distance(&c.id, id), c.id.as_str()))
                    .collect();
                near.sort();
                let near: Vec<&str> = near.iter().take(3).map(|x| x.1).collect();
                Err(self.bad(
                    at,
                    format!("`{id}` is not a commander of {}", s.meta.id),
                    format!("nearest: {}", near.join(", ")),
                ))
            }
        }
    }

    fn command(&self, s: &Scenario, id: &str, at: String) -> Result<(), PlanError> {
        if s.command(id).is_some() {
            return Ok(());
        }
        let mut near: Vec<(usize, &str)> = s
            .formations
            .iter()
            .map(|f| f.id.as_str())
            .chain(s.units.iter().map(|u| u.id.as_str()))
            .map(|c| (crate::text::edit_distance(c, id), c))
            .collect();
        near.sort();
        let near: Vec<&str> = near.iter().take(3).map(|x| x.1).collect();
        Err(self.bad(
            at,
            format!("`{id}` is not a formation or unit of {}", s.meta.id),
            format!("nearest: {}", near.join(", ")),
        ))
    }

    fn order(
        &self,
        s: &Scenario,
        side: &str,
        text: &str,
        at: String,
    ) -> Result<TypedOrder, PlanError> {
        let checked = crate::order::check_one(text, Some(s), Some(side));
        if let Some(d) = checked
            .diagnostics
            .iter()
            .find(|d| d.severity == crate::order::Severity::Error)
        {
            return Err(self.bad(
                format!("{at} (chars {}..{})", d.span.0, d.span.1),
                format!("the order does not read: {}", d.message),
                d.help.clone(),
            ));
        }
        Ok(crate::game::typed_order(&checked))
    }
}
