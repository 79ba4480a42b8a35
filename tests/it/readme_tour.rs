//! The README's Vimeiro tour, run as a new user would: every line in order, in a fresh folder,
//! each must succeed (only `serve`, which waits for a browser, is left out). A README edit that
//! breaks the tour — a move refused for its step or its MP, an order number that moved — fails.

use std::path::Path;
use std::process::Command;

/// The tour's command lines, from the README's "Play a game as umpire: Vimeiro" to its branch.
fn tour_lines(readme: &str) -> Vec<String> {
    let start = readme
        .find("# Play a game as umpire: Vimeiro")
        .expect("the README has the Vimeiro tour");
    readme[start..]
        .lines()
        .filter(|l| l.starts_with("staffwork "))
        .take_while(|l| !l.starts_with("staffwork combat"))
        .filter(|l| !l.starts_with("staffwork serve"))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_readme_vimeiro_tour_runs_line_by_line() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let lines = tour_lines(&readme);
    assert!(
        lines.len() >= 20 && lines.last().unwrap().contains("branch"),
        "{lines:#?}"
    );
    let dir = tempfile::tempdir().unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_staffwork")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut transcript = String::new();
    for line in &lines {
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
