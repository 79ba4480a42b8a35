//! The map as SVG, drawn on the server from the scenario and a seat's [`View`].
//!
//! Flat-topped hexes in vertical columns, odd columns half a hex lower (decision 0002, `hex`);
//! terrain colours, elevation shading, roads, streams, bridges, place names, a `<title>` with
//! the hex number on every hex, the seat's counters, command ranges, order routes and "last
//! seen" ghosts. Owns geometry and drawing; must not decide what is shown — it draws only what
//! the view holds.

use maud::{Markup, PreEscaped, html};

use crate::hex::Hex;
use crate::scenario::Scenario;
use crate::scenario::model::PlaceKind;

use super::backend::View;

/// Hex radius in SVG units.
const R: f64 = 12.0;
const SQRT3: f64 = 1.732_050_807_568_877_2;

struct Geo {
    first_col: i32,
    last_row: i32,
}

impl Geo {
    fn centre(&self, h: Hex) -> (f64, f64) {
        let c = f64::from(h.col - self.first_col);
        let r = f64::from(self.last_row - h.row);
        let x = R + c * 1.5 * R;
        let odd = h.col.rem_euclid(2) == 1;
        let y = SQRT3 * R / 2.0 + r * SQRT3 * R + if odd { SQRT3 * R / 2.0 } else { 0.0 };
        (x, y)
    }

    fn hexagon(&self, h: Hex) -> String {
        let (x, y) = self.centre(h);
        // The six corners of a flat-topped hex, at 0°, 60°, … 300°.
        const CORNERS: [(f64, f64); 6] = [
            (1.0, 0.0),
            (0.5, SQRT3 / 2.0),
            (-0.5, SQRT3 / 2.0),
            (-1.0, 0.0),
            (-0.5, -SQRT3 / 2.0),
            (0.5, -SQRT3 / 2.0),
        ];
        let mut pts = String::new();
        for (cx, cy) in CORNERS {
            pts.push_str(&format!("{:.1},{:.1} ", x + R * cx, y + R * cy));
        }
        pts
    }
}

fn terrain_fill(name: Option<&str>) -> &'static str {
    match name {
        Some("ocean") | Some("sea") | Some("water") | Some("river") => "#8fb8d8",
        Some("beach") => "#efe2b0",
        Some("village") | Some("town") => "#c9a27e",
        Some("woods") | Some("wood") | Some("forest") => "#8fb07a",
        Some("orchard") => "#b5cc8e",
        Some("marsh") => "#a9c3b5",
        _ => "#e9e6cf",
    }
}

fn side_colour(view: &View, side: &str) -> &'static str {
    match view.sides.iter().position(|(s, _)| s == side) {
        Some(0) => "#c0392b",
        Some(1) => "#2c5aa0",
        _ => "#555",
    }
}

fn kind_letter(kind: &str) -> &'static str {
    if kind.starts_with("infantry") {
        "I"
    } else if kind.starts_with("cavalry") {
        "C"
    } else if kind.starts_with("artillery") {
        "A"
    } else {
        "•"
    }
}

/// The whole map for a view.
pub fn svg(sc: &Scenario, view: &View) -> Markup {
    let m = &sc.map;
    let g = Geo {
        first_col: m.first_col,
        last_row: m.last_row,
    };
    let (cols, rows) = m.size();
    let w = R * 2.0 + f64::from(cols.saturating_sub(1)) * 1.5 * R;
    let h = SQRT3 * R * (f64::from(rows) + 0.5);
    let vb = format!("0 0 {w:.0} {h:.0}");
    let mut hexes = Vec::new();
    for row in (m.first_row..=m.last_row).rev() {
        for col in m.first_col..=m.last_col {
            hexes.push(Hex::new(col, row));
        }
    }
    html! {
        svg #map xmlns="http://www.w3.org/2000/svg" viewBox=(vb) data-full=(vb)
            role="img" aria-label=(format!("Map of {}", sc.meta.title)) {
            g .terrain {
                @for hx in &hexes {
                    @let elev = m.elevation_at(*hx);
                    polygon points=(g.hexagon(*hx)) fill=(terrain_fill(m.terrain_at(*hx)))
                        class=(format!("hex elev{elev}")) data-hex=(hx.to_string()) {
                        title { (hx.to_string()) " " (m.terrain_at(*hx).unwrap_or("?")) ", level " (elev) }
                    }
                }
            }
            (features(sc, &g, w))
            (overlays(view, &g))
            (counters(view, &g))
        }
    }
}

fn features(sc: &Scenario, g: &Geo, width: f64) -> Markup {
    html! {
        g .features {
            @for p in &sc.places {
                @match p.kind {
                    PlaceKind::Road => {
                        polyline .road points=(p.hexes.iter().map(|h| { let (x, y) = g.centre(*h); format!("{x:.1},{y:.1}") }).collect::<Vec<_>>().join(" ")) {
                            title { (p.name) }
                        }
                    }
                    PlaceKind::Stream | PlaceKind::River => {
                        @for hs in &p.hexsides {
                            (hexside_line(g, hs.0, hs.1, "stream", &p.name))
                        }
                    }
                    PlaceKind::Bridge | PlaceKind::Ford => {
                        @for hs in &p.hexsides {
                            (hexside_line(g, hs.0, hs.1, "bridge", &p.name))
                        }
                        @for h in &p.hexes {
                            @let (x, y) = g.centre(*h);
                            rect .bridge x=(format!("{:.1}", x - 3.0)) y=(format!("{:.1}", y - 3.0)) width="6" height="6" { title { (p.name) } }
                        }
                    }
                    _ => {}
                }
            }
            @for p in &sc.places {
                @if !matches!(p.kind, PlaceKind::Road | PlaceKind::Stream | PlaceKind::River) && !p.hexes.is_empty() {
                    @let (x, y) = centroid(g, &p.hexes);
                    // Near the edges, anchor the name so that it stays on the map.
                    @let anchor = if x > width - 70.0 { "end" } else if x < 50.0 { "start" } else { "middle" };
                    text .place x=(format!("{x:.1}")) y=(format!("{:.1}", y - R * 0.9)) text-anchor=(anchor) { (p.name) }
                }
            }
        }
    }
}

fn centroid(g: &Geo, hexes: &[Hex]) -> (f64, f64) {
    let n = hexes.len().max(1) as f64;
    let (sx, sy) = hexes.iter().fold((0.0, 0.0), |(a, b), h| {
        let (x, y) = g.centre(*h);
        (a + x, b + y)
    });
    (sx / n, sy / n)
}

fn hexside_line(g: &Geo, a: Hex, b: Hex, class: &str, name: &str) -> Markup {
    let (ax, ay) = g.centre(a);
    let (bx, by) = g.centre(b);
    let (mx, my) = ((ax + bx) / 2.0, (ay + by) / 2.0);
    // The shared edge is perpendicular to the line between the centres, one radius long.
    let (dx, dy) = (bx - ax, by - ay);
    // Adjacent hex centres are always √3·R apart.
    let len = SQRT3 * R;
    let (px, py) = (-dy / len * R / 2.0, dx / len * R / 2.0);
    html! {
        line class=(class) x1=(format!("{:.1}", mx + px)) y1=(format!("{:.1}", my + py))
            x2=(format!("{:.1}", mx - px)) y2=(format!("{:.1}", my - py)) { title { (name) } }
    }
}

fn overlays(view: &View, g: &Geo) -> Markup {
    html! {
        g .overlays {
            @for (h, r) in &view.ranges {
                @let (x, y) = g.centre(*h);
                circle .range cx=(format!("{x:.1}")) cy=(format!("{y:.1}")) r=(format!("{:.1}", f64::from(*r) * SQRT3 * R)) {
                    title { "command range " (r) " hexes (6.11)" }
                }
            }
            @for o in &view.orders {
                @if let (Some(from), Some(to)) = (o.from_hex, o.objective.first()) {
                    @let (x1, y1) = g.centre(from);
                    @let (x2, y2) = g.centre(*to);
                    line class=(if o.status.contains("transit") { "route transit" } else { "route" })
                        x1=(format!("{x1:.1}")) y1=(format!("{y1:.1}")) x2=(format!("{x2:.1}")) y2=(format!("{y2:.1}")) {
                        title { "order " (o.number) " to " (o.recipient) ": " (o.readback) " (" (o.status) ")" }
                    }
                    circle .objective cx=(format!("{x2:.1}")) cy=(format!("{y2:.1}")) r="4" {
                        title { "objective of order " (o.number) }
                    }
                }
            }
            @for o in &view.orders {
                @if let Some((from, to, pct)) = o.courier {
                    @let (x1, y1) = g.centre(from);
                    @let (x2, y2) = g.centre(to);
                    @let k = f64::from(pct) / 100.0;
                    @let (cx, cy) = (x1 + (x2 - x1) * k, y1 + (y2 - y1) * k);
                    line .courier-path x1=(format!("{x1:.1}")) y1=(format!("{y1:.1}")) x2=(format!("{x2:.1}")) y2=(format!("{y2:.1}")) {}
                    g .courier {
                        rect x=(format!("{:.1}", cx - 4.0)) y=(format!("{:.1}", cy - 3.0)) width="8" height="6" {}
                        polyline points=(format!("{:.1},{:.1} {cx:.1},{:.1} {:.1},{:.1}", cx - 4.0, cy - 3.0, cy + 0.5, cx + 4.0, cy - 3.0)) {}
                        title { "aide with order " (o.number) " to " (o.recipient) ", " (pct) "% of the way, arrives turn " (o.arrival_turn) }
                    }
                }
            }
            // 4.0: a stack seen but not examined — where, never what (decision 0161).
            @for h in &view.stacks {
                @let (x, y) = g.centre(*h);
                g .stack {
                    rect x=(format!("{:.1}", x - 8.0)) y=(format!("{:.1}", y - 6.0)) width="16" height="12" rx="2" {}
                    text x=(format!("{x:.1}")) y=(format!("{:.1}", y + 3.0)) { "■" }
                    title { "an enemy stack at " (h.to_string()) " (no Commander near enough to examine it, 4.0)" }
                }
            }
            @for gh in &view.ghosts {
                @let (x, y) = g.centre(gh.hex);
                g .ghost {
                    rect x=(format!("{:.1}", x - 8.0)) y=(format!("{:.1}", y - 6.0)) width="16" height="12" rx="2" {}
                    text x=(format!("{x:.1}")) y=(format!("{:.1}", y + 3.0)) { "?" }
                    title { (gh.name) ", last seen " (gh.last_seen) " at " (gh.hex.to_string()) }
                }
            }
        }
    }
}

fn counters(view: &View, g: &Geo) -> Markup {
    html! {
        g .counters {
            @for p in &view.pieces {
                @let (x, y) = g.centre(p.hex);
                @let colour = side_colour(view, &p.side);
                @let tip = match &p.detail {
                    Some(d) if !d.extensions.is_empty() => format!("{} ({}) at {}: {} {}, {}, facing {}; {}; Line Extensions in {} (13)", p.name, p.kind, p.hex, d.strength, p.kind, d.formation, d.facing, d.state, d.extensions.iter().map(extension_text).collect::<Vec<_>>().join(", ")),
                    Some(d) => format!("{} ({}) at {}: {} {}, {}, facing {}; {}", p.name, p.kind, p.hex, d.strength, p.kind, d.formation, d.facing, d.state),
                    None => format!("{} at {}", p.name, p.hex),
                };
                @match p.role {
                    "commander" => {
                        g .commander data-piece=(p.id) {
                            circle cx=(format!("{x:.1}")) cy=(format!("{:.1}", y - 4.0)) r="4" fill=(colour) {}
                            title { (tip) }
                        }
                    }
                    "hq" => {
                        g .hq data-piece=(p.id) {
                            rect x=(format!("{:.1}", x + 1.0)) y=(format!("{:.1}", y - 9.0)) width="7" height="5" fill=(colour) {}
                            line x1=(format!("{:.1}", x + 1.0)) y1=(format!("{:.1}", y - 9.0)) x2=(format!("{:.1}", x + 1.0)) y2=(format!("{:.1}", y + 2.0)) {}
                            title { (tip) }
                        }
                    }
                    _ => {
                        g .unit data-piece=(p.id) {
                            rect x=(format!("{:.1}", x - 7.0)) y=(format!("{:.1}", y - 1.0)) width="14" height="9" rx="1.5" fill=(colour) {}
                            text x=(format!("{x:.1}")) y=(format!("{:.1}", y + 6.2)) { (kind_letter(&p.kind)) }
                            // The corners it faces (10.1), for the seat's own units only.
                            @if let Some(d) = &p.detail {
                                @for (dx, dy) in facing_ticks(&d.facing) {
                                    line .facing x1=(format!("{:.1}", x + dx * 7.5)) y1=(format!("{:.1}", y + 3.5 + dy * 5.0))
                                        x2=(format!("{:.1}", x + dx * 11.0)) y2=(format!("{:.1}", y + 3.5 + dy * 8.5)) {}
                                }
                            }
                            title { (tip) }
                        }
                        // 13.1.2: each Line Extension as its own outlined counter, with its own
                        // Morale State, facing and MP (decision 0153).
                        @if let Some(d) = &p.detail {
                            @for e in &d.extensions {
                                @let (ex, ey) = g.centre(e.hex);
                                g .extension data-piece=(p.id) data-hex=(e.hex.to_string()) {
                                    rect x=(format!("{:.1}", ex - 7.0)) y=(format!("{:.1}", ey - 1.0)) width="14" height="9" rx="1.5" stroke=(colour) {}
                                    text x=(format!("{ex:.1}")) y=(format!("{:.1}", ey + 6.2)) fill=(colour) { "x" }
                                    @for (dx, dy) in facing_ticks(&e.facing) {
                                        line .facing x1=(format!("{:.1}", ex + dx * 7.5)) y1=(format!("{:.1}", ey + 3.5 + dy * 5.0))
                                            x2=(format!("{:.1}", ex + dx * 11.0)) y2=(format!("{:.1}", ey + 3.5 + dy * 8.5)) {}
                                    }
                                    title { "Line Extension of " (p.name) " at " (extension_text(e)) " (13)" }
                                }
                            }
                        }
                    }
                }
            }
        }
        (PreEscaped(""))
    }
}

/// `4.05 (shaken, faces W, 1 MP spent)`: a Line Extension's own state (13.1.2).
fn extension_text(e: &crate::app::view::ExtensionEntry) -> String {
    // 13.2.1: one in Square says so (decision 0198).
    let square = if e.formation == crate::scenario::UnitFormation::Square {
        "in square, "
    } else {
        ""
    };
    format!(
        "{} ({square}{}, faces {}, {} MP spent)",
        e.hex,
        serde_json::to_value(e.morale)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        e.facing,
        e.mp_spent
    )
}

/// Unit vectors on the screen (north up) towards the hex corners a unit faces (10.1): `NNE`,
/// `E`, `SSE`, `SSW`, `W`, `NNW`, as `status` writes them; none for all-around.
fn facing_ticks(facing: &str) -> Vec<(f64, f64)> {
    const H: f64 = 0.866;
    facing
        .split(|c: char| !c.is_ascii_alphabetic())
        .filter_map(|w| match w {
            "NNE" => Some((0.5, -H)),
            "E" => Some((1.0, 0.0)),
            "SSE" => Some((0.5, H)),
            "SSW" => Some((-0.5, H)),
            "W" => Some((-1.0, 0.0)),
            "NNW" => Some((-0.5, -H)),
            _ => None,
        })
        .collect()
}
