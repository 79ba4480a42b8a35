//! Clauses and idioms the reader used to misread (issue 11, the reader9 list): a "before …"
//! clause, a conditional attack on what its condition names, a pronoun after a verbless place,
//! an object inside a verb idiom, "round by", a troop noun that is also a verb form, passives with
//! two participles, conditional prohibitions, "nor is … to", a negation inside a relative clause.
//! The sentences are not those of the issue or of the corpus: the rules must be general.

use staffwork::order::{self, Action, CheckedOrder, Severity};
use staffwork::rules::OrderType;

fn hall(text: &str) -> CheckedOrder {
    let s = staffwork::scenario::bundled("tutorial-hall").unwrap();
    order::check_one(text, Some(&s), Some("imperial"))
}

fn bare(text: &str) -> CheckedOrder {
    order::check_one(text, None, None)
}

fn reread(o: &CheckedOrder, scenario: bool) {
    let again = if scenario {
        hall(&o.readback)
    } else {
        bare(&o.readback)
    };
    assert_eq!(
        again.key, o.key,
        "read-back {:?} re-reads differently",
        o.readback
    );
}

fn actions(o: &CheckedOrder) -> Vec<Action> {
    o.stages
        .iter()
        .flat_map(|s| s.steps.iter().map(|x| x.action))
        .collect()
}

#[test]
fn a_before_clause_is_a_deadline_not_a_stage_for_its_subject() {
    // Rule `cond.before` (30.0: a deadline is no condition): the clause's verb is never a stage.
    for (text, want) in [
        (
            "3rd Div: occupy Kirseberg before the allied hussars can cross the stream.",
            OrderType::General,
        ),
        (
            "2nd Div: carry Hall before its garrison is reinforced.",
            OrderType::Engage,
        ),
        (
            "General Hill: cross the Tagus at Almaraz before the French arrive.",
            OrderType::General,
        ),
    ] {
        let o = if text.starts_with("General Hill") {
            bare(text)
        } else {
            hall(text)
        };
        assert_eq!(o.order_type, Some(want), "{text}: {}", o.readback);
        assert_eq!(o.stages.len(), 1, "{text}: {}", o.readback);
        assert!(o.remarks.is_empty(), "{text}: {:?}", o.remarks);
        assert!(o.readback.contains("before"), "{}", o.readback);
        assert!(!o.has_errors(), "{text}: {:?}", o.diagnostics);
        reread(&o, !text.starts_with("General Hill"));
    }
    // "before 0900" stays the grammar's deadline, "before Badajoz" no clause.
    let o = hall("4th Div: march to Kümla before 0900.");
    assert_eq!(o.order_type, Some(OrderType::General), "{}", o.readback);
    assert!(!o.rules.iter().any(|r| r == "cond.before"), "{:?}", o.rules);
}

#[test]
fn a_modal_in_a_condition_keeps_the_verb_after_it_in_the_condition() {
    // Rule `cond.modal`: "until the allied hussars can reach Säter" is how long, not an action.
    let o = hall("3rd Div: hold Kümla until the allied hussars can reach Säter.");
    assert_eq!(actions(&o), vec![Action::Defend], "{}", o.readback);
    assert_eq!(o.order_type, Some(OrderType::General), "{}", o.readback);
    let o = bare("General Graham: attack at dawn should the French not have crossed the Douro.");
    assert_eq!(actions(&o), vec![Action::Attack], "{}", o.readback);
}

#[test]
fn a_conditional_attack_on_troops_named_in_its_condition_is_no_error() {
    // Rule `limit.condition` (6.4.4, 30.0): the condition names what is attacked.
    for text in [
        "Cav-I: charge the moment the allied hussars break.",
        "2nd Div: attack if the Allied hussar brigade falls back.",
        "Lefebvre-Desnouettes: charge should the Spanish infantry waver.",
    ] {
        let o = if text.starts_with("Lefebvre") {
            bare(text)
        } else {
            hall(text)
        };
        assert!(
            !o.diagnostics
                .iter()
                .any(|d| d.code == "open-ended" && d.severity == Severity::Error),
            "{text}: {:?}",
            o.diagnostics
        );
        assert_eq!(o.order_type, Some(OrderType::Complex), "{text}");
    }
    // With no condition the same verb is still open-ended (6.4.4).
    let o = bare("Lefebvre-Desnouettes: charge!");
    assert!(
        o.diagnostics.iter().any(|d| d.code == "open-ended"),
        "{:?}",
        o.diagnostics
    );
}

#[test]
fn a_pronoun_after_a_verbless_place_reads_back_as_that_place() {
    // Rule `verbless.pronoun`: without a scenario the read-back must still say where.
    let o = bare("General Hill: Almaraz. Take it.");
    assert!(o.readback.contains("take Almaraz"), "{}", o.readback);
    assert_eq!(o.stages[0].objectives[0].text, "Almaraz");
    reread(&o, false);
    let o = hall("3rd Div: Hinzeberg. Occupy it at once.");
    assert!(o.readback.contains("occupy Hinzeberg"), "{}", o.readback);
    let r = o.stages[0].objectives[0]
        .resolved
        .as_ref()
        .map(|r| r.id.as_str());
    assert_eq!(r, Some("hinzeberg"));
    reread(&o, true);
}

#[test]
fn an_object_inside_a_verb_idiom_is_the_object_of_that_idiom() {
    // Rule `verb.split-object`: "keep your cavalry in hand" is the lexicon's "keep in hand".
    for text in [
        "General Hill: keep your cavalry well in hand.",
        "Cav-I: keep the hussars in hand behind Kümla.",
    ] {
        let o = if text.starts_with("Cav") {
            hall(text)
        } else {
            bare(text)
        };
        assert_eq!(actions(&o), vec![Action::Reserve], "{text}: {}", o.readback);
        assert!(o.readback.contains("in hand"), "{}", o.readback);
        assert!(
            !o.places.iter().any(|p| p.text == "hand"),
            "{text}: {:?}",
            o.places
        );
        assert!(o.remarks.is_empty(), "{text}: {:?}", o.remarks);
    }
}

#[test]
fn round_by_is_a_route_and_the_troops_taken_round_are_moved() {
    // Rule `route.round` and `verb.bring`: no attack on one's own division, no remark.
    let o = bare("General Hill: take your brigades round by Merida.");
    assert_eq!(o.order_type, Some(OrderType::General), "{}", o.readback);
    assert_eq!(o.stages[0].route[0].text, "Merida");
    assert!(o.remarks.is_empty(), "{:?}", o.remarks);
    let o = hall("3rd Div: go round by the Säter road.");
    assert_eq!(o.stages[0].route.len(), 1, "{}", o.readback);
    assert!(o.remarks.is_empty(), "{:?}", o.remarks);
}

#[test]
fn a_troop_noun_after_a_possessive_or_an_object_is_no_verb() {
    // Rule `verb.possessed`: "posts", "guards" are troops here, not "post" / "guard".
    for text in [
        "Cav-I: drive in the enemy's posts beyond the stream.",
        "General Hill: drive back the French posts on the Tagus.",
    ] {
        let o = if text.starts_with("Cav") {
            hall(text)
        } else {
            bare(text)
        };
        assert_eq!(actions(&o), vec![Action::Attack], "{text}: {}", o.readback);
        assert!(o.readback.contains("posts"), "{}", o.readback);
        assert!(o.remarks.is_empty(), "{text}: {:?}", o.remarks);
    }
}

#[test]
fn a_passive_with_two_participles_keeps_both() {
    // Rule `lead.passive-and`.
    let o = bare("The baggage is to be loaded and sent back to Abrantes.");
    assert_eq!(o.order_type, Some(OrderType::General), "{}", o.readback);
    assert_eq!(o.stages[0].objectives[0].text, "Abrantes");
    assert_eq!(
        o.recipient.as_ref().map(|r| r.text.as_str()),
        Some("baggage")
    );
    let o = hall("Kümla is to be occupied and held by the 3rd Division.");
    assert_eq!(actions(&o), vec![Action::Defend], "{}", o.readback);
    let o = hall("Hall is to be taken and held by the 2nd Division.");
    assert_eq!(o.order_type, Some(OrderType::Complex), "{}", o.readback);
    assert_eq!(actions(&o), vec![Action::Attack, Action::Defend]);
}

#[test]
fn a_condition_before_a_prohibition_governs_it() {
    // Rule `neg.condition` and `lead.sender-turn`.
    let o = bare(
        "I shall try to join you at Coria, but if the roads are impassable do not wait for me.",
    );
    assert_eq!(o.prohibitions.len(), 1, "{}", o.readback);
    assert_eq!(o.prohibitions[0].text, "wait for me");
    assert!(o.prohibitions[0].condition.is_some());
    assert!(
        o.readback.starts_with("If the roads are impassable"),
        "{}",
        o.readback
    );
    assert!(o.stages.is_empty());
    let o = hall("2nd Div: if the allied hussars appear, do not pursue them beyond the stream.");
    assert!(
        o.prohibitions[0].condition.is_some(),
        "{:?}",
        o.prohibitions
    );
}

#[test]
fn nor_is_to_forbids_and_a_relative_not_describes() {
    // Rule `neg.nor`.
    let o = bare(
        "The men are to remain in their ranks; nor is any officer, on any pretence, to quit his company.",
    );
    assert!(
        o.prohibitions
            .iter()
            .any(|p| p.text.starts_with("quit his company")),
        "{:?}",
        o.prohibitions
    );
    // The "to" of a place written inside the subject ("sent to Säter") is not the link: the
    // written case decides, so the prohibition is the crossing and Säter is held by nobody.
    let o = hall("2nd Div: hold Kümla; nor is the detachment sent to Säter to cross the stream.");
    assert_eq!(o.prohibitions.len(), 1, "{:?}", o.prohibitions);
    assert!(
        o.prohibitions[0].text.starts_with("cross the stream"),
        "{:?}",
        o.prohibitions
    );
    assert_eq!(o.stages.len(), 1, "{}", o.readback);
    assert_eq!(o.stages[0].objectives.len(), 1, "{}", o.readback);
    assert_eq!(o.stages[0].objectives[0].text, "Kümla", "{}", o.readback);
    // Rule `neg.relative`: the whole phrase is forbidden, not cut at the second "not".
    let o =
        bare("General Hill: you are not to fight on ground which does not favour your cavalry.");
    assert_eq!(o.prohibitions.len(), 1, "{:?}", o.prohibitions);
    assert!(
        o.prohibitions[0].text.ends_with("favour your cavalry"),
        "{:?}",
        o.prohibitions
    );
}

#[test]
fn should_and_a_name_open_a_condition() {
    // Rule `cond.should-name` (30.0): no remark "should", no march of Soult.
    let o = bare("General Hill: should Drouet cross the Guadiana, retire upon Portalegre.");
    assert_eq!(o.order_type, Some(OrderType::Complex), "{}", o.readback);
    assert_eq!(actions(&o), vec![Action::Withdraw], "{}", o.readback);
    assert!(o.stages[0].condition.is_some());
    assert!(o.remarks.is_empty(), "{:?}", o.remarks);
    reread(&o, false);
}

#[test]
fn a_later_day_after_a_name_is_a_start_time() {
    // Rule `time.day-word`: "to-morrow" at the end is when to start (Complex, 30.0).
    for text in [
        "Marshal Lannes: cross the Saale at Jena to-morrow.",
        "General Hill: march on Merida tonight.",
    ] {
        let o = bare(text);
        assert_eq!(
            o.order_type,
            Some(OrderType::Complex),
            "{text}: {}",
            o.readback
        );
        assert!(o.remarks.is_empty(), "{text}: {:?}", o.remarks);
        reread(&o, false);
    }
}

#[test]
fn a_verbless_place_with_a_time_is_a_march_when_the_action_has_its_own_place() {
    // Rule `verbless.march-time`: "Hinzeberg road, 0800." then an action elsewhere.
    let o = hall("3rd Div: Hinzeberg road, 0800. Push on to Kirseberg and hold the bridge.");
    assert_eq!(o.order_type, Some(OrderType::Complex), "{}", o.readback);
    assert_eq!(o.stages.len(), 2, "{}", o.readback);
    assert_eq!(o.stages[0].action, Action::Move);
    reread(&o, true);
    // A pronoun still takes the verbless place: one stage.
    let o = hall("3rd Div: Kirseberg by 0900. Hold it.");
    assert_eq!(o.order_type, Some(OrderType::General), "{}", o.readback);
}

#[test]
fn a_place_alone_after_then_is_the_next_march() {
    // Rule `verbless.then` (6.3.3: a sequence is Complex).
    let o = hall("4th Div: hold Hinzeberg till noon, then Kümla.");
    assert_eq!(o.order_type, Some(OrderType::Complex), "{}", o.readback);
    assert_eq!(
        actions(&o),
        vec![Action::Defend, Action::Move],
        "{}",
        o.readback
    );
    reread(&o, true);
    // A scenario alias in lower case ("the bridge") is a place too; troops never are.
    let o = hall("3rd Div: Kirseberg by noon, then the bridge.");
    assert_eq!(
        actions(&o),
        vec![Action::Move, Action::Move],
        "{}",
        o.readback
    );
    let last = &o.stages[1].objectives[0];
    assert_eq!(
        last.resolved.as_ref().map(|r| r.id.as_str()),
        Some("kirseberg-bridge")
    );
    let o = hall("2nd Div: attack Hall, then the enemy.");
    assert_eq!(actions(&o), vec![Action::Attack], "{}", o.readback);
}

#[test]
fn pass_is_a_crossing_but_a_named_pass_is_a_place() {
    let o = bare("The Guard will pass the Elbe at Dresden.");
    assert_eq!(actions(&o), vec![Action::Cross], "{}", o.readback);
    let o = bare("General Graham: march upon Tolosa by the Velate pass.");
    assert!(
        o.places.iter().any(|p| p.text == "Velate pass"),
        "{:?}",
        o.places
    );
    assert_eq!(actions(&o), vec![Action::Move], "{}", o.readback);
}

#[test]
fn a_courtesy_to_you_addresses_the_letter_s_recipient() {
    // "request that you will" is a courtesy, and "you" in it is the addressee: at most an
    // implicit-recipient warning, never a no-recipient error.
    let o = hall("Sir, I have the honour to request that you will hold Kirseberg until dusk.");
    assert!(!o.has_errors(), "{:?}", o.diagnostics);
    assert!(o.diagnostics.iter().any(|d| d.code == "implicit-recipient"));
    assert!(o.remarks.is_empty(), "{:?}", o.remarks);
    assert_eq!(actions(&o), vec![Action::Defend]);
}
