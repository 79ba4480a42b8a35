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
        "33.08",
    ]);
    assert!(ok.status.success(), "{}", stderr(&ok));
    assert!(
        stdout(&ok).contains("solignac moves 40.06 → 33.08"),
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

fn json(o: &std::process::Output) -> serde_json::Value {
    serde_json::from_str(&stdout(o)).unwrap_or_else(|e| panic!("{e}: {}", stdout(o)))
}

#[test]
fn show_gives_the_umpire_the_whole_unit_and_its_order() {
    let dir = tempfile::tempdir().unwrap();
    let db = vimeiro(&dir);
    let o = staffwork(&["show", "--db", &db, "Fane"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = stdout(&o);
    for want in [
        "6th Brigade (Fane) (6-fane) — british",
        "position   20.10",
        "formation  line",
        "strength   A",
        "losses     0 (0) — 10 of 10 boxes left",
        "morale     normal (rating A)",
        "order      order 5: Defend in place.",
        "(accepted, stage 1 of 1)",
    ] {
        assert!(t.contains(want), "missing {want:?} in\n{t}");
    }
    // A brigade of a division acts on the division's order, and names its commander.
    let doc = json(&staffwork(&[
        "show", "--db", &db, "crawfurd", "--format", "json",
    ]));
    assert_eq!(doc["command"]["command"], "hill-div", "{doc}");
    assert_eq!(doc["command"]["order"]["number"], 1, "{doc}");
    assert!(
        doc["command"]["commander"]
            .as_str()
            .unwrap()
            .contains("Hill"),
        "{doc}"
    );
}

#[test]
fn show_for_a_side_hides_an_enemy_units_state_and_whether_an_unseen_one_exists() {
    let dir = tempfile::tempdir().unwrap();
    let db = vimeiro(&dir);
    assert!(staffwork(&["turn", "--db", &db]).status.success());
    // Seen only as a stack from the British lines: no British Commander within 12 hexes (4.0,
    // decision 0161), so `show` refuses it as a unit not seen.
    let far = staffwork(&["show", "--db", &db, "solignac", "--side", "british"]);
    assert!(stderr(&far).contains("not-seen"), "{}", stderr(&far));
    // Ferguson rides forward: within 12 hexes and in his sight, the stack may be examined.
    let o = staffwork(&[
        "override",
        "--db",
        &db,
        "--reason",
        "Ferguson rides forward to look",
        "--place",
        "ferguson=34.07",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // The British see Solignac's column arrive at 40.06: where it is, not its losses (4.0).
    let doc = json(&staffwork(&[
        "show", "--db", &db, "solignac", "--side", "british", "--format", "json",
    ]));
    assert_eq!(doc["enemy"], true);
    assert_eq!(doc["position"], "40.06");
    assert_eq!(doc["formation"], "column");
    for hidden in ["losses", "morale", "strength", "command", "morale_rating"] {
        assert!(
            doc.get(hidden).is_none(),
            "{hidden} shown to the enemy: {doc}"
        );
    }
    // The French cannot see Fane's brigade on the hill: refused in the same words as a name
    // that is no unit at all.
    let real = staffwork(&["show", "--db", &db, "Fane", "--side", "french"]);
    let fake = staffwork(&["show", "--db", &db, "Fanx", "--side", "french"]);
    assert_eq!(real.status.code(), Some(1));
    assert_eq!(fake.status.code(), Some(1));
    assert!(stderr(&real).contains("not-seen"), "{}", stderr(&real));
    assert_eq!(
        stderr(&real).replace("Fane", "X"),
        stderr(&fake).replace("Fanx", "X")
    );
}

#[test]
fn report_tells_a_side_its_turn_with_the_enemy_marked_and_nothing_of_the_enemys_orders() {
    let dir = tempfile::tempdir().unwrap();
    let db = vimeiro(&dir);
    assert!(staffwork(&["turn", "--db", &db]).status.success());
    let o = staffwork(&["report", "--db", &db, "--side", "british", "--turn", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = stdout(&o);
    assert!(
        t.contains("Report for the british side, turn 1 (08:00)"),
        "{t}"
    );
    assert!(t.contains("pre-set order 5 for 6-fane"), "{t}");
    // Seen from the British lines, but no British Commander within 12 hexes: a stack, not a
    // name (4.0, decision 0161).
    assert!(t.contains("ENEMY stack at 40.06"), "{t}");
    assert!(!t.contains("Solignac"), "{t}");
    // French pre-set orders (8–13) and the French arrival roll are not the British's.
    assert!(!t.contains("order 9"), "{t}");
    assert!(!t.contains("loison-div"), "{t}");

    let doc = json(&staffwork(&[
        "report", "--db", &db, "--side", "french", "--turn", "1", "--format", "json",
    ]));
    assert_eq!(doc["viewer"], "french");
    assert!(doc["lines"]
        .as_array()
        .unwrap()
        .iter()
        .any(|l| l["section"] == "arrivals" && l["text"].as_str().unwrap().contains("solignac")));
    assert!(
        doc["enemy_seen"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["enemy"] == true)
    );
    assert!(!doc.to_string().contains("6-fane"), "{doc}");

    let h = stdout(&staffwork(&[
        "report", "--db", &db, "--side", "british", "--turn", "1", "--format", "html",
    ]));
    assert!(h.starts_with("<!DOCTYPE html>"), "{h}");
    assert!(h.contains("&quot;Defend in place.&quot;"), "escaped: {h}");
    assert!(
        h.contains("<span class=\"enemy\">ENEMY</span> stack at 40.06"),
        "{h}"
    );

    let late = staffwork(&["report", "--db", &db, "--side", "british", "--turn", "4"]);
    assert_eq!(late.status.code(), Some(2));
    assert!(stderr(&late).contains("turns 1 to 1"), "{}", stderr(&late));
}

#[test]
fn an_order_the_umpire_imposed_reads_as_the_umpires_order_to_the_side() {
    let dir = tempfile::tempdir().unwrap();
    let db = vimeiro(&dir);
    let o = staffwork(&[
        "override",
        "--db",
        &db,
        "--reason",
        "set up",
        "--impose-order",
        "Fane",
        "--text",
        "6th Brigade: defend the hill at 20.10.",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = stdout(&staffwork(&[
        "report", "--db", &db, "--side", "british", "--turn", "1",
    ]));
    // The British side's eighth order: its seven pre-set orders and this one (decision 0160).
    assert!(t.contains("umpire's order 8 for 6-fane"), "{t}");
    assert!(!t.contains("pre-set order 8"), "{t}");
    let s = stdout(&staffwork(&[
        "show", "--db", &db, "fane", "--side", "british",
    ]));
    assert!(
        s.contains("umpire's order 8: 6th Brigade is to defend"),
        "{s}"
    );
}

/// A Vimeiro game at the first British Command Phase (16 command points).
fn british_command_phase(dir: &tempfile::TempDir) -> String {
    let db = vimeiro(dir);
    for _ in 0..2 {
        assert!(staffwork(&["turn", "--db", &db]).status.success());
    }
    db
}

fn events(db: &str) -> usize {
    json(&staffwork(&["log", "--db", db, "--format", "json"]))["events"]
        .as_array()
        .unwrap()
        .len()
}

#[test]
fn check_against_the_game_previews_cost_courier_and_odds_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = british_command_phase(&dir);
    let before = events(&db);
    let args = [
        "check",
        "--db",
        &db,
        "--side",
        "british",
        "--method",
        "written",
        "--to",
        "hill-div",
        "--text",
        "Take up position at 13.09 and defend it.",
    ];
    let o = staffwork(&args);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let t = stdout(&o);
    // Numbered among the British orders only (decision 0160).
    assert!(
        t.contains(
            "would be order 8 to hill-div: cost 6 CP of 16 left, arrives turn 3 (09:00), in transit"
        ),
        "{t}"
    );
    assert!(
        t.contains("Acceptance Number = sender 4 + receiver 3"),
        "{t}"
    );
    assert!(t.contains("Nothing was written."), "{t}");
    assert!(!t.contains("no-recipient"), "--to is the recipient: {t}");
    assert_eq!(events(&db), before, "check wrote nothing");

    let mut j = args.to_vec();
    j.extend(["--format", "json"]);
    let doc = json(&staffwork(&j));
    assert_eq!(doc["legal"], true);
    assert_eq!(doc["cost"], 6);
    assert_eq!(doc["arrival_turn"], 3);
    assert_eq!(doc["odds"]["column"], 7);

    // The same order sent: the preview's number, cost and arrival are what it gets.
    let sent = staffwork(&[
        "order",
        "--db",
        &db,
        "--side",
        "british",
        "--method",
        "written",
        "--to",
        "hill-div",
        "Take up position at 13.09 and defend it.",
    ]);
    assert!(sent.status.success(), "{}", stderr(&sent));
    assert!(
        stdout(&sent).contains("order 14 to hill-div: Take up position at 13.09 and defend it. General order. — General, cost 6 CP, arrives turn 3"),
        "{}",
        stdout(&sent)
    );
}

#[test]
fn check_against_the_game_says_when_order_would_refuse_and_why() {
    let dir = tempfile::tempdir().unwrap();
    let db = british_command_phase(&dir);
    // 10 of the 16 points go on an Engage order; a second costs more than is left (6.4.1).
    let first = staffwork(&[
        "order",
        "--db",
        &db,
        "--side",
        "british",
        "--method",
        "written",
        "Portuguese Cavalry: charge the French at 23.11.",
    ]);
    assert!(first.status.success(), "{}", stderr(&first));
    let before = events(&db);
    let o = staffwork(&[
        "check",
        "--db",
        &db,
        "--side",
        "british",
        "--method",
        "written",
        "--to",
        "hill-div",
        "--text",
        "attack the French at 23.11.",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let t = stdout(&o);
    assert!(
        t.contains("would be refused [not-enough-command-points] (rule 6.4.1)"),
        "{t}"
    );
    assert_eq!(events(&db), before);
    // The French may not preview a British order (6.4).
    let f = staffwork(&[
        "check",
        "--db",
        &db,
        "--side",
        "french",
        "--method",
        "written",
        "--text",
        "Fane: defend 20.10.",
    ]);
    assert_eq!(f.status.code(), Some(1));
}

#[test]
fn an_accepted_order_keeps_its_warnings_and_a_refused_one_counts_its_errors() {
    let dir = tempfile::tempdir().unwrap();
    let db = british_command_phase(&dir);
    let ok = staffwork(&[
        "order",
        "--db",
        &db,
        "--side",
        "british",
        "--method",
        "written",
        "Portuguese Cavalry: charge the French at 23.11.",
    ]);
    assert!(ok.status.success(), "{}", stderr(&ok));
    let t = stdout(&ok);
    assert!(t.contains("warning[no-route]"), "{t}");
    assert!(t.contains("1 order: 0 error(s), 1 warning(s)"), "{t}");

    let bad = staffwork(&[
        "order",
        "--db",
        &db,
        "--side",
        "british",
        "--method",
        "written",
        "charge the zzz at 99.99",
    ]);
    assert_eq!(bad.status.code(), Some(1));
    let e = stderr(&bad);
    assert!(e.contains("1 order(s): 2 error(s), 2 warning(s)"), "{e}");
}

#[test]
fn undo_takes_back_a_mistyped_move_on_the_record_and_replays_and_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let db = vimeiro(&dir);
    assert!(staffwork(&["turn", "--db", &db]).status.success());
    let m = staffwork(&["move", "--db", &db, "--piece", "Solignac", "--to", "33.08"]);
    assert!(m.status.success(), "{}", stderr(&m));
    let u = staffwork(&["undo", "--db", &db, "--reason", "meant 34.08"]);
    assert!(u.status.success(), "{}", stderr(&u));
    assert!(
        stdout(&u).contains("the umpire took back the last 1 command(s) (meant 34.08)"),
        "{}",
        stdout(&u)
    );
    // Back where it stood, with its Movement Points unspent (12.1.4): the right move goes in.
    let s = json(&staffwork(&[
        "show", "--db", &db, "solignac", "--format", "json",
    ]));
    assert_eq!(s["position"], "40.06", "{s}");
    let again = staffwork(&["move", "--db", &db, "--piece", "solignac", "--to", "34.08"]);
    assert!(again.status.success(), "{}", stderr(&again));
    // Nothing was deleted: the move and its retraction are in the record, which verifies.
    let log = stdout(&staffwork(&["log", "--db", &db]));
    assert!(log.contains("solignac moves 40.06 → 33.08"), "{log}");
    assert!(log.contains("took back"), "{log}");
    let v = staffwork(&["replay", "--db", &db, "--verify"]);
    assert!(v.status.success(), "{}{}", stdout(&v), stderr(&v));
    assert!(stdout(&v).contains("verify: ok"), "{}", stdout(&v));
    // A side is told that something was taken back, not the state it was taken back to.
    let side = stdout(&staffwork(&[
        "log", "--db", &db, "--side", "british", "--format", "json",
    ]));
    assert!(side.contains("retracted"), "{side}");
    assert!(!side.contains("state-restored"), "{side}");
}

#[test]
fn undo_is_refused_once_the_sequence_of_play_moved_on_or_for_an_undo() {
    let dir = tempfile::tempdir().unwrap();
    let db = vimeiro(&dir);
    assert!(staffwork(&["turn", "--db", &db]).status.success());
    let before = events(&db);
    let t = staffwork(&["undo", "--db", &db, "--reason", "x"]);
    assert_eq!(t.status.code(), Some(1));
    assert!(stderr(&t).contains("not-retractable"), "{}", stderr(&t));
    assert!(
        stderr(&t).contains("ran the sequence of play"),
        "{}",
        stderr(&t)
    );
    assert_eq!(events(&db), before, "nothing written");

    assert!(
        staffwork(&["move", "--db", &db, "--piece", "solignac", "--to", "33.08"])
            .status
            .success()
    );
    assert!(
        staffwork(&["undo", "--db", &db, "--reason", "x"])
            .status
            .success()
    );
    let twice = staffwork(&["undo", "--db", &db, "--reason", "x"]);
    assert_eq!(twice.status.code(), Some(1));
    assert!(
        stderr(&twice).contains("is itself an undo"),
        "{}",
        stderr(&twice)
    );
}

#[test]
fn move_takes_several_pieces_checked_together_before_any_moves() {
    let dir = tempfile::tempdir().unwrap();
    let db = vimeiro(&dir);
    assert!(staffwork(&["turn", "--db", &db]).status.success());
    let before = events(&db);
    // One bad destination refuses the whole line; nothing moved.
    let bad = staffwork(&[
        "move",
        "--db",
        &db,
        "--piece",
        "Solignac",
        "--piece",
        "charlot=39.99",
        "--to",
        "33.08",
    ]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(stderr(&bad).contains("off-map"), "{}", stderr(&bad));
    assert_eq!(events(&db), before, "nothing written");

    let o = staffwork(&[
        "move",
        "--db",
        &db,
        "--piece",
        "Solignac",
        "--piece",
        "charlot=34.08",
        "--piece",
        "Loison",
        "--to",
        "33.08",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = stdout(&o);
    for want in [
        "solignac moves 40.06 → 33.08",
        "charlot moves 40.06 → 34.08",
        "loison moves 40.06 → 33.08",
    ] {
        assert!(t.contains(want), "missing {want:?}: {t}");
    }
    let v = staffwork(&["replay", "--db", &db, "--verify"]);
    assert!(stdout(&v).contains("verify: ok"), "{}", stdout(&v));
    // --to is needed unless every piece has its own hex.
    let no_to = staffwork(&["move", "--db", &db, "--piece", "26-chasseurs"]);
    assert_eq!(no_to.status.code(), Some(2));
    assert!(stderr(&no_to).contains("where to?"), "{}", stderr(&no_to));
}

#[test]
fn a_move_in_the_enemys_turn_points_to_override_place() {
    let dir = tempfile::tempdir().unwrap();
    let db = vimeiro(&dir);
    assert!(staffwork(&["turn", "--db", &db]).status.success());
    let o = staffwork(&["move", "--db", &db, "--piece", "Fane", "--to", "20.11"]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains("not-phasing"), "{e}");
    assert!(
        e.contains("staffwork override --place 6-fane=HEX --reason WHY"),
        "{e}"
    );
}

#[test]
fn combat_text_shows_the_checks_modifiers_and_table_lines() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("d.db").to_string_lossy().into_owned();
    assert!(
        staffwork(&["demo", "--quiet", "--db", &db])
            .status
            .success()
    );
    let steps: [&[&str]; 5] = [
        &[
            "override",
            "--db",
            &db,
            "--reason",
            "set-up",
            "--place",
            "hall-2=5.07",
        ],
        &["turn", "--db", &db, "--until-turn", "6"],
        &["turn", "--db", &db],
        &["turn", "--db", &db],
        &["turn", "--db", &db],
    ];
    for s in steps {
        let o = staffwork(s);
        assert!(o.status.success(), "{s:?}: {}", stderr(&o));
    }
    let o = staffwork(&[
        "combat",
        "close-combat",
        "--db",
        &db,
        "--attacker",
        "hall-2",
        "--defender",
        "1-2-i",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = stdout(&o);
    // 15.2.1: each Check to Stand with its named modifiers; 15.3: each side's loss roll, the
    // table cell read and the loss after adjustments.
    assert!(t.contains("attacker Check to Stand: rolled"), "{t}");
    assert!(t.contains("attacking_in_line -1"), "{t}");
    assert!(t.contains("attacker: loss roll"), "{t}");
    assert!(t.contains(", table "), "{t}");
    assert!(t.contains("(15.3.6)"), "{t}");
}

#[test]
fn override_is_reported_in_words() {
    let dir = tempfile::tempdir().unwrap();
    let db = vimeiro(&dir);
    let o = staffwork(&[
        "override",
        "--db",
        &db,
        "--reason",
        "retreat",
        "--place",
        "Fane=20.12",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = stdout(&o);
    assert!(
        t.contains("UMPIRE OVERRIDE (retreat): 6-fane placed at 20.12"),
        "{t}"
    );
    assert!(!t.contains("{\""), "no raw JSON: {t}");
}

#[test]
fn v2_4_an_order_to_a_brigade_defending_in_place_is_refused_at_sending() {
    let dir = tempfile::tempdir().unwrap();
    let db = british_command_phase(&dir);
    let before = events(&db);
    let o = staffwork(&[
        "order",
        "--db",
        &db,
        "--side",
        "british",
        "--method",
        "written",
        "Fane: advance to 22.10.",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains("refused [defends-in-place] (rule V2.4)"), "{e}");
    assert!(e.contains("moves only with wellesley"), "{e}");
    assert_eq!(events(&db), before, "nothing written, no points spent");
    // The V2.3 order to a commander's brigade that forms his division is still taken.
    let f = staffwork(&[
        "order",
        "--db",
        &db,
        "--side",
        "british",
        "--method",
        "written",
        "2-Ferguson with 4-Bowes and 6-Fane attached: defend Vimeiro hill.",
    ]);
    assert!(f.status.success(), "{}", stderr(&f));
}

/// Issue 17's evidence: a scripted Vimeiro turn played from the umpire's workbench with names
/// instead of ids — several pieces in one move, an order previewed then sent with --to, a
/// mistake taken back, a unit shown, a side's report — and the record still verifies.
#[test]
fn a_vimeiro_turn_from_the_workbench_with_names_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let db = vimeiro(&dir);
    let run = |args: &[&str]| {
        let o = staffwork(args);
        assert!(o.status.success(), "{args:?}: {}{}", stdout(&o), stderr(&o));
        stdout(&o)
    };
    run(&["turn", "--db", &db]);
    let moved = run(&[
        "move",
        "--db",
        &db,
        "--piece",
        "Solignac=33.08",
        "--piece",
        "Charlot's brigade=34.08",
        "--piece",
        "Loison=33.08",
    ]);
    assert!(moved.contains("charlot moves 40.06 → 34.08"), "{moved}");
    run(&["turn", "--db", &db]);
    let to = ["--to", "Hill's division"];
    let text = "Take up position at 13.09 and defend it.";
    let preview = run(&[
        "check", "--db", &db, "--side", "british", "--method", "written", to[0], to[1], "--text",
        text,
    ]);
    assert!(
        preview.contains("would be order 8 to hill-div"),
        "{preview}"
    );
    run(&[
        "order", "--db", &db, "--side", "british", "--method", "written", to[0], to[1], text,
    ]);
    // Sent to the wrong division: taken back, and the umpire is told what was taken back.
    let undone = run(&["undo", "--db", &db, "--reason", "meant Ferguson"]);
    assert!(
        undone.contains("state restored to before: order 14 to hill-div"),
        "{undone}"
    );
    // Crawfurd's brigade acts on Hill's division's order: the pre-set one again.
    let shown = run(&["show", "--db", &db, "Crawfurd", "--side", "british"]);
    assert!(shown.contains("order      order 1:"), "{shown}");
    assert!(!shown.contains("order 14"), "{shown}");
    run(&["turn", "--db", &db]);
    let report = run(&["report", "--db", &db, "--side", "british", "--turn", "1"]);
    assert!(
        // How many is the umpire's: some might be the enemy's (decision 0160).
        report.contains("took back the last command(s) (meant Ferguson)"),
        "{report}"
    );
    assert!(
        // Beyond 12 hexes of every British Commander: a stack (4.0, decision 0161).
        report.contains("ENEMY stack at 33.08"),
        "{report}"
    );
    let v = run(&["replay", "--db", &db, "--verify"]);
    assert!(v.contains("verify: ok"), "{v}");
}
