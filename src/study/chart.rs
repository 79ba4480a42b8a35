//! Charts of a study, written by the program: SVG to look at and the Vega-Lite JSON of the same
//! chart for the web table. Cumulative probability that each order is implemented by each turn,
//! histograms of delay, and the side-by-side chart of a comparison.
//!
//! Owns the chart data (one `Series` per line) and both renderings. Must not print or write
//! files (the CLI writes what these functions return).

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::stats::Summary;

/// Tableau 10: distinguishable, and readable by most colour-blind readers.
const PALETTE: [&str; 10] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac",
];

/// One line of a line chart: a name and a value (0..=1) per turn 1..=last.
#[derive(Clone, Debug)]
pub struct Series {
    pub name: String,
    /// Dashed (the second plan of a comparison).
    pub dashed: bool,
    pub colour: usize,
    pub values: Vec<f64>,
}

/// Cumulative P(implemented by turn t) of each order.
pub fn implemented_series(s: &Summary, suffix: &str, dashed: bool) -> Vec<Series> {
    s.orders
        .iter()
        .enumerate()
        .map(|(i, o)| Series {
            name: format!("{}{suffix}", o.id),
            dashed,
            colour: i,
            values: (1..=s.last_turn as usize)
                .map(|t| o.implemented.at_most(t) as f64 / s.runs.max(1) as f64)
                .collect(),
        })
        .collect()
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const W: f64 = 960.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 250.0;
const TOP: f64 = 60.0;

/// A line chart of probabilities over turns, with the turns' clock times on the x axis.
pub fn line_svg(title: &str, subtitle: &str, labels: &[String], series: &[Series]) -> String {
    let h = 560.0;
    let (pw, ph) = (W - LEFT - RIGHT, h - TOP - 70.0);
    let n = labels.len().max(2);
    let x = |t: usize| LEFT + pw * (t as f64) / ((n - 1) as f64);
    let y = |p: f64| TOP + ph * (1.0 - p);
    let mut o = String::new();
    let _ = write!(
        o,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{h}" viewBox="0 0 {W} {h}" font-family="Helvetica, Arial, sans-serif">
<rect width="100%" height="100%" fill="white"/>
<text x="{LEFT}" y="26" font-size="18" font-weight="bold">{}</text>
<text x="{LEFT}" y="46" font-size="12" fill="#555">{}</text>
"##,
        esc(title),
        esc(subtitle)
    );
    for k in 0..=10 {
        let p = k as f64 / 10.0;
        let _ = writeln!(
            o,
            r##"<line x1="{LEFT}" x2="{}" y1="{y:.1}" y2="{y:.1}" stroke="{}" stroke-width="1"/><text x="{}" y="{:.1}" font-size="11" text-anchor="end">{}%</text>"##,
            LEFT + pw,
            if k == 0 { "#333" } else { "#e5e5e5" },
            LEFT - 6.0,
            y(p) + 4.0,
            k * 10,
            y = y(p)
        );
    }
    let every = n.div_ceil(12).max(1);
    for (t, l) in labels.iter().enumerate() {
        let _ = writeln!(
            o,
            r##"<line x1="{x:.1}" x2="{x:.1}" y1="{}" y2="{}" stroke="#333"/>"##,
            TOP + ph,
            TOP + ph + 5.0,
            x = x(t)
        );
        if t % every == 0 || t + 1 == labels.len() {
            let _ = writeln!(
                o,
                r##"<text x="{:.1}" y="{}" font-size="11" text-anchor="middle">{}</text>"##,
                x(t),
                TOP + ph + 19.0,
                esc(l)
            );
        }
    }
    let _ = writeln!(
        o,
        r##"<text x="{:.1}" y="{}" font-size="12" text-anchor="middle">game turn (clock time)</text>
<text transform="translate(18 {:.1}) rotate(-90)" font-size="12" text-anchor="middle">probability (share of runs)</text>"##,
        LEFT + pw / 2.0,
        h - 16.0,
        TOP + ph / 2.0
    );
    for (i, s) in series.iter().enumerate() {
        let c = PALETTE[s.colour % PALETTE.len()];
        let pts: Vec<String> = s
            .values
            .iter()
            .enumerate()
            .map(|(t, p)| format!("{:.1},{:.1}", x(t), y(*p)))
            .collect();
        let dash = if s.dashed {
            r#" stroke-dasharray="7 4""#
        } else {
            ""
        };
        let _ = writeln!(
            o,
            r##"<polyline fill="none" stroke="{c}" stroke-width="2.5"{dash} points="{}"/>"##,
            pts.join(" ")
        );
        // A marker per turn: the values exist only at turns; the lines join them for the eye.
        for p in &pts {
            if let Some((px, py)) = p.split_once(',') {
                let _ = write!(o, r##"<circle cx="{px}" cy="{py}" r="2.5" fill="{c}"/>"##);
            }
        }
        o.push('\n');
        let ly = TOP + 10.0 + 20.0 * i as f64;
        let lx = LEFT + pw + 16.0;
        let _ = writeln!(
            o,
            r##"<line x1="{lx}" x2="{}" y1="{ly}" y2="{ly}" stroke="{c}" stroke-width="2.5"{dash}/><text x="{}" y="{}" font-size="12">{}</text>"##,
            lx + 26.0,
            lx + 32.0,
            ly + 4.0,
            esc(&s.name)
        );
    }
    o.push_str("</svg>\n");
    o
}

/// Histograms of delay (turns from arrival to acceptance, 6.5.2), one panel per order, with a
/// last bar for runs in which the order was never accepted.
pub fn delay_svg(s: &Summary) -> String {
    let panels = s.orders.len().max(1);
    let cols = panels.min(3);
    let rows = panels.div_ceil(cols);
    let (pw, ph) = (280.0, 170.0);
    let w = 40.0 + cols as f64 * (pw + 40.0);
    let h = 70.0 + rows as f64 * (ph + 70.0);
    let mut o = String::new();
    let _ = writeln!(
        o,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="Helvetica, Arial, sans-serif">
<rect width="100%" height="100%" fill="white"/>
<text x="30" y="26" font-size="18" font-weight="bold">{}: delay before acceptance</text>
<text x="30" y="46" font-size="12" fill="#555">turns from arrival to acceptance (6.5.2), share of {} runs; "never" = not accepted by the end</text>"##,
        esc(&s.plan),
        s.runs
    );
    let max_delay = s
        .orders
        .iter()
        .map(|o| o.delay.bins.len())
        .max()
        .unwrap_or(1)
        .max(1);
    // One vertical scale for every panel (so panels compare), up to the next 10 % above the
    // tallest bar.
    let n = s.runs.max(1) as f64;
    let tallest = s
        .orders
        .iter()
        .flat_map(|o| o.delay.bins.iter().copied().chain([o.delay.none]))
        .max()
        .unwrap_or(0) as f64
        / n;
    let top = ((tallest * 10.0).ceil() / 10.0).clamp(0.1, 1.0);
    // Label every bar when few, else every other one.
    let label_every = if max_delay > 12 { 2 } else { 1 };
    for (i, ord) in s.orders.iter().enumerate() {
        let (cx, cy) = (
            50.0 + (i % cols) as f64 * (pw + 40.0),
            80.0 + (i / cols) as f64 * (ph + 70.0),
        );
        // The delay bars, a gap, then the "never" bar.
        let slots = max_delay as f64 + 2.0;
        let bw = pw / slots;
        let c = PALETTE[i % PALETTE.len()];
        let _ = writeln!(
            o,
            r##"<text x="{cx}" y="{}" font-size="13" font-weight="bold">{}</text><line x1="{cx}" x2="{}" y1="{}" y2="{}" stroke="#333"/>"##,
            cy - 10.0,
            esc(&ord.id),
            cx + pw,
            cy + ph,
            cy + ph
        );
        for k in [0.0, 0.5, 1.0] {
            let gy = cy + ph - ph * k;
            let _ = writeln!(
                o,
                r##"<line x1="{cx}" x2="{}" y1="{gy:.1}" y2="{gy:.1}" stroke="#e5e5e5"/><text x="{}" y="{:.1}" font-size="9" text-anchor="end" fill="#555">{:.0}%</text>"##,
                cx + pw,
                cx - 3.0,
                gy + 3.0,
                top * k * 100.0
            );
        }
        for k in 0..=max_delay {
            let never = k == max_delay;
            let count = if never {
                ord.delay.none
            } else {
                ord.delay.bins.get(k).copied().unwrap_or(0)
            };
            let slot = if never { k as f64 + 1.0 } else { k as f64 };
            let p = count as f64 / n;
            let bh = ph * p / top;
            let fill = if never { "#999" } else { c };
            let bx = cx + slot * bw;
            let _ = writeln!(
                o,
                r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{bh:.1}" fill="{fill}"><title>{}: {count} runs</title></rect>"##,
                bx + 1.0,
                cy + ph - bh,
                (bw - 2.0).max(1.0),
                if never {
                    "never".to_string()
                } else {
                    format!("delay {k}")
                },
            );
            if never || k % label_every == 0 {
                let _ = writeln!(
                    o,
                    r##"<text x="{:.1}" y="{}" font-size="10" text-anchor="middle">{}</text>"##,
                    bx + bw / 2.0,
                    cy + ph + 13.0,
                    if never {
                        "never".to_string()
                    } else {
                        k.to_string()
                    }
                );
            }
            if p >= 0.03 {
                let _ = writeln!(
                    o,
                    r##"<text x="{:.1}" y="{:.1}" font-size="9" text-anchor="middle" fill="#333">{:.0}%</text>"##,
                    bx + bw / 2.0,
                    cy + ph - bh - 3.0,
                    p * 100.0
                );
            }
        }
        let _ = writeln!(
            o,
            r##"<text x="{:.1}" y="{}" font-size="11" text-anchor="middle">delay (turns)</text>"##,
            cx + pw / 2.0,
            cy + ph + 28.0
        );
    }
    o.push_str("</svg>\n");
    o
}

/// Vega-Lite of a line chart of [`Series`].
pub fn line_vega(title: &str, labels: &[String], series: &[Series]) -> Value {
    let mut values = Vec::new();
    for s in series {
        for (t, p) in s.values.iter().enumerate() {
            values.push(json!({
                "series": s.name,
                "dashed": s.dashed,
                "turn": t + 1,
                "time": labels.get(t).cloned().unwrap_or_default(),
                "p": p,
            }));
        }
    }
    json!({
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "title": title,
        "width": 640,
        "height": 400,
        "data": {"values": values},
        "mark": {"type": "line", "point": true},
        "encoding": {
            "x": {"field": "turn", "type": "quantitative", "title": "game turn"},
            "y": {"field": "p", "type": "quantitative", "title": "probability", "axis": {"format": "%"}, "scale": {"domain": [0, 1]}},
            "color": {"field": "series", "type": "nominal"},
            "strokeDash": {"field": "dashed", "type": "nominal", "legend": null},
            "tooltip": [{"field": "series"}, {"field": "time"}, {"field": "p", "format": ".1%"}]
        }
    })
}

/// Vega-Lite of the delay histograms.
pub fn delay_vega(s: &Summary) -> Value {
    let mut values = Vec::new();
    for o in &s.orders {
        for (k, c) in o.delay.bins.iter().enumerate() {
            values.push(json!({"order": o.id, "delay": k.to_string(), "runs": c, "p": *c as f64 / s.runs.max(1) as f64}));
        }
        values.push(json!({"order": o.id, "delay": "never", "runs": o.delay.none, "p": o.delay.none as f64 / s.runs.max(1) as f64}));
    }
    json!({
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "title": format!("{}: delay before acceptance", s.plan),
        "data": {"values": values},
        "facet": {"field": "order", "type": "nominal", "columns": 3},
        "spec": {
            "width": 220, "height": 140,
            "mark": "bar",
            "encoding": {
                "x": {"field": "delay", "type": "ordinal", "title": "delay (turns)"},
                "y": {"field": "p", "type": "quantitative", "title": "share of runs", "axis": {"format": "%"}},
                "tooltip": [{"field": "runs"}, {"field": "p", "format": ".1%"}]
            }
        }
    })
}

/// The charts of a study: (file name, contents).
pub fn study_charts(s: &Summary) -> Vec<(String, String)> {
    let series = implemented_series(s, "", false);
    let title = format!("{}: order implemented by turn", s.plan);
    let sub = format!(
        "cumulative share of {} runs (seed {}) in which each order is implemented by the turn",
        s.runs, s.seed
    );
    vec![
        (
            "implemented.svg".into(),
            line_svg(&title, &sub, &s.turn_labels, &series),
        ),
        (
            "implemented.vl.json".into(),
            pretty(&line_vega(&title, &s.turn_labels, &series)),
        ),
        ("delay.svg".into(), delay_svg(s)),
        ("delay.vl.json".into(), pretty(&delay_vega(s))),
    ]
}

/// The side-by-side chart of a comparison: A solid, B dashed, one colour per order.
pub fn compare_charts(a: &Summary, b: &Summary) -> Vec<(String, String)> {
    let mut series = implemented_series(a, " (A)", false);
    series.extend(implemented_series(b, " (B)", true));
    let title = format!("{} (A) against {} (B)", a.plan, b.plan);
    let sub = format!(
        "share of runs in which each order is implemented by the turn; {} and {} runs, common seeds",
        a.runs, b.runs
    );
    let labels = if a.turn_labels.len() >= b.turn_labels.len() {
        &a.turn_labels
    } else {
        &b.turn_labels
    };
    vec![
        (
            "compare.svg".into(),
            line_svg(&title, &sub, labels, &series),
        ),
        (
            "compare.vl.json".into(),
            pretty(&line_vega(&title, labels, &series)),
        ),
    ]
}

/// A chart spec as pretty JSON. A `Value` has string keys and finite numbers only, so encoding
/// it cannot fail; the empty fallback is never taken.
fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default() + "\n"
}
