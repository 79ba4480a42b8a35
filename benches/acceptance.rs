//! Acceptance check (acceptance number 6.5 + New Order Acceptance Table lookup + a seeded 11..66
//! roll) against the raw seeded roll alone, in the same run. Figures go to docs/performance.md.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

// The same allocator as the `staffwork` binary (src/main.rs), so the figures are what it does.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
use staffwork::rules::dice::{Dice, Purpose, SeededDice};
use staffwork::rules::{CommandTables, CurrentOrder, Method, OrderType};

fn acceptance(c: &mut Criterion) {
    let t = CommandTables::nbs();
    let mut g = c.benchmark_group("acceptance");
    g.throughput(Throughput::Elements(1));
    g.bench_function("raw_seeded_roll_11_66", |b| {
        let mut dice = SeededDice::new(42);
        b.iter(|| black_box(dice.roll_11_66(Purpose::Acceptance).map_or(11, |r| r.0)))
    });
    g.bench_function("acceptance_check", |b| {
        let mut dice = SeededDice::new(42);
        b.iter(|| {
            let n = t.acceptance_number(
                black_box(3),
                black_box(2),
                black_box(Method::Written),
                black_box(OrderType::Engage),
                black_box(CurrentOrder::General),
            );
            let roll = dice.roll_11_66(Purpose::Acceptance).map_or(11, |r| r.0);
            black_box(t.acceptance(n, roll))
        })
    });
    g.bench_function("table_lookup_only", |b| {
        let mut roll = 11u8;
        b.iter(|| {
            roll = if roll % 10 == 6 { roll + 5 } else { roll + 1 };
            if roll > 66 {
                roll = 11;
            }
            black_box(t.acceptance(black_box(3), roll))
        })
    });
    g.finish();
}

criterion_group!(benches, acceptance);
criterion_main!(benches);
