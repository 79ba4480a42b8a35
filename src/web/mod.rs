//! The web table (issue 15): umpired double-blind play in the browser, one page per seat.
//!
//! axum on tokio, server-rendered HTML (maud), htmx (vendored, `web/vendor/`), SSE for "changed,
//! sequence N", the map as SVG from Rust. Owns the routes, the seat cookie and CSRF checks, the
//! security headers, readiness per phase and the live-update fan-out. Must not: touch the game
//! except through [`backend`] (the one adapter, and the one allow-list), print (that is `cli`),
//! or decide rules. See `docs/web.md`.

// Handlers answer `Result<_, Response>`: the refusal is the response (axum's idiom).
#![allow(clippy::result_large_err)]

pub mod backend;
mod deadline;
mod map;
mod pages;
pub mod seats;

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::path::Path;
use std::sync::{Arc, Mutex};

use axum::extract::{Form, Path as UrlPath, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use tokio::sync::broadcast;

use backend::{Backend, WebRefusal};
use seats::{Seat, SeatTable};

/// Everything the server shares between requests.
pub struct AppState {
    pub backend: Backend,
    seats: Mutex<SeatTable>,
    /// Links issued by this process (shown on the umpire's console); earlier links are valid but
    /// only their hashes are known.
    links: Mutex<BTreeMap<Seat, String>>,
    /// The base URL printed in links (`http://127.0.0.1:8080`).
    base: String,
    /// Sides ready in the current phase, keyed by (turn, phasing player, step).
    ready: Mutex<(String, BTreeMap<String, bool>)>,
    /// The umpire's deadline for the phase in play (wall clock, memory only).
    deadline: Mutex<deadline::Deadline>,
    changed: broadcast::Sender<()>,
}

/// An opened table and the links issued now.
pub type Opened = (Arc<AppState>, Vec<(Seat, String)>);

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum WebError {
    #[error("{0}")]
    Game(#[from] crate::game::GameError),
    #[error("{0}")]
    Token(String),
}

impl AppState {
    /// Open a game for the web table; issue a link for every seat that has none (all of them
    /// with `reissue`). Returns the state and the links issued now.
    pub fn open(db: &Path, base: &str, reissue: bool) -> Result<Opened, WebError> {
        let backend = Backend::open(db)?;
        let table = SeatTable::from_rows(&backend.seat_tokens()?);
        let (changed, _) = broadcast::channel(64);
        let state = Arc::new(AppState {
            backend,
            seats: Mutex::new(table),
            links: Mutex::new(BTreeMap::new()),
            base: base.trim_end_matches('/').to_string(),
            ready: Mutex::new((String::new(), BTreeMap::new())),
            deadline: Mutex::new(deadline::Deadline::default()),
            changed,
        });
        let mut issued = Vec::new();
        for seat in state.all_seats() {
            let has = lock(&state.seats).has(&seat);
            if reissue || !has {
                issued.push((seat.clone(), state.issue(&seat)?));
            }
        }
        Ok((state, issued))
    }

    fn all_seats(&self) -> Vec<Seat> {
        let mut v = vec![Seat::Umpire];
        v.extend(
            self.backend
                .sides()
                .into_iter()
                .map(|(id, _)| Seat::Side(id)),
        );
        v.push(Seat::Observer);
        v
    }

    /// Issue (or reissue) a seat's link: a new token, its hash in the game file.
    fn issue(&self, seat: &Seat) -> Result<String, WebError> {
        let token = seats::new_token().map_err(WebError::Token)?;
        let hash = seats::token_hash(&token);
        self.backend.set_seat_token(&seat.key(), &hash, &now())?;
        lock(&self.seats).set(seat, hash);
        let link = format!("{}/join/{token}", self.base);
        lock(&self.links).insert(seat.clone(), link.clone());
        Ok(link)
    }

    fn notify(&self) {
        let _ = self.changed.send(());
    }

    /// Who is ready in the current phase; readiness resets when the phase changes.
    fn readiness(&self) -> Vec<(String, bool)> {
        let key = self.phase_key();
        let mut r = lock(&self.ready);
        if r.0 != key {
            *r = (key, BTreeMap::new());
        }
        self.backend
            .sides()
            .into_iter()
            .map(|(id, _)| {
                let ready = r.1.get(&id).copied().unwrap_or(false);
                (id, ready)
            })
            .collect()
    }

    fn phase_key(&self) -> String {
        self.backend.phase_key()
    }

    /// A seat's view, with the phase's deadline (every seat sees it).
    fn view(&self, seat: &Seat, as_side: Option<&str>) -> Result<backend::View, WebRefusal> {
        let mut v = self.backend.view(seat, as_side)?;
        v.deadline = lock(&self.deadline).describe(&self.phase_key(), deadline::unix_now());
        Ok(v)
    }
}

/// Wall-clock time for the record of when a link was issued (metadata only: the web is not the
/// engine, and no rule reads it).
#[allow(clippy::disallowed_methods)]
pub(crate) fn now() -> String {
    chrono::Utc::now().to_rfc3339()
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

type Shared = Arc<AppState>;

/// The seat of a request (from its cookie), if any.
fn seat_of(st: &AppState, headers: &HeaderMap) -> Option<(Seat, String)> {
    let cookie = headers.get(header::COOKIE)?.to_str().ok()?;
    let token = seats::token_from_cookies(cookie)?;
    let seat = lock(&st.seats).seat(token)?;
    Some((seat, seats::csrf_token(token)))
}

/// A request's seat, or the response that refuses it.
struct Sat {
    seat: Seat,
    csrf: String,
}

fn need_seat(st: &AppState, headers: &HeaderMap) -> Result<Sat, Response> {
    match seat_of(st, headers) {
        Some((seat, csrf)) => Ok(Sat { seat, csrf }),
        None => Err((
            StatusCode::UNAUTHORIZED,
            pages::refusal(
                "this needs a seat at the table",
                "open your join link (it sets a cookie), or ask the umpire for a new one",
                "",
            ),
        )
            .into_response()),
    }
}

/// A signed-in umpire, or the response that refuses anyone else (`why` says whose page it is).
fn need_umpire(st: &AppState, headers: &HeaderMap, why: &str) -> Result<Sat, Response> {
    let s = need_seat(st, headers)?;
    if s.seat != Seat::Umpire {
        return Err(forbidden(why));
    }
    Ok(s)
}

fn forbidden(message: &str) -> Response {
    (
        StatusCode::FORBIDDEN,
        pages::refusal(message, "this page belongs to another seat", ""),
    )
        .into_response()
}

fn refused(r: WebRefusal) -> Response {
    let status = match r.code.as_str() {
        // `forbidden`: the application layer's seat check (app::authorize).
        "forbidden" | "not-a-side" => StatusCode::FORBIDDEN,
        "game-file" => StatusCode::INTERNAL_SERVER_ERROR,
        _ => StatusCode::UNPROCESSABLE_ENTITY,
    };
    (status, pages::refusal(&r.message, &r.help, &r.rule)).into_response()
}

fn internal(e: impl std::fmt::Display) -> Response {
    tracing::error!("web: {e}");
    (
        StatusCode::INTERNAL_SERVER_ERROR,
        pages::refusal(&e.to_string(), "see the server's log", ""),
    )
        .into_response()
}

/// The router: every route of the web table.
pub fn router(state: Shared) -> Router {
    Router::new()
        .route("/", get(home))
        .route("/join/{token}", get(join))
        .route("/play", get(play))
        .route("/observe", get(observe))
        .route("/umpire", get(umpire))
        .route("/umpire/as/{side}", get(umpire_as))
        .route("/map", get(map_svg))
        .route("/view.json", get(view_json))
        .route("/panel/status", get(panel_status))
        .route("/panel/books", get(panel_books))
        .route("/panel/ready", get(panel_ready))
        .route("/events", get(events))
        .route("/check", post(check))
        .route("/order", post(order))
        .route("/move", post(move_piece))
        .route("/move/preview", post(move_preview))
        .route("/message", post(message))
        .route("/ready", post(ready))
        .route("/default-defense", post(default_defense))
        .route("/initiative", post(initiative))
        .route("/umpire/advance", post(advance))
        .route("/umpire/deadline", post(set_deadline))
        .route("/umpire/override", post(override_action))
        .route("/umpire/combat", post(combat))
        .route("/umpire/reissue", post(reissue))
        .route("/umpire/branch", post(branch))
        .route("/favicon.ico", get(favicon))
        .route("/static/htmx.min.js", get(static_htmx))
        .route("/static/app.js", get(static_app))
        .route("/static/style.css", get(static_css))
        .route("/static/LICENSE.htmx", get(static_htmx_licence))
        .layer(middleware::from_fn_with_state(state.clone(), guard))
        .with_state(state)
}

/// Security headers on every response, and the cross-site check on every POST: the Origin (or
/// Sec-Fetch-Site) must be this server, and the seat's CSRF token must come with the request.
async fn guard(State(st): State<Shared>, req: Request, next: Next) -> Response {
    if req.method() == axum::http::Method::POST
        && let Err(why) = cross_site_check(&st, req.headers())
    {
        return (
            StatusCode::FORBIDDEN,
            pages::refusal(why, "reload the page from this server and try again", ""),
        )
            .into_response();
    }
    let mut res = next.run(req).await;
    let h = res.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
             connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        ),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    if !h.contains_key(header::CACHE_CONTROL) {
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    res
}

fn cross_site_check(st: &AppState, headers: &HeaderMap) -> Result<(), &'static str> {
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    if let Some(origin) = headers.get(header::ORIGIN).and_then(|o| o.to_str().ok())
        && origin
            .strip_prefix("http://")
            .or(origin.strip_prefix("https://"))
            != Some(host)
    {
        return Err("a form from another site was refused (Origin does not match)");
    }
    if let Some(site) = headers.get("sec-fetch-site").and_then(|s| s.to_str().ok())
        && !matches!(site, "same-origin" | "none")
    {
        return Err("a cross-site request was refused (Sec-Fetch-Site)");
    }
    let Some((_, csrf)) = seat_of(st, headers) else {
        // No seat: the handler answers 401.
        return Ok(());
    };
    let sent = headers
        .get("x-csrf-token")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if sent != csrf {
        return Err("the request carries no valid CSRF token");
    }
    Ok(())
}

async fn home(State(st): State<Shared>, headers: HeaderMap) -> Response {
    match seat_of(&st, &headers) {
        Some((seat, _)) => Redirect::to(seat.home()).into_response(),
        None => pages::no_seat().into_response(),
    }
}

/// A join link: set the cookie and redirect to a URL without the token.
async fn join(State(st): State<Shared>, UrlPath(token): UrlPath<String>) -> Response {
    let Some(seat) = lock(&st.seats).seat(&token) else {
        return (
            StatusCode::FORBIDDEN,
            pages::layout(
                "Link not valid",
                "",
                pages::refusal(
                    "this join link is not valid (mistyped, or revoked by the umpire)",
                    "ask the umpire to reissue your seat's link",
                    "",
                ),
            ),
        )
            .into_response();
    };
    let mut res = Redirect::to(seat.home()).into_response();
    if let Ok(v) = HeaderValue::from_str(&seats::set_cookie(&token)) {
        res.headers_mut().insert(header::SET_COOKIE, v);
    }
    res
}

fn side_name(st: &AppState, side: &str) -> String {
    st.backend
        .sides()
        .into_iter()
        .find(|(id, _)| id == side)
        .map_or_else(|| side.to_string(), |(_, n)| n)
}

async fn play(State(st): State<Shared>, headers: HeaderMap) -> Response {
    let s = match need_seat(&st, &headers) {
        Ok(s) => s,
        Err(r) => return r,
    };
    let Seat::Side(side) = &s.seat else {
        return Redirect::to(s.seat.home()).into_response();
    };
    match st.view(&s.seat, None) {
        Ok(v) => pages::side_page(&v, &s.csrf, &side_name(&st, side)).into_response(),
        Err(e) => internal(e),
    }
}

async fn observe(State(st): State<Shared>, headers: HeaderMap) -> Response {
    let s = match need_seat(&st, &headers) {
        Ok(s) => s,
        Err(r) => return r,
    };
    if s.seat != Seat::Observer {
        return Redirect::to(s.seat.home()).into_response();
    }
    match st.view(&s.seat, None) {
        Ok(v) => pages::observer_page(&v, &s.csrf).into_response(),
        Err(e) => internal(e),
    }
}

async fn umpire(State(st): State<Shared>, headers: HeaderMap) -> Response {
    let s = match need_umpire(&st, &headers, "the umpire's console is the umpire's") {
        Ok(s) => s,
        Err(r) => return r,
    };
    let links: Vec<(Seat, Option<String>)> = {
        let l = lock(&st.links);
        st.all_seats()
            .into_iter()
            .map(|seat| {
                let link = l.get(&seat).cloned();
                (seat, link)
            })
            .collect()
    };
    match st.view(&s.seat, None) {
        Ok(v) => pages::umpire_page(&v, &s.csrf, &links).into_response(),
        Err(e) => internal(e),
    }
}

fn known_side(st: &AppState, side: &str) -> bool {
    st.backend.sides().iter().any(|(id, _)| id == side)
}

async fn umpire_as(
    State(st): State<Shared>,
    headers: HeaderMap,
    UrlPath(side): UrlPath<String>,
) -> Response {
    let s = match need_umpire(&st, &headers, "only the umpire views as a side") {
        Ok(s) => s,
        Err(r) => return r,
    };
    if !known_side(&st, &side) {
        return (
            StatusCode::NOT_FOUND,
            pages::refusal(
                &format!("there is no side `{side}`"),
                "pick one from the console",
                "",
            ),
        )
            .into_response();
    }
    match st.view(&s.seat, Some(&side)) {
        Ok(v) => pages::view_as_page(&v, &s.csrf, &side).into_response(),
        Err(e) => internal(e),
    }
}

#[derive(Deserialize)]
struct AsQuery {
    #[serde(rename = "as")]
    as_side: Option<String>,
}

/// The view for a seat, honouring `?as=` for the umpire only.
fn seat_view(st: &AppState, seat: &Seat, as_side: Option<&str>) -> Result<backend::View, Response> {
    let as_side = match (seat, as_side) {
        (Seat::Umpire, Some(side)) if known_side(st, side) => Some(side),
        (Seat::Umpire, Some(side)) => {
            return Err((
                StatusCode::NOT_FOUND,
                pages::refusal(&format!("there is no side `{side}`"), "", ""),
            )
                .into_response());
        }
        _ => None,
    };
    st.view(seat, as_side).map_err(internal)
}

async fn map_svg(
    State(st): State<Shared>,
    headers: HeaderMap,
    Query(q): Query<AsQuery>,
) -> Response {
    let s = match need_seat(&st, &headers) {
        Ok(s) => s,
        Err(r) => return r,
    };
    let v = match seat_view(&st, &s.seat, q.as_side.as_deref()) {
        Ok(v) => v,
        Err(r) => return r,
    };
    st.backend
        .with_scenario(|sc| map::svg(sc, &v))
        .into_response()
}

async fn view_json(
    State(st): State<Shared>,
    headers: HeaderMap,
    Query(q): Query<AsQuery>,
) -> Response {
    let s = match need_seat(&st, &headers) {
        Ok(s) => s,
        Err(r) => return r,
    };
    match seat_view(&st, &s.seat, q.as_side.as_deref()) {
        Ok(v) => Json(v).into_response(),
        Err(r) => r,
    }
}

fn seat_label(st: &AppState, seat: &Seat) -> String {
    match seat {
        Seat::Umpire => "Umpire".into(),
        Seat::Observer => "Observer".into(),
        Seat::Side(s) => side_name(st, s),
    }
}

async fn panel_status(State(st): State<Shared>, headers: HeaderMap) -> Response {
    let s = match need_seat(&st, &headers) {
        Ok(s) => s,
        Err(r) => return r,
    };
    match st.view(&s.seat, None) {
        Ok(v) => pages::status_panel(&v, &seat_label(&st, &s.seat)).into_response(),
        Err(e) => internal(e),
    }
}

async fn panel_books(State(st): State<Shared>, headers: HeaderMap) -> Response {
    let s = match need_seat(&st, &headers) {
        Ok(s) => s,
        Err(r) => return r,
    };
    match st.view(&s.seat, None) {
        Ok(v) => pages::books(&v).into_response(),
        Err(e) => internal(e),
    }
}

async fn panel_ready(State(st): State<Shared>, headers: HeaderMap) -> Response {
    if let Err(r) = need_umpire(&st, &headers, "readiness of every side is the umpire's") {
        return r;
    }
    pages::ready_panel(&st.readiness()).into_response()
}

/// Live updates: `changed` with `sequence N` (this seat's own sequence) whenever something this
/// seat may see changes. Nothing else travels here; the page re-fetches its own view.
async fn events(State(st): State<Shared>, headers: HeaderMap) -> Response {
    let s = match need_seat(&st, &headers) {
        Ok(s) => s,
        Err(r) => return r,
    };
    let rx = st.changed.subscribe();
    let seat = s.seat;
    let first = st.backend.sequence(&seat);
    let stream = futures_util::stream::unfold(
        (rx, st.clone(), seat, first, true),
        |(mut rx, st, seat, mut last, first_time)| async move {
            if first_time {
                let ev = SseEvent::default()
                    .event("changed")
                    .data(format!("sequence {last}"));
                return Some((Ok::<_, Infallible>(ev), (rx, st, seat, last, false)));
            }
            loop {
                match rx.recv().await {
                    Ok(()) | Err(broadcast::error::RecvError::Lagged(_)) => {
                        let now = st.backend.sequence(&seat);
                        // Readiness changes are the umpire's only; they carry no event.
                        if now != last || seat == Seat::Umpire {
                            last = now;
                            let ev = SseEvent::default()
                                .event("changed")
                                .data(format!("sequence {now}"));
                            return Some((Ok(ev), (rx, st, seat, last, false)));
                        }
                    }
                    Err(broadcast::error::RecvError::Closed) => return None,
                }
            }
        },
    );
    Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response()
}

#[derive(Deserialize)]
struct OrderForm {
    text: String,
    #[serde(default)]
    to: String,
    #[serde(default)]
    method: String,
}

fn method(m: &str) -> Result<crate::app::MethodArg, WebRefusal> {
    match m {
        "" | "written" => Ok(crate::app::MethodArg::Written),
        "oral" => Ok(crate::app::MethodArg::Oral),
        "in-person" => Ok(crate::app::MethodArg::InPerson),
        other => Err(WebRefusal::new(
            "bad-method",
            format!("`{other}` is not a method"),
            "written, oral or in-person (6.4)",
        )),
    }
}

async fn check(State(st): State<Shared>, headers: HeaderMap, Form(f): Form<OrderForm>) -> Response {
    let s = match need_seat(&st, &headers) {
        Ok(s) => s,
        Err(r) => return r,
    };
    if !matches!(s.seat, Seat::Side(_)) {
        return forbidden("only a side writes orders");
    }
    let m = match method(&f.method) {
        Ok(m) => m,
        Err(r) => return refused(r),
    };
    let to = (!f.to.is_empty()).then_some(f.to.as_str());
    pages::check(&st.backend.check(&s.seat, &f.text, to, m)).into_response()
}

fn outcome(st: &AppState, r: Result<String, WebRefusal>) -> Response {
    match r {
        Ok(msg) => {
            st.notify();
            pages::done(&msg).into_response()
        }
        Err(e) => refused(e),
    }
}

async fn order(State(st): State<Shared>, headers: HeaderMap, Form(f): Form<OrderForm>) -> Response {
    let s = match need_seat(&st, &headers) {
        Ok(s) => s,
        Err(r) => return r,
    };
    let r = method(&f.method).and_then(|m| {
        let to = (!f.to.is_empty()).then_some(f.to.as_str());
        st.backend.send_order(&s.seat, &f.text, to, m)
    });
    outcome(&st, r.map(|n| format!("Order {n} sent.")))
}

#[derive(Deserialize)]
struct MoveForm {
    piece: String,
    #[serde(default)]
    to: String,
    /// Hexes to move through, comma- or space-separated, ending at the destination (12.0).
    #[serde(default)]
    path: String,
    #[serde(default)]
    formation: String,
    #[serde(default)]
    face: String,
    #[serde(default)]
    reason: String,
}

fn move_ask(f: &MoveForm) -> Result<backend::MoveAsk, WebRefusal> {
    let hex = |t: &str| -> Result<crate::hex::Hex, WebRefusal> {
        t.trim().parse().map_err(|e| {
            WebRefusal::new(
                "bad-hex",
                format!("{e}"),
                "click a hex on the map, or type one like 18.09",
            )
        })
    };
    let to = match f.to.trim() {
        "" => None,
        t => Some(hex(t)?),
    };
    let path = f
        .path
        .split([',', ' '])
        .filter(|t| !t.trim().is_empty())
        .map(hex)
        .collect::<Result<Vec<_>, _>>()?;
    let formation = match f.formation.trim() {
        "" => None,
        t => Some(crate::units::parse_formation(t).map_err(|e| {
            WebRefusal::new(
                "bad-formation",
                e,
                "line, column, march-column, square, limbered or unlimbered (8.2)",
            )
        })?),
    };
    let face = match f.face.trim() {
        "" => None,
        t => Some(t.parse().map_err(|e: String| {
            WebRefusal::new(
                "bad-facing",
                e,
                "a hex corner: NNE, E, SSE, SSW, W or NNW (10.1)",
            )
        })?),
    };
    Ok(backend::MoveAsk {
        piece: f.piece.trim().to_string(),
        to,
        path,
        formation,
        face,
        reason: (!f.reason.trim().is_empty()).then(|| f.reason.trim().to_string()),
    })
}

async fn move_piece(
    State(st): State<Shared>,
    headers: HeaderMap,
    Form(f): Form<MoveForm>,
) -> Response {
    let s = match need_seat(&st, &headers) {
        Ok(s) => s,
        Err(r) => return r,
    };
    let r = move_ask(&f).and_then(|ask| st.backend.move_piece(&s.seat, &ask));
    outcome(&st, r.map(|t| format!("Moved: {t}")))
}

/// The path and MP the engine would take for a move, without moving (the movement form's
/// "show path" before "confirm").
async fn move_preview(
    State(st): State<Shared>,
    headers: HeaderMap,
    Form(f): Form<MoveForm>,
) -> Response {
    let s = match need_seat(&st, &headers) {
        Ok(s) => s,
        Err(r) => return r,
    };
    match move_ask(&f).and_then(|ask| st.backend.explain_move(&s.seat, &ask)) {
        Ok(t) => pages::done(&format!("Would move: {t}")).into_response(),
        Err(e) => refused(e),
    }
}

#[derive(Deserialize)]
struct MessageForm {
    side: String,
    text: String,
}

async fn message(
    State(st): State<Shared>,
    headers: HeaderMap,
    Form(f): Form<MessageForm>,
) -> Response {
    let s = match need_seat(&st, &headers) {
        Ok(s) => s,
        Err(r) => return r,
    };
    let r = st.backend.message(&s.seat, &f.side, &f.text);
    outcome(&st, r.map(|()| "Message sent.".to_string()))
}

async fn ready(State(st): State<Shared>, headers: HeaderMap) -> Response {
    let s = match need_seat(&st, &headers) {
        Ok(s) => s,
        Err(r) => return r,
    };
    let Seat::Side(side) = &s.seat else {
        return forbidden("only a side declares itself ready");
    };
    st.readiness();
    lock(&st.ready).1.insert(side.clone(), true);
    st.notify();
    pages::done("Marked ready for this phase; the umpire sees it.").into_response()
}

#[derive(Deserialize)]
struct CommandForm {
    command: String,
}

async fn default_defense(
    State(st): State<Shared>,
    headers: HeaderMap,
    Form(f): Form<CommandForm>,
) -> Response {
    let s = match need_seat(&st, &headers) {
        Ok(s) => s,
        Err(r) => return r,
    };
    let r = st.backend.default_defense(&s.seat, &f.command);
    outcome(
        &st,
        r.map(|()| format!("{} adopts Default Defense.", f.command)),
    )
}

#[derive(Deserialize)]
struct InitiativeForm {
    commander: String,
    command: String,
    text: String,
}

async fn initiative(
    State(st): State<Shared>,
    headers: HeaderMap,
    Form(f): Form<InitiativeForm>,
) -> Response {
    let s = match need_seat(&st, &headers) {
        Ok(s) => s,
        Err(r) => return r,
    };
    let r = st
        .backend
        .initiative(&s.seat, &f.commander, &f.command, &f.text);
    outcome(
        &st,
        r.map(|()| format!("{} rolled for initiative; see the events.", f.commander)),
    )
}

async fn advance(State(st): State<Shared>, headers: HeaderMap) -> Response {
    let s = match need_seat(&st, &headers) {
        Ok(s) => s,
        Err(r) => return r,
    };
    let r = st.backend.advance(&s.seat);
    outcome(&st, r.map(|()| "Advanced.".to_string()))
}

#[derive(Deserialize)]
struct DeadlineForm {
    action: String,
    #[serde(default)]
    minutes: String,
}

/// The umpire sets, pauses, resumes, extends or clears the deadline of the phase in play.
async fn set_deadline(
    State(st): State<Shared>,
    headers: HeaderMap,
    Form(f): Form<DeadlineForm>,
) -> Response {
    if let Err(r) = need_umpire(&st, &headers, "deadlines are the umpire's") {
        return r;
    }
    let phase = st.phase_key();
    let now = deadline::unix_now();
    let r = deadline::Ask::parse(&f.action, &f.minutes)
        .and_then(|ask| lock(&st.deadline).apply(&phase, ask, now))
        .map_err(|e| {
            WebRefusal::new(
                "bad-deadline",
                e,
                "set N minutes, extend by N, pause, resume or clear",
            )
        });
    let shown = lock(&st.deadline).describe(&phase, now);
    outcome(
        &st,
        r.map(|()| shown.unwrap_or_else(|| "No deadline for this phase.".into())),
    )
}

#[derive(Deserialize)]
struct OverrideForm {
    action: String,
    target: String,
    reason: String,
    /// The order text of an imposed order.
    #[serde(default)]
    text: String,
}

async fn override_action(
    State(st): State<Shared>,
    headers: HeaderMap,
    Form(f): Form<OverrideForm>,
) -> Response {
    use backend::OverrideAsk as A;
    let s = match need_seat(&st, &headers) {
        Ok(s) => s,
        Err(r) => return r,
    };
    let number = || {
        f.target.trim().parse::<u32>().map_err(|_| {
            WebRefusal::new(
                "bad-order-number",
                format!("`{}` is not an order number", f.target),
                "see the order book",
            )
        })
    };
    let target = f.target.trim().to_string();
    let action = match f.action.as_str() {
        "ruling" => Ok(A::Ruling(target)),
        "discard" => number().map(A::Discard),
        "reroll" => number().map(A::Reroll),
        "wrecked" => Ok(A::Wreck(target)),
        "unwrecked" => Ok(A::Unwreck(target)),
        "no-orders" => Ok(A::NoOrders(target)),
        "commander-lost" => Ok(A::CommanderLost(target)),
        "impose" => Ok(A::Impose(target, f.text.trim().to_string())),
        other => Err(WebRefusal::new(
            "bad-override",
            format!("`{other}` is not an override this console offers"),
            "ruling, discard, reroll, wrecked, unwrecked, no-orders, commander-lost or impose",
        )),
    };
    let r = action.and_then(|a| st.backend.override_action(&s.seat, &f.reason, a));
    outcome(&st, r.map(|()| "Override recorded.".to_string()))
}

#[derive(Deserialize)]
struct CombatForm {
    kind: String,
    attackers: String,
    defenders: String,
    /// A charge's target forms Square: "yes", "no", or unsaid (16.2.1).
    #[serde(default)]
    square: String,
    /// A lone Skirmisher in Hindering terrain: "stands", "retreats", or unsaid (15.1.7).
    #[serde(default)]
    skirmisher: String,
    /// The umpire allows a non-frontal Close Combat entry (12.1.1, 15.1.4): a checkbox.
    #[serde(default)]
    allow_entry: String,
    /// Why the entry is allowed; recorded with the combat.
    #[serde(default)]
    ruling: String,
    /// Opportunity Fire: the hex of the move just made that the battery fires at (17.4).
    #[serde(default)]
    opportunity_at: String,
    /// The Opportunity Fire answers a formation change at that hex (17.4 trigger 3): a checkbox.
    #[serde(default)]
    formation_change: String,
    /// The umpire lets a fire stand that 17.4.1 refuses (one firer per trigger): a checkbox.
    #[serde(default)]
    allow_fire: String,
    /// A Reaction Charge at this hex of the move (16.5; `combat charge --reaction --at`).
    #[serde(default)]
    reaction_at: String,
    /// The umpire lets a Reaction Charge stand that 16.5.3 refuses: a checkbox.
    #[serde(default)]
    allow_reaction: String,
    /// Batteries firing at the Square the charge's target forms (17.4.6), comma-separated.
    #[serde(default)]
    square_fire: String,
    /// The attacker or defender is a Line Extension of the one unit named, in this hex (13.1.1).
    #[serde(default)]
    attacker_at: String,
    #[serde(default)]
    defender_at: String,
    /// The umpire rules the arc (front, flank, rear; 10.0) or a Line's flanks (secure, open).
    #[serde(default)]
    attack_arc: String,
    #[serde(default)]
    flanks: String,
    /// Checkboxes: fortified (15.2.1), Cannister (17.4.9), Reaction Charge (16.5), a Follow-on
    /// Charge at a new target (16.2.7.3).
    #[serde(default)]
    fortified: String,
    #[serde(default)]
    cannister: String,
    #[serde(default)]
    reaction: String,
    #[serde(default)]
    follow_on: String,
    /// Follow-on Charges against the same target (0–3, 16.2.7.2).
    #[serde(default)]
    follow_ons: String,
    /// Skirmishers' quality (18, 26.3): elite, regular, rifles.
    #[serde(default)]
    quality: String,
    #[serde(default)]
    defender_quality: String,
    /// Skirmishers taking a stack's even losses (20.2): `UNIT` or `UNIT=N`, comma-separated.
    #[serde(default)]
    skirmisher_absorbs: String,
}

/// The label of a combat form field, for its refusals (`backend::COMBAT_FIELDS`).
fn combat_label(flag: &str) -> &'static str {
    crate::web::backend::field_label(crate::web::backend::COMBAT_FIELDS, flag).unwrap_or("combat")
}

/// A combat form's hex field: empty is none; otherwise a hex, or a refusal naming the field.
fn form_hex(text: &str, flag: &str, rule: &str) -> Result<Option<crate::hex::Hex>, WebRefusal> {
    match text.trim() {
        "" => Ok(None),
        h => h.parse::<crate::hex::Hex>().map(Some).map_err(|e| {
            WebRefusal::new(
                "bad-hex",
                format!(
                    "`{h}` in “{}” is not a hex ({rule}): {e}",
                    combat_label(flag)
                ),
                "a hex number as the map shows it (e.g. 36.08), or leave it empty",
            )
        }),
    }
}

/// A combat form's choice field: empty is none; otherwise one of `values` (CLI value words).
fn form_choice<T: clap::ValueEnum>(text: &str, flag: &str) -> Result<Option<T>, WebRefusal> {
    match text.trim() {
        "" => Ok(None),
        v => T::from_str(v, true).map(Some).map_err(|_| {
            let known: Vec<String> = T::value_variants()
                .iter()
                .filter_map(|x| x.to_possible_value().map(|p| p.get_name().to_string()))
                .collect();
            WebRefusal::new(
                "bad-choice",
                format!("`{v}` is not a choice of “{}”", combat_label(flag)),
                format!("one of {}, or leave it empty", known.join(", ")),
            )
        }),
    }
}

async fn combat(
    State(st): State<Shared>,
    headers: HeaderMap,
    Form(f): Form<CombatForm>,
) -> Response {
    let s = match need_seat(&st, &headers) {
        Ok(s) => s,
        Err(r) => return r,
    };
    let list = |t: &str| -> Vec<String> {
        t.split(',')
            .map(str::trim)
            .filter(|x| !x.is_empty())
            .map(str::to_string)
            .collect()
    };
    // The console's combat form is the umpire's (a side asks for combat in a message); the
    // application layer checks the request again.
    if s.seat != Seat::Umpire {
        return forbidden("the combat form is the umpire's");
    }
    use crate::app::ProcedureArg as P;
    let kind = match f.kind.as_str() {
        "close-combat" => Ok(P::CloseCombat),
        "charge" => Ok(P::Charge),
        "fire" => Ok(P::Fire),
        "skirmisher-fire" => Ok(P::SkirmisherFire),
        other => Err(WebRefusal::new(
            "bad-combat",
            format!("`{other}` is not a combat this form resolves"),
            "close-combat, charge, fire or skirmisher-fire",
        )),
    };
    let square = match f.square.as_str() {
        "yes" => Some(true),
        "no" => Some(false),
        _ => None,
    };
    let skirmisher_stands = match f.skirmisher.as_str() {
        "stands" => Ok(Some(true)),
        "retreats" => Ok(Some(false)),
        "" => Ok(None),
        other => Err(WebRefusal::new(
            "bad-skirmisher-choice",
            format!("`{other}` is not a lone Skirmisher's choice (15.1.7)"),
            "stands, retreats, or leave it unsaid",
        )),
    };
    let checked = |v: &str| !v.trim().is_empty();
    let allow_entry = checked(&f.allow_entry);
    let allow_fire = checked(&f.allow_fire);
    let allow_reaction = checked(&f.allow_reaction);
    let attack_arc = form_choice::<crate::app::ArcArg>(&f.attack_arc, "--attack-arc");
    let flanks = form_choice::<crate::app::FlanksArg>(&f.flanks, "--flanks");
    // The umpire's rulings (12.1.1 entry, 10.0 arc, chart p4 flanks) are recorded with a reason.
    let ruled = allow_entry
        || allow_fire
        || allow_reaction
        || !f.attack_arc.trim().is_empty()
        || !f.flanks.trim().is_empty();
    let ruling = match (ruled, f.ruling.trim()) {
        (true, "") => Err(WebRefusal::new(
            "no-reason",
            format!(
                "allowing a non-frontal Close Combat entry (12.1.1, 15.1.4), a second firer (17.4.1) or a Reaction Charge 16.5.3 refuses, or ruling the arc or a Line's flanks (10.0), needs a reason in “{}”",
                combat_label("--ruling")
            ),
            "write why the ruling stands, for the record",
        )),
        (_, "") => Ok(None),
        (_, r) => Ok(Some(r.to_string())),
    };
    let follow_ons = match f.follow_ons.trim() {
        "" => Ok(0),
        n => n.parse::<u8>().ok().filter(|n| *n <= 3).ok_or_else(|| {
            WebRefusal::new(
                "bad-number",
                format!(
                    "`{n}` in “{}” is not 0–3 (16.2.7.2)",
                    combat_label("--follow-ons")
                ),
                "at most three Follow-on Charges against the same target",
            )
        }),
    };
    let r = kind.and_then(|k| {
        let choices = crate::web::backend::CombatChoices {
            square,
            skirmisher_stands: skirmisher_stands?,
            allow_entry,
            ruling: ruling?,
            opportunity_at: form_hex(&f.opportunity_at, "--opportunity-at", "17.4")?,
            formation_change: checked(&f.formation_change),
            allow_fire,
            reaction_at: form_hex(&f.reaction_at, "--at", "16.5")?,
            allow_reaction,
            attacker_at: form_hex(&f.attacker_at, "--attacker-at", "13.1.1")?,
            defender_at: form_hex(&f.defender_at, "--defender-at", "13.1.1")?,
            attack_arc: attack_arc?,
            flanks: flanks?,
            fortified: checked(&f.fortified),
            cannister: checked(&f.cannister),
            reaction: checked(&f.reaction),
            follow_on: checked(&f.follow_on),
            follow_ons: follow_ons?,
            quality: form_choice(&f.quality, "--quality")?,
            defender_quality: form_choice(&f.defender_quality, "--defender-quality")?,
            skirmisher_absorbs: list(&f.skirmisher_absorbs),
            square_fire: list(&f.square_fire),
        };
        st.backend
            .combat(&s.seat, k, list(&f.attackers), list(&f.defenders), choices)
    });
    outcome(&st, r.map(|t| format!("Combat resolved: {t}")))
}

#[derive(Deserialize)]
struct ReissueForm {
    seat: String,
}

async fn reissue(
    State(st): State<Shared>,
    headers: HeaderMap,
    Form(f): Form<ReissueForm>,
) -> Response {
    if let Err(r) = need_umpire(&st, &headers, "only the umpire reissues links") {
        return r;
    }
    let Some(seat) = Seat::from_key(&f.seat).filter(|x| st.all_seats().contains(x)) else {
        return refused(WebRefusal::new(
            "bad-seat",
            format!("`{}` is not a seat of this game", f.seat),
            "umpire, observer or side:<id>",
        ));
    };
    match st.issue(&seat) {
        Ok(link) => pages::done(&format!(
            "{}: the old link no longer works; the new one is {link}",
            seat.key()
        ))
        .into_response(),
        Err(e) => internal(e),
    }
}

#[derive(Deserialize)]
struct BranchForm {
    name: String,
    turn: u32,
}

async fn branch(
    State(st): State<Shared>,
    headers: HeaderMap,
    Form(f): Form<BranchForm>,
) -> Response {
    let s = match need_seat(&st, &headers) {
        Ok(s) => s,
        Err(r) => return r,
    };
    match st.backend.branch(&s.seat, &f.name, f.turn) {
        Ok(p) => pages::done(&format!(
            "Branched up to turn {} into {}; serve it with `staffwork serve --db {}`.",
            f.turn,
            p.display(),
            p.display()
        ))
        .into_response(),
        Err(e) => refused(e),
    }
}

fn static_file(ctype: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, ctype),
            (header::CACHE_CONTROL, "public, max-age=3600"),
        ],
        body,
    )
        .into_response()
}

async fn favicon() -> Response {
    static_file(
        "image/svg+xml",
        r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><polygon points="4,1 12,1 16,8 12,15 4,15 0,8" fill="#7a4b1c"/></svg>"##,
    )
}

async fn static_htmx() -> Response {
    static_file(
        "text/javascript; charset=utf-8",
        include_str!("../../web/vendor/htmx-2.0.4/htmx.min.js"),
    )
}

async fn static_htmx_licence() -> Response {
    static_file(
        "text/plain; charset=utf-8",
        include_str!("../../web/vendor/htmx-2.0.4/LICENSE"),
    )
}

async fn static_app() -> Response {
    static_file(
        "text/javascript; charset=utf-8",
        include_str!("../../web/static/app.js"),
    )
}

async fn static_css() -> Response {
    static_file(
        "text/css; charset=utf-8",
        include_str!("../../web/static/style.css"),
    )
}

/// Serve the router on a bound listener until ctrl-c.
pub async fn serve(listener: tokio::net::TcpListener, state: Shared) -> std::io::Result<()> {
    axum::serve(listener, router(state))
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
}
