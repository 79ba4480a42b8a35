//! `staffwork check`: read orders, print each one's read-back, type and diagnostics with the
//! offending text underlined (text) or the documented JSON contract (docs/order-language.md).

use std::fmt::Write as _;
use std::io::{Read, Write};
use std::path::PathBuf;

use clap::Args;
use unicode_width::UnicodeWidthStr;

use super::{CmdResult, Failure, Format};
use crate::order::{self, CheckReport, CheckedOrder, Severity};
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
}

pub fn run(args: CheckArgs) -> CmdResult {
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
    let bytes = match &args.file {
        Some(p) if p.as_os_str() != "-" => {
            std::fs::read(p).map_err(|e| Failure::Usage(format!("{}: {e}", p.display())))?
        }
        _ => {
            let mut b = Vec::new();
            std::io::stdin()
                .read_to_end(&mut b)
                .map_err(|e| Failure::Usage(format!("standard input: {e}")))?;
            b
        }
    };
    let text = String::from_utf8(bytes).map_err(|e| {
        Failure::Usage(format!(
            "the input is not UTF-8 (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })?;
    let report = order::check(&text, scen.as_ref(), args.side.as_deref());
    let out = match args.format {
        Format::Json => {
            let mut s =
                serde_json::to_string_pretty(&report).map_err(|e| Failure::Usage(e.to_string()))?;
            s.push('\n');
            s
        }
        Format::Text => render_text(&text, &report, args.explain),
    };
    // A closed pipe (`staffwork check … | head`) is not an error worth a panic.
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => return Err(Failure::Usage(format!("standard output: {e}"))),
    }
    if report.has_errors() {
        Err(Failure::Judged)
    } else {
        Ok(())
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
        let (line, _, _) = lines.locate(o.span.0);
        let _ = writeln!(out, "order {} (line {line}): {}", i + 1, type_name(o));
        if !o.readback.is_empty() {
            let _ = writeln!(out, "  read back: {}", o.readback);
            for l in o.stage_lines() {
                let _ = writeln!(out, "    {l}");
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
            let _ = writeln!(out, "  {}[{}]: {}", d.severity, d.code, d.message);
            if d.severity != Severity::Note {
                let (l, src, col) = lines.locate(d.span.0);
                let width = text
                    .get(d.span.0..d.span.1.min(d.span.0 + src.len()))
                    .map_or(1, |s| s.lines().next().unwrap_or("").width())
                    .max(1);
                let _ = writeln!(out, "   {l:>4} | {src}");
                let _ = writeln!(out, "        | {}{}", " ".repeat(col), "^".repeat(width));
            }
            if !d.help.is_empty() && d.severity != Severity::Note {
                let _ = writeln!(out, "        = help: {}", d.help);
            }
        }
        let _ = writeln!(out);
    }
    let s = &report.summary;
    let _ = writeln!(
        out,
        "{} order(s): {} error(s), {} warning(s)",
        s.orders, s.errors, s.warnings
    );
    out
}

/// Print one order's read-back and diagnostics, underlined, to stderr (used when `order`
/// refuses an order with errors).
pub(crate) fn print_order_text(text: &str, order: &CheckedOrder) {
    let report = CheckReport {
        orders: vec![order.clone()],
        summary: Default::default(),
    };
    eprint!("{}", render_text(text, &report, false));
}
