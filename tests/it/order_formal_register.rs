//! Orders in the formal register of the period's staffs, outside the annotated corpus: a
//! participle clause of what is done first ("having crossed the stream, …"), the verbs of
//! manoeuvre ("turn the enemy's left", "debouch", "prevent the enemy from …"), a marshal by his
//! title (issue 11).

use staffwork::order::{self, CheckedOrder};

use super::order_natural_leads::{hall, recipient_id, vimeiro as vimeiro_french};

fn talavera(text: &str) -> CheckedOrder {
    let s = staffwork::scenario::bundled("talavera-1809").unwrap();
    order::check_one(text, Some(&s), Some("french"))
}

#[test]
fn having_and_a_participle_is_what_the_command_does_first() {
    // Rule `clause.having`, before or after the subject, with a colon lead or none.
    for (text, who, first) in [
        (
            "Sauret's division, having crossed the Viskan at the Mill bridge, will form behind Hinzeberg.",
            "div-3",
            "cross",
        ),
        (
            "Having crossed the Mill bridge, the 4th Division will halt at Kümla.",
            "div-4",
            "cross",
        ),
        (
            "2nd Div: having taken Hall, push on up the Säter road.",
            "div-2",
            "take",
        ),
    ] {
        let o = hall(text);
        assert_eq!(
            recipient_id(&o).as_deref(),
            Some(who),
            "{text}: {}",
            o.readback
        );
        assert!(!o.has_errors(), "{text}: {:?}", o.diagnostics);
        assert!(o.remarks.is_empty(), "{text}: {:?}", o.remarks);
        let said = o.readback.to_lowercase();
        assert!(
            said.contains(&format!("is to {first} ")),
            "{text}: {}",
            o.readback
        );
        // Read again, the read-back means the same.
        assert_eq!(hall(&o.readback).readback, o.readback, "{text}");
    }
}

#[test]
fn turn_debouch_and_prevent_are_actions() {
    let o = hall("3rd Div: turn the enemy's left at Hall by the orchards.");
    assert!(o.remarks.is_empty(), "{:?}", o.remarks);
    assert_eq!(o.stages.len(), 1, "{}", o.readback);
    assert!(o.readback.contains("turn"), "{}", o.readback);
    let o = hall("4th Div: debouch from Kirseberg at noon and march on Hall.");
    assert!(!o.has_errors(), "{:?}", o.diagnostics);
    assert!(
        o.readback.contains("debouch from Kirseberg"),
        "{}",
        o.readback
    );
    let o = hall("4th Div: prevent the enemy from crossing at the Kirseberg bridge.");
    assert!(o.readback.contains("prevent"), "{}", o.readback);
    assert!(
        o.diagnostics.iter().all(|d| d.code != "unknown-word"),
        "{:?}",
        o.diagnostics
    );
}

#[test]
fn a_marshal_by_his_ducal_title() {
    let o = talavera("The Duke of Belluno will attack the Cerro de Medellín at daybreak.");
    assert_eq!(
        recipient_id(&o).as_deref(),
        Some("i-corps"),
        "{:?}",
        o.diagnostics
    );
}

#[test]
fn a_modal_after_a_conditions_words_ends_the_condition() {
    // Rule `cond.modal-ends`, with the lexicon's "on reaching" / "on arriving at" conditions.
    for (text, cond, action) in [
        (
            "Pellerin will march by the Kümla road, and on reaching Kümla will halt and await orders.",
            "on reaching Kümla",
            "halt",
        ),
        (
            "3rd Div will march to Hinzeberg and if the enemy appears will deploy facing east.",
            "if the enemy appears",
            "deploy",
        ),
        (
            "2nd Div: on arriving at the Mill bridge, cross and form beyond it.",
            "on arriving at the Mill bridge",
            "cross",
        ),
    ] {
        let o = hall(text);
        assert!(!o.has_errors(), "{text}: {:?}", o.diagnostics);
        assert!(o.remarks.is_empty(), "{text}: {:?}", o.remarks);
        let st = o
            .stages
            .iter()
            .find(|s| s.condition.is_some())
            .unwrap_or_else(|| panic!("{text}: no conditional stage in {}", o.readback));
        assert_eq!(st.condition.as_ref().unwrap().text, cond, "{text}");
        let said = format!("{:?}", st.action).to_lowercase();
        assert_eq!(said, action, "{text}: {}", o.readback);
        assert_eq!(hall(&o.readback).readback, o.readback, "{text}");
    }
}

#[test]
fn no_attack_is_to_be_made_forbids_the_attack() {
    // Rule `neg.no-noun`: the passive after the noun says nothing more.
    let o = hall("2nd Div: hold Hall; no attack is to be made on Säter before noon.");
    assert_eq!(o.prohibitions.len(), 1, "{}", o.readback);
    assert_eq!(o.prohibitions[0].text, "attack on Säter before noon");
    assert!(
        o.readback.contains("is not to attack on Säter before noon"),
        "{}",
        o.readback
    );
}

#[test]
fn a_name_to_a_verb_after_a_break_is_another_commands_task() {
    // Rule `lead.clause-subject`, telegraphic: "…, Charlot to follow in support".
    let o = vimeiro_french(
        "Loison: send Solignac's brigade up the road to Vimeiro Hill, Charlot to follow in support.",
    );
    assert_eq!(o.stages.len(), 2, "{}", o.readback);
    let who = o.stages[1]
        .subject
        .as_ref()
        .expect("the second stage has its subject");
    assert_eq!(who.text, "Charlot");
    assert!(
        o.readback.contains("Charlot is to follow in support"),
        "{}",
        o.readback
    );
    let o = hall("Morvan: attack Hall at 0900; Pellerin to follow in reserve.");
    assert_eq!(o.stages.len(), 2, "{}", o.readback);
    assert!(o.remarks.is_empty(), "{:?}", o.remarks);
}

#[test]
fn a_generic_arm_is_the_writers_own_and_its_action_noun_no_place() {
    // Rule `name.own-side`: only a British unit is called "Cavalry"; the French mean theirs.
    let o = vimeiro_french("The cavalry is to cover the retreat should we be repulsed.");
    assert_eq!(
        recipient_id(&o).as_deref(),
        Some("margaron-div"),
        "{:?}",
        o.diagnostics
    );
    assert!(!o.has_errors(), "{:?}", o.diagnostics);
    // "the retreat" is the army's own, and "should we …" a condition: no unread words.
    assert!(
        o.diagnostics
            .iter()
            .all(|d| d.code != "unknown-word" && d.code != "unstructured-text"),
        "{:?}",
        o.diagnostics
    );
    assert!(o.stages[0].condition.is_some(), "{}", o.readback);
}

#[test]
fn a_formation_of_grenadiers_is_one_formation_in_the_read_back() {
    let o = vimeiro_french("Kellerman, hold your grenadiers at 38.12 until I send for them.");
    assert!(
        o.readback
            .starts_with("Division of United Grenadiers is to hold"),
        "{}",
        o.readback
    );
}

fn vimeiro_british(text: &str) -> CheckedOrder {
    let s = staffwork::scenario::bundled("vimeiro-1808").unwrap();
    order::check_one(text, Some(&s), Some("british"))
}

#[test]
fn the_idioms_of_holding_and_keeping_touch_are_read_not_left_as_remarks() {
    for (text, said) in [
        (
            "Hill's division will remain on the hill west of Vimeiro as a reserve.",
            "as a reserve",
        ),
        (
            "Anstruther, Fane: hold Vimeiro Hill to the last.",
            "to the last",
        ),
        (
            "Acland's brigade to occupy the ford and keep up communication with Hill.",
            "keep up communication with Hill",
        ),
    ] {
        let o = vimeiro_british(text);
        assert!(!o.has_errors(), "{text}: {:?}", o.diagnostics);
        assert!(
            o.diagnostics
                .iter()
                .all(|d| d.severity != staffwork::order::Severity::Warning),
            "{text}: {:?}",
            o.diagnostics
        );
        assert!(o.readback.contains(said), "{text}: {}", o.readback);
    }
}

#[test]
fn should_he_and_a_verb_is_one_condition() {
    // The inverted "should": the verb after its pronoun is the condition's own, never a stage.
    let o = vimeiro_british(
        "Ferguson: march by the ridge towards Ventosa, and turn the enemy's right should he attack the village.",
    );
    assert_eq!(o.stages.len(), 1, "{}", o.readback);
    assert_eq!(
        o.stages[0].condition.as_ref().map(|c| c.text.as_str()),
        Some("should he attack the village")
    );
}

/// No warning of any kind other than notes: what a user sees as "read cleanly".
fn clean(o: &CheckedOrder) -> bool {
    !o.has_errors()
        && o.diagnostics
            .iter()
            .all(|d| d.severity != staffwork::order::Severity::Warning)
}

#[test]
fn the_idioms_of_standing_fast_and_taking_cover_are_read() {
    // "at every hazard", "lie down", "keep its ground", "where he is", "out of sight": none
    // of them a place, an unknown word or a remark.
    for (text, said) in [
        (
            "3rd Div: hold Kümla at every hazard.",
            "hold Kümla at every hazard",
        ),
        (
            "4th Div: lie down behind Hinzeberg.",
            "lie down behind Hinzeberg",
        ),
        (
            "2nd Div: keep your ground at Hall.",
            "keep your ground at Hall",
        ),
        (
            "3rd Div: halt where you are and await orders.",
            "halt where you are",
        ),
        (
            "4th Div: wait behind Hinzeberg, out of sight.",
            "out of sight",
        ),
    ] {
        let o = hall(text);
        assert!(clean(&o), "{text}: {:?}", o.diagnostics);
        assert!(o.readback.contains(said), "{text}: {}", o.readback);
    }
}

#[test]
fn an_adverb_in_ly_is_never_a_name() {
    // Rule `word.ly-adverb`: "stoutly", "doggedly" read as manner, not as unknown places.
    for text in [
        "3rd Div: defend Kümla stoutly.",
        "2nd Div: advance doggedly on Hall.",
    ] {
        let o = hall(text);
        assert!(
            o.diagnostics.iter().all(|d| d.code != "unknown-word"),
            "{text}: {:?}",
            o.diagnostics
        );
    }
}

#[test]
fn the_recipients_own_troops_and_a_pronoun_carry_the_subject_on() {
    // Rule `lead.you` with "your division/brigade/troops", and `lead.same-subject` after a
    // semicolon or a full stop with "they will", "he is to".
    for (text, said) in [
        (
            "3rd Div: your troops will hold Kümla.",
            "3rd Division is to hold Kümla",
        ),
        (
            "The 2nd Division will not cross the Viskan; they will hold Hinzeberg.",
            "hold Hinzeberg",
        ),
        (
            "4th Div: march to Kümla. He is to hold it until relieved.",
            "hold",
        ),
    ] {
        let o = hall(text);
        assert!(clean(&o), "{text}: {:?}", o.diagnostics);
        assert!(o.readback.contains(said), "{text}: {}", o.readback);
    }
}

#[test]
fn an_adverb_inside_a_request_keeps_the_recipient() {
    let o = hall("Morvan is most earnestly requested to hold Hall.");
    assert_eq!(recipient_id(&o).as_deref(), Some("div-2"), "{}", o.readback);
    assert!(clean(&o), "{:?}", o.diagnostics);
}

#[test]
fn following_ones_own_commander_is_a_move_and_the_enemy_a_pursuit() {
    use staffwork::rules::OrderType;
    // Rule `verb.follow-own` by the scenario: Morvan commands the Imperial 2nd Division.
    let o = hall("Sauret: follow Morvan.");
    assert_eq!(o.order_type, Some(OrderType::General), "{}", o.readback);
    let o = hall("Sauret: follow the enemy.");
    assert_ne!(o.order_type, Some(OrderType::General), "{}", o.readback);
}

#[test]
fn the_idioms_of_containing_and_manoeuvring_are_read() {
    use staffwork::rules::OrderType;
    // "keep … in check" with the enemy inside it (verb.split-object), "in echelon", "scour".
    for (text, said, kind) in [
        (
            "Milhaud: keep the Spaniards in check.",
            "keep the Spaniards in check",
            OrderType::General,
        ),
        (
            "Leval's division will form on the left of Sebastiani and advance in echelon.",
            "advance in echelon",
            OrderType::General,
        ),
        (
            "Latour-Maubourg: scour the country north of the Cascajal.",
            "scour",
            OrderType::General,
        ),
    ] {
        let o = talavera(text);
        assert!(clean(&o), "{text}: {:?}", o.diagnostics);
        assert!(o.readback.contains(said), "{text}: {}", o.readback);
        assert_eq!(o.order_type, Some(kind), "{text}: {}", o.readback);
    }
}

#[test]
fn should_a_name_be_repulsed_is_a_condition() {
    // Rule `cond.should-name` with a passive after the name.
    let o = talavera("Should Ruffin be repulsed, Villatte will cover his retreat.");
    assert_eq!(
        o.stages[0].condition.as_ref().map(|c| c.text.as_str()),
        Some("Should Ruffin be repulsed"),
        "{}",
        o.readback
    );
    assert!(
        o.diagnostics.iter().all(|d| d.code != "unstructured-text"),
        "{:?}",
        o.diagnostics
    );
}

#[test]
fn disputing_a_passage_to_the_utmost_is_a_defence() {
    // Without a scenario: "dispute" (defend) and "to the utmost" (a duration, not a place).
    let o = order::check_one(
        "The brigade is to dispute the passage to the utmost.",
        None,
        None,
    );
    assert!(clean(&o), "{:?}", o.diagnostics);
    assert_eq!(
        o.order_type,
        Some(staffwork::rules::OrderType::General),
        "{}",
        o.readback
    );
    assert!(
        o.readback.contains("dispute the passage to the utmost"),
        "{}",
        o.readback
    );
}

#[test]
fn while_another_command_acts_is_a_condition_not_a_stage() {
    use staffwork::rules::OrderType;
    // Rule `cond.while` (30.0): the simultaneous action is another command's, never a stage.
    for (text, cond) in [
        (
            "Villatte: hold the Cascajal while Ruffin crosses the Portina.",
            "while Ruffin crosses the Portina",
        ),
        (
            "Sebastiani will hold the Cascajal while Leval crosses the Portina.",
            "while Leval crosses the Portina",
        ),
    ] {
        let o = talavera(text);
        assert_eq!(o.stages.len(), 1, "{text}: {}", o.readback);
        assert_eq!(
            o.stages[0].condition.as_ref().map(|c| c.text.as_str()),
            Some(cond),
            "{text}: {}",
            o.readback
        );
        assert_eq!(o.order_type, Some(OrderType::Complex), "{text}");
        assert!(
            o.diagnostics.iter().all(|d| d.code != "unstructured-text"),
            "{text}: {:?}",
            o.diagnostics
        );
    }
}
