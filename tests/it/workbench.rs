//! The umpire's workbench (issue 17): names instead of ids on the command line, `show`,
//! `report`. Each test drives the built binary on a Vimeiro game.

use crate::common::{staffwork, stdout};

fn vimeiro(dir: &tempfile::TempDir) -> String {
    let db = dir.path().join("v.db").to_string_lossy().into_owned();
    let o = staffwork(&["new", "--db", &db, "--scenario", "vimeiro-1808"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    db
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn move_takes_a_name_and_a_typo_is_refused_with_a_suggestion() {
    let dir = tempfile::tempdir().unwrap();
    let db = vimeiro(&dir);
    // Into the French Operations window: Solignac's brigade arrives at 40.06.
    assert!(staffwork(&["turn", "--db", &db]).status.success());
    let before = stdout(&staffwork(&["log", "--db", &db]));

    let typo = staffwork(&["move", "--db", &db, "--piece", "Solignak", "--to", "31.10"]);
    assert_eq!(typo.status.code(), Some(1));
    let err = stderr(&typo);
    assert!(err.contains("unknown-name"), "{err}");
    assert!(err.contains("did you mean solignac"), "{err}");
    assert_eq!(
        stdout(&staffwork(&["log", "--db", &db])),
        before,
        "nothing written"
    );

    let ok = staffwork(&[
        "move",
        "--db",
        &db,
        "--piece",
        "SOLIGNAC'S BRIGADE",
        "--to",
        "32.09",
    ]);
    assert!(ok.status.success(), "{}", stderr(&ok));
    assert!(
        stdout(&ok).contains("solignac moves 40.06 → 32.09"),
        "{}",
        stdout(&ok)
    );
}

#[test]
fn an_ambiguous_name_lists_every_candidate_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = vimeiro(&dir);
    let o = staffwork(&[
        "override", "--db", &db, "--reason", "test", "--wreck", "Army", "--format", "json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(doc["refused"]["code"], "ambiguous-name");
    let msg = doc["refused"]["message"].as_str().unwrap();
    assert!(
        msg.contains("british-army") && msg.contains("french-army"),
        "{msg}"
    );
}

#[test]
fn a_brigadier_names_his_brigade_in_override_and_as_an_order_recipient() {
    let dir = tempfile::tempdir().unwrap();
    let db = vimeiro(&dir);
    // The scenario has no commander entry for Fane; his brigade is "6th Brigade (Fane)".
    let o = staffwork(&[
        "override", "--db", &db, "--reason", "test", "--wreck", "fane",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("6-fane is wrecked"), "{}", stdout(&o));

    let file = dir.path().join("o.txt");
    std::fs::write(&file, "Fane: defend the hill at 20.10.\n").unwrap();
    let c = staffwork(&[
        "check",
        "--scenario",
        "vimeiro-1808",
        "--side",
        "british",
        "--format",
        "json",
        file.to_str().unwrap(),
    ]);
    assert!(c.status.success(), "{}{}", stdout(&c), stderr(&c));
    // The read-back keeps "Fane" as written (a bracketed name does not read back the same);
    // the recipient resolves to his brigade.
    let doc: serde_json::Value = serde_json::from_str(&stdout(&c)).unwrap();
    assert_eq!(
        doc["orders"][0]["recipient"]["resolved"]["id"],
        "6-fane",
        "{}",
        stdout(&c)
    );
}
