//! The web table on Vimeiro (issue 15): a side's first page load, the map it fetches, the
//! umpire's console, and an order check while typing — each through the whole router in
//! process (middleware, seat cookie, allow-list, rendering), without a socket.
//! Targets (docs/performance.md): first load under 100 ms, a check under 20 ms.

use std::hint::black_box;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, header};
use criterion::{Criterion, criterion_group, criterion_main};

// The same allocator as the `staffwork` binary (src/main.rs), so the figures are what it does.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
use http_body_util::BodyExt;
use staffwork::game::{Game, NewGame};
use staffwork::web::AppState;
use staffwork::web::seats::csrf_token;
use tower::ServiceExt;

const ORDER: &str =
    "Fane's Brigade: advance along the Lourinha road to Vimeiro and defend it from the east.";

fn vimeiro() -> (tempfile::TempDir, Arc<AppState>, String, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("vimeiro.db");
    let (_, text) = staffwork::scenario::bundled_text("vimeiro-1808").expect("vimeiro");
    let sc = staffwork::scenario::bundled("vimeiro-1808").expect("vimeiro");
    Game::create(&db, NewGame::on(text.to_string(), sc, 1808).expect("new")).expect("create");
    let (st, links) = AppState::open(&db, "http://127.0.0.1:8080", false).expect("open");
    let token = |key: &str| {
        links
            .iter()
            .find(|(s, _)| s.key() == key)
            .and_then(|(_, l)| l.rsplit('/').next())
            .expect("link")
            .to_string()
    };
    let (b, u) = (token("side:british"), token("umpire"));
    (dir, st, b, u)
}

async fn get(st: &Arc<AppState>, uri: &str, token: &str) -> usize {
    let req = Request::builder()
        .uri(uri)
        .header(header::COOKIE, format!("staffwork_seat={token}"))
        .body(Body::empty())
        .expect("request");
    let res = staffwork::web::router(st.clone())
        .oneshot(req)
        .await
        .expect("response");
    res.into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes()
        .len()
}

async fn check(st: &Arc<AppState>, token: &str, text: &str) -> usize {
    let body = format!(
        "method=written&text={}",
        text.replace(' ', "+").replace('\'', "%27")
    );
    post(st, token, "/check", body).await
}

async fn post(st: &Arc<AppState>, token: &str, uri: &str, body: String) -> usize {
    let req = Request::builder()
        .method("POST")
        .uri(uri)
        .header(header::COOKIE, format!("staffwork_seat={token}"))
        .header("x-csrf-token", csrf_token(token))
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(body))
        .expect("request");
    let res = staffwork::web::router(st.clone())
        .oneshot(req)
        .await
        .expect("response");
    res.into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes()
        .len()
}

fn web(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let (_dir, st, british, umpire) = vimeiro();
    let mut g = c.benchmark_group("web");
    g.sample_size(20);
    g.bench_function("side page /play (Vimeiro)", |b| {
        b.iter(|| rt.block_on(get(&st, "/play", black_box(&british))))
    });
    g.bench_function("side map /map (Vimeiro)", |b| {
        b.iter(|| rt.block_on(get(&st, "/map", black_box(&british))))
    });
    g.bench_function("first load: /play + /map (Vimeiro)", |b| {
        b.iter(|| {
            rt.block_on(async {
                get(&st, "/play", &british).await + get(&st, "/map", &british).await
            })
        })
    });
    // The view is cached per record head (web::backend), so the rows above after the first
    // iteration are a repeat visit; these two are the cold first load after any change.
    g.bench_function(
        "a message to the umpire (a write; empties the view cache)",
        |b| {
            b.iter(|| {
                rt.block_on(post(
                    &st,
                    &british,
                    "/message",
                    "side=british&text=bench".into(),
                ))
            })
        },
    );
    g.bench_function(
        "first load after a change: message, /play, /map (Vimeiro)",
        |b| {
            b.iter(|| {
                rt.block_on(async {
                    post(&st, &british, "/message", "side=british&text=bench".into()).await
                        + get(&st, "/play", &british).await
                        + get(&st, "/map", &british).await
                })
            })
        },
    );
    g.bench_function("umpire console /umpire (Vimeiro)", |b| {
        b.iter(|| rt.block_on(get(&st, "/umpire", black_box(&umpire))))
    });
    g.bench_function("order check /check while typing (Vimeiro)", |b| {
        b.iter(|| rt.block_on(check(&st, &british, black_box(ORDER))))
    });
    g.finish();
}

criterion_group!(benches, web);
criterion_main!(benches);
