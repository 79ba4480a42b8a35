//! The reader's rules for classes of wording (issue 11, reader3): each test reads sentences
//! that are NOT in the annotated corpus, so a rule is shown to be general, not fitted.

use staffwork::order::{self, CheckedOrder};
use staffwork::rules::OrderType;

fn hall(text: &str) -> CheckedOrder {
    let s = staffwork::scenario::bundled("tutorial-hall").unwrap();
    order::check_one(text, Some(&s), Some("imperial"))
}

fn start_time(o: &CheckedOrder) -> Option<String> {
    o.stages
        .iter()
        .filter_map(|s| s.timing.as_ref())
        .find(|t| t.is_start())
        .and_then(|t| t.time.clone())
}

#[test]
fn clock_times_in_words_are_start_times() {
    // 30.0: a start time delays execution, so the order is Complex (6.3.3).
    for (text, want) in [
        (
            "4th Div: march to Kirseberg at half past six in the morning.",
            "06:30",
        ),
        ("2nd Div: carry Hall at nine o'clock at night.", "21:00"),
        (
            "Sauret: move to Hinzeberg at a quarter to four in the afternoon.",
            "15:45",
        ),
        ("Pellerin: fall back on Kümla at eleven o'clock.", "11:00"),
    ] {
        let o = hall(text);
        assert_eq!(o.order_type, Some(OrderType::Complex), "{text}: {}", o.key);
        assert_eq!(start_time(&o).as_deref(), Some(want), "{text}: {}", o.key);
        assert!(!o.has_errors(), "{text}: {:?}", o.diagnostics);
    }
}

#[test]
fn a_later_day_is_a_start_time_but_a_unit_after_on_the_is_not() {
    for text in [
        "Pellerin: on the 21st instant march to Kümla.",
        "Cav-I: to-morrow morning scout the Kümla road.",
        "3rd Div: on the evening of the 3d move to Kirseberg.",
        "4th Div: the next day hold Hinzeberg.",
    ] {
        let o = hall(text);
        assert_eq!(o.order_type, Some(OrderType::Complex), "{text}: {}", o.key);
        assert!(start_time(&o).is_some(), "{text}: {}", o.key);
    }
    // "on the 2nd Division" names troops, not the 2nd of the month.
    let o = hall("4th Div: fall back on the 2nd Division.");
    assert_eq!(o.order_type, Some(OrderType::General), "{}", o.key);
    assert!(start_time(&o).is_none(), "{}", o.key);
}

#[test]
fn a_bid_to_pass_an_order_on_names_its_recipient() {
    // "Desire X to …", "Tell X to …", "I wish X to …", "Let X …": X is to act (6.2), not
    // the staff officer the writer addresses.
    for (text, who) in [
        ("Desire Sauret to march to Kirseberg.", "div-3"),
        ("Tell General Pellerin to hold Kümla.", "div-4"),
        ("I wish the 2nd Division to move to Hinzeberg.", "div-2"),
        ("Let Morvan cross the Viskan.", "div-2"),
    ] {
        let o = hall(text);
        let got = o.recipient.as_ref().and_then(|r| r.resolved.as_ref());
        assert_eq!(got.map(|r| r.id.as_str()), Some(who), "{text}: {}", o.key);
        assert_eq!(o.order_type, Some(OrderType::General), "{text}: {}", o.key);
        assert!(!o.has_errors(), "{text}: {:?}", o.diagnostics);
    }
}

#[test]
fn a_verb_as_the_noun_of_a_state_is_no_stage() {
    // "in retreat", "in motion", "in support" describe a state or manner: the report "the
    // enemy is in retreat" orders nothing, so only the pursuit is a stage (6.3.1 Engage).
    let o = order::check_one(
        "General Junot: the Spaniards are in full retreat; harass them towards Lugo.",
        None,
        None,
    );
    assert_eq!(o.stages.len(), 1, "{}", o.key);
    assert_eq!(o.order_type, Some(OrderType::Engage), "{}", o.key);
    let o = hall("4th Div: the 2nd Division is in motion. Move in support to Hinzeberg.");
    assert_eq!(o.order_type, Some(OrderType::General), "{}", o.key);
    assert_eq!(o.stages.len(), 1, "{}", o.key);
}

#[test]
fn a_march_to_no_place_before_an_attack_is_its_approach() {
    // posture.approach (6.3.3): "push on, and storm Hall" is one Engage stage, not a General
    // stage followed by an Engage one (which would make it Complex).
    for text in [
        "2nd Div: push on, and storm Hall.",
        "Morvan: advance westwards and carry the orchards.",
    ] {
        let o = hall(text);
        assert_eq!(o.order_type, Some(OrderType::Engage), "{text}: {}", o.key);
        assert_eq!(o.stages.len(), 1, "{text}: {}", o.key);
    }
    // A march to a place of its own, then an attack elsewhere, stays two stages.
    let o = hall("3rd Div: march to Kirseberg, then attack Hall.");
    assert_eq!(o.order_type, Some(OrderType::Complex), "{}", o.key);
}

#[test]
fn read_backs_that_would_not_read_again_are_worded_so_they_do() {
    let s = staffwork::scenario::bundled("tutorial-hall").unwrap();
    for text in [
        // readback.colon: a recipient name holding a verb ("reserve") leads with a colon.
        "I Corps reserve battery: hold Hinzeberg hill.",
        // readback.condition-first: "it" still follows the place it stands for.
        "Morvan: if the enemy leaves the orchards, occupy them at once.",
        "2nd Div: should Hall be abandoned, take it.",
        // A title and the man's name, then his wish: the named general is the recipient.
        "His Excellency the Marshal Davrange desires that General Sauret will hold Kirseberg.",
    ] {
        let o = order::check_one(text, Some(&s), Some("imperial"));
        assert!(!o.readback.is_empty(), "{text}");
        let again = order::check_one(&o.readback, Some(&s), Some("imperial"));
        assert_eq!(again.key, o.key, "{text} → {}", o.readback);
        assert!(!o.has_errors(), "{text}: {:?}", o.diagnostics);
    }
    // Without a scenario: "the advanced guard" is troops, "guard" no verb.
    let o = order::check_one(
        "The rear guard of the army is to hold Lugo until dusk.",
        None,
        None,
    );
    assert_eq!(o.stages.len(), 1, "{}", o.key);
    let again = order::check_one(&o.readback, None, None);
    assert_eq!(again.key, o.key, "{}", o.readback);
}

#[test]
fn readiness_for_a_march_is_no_march_and_its_time_is_a_deadline() {
    // verb.ready-to (30.0): nothing moves until ordered; the troops must be ready by then.
    let o = hall("Sauret: halt at Kirseberg and hold yourself ready to move at ten o'clock.");
    assert_eq!(o.order_type, Some(OrderType::General), "{}", o.key);
    assert!(start_time(&o).is_none(), "{}", o.key);
    let again = hall(&o.readback);
    assert_eq!(again.key, o.key, "{}", o.readback);
}

#[test]
fn following_a_pronoun_for_own_troops_is_a_march_behind_them() {
    // verb.follow-own through "it": "follow it" after own troops is General, after the enemy
    // a pursuit (Engage).
    let o = hall("4th Div: form behind the 2nd Division and follow it to Kümla.");
    assert_eq!(o.order_type, Some(OrderType::General), "{}", o.key);
    let o = hall("Cav-I: find the enemy south of Kümla and follow them.");
    assert_eq!(o.order_type, Some(OrderType::Engage), "{}", o.key);
}

#[test]
fn let_names_only_its_capitalised_recipient() {
    let o = hall("Let Pellerin watch the Kümla road.");
    let got = o.recipient.as_ref().and_then(|r| r.resolved.as_ref());
    assert_eq!(got.map(|r| r.id.as_str()), Some("div-4"), "{}", o.key);
    assert_eq!(o.order_type, Some(OrderType::General), "{}", o.key);
}

#[test]
fn being_at_a_place_is_going_there_and_or_even_is_no_alternative() {
    let o = hall("The 3rd Division will be at Kirseberg by noon.");
    assert_eq!(o.order_type, Some(OrderType::General), "{}", o.key);
    assert_eq!(o.stages.len(), 1, "{}", o.key);
    let o = order::check_one(
        "General Hope: send me two battalions, or even one, without delay.",
        None,
        None,
    );
    assert!(o.stages.iter().all(|s| !s.alternatives), "{}", o.key);
}

#[test]
fn the_writer_to_the_recipient_names_the_recipient_second() {
    // lead.sender-to: "Davrange to Sauret:" — Davrange writes, Sauret (3rd Division) acts.
    let o = hall("Davrange to Sauret: the division will hold Kirseberg until dusk.");
    let got = o.recipient.as_ref().and_then(|r| r.resolved.as_ref());
    assert_eq!(got.map(|r| r.id.as_str()), Some("div-3"), "{}", o.key);
    let again = hall(&o.readback);
    assert_eq!(again.key, o.key, "{}", o.readback);
}

#[test]
fn check_streams_the_same_report_it_would_build_whole() {
    // `check` writes each order as it is checked (memory bounded by one order); the JSON
    // document is exactly the pretty-printed report, and the text ends with the totals.
    let dir = std::env::temp_dir().join(format!("sw-stream-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("orders.txt");
    let text = "2nd Div: take Hall.\n\nPellerin: march to Gothenburg.\n\nblah blah\n";
    std::fs::write(&file, text).unwrap();
    let f = file.to_str().unwrap();
    let args = ["check", "--scenario", "tutorial-hall", "--side", "imperial"];
    let out = crate::common::staffwork(&[&args[..], &["--format", "json", f]].concat());
    assert_eq!(out.status.code(), Some(1), "an unknown place is an error");
    let s = staffwork::scenario::bundled("tutorial-hall").unwrap();
    let whole = order::check(text, Some(&s), Some("imperial"));
    let want = serde_json::to_string_pretty(&whole).unwrap() + "\n";
    assert_eq!(crate::common::stdout(&out), want);
    let out = crate::common::staffwork(&[&args[..], &[f]].concat());
    let shown = crate::common::stdout(&out);
    assert_eq!(shown.matches("\norder ").count() + 1, 3, "{shown}");
    assert!(
        shown.ends_with("3 order(s): 3 error(s), 1 warning(s)\n"),
        "{shown}"
    );
    // No order at all: still one well-formed document.
    std::fs::write(&file, "\n\n").unwrap();
    let out = crate::common::staffwork(&[&args[..], &["--format", "json", f]].concat());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["orders"], serde_json::json!([]));
    assert_eq!(v["summary"]["orders"], 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_reporting_clause_before_a_semicolon_gives_no_objectives() {
    // clause.report: "X is weakly held; hold Y" — the report's noun phrases are not what the
    // recipient is to hold; the place named stays a place, and "there" still points back.
    let o = hall("4th Div: the road to Kümla is quite open; halt at Kirseberg and wait.");
    let objectives: Vec<&str> = o
        .stages
        .iter()
        .flat_map(|s| &s.objectives)
        .map(|r| r.text.as_str())
        .collect();
    assert!(!objectives.is_empty(), "{}", o.key);
    assert!(objectives.iter().all(|x| *x == "Kirseberg"), "{}", o.key);
    let again = hall(&o.readback);
    assert_eq!(again.key, o.key, "{}", o.readback);
}

#[test]
fn from_a_place_before_the_verb_is_a_direction_as_after_it() {
    // "from Kirseberg" written before the action is where the move starts, not an objective;
    // so the read-back (which puts it after the verb) reads back to the same order.
    let o = hall("4th Div: from Kirseberg march upon Kümla.");
    let st = &o.stages[0];
    assert!(
        st.steps[0].direction.as_ref().is_some_and(|d| d.from),
        "{}",
        o.key
    );
    assert!(st.objectives.iter().all(|r| r.text == "Kümla"), "{}", o.key);
    let again = hall(&o.readback);
    assert_eq!(again.key, o.key, "{}", o.readback);
}

#[test]
fn sentence_adverbs_and_abbreviated_titles_are_no_places() {
    // "Meanwhile" opening a sentence is a word of the lexicon, never a name; "Br. Genl." is a
    // title written short (no sentence ends after "Br.").
    let o = order::check_one(
        "General Hill: hold Merida. Meanwhile send your cavalry to Almendralejo.",
        None,
        None,
    );
    assert!(
        o.places.iter().all(|p| p.text != "Meanwhile"),
        "{:?}",
        o.places
    );
    let o = order::check_one(
        "Br. Genl. Pack's brigade will march to Coimbra.",
        None,
        None,
    );
    assert!(o.places.iter().all(|p| p.text != "Br"), "{:?}", o.places);
    assert_eq!(o.stages.len(), 1, "{}", o.key);
}

/// The places of an order as written (span text).
fn place_texts(o: &CheckedOrder) -> Vec<&str> {
    o.places
        .iter()
        .map(|p| &o.text[p.span.0..p.span.1])
        .collect()
}

fn codes(o: &CheckedOrder) -> Vec<&'static str> {
    o.diagnostics.iter().map(|d| d.code).collect()
}

#[test]
fn the_periods_commanders_are_persons_not_places() {
    // Rule name.person (lexicon [persons], decision 0131): with no scenario to say who is who,
    // a commander named in the order is the troops he leads, never a place.
    let o = order::check_one(
        "General Graham: attack Soult at Oporto if Victor has not crossed the Douro.",
        None,
        None,
    );
    assert_eq!(place_texts(&o), ["Oporto", "Douro"], "{}", o.readback);
    let o = order::check_one(
        "General Pack: watch Marmont's movements from Salamanca and report to Hill.",
        None,
        None,
    );
    assert_eq!(place_texts(&o), ["Salamanca"], "{}", o.readback);
    // Written as a name only: "the hill" is ground.
    let o = hall("4th Div: march to Hinzeberg and occupy the hill.");
    assert_eq!(place_texts(&o), ["Hinzeberg"], "{}", o.readback);
}

#[test]
fn a_definite_description_placed_by_a_name_names_only_that_place() {
    // Rule place.anchored: "the heights behind Bayonne" is a feature found by Bayonne; only
    // Bayonne is a place, and nothing is vague about it.
    let o = order::check_one(
        "General Hope: occupy the heights behind Bayonne.",
        None,
        None,
    );
    assert_eq!(place_texts(&o), ["Bayonne"]);
    assert!(!codes(&o).contains(&"vague-place"), "{:?}", codes(&o));
    let o = hall("3rd Div: take post on the ground south of Kümla.");
    assert_eq!(place_texts(&o), ["Kümla"]);
    assert!(!codes(&o).contains(&"vague-place"), "{:?}", codes(&o));
    // An indefinite position is still to be chosen: a vague place of its own.
    let o = order::check_one(
        "General Hope: occupy a strong position near Bayonne.",
        None,
        None,
    );
    assert_eq!(place_texts(&o), ["strong position", "Bayonne"]);
}

#[test]
fn a_definite_terrain_noun_after_a_named_place_points_back_to_it() {
    // Rule place.definite: "the village" after San Cristobal is San Cristobal.
    let o = order::check_one(
        "General Hill: march to San Cristobal and hold the village.",
        None,
        None,
    );
    assert_eq!(place_texts(&o), ["San Cristobal"]);
    // With a scenario the kinds must agree: Kümla is a village, not a ridge.
    let o = hall("4th Div: march to Kümla and hold the village.");
    assert_eq!(place_texts(&o), ["Kümla"]);
    let o = hall("4th Div: march to Kümla and hold the ridge.");
    assert_eq!(place_texts(&o), ["Kümla", "ridge"]);
    assert!(codes(&o).contains(&"vague-place"), "{:?}", codes(&o));
    // With nothing named before, "the heights" stays vague.
    let o = hall("4th Div: occupy the heights.");
    assert_eq!(place_texts(&o), ["heights"]);
}

#[test]
fn a_side_or_a_position_of_troops_is_no_place() {
    // Rule place.side: "the left" is a side of the recipient's own line.
    let o = hall("Cav-I: cover the left of the 2nd Division and watch the right.");
    assert!(place_texts(&o).is_empty(), "{:?}", place_texts(&o));
    assert!(!codes(&o).contains(&"vague-place"), "{:?}", codes(&o));
    // Rule name.troops-position: where those troops stand is the troops.
    for text in [
        "General Reynier: attack the English position.",
        "General Reynier: attack Kellermann's position from the north.",
    ] {
        let o = order::check_one(text, None, None);
        assert!(place_texts(&o).is_empty(), "{text}: {:?}", place_texts(&o));
    }
}

#[test]
fn days_regiments_offices_and_bids_are_no_places() {
    // name.date, name.regiment, the lexicon's titles of offices and bodies ("the Minister at
    // War", "the Government"), and "Tell him to …" (a verb that is no stage).
    for (text, want) in [
        (
            "General Hill: march to Merida in consequence of the convention of the 19th of April.",
            vec!["Merida"],
        ),
        (
            "General Hill: attack Arroyo from the north, with the 34th Foot leading.",
            vec!["Arroyo"],
        ),
        (
            "General Hill: remain at Merida to receive the consent of the Minister at War.",
            vec!["Merida"],
        ),
        (
            "General Hill: remain at Merida and await the decision of the Government.",
            vec!["Merida"],
        ),
        (
            "Tell him to march upon Truxillo by the Almaraz road.",
            vec!["Truxillo", "Almaraz road"],
        ),
    ] {
        let o = order::check_one(text, None, None);
        assert_eq!(place_texts(&o), want, "{text} → {}", o.readback);
    }
}

#[test]
fn a_feature_keeps_its_name_and_a_relation_head_is_cut_off() {
    // name.terrain-head: "pass" is a keyword of the grammar, but after a name it ends it.
    let o = order::check_one(
        "General Hill: march upon Pamplona by the Maya pass.",
        None,
        None,
    );
    assert_eq!(place_texts(&o), ["Pamplona", "Maya pass"], "{}", o.readback);
    // name.edges on a lower-case description: "the north bank of the road to Burgos" is the
    // road to Burgos (name.feature), not "north bank of the road" and Burgos.
    let o = order::check_one(
        "General Pack: deploy on the north bank of the road to Burgos.",
        None,
        None,
    );
    assert_eq!(place_texts(&o), ["road to Burgos"], "{}", o.readback);
    // verb.object-noun: "take up the bridge at X" removes the bridge at X (decision 0132).
    let o = order::check_one(
        "General Hill: take up the bridge at Almaraz and fall back to Truxillo.",
        None,
        None,
    );
    assert_eq!(
        place_texts(&o),
        ["bridge at Almaraz", "Truxillo"],
        "{}",
        o.readback
    );
    let o = hall("4th Div: take up the bridge at Kirseberg and fall back to Kümla.");
    let ids: Vec<&str> = o
        .places
        .iter()
        .filter_map(|p| p.resolved.as_ref().map(|r| r.id.as_str()))
        .collect();
    assert_eq!(ids, ["kirseberg-bridge", "kumla"], "{}", o.readback);
    assert_eq!(o.order_type, Some(OrderType::General));
    let again = hall(&o.readback);
    assert_eq!(again.key, o.key, "{}", o.readback);
}

#[test]
fn a_landing_beach_is_ground_and_ends_its_description() {
    // Terrain nouns of a landing (lexicon [terrain]: beach, shore, coast), and name.edges on a
    // lower-case description: "the shore ready for embarkation" is the shore.
    let o = order::check_one(
        "The dragoons will be on the shore ready for embarkation at dawn.",
        None,
        None,
    );
    assert_eq!(place_texts(&o), ["shore"], "{}", o.readback);
    assert!(codes(&o).contains(&"vague-place"), "{:?}", codes(&o));
}

#[test]
fn a_condition_after_a_semicolon_governs_the_action_after_it() {
    // cond.condition (NBS 30.0, issue 11 §5): "if …; otherwise …" keeps both branches whole. The
    // "otherwise" after ";" opens the second branch; it is not tacked onto the first branch's
    // second verb ("retake it"), which used to read back as "otherwise retake it and stay".
    for (text, first, second) in [
        (
            "4th Div: if Hall falls, counterattack and retake it; otherwise stay at Kümla.",
            "if Hall falls, counterattack and retake it",
            "otherwise stay at Kümla",
        ),
        (
            "2nd Div: if Hall falls, attack Kümla and take it; otherwise stay at Kirseberg.",
            "attack Kümla and take it if Hall falls",
            "otherwise stay at Kirseberg",
        ),
        (
            "3rd Div: should the enemy cross the Viskan, fall back and form behind Kirseberg; \
             otherwise hold Hinzeberg.",
            "fall back and form behind Kirseberg should the enemy cross the Viskan",
            "otherwise hold Hinzeberg",
        ),
    ] {
        let o = hall(text);
        assert_eq!(o.order_type, Some(OrderType::Complex), "{text}: {}", o.key);
        assert_eq!(o.stages.len(), 2, "{text}: {}", o.readback);
        assert!(o.readback.contains(first), "{text} → {}", o.readback);
        assert!(o.readback.contains(second), "{text} → {}", o.readback);
        let otherwise = o.stages[1].condition.as_ref().map(|c| c.text.as_str());
        assert_eq!(otherwise, Some("otherwise"), "{text}: {}", o.readback);
        assert!(!o.has_errors(), "{text}: {:?}", o.diagnostics);
    }
}

#[test]
fn a_hex_named_place_keeps_its_article_and_its_relation() {
    // name.scenario: "the 33.17 crossroads" starts with a hex, so the grammar cannot join
    // "near the" to it; the name still resolves to that place (issue 11 §7), the relation is
    // kept (6.4.4 objectives are read as written) and no word is left over as a remark.
    let s = staffwork::scenario::bundled("talavera-1809").unwrap();
    for (text, rel) in [
        ("Dessolles: halt near the 33.17 crossroads.", Some("near")),
        (
            "Dessolles: form behind the 33.17 crossroads.",
            Some("behind"),
        ),
        (
            "Dessolles: remain at the 33.17 crossroads in reserve.",
            None,
        ),
        (
            "Dessolles: halt near the 33.17 crossroads and wait there for the King.",
            Some("near"),
        ),
    ] {
        let o = order::check_one(text, Some(&s), Some("french"));
        let p = &o.places[0];
        assert_eq!(
            p.resolved.as_ref().map(|r| r.id.as_str()),
            Some("crossroads-33-17"),
            "{text}"
        );
        assert_eq!(p.relation.as_deref(), rel, "{text}");
        assert!(o.remarks.is_empty(), "{text}: {:?}", o.remarks);
        assert!(
            o.readback.contains("the 33.17 crossroads"),
            "{}",
            o.readback
        );
        let again = order::check_one(&o.readback, Some(&s), Some("french"));
        assert_eq!(again.key, o.key, "{text} → {}", o.readback);
    }
}

#[test]
fn a_purpose_that_holds_its_verb_keeps_it() {
    // purpose.why (issue 11 §5): "to draw the enemy" is WHY, not a stage, and the WHY keeps its
    // verb — it used to read back as "in order to the enemy".
    for (text, why) in [
        (
            "Sauret: move to Kirseberg to draw the enemy.",
            "draw the enemy",
        ),
        (
            "2nd Div: demonstrate against Hall to draw the enemy's reserves.",
            "draw the enemy's reserves",
        ),
        ("Morvan: advance so as to draw the enemy.", "draw the enemy"),
    ] {
        let o = hall(text);
        assert_eq!(o.intent.as_deref(), Some(why), "{text} → {}", o.readback);
        assert_eq!(o.stages.len(), 1, "{text}: {}", o.readback);
        assert!(
            o.readback.contains(&format!("in order to {why}")),
            "{text} → {}",
            o.readback
        );
        let again = hall(&o.readback);
        assert_eq!(again.key, o.key, "{text} → {}", o.readback);
    }
}

#[test]
fn own_troops_held_ready_are_readiness_not_a_march() {
    // verb.ready-to: "hold your division ready to move" is the lexicon's "hold yourself ready"
    // — no march stage and no objective (nothing moves until ordered, 6.3.1 General) — it used
    // to read back as "hold your division ready and move".
    for text in [
        "Sauret: hold your division ready to move.",
        "Sauret: keep your men ready to march at ten o'clock.",
        "Pellerin: have your brigades ready to advance.",
    ] {
        let o = hall(text);
        assert_eq!(o.order_type, Some(OrderType::General), "{text}: {}", o.key);
        assert_eq!(o.stages.len(), 1, "{text}: {}", o.readback);
        let steps = &o.stages[0].steps;
        assert_eq!(steps.len(), 1, "{text}: {}", o.readback);
        assert_eq!(steps[0].action, order::Action::Reserve, "{text}");
        assert!(steps[0].objectives.is_empty(), "{text}: {}", o.readback);
        assert!(start_time(&o).is_none(), "{text}: {}", o.key);
        assert!(!o.readback.contains(" and "), "{text} → {}", o.readback);
    }
}

#[test]
fn a_word_after_do_not_is_the_verb_forbidden_even_if_unknown() {
    // neg.prohibition (issue 11 §5): "do not enter Hall", "do not attempt the village", "do not
    // let the hussars across" forbid; the verb is not in the lexicon, but after "do not" or
    // "never" a lower-case word is a verb — it used to become a place, a remark or an action.
    for (text, forbidden) in [
        ("4th Div: hold Kümla but do not enter Hall.", "enter Hall"),
        (
            "2nd Div: take the Hall orchards; do not attempt the village itself.",
            "attempt the village itself",
        ),
        (
            "4th Div: watch the road to Säter from Kirseberg and do not let the enemy's \
             hussars across the bridge.",
            "let the enemy's hussars across the bridge",
        ),
        ("Sauret: hold Kirseberg and never quit it.", "quit it"),
    ] {
        let o = hall(text);
        let got: Vec<&str> = o.prohibitions.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(got, [forbidden], "{text} → {}", o.readback);
        assert_eq!(o.stages.len(), 1, "{text} → {}", o.readback);
        assert!(o.remarks.is_empty(), "{text}: {:?}", o.remarks);
        assert!(
            o.readback.contains(&format!("is not to {forbidden}")),
            "{text} → {}",
            o.readback
        );
        let again = hall(&o.readback);
        assert_eq!(again.key, o.key, "{text} → {}", o.readback);
    }
    // A bare "not" after a verb of being is no prohibition of an unknown verb.
    let o = hall("4th Div: the ground is not good; hold Kümla.");
    assert!(o.prohibitions.is_empty(), "{:?}", o.prohibitions);
}

#[test]
fn a_condition_written_before_its_clause_governs_only_that_clause() {
    // cond.own-clause (NBS 30.0, issue 11 §5): "march to X; if C, halt" — the condition governs
    // the halt, not the march: two stages, the first unconditional. It used to put the condition
    // on one stage holding both steps (the march itself waiting for C).
    for (text, second) in [
        (
            "3rd Div: advance to Hinzeberg; if the enemy crosses the Viskan, halt there.",
            "if the enemy crosses the Viskan, halt there",
        ),
        (
            "Sauret: hold Kirseberg, and should the enemy come on in force, fall back to Kümla.",
            "should the enemy come on in force, fall back to Kümla",
        ),
        (
            "4th Div: move to Kirseberg and, if Hall is lost, retake it.",
            "if Hall is lost, retake it",
        ),
    ] {
        let o = hall(text);
        assert_eq!(o.order_type, Some(OrderType::Complex), "{text}: {}", o.key);
        assert_eq!(o.stages.len(), 2, "{text} → {}", o.readback);
        assert!(o.stages[0].condition.is_none(), "{text} → {}", o.readback);
        assert!(o.stages[1].condition.is_some(), "{text} → {}", o.readback);
        assert!(o.readback.contains(second), "{text} → {}", o.readback);
        assert!(o.rules.iter().any(|r| r == "cond.own-clause"), "{text}");
        let again = hall(&o.readback);
        assert_eq!(again.key, o.key, "{text} → {}", o.readback);
    }
    // A condition written after its clause still governs the stage before it.
    let o = hall("3rd Div: advance to Hinzeberg and halt there if the enemy crosses the Viskan.");
    assert_eq!(o.stages.len(), 1, "{}", o.readback);
}

#[test]
fn a_negated_alternative_is_excluded_never_an_objective() {
    // neg.alternative (issue 11 §5): "attack Hall by the Säter road, not by the Kümla road" —
    // the place after "not" is what the step must not use; it used to be a second objective or
    // route ("march to Kümla, Hall").
    for (text, kept, forbidden) in [
        (
            "2nd Div: attack Hall by the Säter road, not by the Kümla road.",
            "hall",
            "attack by the Kümla road",
        ),
        (
            "Pellerin: fall back on Kümla and not on Kirseberg.",
            "kumla",
            "fall back on Kirseberg",
        ),
        (
            "4th Div: march to Hinzeberg, not to Kirseberg.",
            "hinzeberg",
            "march to Kirseberg",
        ),
    ] {
        let o = hall(text);
        let objectives: Vec<&str> = o
            .stages
            .iter()
            .flat_map(|s| &s.objectives)
            .filter_map(|r| r.resolved.as_ref().map(|x| x.id.as_str()))
            .collect();
        assert_eq!(objectives, [kept], "{text} → {}", o.readback);
        let got: Vec<&str> = o.prohibitions.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(got, [forbidden], "{text} → {}", o.readback);
        assert!(!o.has_errors(), "{text}: {:?}", o.diagnostics);
        let again = hall(&o.readback);
        assert_eq!(again.key, o.key, "{text} → {}", o.readback);
    }
    // "but not beyond" (lexicon, a manner) says how far; it forbids no verb and is no remark.
    let o = hall("Cav-I: pursue to the Viskan, but not beyond.");
    assert!(o.prohibitions.is_empty(), "{:?}", o.prohibitions);
    assert!(o.remarks.is_empty(), "{:?}", o.remarks);
    assert_eq!(o.stages.len(), 1, "{}", o.readback);
    let again = hall(&o.readback);
    assert_eq!(again.key, o.key, "{}", o.readback);
}

#[test]
fn a_report_after_the_action_is_no_task() {
    // clause.report (issue 11 §5): "capture Hall, but the stream is deep there", "hold
    // Hinzeberg; the ground is strong" report; they used to add "deep there" or "strong" as a
    // second objective with an unknown-word warning.
    for (text, report) in [
        (
            "3rd Div: hold Hinzeberg; the ground is strong.",
            "the ground is strong",
        ),
        (
            "2nd Div: capture Hall, but the stream is deep there.",
            "the stream is deep there",
        ),
        (
            "4th Div: march to Kümla. The road is good.",
            "The road is good",
        ),
        (
            "Sauret: occupy Kirseberg; it is a strong post.",
            "it is a strong post",
        ),
    ] {
        let o = hall(text);
        assert_eq!(o.stages.len(), 1, "{text} → {}", o.readback);
        assert_eq!(o.stages[0].objectives.len(), 1, "{text} → {}", o.readback);
        assert!(o.remarks.is_empty(), "{text}: {:?}", o.remarks);
        assert!(
            o.diagnostics
                .iter()
                .all(|d| d.code != "unknown-word" && d.code != "unstructured-text"),
            "{text}: {:?}",
            o.diagnostics
        );
        assert!(
            o.courtesies.iter().any(|c| c.text == report),
            "{text}: {:?}",
            o.courtesies
        );
        let again = hall(&o.readback);
        assert_eq!(again.key, o.key, "{text} → {}", o.readback);
    }
    // An action after the report is still read.
    // (Pushing on to enemy-held Hall after occupying Kirseberg is a stage of its own, rule
    // `posture.map-split`, decision 0208.)
    let o = hall("Sauret: occupy Kirseberg; they are weak there, and push on to Hall.");
    let steps: usize = o.stages.iter().map(|s| s.steps.len()).sum();
    assert_eq!(steps, 2, "{}", o.readback);
}

#[test]
fn an_action_noun_takes_its_object_after_of() {
    // name.action-noun (issue 11 §5): "cover the withdrawal of the 3rd Division" covers the
    // 3rd Division; "secure the passage of the Viskan" the Viskan. The action noun used to be
    // read as a place ("retreat" → unknown-word) or left over as a remark.
    for (text, id, rel) in [
        (
            "Cav-I: cover the withdrawal of the 3rd Division to Kümla.",
            "div-3",
            "withdrawal of",
        ),
        (
            "2nd Div: secure the passage of the Viskan at Kirseberg.",
            "viskan",
            "passage of",
        ),
        (
            "4th Div: protect the march of the 2nd Division along the Kümla road.",
            "div-2",
            "march of",
        ),
    ] {
        let o = hall(text);
        let first = &o.stages[0].objectives[0];
        assert_eq!(
            first.resolved.as_ref().map(|r| r.id.as_str()),
            Some(id),
            "{text} → {}",
            o.readback
        );
        assert_eq!(first.relation.as_deref(), Some(rel), "{text}");
        assert!(o.remarks.is_empty(), "{text}: {:?}", o.remarks);
        assert!(
            o.diagnostics.iter().all(|d| d.code != "unknown-word"),
            "{text}: {:?}",
            o.diagnostics
        );
        let again = hall(&o.readback);
        assert_eq!(again.key, o.key, "{text} → {}", o.readback);
    }
}

#[test]
fn avoid_refrain_and_without_forbid_what_follows() {
    // neg.avoid, neg.until (issue 11 §5): "refrain from attacking Hall", "avoid a general
    // action", "without engaging the enemy's cavalry" forbid; "not to advance until …" keeps
    // its duration. They used to read as no action, an objective, or a cut prohibition.
    for (text, forbidden, avoid) in [
        (
            "2nd Div: hold Kirseberg and refrain from attacking Hall.",
            "attacking Hall",
            true,
        ),
        (
            "3rd Div: avoid a general action and fall back on Kümla.",
            "a general action",
            true,
        ),
        (
            "Cav-I: scout towards Säter without engaging the enemy's cavalry.",
            "engaging the enemy's cavalry",
            true,
        ),
        (
            "4th Div: you are not to advance until the 2nd Division has taken Hall.",
            "advance until the 2nd Division has taken Hall",
            false,
        ),
        (
            "Pellerin: hold Kümla; under no circumstances abandon it.",
            "abandon it",
            false,
        ),
        (
            "Sauret: hold Hinzeberg and take care not to expose your flank.",
            "expose your flank",
            false,
        ),
    ] {
        let o = hall(text);
        let got: Vec<(&str, bool)> = o
            .prohibitions
            .iter()
            .map(|p| (p.text.as_str(), p.avoid))
            .collect();
        assert_eq!(got, [(forbidden, avoid)], "{text} → {}", o.readback);
        assert!(o.remarks.is_empty(), "{text}: {:?}", o.remarks);
        let again = hall(&o.readback);
        assert_eq!(again.key, o.key, "{text} → {}", o.readback);
    }
}

#[test]
fn player_shorthand_names_its_recipients() {
    // lead.bare, lead.several (issue 11 §6, player shorthand): "4 Div fall back on Kümla" has
    // no colon, "3 Div + 4 Div:" and "3rd Div, 4th Div:" are two recipients. They used to read
    // as "fall back 4 Div, Kümla" (no recipient) and as the 2nd Brigade of the 3rd Division.
    for (text, who, also) in [
        ("4 Div fall back on Kümla.", "div-4", None),
        ("Cav-I watch the Säter road.", "cav-i", None),
        ("3 Div attk Kirseberg from the north.", "div-3", None),
        ("3 Div + 4 Div: hold Kirseberg.", "div-3", Some("div-4")),
        (
            "3rd Div, 4th Div: fall back on Kümla.",
            "div-3",
            Some("div-4"),
        ),
        ("1st Brigade, 3rd Division: hold Hinzeberg.", "1-3-i", None),
    ] {
        let o = hall(text);
        let got = o.recipient.as_ref().and_then(|r| r.resolved.as_ref());
        assert_eq!(
            got.map(|r| r.id.as_str()),
            Some(who),
            "{text} → {}",
            o.readback
        );
        let others: Vec<&str> = o
            .also
            .iter()
            .filter_map(|r| r.resolved.as_ref().map(|x| x.id.as_str()))
            .collect();
        assert_eq!(others, also.into_iter().collect::<Vec<_>>(), "{text}");
        assert!(!o.has_errors(), "{text}: {:?}", o.diagnostics);
        let again = hall(&o.readback);
        assert_eq!(again.key, o.key, "{text} → {}", o.readback);
    }
    // "attk" (lexicon) is an attack.
    let o = hall("3 Div attk Kirseberg from the north.");
    assert_eq!(o.order_type, Some(OrderType::Engage), "{}", o.readback);
    // A possessive before a verb form is no recipient: "Morvan's attack has failed" reports.
    let o = hall("Morvan's attack has failed.");
    assert!(o.stages.is_empty(), "{}", o.readback);
}

#[test]
fn staff_passives_and_clock_deadlines_read_as_written() {
    // lead.passive-own, time.by-clock (30.0): "The 4th Division will be posted behind
    // Kirseberg" orders the 4th Division (it used to be no action); "by 0900" is a deadline
    // like "by noon" (it used to be a start time, so Complex); "11.15 a.m." at the end of a
    // read-back still ends its sentence.
    for (text, action) in [
        (
            "The 4th Division will be posted behind Kirseberg by 0900.",
            order::Action::Deploy,
        ),
        (
            "The 3rd Division is to be formed in column on Hinzeberg.",
            order::Action::Deploy,
        ),
        (
            "3rd Div: move to the Mill bridge by 0900.",
            order::Action::Move,
        ),
        (
            "Pellerin: fall back on Kümla by 11.15 a.m.",
            order::Action::Withdraw,
        ),
    ] {
        let o = hall(text);
        assert_eq!(
            o.order_type,
            Some(OrderType::General),
            "{text}: {}",
            o.readback
        );
        assert_eq!(o.stages.len(), 1, "{text}: {}", o.readback);
        assert_eq!(o.stages[0].steps[0].action, action, "{text}");
        assert!(start_time(&o).is_none(), "{text}: {}", o.key);
        assert!(!o.has_errors(), "{text}: {:?}", o.diagnostics);
        let again = hall(&o.readback);
        assert_eq!(again.key, o.key, "{text} → {}", o.readback);
    }
}

#[test]
fn no_firing_and_a_possessed_action_noun() {
    // neg.avoid: "no firing" forbids firing (it used to be a remark); name.action-noun: "the
    // 4th Division's retreat" covers the 4th Division (it used to leave "retreat" a remark).
    let o = hall("I Corps Arty: hold Hinzeberg; no firing.");
    let got: Vec<(&str, bool)> = o
        .prohibitions
        .iter()
        .map(|p| (p.text.as_str(), p.avoid))
        .collect();
    assert_eq!(got, [("firing", true)], "{}", o.readback);
    assert!(o.remarks.is_empty(), "{:?}", o.remarks);
    let again = hall(&o.readback);
    assert_eq!(again.key, o.key, "{}", o.readback);

    let o = hall("Cav-I: cover the 4th Division's retreat to Kümla.");
    let first = &o.stages[0].objectives[0];
    assert_eq!(
        first.resolved.as_ref().map(|r| r.id.as_str()),
        Some("div-4"),
        "{}",
        o.readback
    );
    assert!(o.remarks.is_empty(), "{:?}", o.remarks);
    let again = hall(&o.readback);
    assert_eq!(again.key, o.key, "{}", o.readback);
}

#[test]
fn a_second_subject_in_one_sentence_takes_its_own_stage() {
    // lead.clause-subject (issue 11 §5, several recipients): "…, and the 3rd Division will hold
    // Kirseberg" gives the 3rd Division its own stage; it used to be a second objective of the
    // first stage ("hold Kümla, the 2nd Division and march on …").
    for (text, first, subject, second) in [
        (
            "2nd Div: attack Hall, and the 3rd Division will hold Kirseberg.",
            "hall",
            "3rd Division",
            "kirseberg",
        ),
        (
            "4th Div: hold Kümla; the 2nd Division is to march on Kirseberg.",
            "kumla",
            "2nd Division",
            "kirseberg",
        ),
    ] {
        let o = hall(text);
        assert_eq!(o.stages.len(), 2, "{text} → {}", o.readback);
        let ids = |i: usize| -> Vec<&str> {
            o.stages[i]
                .objectives
                .iter()
                .filter_map(|r| r.resolved.as_ref().map(|x| x.id.as_str()))
                .collect()
        };
        assert_eq!(ids(0), [first], "{text} → {}", o.readback);
        assert_eq!(ids(1), [second], "{text} → {}", o.readback);
        let s = o.stages[1].subject.as_ref().map(|r| r.text.as_str());
        assert_eq!(s, Some(subject), "{text} → {}", o.readback);
        let again = hall(&o.readback);
        assert_eq!(again.key, o.key, "{text} → {}", o.readback);
    }
}

#[test]
fn places_before_then_are_where_to_march_first() {
    // verbless.march (6.3.3, telegraphic): "Kirseberg by noon, then attack Hall" is a march to
    // Kirseberg and then the attack — it used to read as one attack on Kirseberg and Hall.
    for (text, first, then) in [
        (
            "2nd Div: Kirseberg by noon, then attack Hall.",
            "kirseberg",
            order::Action::Attack,
        ),
        (
            "Sauret: Hinzeberg, then hold it.",
            "hinzeberg",
            order::Action::Defend,
        ),
    ] {
        let o = hall(text);
        assert_eq!(
            o.order_type,
            Some(OrderType::Complex),
            "{text}: {}",
            o.readback
        );
        assert_eq!(o.stages.len(), 2, "{text} → {}", o.readback);
        assert_eq!(o.stages[0].steps[0].action, order::Action::Move, "{text}");
        let ids: Vec<&str> = o.stages[0]
            .objectives
            .iter()
            .filter_map(|r| r.resolved.as_ref().map(|x| x.id.as_str()))
            .collect();
        assert_eq!(ids, [first], "{text} → {}", o.readback);
        assert_eq!(o.stages[1].steps[0].action, then, "{text}");
        let again = hall(&o.readback);
        assert_eq!(again.key, o.key, "{text} → {}", o.readback);
    }
}

#[test]
fn the_otherwise_branch_keeps_its_own_places_and_needs_no_warning() {
    // Rule `cond.condition`: "…; otherwise keep your ground" is the other branch. It does not
    // take the place of the branch it replaces (keeping one's ground is no move on Hall, so
    // General, not Engage), and an order that says what to do if its condition fails has the
    // alternative `condition-may-fail` asks for (30.0).
    let o = hall(
        "Sauret: should the enemy abandon Hall, occupy it at once; otherwise keep your ground.",
    );
    assert_eq!(o.stages.len(), 2, "{}", o.key);
    let other = &o.stages[1];
    assert!(other.condition.as_ref().is_some_and(|c| c.is_otherwise()));
    assert!(other.objectives.is_empty(), "{:?}", other.objectives);
    assert_eq!(other.posture, staffwork::rules::Posture::General);
    assert!(
        !o.diagnostics.iter().any(|d| d.code == "condition-may-fail"),
        "{:?}",
        o.diagnostics
    );
    // Without an "otherwise" the condition is still warned about.
    let o = hall("Sauret: should the enemy abandon Hall, occupy it at once.");
    assert!(o.diagnostics.iter().any(|d| d.code == "condition-may-fail"));
}

#[test]
fn common_phrases_of_manner_ground_and_readiness_are_known_words() {
    // Lexicon data (grammar/lexicon.toml): none of these words is an unknown place any more.
    for text in [
        "Lorcet: reoccupy the summit of Hinzeberg tonight, whatever the cost.",
        "2nd Div: follow the 3rd Division at a distance.",
        "4th Div: form behind Hinzeberg and be ready to fill any gap.",
        "3rd Div: march by the Säter road to Kirseberg, avoiding any engagement on the way.",
        "Sauret: hold the walls and ditches of Kümla.",
    ] {
        let o = hall(text);
        assert!(
            !o.diagnostics.iter().any(|d| d.code == "unknown-word"
                || d.code == "unknown-place"
                || d.code == "unstructured-text"),
            "{text}: {:?}",
            o.diagnostics
        );
    }
    // "avoiding any engagement" forbids, it is no stage (rule neg.avoid).
    let o =
        hall("3rd Div: march by the Säter road to Kirseberg, avoiding any engagement on the way.");
    assert_eq!(o.stages.len(), 1, "{}", o.key);
    assert!(
        o.prohibitions.iter().any(|p| p.text.contains("engagement")),
        "{:?}",
        o.prohibitions
    );
    // "All divisions will be in position by noon": an order to deploy, not a report.
    let o = hall("2nd Div: be in position behind Hinzeberg by noon.");
    assert_eq!(o.order_type, Some(OrderType::General), "{}", o.key);
}

#[test]
fn a_demonstrative_points_back_to_the_last_place_of_its_kind() {
    // Rule `pronoun.kind` (grammar/lexicon.toml [kinds]): "that village" is the last village
    // named, not the bridge named after it; "it" still takes the last place of any kind.
    let resolved = |o: &CheckedOrder| -> Vec<Option<String>> {
        o.stages
            .iter()
            .flat_map(|s| &s.objectives)
            .map(|r| r.resolved.as_ref().map(|x| x.id.clone()))
            .collect()
    };
    let o = hall("2nd Div: take Hall, then cross the Mill bridge and hold that village.");
    assert_eq!(
        resolved(&o).last().cloned().flatten().as_deref(),
        Some("hall"),
        "{}",
        o.key
    );
    let o = hall("2nd Div: take Hall, then cross the Mill bridge and hold it.");
    assert_eq!(
        resolved(&o).last().cloned().flatten().as_deref(),
        Some("mill-bridge"),
        "{}",
        o.key
    );
}
