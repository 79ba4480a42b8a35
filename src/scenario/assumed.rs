//! Every value of a scenario that is our assumption rather than the source's: fields named in
//! an entry's `assumed` list, a map or place tagged `provenance = "assumed"`, and commander
//! movement costs tagged `assumed` (DESIGN: rules are data, every assumed cell is shown).
//!
//! Owns: collecting those values in file order with a printable value. Must not: print.

use serde::Serialize;

use super::model::{Cost, Provenance, Scenario};

/// One assumed value: `commander wellesley: rating = 4 (assumed)`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AssumedValue {
    /// What it belongs to: `commander wellesley`, `unit 1-hill`, `map`, `place vimeiro-hill`.
    pub entity: String,
    /// The field, e.g. `rating`.
    pub field: String,
    /// The value, printed compactly.
    pub value: String,
}

impl std::fmt::Display for AssumedValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {} = {} (assumed)",
            self.entity, self.field, self.value
        )
    }
}

/// A field of a serialised entity, printed compactly (`4`, `AA`, `true`, `1-hill, 5-crawfurd`).
fn field_value<T: Serialize>(x: &T, field: &str) -> String {
    let v = serde_json::to_value(x)
        .ok()
        .and_then(|v| v.get(field).cloned())
        .unwrap_or(serde_json::Value::Null);
    compact(&v)
}

fn compact(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => "(none)".into(),
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(a) => a.iter().map(compact).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}

fn cost_text(c: &Cost) -> String {
    match c.mp {
        Some(mp) if mp.halves() == 1 => "½ MP".into(),
        Some(mp) if mp.halves() % 2 == 1 => format!("{}½ MP", mp.halves() / 2),
        Some(mp) => format!("{} MP", mp.halves() / 2),
        None => "prohibited".into(),
    }
}

/// Every assumed value of the scenario, in file order.
pub fn assumed_values(s: &Scenario) -> Vec<AssumedValue> {
    let mut out = Vec::new();
    let mut push = |entity: String, field: &str, value: String| {
        out.push(AssumedValue {
            entity,
            field: field.to_string(),
            value,
        })
    };
    for c in &s.commanders {
        for f in &c.assumed {
            push(format!("commander {}", c.id), f, field_value(c, f));
        }
    }
    for x in &s.formations {
        for f in &x.assumed {
            push(format!("formation {}", x.id), f, field_value(x, f));
        }
    }
    for u in &s.units {
        for f in &u.assumed {
            push(format!("unit {}", u.id), f, field_value(u, f));
        }
    }
    for e in &s.random_events {
        for f in &e.assumed {
            push(
                format!("random event {} {:?} {}", e.side, e.roll, e.name),
                f,
                field_value(e, f),
            );
        }
    }
    if s.map.provenance == Provenance::Assumed {
        let (w, h) = s.map.size();
        push(
            "map".into(),
            "terrain, elevation, extent",
            format!("{w} × {h} hexes, our reconstruction"),
        );
    }
    for p in &s.places {
        if p.provenance == Provenance::Assumed {
            let (field, value) = if p.hexsides.is_empty() {
                (
                    "hexes",
                    p.hexes
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(", "),
                )
            } else if p.hexsides.len() <= 3 {
                (
                    "hexsides",
                    p.hexsides
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(", "),
                )
            } else {
                ("hexsides", format!("{} hexsides", p.hexsides.len()))
            };
            push(format!("place {}", p.id), field, value);
        }
    }
    let cc = &s.commander_costs;
    if cc.road.provenance == Provenance::Assumed {
        push("commander cost".into(), "road", cost_text(&cc.road));
    }
    for (name, c) in &cc.terrain {
        if c.provenance == Provenance::Assumed {
            push("commander cost".into(), name, cost_text(c));
        }
    }
    for (name, c) in &cc.hexside {
        if c.provenance == Provenance::Assumed {
            push(
                "commander cost".into(),
                &format!("crossing {name}"),
                cost_text(c),
            );
        }
    }
    out
}
