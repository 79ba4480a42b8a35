//! The corpus evaluation (issue 11): every annotated order of `tests/data/orders/corpus/*.toml`
//! (format: the corpus README) is read against its scenario and scored. The figures are
//! printed (`cargo test --test it order_corpus_eval -- --nocapture`); the test fails below the
//! floors. Set `CORPUS_MISSES=1` to print every miss (a false-positive place prints as
//! `extra place "…"`, a missed one as `place "…" not read`).
//!
//! Floors are the measured values where they pass the targets (a ratchet, so any
//! regression fails), each with its `// TARGET`; a figure not yet met would hold its measured
//! value and say `// TARGET …, not yet met`.

use std::collections::BTreeMap;

use serde::Deserialize;
use staffwork::order::{self, CheckedOrder, Severity};
use staffwork::rules::OrderType;

#[derive(Deserialize)]
struct File {
    meta: Meta,
    #[serde(default)]
    order: Vec<Entry>,
}

#[derive(Deserialize)]
struct Meta {
    scenario: String,
    side: String,
}

#[derive(Deserialize)]
struct Place {
    text: String,
    id: String,
}

#[derive(Deserialize)]
struct Entry {
    id: String,
    text: String,
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    recipients: Vec<String>,
    #[serde(default)]
    places: Vec<Place>,
    #[serde(default)]
    prohibitions: Vec<String>,
    #[serde(default)]
    purpose: Option<String>,
    #[serde(default)]
    condition: bool,
    #[serde(default)]
    errors: Vec<String>,
    #[serde(default)]
    flags: Vec<String>,
    #[serde(default)]
    bad: bool,
}

/// Hits over trials, printed as a percentage.
#[derive(Default, Clone, Copy)]
struct Score {
    hit: u32,
    of: u32,
}

impl Score {
    fn add(&mut self, ok: bool) {
        self.of += 1;
        self.hit += u32::from(ok);
    }
    fn ratio(self) -> f64 {
        if self.of == 0 {
            1.0
        } else {
            f64::from(self.hit) / f64::from(self.of)
        }
    }
    fn show(self) -> String {
        format!("{:5.1} % ({}/{})", 100.0 * self.ratio(), self.hit, self.of)
    }
}

#[derive(Default)]
struct Figures {
    orders: u32,
    kind: Score,
    none: Score,
    recall: Score,
    precision: Score,
    resolution: Score,
    bad_flagged: Score,
    errors_on_good: Score,
    round_trip: Score,
    prohibitions: Score,
    purpose: Score,
    condition: Score,
}

fn type_name(t: Option<OrderType>) -> &'static str {
    match t {
        Some(OrderType::Engage) => "engage",
        Some(OrderType::General) => "general",
        Some(OrderType::Complex) => "complex",
        None => "none",
    }
}

/// The reader's recipients: the order's, and the subjects of later stages.
fn recipients(o: &CheckedOrder, scenario: bool) -> Vec<String> {
    let mut out = Vec::new();
    let refs = o
        .recipient
        .iter()
        .chain(&o.also)
        .chain(o.stages.iter().filter_map(|s| s.subject.as_ref()));
    for r in refs {
        if scenario {
            if let Some(x) = &r.resolved {
                out.push(x.id.clone());
            }
        } else {
            out.push(r.phrase.clone());
            out.push(r.text.clone());
        }
    }
    out
}

/// Scores every corpus file whose name passes `keep`.
fn evaluate(miss: &mut Vec<String>, keep: fn(&str) -> bool) -> Figures {
    let dir = format!("{}/tests/data/orders/corpus", env!("CARGO_MANIFEST_DIR"));
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    paths.retain(|p: &std::path::PathBuf| {
        p.extension().is_some_and(|e| e == "toml")
            && p.file_name().and_then(|n| n.to_str()).is_some_and(keep)
    });
    paths.sort();
    let mut f = Figures::default();
    let mut scenarios = BTreeMap::new();
    for path in paths {
        let raw = std::fs::read_to_string(&path).unwrap();
        let file: File = toml::from_str(&raw).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let scen = (!file.meta.scenario.is_empty()).then(|| {
            scenarios
                .entry(file.meta.scenario.clone())
                .or_insert_with(|| {
                    staffwork::scenario::bundled(&file.meta.scenario)
                        .unwrap_or_else(|| panic!("no bundled scenario {}", file.meta.scenario))
                })
                .clone()
        });
        let side = (!file.meta.side.is_empty()).then_some(file.meta.side.as_str());
        for e in &file.order {
            f.orders += 1;
            let o = order::check_one(&e.text, scen.as_ref(), side);
            let got = type_name(o.order_type);
            let mut note = |what: String| miss.push(format!("{} {what}: {}", e.id, e.text));
            // --- type
            if !e.bad {
                if e.kind == "none" {
                    // Decision 0177: an order that only forbids has no stage and is General
                    // (6.3.2); a report or an intention has neither stage nor prohibition.
                    let typed = o.prohibitions.is_empty() || got == "general";
                    f.none.add(o.stages.is_empty() && typed);
                    if !o.stages.is_empty() {
                        note(format!("type {got} (want none)"));
                    } else if !typed {
                        note(format!("type {got} (want general: it only forbids)"));
                    }
                } else {
                    f.kind.add(got == e.kind);
                    if got != e.kind {
                        note(format!("type {got} (want {})", e.kind));
                    }
                }
            }
            // --- places: exact span text, as multisets
            let mut reader: Vec<&str> = o
                .places
                .iter()
                .map(|r| e.text.get(r.span.0..r.span.1).unwrap_or(""))
                .collect();
            let total_reader = reader.len();
            let mut found = 0;
            for p in &e.places {
                let hit = reader.iter().position(|t| *t == p.text);
                f.recall.add(hit.is_some());
                match hit {
                    Some(i) => {
                        reader.remove(i);
                        found += 1;
                    }
                    None => note(format!("place \"{}\" not read", p.text)),
                }
                if !p.id.is_empty() {
                    let ok = o.places.iter().any(|r| {
                        e.text.get(r.span.0..r.span.1) == Some(p.text.as_str())
                            && r.resolved.as_ref().is_some_and(|x| x.id == p.id)
                    });
                    f.resolution.add(ok);
                    if !ok {
                        note(format!("place \"{}\" not resolved to {}", p.text, p.id));
                    }
                }
            }
            for t in &reader {
                note(format!("extra place \"{t}\""));
            }
            for i in 0..total_reader {
                f.precision.add(i < found);
            }
            // --- recipients
            let have = recipients(&o, scen.is_some());
            for r in &e.recipients {
                let ok = have.iter().any(|h| h.eq_ignore_ascii_case(r));
                f.resolution.add(ok);
                if !ok {
                    note(format!("recipient {r} not read (have {have:?})"));
                }
            }
            // --- diagnostics
            let errors: Vec<&str> = o
                .diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .map(|d| d.code)
                .collect();
            if e.bad {
                let ok = if e.flags.is_empty() {
                    !errors.is_empty()
                } else {
                    o.diagnostics
                        .iter()
                        .any(|d| e.flags.iter().any(|c| c == d.code))
                };
                f.bad_flagged.add(ok);
                if !ok {
                    note(format!("bad order not flagged {:?}", e.flags));
                }
            } else {
                let wrong: Vec<&&str> = errors
                    .iter()
                    .filter(|c| !e.errors.iter().any(|x| x == **c))
                    .collect();
                f.errors_on_good.add(!wrong.is_empty());
                if !wrong.is_empty() {
                    note(format!("errors on a good order {wrong:?}"));
                }
                // --- read-back round trip
                if !o.readback.is_empty() {
                    let again = order::check_one(&o.readback, scen.as_ref(), side);
                    f.round_trip.add(again.key == o.key);
                    if again.key != o.key {
                        note(format!("round trip: {} ≠ {}", o.key, again.key));
                    }
                }
                // --- meaning (printed; prohibitions also have a floor)
                for p in &e.prohibitions {
                    let ok = o.prohibitions.iter().any(|x| x.text.contains(p.as_str()));
                    f.prohibitions.add(ok);
                    if !ok {
                        let got: Vec<&str> =
                            o.prohibitions.iter().map(|x| x.text.as_str()).collect();
                        note(format!("prohibition {p:?} not read (read {got:?})"));
                    }
                }
                if e.purpose.is_some() {
                    f.purpose.add(o.intent.is_some());
                    if o.intent.is_none() {
                        note("purpose not read".into());
                    }
                }
                if e.condition {
                    // A conditional prohibition ("if I cannot, do not wait") is a condition read.
                    let ok = o.stages.iter().any(|s| s.condition.is_some())
                        || o.prohibitions.iter().any(|p| p.condition.is_some());
                    f.condition.add(ok);
                    if !ok {
                        note("condition not read".into());
                    }
                }
            }
        }
    }
    f
}

#[test]
fn the_reader_meets_its_figures_on_the_annotated_corpus() {
    let mut miss = Vec::new();
    let f = evaluate(&mut miss, |_| true);
    if std::env::var_os("CORPUS_MISSES").is_some() {
        for m in &miss {
            println!("{m}");
        }
    }
    print_figures("corpus", &f);
    // The fresh check set (reader3): orders written before that session's tuning, scored
    // apart so a fix that only fits the development corpus shows here.
    let fresh = evaluate(&mut Vec::new(), |n| n.starts_with("fresh-"));
    print_figures("fresh (not tuned on)", &fresh);
    assert!(
        f.orders >= 300,
        "the corpus has {} orders (issue 11: ≥ 300)",
        f.orders
    );
    let floor = |name: &str, s: Score, min: f64| {
        assert!(
            s.ratio() >= min,
            "{name} {} is below its floor {min}",
            s.show()
        );
    };
    floor("type", f.kind, 0.98); // TARGET 0.95 met; held at the measured value (644/657, session 13)
    floor("places recall", f.recall, 0.996); // TARGET 0.95 met; held at the measured value (1031/1035, session 13)
    floor("places precision", f.precision, 0.994); // TARGET 0.95 met; held at the measured value (1031/1037, session 13)
    floor("resolution", f.resolution, 0.976); // TARGET 0.95 met; held at the measured value (1306/1337, session 13)
    floor("bad flagged", f.bad_flagged, 1.0); // TARGET 1.0 met
    floor("round trip", f.round_trip, 1.0); // TARGET 1.0 met (695/695, session 13)
    // Not an issue target: held at the measured value so negation is not lost again (51/54).
    floor("prohibitions", f.prohibitions, 1.0); // 83/83 (reader21)
    // Not issue targets either: "none" orders read with no stage (decision 0177) and conditions.
    floor("none", f.none, 0.88); // 67/76 (session 13)
    floor("conditions", f.condition, 0.957); // 91/95 (session 13)
    assert!(
        f.errors_on_good.ratio() <= 0.05, // TARGET 0.05 met (measured 0.005, 4/733, session 13)
        "errors on good {} is above its ceiling",
        f.errors_on_good.show()
    );
}

fn print_figures(title: &str, f: &Figures) {
    println!("{title}: {} orders", f.orders);
    println!("  type             {}", f.kind.show());
    println!("  none (no action) {}", f.none.show());
    println!("  places recall    {}", f.recall.show());
    println!("  places precision {}", f.precision.show());
    println!("  resolution       {}", f.resolution.show());
    println!("  bad flagged      {}", f.bad_flagged.show());
    println!("  errors on good   {}", f.errors_on_good.show());
    println!("  round trip       {}", f.round_trip.show());
    println!("  prohibitions     {}", f.prohibitions.show());
    println!("  purposes         {}", f.purpose.show());
    println!("  conditions       {}", f.condition.show());
}
