//! The README's first command: the demo plays the whole command cycle and verifies its replay.

use std::process::Command;

#[test]
fn the_demo_shows_every_step_of_the_command_cycle_and_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("demo.db");
    let out = Command::new(env!("CARGO_BIN_EXE_staffwork"))
        .args(["demo", "--db", db.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "read back",
        "cost 6 CP, arrives turn 2",
        "refused [not-enough-command-points]",
        "rolls for initiative",
        "→ Dt",
        "DISTORTED",
        "distortion discovered",
        "delayed: from next turn",
        "→ A",
        "UMPIRE OVERRIDE",
        "attack stoppage for div-2: 1 of 2 wrecked",
        "ATTACK STOPS",
        "Emergency Withdrawal (Stoppage",
        "morale check",
        "Order Log (rule 6.4.5)",
        "What the Allied player sees",
        "verified: the hash chain holds",
        "demo.db",
    ] {
        assert!(
            text.contains(needle),
            "the demo no longer shows `{needle}`:\n{text}"
        );
    }
    // The allied view shows no Imperial command.
    let view = text.split("What the Allied player sees").nth(1).unwrap();
    let view = view.split("Replaying the file").next().unwrap();
    assert!(
        !view.contains("imperial   "),
        "allied view lists imperial commands:\n{view}"
    );
}

#[test]
fn the_demo_replaces_its_own_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("demo.db");
    for _ in 0..2 {
        let out = Command::new(env!("CARGO_BIN_EXE_staffwork"))
            .args(["demo", "--quiet", "--db", db.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
