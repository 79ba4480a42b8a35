//! Throughput of the order checker (parse, resolve, classify, critique, read back) over the
//! corpus of the NBS digest §7 and more, against a raw baseline that only splits the same text
//! into orders and words. Report: orders per second per core.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use staffwork::order;

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

fn bench(c: &mut Criterion) {
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
    });
    g.bench_function("Checker::check_one example 8 against tutorial-hall", |b| {
        b.iter(|| checker.check_one(black_box(example)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
