//! What-if studies (issue 16): 10,000 runs of the Vimeiro French plan for the whole day (21
//! turns, both sides' Command Phases), one run alone, and the bare engine baseline in the same
//! run: `Engine::decide(Command::Advance)` from the start to the end of the day with no plan
//! orders and no measuring. Figures go to docs/performance.md ("What-if studies").

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};

// The same allocator as the `staffwork` binary (src/main.rs), so the figures are what it does.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
use staffwork::engine::{Command, Step, evolve};
use staffwork::rules::dice::SeededDice;
use staffwork::study::{self, Options, Shard};

const PLAN: &str = "examples/plans/vimeiro-french-attack.toml";

fn plan() -> study::Plan {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(PLAN);
    study::plan::load(&path).expect("the bundled plan reads")
}

/// The bare engine: start, then `Advance` to the end of the day.
fn bare_day(plan: &study::Plan, seed: u64) -> usize {
    let engine = study::engine(plan);
    let mut state = engine.initial_state();
    let mut dice = SeededDice::new(seed);
    let start = Command::Start {
        presets: plan.presets.clone(),
        variants: plan.variants.clone(),
    };
    let mut n = 0;
    for e in engine.decide(&state, &start, &mut dice).expect("starts") {
        evolve(&mut state, &e);
    }
    while state.step != Step::GameOver {
        let events = engine
            .decide(&state, &Command::Advance, &mut dice)
            .expect("advances");
        n += events.len();
        for e in &events {
            evolve(&mut state, e);
        }
    }
    n
}

fn bench(c: &mut Criterion) {
    let plan = plan();
    let engine = study::engine(&plan);
    let mut g = c.benchmark_group("study");
    let mut seed = 0;
    g.bench_function("bare decide loop, Vimeiro day (no plan)", |b| {
        b.iter(|| {
            seed += 1;
            black_box(bare_day(&plan, seed))
        })
    });
    let mut run = 0;
    g.bench_function("one run of the Vimeiro French plan", |b| {
        b.iter(|| {
            run += 1;
            black_box(study::run::play(&plan, &engine, 1, run).expect("runs"))
        })
    });
    g.sample_size(10);
    // Both cores of the bench machine (docs/performance.md); `threads: 0` = one per core.
    g.bench_function("10,000 runs of the Vimeiro French plan, all cores", |b| {
        b.iter(|| {
            let opts = Options {
                runs: 10_000,
                seed: 1,
                threads: 0,
                shard: Shard::whole(),
                keep_runs: false,
            };
            black_box(study::run(&plan, opts, &|_| {}).expect("runs").summary.runs)
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
