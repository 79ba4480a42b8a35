//! The README's game tours (Vimeiro, Talavera), run as a new user would: every line in order,
//! in a fresh folder, each must succeed (only `serve`, which waits for a browser, is left out).
//! A README edit that breaks a tour — a move refused for its step or its MP, an order number
//! that moved — fails.

use std::path::Path;
use std::process::Command;

/// The README's command lines from the first line containing `from` up to the first line, after
/// it, starting with `until` (excluded).
fn tour_lines(readme: &str, from: &str, until: &str) -> Vec<String> {
    let start = readme.find(from).expect("the README has the tour");
    readme[start..]
        .lines()
        .filter(|l| l.starts_with("staffwork "))
        .take_while(|l| !l.starts_with(until))
        .filter(|l| !l.starts_with("staffwork serve"))
        .map(str::to_string)
        .collect()
}

/// Run `lines` in order in a fresh folder, each through the shell as written; returns the
/// folder and everything printed on stdout.
fn run_tour(lines: &[String]) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_staffwork")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut transcript = String::new();
    for line in lines {
        let out = Command::new("sh")
            .arg("-c")
            .arg(line)
            .current_dir(dir.path())
            .env("PATH", &path)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "README line failed: {line}\n{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        transcript.push_str(&stdout);
    }
    (dir, transcript)
}

fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap()
}

#[test]
fn the_readme_vimeiro_tour_runs_line_by_line() {
    let lines = tour_lines(
        &readme(),
        "# Play a game as umpire: Vimeiro",
        "staffwork combat",
    );
    assert!(
        lines.len() >= 20 && lines.last().unwrap().contains("branch"),
        "{lines:#?}"
    );
    let (dir, transcript) = run_tour(&lines);
    // What the tour promises along the way.
    for needle in [
        "took back the last 3 command(s)",
        "order 14 to hill-div",
        "verify: ok",
    ] {
        assert!(transcript.contains(needle), "{needle}:\n{transcript}");
    }
    assert!(dir.path().join("british-t1.html").exists());
    assert!(dir.path().join("whatif.db").exists());
}

#[test]
fn the_readme_talavera_tour_runs_line_by_line() {
    let lines = tour_lines(
        &readme(),
        "staffwork new --scenario talavera-1809 --db talavera.db",
        "staffwork scenario check",
    );
    assert!(lines.iter().any(|l| l.contains("relay")), "{lines:#?}");
    let (_dir, transcript) = run_tour(&lines);
    assert!(
        transcript.contains("re-issues order 22 in person"),
        "{transcript}"
    );
}
