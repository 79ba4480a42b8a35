//! The order corpus of the NBS digest §7 and beyond: every order parses, every example order of
//! the 6.6.1 sidebar gets the type the rulebook gives it (6.3), resolves against the tutorial
//! scenario, and every read-back reads back to the same order.

use staffwork::order::{self, CheckedOrder, Form, Severity};
use staffwork::rules::{OrderType, Posture};
use staffwork::scenario::{self, Scenario};

fn tutorial() -> Scenario {
    scenario::bundled("tutorial-hall").expect("the bundled tutorial scenario loads")
}

fn corpus(name: &str) -> String {
    let path = format!("{}/tests/data/orders/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

const CORPUS: &[&str] = &[
    "nbs-examples.txt",
    "real-orders.txt",
    "presets.txt",
    "other-rulebooks.txt",
    "letters.txt",
];

/// NBS 6.6.1 sidebar "Order Writing Example", with the types of the digest's §7.1 table.
const EXAMPLES: &[(&str, OrderType)] = &[
    ("3rd Div: march to Kümla and defend.", OrderType::General),
    (
        "3rd Div: march over Hinzeberg to Kümla and defend.",
        OrderType::General,
    ),
    (
        "3rd Div: march to Kümla and defend it from attacks from the north.",
        OrderType::General,
    ),
    (
        "3rd Div: march to Kümla the instant 4th Division arrives at your location.",
        OrderType::Complex,
    ),
    (
        "3rd Div: march to Kümla and defend. If the enemy holds Kümla stop in Kirseberg and defend the bridge there.",
        OrderType::Complex,
    ),
    ("2nd Div: capture Hall.", OrderType::Engage),
    (
        "2nd Div: attack and capture Hall from the direction of Säter.",
        OrderType::Engage,
    ),
    (
        "2nd Div: attack up the Säter road and capture Hall.",
        OrderType::Engage,
    ),
    (
        "2nd Div: march over Hinzeberg to Viskan Stream. Cross the stream and capture Hall.",
        OrderType::Complex,
    ),
    (
        "2nd Div: capture Hall and then deploy to defend against attacks from the east.",
        OrderType::Complex,
    ),
    (
        "2nd Div: cross Viskan and capture Hall. Continue your attack up the Hinseberg road and if possible capture Säter. ",
        OrderType::Complex,
    ),
];

fn codes(o: &CheckedOrder) -> Vec<&'static str> {
    o.diagnostics.iter().map(|d| d.code).collect()
}

#[test]
fn every_example_order_gets_the_rulebooks_type() {
    for (text, want) in EXAMPLES {
        for scen in [None, Some(&tutorial())] {
            let o = order::check_one(text, scen, Some("imperial"));
            assert_eq!(o.order_type, Some(*want), "{text}\n{:#?}", o.stages);
        }
    }
}

#[test]
fn the_example_file_holds_the_eleven_examples_in_order() {
    let r = order::check(&corpus("nbs-examples.txt"), None, None);
    assert_eq!(r.orders.len(), EXAMPLES.len());
    for (o, (text, want)) in r.orders.iter().zip(EXAMPLES) {
        assert_eq!(o.text.trim(), text.trim());
        assert_eq!(o.order_type, Some(*want), "{text}");
    }
}

#[test]
fn march_and_defend_is_one_general_stage_but_capture_then_deploy_is_two() {
    let o = order::check_one("3rd Div: march to Kümla and defend.", None, None);
    assert_eq!(o.stages.len(), 1);
    assert_eq!(o.stages[0].steps.len(), 2);
    let o = order::check_one(
        "2nd Div: capture Hall and then deploy to defend against attacks from the east.",
        None,
        None,
    );
    assert_eq!(o.stages.len(), 2);
    assert_eq!(o.stages[0].posture, Posture::Engage);
    assert_eq!(o.stages[1].posture, Posture::General);
    // 6.4.2: any Engage part makes the cost Engage.
    assert_eq!(o.cost_type, Some(OrderType::Engage));
}

#[test]
fn attack_stoppage_begins_only_with_the_attack_stage() {
    // 6.3.3 and the sidebar: in example 9 the command first marches under General posture.
    let o = order::check_one(EXAMPLES[8].0, None, None);
    assert_eq!(o.first_posture(), Some(Posture::General));
    assert_eq!(o.stages.last().map(|s| s.posture), Some(Posture::Engage));
    let cost = order::check_one(EXAMPLES[0].0, None, None).cost_type;
    assert_eq!(cost, Some(OrderType::General));
}

#[test]
fn every_order_of_the_corpus_parses() {
    for file in CORPUS {
        let r = order::check(&corpus(file), None, None);
        assert!(!r.orders.is_empty(), "{file}");
        for o in &r.orders {
            assert!(o.order_type.is_some(), "{file}: {}", o.text);
            assert!(!codes(o).contains(&"unreadable"), "{file}: {}", o.text);
            assert!(!o.readback.is_empty(), "{file}: {}", o.text);
        }
    }
}

#[test]
fn corpus_counts_match_the_digest() {
    // §7.1: eleven examples; §7.2: eight Real Orders; §7.5: twenty-three pre-set and scenario
    // order texts.
    let count = |f: &str| order::check(&corpus(f), None, None).orders.len();
    assert_eq!(count("nbs-examples.txt"), 11);
    assert_eq!(count("real-orders.txt"), 8);
    assert_eq!(count("presets.txt"), 23);
}

#[test]
fn example_orders_resolve_every_recipient_and_place_in_the_tutorial() {
    let s = tutorial();
    for (text, _) in EXAMPLES {
        let o = order::check_one(text, Some(&s), Some("imperial"));
        let rec = o.recipient.as_ref().expect("a recipient");
        assert!(rec.resolved.is_some(), "{text}: recipient");
        assert!(!o.places.is_empty(), "{text}");
        for p in &o.places {
            assert!(p.resolved.is_some(), "{text}: {} unresolved", p.text);
        }
        assert!(!o.has_errors(), "{text}: {:#?}", o.diagnostics);
    }
    let o = order::check_one(EXAMPLES[5].0, Some(&s), Some("imperial"));
    assert_eq!(o.recipient.unwrap().resolved.unwrap().id, "div-2");
    let o = order::check_one(EXAMPLES[0].0, Some(&s), Some("imperial"));
    assert_eq!(o.recipient.unwrap().resolved.unwrap().id, "div-3");
}

#[test]
fn hinseberg_resolves_to_hinzeberg_with_a_warning() {
    let s = tutorial();
    let o = order::check_one(
        "2nd Div: march over Hinseberg to Kümla.",
        Some(&s),
        Some("imperial"),
    );
    let p = &o.places[0];
    assert_eq!(p.text, "Hinseberg");
    assert_eq!(p.resolved.as_ref().unwrap().id, "hinzeberg");
    let d = o
        .diagnostics
        .iter()
        .find(|d| d.code == "spelling-variant")
        .expect("a spelling-variant warning");
    assert_eq!(d.severity, Severity::Warning);
    assert!(d.message.contains("Hinzeberg"), "{}", d.message);
    assert_eq!(
        &"2nd Div: march over Hinseberg to Kümla."[d.span.0..d.span.1],
        "Hinseberg"
    );
    // Example 11's "Hinseberg road" likewise.
    let o = order::check_one(EXAMPLES[10].0, Some(&s), Some("imperial"));
    assert!(codes(&o).contains(&"spelling-variant"));
    assert!(o.places.iter().any(|p| {
        p.resolved
            .as_ref()
            .is_some_and(|r| r.id == "hinzeberg-road")
    }));
}

#[test]
fn diacritics_and_case_do_not_matter_and_do_not_warn() {
    // Decision 0012: "Kumla" and "KÜMLA" are Kümla by the one definition of a name.
    let s = tutorial();
    for t in [
        "3rd Div: march to Kumla.",
        "3RD DIV: MARCH TO KÜMLA.",
        "3rd Div: march to kumla.",
    ] {
        let o = order::check_one(t, Some(&s), Some("imperial"));
        assert_eq!(o.places[0].resolved.as_ref().unwrap().id, "kumla", "{t}");
        assert!(
            o.diagnostics.iter().all(|d| d.severity == Severity::Note),
            "{t}: {:?}",
            codes(&o)
        );
    }
}

#[test]
fn decomposed_input_keeps_byte_spans_of_the_input_as_given() {
    let s = tutorial();
    let text = "3rd Div: march to Ku\u{308}mla.";
    let o = order::check_one(text, Some(&s), Some("imperial"));
    let p = &o.places[0];
    assert_eq!(p.text, "Kümla", "texts are NFC");
    assert_eq!(
        &text[p.span.0..p.span.1],
        "Ku\u{308}mla",
        "spans are into the input"
    );
    assert_eq!(p.resolved.as_ref().unwrap().id, "kumla");
}

#[test]
fn near_misses_resolve_with_a_warning_and_misses_suggest() {
    let s = tutorial();
    let o = order::check_one(
        "2nd Div: capture Kirsebrg from the west.",
        Some(&s),
        Some("imperial"),
    );
    assert_eq!(o.places[0].resolved.as_ref().unwrap().id, "kirseberg");
    let d = o
        .diagnostics
        .iter()
        .find(|d| d.code == "near-miss")
        .unwrap();
    assert!(d.message.contains("Kirseberg"));
    let o = order::check_one(
        "2nd Div: capture Vimiera from the west.",
        Some(&s),
        Some("imperial"),
    );
    let d = o
        .diagnostics
        .iter()
        .find(|d| d.code == "unknown-place")
        .unwrap();
    assert_eq!(d.severity, Severity::Error);
    assert!(d.help.starts_with("did you mean"), "{}", d.help);
}

#[test]
fn every_place_reference_is_listed_in_order() {
    let text =
        "2nd Div: march over Hinzeberg to 12.14 and defend w/i 2 of 16.10 between 13.13 and 13.14.";
    let o = order::check_one(text, None, None);
    let listed: Vec<&str> = o.places.iter().map(|p| p.text.as_str()).collect();
    assert_eq!(listed, ["Hinzeberg", "12.14", "16.10", "13.13", "13.14"]);
    for p in &o.places {
        assert_eq!(&text[p.span.0..p.span.1], p.text);
        assert!(p.resolved.is_none(), "no scenario, nothing resolved");
    }
    let hexes = o.places.iter().filter(|p| p.form == Form::Hex).count();
    assert_eq!(hexes, 4);
}

#[test]
fn commanders_and_counter_ids_and_ordinals_resolve_to_formations() {
    let s = tutorial();
    for (t, id) in [
        ("To General Morvan: capture Hall from the west.", "div-2"),
        ("Morvan — capture Hall from the west.", "div-2"),
        ("2-I: capture Hall from the west.", "div-2"),
        ("Second Division: capture Hall from the west.", "div-2"),
        ("II Div: capture Hall from the west.", "div-2"),
        ("The 2nd Division will capture Hall from the west.", "div-2"),
        ("Cav-I: screen Kümla.", "cav-i"),
        ("1st Brigade, 2nd Division: advance.", "1-2-i"),
        ("Army HQ is to move to 3.10.", "imperial-army"),
    ] {
        let o = order::check_one(t, Some(&s), Some("imperial"));
        let r = o
            .recipient
            .as_ref()
            .unwrap_or_else(|| panic!("{t}: no recipient"));
        assert_eq!(r.resolved.as_ref().map(|r| r.id.as_str()), Some(id), "{t}");
        assert!(!o.has_errors(), "{t}: {:?}", codes(&o));
    }
}

#[test]
fn historical_phrasing_is_read() {
    let o = order::check_one(
        "The Duke will march on Eckmühl with his three divisions and surround the enemy.",
        None,
        None,
    );
    assert_eq!(o.recipient.as_ref().unwrap().text, "The Duke");
    assert_eq!(o.stages[0].objectives[0].text, "Eckmühl");
    assert_eq!(o.stages[0].steps[0].forces[0].text, "his three divisions");
    let o = order::check_one(
        "Proceed to Apolda in order to fall on the rear of the enemy army.",
        None,
        None,
    );
    assert_eq!(
        o.intent.as_deref(),
        Some("fall on the rear of the enemy army")
    );
    assert!(o.anatomy.why);
    let o = order::check_one(
        "Push forward your cavalry and horse artillery to Memmingen, which you must reach with your leading division before 0900 hours.",
        None,
        None,
    );
    let t = o.stages[0].timing.as_ref().unwrap();
    assert_eq!(
        (t.kind.as_str(), t.time.as_deref()),
        ("before", Some("09:00"))
    );
    assert_eq!(o.remarks[0].text, "which you must reach");
    assert!(codes(&o).contains(&"unstructured-text"));
    let o = order::check_one(
        "My dear General,\nI have the honour to inform you that His Majesty desires that you march at dawn on Kümla.\nYour obedient servant,\nDavrange",
        None,
        None,
    );
    assert_eq!(o.courtesies.len(), 3, "{:?}", o.courtesies);
    assert!(o.remarks.is_empty(), "{:?}", o.remarks);
    assert!(codes(&o).contains(&"implicit-recipient"));
    let o = order::check_one("W/E 10:30 — 2nd Div: capture Hall.", None, None);
    assert_eq!(o.header.as_deref(), Some("W/E 10:30"));
    let o = order::check_one(
        "Has an (normally forbidden) Independent Order to attack Casa de Salinas.",
        None,
        None,
    );
    assert!(o.independent && o.preset);
    let o = order::check_one(
        "2-I with Beamont-I and I (2Lh) attached: capture and then defend Casa de Salinas.",
        None,
        None,
    );
    let att: Vec<&str> = o.attached.iter().map(|a| a.text.as_str()).collect();
    assert_eq!(att, ["Beamont-I", "I (2Lh)"]);
    assert_eq!(
        o.stages[0].objectives[0].text, "Casa de Salinas",
        "shared objective"
    );
}

#[test]
fn hex_forms_are_read() {
    let o = order::check_one(
        "Has orders to defend along the line between 24.12 and 24.20 facing west.",
        None,
        None,
    );
    let st = &o.stages[0];
    assert!(
        st.objectives
            .iter()
            .any(|r| r.form == Form::Between && r.parts.len() == 2)
    );
    assert_eq!(st.facing.as_ref().unwrap().compass.as_deref(), Some("west"));
    let o = order::check_one(
        "Has an Independent Order to attack and then hold the high ground of Cerro de Medellin (18.25, 19.25 & 20.25).",
        None,
        None,
    );
    let hx = o.stages[1]
        .objectives
        .iter()
        .find(|r| r.form == Form::Hexes)
        .unwrap();
    assert_eq!(hx.hexes.len(), 3);
    let o = order::check_one("3-I: defend B29.17 and w/i 3 of 20.22.", None, None);
    let w = o.stages[0]
        .objectives
        .iter()
        .find(|r| r.form == Form::Within)
        .unwrap();
    assert_eq!(w.within, Some(3));
    assert_eq!(o.places[0].text, "B29.17");
}

#[test]
fn read_back_round_trips_for_every_order_of_the_corpus() {
    let s = tutorial();
    for file in CORPUS {
        for scen in [None, Some(&s)] {
            let r = order::check(&corpus(file), scen, Some("imperial"));
            for o in &r.orders {
                let again = order::check_one(&o.readback, scen, Some("imperial"));
                assert_eq!(
                    again.same_order_key(),
                    o.same_order_key(),
                    "{file}: {}\n  {}",
                    o.text,
                    o.readback
                );
                assert_eq!(again.order_type, o.order_type, "{}", o.readback);
                assert_eq!(again.readback, o.readback, "read-back is a fixed point");
            }
        }
    }
}

#[test]
fn read_back_is_canonical_plain_english() {
    let s = tutorial();
    let o = order::check_one(EXAMPLES[7].0, Some(&s), Some("imperial"));
    assert_eq!(
        o.readback,
        "2nd Division is to attack along the Säter road and capture Hall. Engage order."
    );
    let o = order::check_one(EXAMPLES[4].0, None, None);
    assert_eq!(
        o.readback,
        "3rd Div is to march to Kümla and defend. Stop in Kirseberg and defend the bridge there if the enemy holds Kümla. Complex order."
    );
}

#[test]
fn the_same_order_key_ignores_wording_but_not_meaning() {
    let s = tutorial();
    let k = |t: &str| order::check_one(t, Some(&s), Some("imperial")).same_order_key();
    assert_eq!(
        k("2nd Div: take Hall."),
        k("To General Morvan: capture Hall!")
    );
    assert_eq!(
        k("2nd Div: attack up the Säter road and capture Hall."),
        k("Second Division: attack along the Säter road and capture HALL.")
    );
    assert_ne!(k("2nd Div: capture Hall."), k("2nd Div: capture Säter."));
    assert_ne!(k("2nd Div: capture Hall."), k("3rd Div: capture Hall."));
    assert_ne!(
        k("2nd Div: capture Hall."),
        k("2nd Div: capture Hall at 10:00.")
    );
}
