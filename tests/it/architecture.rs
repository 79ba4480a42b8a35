//! Architecture tests in the style of rust-analyzer's tidy tests: they read `src/` as text and
//! fail when a boundary of docs/ARCHITECTURE.md is crossed:
//!
//! - the engine imports `store`, `cli`, `app`, `game` or `conformance` (it must stay pure);
//! - anything outside `cli` prints (`println!`, `print!`, `eprintln!`, `eprint!`, `dbg!`,
//!   `stdout()`, `stderr()`);
//! - two top-level modules depend on each other, directly or round a longer cycle;
//! - the code map of docs/ARCHITECTURE.md misses a top-level module of `src/`, names a path that
//!   is not in the tree, or a module folder's row does not name one of its files;
//! - a function is longer than 150 lines and not listed, with its reason, in `LONG_FUNCTIONS`.
//!
//! A dependency is a `crate::MODULE` path (also inside `use crate::{…}` groups) outside comments
//! and outside the `#[cfg(test)]` module that ends a file (tests may reach anywhere).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under a folder, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("src readable")
        .map(|e| e.expect("dir entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            out.extend(rust_files(&p));
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
    out
}

/// The top-level modules of the crate: `src/NAME.rs` and `src/NAME/`.
fn top_modules() -> BTreeSet<String> {
    std::fs::read_dir(src())
        .expect("src readable")
        .filter_map(|e| {
            let p = e.ok()?.path();
            let name = p.file_stem()?.to_str()?.to_string();
            let keep = p.is_dir() || p.extension().is_some_and(|e| e == "rs");
            (keep && name != "lib" && name != "main").then_some(name)
        })
        .collect()
}

/// The code a file ships: comment lines dropped, the closing `#[cfg(test)]` module cut off.
fn shipped_code(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("#[cfg(test)]") {
            break;
        }
        if t.starts_with("//") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

fn ident_at(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The top-level modules a piece of code names through `crate::`.
fn crate_paths(code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        let after = &rest[i + "crate::".len()..];
        if let Some(group) = after.strip_prefix('{') {
            // `use crate::{a::X, b, c::{…}}`: the first identifier of each item at depth 1.
            let mut depth = 1;
            let mut item_start = true;
            for (j, ch) in group.char_indices() {
                match ch {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    ',' if depth == 1 => item_start = true,
                    c if item_start && depth == 1 && (c.is_ascii_alphabetic() || c == '_') => {
                        found.insert(ident_at(&group[j..]).to_string());
                        item_start = false;
                    }
                    _ => {}
                }
            }
        } else {
            found.insert(ident_at(after).to_string());
        }
        rest = after;
    }
    found
}

/// Module → the other top-level modules its shipped code names.
fn dependency_graph() -> BTreeMap<String, BTreeSet<String>> {
    let modules = top_modules();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in rust_files(&src()) {
        let rel = file.strip_prefix(src()).expect("under src");
        let first = rel.components().next().expect("a component");
        let top = Path::new(first.as_os_str())
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_string();
        if !modules.contains(&top) {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("source readable");
        let deps = graph.entry(top.clone()).or_default();
        for m in crate_paths(&shipped_code(&text)) {
            if m != top && modules.contains(&m) {
                deps.insert(m);
            }
        }
    }
    graph
}

/// A cycle through `start`, as a path `start → … → start`, if there is one.
fn cycle_through(graph: &BTreeMap<String, BTreeSet<String>>, start: &str) -> Option<Vec<String>> {
    fn walk(
        graph: &BTreeMap<String, BTreeSet<String>>,
        start: &str,
        path: &mut Vec<String>,
        seen: &mut BTreeSet<String>,
    ) -> bool {
        let here = path.last().expect("non-empty path").clone();
        for next in graph.get(&here).into_iter().flatten() {
            if next == start {
                path.push(next.clone());
                return true;
            }
            if seen.insert(next.clone()) {
                path.push(next.clone());
                if walk(graph, start, path, seen) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let mut path = vec![start.to_string()];
    let mut seen = BTreeSet::new();
    walk(graph, start, &mut path, &mut seen).then_some(path)
}

fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    graph
        .keys()
        .filter_map(|m| cycle_through(graph, m))
        .map(|p| p.join(" → "))
        .collect()
}

#[test]
fn the_engine_stays_pure_of_files_front_ends_and_games() {
    let graph = dependency_graph();
    let engine = graph.get("engine").expect("an engine module");
    let banned: Vec<&String> = engine
        .iter()
        .filter(|m| ["store", "cli", "app", "game", "conformance"].contains(&m.as_str()))
        .collect();
    assert!(
        banned.is_empty(),
        "src/engine imports {banned:?}; the engine must not know files, front ends or games (ARCHITECTURE.md, invariant 1)"
    );
}

#[test]
fn only_the_cli_prints() {
    const PRINTS: [&str; 7] = [
        "println!",
        "print!(",
        "eprintln!",
        "eprint!(",
        "dbg!",
        "stdout()",
        "stderr()",
    ];
    let mut offenders = Vec::new();
    for file in rust_files(&src()) {
        let rel = file.strip_prefix(src()).expect("under src");
        if rel.starts_with("cli") || rel == Path::new("main.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("source readable");
        for line in shipped_code(&text).lines() {
            if let Some(p) = PRINTS.iter().find(|p| line.contains(*p)) {
                offenders.push(format!("src/{}: `{p}` in `{}`", rel.display(), line.trim()));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "only src/cli prints (ARCHITECTURE.md, invariant 7); return the text instead:\n{}",
        offenders.join("\n")
    );
}

#[test]
fn no_two_top_level_modules_depend_on_each_other() {
    let graph = dependency_graph();
    let found = cycles(&graph);
    assert!(
        found.is_empty(),
        "cycles between top-level modules (move the shared part to a module both may use):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_code_map_lists_every_top_level_module() {
    let map =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ARCHITECTURE.md"))
            .expect("docs/ARCHITECTURE.md");
    let missing: Vec<String> = top_modules()
        .into_iter()
        .filter(|m| {
            !map.contains(&format!("`src/{m}/`")) && !map.contains(&format!("`src/{m}.rs`"))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "docs/ARCHITECTURE.md's code map does not list {missing:?}; add a row saying what each owns and must not do"
    );
}

/// The code map's rows: the paths of the first column and the text of the row.
fn code_map_rows(map: &str) -> Vec<(Vec<String>, String)> {
    let start = map.find("## Code map").expect("a code map section");
    let end = map[start..]
        .find("## Invariants")
        .map_or(map.len(), |e| start + e);
    map[start..end]
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let first = l.split(" | ").next().unwrap_or_default();
            let paths = first
                .split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect();
            (paths, l.to_string())
        })
        .collect()
}

#[test]
fn the_code_map_matches_the_tree() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let map = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).expect("the map");
    let mut wrong = Vec::new();
    for (paths, row) in code_map_rows(&map) {
        for p in &paths {
            if !root.join(p).exists() {
                wrong.push(format!("`{p}` is in the code map but not in the tree"));
            }
        }
        // A module folder's row names each of its files (but `mod.rs`), as `file.rs` or, a
        // level down, `sub/file.rs`.
        let Some(dir) = paths
            .first()
            .filter(|p| p.starts_with("src/") && p.ends_with('/'))
        else {
            continue;
        };
        let dir = root.join(dir);
        for file in rust_files(&dir) {
            let rel = file
                .strip_prefix(&dir)
                .expect("under its folder")
                .to_string_lossy()
                .replace('\\', "/");
            if rel != "mod.rs" && !row.contains(&format!("`{rel}`")) {
                wrong.push(format!("the row of `{}` does not name `{rel}`", paths[0]));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "the code map and the tree disagree (add a row or a file's words, or drop the stale one):\n{}",
        wrong.join("\n")
    );
}

// The checker itself: each rule catches what it is meant to.

#[test]
fn the_checker_sees_imports_in_groups_and_paths_but_not_in_comments_or_tests() {
    let code = "use crate::{store::Store, game};\n// crate::cli in a comment\nfn f() { crate::app::execute(); }\n#[cfg(test)]\nmod tests { use crate::conformance; }\n";
    let found = crate_paths(&shipped_code(code));
    assert_eq!(
        found.into_iter().collect::<Vec<_>>(),
        ["app", "game", "store"]
    );
}

#[test]
fn the_checker_sees_every_kind_of_function_item() {
    for line in [
        "fn a() {",
        "pub fn a() {",
        "pub(crate) fn a() {",
        "pub(in crate::x) fn a() {",
        "async fn a() {",
        "pub async fn a() {",
        "pub(crate) const unsafe fn a() {",
        "extern \"C\" fn a() {",
    ] {
        assert!(fn_item(line), "{line}");
    }
    for line in [
        "let f = fn_item;",
        "pub struct Fn;",
        "fnord()",
        "pub use x::fn_a;",
    ] {
        assert!(!fn_item(line), "{line}");
    }
}

#[test]
fn the_checker_finds_a_cycle_and_its_path() {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    g.entry("a".into()).or_default().insert("b".into());
    g.entry("b".into()).or_default().insert("c".into());
    g.entry("c".into()).or_default().insert("a".into());
    g.entry("d".into()).or_default().insert("a".into());
    assert_eq!(cycle_through(&g, "a").unwrap(), ["a", "b", "c", "a"]);
    assert_eq!(cycle_through(&g, "d"), None);
    g.get_mut("c").unwrap().clear();
    assert!(cycles(&g).is_empty());
}

/// Functions allowed over the length limit, with the reason. A flat `match` over every event or
/// command kind reads best whole; the others are a ratchet — splitting one takes it off the
/// list, and nothing new may join it.
const LONG_FUNCTIONS: &[(&str, &str, &str)] = &[
    (
        "engine/evolve.rs",
        "apply",
        "one flat match: event kind → state change",
    ),
    (
        "engine/describe.rs",
        "describe",
        "one flat match: event kind → words",
    ),
    (
        "engine/random_events.rs",
        "apply",
        "one flat match: random event effect → events",
    ),
];

/// The longest a function may be, in lines (issue 14).
const MAX_FUNCTION_LINES: usize = 150;

/// Does this (trimmed) line start a function item: `fn`, after any visibility (`pub`,
/// `pub(crate)`, …) and qualifiers (`const`, `async`, `unsafe`, `extern "C"`)?
fn fn_item(line: &str) -> bool {
    let mut rest = line;
    if let Some(r) = rest.strip_prefix("pub") {
        rest = match r.strip_prefix('(') {
            Some(inner) => inner.split_once(')').map_or("", |(_, after)| after),
            None => r,
        }
        .trim_start();
    }
    loop {
        let before = rest;
        for q in ["const ", "async ", "unsafe ", "extern \"C\" ", "extern "] {
            if let Some(r) = rest.strip_prefix(q) {
                rest = r.trim_start();
            }
        }
        if rest == before {
            break;
        }
    }
    rest.starts_with("fn ")
}

/// `(file, function, lines)` of every non-test function longer than the limit. A function runs
/// from its `fn` line to the first line holding only its closing brace at the same indent.
fn long_functions() -> Vec<(String, String, usize)> {
    let mut out = Vec::new();
    for path in rust_files(&src()) {
        let text = std::fs::read_to_string(&path).expect("source readable");
        let code = shipped_code(&text);
        let lines: Vec<&str> = code.lines().collect();
        let rel = path
            .strip_prefix(src())
            .expect("under src")
            .to_string_lossy()
            .replace('\\', "/");
        let mut i = 0;
        while i < lines.len() {
            let line = lines[i];
            let trimmed = line.trim_start();
            let indent = &line[..line.len() - trimmed.len()];
            let is_fn = fn_item(trimmed) && !trimmed.ends_with(';');
            if !is_fn {
                i += 1;
                continue;
            }
            let name = ident_at(trimmed.split("fn ").nth(1).unwrap_or_default()).to_string();
            let close = format!("{indent}}}");
            let end = (i + 1..lines.len())
                .find(|&j| lines[j] == close)
                .unwrap_or(i);
            let n = end - i + 1;
            if n > MAX_FUNCTION_LINES {
                out.push((rel.clone(), name, n));
            }
            i = end.max(i) + 1;
        }
    }
    out
}

#[test]
fn no_function_is_longer_than_the_limit_unless_listed_with_its_reason() {
    let found = long_functions();
    let new: Vec<String> = found
        .iter()
        .filter(|(f, n, _)| !LONG_FUNCTIONS.iter().any(|(lf, ln, _)| lf == f && ln == n))
        .map(|(f, n, l)| format!("{f}: {n} ({l} lines)"))
        .collect();
    assert!(
        new.is_empty(),
        "functions over {MAX_FUNCTION_LINES} lines (split them along their seams):\n{}",
        new.join("\n")
    );
    let stale: Vec<String> = LONG_FUNCTIONS
        .iter()
        .filter(|(lf, ln, _)| !found.iter().any(|(f, n, _)| lf == f && ln == n))
        .map(|(f, n, _)| format!("{f}: {n}"))
        .collect();
    assert!(
        stale.is_empty(),
        "these are no longer long; take them off LONG_FUNCTIONS:\n{}",
        stale.join("\n")
    );
}
