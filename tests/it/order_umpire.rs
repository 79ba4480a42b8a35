//! The reader items of issue 17 and the name rules of issue 11 §3: a side's own army, the
//! members of a temporary division, stage postures in the text read-back, the cheaper wording
//! of an order that is Complex only by its wording, and the edges of names.

use std::io::Write;
use std::process::{Command, Stdio};

use staffwork::order::{self, CheckedOrder, Severity};
use staffwork::rules::OrderType;

fn scenario(name: &str) -> staffwork::scenario::Scenario {
    staffwork::scenario::bundled(name).unwrap()
}

fn codes(o: &CheckedOrder) -> Vec<&str> {
    o.diagnostics.iter().map(|d| d.code).collect()
}

fn recipient_id(o: &CheckedOrder) -> Option<&str> {
    o.recipient
        .as_ref()
        .and_then(|r| r.resolved.as_ref())
        .map(|x| x.id.as_str())
}

/// `staffwork check` in text mode over standard input.
fn check_text(args: &[&str], input: &str) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_staffwork"))
        .arg("check")
        .args(args)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap()
}

#[test]
fn the_army_is_the_writers_own_army() {
    let vim = scenario("vimeiro-1808");
    // Both armies are called "Army HQ" and "the army": the side decides (issue 17).
    for (side, army) in [("french", "french-army"), ("british", "british-army")] {
        let o = order::check_one(
            "Army HQ is to move to 38.12 by noon.",
            Some(&vim),
            Some(side),
        );
        assert_eq!(recipient_id(&o), Some(army), "{side}: {:?}", codes(&o));
        assert!(!codes(&o).contains(&"recipient-not-own-side"), "{side}");
        assert!(
            o.readback.starts_with(if side == "french" {
                "French"
            } else {
                "British"
            }),
            "{}",
            o.readback
        );
        let o = order::check_one("The army will stand fast.", Some(&vim), Some(side));
        assert_eq!(recipient_id(&o), Some(army), "{side}");
    }
    // Without a side, the sender is the recipient's side: "move to Army HQ" is his own HQ.
    let o = order::check_one("Loison: march to Army HQ.", Some(&vim), None);
    let obj = &o.stages[0].objectives[0];
    assert_eq!(
        obj.resolved.as_ref().map(|x| x.id.as_str()),
        Some("french-army")
    );
}

const V23: &str = "2nd Brigade: form a temporary division with 3-Nightingall, 4-Bowes and the battery at 15.16, and defend Vimeiro.";

#[test]
fn every_member_of_a_temporary_division_is_resolved_or_flagged() {
    let vim = scenario("vimeiro-1808");
    let o = order::check_one(V23, Some(&vim), Some("british"));
    let ids: Vec<&str> = o
        .attached
        .iter()
        .filter_map(|a| a.resolved.as_ref().map(|x| x.id.as_str()))
        .collect();
    assert_eq!(
        ids,
        ["3-nightingall", "4-bowes", "army-lf-2"],
        "{:?}",
        codes(&o)
    );
    assert!(!o.has_errors(), "{:?}", codes(&o));
    // The engine forms the division with all of them (V2.3).
    let typed = staffwork::game::typed_order(&o);
    assert_eq!(typed.attaches, ["3-nightingall", "4-bowes", "army-lf-2"]);
    // The members are read back and the read-back reads back to the same order.
    assert!(
        o.readback
            .contains("with 3-Nightingall, 4-Bowes and the battery at 15.16"),
        "{}",
        o.readback
    );
    let again = order::check_one(&o.readback, Some(&vim), Some("british"));
    assert_eq!(again.key, o.key);
    // A member that names nothing is an error, never silently dropped.
    let bad = V23.replace("4-Bowes", "Smithers");
    let o = order::check_one(&bad, Some(&vim), Some("british"));
    let d = o
        .diagnostics
        .iter()
        .find(|d| d.code == "unknown-member")
        .unwrap_or_else(|| panic!("{:?}", codes(&o)));
    assert_eq!(d.severity, Severity::Error);
    assert_eq!(&bad[d.span.0..d.span.1], "Smithers");
    // "the battery at" a hex where no battery stands is flagged too.
    let o = order::check_one(&V23.replace("15.16", "15.10"), Some(&vim), Some("british"));
    assert!(codes(&o).contains(&"unknown-member"), "{:?}", codes(&o));
}

#[test]
fn the_text_read_back_shows_each_stage_posture_and_the_members() {
    let out = check_text(
        &["--scenario", "vimeiro-1808", "--side", "british"],
        &format!("{V23}\n\n20 LtD: charge the French at 23.11, then rally behind 15.10.\n"),
    );
    assert!(
        out.contains("stage 1 (general): form a temporary division with"),
        "{out}"
    );
    assert!(
        out.contains("temporary division: 2nd Brigade (Ferguson), 3rd Brigade (Nightingall), 4th Brigade (Bowes), Army (Lf) battery at 15.16"),
        "{out}"
    );
    assert!(out.contains("stage 1 (engage): charge"), "{out}");
    assert!(out.contains("stage 2 (general): rally"), "{out}");
}

#[test]
fn taking_ones_own_troops_forward_moves_them() {
    // Issue 17: "take your grenadiers forward" read as an attack made the order Complex.
    let vim = scenario("vimeiro-1808");
    let o = order::check_one(
        "Kellerman: take your grenadiers forward to 34.10 and remain there in reserve.",
        Some(&vim),
        Some("french"),
    );
    assert_eq!(o.order_type, Some(OrderType::General), "{}", o.readback);
    // "take Hall" still captures.
    let o = order::check_one(
        "2nd Div: take Hall.",
        Some(&scenario("tutorial-hall")),
        Some("imperial"),
    );
    assert_eq!(o.order_type, Some(OrderType::Engage));
}

#[test]
fn a_complex_order_only_by_its_wording_gets_the_cheaper_wording() {
    let hall = scenario("tutorial-hall");
    let note = |text: &str| {
        let o = order::check_one(text, Some(&hall), Some("imperial"));
        assert_eq!(o.order_type, Some(OrderType::Complex), "{text}");
        o.diagnostics
            .iter()
            .find(|d| d.code == "cheaper-wording")
            .map(|d| (d.severity, d.message.clone()))
    };
    let (sev, msg) = note("3rd Div: march to Kümla, then hold it.").expect("march, then hold");
    assert_eq!(sev, Severity::Note);
    assert!(msg.contains("General order, 1 CP instead of 5"), "{msg}");
    let (_, msg) = note("2nd Div: march upon Hall. Then carry it.").expect("approach, then attack");
    assert!(msg.contains("Engage order"), "{msg}");
    // Really Complex: two postures on one objective (rulebook example 10), a condition, a
    // start time.
    assert!(
        note("2nd Div: capture Hall and then deploy to defend against attacks from the east.")
            .is_none()
    );
    assert!(
        note("3rd Div: march to Kümla the instant 4th Division arrives at your location.")
            .is_none()
    );
    assert!(note("3rd Div: at 10:00 march to Kümla and hold it.").is_none());
}

#[test]
fn names_are_cut_to_their_name_words_and_scenario_names_are_whole() {
    let hall = scenario("tutorial-hall");
    let spans = |text: &str| -> Vec<String> {
        let o = order::check_one(text, Some(&hall), Some("imperial"));
        o.places
            .iter()
            .map(|p| text[p.span.0..p.span.1].to_string())
            .collect()
    };
    assert_eq!(
        spans("2nd Div: if Hall falls, counterattack and retake it."),
        ["Hall"]
    );
    assert_eq!(spans("4th Div: hold the heights above Kümla."), ["Kümla"]);
    assert_eq!(
        spans("4th Div: hold the bridge at Kirseberg, then fall back to Kümla."),
        ["bridge at Kirseberg", "Kümla"]
    );
    assert_eq!(
        spans("4th Div: watch the road to Säter from Kirseberg."),
        ["road to Säter", "Kirseberg"]
    );
    assert_eq!(
        spans(
            "The reserve battery is not to limber up before the 3rd Division has left Hinzeberg."
        ),
        ["Hinzeberg"]
    );
    // Without a scenario the general rules alone.
    let o = order::check_one(
        "Sherbrooke: hold the line of the Portina from the Pajar to the foot of the Medellin.",
        None,
        None,
    );
    let got: Vec<&str> = o.places.iter().map(|p| p.text.as_str()).collect();
    assert!(
        got.contains(&"Portina") && got.contains(&"Medellin"),
        "{got:?}"
    );
    let o = order::check_one(
        "General Hill: cross the river at the ford of Almaraz.",
        None,
        None,
    );
    assert!(
        o.places.iter().any(|p| p.text == "ford of Almaraz"),
        "{:?}",
        o.places
    );
    let o = order::check_one(
        "I wish the 6th division to cross the Tagus to-morrow.",
        None,
        None,
    );
    let got: Vec<&str> = o.places.iter().map(|p| p.text.as_str()).collect();
    assert_eq!(got, ["Tagus"]);
}

#[test]
fn a_colon_lead_and_a_surname_name_the_recipient_and_partial_names_are_flagged() {
    let vim = scenario("vimeiro-1808");
    // lead.colon: a keyword ("Guard") or a "/" before the colon does not hide the recipient.
    let o = order::check_one(
        "3/66th: guard the baggage at 38.12.",
        Some(&vim),
        Some("french"),
    );
    assert_eq!(recipient_id(&o), Some("3-66-line"), "{:?}", codes(&o));
    let o = order::check_one("Junot's Guard: attack Vimeiro.", Some(&vim), Some("french"));
    assert!(codes(&o).contains(&"unknown-recipient"), "{:?}", codes(&o));
    // A surname names the command whose own name holds it ("6th Brigade (Fane)", not
    // "Fane's battery"); a word that names no person ("Lisbon") is no surname.
    let o = order::check_one("Fane: hold Vimeiro Hill.", Some(&vim), Some("british"));
    assert_eq!(recipient_id(&o), Some("6-fane"), "{:?}", codes(&o));
    let o = order::check_one("Kellerman: attack Lisbon.", Some(&vim), Some("french"));
    assert!(codes(&o).contains(&"unknown-place"), "{:?}", codes(&o));
    // Only part of a longer proper name matches a place: taken, with a warning.
    let hall = scenario("tutorial-hall");
    let o = order::check_one(
        "4th Div: defend Kumla-on-the-Wold.",
        Some(&hall),
        Some("imperial"),
    );
    assert!(codes(&o).contains(&"near-miss"), "{:?}", codes(&o));
    let o = order::check_one(
        "2nd Div: attack the south slope of Hall.",
        Some(&hall),
        Some("imperial"),
    );
    assert!(!codes(&o).contains(&"near-miss"), "{:?}", codes(&o));
}

#[test]
fn the_writers_own_intentions_and_possessed_nouns_are_no_actions() {
    let vim = scenario("vimeiro-1808");
    // lead.sender: "I shall attack at noon" is the writer's intention, not the recipient's.
    let o = order::check_one(
        "The English are in line on Vimeiro Hill with guns on the western ridge. I shall attack at noon with the whole army.",
        Some(&vim),
        Some("french"),
    );
    assert!(o.stages.is_empty(), "{}", o.readback);
    assert!(!o.has_errors(), "{:?}", codes(&o));
    assert!(o.places.iter().any(|p| p.text == "Vimeiro Hill"));
    // verb.possessed: "Loison's attack has failed" reports; the order is DeLaborde's.
    let o = order::check_one(
        "Loison's attack has failed. DeLaborde: cover his retreat on the Heights road.",
        Some(&vim),
        Some("french"),
    );
    assert_eq!(recipient_id(&o), Some("delaborde-div"), "{:?}", codes(&o));
    assert_eq!(o.order_type, Some(OrderType::General), "{}", o.readback);
    // A terrain noun after a possessive is part of the name.
    let hall = scenario("tutorial-hall");
    let o = order::check_one(
        "4th Div: cross the Viskan at Frobisher's ford.",
        Some(&hall),
        Some("imperial"),
    );
    assert!(
        o.places.iter().any(|p| p.text == "Frobisher's ford"),
        "{:?}",
        o.places
    );
}

#[test]
fn read_backs_keep_the_recipient_and_the_prohibition_after_a_condition() {
    let vim = scenario("vimeiro-1808");
    let round_trip = |text: &str, side: &str| {
        let o = order::check_one(text, Some(&vim), Some(side));
        let again = order::check_one(&o.readback, Some(&vim), Some(side));
        assert_eq!(again.key, o.key, "{text}\n→ {}", o.readback);
        o
    };
    // The recipient of "To General Thomières:" is kept when a subject restates him.
    let o = round_trip(
        "To General Thomières: the brigade will hold Ventosa village and not allow the enemy to pass it.",
        "french",
    );
    assert!(o.readback.starts_with("Thomières"), "{}", o.readback);
    // "…, and are not to pursue" after a condition is a prohibition, not part of the condition.
    let o = round_trip(
        "The 20th Light Dragoons: should the French infantry break, charge them, but on no account pursue beyond the Maceira.",
        "british",
    );
    assert_eq!(o.prohibitions.len(), 1, "{}", o.readback);
    // "and no further" is how far, not a prohibition of what follows.
    let tal = scenario("talavera-1809");
    let o = order::check_one(
        "The Guards: should the French break, follow them up to the brook and no further; otherwise hold your ground.",
        Some(&tal),
        Some("allied"),
    );
    assert!(o.prohibitions.is_empty(), "{:?}", o.prohibitions);
    assert_eq!(o.stages.len(), 2, "{}", o.readback);
}

#[test]
fn an_addressed_general_and_a_command_named_by_its_words_are_recipients() {
    let vim = scenario("vimeiro-1808");
    // lead.vocative: a titled name addressed before a comma.
    let o = order::check_one(
        "General Loison, I have the honour to inform you that the enemy is in force on Vimeiro Hill. You will attack him there at 09:30 with your whole division.",
        Some(&vim),
        Some("french"),
    );
    assert_eq!(recipient_id(&o), Some("loison-div"), "{:?}", codes(&o));
    assert!(!o.readback.contains("You is"), "{}", o.readback);
    let o = order::check_one(
        "Monsieur le Général Kellerman, you will hold the Grenadiers in reserve behind the French heights until I send for them.",
        Some(&vim),
        Some("french"),
    );
    assert_eq!(recipient_id(&o), Some("kellerman-div"), "{:?}", codes(&o));
    // name.words: every word is a word of one command's names ("I Corps reserve battery").
    let hall = scenario("tutorial-hall");
    for text in [
        "I Corps Arty: unlimber on Hinzeberg and cover the Mill bridge.",
        "The reserve battery will move to Hinzeberg with a view to bombarding Hall.",
    ] {
        let o = order::check_one(text, Some(&hall), Some("imperial"));
        assert_eq!(recipient_id(&o), Some("art-i"), "{text}: {:?}", codes(&o));
        let again = order::check_one(&o.readback, Some(&hall), Some("imperial"));
        assert_eq!(again.key, o.key, "{}", o.readback);
    }
}

#[test]
fn a_passive_whose_subject_is_a_scenario_name_with_a_preposition() {
    let hall = scenario("tutorial-hall");
    let o = order::check_one(
        "The bridge at Kirseberg is to be held by the 3rd Division at all costs.",
        Some(&hall),
        Some("imperial"),
    );
    assert_eq!(recipient_id(&o), Some("div-3"), "{:?}", codes(&o));
    assert_eq!(o.order_type, Some(OrderType::General));
    let obj = &o.stages[0].objectives[0];
    assert_eq!(
        obj.resolved.as_ref().map(|x| x.id.as_str()),
        Some("kirseberg-bridge")
    );
    let again = order::check_one(&o.readback, Some(&hall), Some("imperial"));
    assert_eq!(again.key, o.key, "{}", o.readback);
}

#[test]
fn elided_recipients_and_gapped_passives_name_every_command() {
    let tal = scenario("talavera-1809");
    // lead.elided: "Sebastiani's and Leval's divisions:" — both divisions.
    let o = order::check_one(
        "Sebastiani's and Leval's divisions: advance together against the Orchards.",
        Some(&tal),
        Some("french"),
    );
    let mut ids: Vec<&str> = o
        .recipient
        .iter()
        .chain(&o.also)
        .filter_map(|r| r.resolved.as_ref().map(|x| x.id.as_str()))
        .collect();
    ids.sort_unstable();
    assert_eq!(ids.len(), 2, "{ids:?} {:?}", codes(&o));
    let hall = scenario("tutorial-hall");
    let o = order::check_one(
        "2nd and 3rd Divs: advance together on Hall.",
        Some(&hall),
        Some("imperial"),
    );
    assert_eq!(recipient_id(&o), Some("div-2"), "{:?}", codes(&o));
    assert!(!o.has_errors(), "{:?}", codes(&o));
    // A gapped passive: the second place goes to the second agent, in parallel (General).
    let vim = scenario("vimeiro-1808");
    let o = order::check_one(
        "Ventosa will be occupied by Brennier's brigade and the Ventosa Ridge by Thomières' brigade.",
        Some(&vim),
        Some("french"),
    );
    assert_eq!(recipient_id(&o), Some("brennier"));
    let second = o.stages[1]
        .subject
        .as_ref()
        .and_then(|s| s.resolved.as_ref());
    assert_eq!(second.map(|x| x.id.as_str()), Some("thomieres"));
    assert_eq!(o.order_type, Some(OrderType::General), "{}", o.readback);
    let again = order::check_one(&o.readback, Some(&vim), Some("french"));
    assert_eq!(again.key, o.key, "{}", o.readback);
}

#[test]
fn people_and_demonstratives_are_no_places() {
    // A title makes a person: "Sir Robert", "the Emperor", "Lord Hill" are no places.
    let o = order::check_one(
        "General Hill: hold Almaraz until the Emperor arrives, and tell Sir Robert to join you.",
        None,
        None,
    );
    let got: Vec<&str> = o.places.iter().map(|p| p.text.as_str()).collect();
    assert_eq!(got, ["Almaraz"], "{got:?}");
    // pronoun.demonstrative: "that village" points back to Kümla.
    let hall = scenario("tutorial-hall");
    let o = order::check_one(
        "4th Div: march to Kümla and defend that village.",
        Some(&hall),
        Some("imperial"),
    );
    assert_eq!(o.places.len(), 1, "{:?}", o.places);
    let last = o.stages[0].objectives.last().unwrap();
    assert_eq!(last.resolved.as_ref().map(|x| x.id.as_str()), Some("kumla"));
    let again = order::check_one(&o.readback, Some(&hall), Some("imperial"));
    assert_eq!(again.key, o.key, "{}", o.readback);
}

#[test]
fn the_otherwise_branch_reads_back_as_the_other_branch() {
    let tal = scenario("talavera-1809");
    let text = "Lapisse: if Ruffin gains the summit, attack the south slope; otherwise hold your ground east of the Portina.";
    let o = order::check_one(text, Some(&tal), Some("french"));
    assert!(
        o.readback.contains("; otherwise hold your ground"),
        "{}",
        o.readback
    );
    let again = order::check_one(&o.readback, Some(&tal), Some("french"));
    assert_eq!(again.key, o.key, "{}", o.readback);
    assert_eq!(again.readback, o.readback);
}

#[test]
fn a_verbless_list_of_places_reads_back_as_a_list() {
    let hall = scenario("tutorial-hall");
    let o = order::check_one(
        "2nd Div: Hinzeberg road, Mill bridge, Hall. Attack.",
        Some(&hall),
        Some("imperial"),
    );
    assert!(
        o.readback.contains("Hinzeberg road, Mill bridge and Hall"),
        "{}",
        o.readback
    );
    let again = order::check_one(&o.readback, Some(&hall), Some("imperial"));
    assert_eq!(again.key, o.key, "{}", o.readback);
}
