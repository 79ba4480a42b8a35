//! The web table (issue 15): every route × every seat × no seat, the allow-list over random
//! games, concurrent clients on 127.0.0.1, and links that survive a killed server.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt;
use staffwork::game::{Game, NewGame};
use staffwork::web::AppState;
use staffwork::web::seats::{Seat, csrf_token};
use tower::ServiceExt;

const IMPERIAL_ORDER: &str =
    "3rd Div: march over Hinzeberg to Kümla and defend it from attacks from the north.";
const ALLIED_ORDER: &str = "Hall Div: attack along the Hinzeberg road and capture Hinzeberg.";

/// A tutorial game file in a fresh directory, opened for the web; tokens by seat key.
pub(crate) fn table(seed: u64) -> (tempfile::TempDir, Arc<AppState>, BTreeMap<String, String>) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("hall.db");
    create(&db, seed);
    let (state, issued) = AppState::open(&db, "http://127.0.0.1:1", false).unwrap();
    let tokens = issued
        .into_iter()
        .map(|(s, link)| (s.key(), link.rsplit('/').next().unwrap().to_string()))
        .collect();
    (dir, state, tokens)
}

fn create(db: &Path, seed: u64) {
    let (_, text) = staffwork::scenario::bundled_text("tutorial-hall").unwrap();
    let sc = staffwork::scenario::bundled("tutorial-hall").unwrap();
    Game::create(db, NewGame::on(text.to_string(), sc, seed).unwrap()).unwrap();
}

pub(crate) struct Reply {
    pub status: StatusCode,
    pub headers: axum::http::HeaderMap,
    pub body: String,
}

pub(crate) async fn call(
    state: &Arc<AppState>,
    method: &str,
    uri: &str,
    token: Option<&str>,
    form: &[(&str, &str)],
) -> Reply {
    let mut req = Request::builder().method(method).uri(uri);
    if let Some(t) = token {
        req = req
            .header(header::COOKIE, format!("staffwork_seat={t}"))
            .header("x-csrf-token", csrf_token(t));
    }
    let body = if method == "POST" {
        req = req.header(header::CONTENT_TYPE, "application/x-www-form-urlencoded");
        let mut s = String::new();
        for (k, v) in form {
            if !s.is_empty() {
                s.push('&');
            }
            s.push_str(k);
            s.push('=');
            s.push_str(&urlencode(v));
        }
        Body::from(s)
    } else {
        Body::empty()
    };
    let res = staffwork::web::router(state.clone())
        .oneshot(req.body(body).unwrap())
        .await
        .unwrap();
    let status = res.status();
    let headers = res.headers().clone();
    // The SSE stream never ends: read its first frame only.
    let body = if headers
        .get(header::CONTENT_TYPE)
        .is_some_and(|c| c.to_str().unwrap_or("").starts_with("text/event-stream"))
    {
        let mut b = res.into_body();
        match tokio::time::timeout(Duration::from_secs(5), b.frame()).await {
            Ok(Some(Ok(f))) => {
                String::from_utf8_lossy(f.data_ref().map_or(&[][..], |d| d)).into_owned()
            }
            _ => String::new(),
        }
    } else {
        let bytes = res.into_body().collect().await.unwrap().to_bytes();
        String::from_utf8_lossy(&bytes).into_owned()
    };
    Reply {
        status,
        headers,
        body,
    }
}

fn urlencode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(char::from(b))
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// What a seat may do on a route.
#[derive(Clone, Copy, Debug, PartialEq)]
enum May {
    /// 2xx, or 422 when the engine refuses the move on its merits (never 401/403).
    Yes,
    /// 303 to the seat's own page.
    Redirect,
    /// 403.
    No,
}

/// Method, route, form fields, and what each seat may do.
type Route = (
    &'static str,
    &'static str,
    Vec<(&'static str, &'static str)>,
    [May; 4],
);

const SEATS: [&str; 4] = ["umpire", "side:imperial", "side:allied", "observer"];

/// Route, method, form, and what each of SEATS may do; without a seat every route but `/` and
/// the static files answers 401.
fn routes() -> Vec<Route> {
    use May::*;
    vec![
        ("GET", "/", vec![], [Redirect, Redirect, Redirect, Redirect]),
        ("GET", "/play", vec![], [Redirect, Yes, Yes, Redirect]),
        (
            "GET",
            "/observe",
            vec![],
            [Redirect, Redirect, Redirect, Yes],
        ),
        ("GET", "/umpire", vec![], [Yes, No, No, No]),
        ("GET", "/umpire/as/allied", vec![], [Yes, No, No, No]),
        ("GET", "/map", vec![], [Yes, Yes, Yes, Yes]),
        ("GET", "/view.json", vec![], [Yes, Yes, Yes, Yes]),
        ("GET", "/panel/status", vec![], [Yes, Yes, Yes, Yes]),
        ("GET", "/panel/books", vec![], [Yes, Yes, Yes, Yes]),
        ("GET", "/panel/ready", vec![], [Yes, No, No, No]),
        ("GET", "/events", vec![], [Yes, Yes, Yes, Yes]),
        (
            "POST",
            "/check",
            vec![("text", IMPERIAL_ORDER), ("method", "written")],
            [No, Yes, Yes, No],
        ),
        (
            "POST",
            "/order",
            vec![("text", IMPERIAL_ORDER), ("method", "written")],
            [No, Yes, Yes, No],
        ),
        (
            "POST",
            "/move",
            vec![("piece", "1-3-i"), ("to", "10.10")],
            [Yes, Yes, No, No],
        ),
        (
            "POST",
            "/move/preview",
            vec![("piece", "1-3-i"), ("to", "9.10")],
            [Yes, Yes, No, No],
        ),
        (
            "POST",
            "/message",
            vec![("side", "imperial"), ("text", "a question")],
            [Yes, Yes, No, No],
        ),
        ("POST", "/ready", vec![], [No, Yes, Yes, No]),
        (
            "POST",
            "/initiative",
            vec![
                ("commander", "rosenblad"),
                ("command", "hall-div"),
                ("text", ALLIED_ORDER),
            ],
            // The umpire may make every request (app::authorize).
            [Yes, No, Yes, No],
        ),
        (
            "POST",
            "/default-defense",
            vec![("command", "div-2")],
            [Yes, Yes, No, No],
        ),
        ("POST", "/umpire/advance", vec![], [Yes, No, No, No]),
        (
            "POST",
            "/umpire/deadline",
            vec![("action", "set"), ("minutes", "10")],
            [Yes, No, No, No],
        ),
        (
            "POST",
            "/umpire/override",
            vec![
                ("action", "ruling"),
                ("target", "rain"),
                ("reason", "weather"),
            ],
            [Yes, No, No, No],
        ),
        (
            "POST",
            "/umpire/combat",
            vec![
                ("kind", "fire"),
                ("attackers", "art-3-i"),
                ("defenders", "hall-1"),
            ],
            [Yes, No, No, No],
        ),
        (
            "POST",
            "/umpire/reissue",
            vec![("seat", "observer")],
            [Yes, No, No, No],
        ),
        (
            "POST",
            "/umpire/branch",
            vec![("name", "fork"), ("turn", "1")],
            [Yes, No, No, No],
        ),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_route_with_every_seat_and_none_answers_its_status() {
    for (method, uri, form, may) in routes() {
        // POSTs change the game: a fresh table for each, so one cell cannot decide another.
        let (_d, st, tokens) = table(7);
        let none = call(&st, method, uri, None, &form).await;
        let expect_none = if uri == "/" {
            StatusCode::OK
        } else {
            StatusCode::UNAUTHORIZED
        };
        assert_eq!(none.status, expect_none, "{method} {uri} without a seat");
        for (seat, m) in SEATS.iter().zip(may) {
            let (_d, st, tokens2) = if method == "POST" {
                table(7)
            } else {
                (tempfile::tempdir().unwrap(), st.clone(), tokens.clone())
            };
            let r = call(&st, method, uri, Some(&tokens2[*seat]), &form).await;
            let ok = match m {
                May::Yes => r.status.is_success() || r.status == StatusCode::UNPROCESSABLE_ENTITY,
                May::Redirect => r.status == StatusCode::SEE_OTHER,
                May::No => r.status == StatusCode::FORBIDDEN,
            };
            assert!(
                ok,
                "{method} {uri} as {seat}: expected {m:?}, got {} {}",
                r.status, r.body
            );
            assert!(
                r.headers
                    .get(header::CONTENT_SECURITY_POLICY)
                    .is_some_and(|c| c.to_str().unwrap().contains("script-src 'self'")),
                "{uri}: CSP header"
            );
        }
    }
    // Static files need no seat.
    let (_d, st, _) = table(7);
    for uri in [
        "/static/htmx.min.js",
        "/static/app.js",
        "/static/style.css",
        "/static/LICENSE.htmx",
        "/favicon.ico",
    ] {
        assert_eq!(
            call(&st, "GET", uri, None, &[]).await.status,
            StatusCode::OK,
            "{uri}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_join_link_sets_a_strict_cookie_and_drops_the_token_and_a_bad_one_is_refused() {
    let (_d, st, tokens) = table(7);
    let t = &tokens["side:allied"];
    let r = call(&st, "GET", &format!("/join/{t}"), None, &[]).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    assert_eq!(r.headers[header::LOCATION], "/play");
    let cookie = r.headers[header::SET_COOKIE].to_str().unwrap();
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"));
    assert!(cookie.contains(t.as_str()));
    let bad = call(
        &st,
        "GET",
        "/join/0123456789abcdef0123456789abcdef",
        None,
        &[],
    )
    .await;
    assert_eq!(bad.status, StatusCode::FORBIDDEN);
    // Only the hash is in the game file.
    let raw = std::fs::read(_d.path().join("hall.db")).unwrap();
    assert!(
        !raw.windows(32).any(|w| w == t.as_bytes()),
        "token stored in clear"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cross_site_posts_are_refused_and_change_nothing() {
    let (_d, st, tokens) = table(7);
    let t = &tokens["side:imperial"];
    let before = st.backend.sequence(&Seat::Umpire);
    // No CSRF token.
    let req = Request::builder()
        .method("POST")
        .uri("/message")
        .header(header::COOKIE, format!("staffwork_seat={t}"))
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from("side=imperial&text=hello"))
        .unwrap();
    let r = staffwork::web::router(st.clone())
        .oneshot(req)
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    // Another site's Origin, even with the token.
    let req = Request::builder()
        .method("POST")
        .uri("/message")
        .header(header::HOST, "127.0.0.1:8080")
        .header(header::ORIGIN, "http://evil.example")
        .header(header::COOKIE, format!("staffwork_seat={t}"))
        .header("x-csrf-token", csrf_token(t))
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from("side=imperial&text=hello"))
        .unwrap();
    let r = staffwork::web::router(st.clone())
        .oneshot(req)
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    assert_eq!(
        st.backend.sequence(&Seat::Umpire),
        before,
        "nothing written"
    );
    // User text is escaped.
    let r = call(
        &st,
        "POST",
        "/message",
        Some(t),
        &[("side", "imperial"), ("text", "<script>alert(1)</script>")],
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    let page = call(&st, "GET", "/panel/books", Some(t), &[]).await.body;
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(!page.contains("<script>alert"));
}

/// A small deterministic generator for the random games (the web's tests, not the engine).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

/// Random games: orders, messages, moves and advances by random seats; after each step, no
/// side's responses name an enemy order, message, die, hidden piece or hash, and its sequence
/// counts only what it may see.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_side_is_ever_shown_what_it_may_not_see() {
    for seed in [3u64, 11, 29] {
        let (dir, st, tokens) = table(seed);
        let mut rng = Lcg(seed);
        let mut secrets: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for step in 0..14 {
            let side = ["imperial", "allied"][rng.next(2) as usize];
            let tok = tokens[&format!("side:{side}")].clone();
            match rng.next(4) {
                0 => {
                    let text = if side == "imperial" {
                        IMPERIAL_ORDER
                    } else {
                        ALLIED_ORDER
                    };
                    let m = ["written", "oral", "in-person"][rng.next(3) as usize];
                    call(
                        &st,
                        "POST",
                        "/order",
                        Some(&tok),
                        &[("text", text), ("method", m)],
                    )
                    .await;
                }
                1 => {
                    let secret = format!("SECRET{side}{seed}x{step}");
                    let r = call(
                        &st,
                        "POST",
                        "/message",
                        Some(&tok),
                        &[("side", side), ("text", &secret)],
                    )
                    .await;
                    assert_eq!(r.status, StatusCode::OK);
                    secrets.entry(side).or_default().push(secret);
                }
                2 => {
                    let piece = if side == "imperial" {
                        "1-3-i"
                    } else {
                        "hall-1"
                    };
                    let to = format!("{}.{}", 5 + rng.next(20), 5 + rng.next(10));
                    call(
                        &st,
                        "POST",
                        "/move",
                        Some(&tok),
                        &[("piece", piece), ("to", &to)],
                    )
                    .await;
                }
                _ => {
                    call(&st, "POST", "/umpire/advance", Some(&tokens["umpire"]), &[]).await;
                }
            }
            let game = Game::open(&dir.path().join("hall.db")).unwrap();
            let events = game.store.events().unwrap();
            for me in ["imperial", "allied"] {
                let enemy = if me == "imperial" {
                    "allied"
                } else {
                    "imperial"
                };
                let tok = tokens[&format!("side:{me}")].clone();
                let mut all = String::new();
                for uri in [
                    "/play",
                    "/map",
                    "/view.json",
                    "/panel/books",
                    "/panel/status",
                    "/events",
                ] {
                    let r = call(&st, "GET", uri, Some(&tok), &[]).await;
                    assert_eq!(r.status, StatusCode::OK, "{uri}");
                    all.push_str(&r.body);
                }
                for s in secrets.get(enemy).into_iter().flatten() {
                    assert!(
                        !all.contains(s.as_str()),
                        "{me} saw the {enemy} message {s}"
                    );
                }
                for o in game.state.orders.values().filter(|o| o.side == enemy) {
                    assert!(
                        !all.contains(&o.readback),
                        "{me} saw {enemy} order {}: {}",
                        o.number,
                        o.readback
                    );
                }
                // Pieces: only those visible_positions shows this side.
                let seen = staffwork::view::visible_positions(
                    &game.state,
                    &game.scenario,
                    &staffwork::view::Viewer::Side(me.into()),
                );
                let v: serde_json::Value = serde_json::from_str(
                    &call(&st, "GET", "/view.json", Some(&tok), &[]).await.body,
                )
                .unwrap();
                // 4.0, decision 0161: enemy stacks no Commander may examine are drawn as a
                // stack at a hex, with nothing of what is in it.
                let stacks = staffwork::view::enemy_stacks(
                    &game.state,
                    &game.scenario,
                    &staffwork::view::Viewer::Side(me.into()),
                );
                let drawn: Vec<String> = v["stacks"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|h| h.as_str().unwrap().to_string())
                    .collect();
                assert_eq!(
                    drawn,
                    stacks.iter().map(|h| h.to_string()).collect::<Vec<_>>(),
                    "{me}'s stacks"
                );
                for p in v["pieces"].as_array().unwrap() {
                    let id = p["id"].as_str().unwrap();
                    assert!(seen.contains_key(id), "{me} shown unseen piece {id}");
                    if p["side"] == enemy {
                        assert!(p["detail"].is_null(), "{me} shown the state of {id}");
                    }
                }
                for e in v["events"].as_array().unwrap() {
                    assert_eq!(e["dice"], "", "{me} shown dice: {e}");
                }
                // Issue 15, decision 0160: the side's order book counts its own orders 1, 2, 3
                // …, and no page names a higher number, which would count the enemy's orders.
                let own = game.state.orders.values().filter(|o| o.side == me).count() as u64;
                let numbers: Vec<u64> = v["orders"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|o| o["number"].as_u64().unwrap())
                    .collect();
                assert_eq!(numbers, (1..=own).collect::<Vec<_>>(), "{me}'s order book");
                for (i, _) in all.match_indices("order ") {
                    let digits: String = all[i + 6..]
                        .chars()
                        .take_while(char::is_ascii_digit)
                        .collect();
                    if let Ok(n) = digits.parse::<u64>() {
                        assert!(n <= own, "{me} shown order {n} of {own}");
                    }
                }
                // Counts: the side's sequence is the number of events it may see.
                let visible = events
                    .iter()
                    .filter(|e| staffwork::view::Viewer::Side(me.into()).sees(&e.event.visibility))
                    .count() as u64;
                let seq = st.backend.sequence(&Seat::Side(me.into()));
                assert!(
                    seq <= visible,
                    "{me}: sequence {seq} > {visible} visible events"
                );
                assert!(
                    all.contains(&format!("sequence {seq}")),
                    "{me}: SSE carries its own sequence"
                );
                for e in &events {
                    assert!(!all.contains(&e.hash), "{me} shown an event hash");
                }
                for e in events.iter().filter(|e| {
                    e.event.visibility == staffwork::engine::Visibility::Umpire
                        || e.event.visibility == staffwork::engine::Visibility::Side(enemy.into())
                }) {
                    let text = format!("{:?}", e.event.kind);
                    // Enemy order numbers appear in enemy events; the side must not see them.
                    if let staffwork::engine::EventKind::OrderIssued { order } = &e.event.kind {
                        assert!(!all.contains(&order.readback), "{me} saw {text}");
                    }
                }
            }
        }
        assert!(st.backend.verify().unwrap(), "the game verifies");
    }
}

/// A minimal HTTP/1.1 client over a loopback TCP socket.
async fn http(
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    token: &str,
    body: &str,
) -> u16 {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nOrigin: http://{addr}\r\nCookie: staffwork_seat={token}\r\nX-CSRF-Token: {}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        csrf_token(token),
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).await.unwrap();
    let text = String::from_utf8_lossy(&out);
    text.split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_concurrent_clients_lose_nothing_and_never_double_spend() {
    let (dir, st, tokens) = table(7);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(staffwork::web::serve(listener, st.clone()));
    let tok = tokens["side:imperial"].clone();
    let orders = [
        IMPERIAL_ORDER,
        "2nd Div: march to Kirseberg and defend it.",
        "4th Div: march to Kirseberg and defend the bridge there.",
    ];
    let work = async {
        // 10 clients send 6-point General orders (written: 5 + 1, 6.4.1) to three divisions
        // against 15 command points, and a message each, all at once.
        let mut handles = Vec::new();
        for i in 0..10 {
            let order = format!("method=written&text={}", urlencode(orders[i % 3]));
            let tok = tok.clone();
            handles.push(tokio::spawn(async move {
                let o = http(addr, "POST", "/order", &tok, &order).await;
                let m = http(
                    addr,
                    "POST",
                    "/message",
                    &tok,
                    &format!("side=imperial&text=note+{i}"),
                )
                .await;
                (o, m)
            }));
        }
        let mut codes = Vec::new();
        for h in handles {
            codes.push(h.await.unwrap());
        }
        codes
    };
    let codes = tokio::time::timeout(Duration::from_secs(60), work)
        .await
        .expect("10 clients finish within 60 s");
    let sent = codes.iter().filter(|(o, _)| *o == 200).count();
    let refused = codes.iter().filter(|(o, _)| *o == 422).count();
    assert_eq!(
        (sent, refused),
        (2, 8),
        "two orders fit in 15 points: {codes:?}"
    );
    assert!(
        codes.iter().all(|(_, m)| *m == 200),
        "every message kept: {codes:?}"
    );
    server.abort();
    let game = Game::open(&dir.path().join("hall.db")).unwrap();
    assert_eq!(game.state.sides["imperial"].command_points, 3);
    let events = game.store.events().unwrap();
    let issued = events
        .iter()
        .filter(|e| {
            matches!(&e.event.kind, staffwork::engine::EventKind::OrderIssued { order } if order.side == "imperial")
        })
        .count();
    let messages = events
        .iter()
        .filter(|e| {
            matches!(
                e.event.kind,
                staffwork::engine::EventKind::MessageSent { .. }
            )
        })
        .count();
    assert_eq!((issued, messages), (2, 10));
    assert!(game.verify().unwrap().ok());
}

fn spawn_server(
    db: &Path,
    reissue: bool,
) -> (std::process::Child, BTreeMap<String, String>, String) {
    use std::io::{BufRead, BufReader};
    let mut args = vec![
        "serve".to_string(),
        "--db".into(),
        db.display().to_string(),
        "--addr".into(),
        "127.0.0.1:0".into(),
    ];
    if reissue {
        args.push("--reissue".into());
    }
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_staffwork"))
        .args(&args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let mut lines = BufReader::new(out).lines();
    let first = lines.next().unwrap().unwrap();
    let base = first.rsplit(' ').next().unwrap().to_string();
    let mut links = BTreeMap::new();
    for l in lines.by_ref() {
        let l = l.unwrap();
        if l.starts_with("Give each player") {
            break;
        }
        let mut w = l.split_whitespace();
        if let (Some(seat), Some(link)) = (w.next(), w.next())
            && link.contains("/join/")
        {
            links.insert(
                seat.to_string(),
                link.rsplit('/').next().unwrap().to_string(),
            );
        }
    }
    (child, links, base)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_server_leaves_a_game_that_verifies_and_links_that_still_open_seats() {
    let dir = tempfile::tempdir().unwrap();
    let db: PathBuf = dir.path().join("hall.db");
    create(&db, 5);
    let (mut child, links, base) = spawn_server(&db, false);
    assert_eq!(links.len(), 4, "{links:?}");
    let addr: std::net::SocketAddr = base.trim_start_matches("http://").parse().unwrap();
    let tok = &links["side:imperial"];
    let body = format!("method=written&text={}", urlencode(IMPERIAL_ORDER));
    assert_eq!(http(addr, "POST", "/order", tok, &body).await, 200);
    // Kill it hard in the middle of the game.
    child.kill().unwrap();
    child.wait().unwrap();
    let game = Game::open(&db).unwrap();
    assert!(
        game.verify().unwrap().ok(),
        "the game verifies after a kill"
    );
    // Restart: no new links are printed, and the old ones still open their seats.
    let (mut child, again, base) = spawn_server(&db, false);
    assert!(again.is_empty(), "no new links on restart: {again:?}");
    let addr: std::net::SocketAddr = base.trim_start_matches("http://").parse().unwrap();
    for (seat, t) in &links {
        let code = http(addr, "GET", &format!("/join/{t}"), t, "").await;
        assert_eq!(code, 303, "{seat}'s link after a restart");
    }
    child.kill().unwrap();
    child.wait().unwrap();
    // --reissue revokes every old link.
    let (mut child, fresh, base) = spawn_server(&db, true);
    let addr: std::net::SocketAddr = base.trim_start_matches("http://").parse().unwrap();
    assert_eq!(fresh.len(), 4);
    let old = &links["umpire"];
    assert_eq!(
        http(addr, "GET", &format!("/join/{old}"), old, "").await,
        403
    );
    child.kill().unwrap();
    child.wait().unwrap();
}

/// Issue 15, movement: the side picks a unit and a destination; the engine's path and MP cost
/// are shown before anything is moved (app::preview writes nothing); then the move is made.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_movement_form_shows_the_path_and_cost_before_moving() {
    let (dir, st, tokens) = table(3);
    let db = dir.path().join("hall.db");
    let imperial = tokens["side:imperial"].as_str();
    let umpire = tokens["umpire"].as_str();
    let form = [("piece", "1-3-i"), ("to", "9.10")];
    // In the Command Phase the engine refuses the move, saying why (5.1).
    let early = call(&st, "POST", "/move/preview", Some(imperial), &form).await;
    assert_eq!(
        early.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        early.body
    );
    let mut shown = None;
    for _ in 0..8 {
        assert!(
            call(&st, "POST", "/umpire/advance", Some(umpire), &[])
                .await
                .status
                .is_success()
        );
        let r = call(&st, "POST", "/move/preview", Some(imperial), &form).await;
        if r.status == StatusCode::OK {
            shown = Some(r.body);
            break;
        }
    }
    let shown = shown.expect("the imperial movement phase comes within eight advances");
    assert!(
        shown.contains("1-3-i moves 8.10 → 9.10") && shown.contains("MP)"),
        "path and cost: {shown}"
    );
    let before = Game::open(&db).unwrap().state.positions["1-3-i"];
    assert_eq!(before.to_string(), "8.10", "a preview moves nothing");
    let moved = call(&st, "POST", "/move", Some(imperial), &form).await;
    assert_eq!(moved.status, StatusCode::OK, "{}", moved.body);
    assert_eq!(
        Game::open(&db).unwrap().state.positions["1-3-i"].to_string(),
        "9.10"
    );
    // The other side cannot preview (or learn anything of) an enemy piece's move.
    let allied = call(
        &st,
        "POST",
        "/move/preview",
        Some(&tokens["side:allied"]),
        &form,
    )
    .await;
    assert_eq!(allied.status, StatusCode::FORBIDDEN);
}

/// Issue 15, the console: the umpire imposes an order with a reason; its side sees it in its
/// order book, the other side does not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_umpire_imposes_an_order_that_only_its_side_sees() {
    let (_dir, st, tokens) = table(5);
    let r = call(
        &st,
        "POST",
        "/umpire/override",
        Some(&tokens["umpire"]),
        &[
            ("action", "impose"),
            ("target", "div-3"),
            ("text", "3rd Div: defend Kümla."),
            ("reason", "the exercise starts with the 3rd on the hill"),
        ],
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let imperial = call(
        &st,
        "GET",
        "/view.json",
        Some(&tokens["side:imperial"]),
        &[],
    )
    .await;
    assert!(imperial.body.contains("defend K"), "{}", imperial.body);
    let allied = call(&st, "GET", "/view.json", Some(&tokens["side:allied"]), &[]).await;
    assert!(
        !allied.body.contains("defend K"),
        "the allied side sees the imposed order"
    );
    // A side cannot override.
    let side = call(
        &st,
        "POST",
        "/umpire/override",
        Some(&tokens["side:allied"]),
        &[("action", "ruling"), ("target", "x"), ("reason", "y")],
    )
    .await;
    assert_eq!(side.status, StatusCode::FORBIDDEN);
}

/// Issue 15, the console: a deadline per phase, with pause and extend, that every seat sees in
/// its header; a side cannot set one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_phase_deadline_is_set_paused_and_extended_by_the_umpire_and_seen_by_the_sides() {
    let (_dir, st, tokens) = table(6);
    let umpire = tokens["umpire"].as_str();
    let set = |action: &'static str, minutes: &'static str| {
        let st = st.clone();
        let umpire = umpire.to_string();
        async move {
            call(
                &st,
                "POST",
                "/umpire/deadline",
                Some(&umpire),
                &[("action", action), ("minutes", minutes)],
            )
            .await
        }
    };
    let r = set("set", "10").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert!(r.body.contains("min left"), "{}", r.body);
    let side = call(
        &st,
        "GET",
        "/panel/status",
        Some(&tokens["side:allied"]),
        &[],
    )
    .await;
    assert!(
        side.body.contains("deadline") && side.body.contains("min left"),
        "{}",
        side.body
    );
    let paused = set("pause", "").await;
    assert!(paused.body.contains("paused"), "{}", paused.body);
    let extended = set("extend", "5").await;
    assert!(
        extended.body.contains("paused (15 min left)"),
        "{}",
        extended.body
    );
    assert_eq!(
        set("pause", "").await.status,
        StatusCode::UNPROCESSABLE_ENTITY
    );
    assert_eq!(
        set("set", "0").await.status,
        StatusCode::UNPROCESSABLE_ENTITY
    );
    let by_side = call(
        &st,
        "POST",
        "/umpire/deadline",
        Some(&tokens["side:imperial"]),
        &[("action", "clear")],
    )
    .await;
    assert_eq!(by_side.status, StatusCode::FORBIDDEN);
    // The next phase starts without a deadline.
    assert!(
        call(&st, "POST", "/umpire/advance", Some(umpire), &[])
            .await
            .status
            .is_success()
    );
    let side = call(
        &st,
        "GET",
        "/panel/status",
        Some(&tokens["side:allied"]),
        &[],
    )
    .await;
    assert!(!side.body.contains("deadline"), "{}", side.body);
}

/// `staffwork message`: the same request on the command line; the other side never sees it, and
/// a message from the wrong table is refused (exit 1) and writes nothing.
#[test]
fn a_message_on_the_command_line_is_seen_by_its_side_and_the_umpire_only() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("hall.db");
    create(&db, 2);
    let db_s = db.to_str().unwrap();
    let run = |args: &[&str]| crate::common::staffwork(args);
    let sent = run(&[
        "message",
        "--db",
        db_s,
        "--side",
        "imperial",
        "--from",
        "imperial",
        "Send the reserve?",
    ]);
    assert!(
        sent.status.success(),
        "{}",
        String::from_utf8_lossy(&sent.stderr)
    );
    let log = |side: &str| {
        String::from_utf8_lossy(&run(&["log", "--db", db_s, "--side", side]).stdout).into_owned()
    };
    assert!(log("imperial").contains("Send the reserve?"));
    assert!(!log("allied").contains("reserve"));
    let events = Game::open(&db).unwrap().state.events;
    let wrong = run(&[
        "message", "--db", db_s, "--side", "allied", "--from", "imperial", "hello",
    ]);
    assert_eq!(wrong.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&wrong.stderr).contains("message-sender"));
    assert_eq!(
        Game::open(&db).unwrap().state.events,
        events,
        "nothing written"
    );
}

/// A game on a conformance miniature, set up by the umpire's commands, opened for the web.
fn mini_table(
    scenario: &str,
    seed: u64,
    setup: &[&str],
) -> (tempfile::TempDir, Arc<AppState>, BTreeMap<String, String>) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("mini.db");
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/conformance/scenarios")
        .join(scenario);
    let text = std::fs::read_to_string(&file).unwrap();
    let sc = staffwork::scenario::parse(scenario, &text).unwrap();
    Game::create(&db, NewGame::on(text, sc, seed).unwrap()).unwrap();
    let mut game = Game::open(&db).unwrap();
    for line in setup {
        let req = staffwork::app::parse_request(line).unwrap();
        staffwork::app::execute(&mut game, &staffwork::view::Viewer::Umpire, &req)
            .unwrap_or_else(|e| panic!("{line}: {e}"));
    }
    drop(game);
    let (state, issued) = AppState::open(&db, "http://127.0.0.1:1", false).unwrap();
    let tokens = issued
        .into_iter()
        .map(|(s, link)| (s.key(), link.rsplit('/').next().unwrap().to_string()))
        .collect();
    (dir, state, tokens)
}

fn payloads(db: &Path) -> String {
    Game::open(db)
        .unwrap()
        .events(None)
        .unwrap()
        .iter()
        .map(|e| e.payload.clone())
        .collect::<Vec<_>>()
        .join("\n")
}

/// 15.1.7 (decision 0152): the combat form carries the lone Skirmisher's choice in Hindering
/// terrain; unsaid, the engine asks for it; a choice that is not one is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_combat_form_carries_a_lone_skirmishers_choice_15_1_7() {
    let (dir, st, tokens) = mini_table(
        "mini-withdraw.toml",
        1,
        &[
            r#"override --reason set-up --impose-order fr-1 --text "French 1st brigade: attack the Austrian line.""#,
            "override --reason set-up --place fr-1=8.04",
            "override --reason set-up --place aus-sk=8.05",
            "turn",
        ],
    );
    let db = dir.path().join("mini.db");
    let umpire = tokens["umpire"].as_str();
    let base = [
        ("kind", "close-combat"),
        ("attackers", "fr-1"),
        ("defenders", "aus-sk"),
    ];
    let with = |extra: &[(&'static str, &'static str)]| {
        let mut f = base.to_vec();
        f.extend_from_slice(extra);
        f
    };
    let asked = call(&st, "POST", "/umpire/combat", Some(umpire), &base).await;
    assert_eq!(asked.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        asked.body.contains("Refused (15.1.7)") && asked.body.contains("its player chooses"),
        "{}",
        asked.body
    );
    let bad = call(
        &st,
        "POST",
        "/umpire/combat",
        Some(umpire),
        &with(&[("skirmisher", "hides")]),
    )
    .await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(bad.body.contains("15.1.7"), "{}", bad.body);
    assert!(
        !payloads(&db).contains("combat-resolved"),
        "nothing was fought yet"
    );
    let r = call(
        &st,
        "POST",
        "/umpire/combat",
        Some(umpire),
        &with(&[("skirmisher", "retreats")]),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert!(r.body.contains("Combat resolved"), "{}", r.body);
    assert!(
        payloads(&db).contains("skirmisher-retreats"),
        "the Jäger retreats one hex before the combat"
    );
}

/// 12.1.1 with 15.1.4 (decision 0151): the umpire allows a Close Combat entry across a
/// non-frontal hexside from the combat form, with a reason recorded with the combat.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_combat_form_lets_the_umpire_allow_a_non_frontal_entry_15_1_4() {
    let (dir, st, tokens) = mini_table(
        "mini-arcs.toml",
        1,
        &[
            r#"override --reason set-up --impose-order fr-1 --text "French 1st brigade: attack the Austrian line.""#,
            "turn",
            // fr-1 turns about: the N hexside to aus-1 at 5.05 is now in its rear.
            "move --piece fr-1 --to 5.04 --face SSW",
        ],
    );
    let db = dir.path().join("mini.db");
    let umpire = tokens["umpire"].as_str();
    let base = [
        ("kind", "close-combat"),
        ("attackers", "fr-1"),
        ("defenders", "aus-1"),
    ];
    let with = |extra: &[(&'static str, &'static str)]| {
        let mut f = base.to_vec();
        f.extend_from_slice(extra);
        f
    };
    let r = call(&st, "POST", "/umpire/combat", Some(umpire), &base).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        r.body.contains("Refused (12.1.1)") && r.body.contains("in its rear"),
        "{}",
        r.body
    );
    let r = call(
        &st,
        "POST",
        "/umpire/combat",
        Some(umpire),
        &with(&[("allow_entry", "yes"), ("ruling", "  ")]),
    )
    .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.body.contains("needs a reason"), "{}", r.body);
    assert!(!payloads(&db).contains("combat-resolved"));
    let r = call(
        &st,
        "POST",
        "/umpire/combat",
        Some(umpire),
        &with(&[
            ("allow_entry", "yes"),
            ("ruling", "the brigade wheeled in the smoke"),
        ]),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let all = payloads(&db);
    assert!(all.contains("combat-resolved"), "the attack is fought");
    assert!(
        all.contains("wheeled in the smoke"),
        "the reason is recorded"
    );
}

/// The combat form's refusals speak of its fields, not of the command line's flags: the entry
/// the umpire may allow names the “allow a non-frontal entry” and “umpire's reason” fields.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_combat_forms_refusals_name_its_fields_not_command_line_flags() {
    let (_dir, st, tokens) = mini_table(
        "mini-arcs.toml",
        1,
        &[
            r#"override --reason set-up --impose-order fr-1 --text "French 1st brigade: attack the Austrian line.""#,
            "turn",
            "move --piece fr-1 --to 5.04 --face SSW",
        ],
    );
    let umpire = tokens["umpire"].as_str();
    let form = [
        ("kind", "close-combat"),
        ("attackers", "fr-1"),
        ("defenders", "aus-1"),
    ];
    let r = call(&st, "POST", "/umpire/combat", Some(umpire), &form).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        r.body
            .contains("the “allow a non-frontal entry” and “umpire&#39;s reason” fields")
            || r.body
                .contains("the “allow a non-frontal entry” and “umpire's reason” fields"),
        "{}",
        r.body
    );
    assert!(
        !r.body.contains("--allow-entry") && !r.body.contains("--ruling"),
        "no flag the web user cannot type: {}",
        r.body
    );
    // An arc ruled without a reason is refused in the form's words too.
    let mut arc = form.to_vec();
    arc.push(("attack_arc", "front"));
    let r = call(&st, "POST", "/umpire/combat", Some(umpire), &arc).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.body.contains("needs a reason in “umpire"), "{}", r.body);
}

/// 13.1.1 (decision 0144): the combat form attacks from a Line Extension's hex, as `combat
/// --attacker-at` does; a hex that holds none of the unit's extensions, or is no hex, is refused
/// naming the field, and changes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_combat_form_attacks_from_a_line_extension_13_1_1() {
    let (dir, st, tokens) = mini_table(
        "mini-facing.toml",
        1,
        &[
            r#"override --reason set-up --impose-order fa-z --text "French line in the Austrian ZoI: attack 7.04.""#,
            "turn",
            "move --piece fa-z --to 6.03 --extend 7.03 --face NNE",
        ],
    );
    let db = dir.path().join("mini.db");
    let umpire = tokens["umpire"].as_str();
    let at = |hex: &'static str| {
        vec![
            ("kind", "close-combat"),
            ("attackers", "fa-z"),
            ("defenders", "au-z"),
            ("attacker_at", hex),
        ]
    };
    let r = call(&st, "POST", "/umpire/combat", Some(umpire), &at("7.x3")).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        r.body.contains("attacker&#39;s Line Extension at hex")
            || r.body.contains("attacker's Line Extension at hex"),
        "{}",
        r.body
    );
    let r = call(&st, "POST", "/umpire/combat", Some(umpire), &at("6.02")).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        r.body.contains("has no Line Extension in 6.02"),
        "{}",
        r.body
    );
    assert!(!payloads(&db).contains("combat-resolved"));
    let r = call(&st, "POST", "/umpire/combat", Some(umpire), &at("7.03")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let all = payloads(&db);
    assert!(
        all.contains("\"attacker_at\":\"7.03\""),
        "the extension attacked from its own hex: {all}"
    );
}

/// Every option of `staffwork combat` has a field in the console's combat form.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_combat_form_offers_every_option_of_the_command_line() {
    let (_dir, st, tokens) = mini_table("mini-facing.toml", 1, &["turn"]);
    let page = call(&st, "GET", "/umpire", Some(&tokens["umpire"]), &[]).await;
    assert_eq!(page.status, StatusCode::OK);
    for name in [
        "attackers",
        "defenders",
        "attacker_at",
        "defender_at",
        "opportunity_at",
        "reaction_at",
        "allow_reaction",
        "square",
        "skirmisher",
        "skirmisher_absorbs",
        "square_fire",
        "allow_entry",
        "attack_arc",
        "flanks",
        "ruling",
        "fortified",
        "cannister",
        "reaction",
        "follow_on",
        "follow_ons",
        "quality",
        "defender_quality",
    ] {
        assert!(
            page.body.contains(&format!("name=\"{name}\"")),
            "the combat form has no `{name}` field"
        );
    }
    // The command line's options, read from its help, each stand for one of those fields.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_staffwork"))
        .args(["combat", "close-combat", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    // Option lines start with the flag (`      --attacker-at <HEX>`).
    for flag in help
        .lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with("--"))
        .filter_map(|l| l.split_whitespace().next())
    {
        if matches!(flag, "--db" | "--format" | "--help") {
            continue;
        }
        assert!(
            staffwork::web::backend::field_label(staffwork::web::backend::COMBAT_FIELDS, flag)
                .is_some(),
            "`{flag}` of `staffwork combat` has no field in the web form"
        );
    }
}

/// 13.1.2 (decision 0153): the owner's map shows each Line Extension as a counter of its own
/// with its own Morale State, facing and MP; the enemy's map shows none of it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_map_shows_a_line_extensions_own_morale_and_facing_to_its_side_only_13_1_2() {
    let (_dir, st, tokens) = mini_table(
        "mini-facing.toml",
        1,
        &[
            "override --reason set-up --set-unit fa-n --morale-state shaken",
            "turn",
            "move --piece fa-n --to 5.05 --extend 4.05",
            "move --piece fa-n --extension 4.05 --to 4.05 --face W",
        ],
    );
    let own = call(&st, "GET", "/map", Some(&tokens["side:french"]), &[]).await;
    assert_eq!(own.status, StatusCode::OK);
    assert!(
        own.body.contains("data-hex=\"4.05\"")
            && own.body.contains("Line Extension of")
            && own.body.contains("4.05 (shaken, faces W, "),
        "the French map: {}",
        own.body
    );
    let enemy = call(&st, "GET", "/map", Some(&tokens["side:austrian"]), &[]).await;
    assert_eq!(enemy.status, StatusCode::OK);
    assert!(
        !enemy.body.contains("Line Extension of"),
        "the Austrian map shows no French extension detail"
    );
}

/// 17.4 (decision 0167): the umpire's console lists the Opportunity Fire a move opened, and its
/// combat form fires at a hex of that path; once fired, the offer is gone; a bad hex is refused
/// and changes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_umpire_console_offers_opportunity_fire_and_fires_at_a_hex_of_the_path_17_4() {
    let (dir, st, tokens) = mini_table(
        "mini-opportunity.toml",
        1,
        &["turn", "move --piece fr-col --to 5.05"],
    );
    let db = dir.path().join("mini.db");
    let umpire = tokens["umpire"].as_str();
    let page = call(&st, "GET", "/umpire", Some(umpire), &[]).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(
        page.body.contains("Opportunity Fire open (17.4)")
            && page.body.contains(
                "aus-bty (austrian, 5.03) may fire at fr-col at 5.06 (range 3), 5.05 (range 2)"
            ),
        "{}",
        page.body
    );
    let fire = |at: &'static str| {
        [
            ("kind", "fire"),
            ("attackers", "aus-bty"),
            ("defenders", "fr-col"),
            ("opportunity_at", at),
        ]
    };
    let bad = call(&st, "POST", "/umpire/combat", Some(umpire), &fire("5.x6")).await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(bad.body.contains("17.4"), "{}", bad.body);
    assert!(
        !payloads(&db).contains("combat-resolved"),
        "nothing fired yet"
    );
    let r = call(&st, "POST", "/umpire/combat", Some(umpire), &fire("5.06")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert!(
        payloads(&db).contains("opportunity_at"),
        "the fire is recorded as Opportunity Fire"
    );
    let page = call(&st, "GET", "/umpire", Some(umpire), &[]).await;
    assert!(
        !page.body.contains("Opportunity Fire open"),
        "17.4.1: once fired at the Column, the battery is not offered again"
    );
}

/// 17.4 trigger 3 and 17.4.1 (decision 0154): the umpire's console lists a formation change in
/// a battery's zone with the path, and a second battery firing on a trigger already fired on is
/// refused there with the rule and the hex, writing nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_umpire_console_offers_a_formation_change_and_refuses_a_second_firer_17_4_1() {
    let (dir, st, tokens) = mini_table(
        "mini-opportunity-pair.toml",
        1,
        &[
            "turn",
            "move --piece fr-col --to 5.06",
            "move --piece fr-col --to 5.06 --formation line",
        ],
    );
    let db = dir.path().join("mini.db");
    let umpire = tokens["umpire"].as_str();
    let page = call(&st, "GET", "/umpire", Some(umpire), &[]).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(
        page.body.contains(
            "aus-bty (austrian, 5.03) may fire at fr-col at 5.06 (range 3); changing formation at 5.06 (range 3)"
        ),
        "{}",
        page.body
    );
    let fire = |battery: &'static str| {
        [
            ("kind", "fire"),
            ("attackers", battery),
            ("defenders", "fr-col"),
            ("opportunity_at", "5.06"),
        ]
    };
    let r = call(
        &st,
        "POST",
        "/umpire/combat",
        Some(umpire),
        &fire("aus-bty"),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let before = payloads(&db);
    let r = call(
        &st,
        "POST",
        "/umpire/combat",
        Some(umpire),
        &fire("aus-bty2"),
    )
    .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.body);
    assert!(
        r.body.contains("17.4.1") && r.body.contains("5.06"),
        "{}",
        r.body
    );
    assert_eq!(payloads(&db), before, "a refused fire writes nothing");
}

/// 16.5 (decision 0155): the umpire's console lists the Reaction Charges a move opened beside
/// the Opportunity Fire: the cavalry, the hexes of its Reaction Zone, and which need its Morale
/// Check (16.5.5).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_umpire_console_offers_reaction_charges_along_a_move_16_5() {
    let (_dir, st, tokens) = mini_table(
        "mini-reaction.toml",
        1,
        &["turn", "move --piece fr-col --to 5.05"],
    );
    let page = call(&st, "GET", "/umpire", Some(tokens["umpire"].as_str()), &[]).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(
        page.body.contains("Reaction Charges open (16.5)")
            && page.body.contains(
                "aus-cav (austrian, 3.06) may charge fr-col at 5.08 (range 3), 5.07 (range 2), 5.06 (range 2), 5.05 (range 2, Morale Check 16.5.5)"
            ),
        "{}",
        page.body
    );
}

/// 16.5 with 13.1.1 (decision 0211): the console lists a Reaction Charge at a Line Extension's
/// own move, naming the extension's hex, and its combat form charges it there ("defender at"
/// with "Reaction Charge at hex"), recorded as the extension's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_umpire_console_offers_and_charges_a_line_extension_16_5_13_1_1() {
    let (dir, st, tokens) = mini_table(
        "mini-reaction-cavalry.toml",
        1,
        &[
            "override --reason set-up --place aus-cav3=10.05",
            "turn",
            "move --piece fr-line --to 9.09 --extend 10.08",
        ],
    );
    let umpire = tokens["umpire"].as_str();
    let page = call(&st, "GET", "/umpire", Some(umpire), &[]).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(
        page.body.contains(
            "aus-cav3 (austrian, 10.05) may charge fr-line&#39;s Line Extension (now 10.08) at 10.08 (range 3)"
        ) || page.body.contains(
            "aus-cav3 (austrian, 10.05) may charge fr-line's Line Extension (now 10.08) at 10.08 (range 3)"
        ),
        "{}",
        page.body
    );
    let form = [
        ("kind", "charge"),
        ("attackers", "aus-cav3"),
        ("defenders", "fr-line"),
        ("defender_at", "10.08"),
        ("reaction", "yes"),
        ("square", "no"),
        ("reaction_at", "10.08"),
    ];
    let r = call(&st, "POST", "/umpire/combat", Some(umpire), &form).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let db = dir.path().join("mini.db");
    assert!(
        payloads(&db).contains("\"charge_at\":\"10.08\",\"defender_at\":\"10.08\""),
        "the charge is recorded at the extension"
    );
}

/// 22.1 (decisions 0157, 0159 brief): the umpire's console lists the Cavalry Withdrawals owed,
/// as `status` does: the cavalry, the mover next to it, the 6–12 hexes and the move that makes
/// it; once the cavalry has withdrawn the item is gone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_umpire_console_lists_owed_cavalry_withdrawals_22_1() {
    let (dir, st, tokens) = mini_table(
        "mini-reaction-cavalry.toml",
        1,
        &["turn", "move --piece fr-col --to 4.06"],
    );
    let page = call(&st, "GET", "/umpire", Some(tokens["umpire"].as_str()), &[]).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(
        page.body.contains("Cavalry Withdrawals owed (22.1)")
            && page.body.contains(
                "aus-cav (austrian, 3.06) has fr-col adjacent at 4.06; it must Reaction Charge it or withdraw 6–12 hexes from 3.06, away from 4.06 (21.4.1)"
            )
            && page
                .body
                .contains("move --piece aus-cav --retreat-from 4.06 --to HEX"),
        "{}",
        page.body
    );
    drop(st);
    let mut game = Game::open(&dir.path().join("mini.db")).unwrap();
    let req = staffwork::app::parse_request(
        "move --piece aus-cav --retreat-from 4.06 --to 1.02 --path 2.06,1.06,1.05,1.04,1.03,1.02",
    )
    .unwrap();
    staffwork::app::execute(&mut game, &staffwork::view::Viewer::Umpire, &req).unwrap();
    drop(game);
    // The seats' tokens are kept in the game file: the same link signs in again.
    let (st, _) = AppState::open(&dir.path().join("mini.db"), "http://127.0.0.1:1", false).unwrap();
    let page = call(&st, "GET", "/umpire", Some(tokens["umpire"].as_str()), &[]).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(
        !page.body.contains("Cavalry Withdrawals owed"),
        "{}",
        page.body
    );
}

/// 16.5 (decision 0156): the console's combat form charges the mover at a hex of its path
/// ("Reaction Charge at hex", `--at`); a hex the cavalry was not offered is refused with the
/// rule and the hex, writing nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_umpire_console_charges_at_a_hex_of_the_path_16_5() {
    let (dir, st, tokens) = mini_table(
        "mini-reaction.toml",
        1,
        &["turn", "move --piece fr-col --to 5.05"],
    );
    let db = dir.path().join("mini.db");
    let umpire = tokens["umpire"].as_str();
    let charge = |at: &'static str| {
        [
            ("kind", "charge"),
            ("attackers", "aus-cav"),
            ("defenders", "fr-col"),
            ("reaction", "yes"),
            ("square", "no"),
            ("reaction_at", at),
        ]
    };
    let before = payloads(&db);
    let bad = call(&st, "POST", "/umpire/combat", Some(umpire), &charge("5.04")).await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", bad.body);
    assert!(
        bad.body.contains("16.5") && bad.body.contains("5.04"),
        "{}",
        bad.body
    );
    assert_eq!(payloads(&db), before, "a refused charge writes nothing");
    let r = call(&st, "POST", "/umpire/combat", Some(umpire), &charge("5.07")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert!(
        payloads(&db).contains("\"charge_at\":\"5.07\""),
        "the charge is recorded at the hex of the path"
    );
}
