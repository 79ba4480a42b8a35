//! The annotated corpus checked N times, as the `corpus` bench does, for counting instructions
//! (issue 11): run it under callgrind with N = 1 and N = 2; the difference divided by the
//! number of orders is one order's cost, with the one-time loads left out.
//!
//!   cargo build --release --example corpus_count
//!   valgrind --tool=callgrind target/release/examples/corpus_count 1
//!   valgrind --tool=callgrind target/release/examples/corpus_count 2

use staffwork::order;

// The same allocator as the `staffwork` binary (src/main.rs).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let times: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1);
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/orders/corpus");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    paths.retain(|p: &std::path::PathBuf| p.extension().is_some_and(|e| e == "toml"));
    paths.sort();
    let mut files = Vec::new();
    for p in paths {
        let text = std::fs::read_to_string(&p).expect("corpus file");
        let v: toml::Value = toml::from_str(&text).expect("corpus toml");
        let meta = &v["meta"];
        let name = meta["scenario"].as_str().unwrap_or("").to_string();
        let side = meta["side"]
            .as_str()
            .filter(|s| !s.is_empty())
            .map(str::to_string);
        let texts: Vec<String> = v
            .get("order")
            .and_then(|o| o.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|o| o["text"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let scen =
            (!name.is_empty()).then(|| staffwork::scenario::bundled(&name).expect("bundled"));
        files.push((scen, side, texts));
    }
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
    let mut orders = 0usize;
    let mut errors = 0usize;
    for _ in 0..times {
        for (checker, texts) in &checkers {
            for t in texts.iter() {
                errors += usize::from(checker.check_one(std::hint::black_box(t)).has_errors());
                orders += 1;
            }
        }
    }
    println!("{orders} orders checked, {errors} with errors");
}
