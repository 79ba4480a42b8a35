//! Throughput of the order checker (parse, resolve, classify, critique, read back) over the
//! corpus of the NBS digest §7 and more, against a raw baseline that only splits the same text
//! into orders and words. Report: orders per second per core.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use staffwork::order;

// The same allocator as the `staffwork` binary (src/main.rs), so the figures are what it does.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn corpus() -> (String, usize) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/orders");
    let mut text = String::new();
    for f in [
        "nbs-examples.txt",
        "real-orders.txt",
        "presets.txt",
        "other-rulebooks.txt",
        "letters.txt",
    ] {
        text.push_str(&std::fs::read_to_string(format!("{dir}/{f}")).expect("corpus file"));
        text.push_str("\n\n");
    }
    let n = order::check(&text, None, None).orders.len();
    (text, n)
}

/// The annotated corpus (`tests/data/orders/corpus/*.toml`): each file's orders with its
/// scenario and side, the issue-11 speed figure.
fn annotated() -> Vec<(
    Option<staffwork::scenario::Scenario>,
    Option<String>,
    Vec<String>,
)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/orders/corpus");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    paths.retain(|p: &std::path::PathBuf| p.extension().is_some_and(|e| e == "toml"));
    paths.sort();
    let mut out = Vec::new();
    for p in paths {
        let v: toml::Value = toml::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        let meta = &v["meta"];
        let name = meta["scenario"].as_str().unwrap_or("");
        let side = meta["side"].as_str().filter(|s| !s.is_empty());
        let texts = v
            .get("order")
            .and_then(|o| o.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|o| o["text"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let scen = (!name.is_empty()).then(|| staffwork::scenario::bundled(name).unwrap());
        out.push((scen, side.map(str::to_string), texts));
    }
    out
}

fn bench(c: &mut Criterion) {
    let files = annotated();
    let n: usize = files.iter().map(|f| f.2.len()).sum();
    let mut g = c.benchmark_group("corpus");
    g.throughput(Throughput::Elements(n as u64));
    // One checker per scenario, built once (the scenario's index), as a game does.
    let checkers: Vec<_> = files
        .iter()
        .map(|(scen, side, texts)| {
            let c = order::Checker::new(order::Options {
                scenario: scen.as_ref(),
                side: side.as_deref(),
                now: None,
                explain: false,
            });
            (c, texts)
        })
        .collect();
    g.bench_function("annotated corpus against its scenarios", |b| {
        b.iter(|| {
            let mut errors = 0usize;
            for (checker, texts) in &checkers {
                for t in texts.iter() {
                    errors += usize::from(checker.check_one(black_box(t)).has_errors());
                }
            }
            errors
        })
    });
    g.finish();

    let (text, n) = corpus();
    let scenario = staffwork::scenario::bundled("tutorial-hall").expect("tutorial scenario");
    let mut g = c.benchmark_group("orders");
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function("baseline: split into orders and words", |b| {
        b.iter(|| {
            let mut words = 0usize;
            for o in black_box(&text).split("\n\n") {
                words += o.split_whitespace().count();
            }
            words
        })
    });
    g.bench_function("check without scenario", |b| {
        b.iter(|| order::check(black_box(&text), None, None))
    });
    g.bench_function("check against tutorial-hall", |b| {
        b.iter(|| order::check(black_box(&text), Some(&scenario), Some("imperial")))
    });
    let example = "2nd Div: attack up the Säter road and capture Hall.";
    g.throughput(Throughput::Elements(1));
    let checker = order::Checker::new(order::Options {
        scenario: Some(&scenario),
        side: Some("imperial"),
        now: None,
        explain: false,
    });
    g.bench_function("Checker::check_one example 8 against tutorial-hall", |b| {
        b.iter(|| checker.check_one(black_box(example)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
