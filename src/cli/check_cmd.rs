//! `staffwork check`: read orders, print each one's read-back, type and diagnostics with the
//! offending text underlined (text) or the documented JSON contract (docs/order-language.md).

use std::fmt::Write as _;
use std::io::Read;
use std::path::PathBuf;

use clap::Args;
use unicode_width::UnicodeWidthStr;

use super::{CmdResult, Failure, Format};
use crate::order::{self, CheckReport, CheckedOrder, Severity, Summary};
use crate::scenario;

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// A scenario file (TOML), or the name of a bundled scenario (`tutorial-hall`), to resolve
    /// recipients, places and hexes against.
    #[arg(long)]
    pub scenario: Option<String>,
    /// The writer's side id (e.g. `imperial`); recipients must belong to it.
    #[arg(long)]
    pub side: Option<String>,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// Also print each order's tokens with their tags and the meaning rules that fired (ids as
    /// in docs/order-language.md §2.1); the JSON always carries the rules.
    #[arg(long)]
    pub explain: bool,
    /// File of orders separated by blank lines; `-` or nothing reads standard input.
    pub file: Option<PathBuf>,
    /// A game file: preview one order against the game as it stands — cost, courier time,
    /// acceptance odds, legality — as `order` would take it, writing nothing. Needs --side and
    /// --method; the order is FILE or --text.
    #[arg(long, requires = "side")]
    pub db: Option<PathBuf>,
    /// The order text itself, instead of FILE or standard input:
    /// `staffwork check --text "2nd Div: attack Hall"`.
    #[arg(long, conflicts_with = "file")]
    pub text: Option<String>,
    /// With --db: the recipient, when the text does not name it (as `order --to`).
    #[arg(long, requires = "db")]
    pub to: Option<String>,
    /// With --db: the sending commander (default: the side's army commander).
    #[arg(long, requires = "db")]
    pub from: Option<String>,
    /// With --db: how the order is delivered (6.4.3), as `order --method`.
    #[arg(long, value_enum, requires = "db")]
    pub method: Option<crate::app::MethodArg>,
}

pub fn run(args: CheckArgs) -> CmdResult {
    if let Some(db) = args.db.clone() {
        return super::workbench_cmd::check_on_game(&db, args);
    }
    let scen = match &args.scenario {
        None => None,
        Some(s) => {
            let path = PathBuf::from(s);
            if path.exists() {
                Some(scenario::load(&path).map_err(|e| Failure::Usage(e.to_string()))?)
            } else {
                Some(scenario::bundled(s).ok_or_else(|| {
                    Failure::Usage(format!("no scenario file or bundled scenario called `{s}`"))
                })?)
            }
        }
    };
    if let (Some(side), Some(sc)) = (&args.side, &scen)
        && sc.side(side).is_none()
    {
        let ids: Vec<&str> = sc.sides.iter().map(|s| s.id.as_str()).collect();
        return Err(Failure::Usage(format!(
            "no side `{side}` in the scenario; sides are {}",
            ids.join(", ")
        )));
    }
    let text = read_input(&args)?;
    let opts = order::Options {
        scenario: scen.as_ref(),
        side: args.side.as_deref(),
        now: None,
        explain: args.explain,
    };
    // Each order is written as soon as it is checked (memory bounded by one order, not the
    // input); the output is the same as rendering the whole report at once.
    let summary = stream_report(
        &text,
        order::check_each(&text, opts),
        args.format,
        args.explain,
    )?;
    if summary.errors > 0 {
        Err(Failure::Judged)
    } else {
        Ok(())
    }
}

/// Write a report order by order: text as `render_text` would, JSON as the pretty-printed
/// `CheckReport` would (`{"orders": [...], "summary": {...}}`). Returns the totals.
fn stream_report(
    text: &str,
    orders: impl Iterator<Item = CheckedOrder>,
    format: Format,
    explain: bool,
) -> Result<Summary, Failure> {
    let lines = Lines::new(text);
    let mut summary = Summary::default();
    let mut first = true;
    if format == Format::Json {
        super::emit("{\n  \"orders\": [")?;
    }
    for (i, o) in orders.enumerate() {
        summary.orders += 1;
        summary.errors += o.count(Severity::Error);
        summary.warnings += o.count(Severity::Warning);
        summary.notes += o.count(Severity::Note);
        let chunk = match format {
            Format::Text => {
                let mut out = String::new();
                render_order(&mut out, &lines, i, &o, explain);
                out
            }
            Format::Json => {
                let json = serde_json::to_string_pretty(&o)
                    .map_err(|e| Failure::Usage(format!("cannot encode the JSON output: {e}")))?;
                let sep = if first { "\n" } else { ",\n" };
                format!("{sep}{}", indent(&json, "    "))
            }
        };
        first = false;
        super::emit(&chunk)?;
    }
    let tail = match format {
        Format::Text => summary_line(&summary),
        Format::Json => {
            let json = serde_json::to_string_pretty(&summary)
                .map_err(|e| Failure::Usage(format!("cannot encode the JSON output: {e}")))?;
            let open = if first { "]" } else { "\n  ]" };
            format!(
                "{open},\n  \"summary\": {}\n}}\n",
                indent(&json, "  ").trim_start()
            )
        }
    };
    super::emit(&tail)?;
    Ok(summary)
}

/// Every line of `s` indented by `by`.
fn indent(s: &str, by: &str) -> String {
    s.lines()
        .map(|l| format!("{by}{l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The orders to check: --text, FILE, or standard input.
pub(crate) fn read_input(args: &CheckArgs) -> Result<String, Failure> {
    if let Some(t) = &args.text {
        return Ok(t.clone());
    }
    match &args.file {
        Some(p) if p.as_os_str() != "-" => crate::text::read_file(p).map_err(|e| {
            // An order typed where the file goes ("staffwork check "attack Hall"") is the
            // commonest slip; say how to pass it.
            let looks_like_an_order = e.kind() == std::io::ErrorKind::NotFound
                && p.to_string_lossy().contains(char::is_whitespace);
            if looks_like_an_order {
                Failure::Usage(format!(
                    "no file called `{}`; to check an order written on the command line, pass it \
                     with --text: staffwork check --text \"{}\"",
                    p.display(),
                    p.display()
                ))
            } else {
                Failure::Usage(format!("{}: {e}", p.display()))
            }
        }),
        _ => {
            let mut b = Vec::new();
            std::io::stdin()
                .read_to_end(&mut b)
                .and_then(|_| crate::text::utf8(b))
                .map_err(|e| Failure::Usage(format!("standard input: {e}")))
        }
    }
}

fn type_name(o: &CheckedOrder) -> &'static str {
    match o.order_type {
        Some(crate::rules::OrderType::Engage) => "Engage",
        Some(crate::rules::OrderType::General) => "General",
        Some(crate::rules::OrderType::Complex) => "Complex",
        None => "unreadable",
    }
}

/// Line starts of a text, computed once so that locating a diagnostic is a binary search:
/// the text report stays linear in the input however many diagnostics it holds.
struct Lines<'t> {
    text: &'t str,
    starts: Vec<usize>,
}

impl<'t> Lines<'t> {
    fn new(text: &'t str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Lines { text, starts }
    }

    /// Line number (1-based), the line's text and the display column of a byte offset.
    ///
    /// Columns are terminal cells (`unicode-width`), not chars: a CJK character or an emoji
    /// takes two cells and a combining mark none, so the underline stays under the text it
    /// marks.
    fn locate(&self, pos: usize) -> (usize, &'t str, usize) {
        let text = self.text;
        let pos = pos.min(text.len());
        let pos = (0..=pos)
            .rev()
            .find(|p| text.is_char_boundary(*p))
            .unwrap_or(0);
        let line = self.starts.partition_point(|&s| s <= pos).max(1) - 1;
        let line_start = self.starts[line];
        let line_end = text[pos..].find('\n').map_or(text.len(), |i| pos + i);
        let col = text[line_start..pos].width();
        (line + 1, &text[line_start..line_end], col)
    }
}

fn render_text(text: &str, report: &CheckReport, explain: bool) -> String {
    let lines = Lines::new(text);
    let mut out = String::new();
    for (i, o) in report.orders.iter().enumerate() {
        render_order(&mut out, &lines, i, o, explain);
    }
    out.push_str(&summary_line(&report.summary));
    out
}

/// The last line of a text report.
fn summary_line(s: &Summary) -> String {
    format!(
        "{} order(s): {} error(s), {} warning(s)\n",
        s.orders, s.errors, s.warnings
    )
}

/// One order of a text report: its type, read-back, stage lines, tokens (with `explain`) and
/// diagnostics underlined.
fn render_order(out: &mut String, lines: &Lines<'_>, i: usize, o: &CheckedOrder, explain: bool) {
    use crate::text::visible;
    let text = lines.text;
    {
        let (line, _, _) = lines.locate(o.span.0);
        let _ = writeln!(out, "order {} (line {line}): {}", i + 1, type_name(o));
        // User text is echoed through `text::visible`: control characters are shown, not
        // obeyed, and the caret is placed under the text as shown.
        if !o.readback.is_empty() {
            let _ = writeln!(out, "  read back: {}", visible(&o.readback));
            for l in o.stage_lines() {
                let _ = writeln!(out, "    {}", visible(&l));
            }
        }
        if explain {
            let _ = writeln!(out, "  tokens:");
            for t in &o.tags {
                let _ = writeln!(out, "    {:<20} {}", t.tag, t.text);
            }
            let rules = if o.rules.is_empty() {
                "(none)".to_string()
            } else {
                o.rules.join(", ")
            };
            let _ = writeln!(out, "  rules: {rules}");
        }
        for d in &o.diagnostics {
            let _ = writeln!(out, "  {}[{}]: {}", d.severity, d.code, visible(&d.message));
            if d.severity != Severity::Note {
                let (l, src, _) = lines.locate(d.span.0);
                let marked = text
                    .get(d.span.0..d.span.1.min(d.span.0 + src.len()))
                    .map_or("", |s| s.lines().next().unwrap_or(""));
                // Widths in terminal cells of the text as shown (controls made visible).
                let width = visible(marked).width().max(1);
                let before = (0..=d.span.0.min(text.len()))
                    .rev()
                    .find(|p| text.is_char_boundary(*p))
                    .and_then(|p| text[..p].rsplit('\n').next())
                    .unwrap_or("");
                let col = visible(before).width();
                let _ = writeln!(out, "   {l:>4} | {}", visible(src));
                let _ = writeln!(out, "        | {}{}", " ".repeat(col), "^".repeat(width));
            }
            if !d.help.is_empty() && d.severity != Severity::Note {
                let _ = writeln!(out, "        = help: {}", visible(&d.help));
            }
        }
        let _ = writeln!(out);
    }
}

/// Print one order's read-back and diagnostics, underlined, to stderr (used when `order`
/// refuses an order with errors).
pub(crate) fn print_order_text(text: &str, order: &CheckedOrder) {
    eprint!("{}", order_text(text, order));
}

/// One order's read-back and diagnostics, underlined, with the summary counting what was found
/// (issue 17: a refused order no longer ends "0 order(s): 0 error(s)").
pub(crate) fn order_text(text: &str, order: &CheckedOrder) -> String {
    let report = CheckReport {
        orders: vec![order.clone()],
        summary: crate::order::Summary {
            orders: 1,
            errors: order.count(Severity::Error),
            warnings: order.count(Severity::Warning),
            notes: order.count(Severity::Note),
        },
    };
    render_text(text, &report, false)
}
