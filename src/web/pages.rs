//! Server-rendered pages and fragments (maud escapes every piece of text it writes).
//!
//! Owns the HTML: the side's page, the umpire's console, the observer's page, the panels the
//! pages re-fetch on a live update, the order check fragment. Must not read the game: it draws
//! only the [`View`]/[`CheckView`] the backend built for the seat. No inline script anywhere
//! (the Content-Security-Policy forbids it): behaviour lives in `/static/app.js` and htmx
//! attributes.

use maud::{DOCTYPE, Markup, html};

use super::backend::{CheckView, View};
use super::seats::Seat;

/// The frame every page shares.
pub fn layout(title: &str, csrf: &str, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                // htmx must not inject its own <style> (the CSP forbids inline styles). A refusal
                // comes back 4xx with its reason and help: htmx 2 swaps no 4xx/5xx by default,
                // which left every form's refusal unseen, so those are swapped in too.
                meta name="htmx-config" content=r#"{"includeIndicatorStyles":false,"allowEval":false,"responseHandling":[{"code":"204","swap":false},{"code":"[23]..","swap":true},{"code":"4..","swap":true,"error":false},{"code":"5..","swap":true,"error":true},{"code":"...","swap":false}]}"#;
                title { (title) " — staffwork" }
                link rel="stylesheet" href="/static/style.css";
                script src="/static/htmx.min.js" defer {}
                script src="/static/app.js" defer {}
            }
            body hx-headers=(format!(r#"{{"X-CSRF-Token":"{csrf}"}}"#)) {
                (body)
            }
        }
    }
}

/// The landing page for a browser without a seat.
pub fn no_seat() -> Markup {
    layout(
        "Join",
        "",
        html! {
            main .narrow {
                h1 { "staffwork — the web table" }
                p { "This page needs a seat. Open the join link the umpire gave you (it looks like "
                    code { "http://127.0.0.1:8080/join/…" } "); it sets a cookie and brings you to your page." }
                p { "Lost your link? Ask the umpire to reissue it from the console." }
            }
        },
    )
}

/// A refusal shown inside a page or fragment.
pub fn refusal(message: &str, help: &str, rule: &str) -> Markup {
    html! {
        div .refusal role="alert" {
            strong { "Refused" @if !rule.is_empty() { " (" (rule) ")" } ": " } (message)
            @if !help.is_empty() { div .help { "Hint: " (help) } }
        }
    }
}

/// A short success note.
pub fn done(message: &str) -> Markup {
    html! { div .done role="status" { (message) } }
}

fn header(view: &View, seat_label: &str) -> Markup {
    html! {
        header #status {
            span .title { (view.title) }
            span .seat { (seat_label) }
            span { "Turn " (view.turn) ", " strong { (view.time) } }
            span { (view.phasing) " phasing — " (view.step) }
            @for (side, cp) in &view.command_points {
                span .cp data-side=(side) { (side) ": " strong { (cp) } " command points" }
            }
            @if let Some(d) = &view.deadline { span .deadline { (d) } }
        }
    }
}

fn map_box(src: &str) -> Markup {
    html! {
        section .mapbox {
            div .mapctl {
                button type="button" data-zoom="in" { "+" }
                button type="button" data-zoom="out" { "−" }
                button type="button" data-zoom="reset" { "fit" }
                span .hint { "drag to pan, wheel to zoom; hover a hex for its number" }
            }
            div #mapwrap hx-get=(src) hx-trigger="load, sw-changed from:body" hx-swap="innerHTML" {}
            (legend())
        }
    }
}

/// The key to the map's markers, drawn with the map's own classes so it cannot drift from them.
/// A side reads from it that a grey ■ is an enemy stack it may not examine (4.0, decision 0161).
fn legend() -> Markup {
    let key = |class: &str, glyph: &str| {
        html! {
            svg .key width="18" height="14" viewBox="-9 -7 18 14" aria-hidden="true" {
                g class=(class) {
                    rect x="-8" y="-6" width="16" height="12" rx="2" {}
                    text x="0" y="3" { (glyph) }
                }
            }
        }
    };
    html! {
        p .legend {
            span { (key("stack", "■")) " an enemy stack: seen, not examined (no Commander within 12 hexes, 4.0)" }
            span { (key("ghost", "?")) " last seen there" }
            span { svg .key width="18" height="14" viewBox="-9 -7 18 14" aria-hidden="true" {
                line .range x1="-8" y1="0" x2="8" y2="0" {} } " command range" }
        }
    }
}

/// The side's page: map, order desk, order book, events, messages, movement, ready.
pub fn side_page(view: &View, csrf: &str, side_name: &str) -> Markup {
    let side = view.side.clone().unwrap_or_default();
    layout(
        side_name,
        csrf,
        html! {
            div #live data-stream="/events" {}
            div #panel-status hx-get="/panel/status" hx-trigger="sw-changed from:body, every 30s" { (header(view, side_name)) }
            div .grid {
                (map_box("/map"))
                aside {
                    (order_desk(view))
                    (move_form(view, false))
                    section {
                        h2 { "Messages to the umpire" }
                        form hx-post="/message" hx-target="#message-result" hx-swap="innerHTML" {
                            input type="hidden" name="side" value=(side);
                            textarea name="text" rows="2" maxlength="2000" placeholder="Ask the umpire, report, request a ruling" required {}
                            button type="submit" { "Send message" }
                        }
                        div #message-result {}
                    }
                    section {
                        form hx-post="/ready" hx-target="#ready-result" hx-swap="innerHTML" {
                            button type="submit" .ready { "Ready — done with this phase" }
                        }
                        div #ready-result {}
                    }
                }
            }
            div #panel-books hx-get="/panel/books" hx-trigger="sw-changed from:body" { (books(view)) }
        },
    )
}

fn order_desk(view: &View) -> Markup {
    html! {
        section #desk {
            h2 { "Order desk" }
            form #order-form hx-post="/order" hx-target="#order-result" hx-swap="innerHTML" {
                label for="order-text" { "Order (plain English)" }
                textarea #order-text name="text" rows="3" required
                    placeholder="Recipient: what to do, where, by which way, when and why."
                    hx-post="/check" hx-trigger="input changed delay:250ms, change from:#order-method, change from:#order-to"
                    hx-target="#check" hx-swap="innerHTML" hx-include="#order-form" {}
                div .row {
                    label { "To " select #order-to name="to" {
                        option value="" { "(as written)" }
                        @for (id, name) in &view.recipients { option value=(id) { (name) } }
                    } }
                    label { "Method " select #order-method name="method" {
                        option value="written" { "written (aide)" }
                        option value="oral" { "oral (aide)" }
                        option value="in-person" { "in person" }
                    } }
                    button type="submit" { "Send order" }
                }
            }
            div #check aria-live="polite" { p .muted { "Start writing: the read-back, type, cost, courier time and every problem appear here." } }
            div #order-result {}
            details {
                summary { "Local initiative (6.6.1)" }
                form hx-post="/initiative" hx-target="#init-result" hx-swap="innerHTML" {
                    div .row {
                        label { "Commander " select name="commander" {
                            @for (id, name) in &view.commanders { option value=(id) { (name) } }
                        } }
                        label { "for " select name="command" {
                            @for (id, name) in &view.recipients { option value=(id) { (name) } }
                        } }
                    }
                    textarea name="text" rows="2" required placeholder="The order he writes if the roll succeeds" {}
                    button type="submit" { "Roll for initiative" }
                }
                div #init-result {}
            }
            details {
                summary { "Default Defense (6.6.2)" }
                form hx-post="/default-defense" hx-target="#dd-result" hx-swap="innerHTML" {
                    select name="command" {
                        @for (id, name) in &view.recipients { option value=(id) { (name) } }
                    }
                    button type="submit" { "Adopt Default Defense" }
                }
                div #dd-result {}
            }
        }
    }
}

fn move_form(view: &View, umpire: bool) -> Markup {
    const FORMATIONS: [&str; 6] = [
        "line",
        "column",
        "march-column",
        "square",
        "limbered",
        "unlimbered",
    ];
    const CORNERS: [&str; 6] = ["NNE", "E", "SSE", "SSW", "W", "NNW"];
    html! {
        section #movement {
            h2 { "Movement" }
            p .hint { "Pick a piece (or click it), click the destination: the engine's path and MP cost appear; then move." }
            form hx-post="/move" hx-target="#move-result" hx-swap="innerHTML" {
                div .row {
                    select #move-piece name="piece" {
                        @for (id, name) in &view.movable { option value=(id) { (name) } }
                    }
                    input #move-to name="to" placeholder="hex, e.g. 18.09 (or click the map)"
                        pattern="[A-Za-z]?[0-9]{1,3}\\.[0-9]{1,3}" required
                        hx-post="/move/preview" hx-trigger="change" hx-target="#move-result";
                }
                div .row {
                    input #move-path name="path" placeholder="through hexes (optional): 5.06, 5.07";
                    select name="formation" {
                        option value="" { "formation: keep" }
                        @for f in FORMATIONS { option value=(f) { (f) } }
                    }
                    select name="face" {
                        option value="" { "face: keep" }
                        @for c in CORNERS { option value=(c) { "face " (c) } }
                    }
                }
                @if umpire {
                    input name="reason" placeholder="reason (places the piece ignoring the movement rules)";
                }
                div .row {
                    button type="button" hx-post="/move/preview" hx-target="#move-result" { "Show path and cost" }
                    button type="submit" { "Move" }
                }
            }
            div #move-result {}
        }
    }
}

/// The order book, events and messages of a view.
pub fn books(view: &View) -> Markup {
    html! {
        div .books {
            section {
                h2 { "Order book" }
                @if view.orders.is_empty() { p .muted { "No orders yet." } }
                table .orders {
                    @if !view.orders.is_empty() {
                        thead { tr { th { "#" } th { "side" } th { "to" } th { "order" } th { "method" } th { "type" } th { "CP" } th { "sent" } th { "arrives" } th { "status" } } }
                    }
                    tbody {
                        @for o in &view.orders {
                            tr {
                                td { (o.number) } td { (o.side) } td { (o.recipient) }
                                td { span title=(o.text) { (o.readback) } }
                                td { (o.method) } td { (o.order_type) } td { (o.cost) }
                                td { "T" (o.sent_turn) } td { "T" (o.arrival_turn) }
                                td .status { (o.status) }
                            }
                        }
                    }
                }
            }
            section {
                h2 { "Messages" }
                @if view.messages.is_empty() { p .muted { "None." } }
                ul .messages {
                    @for m in &view.messages {
                        li { span .muted { "T" (m.turn) " " (m.side) " table, " } strong { (m.from) ": " } (m.text) }
                    }
                }
            }
            section {
                h2 { "Events" }
                ol .events reversed {
                    @for e in view.events.iter().rev() {
                        li { span .muted { "T" (e.turn) " " } (e.text)
                            @if !e.dice.is_empty() { " " span .dice title="dice" { "dice " (e.dice) } }
                        }
                    }
                }
            }
        }
    }
}

/// The status header alone (a live update re-fetches it).
pub fn status_panel(view: &View, label: &str) -> Markup {
    header(view, label)
}

/// The check fragment: read-back, type, cost, arrival and diagnostics with the words underlined.
pub fn check(c: &CheckView) -> Markup {
    html! {
        div .check {
            @if c.text.trim().is_empty() {
                p .muted { "Write an order." }
            } @else {
                p .underlined { (underline(c)) }
                dl {
                    dt { "Read-back" } dd { (c.readback) }
                    dt { "Type" } dd { @if c.order_type.is_empty() { "—" } @else { (c.order_type) } }
                    dt { "To" } dd { (c.recipient.clone().unwrap_or_else(|| "—".into())) }
                    dt { "Cost" } dd { @match c.cost { Some(x) => { (x) " command points" }, None => "—" } }
                    dt { "Arrives" } dd { (c.arrives.clone().unwrap_or_else(|| "—".into())) }
                }
                @if let Some(r) = &c.refusal { (refusal(&r.message, &r.help, &r.rule)) }
                ul .diagnostics {
                    @for d in &c.diagnostics {
                        li class=(d.severity) { strong { (d.severity) } " " (d.message)
                            @if !d.help.is_empty() { span .help { " — " (d.help) } } }
                    }
                }
            }
        }
    }
}

/// The order text with each diagnostic's words in a `<mark>`.
fn underline(c: &CheckView) -> Markup {
    let text = &c.text;
    let mut marks: Vec<(usize, usize, &str)> = c
        .diagnostics
        .iter()
        // Notes speak of the whole order; only errors and warnings point at words.
        .filter(|d| d.severity != "note")
        .filter(|d| {
            d.end > d.start && text.is_char_boundary(d.start) && text.is_char_boundary(d.end)
        })
        .map(|d| (d.start, d.end, d.severity.as_str()))
        .collect();
    // Overlapping findings: errors win over warnings, then the earlier one.
    marks.sort_by_key(|(s, e, sev)| (*sev != "error", *s, *e));
    let mut chosen: Vec<(usize, usize, &str)> = Vec::new();
    for m in marks {
        if chosen.iter().all(|c| m.1 <= c.0 || m.0 >= c.1) {
            chosen.push(m);
        }
    }
    chosen.sort();
    let marks = chosen;
    let mut parts: Vec<(String, Option<&str>)> = Vec::new();
    let mut at = 0;
    for (s, e, sev) in marks {
        if s < at {
            continue;
        }
        parts.push((text[at..s].to_string(), None));
        parts.push((text[s..e].to_string(), Some(sev)));
        at = e;
    }
    parts.push((text[at..].to_string(), None));
    html! {
        @for (t, sev) in parts {
            @match sev {
                Some(s) => mark class=(s) { (t) },
                None => (t),
            }
        }
    }
}

/// The umpire's console.
/// The Opportunity Fire open in this Movement Phase (17.4): which battery may fire at which
/// mover, and at which hexes of its path; nothing is rolled until the umpire resolves a fire.
fn opportunity_offers(view: &View) -> Markup {
    use crate::engine::opportunity::zone_hexes_text;
    html! {
        @if !view.opportunity_fire.is_empty() {
            div #opportunity-fire {
                p { strong { "Opportunity Fire open (17.4)" } }
                ul {
                    @for o in &view.opportunity_fire {
                        li {
                            (o.battery) " (" (o.side) ", " (o.battery_hex.to_string()) ") may fire at "
                            (o.target)
                            // 17.4.2: a Line Extension that moved on its own, a target of its own.
                            @if let Some(h) = o.extension {
                                "'s Line Extension (now " (h.to_string()) ")"
                            }
                            @if !o.hexes.is_empty() {
                                " at "
                                (zone_hexes_text(&o.hexes))
                            }
                            // 17.4 trigger 3: a formation change in the zone.
                            @if !o.formation_changes.is_empty() {
                                @if !o.hexes.is_empty() { ";" }
                                " changing formation at "
                                (zone_hexes_text(&o.formation_changes))
                                " (fire “" (combat_label("--formation-change")) "”)"
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The Reaction Charges open in this phase (16.5), beside the Opportunity Fire: which cavalry
/// may charge which mover, and at which hexes of its Reaction Zone.
fn reaction_offers(view: &View) -> Markup {
    use crate::engine::opportunity::reaction_hexes_text as show;
    html! {
        @if !view.reaction_charges.is_empty() {
            div #reaction-charges {
                p { strong { "Reaction Charges open (16.5)" } }
                ul {
                    @for o in &view.reaction_charges {
                        li {
                            (o.cavalry) " (" (o.side) ", " (o.cavalry_hex.to_string()) ") may charge "
                            (o.target)
                            // 13.1.1: a Line Extension's own move, a target of its own (decision 0211).
                            @if let Some(h) = o.extension {
                                "'s Line Extension (now " (h.to_string()) ")"
                            }
                            @if !o.hexes.is_empty() {
                                @if o.retreat { " retreating" }
                                " at " (show(&o.hexes))
                            }
                            @if !o.formation_changes.is_empty() {
                                " changing formation at " (show(&o.formation_changes))
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The Cavalry Withdrawals owed (22.1): the cavalry an enemy infantry or artillery unit moved
/// next to, which must Reaction Charge it or withdraw 6–12 hexes before the phase can end
/// (decision 0157), and the move that withdraws it.
fn withdrawals_owed(view: &View) -> Markup {
    use crate::engine::opportunity::WITHDRAWAL_HEXES as H;
    html! {
        @if !view.cavalry_withdrawals.is_empty() {
            div #cavalry-withdrawals {
                p { strong { "Cavalry Withdrawals owed (22.1)" } }
                ul {
                    @for w in &view.cavalry_withdrawals {
                        li {
                            (w.cavalry) " (" (w.side) ", " (w.cavalry_hex.to_string()) ") has "
                            (w.mover) " adjacent at " (w.mover_hex.to_string()) "; "
                            @if w.must_withdraw {
                                "it may not charge (22.1.1) and must withdraw"
                            } @else {
                                "it must Reaction Charge it or withdraw"
                            }
                            " " (H.start()) "–" (H.end()) " hexes from " (w.cavalry_hex.to_string())
                            ", away from " (w.mover_hex.to_string()) " (21.4.1), before the phase ends: "
                            code { "move --piece " (w.cavalry) " --retreat-from " (w.mover_hex.to_string()) " --to HEX --path …" }
                        }
                    }
                }
            }
        }
    }
}

pub fn umpire_page(view: &View, csrf: &str, links: &[(Seat, Option<String>)]) -> Markup {
    layout(
        "Umpire",
        csrf,
        html! {
            div #live data-stream="/events" {}
            div #panel-status hx-get="/panel/status" hx-trigger="sw-changed from:body, every 30s" { (header(view, "Umpire")) }
            nav .viewas {
                "View as: " a href="/umpire" { "everything" }
                @for (id, name) in &view.sides { " · " a href=(format!("/umpire/as/{id}")) title=(name) { (id) } }
            }
            div .grid {
                (map_box("/map"))
                aside {
                    section {
                        h2 { "Phase" }
                        div #panel-ready hx-get="/panel/ready" hx-trigger="load, sw-changed from:body" {}
                        form hx-post="/umpire/advance" hx-target="#advance-result" hx-swap="innerHTML" {
                            button type="submit" .primary { "Advance to the next step" }
                        }
                        div #advance-result {}
                        form .row hx-post="/umpire/deadline" hx-target="#deadline-result" hx-swap="innerHTML" {
                            select name="action" {
                                option value="set" { "deadline in" }
                                option value="extend" { "extend by" }
                                option value="pause" { "pause" }
                                option value="resume" { "resume" }
                                option value="clear" { "clear" }
                            }
                            input name="minutes" type="number" min="1" max="1440" value="10" aria-label="minutes";
                            span { "min" }
                            button type="submit" { "Deadline" }
                        }
                        div #deadline-result {}
                    }
                    section {
                        h2 { "Override (with a reason)" }
                        form hx-post="/umpire/override" hx-target="#override-result" hx-swap="innerHTML" {
                            select name="action" {
                                option value="ruling" { "ruling (text)" }
                                option value="discard" { "discard order (number)" }
                                option value="reroll" { "re-roll acceptance (order number)" }
                                option value="wrecked" { "mark wrecked (command)" }
                                option value="unwrecked" { "clear wrecked (command)" }
                                option value="no-orders" { "No Orders Status (command)" }
                                option value="commander-lost" { "commander lost (command, 6.7)" }
                                option value="impose" { "impose an order (command + order text)" }
                            }
                            input name="target" placeholder="text, order number or command" required;
                            input name="text" placeholder="order text (impose only)";
                            input name="reason" placeholder="reason" required;
                            button type="submit" { "Override" }
                        }
                        div #override-result {}
                    }
                    section {
                        h2 { "Combat" }
                        (opportunity_offers(view))
                        (reaction_offers(view))
                        (withdrawals_owed(view))
                        (combat_form())
                        div #combat-result {}
                    }
                    (move_form(view, true))
                    section {
                        h2 { "Message a side" }
                        form hx-post="/message" hx-target="#message-result" hx-swap="innerHTML" {
                            select name="side" { @for (id, _) in &view.sides { option value=(id) { (id) } } }
                            textarea name="text" rows="2" maxlength="2000" required {}
                            button type="submit" { "Send" }
                        }
                        div #message-result {}
                    }
                    section {
                        h2 { "Seats and links" }
                        ul .links {
                            @for (seat, link) in links {
                                li {
                                    (seat.key()) ": "
                                    @match link { Some(l) => { code { (l) } }, None => { span .muted { "issued (only its hash is kept)" } } }
                                    form .inline hx-post="/umpire/reissue" hx-target="#reissue-result" hx-swap="innerHTML" {
                                        input type="hidden" name="seat" value=(seat.key());
                                        button type="submit" { "revoke & reissue" }
                                    }
                                }
                            }
                        }
                        div #reissue-result {}
                    }
                    section {
                        h2 { "Branch" }
                        form hx-post="/umpire/branch" hx-target="#branch-result" hx-swap="innerHTML" {
                            input name="name" placeholder="file name (NAME.db next to the game)" required;
                            input name="turn" type="number" min="0" value=(view.turn) required;
                            button type="submit" { "Branch into a new file" }
                        }
                        div #branch-result {}
                    }
                }
            }
            div #panel-books hx-get="/panel/books" hx-trigger="sw-changed from:body" { (books(view)) }
        },
    )
}

/// The umpire's read-only look at one side's page.
pub fn view_as_page(view: &View, csrf: &str, side: &str) -> Markup {
    layout(
        &format!("Umpire as {side}"),
        csrf,
        html! {
            (header(view, &format!("Umpire viewing as {side}")))
            nav .viewas { a href="/umpire" { "← back to the console" } }
            div .grid {
                (map_box(&format!("/map?as={side}")))
                aside { p .muted { "Exactly what the " (side) " seat sees." } }
            }
            (books(view))
        },
    )
}

/// The observer's page.
pub fn observer_page(view: &View, csrf: &str) -> Markup {
    layout(
        "Observer",
        csrf,
        html! {
            div #live data-stream="/events" {}
            div #panel-status hx-get="/panel/status" hx-trigger="sw-changed from:body, every 30s" { (header(view, "Observer")) }
            @if !view.game_over { p .muted { "Observers see the public record while the game runs, and everything once it ends." } }
            div .grid { (map_box("/map")) aside {} }
            div #panel-books hx-get="/panel/books" hx-trigger="sw-changed from:body" { (books(view)) }
        },
    )
}

/// Who is ready in the current phase (the umpire's console).
pub fn ready_panel(ready: &[(String, bool)]) -> Markup {
    html! {
        ul .ready {
            @for (side, r) in ready {
                li { (side) ": " @if *r { strong { "ready" } } @else { "not ready" } }
            }
        }
    }
}

/// The label of a combat form field, as `backend::COMBAT_FIELDS` names it for refusals too.
fn combat_label(flag: &str) -> &'static str {
    crate::web::backend::field_label(crate::web::backend::COMBAT_FIELDS, flag).unwrap_or("option")
}

/// The umpire's combat form: every option of `staffwork combat`, as fields (the choices a
/// defending player makes, the umpire's rulings with their reason, and the rest).
fn combat_form() -> Markup {
    let l = combat_label;
    let quality = |name: &'static str, flag: &str| {
        html! {
            label {
                (l(flag)) " "
                select name=(name) {
                    option value="" { "elite (default)" }
                    option value="regular" { "regular" }
                    option value="rifles" { "rifles (26.3)" }
                }
            }
        }
    };
    html! {
        form #combat-form hx-post="/umpire/combat" hx-target="#combat-result" hx-swap="innerHTML" {
            div .row {
                select name="kind" aria-label="combat" {
                    option value="close-combat" { "close combat (15)" }
                    option value="charge" { "cavalry charge (16)" }
                    option value="fire" { "artillery fire (17)" }
                    option value="skirmisher-fire" { "skirmisher fire (18)" }
                }
                input name="attackers" aria-label=(l("--attacker")) placeholder="attackers, comma-separated unit ids" required;
                input name="defenders" aria-label=(l("--defender")) placeholder="defenders" required;
            }
            div .row {
                label title="13.1.1: a Line Extension fights as a unit of its own; name its parent alone" {
                    (l("--attacker-at")) " "
                    input name="attacker_at" size="6" placeholder="hex";
                }
                label title="13.1.1: the defender is the Line Extension of the one unit named" {
                    (l("--defender-at")) " "
                    input name="defender_at" size="6" placeholder="hex";
                }
                label title="17.4: Opportunity Fire at this hex of the move just made" {
                    (l("--opportunity-at")) " "
                    input name="opportunity_at" size="6" placeholder="hex";
                }
                label title="17.4 trigger 3: the unit changed formation at that hex" {
                    input type="checkbox" name="formation_change" value="yes";
                    " " (l("--formation-change"))
                }
                label title="16.5: a Reaction Charge at this hex of the move just made (with the Reaction Charge box)" {
                    (l("--at")) " "
                    input name="reaction_at" size="6" placeholder="hex";
                }
            }
            fieldset {
                legend { "The defending player's choices" }
                select name="square" title="16.2.1: ask the defending player" {
                    option value="" { "charge: Square not asked" }
                    option value="yes" { (l("--form-square")) }
                    option value="no" { (l("--no-square")) }
                }
                select name="skirmisher" title="15.1.7: a lone Skirmisher in Hindering terrain; ask the defending player" {
                    option value="" { "lone Skirmisher: choice not asked" }
                    option value="stands" { (l("--skirmisher-stands")) }
                    option value="retreats" { (l("--skirmisher-retreats")) }
                }
                label title="20.2: a Skirmisher in a stack takes its even losses; UNIT or UNIT=N, comma-separated" {
                    (l("--skirmisher-absorbs")) " "
                    input name="skirmisher_absorbs" size="12" placeholder="UNIT or UNIT=N";
                }
                label title="17.4.6: with a Square formed, the enemy batteries that fire at it as it forms, before the charge goes on (the battery's side decides); comma-separated" {
                    (l("--square-fire")) " "
                    input name="square_fire" size="12" placeholder="batteries";
                }
            }
            fieldset {
                legend { "The umpire's rulings (with a reason, recorded)" }
                label title="12.1.1, 15.1.4: the attackers enter across a hexside that is not frontal" {
                    input type="checkbox" name="allow_entry" value="yes";
                    " " (l("--allow-entry"))
                }
                label title="17.4.1: one firer per trigger, once per phase; the umpire lets this fire stand" {
                    input type="checkbox" name="allow_fire" value="yes";
                    " " (l("--allow-fire"))
                }
                label title="16.5.3: one Reaction Charge per Cavalry Charge; the umpire lets this one stand" {
                    input type="checkbox" name="allow_reaction" value="yes";
                    " " (l("--allow-reaction"))
                }
                label title="10.0: the arc the attack comes through, instead of the one read from facing" {
                    (l("--attack-arc")) " "
                    select name="attack_arc" {
                        option value="" { "from facing" }
                        option value="front" { "front" }
                        option value="flank" { "flank" }
                        option value="rear" { "rear" }
                    }
                }
                label title="chart p4 note 1: a charged Line's flanks" {
                    (l("--flanks")) " "
                    select name="flanks" {
                        option value="" { "from the map" }
                        option value="secure" { "secure" }
                        option value="open" { "open" }
                    }
                }
                input name="ruling" aria-label=(l("--ruling")) placeholder=(l("--ruling"));
            }
            fieldset {
                legend { "Options" }
                label title="15.2.1" { input type="checkbox" name="fortified" value="yes"; " " (l("--fortified")) }
                label title="17.4.9: Opportunity Fire at units entering the battery's hex" { input type="checkbox" name="cannister" value="yes"; " " (l("--cannister")) }
                label title="16.5: by the non-phasing side's cavalry too, without orders" { input type="checkbox" name="reaction" value="yes"; " " (l("--reaction")) }
                label title="16.2.7.3" { input type="checkbox" name="follow_on" value="yes"; " " (l("--follow-on")) }
                label title="16.2.7.2: against the same target after a success" {
                    (l("--follow-ons")) " "
                    input name="follow_ons" type="number" min="0" max="3" value="0";
                }
                (quality("quality", "--quality"))
                (quality("defender_quality", "--defender-quality"))
            }
            button type="submit" .primary { "Resolve" }
        }
    }
}
