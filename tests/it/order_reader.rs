//! The rebuilt reader (issue 11): signed numbers are not hexes, underlines align under wide
//! characters, and the behaviours of the later slices (negation, signal diagnostics).

use staffwork::order;

fn hall() -> staffwork::scenario::Scenario {
    staffwork::scenario::bundled("tutorial-hall").unwrap()
}

fn codes(o: &order::CheckedOrder) -> Vec<&str> {
    o.diagnostics.iter().map(|d| d.code).collect()
}

#[test]
fn a_negative_hex_is_refused_not_read_as_a_positive_one() {
    // 2.1.1: hex numbers carry no sign; "-5.-5" must not become 5.5.
    for text in ["2nd Div: march to -5.-5.", "2nd Div: march to 29.-17."] {
        let o = order::check_one(text, Some(&hall()), Some("imperial"));
        let d = o
            .diagnostics
            .iter()
            .find(|d| d.code == "not-a-hex")
            .unwrap_or_else(|| panic!("{text}: {:?}", codes(&o)));
        assert_eq!(d.severity, order::Severity::Error);
        assert!(text[d.span.0..d.span.1].contains(".-") || text[d.span.0..].starts_with('-'));
        assert!(!o.readback.contains("5, 5"), "{}", o.readback);
        assert!(o.places.iter().all(|p| p.resolved.is_none()));
    }
    // Without a scenario too.
    let o = order::check_one("2nd Div: march to -5.-5.", None, None);
    assert!(codes(&o).contains(&"not-a-hex"), "{:?}", codes(&o));
}

#[test]
fn underlines_align_under_wide_characters() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_staffwork"))
        .args([
            "check",
            "--scenario",
            "tutorial-hall",
            "--side",
            "imperial",
            "-",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin
                .take()
                .unwrap()
                .write_all("2nd Div: capture 北京 and Kirsebrg from the west.\n".as_bytes())?;
            c.wait_with_output()
        })
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("warning[near-miss]"))
        .unwrap_or_else(|| panic!("{text}"));
    let caret = lines[at + 2];
    // "2nd Div: capture " is 17 cells, 北京 four, " and " five: Kirsebrg starts at cell 26.
    assert_eq!(
        caret,
        format!("        | {}{}", " ".repeat(26), "^".repeat(8)),
        "{text}"
    );
}

fn read(text: &str) -> order::CheckedOrder {
    order::check_one(text, Some(&hall()), Some("imperial"))
}

/// Reading the read-back back in gives the same order (docs/order-language.md §6).
fn round_trips(o: &order::CheckedOrder) {
    let again = read(&o.readback);
    assert_eq!(again.key, o.key, "{} → {}", o.text, o.readback);
}

#[test]
fn negation_is_a_prohibition_never_an_action() {
    // Rule neg.prohibition.
    let o = read("2nd Div: capture Hall from the west; you are not to pursue beyond the stream.");
    assert_eq!(o.order_type, Some(staffwork::rules::OrderType::Engage));
    assert_eq!(o.prohibitions.len(), 1, "{:?}", o.prohibitions);
    assert_eq!(o.prohibitions[0].text, "pursue beyond the stream");
    assert!(o.stages.iter().all(|s| s.action != order::Action::Pursue));
    assert!(
        o.readback.contains("is not to pursue beyond the stream"),
        "{}",
        o.readback
    );
    round_trips(&o);

    for text in [
        "2nd Div: do not engage the enemy.",
        "2nd Div: on no account cross the stream.",
        "2nd Div: you must not attack Hall.",
    ] {
        let o = read(text);
        assert!(o.stages.is_empty(), "{text}: {:?}", o.stages);
        assert_eq!(o.prohibitions.len(), 1, "{text}");
        assert!(o.readback.contains("is not to"), "{}", o.readback);
        assert!(!o.has_errors(), "{text}: {:?}", codes(&o));
        round_trips(&o);
    }
    // "do not engage; hold Kümla": the hold is the order, the engage forbidden.
    let o = read("2nd Div: do not engage; hold Kümla.");
    assert_eq!(o.stages.len(), 1);
    assert_eq!(o.stages[0].action, order::Action::Defend);
    assert_eq!(o.order_type, Some(staffwork::rules::OrderType::General));
}

#[test]
fn ordinary_words_are_not_unknown_places() {
    // diag.unknown-place fires only for a name-like word in an objective or route slot.
    let o = read(
        "2nd Div: hold a good defensive position near Kümla in order to draw the enemy's reserves.",
    );
    assert!(!o.has_errors(), "{:?}", o.diagnostics);
    assert!(codes(&o).contains(&"vague-place"), "{:?}", codes(&o));
    assert!(
        o.intent.as_deref().unwrap_or("").contains("draw"),
        "{:?}",
        o.intent
    );
    let o = read("2nd Div: march to Vimeiro.");
    assert!(codes(&o).contains(&"unknown-place"));
    let o = read("2nd Div: march to the wagons.");
    assert!(
        !o.has_errors() && codes(&o).contains(&"unknown-word"),
        "{:?}",
        codes(&o)
    );
}

#[test]
fn lexicon_verbs_and_idioms_are_read() {
    let o = read("2nd Div: take post in reserve behind Kümla.");
    assert_eq!(o.stages.len(), 1, "{}", o.readback);
    assert_eq!(o.stages[0].action, order::Action::Reserve);
    round_trips(&o);
    let o = read("2nd Div: bivouac at Kümla until further orders.");
    assert_eq!(o.stages.len(), 1, "{}", o.readback);
    assert!(
        o.stages[0].condition.is_none(),
        "a duration is not a condition"
    );
    assert!(!o.has_errors(), "{:?}", codes(&o));
    let o = read("2nd Div: push on to Kümla without loss of time.");
    assert_eq!(o.stages[0].action, order::Action::Move);
    assert!(o.stages[0].timing.is_some(), "{}", o.readback);
    assert!(!o.has_errors(), "{:?}", codes(&o));
}

#[test]
fn a_passive_order_names_its_recipient_after_by() {
    // Rule lead.passive.
    let o = read("Hall is to be taken by the 2nd Division.");
    let r = o.recipient.as_ref().and_then(|r| r.resolved.as_ref());
    assert_eq!(r.map(|r| r.id.as_str()), Some("div-2"), "{:?}", o.recipient);
    assert_eq!(o.stages.len(), 1);
    assert_eq!(o.stages[0].objectives[0].text, "Hall");
    assert_eq!(o.order_type, Some(staffwork::rules::OrderType::Engage));
    assert!(!o.has_errors(), "{:?}", codes(&o));
}

#[test]
fn several_recipients_and_compliments_are_kept() {
    // Rule lead.several.
    let o = read("Morvan and Sauret: attack Hall together from the west.");
    assert!(o.recipient.as_ref().is_some_and(|r| r.resolved.is_some()));
    assert_eq!(o.also.len(), 1, "{:?}", o.also);
    assert!(o.also[0].resolved.is_some(), "{:?}", o.also);
    assert!(!o.has_errors(), "{:?}", codes(&o));
    // Rule lead.compliments.
    let o = read(
        "Marshal Davrange presents his compliments to General Morvan and requests that he will \
         march upon Hall and carry it.",
    );
    let r = o.recipient.as_ref().and_then(|r| r.resolved.as_ref());
    assert_eq!(r.map(|r| r.id.as_str()), Some("div-2"), "{:?}", o.recipient);
}

#[test]
fn a_report_is_no_action_and_gibberish_is_unreadable() {
    // Rule lead.no-action.
    let o = read("The enemy is in force on Hinzeberg.");
    assert!(o.stages.is_empty() && o.order_type.is_none());
    assert!(!o.has_errors(), "{:?}", codes(&o));
    assert!(codes(&o).contains(&"no-action"));
    let o = read("xyzzy plugh");
    assert!(codes(&o).contains(&"unreadable"), "{:?}", codes(&o));
}

#[test]
fn contradictions_and_troop_descriptions_are_flagged() {
    // Rule diag.contradiction.
    for text in [
        "3rd Div: hold Hall and withdraw from Hall.",
        "2nd Div: do not attack Hall, and attack Hall.",
    ] {
        let o = read(text);
        assert!(
            codes(&o).contains(&"contradiction"),
            "{text}: {:?}",
            codes(&o)
        );
    }
    assert!(
        !codes(&read("3rd Div: hold Hall, then withdraw to Kümla.")).contains(&"contradiction")
    );
    // Where a withdrawal goes is no place it leaves: "retire behind Hall and re-form".
    for text in [
        "3rd Div: retire behind Hall and re-form in second line.",
        "3rd Div: fall back on Hall and hold it.",
    ] {
        assert!(!codes(&read(text)).contains(&"contradiction"), "{text}");
    }
    assert!(codes(&read("3rd Div: hold Hall and abandon Hall.")).contains(&"contradiction"));
    // Rule limit.troops (6.4.4): "the enemy wherever found" is no limit.
    let o = read("2nd Div: attack the enemy wherever found.");
    assert!(codes(&o).contains(&"open-ended"), "{:?}", codes(&o));
    let o = read("2nd Div: attack Hall from the west.");
    assert!(!codes(&o).contains(&"open-ended"));
}

#[test]
fn posture_comes_from_the_map_and_an_approach_is_one_stage() {
    use staffwork::rules::OrderType;
    // Rule posture.approach (6.3.3): march upon Hall and carry it = one Engage stage.
    let o = read("2nd Div: march upon Kümla and carry it.");
    assert_eq!(o.order_type, Some(OrderType::Engage), "{}", o.readback);
    assert_eq!(o.stages.len(), 1);
    // Rule posture.map (6.3.1): the Allies hold Hall at the start; marching on it is Engage.
    let o = read("2nd Div: march to Hall by the Säter road.");
    assert_eq!(o.order_type, Some(OrderType::Engage), "{}", o.readback);
    let o = read("2nd Div: march to Kümla by the Säter road.");
    assert_eq!(o.order_type, Some(OrderType::General), "{}", o.readback);
    // Rule cond.duration: "until the 3rd Division comes up" is no condition.
    let o = read("2nd Div: hold Kümla until the 3rd Division comes up.");
    assert_eq!(o.order_type, Some(OrderType::General), "{}", o.readback);
}

#[test]
fn check_explain_prints_tokens_tags_and_rules() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_staffwork"))
        .args([
            "check",
            "--scenario",
            "tutorial-hall",
            "--side",
            "imperial",
            "--explain",
            "-",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin
                .take()
                .unwrap()
                .write_all(b"2nd Div: march upon Hall and carry it; do not pursue.\n")?;
            c.wait_with_output()
        })
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("  tokens:"), "{text}");
    assert!(
        text.contains("verb:attack") && text.contains("negate"),
        "{text}"
    );
    assert!(
        text.contains("rules: ") && text.contains("neg.prohibition"),
        "{text}"
    );
    assert!(text.contains("posture.approach"), "{text}");
    assert!(text.contains("order 1 (line 1): Engage"), "{text}");
}

#[test]
fn a_verbless_sentence_names_the_next_objective_and_it_finds_its_place() {
    // Rule verbless.objective.
    let o = read("2nd Div: Kümla. Hold.");
    assert_eq!(o.stages.len(), 1, "{}", o.readback);
    assert_eq!(o.stages[0].objectives[0].text, "Kümla");
    assert!(!o.has_errors(), "{:?}", codes(&o));
    round_trips(&o);
    // Rule pronoun.antecedent.
    let o = read("4th Div: Kümla. Hold it.");
    let it = &o.stages[0].objectives[0];
    assert_eq!(
        it.resolved.as_ref().map(|r| r.id.as_str()),
        Some("kumla"),
        "{it:?}"
    );
    round_trips(&o);
}

#[test]
fn times_in_the_forms_officers_write_them() {
    use staffwork::rules::OrderType;
    // 30.0: a start time makes the order conditional (Complex), a deadline does not.
    for text in [
        "2nd Div: Kümla, 0600. Hold.",
        "2nd Div: at 10.30 a.m. march to Kümla.",
        "2nd Div: march to Kümla at 09:30 and arrive by noon.",
        "2nd Div: march to Kümla at daylight.",
    ] {
        let o = read(text);
        assert_eq!(
            o.order_type,
            Some(OrderType::Complex),
            "{text}: {}",
            o.readback
        );
        assert!(o.stages[0].timing.is_some(), "{text}");
    }
    let o = read("2nd Div: march to Kümla at 10.30 a.m.");
    let t = o.stages[0].timing.as_ref().unwrap();
    assert_eq!(t.time.as_deref(), Some("10:30"));
    // A year is no time: the date is one day of starting, never the clock 18:14.
    let o = read("2nd Div: on the 14th of May 1814 march to Kümla.");
    let times: Vec<_> = o.stages.iter().filter_map(|s| s.timing.as_ref()).collect();
    assert!(
        times
            .iter()
            .all(|t| t.time.as_deref() == Some("on the 14th of may 1814")),
        "{}",
        o.readback
    );
}

#[test]
fn a_surname_or_a_possessive_names_the_command() {
    let s = staffwork::scenario::bundled("talavera-1809").unwrap();
    let o = order::check_one(
        "Merlin's lancers: charge the British cavalry in the valley.",
        Some(&s),
        Some("french"),
    );
    let r = o.recipient.as_ref().and_then(|r| r.resolved.as_ref());
    assert_eq!(
        r.map(|r| r.id.as_str()),
        Some("merlin-cav-iv"),
        "{:?}",
        o.recipient
    );
    // The read-back names a recipient that reads back to the same command.
    let again = order::check_one(&o.readback, Some(&s), Some("french"));
    assert_eq!(again.key, o.key, "{}", o.readback);
}

#[test]
fn a_third_person_lead_after_a_timing_names_the_recipient() {
    // Rule lead.third-person.
    let o = read("On receipt of this, the 3rd Division will withdraw from Hinzeberg to Kümla.");
    let r = o.recipient.as_ref().and_then(|r| r.resolved.as_ref());
    assert_eq!(r.map(|r| r.id.as_str()), Some("div-3"), "{:?}", o.recipient);
    assert!(!o.has_errors(), "{:?}", codes(&o));
}

#[test]
fn verbs_are_read_by_their_objects_and_the_map() {
    use staffwork::rules::OrderType;
    let vim = staffwork::scenario::bundled("vimeiro-1808").unwrap();
    let ty = |text: &str| order::check_one(text, Some(&vim), Some("french")).order_type;
    // verb.follow-own: following one's own troops is moving behind them; the enemy is pursued.
    assert_eq!(
        ty("Solignac: follow Loison's division to Ventosa."),
        Some(OrderType::General)
    );
    assert_eq!(
        ty("Solignac: follow the enemy to Ventosa."),
        Some(OrderType::Engage)
    );
    // verb.take-position: taking up a position deploys; taking a place captures it.
    assert_eq!(
        ty("DeLaborde: take up a defensive position on the eastern heights."),
        Some(OrderType::General)
    );
    assert_eq!(ty("DeLaborde: take Ventosa."), Some(OrderType::Engage));
    // An -ing form of an attack verb makes the purpose an attack (order-language §1.7).
    assert_eq!(
        ty(
            "DeLaborde: march by the Ventosa road with the object of falling on the English left at Vimeiro."
        ),
        Some(OrderType::Engage)
    );
    // posture.map: a hill is held by the troops on its slopes (6.3.1); a patrol towards it
    // engages.
    assert_eq!(
        ty("26th Chasseurs: scout towards Vimeiro Hill."),
        Some(OrderType::Engage)
    );
    assert_eq!(
        ty("26th Chasseurs: scout towards Ventosa."),
        Some(OrderType::General)
    );
    // Round trip of the rewritten verbs.
    for text in [
        "Solignac: follow Loison's division to Ventosa.",
        "DeLaborde: take up a defensive position on the eastern heights.",
    ] {
        let o = order::check_one(text, Some(&vim), Some("french"));
        let again = order::check_one(&o.readback, Some(&vim), Some("french"));
        assert_eq!(again.key, o.key, "{}", o.readback);
    }
}

#[test]
fn a_lone_not_forbids_and_a_regiment_number_is_one_word() {
    let vim = staffwork::scenario::bundled("vimeiro-1808").unwrap();
    // "not allow the enemy to pass it": "allow" is a verb of the lexicon that is no stage, and
    // what follows "not" is forbidden.
    let o = order::check_one(
        "Thomières: hold Ventosa and not allow the enemy to pass it.",
        Some(&vim),
        Some("french"),
    );
    assert_eq!(o.prohibitions.len(), 1, "{}", o.readback);
    assert!(
        o.prohibitions[0].text.starts_with("allow"),
        "{:?}",
        o.prohibitions
    );
    let again = order::check_one(&o.readback, Some(&vim), Some("french"));
    assert_eq!(again.key, o.key, "{}", o.readback);
    // "3/66th" is one word: the read-back names the battalion and reads back to it.
    let o = order::check_one(
        "3/66th: guard the baggage at 38.12.",
        Some(&vim),
        Some("french"),
    );
    let again = order::check_one(&o.readback, Some(&vim), Some("french"));
    assert_eq!(again.key, o.key, "{}", o.readback);
}

#[test]
fn a_march_along_a_route_and_an_attack_are_one_engage_stage() {
    use staffwork::rules::OrderType;
    let tal = staffwork::scenario::bundled("talavera-1809").unwrap();
    // posture.approach: the march has only a route, the attack follows with "and".
    let o = order::check_one(
        "Ruffin: march by the valley and fall upon Casa de Valdefuentes.",
        Some(&tal),
        Some("french"),
    );
    assert_eq!(o.order_type, Some(OrderType::Engage), "{}", o.readback);
    assert_eq!(o.stages.len(), 1);
}

/// Reading the read-back of an order without a scenario gives the same order.
fn round_trips_bare(text: &str) -> order::CheckedOrder {
    let o = order::check_one(text, None, None);
    let again = order::check_one(&o.readback, None, None);
    assert_eq!(again.key, o.key, "{text} → {}", o.readback);
    o
}

#[test]
fn long_letters_read_back_to_the_same_order() {
    // Each sentence is one kind of failure found in the corpus's long real letters (issue 11:
    // round trip 100 %).
    // readback.duration-last: "till …" read back before a place would swallow it.
    let o = round_trips_bare("General Hill: till the last moment, march upon Lobon.");
    assert!(o.readback.contains("upon Lobon till"), "{}", o.readback);
    // neg.until: how long a prohibition lasts is part of it, not the next stage's duration.
    let o =
        round_trips_bare("General Hill: do not fire till the last moment, and march upon Lobon.");
    assert!(
        o.readback.contains("not to fire till the last moment"),
        "{}",
        o.readback
    );
    // readback.or-after-condition: a condition read back after its stage would take the "or"
    // of the alternative with it, and the two stages would become one.
    let o = round_trips_bare(
        "General Pack: should the enemy be at Toro, remain on the Douro, or march to Zamora.",
    );
    assert_eq!(o.stages.len(), 2, "{}", o.readback);
    // A second negator starts a prohibition of its own (neg.prohibition).
    let o = round_trips_bare(
        "General Hill: you are not to cross the Guadiana, and are not to destroy the bridge.",
    );
    let forbidden: Vec<&str> = o.prohibitions.iter().map(|p| p.text.as_str()).collect();
    assert_eq!(forbidden, ["cross the Guadiana", "destroy the bridge"]);
    // A name cut before a verb form keeps no dangling "of" ("a fair opportunity of").
    round_trips_bare(
        "General Hill: hasten up your division; there is a fair opportunity of destroying a French corps at Arroyo.",
    );
    // verb.follow-own: an adverb between "follow" and its object does not make it a pursuit.
    let o = round_trips_bare("The cavalry will follow closely the 4th Division.");
    assert_eq!(
        o.order_type,
        Some(staffwork::rules::OrderType::General),
        "{}",
        o.readback
    );
}

/// The token tags cost time on every order, so a check keeps them only when the explanation
/// is asked for (`Options::explain`, `check --explain`; issue 11, reader speed).
#[test]
fn token_tags_are_kept_only_when_explain_is_asked() {
    let s = staffwork::scenario::bundled("tutorial-hall").unwrap();
    let text = "2nd Div: march upon Hall and carry it; do not pursue.";
    let tags = |explain: bool| {
        let opts = staffwork::order::Options {
            scenario: Some(&s),
            side: Some("imperial"),
            now: None,
            explain,
        };
        let o = staffwork::order::check_each(text, opts).next().unwrap();
        (o.tags.len(), o.readback)
    };
    let (with, readback_with) = tags(true);
    let (without, readback_without) = tags(false);
    assert!(with > 5, "{with} tags with explain");
    assert_eq!(without, 0, "no tags without explain");
    assert_eq!(
        readback_with, readback_without,
        "the reading is the same either way"
    );
}
