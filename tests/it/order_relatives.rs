//! The reader10 rules (issue 11): relative clauses on an object, the authority after "I am
//! directed by", passive and noun prohibitions, "unless" in a prohibition, "round by" with a
//! command as object and "before" a place. Every sentence here is of the shape the rule reads
//! but none is the example it was written for, so each test shows the rule is general.

use staffwork::order::{self, CheckedOrder, Form};
use staffwork::rules::OrderType;

fn hall(text: &str) -> CheckedOrder {
    let s = staffwork::scenario::bundled("tutorial-hall").unwrap();
    order::check_one(text, Some(&s), Some("imperial"))
}

fn bare(text: &str) -> CheckedOrder {
    order::check_one(text, None, None)
}

fn place_ids(o: &CheckedOrder) -> Vec<String> {
    o.places
        .iter()
        .map(|p| p.resolved.as_ref().map_or(p.text.clone(), |r| r.id.clone()))
        .collect()
}

fn round_trips(o: &CheckedOrder, again: CheckedOrder) {
    assert_eq!(again.key, o.key, "{} → {}", o.text, o.readback);
}

#[test]
fn a_relative_clause_on_the_object_is_a_condition_not_a_stage() {
    // 30.0: "fire on whatever crosses" waits for the crossing; the clause's verb is no stage
    // of the recipient, and its place stays a place of the order.
    for (text, place) in [
        (
            "Cav-I: charge any squadrons that come over the Mill bridge.",
            "mill-bridge",
        ),
        (
            "I Corps Arty: fire on whatever comes down the Säter road.",
            "sater-road",
        ),
        (
            "2nd Div: attack any battalions which attempt to cross the Viskan.",
            "viskan",
        ),
        (
            "Cav-I: fall upon anything that debouches from Kirseberg.",
            "kirseberg",
        ),
    ] {
        let o = hall(text);
        assert_eq!(o.stages.len(), 1, "{text}: {}", o.key);
        assert!(o.stages[0].condition.is_some(), "{text}: {}", o.key);
        assert_eq!(o.order_type, Some(OrderType::Complex), "{text}: {}", o.key);
        assert!(
            place_ids(&o).contains(&place.to_string()),
            "{text}: {:?}",
            o.places
        );
        assert!(
            o.stages[0].objectives.iter().all(|r| r.resolved.is_none()),
            "{text}"
        );
        assert!(
            o.rules.iter().any(|r| r == "clause.relative"),
            "{text}: {:?}",
            o.rules
        );
        assert!(!o.has_errors(), "{text}: {:?}", o.diagnostics);
        assert!(o.remarks.is_empty(), "{text}: {:?}", o.remarks);
        round_trips(&o, hall(&o.readback));
    }
}

#[test]
fn a_relative_clause_of_state_places_the_troops() {
    // "the hussars who hold Säter" are at Säter: the place is the attack's objective (6.3.1),
    // no condition, no second stage for "hold".
    let o = hall("Cav-I: attack the hussars who hold Säter.");
    assert_eq!(o.order_type, Some(OrderType::Engage), "{}", o.key);
    assert_eq!(o.stages.len(), 1, "{}", o.key);
    assert!(o.stages[0].condition.is_none(), "{}", o.key);
    assert_eq!(place_ids(&o), ["sater"]);
    round_trips(&o, hall(&o.readback));
}

#[test]
fn a_relative_clause_without_a_scenario_keeps_its_place() {
    let o = bare("General Cotton: charge any French cavalry that ventures beyond the Tormes.");
    assert_eq!(o.order_type, Some(OrderType::Complex), "{}", o.key);
    assert_eq!(o.stages.len(), 1, "{}", o.key);
    assert_eq!(place_ids(&o), ["Tormes"]);
    round_trips(&o, bare(&o.readback));
}

#[test]
fn the_authority_after_i_am_directed_by_is_no_route() {
    for text in [
        "Sir, I am directed by the Marshal Prince of Eckmühl to request that you will march upon Ratisbon.",
        "I am commanded by His Majesty to desire that you will march upon Ratisbon.",
        "General Morand, I am directed by the Duke to request that you will march upon Ratisbon.",
    ] {
        let o = bare(text);
        assert_eq!(o.stages.len(), 1, "{text}: {}", o.key);
        let st = &o.stages[0];
        assert!(st.route.is_empty(), "{text}: route {:?}", st.route);
        assert_eq!(place_ids(&o), ["Ratisbon"], "{text}");
        assert!(
            o.readback.to_lowercase().contains("march upon ratisbon"),
            "{}",
            o.readback
        );
        assert!(!o.readback.contains("via"), "{}", o.readback);
        assert!(o.remarks.is_empty(), "{text}: {:?}", o.remarks);
        round_trips(&o, bare(&o.readback));
    }
}

#[test]
fn a_passive_prohibition_after_an_order_forbids_its_verb_on_its_subject() {
    let o = hall("3rd Div: hold Kümla, and the Mill bridge is not to be destroyed.");
    assert_eq!(o.stages.len(), 1, "{}", o.key);
    assert_eq!(o.stages[0].objectives.len(), 1, "{}", o.key);
    assert_eq!(o.prohibitions.len(), 1, "{}", o.key);
    assert_eq!(o.prohibitions[0].text, "destroy the Mill bridge");
    assert_eq!(place_ids(&o), ["kumla", "mill-bridge"]);
    assert!(o.readback.contains("is not to destroy"), "{}", o.readback);
    round_trips(&o, hall(&o.readback));

    let o = bare("General Craufurd: hold the Coa; the bridge at Almeida will not be abandoned.");
    assert_eq!(o.prohibitions.len(), 1, "{}", o.key);
    assert_eq!(o.prohibitions[0].text, "abandon the bridge at Almeida");
    assert_eq!(o.stages[0].objectives.len(), 1, "{}", o.key);
    round_trips(&o, bare(&o.readback));
}

#[test]
fn no_and_an_action_noun_in_a_passive_is_a_prohibition() {
    for (text, want) in [
        ("4th Div: no retreat is to be attempted.", "retreat"),
        (
            "Cav-I: no movement will be made before noon.",
            "movement before noon",
        ),
        (
            "General Hill: no passage of the Tagus is to be attempted.",
            "passage of the Tagus",
        ),
    ] {
        let o = hall(text);
        assert!(o.stages.is_empty(), "{text}: {}", o.key);
        assert_eq!(o.prohibitions.len(), 1, "{text}: {}", o.key);
        assert_eq!(o.prohibitions[0].text, want, "{text}");
        // An order that only forbids is General (decision 0177, 6.3.2).
        assert_eq!(o.order_type, Some(OrderType::General), "{text}");
        assert!(
            o.diagnostics.iter().all(|d| d.code != "no-action"),
            "{text}"
        );
        round_trips(&o, hall(&o.readback));
    }
}

#[test]
fn unless_in_a_prohibition_is_its_exception_read_back_with_it() {
    let o = hall("Cav-I: do not pursue unless the allied hussars break.");
    assert!(o.stages.is_empty(), "{}", o.key);
    assert_eq!(o.prohibitions.len(), 1, "{}", o.key);
    assert_eq!(
        o.prohibitions[0].text,
        "pursue unless the allied hussars break"
    );
    assert!(
        o.readback
            .contains("is not to pursue unless the allied hussars break"),
        "{}",
        o.readback
    );
    round_trips(&o, hall(&o.readback));
    // After an action it is still the prohibition's, not a condition of the action.
    let o = hall("2nd Div: hold Hinzeberg but never advance unless ordered.");
    assert_eq!(o.stages.len(), 1, "{}", o.key);
    assert!(o.stages[0].condition.is_none(), "{}", o.key);
    assert_eq!(o.order_type, Some(OrderType::General), "{}", o.key);
    assert_eq!(o.prohibitions[0].text, "advance unless ordered");
    round_trips(&o, hall(&o.readback));
}

#[test]
fn take_a_command_round_by_a_place_moves_it() {
    for text in [
        "General Beresford: take the 4th Division round by Albuera.",
        "Marshal Soult: carry the 5th Corps by the Merida road to Almendralejo.",
        "General Graham: take the Guards brigade round by Vera.",
    ] {
        let o = bare(text);
        assert_eq!(o.order_type, Some(OrderType::General), "{text}: {}", o.key);
        assert!(
            o.rules.iter().any(|r| r == "verb.bring"),
            "{text}: {:?}",
            o.rules
        );
        round_trips(&o, bare(&o.readback));
    }
    // The enemy is still taken.
    let o = bare("General Graham: take the enemy's guns by the Vera road.");
    assert_eq!(o.order_type, Some(OrderType::Engage), "{}", o.key);
}

#[test]
fn before_a_place_is_in_front_of_it_not_a_time() {
    for (text, place) in [
        ("3rd Div: deploy before Kümla.", "kumla"),
        ("4th Div: form line before Hinzeberg.", "hinzeberg"),
    ] {
        let o = hall(text);
        assert_eq!(o.stages.len(), 1, "{text}: {}", o.key);
        let st = &o.stages[0];
        assert!(st.timing.is_none(), "{text}: {:?}", st.timing);
        assert_eq!(place_ids(&o), [place], "{text}");
        assert_eq!(
            st.objectives[0].relation.as_deref(),
            Some("in front of"),
            "{text}"
        );
        assert!(o.remarks.is_empty(), "{text}: {:?}", o.remarks);
        round_trips(&o, hall(&o.readback));
    }
    let o = bare("General Picton: assemble the 3rd Division before Ciudad Rodrigo.");
    assert_eq!(o.stages[0].objectives.last().unwrap().form, Form::Name);
    assert_eq!(place_ids(&o), ["Ciudad Rodrigo"]);
    // "before noon" is still a deadline, "before the enemy can …" still a clause.
    let o = hall("3rd Div: occupy Kümla before noon.");
    assert!(o.stages[0].timing.is_some(), "{}", o.key);
}

#[test]
fn players_abbreviations_are_verbs_and_troops_not_places() {
    // "atk", "adv" are verbs; "Arty", "Inf", "sqns", "btn", "HA" are troops, never places.
    let o = hall("3 Div: adv to Kümla, Arty behind the Inf.");
    assert_eq!(o.order_type, Some(OrderType::General), "{}", o.key);
    assert_eq!(place_ids(&o), ["kumla"]);
    assert!(!o.has_errors(), "{:?}", o.diagnostics);
    let o = hall("Cav-I: atk the hussars at Säter with 3 sqns and the HA.");
    assert_eq!(o.order_type, Some(OrderType::Engage), "{}", o.key);
    assert_eq!(place_ids(&o), ["sater"]);
    assert!(!o.has_errors(), "{:?}", o.diagnostics);
    round_trips(&o, hall(&o.readback));
}

#[test]
fn fm_and_a_compass_letter_is_a_direction() {
    let o = hall("4 Div: atk Kirseberg fm the NE.");
    let d = o.stages[0].direction.as_ref().expect("a direction");
    assert!(d.from, "{}", o.key);
    assert_eq!(d.compass.as_deref(), Some("north-east"));
    assert_eq!(place_ids(&o), ["kirseberg"]);
    assert!(!o.has_errors(), "{:?}", o.diagnostics);
    round_trips(&o, hall(&o.readback));
}

#[test]
fn in_a_span_of_time_is_a_start_time() {
    // 30.0: an order to act later is conditional on the time: Complex.
    for text in [
        "3rd Div: in 15 minutes advance to Kirseberg.",
        "Cav-I: cross the Mill bridge in half an hour.",
        "4 Div: wdr to Kümla in 10 mins.",
    ] {
        let o = hall(text);
        assert_eq!(o.order_type, Some(OrderType::Complex), "{text}: {}", o.key);
        assert!(
            o.stages[0].timing.as_ref().is_some_and(|t| t.is_start()),
            "{text}: {:?}",
            o.stages[0].timing
        );
        assert!(o.remarks.is_empty(), "{text}: {:?}", o.remarks);
        assert!(!o.has_errors(), "{text}: {:?}", o.diagnostics);
        round_trips(&o, hall(&o.readback));
    }
}

#[test]
fn where_the_chief_will_be_is_news_not_a_stage() {
    let o = bare("Headquarters will be at Villa Formosa to-morrow. General Spencer: hold Fuentes.");
    assert_eq!(o.stages.len(), 1, "{}", o.key);
    assert_eq!(o.order_type, Some(OrderType::General), "{}", o.key);
    assert_eq!(place_ids(&o), ["Villa Formosa", "Fuentes"]);
    let o = bare("The Emperor will place himself at Eckmühl.");
    assert!(o.stages.is_empty(), "{}", o.key);
    assert!(!o.has_errors(), "{:?}", o.diagnostics);
    // Headquarters ordered to move still moves.
    let o = hall("Army HQ is to move to Kümla.");
    assert_eq!(o.stages.len(), 1, "{}", o.key);
}

#[test]
fn own_troops_in_a_passive_after_a_break_are_that_clause_subject() {
    let o = hall("2nd Div: hold Hall; the voltigeurs are to be posted in the orchards.");
    assert_eq!(o.stages.len(), 2, "{}", o.key);
    assert!(o.stages[1].subject.is_some(), "{}", o.key);
    assert_eq!(place_ids(&o), ["hall", "hall-orchards"]);
    round_trips(&o, hall(&o.readback));
}

#[test]
fn the_rest_in_reserve_after_a_break_is_a_stage() {
    let o =
        hall("3rd Div: one brigade to hold the Mill bridge, the remainder in reserve at Kümla.");
    assert_eq!(o.stages.len(), 2, "{}", o.key);
    assert!(
        o.stages[1].steps[0].action == staffwork::order::Action::Reserve,
        "{}",
        o.key
    );
    assert_eq!(place_ids(&o), ["mill-bridge", "kumla"]);
    round_trips(&o, hall(&o.readback));
}

#[test]
fn a_commander_placing_himself_is_news_not_a_stage() {
    // 6.3.5: army and corps commanders move without orders.
    let o =
        bare("Marshal Davout will place himself at Auerstädt. General Gudin: hold Hassenhausen.");
    assert_eq!(o.stages.len(), 1, "{}", o.key);
    assert_eq!(o.order_type, Some(OrderType::General), "{}", o.key);
    assert_eq!(place_ids(&o), ["Auerstädt", "Hassenhausen"]);
}

#[test]
fn a_distance_before_a_relation_is_how_far_not_a_place() {
    let o = hall("Cav-I: remain a mile behind the 2nd Division.");
    assert_eq!(o.order_type, Some(OrderType::General), "{}", o.key);
    assert!(o.places.is_empty(), "{:?}", o.places);
    assert!(!o.has_errors(), "{:?}", o.diagnostics);
    assert!(
        o.diagnostics.iter().all(|d| d.code != "unknown-word"),
        "{:?}",
        o.diagnostics
    );
    round_trips(&o, hall(&o.readback));
}

#[test]
fn any_and_a_noun_with_a_relative_clause_is_a_description() {
    let o = hall("I Corps Arty: fire on any body that shows itself at Kirseberg.");
    assert_eq!(o.order_type, Some(OrderType::Complex), "{}", o.key);
    assert_eq!(place_ids(&o), ["kirseberg"]);
    assert!(
        o.diagnostics.iter().all(|d| d.code != "unknown-word"),
        "{:?}",
        o.diagnostics
    );
    round_trips(&o, hall(&o.readback));
}

#[test]
fn no_and_a_passive_forbids_the_verb_on_its_noun() {
    let o = bare("General Pirch: hold Wavre; no bridge over the Dyle is to be given up.");
    assert_eq!(o.stages.len(), 1, "{}", o.key);
    assert_eq!(o.prohibitions.len(), 1, "{}", o.key);
    assert_eq!(o.prohibitions[0].text, "give up bridge over the Dyle");
    assert!(
        place_ids(&o).contains(&"Dyle".to_string()),
        "{:?}",
        o.places
    );
    round_trips(&o, bare(&o.readback));
    // "no attack is to be made" still forbids the attack itself (rule neg.no-noun).
    let o = hall("2nd Div: no attack is to be made before noon.");
    assert_eq!(o.prohibitions[0].text, "attack before noon");
}

#[test]
fn a_number_of_paces_is_a_distance_and_break_up_is_a_march() {
    let o = hall("4th Div: halt 300 paces behind Kümla.");
    assert_eq!(place_ids(&o), ["kumla"]);
    assert!(o.remarks.is_empty(), "{:?}", o.remarks);
    assert!(!o.has_errors(), "{:?}", o.diagnostics);
    round_trips(&o, hall(&o.readback));
    let o = hall("3rd Div: break up at dawn and march by the Kümla road to Kümla.");
    assert_eq!(o.stages.len(), 1, "{}", o.key);
    assert_eq!(o.order_type, Some(OrderType::Complex), "{}", o.key);
    assert!(o.remarks.is_empty(), "{:?}", o.remarks);
}
