//! Orders as players and staff write them when they do not use the reader's own idiom: the
//! recipient written bare or with a comma, "you will …", several formations given tasks in one
//! order, the verbless "in reserve", a military clock after "at" (issue 11). None of these
//! sentences is in the annotated corpus.

use staffwork::order::{self, CheckedOrder};
use staffwork::rules::OrderType;

pub(crate) fn hall(text: &str) -> CheckedOrder {
    let s = staffwork::scenario::bundled("tutorial-hall").unwrap();
    order::check_one(text, Some(&s), Some("imperial"))
}

pub(crate) fn vimeiro(text: &str) -> CheckedOrder {
    let s = staffwork::scenario::bundled("vimeiro-1808").unwrap();
    order::check_one(text, Some(&s), Some("french"))
}

pub(crate) fn recipient_id(o: &CheckedOrder) -> Option<String> {
    o.recipient
        .as_ref()
        .and_then(|r| r.resolved.as_ref())
        .map(|r| r.id.clone())
}

#[test]
fn a_command_named_bare_before_its_verb_is_the_recipient() {
    // Rule `lead.bare`: no colon, but a command of the scenario and at once a verb.
    for (text, want) in [
        ("2nd Div attack Hall at 1000.", "div-2"),
        (
            "Pellerin, bring your division forward to Hinzeberg.",
            "div-4",
        ),
        ("Sauret, hold Kümla at all costs.", "div-3"),
        (
            "3rd Division occupy Kirseberg and hold the bridge.",
            "div-3",
        ),
    ] {
        let o = hall(text);
        assert_eq!(recipient_id(&o).as_deref(), Some(want), "{text}: {}", o.key);
        assert!(!o.has_errors(), "{text}: {:?}", o.diagnostics);
    }
    // A place is never taken for a command: "Hall attack at once" has no recipient.
    let o = hall("Hall attack at once.");
    assert!(o.recipient.is_none(), "{}", o.key);
}

#[test]
fn you_will_addresses_the_recipient_and_is_not_a_remark() {
    // Rule `lead.you`.
    for text in [
        "2nd Div: you will attack Hall from the direction of Hinzeberg.",
        "Morvan: you are to march upon Hall by the Säter road.",
        "3rd Div: you must hold Kümla until relieved.",
    ] {
        let o = hall(text);
        assert!(o.remarks.is_empty(), "{text}: {:?}", o.remarks);
        assert!(
            !o.diagnostics.iter().any(|d| d.code == "unstructured-text"),
            "{text}: {:?}",
            o.diagnostics
        );
        assert!(o.readback.contains(" is to "), "{text}: {}", o.readback);
    }
    // Alone, "you" names nobody: the recipient is whoever gets the letter, not a command
    // called "You".
    let o = hall("You will attack Hall from the direction of Hinzeberg.");
    assert!(
        !o.diagnostics.iter().any(|d| d.code == "unknown-recipient"),
        "{:?}",
        o.diagnostics
    );
}

#[test]
fn several_formations_tasked_in_one_order_keep_their_own_tasks() {
    // Rule `lead.clause-subject`: each clause's formation is its subject, not an objective
    // of the clause before.
    let o = hall(
        "I Corps: 2nd Div will attack Hall; 3rd Div will hold Kümla; 4th Div will remain in reserve at Hinzeberg.",
    );
    assert_eq!(o.stages.len(), 3, "{}", o.key);
    let subjects: Vec<String> = o
        .stages
        .iter()
        .map(|s| s.subject.as_ref().map_or(String::new(), |r| r.text.clone()))
        .collect();
    assert_eq!(
        subjects,
        ["2nd Div", "3rd Div", "4th Div"],
        "{}",
        o.readback
    );
    for st in &o.stages {
        assert!(
            st.objectives.iter().all(|r| !r.text.contains("Div")),
            "{}",
            o.readback
        );
    }
    assert!(
        o.readback.contains("3rd Div is to hold Kümla"),
        "{}",
        o.readback
    );
    // "General Kellerman will support him" after a semicolon is Kellerman's task.
    let o = vimeiro(
        "General Loison will carry Vimeiro with the bayonet; General Kellerman will support him with the grenadiers.",
    );
    assert_eq!(o.stages.len(), 2, "{}", o.key);
    assert!(o.stages[1].subject.is_some(), "{}", o.readback);
    assert!(
        !o.stages[0]
            .objectives
            .iter()
            .any(|r| r.text.contains("Kellerman")),
        "{}",
        o.readback
    );
    // The enemy is no subject: "the enemy will retreat" stays a report, not a task.
    let o = hall("2nd Div: attack Hall; the enemy will retreat on Säter.");
    assert!(
        o.stages.iter().all(|s| s.subject.is_none()),
        "{}",
        o.readback
    );
}

#[test]
fn a_second_formation_following_in_support_is_limited_by_the_first() {
    // 6.4.4: "follow in support" takes its limit from the attack it supports.
    let o = vimeiro(
        "Loison: push on along the Torres Vedras road and drive the English off Vimeiro Hill. Kellerman's grenadiers will follow in support.",
    );
    assert!(!o.has_errors(), "{:?}", o.diagnostics);
    // Alone, the same support has no limit.
    let o = vimeiro("Loison: follow in support.");
    assert!(
        o.diagnostics.iter().any(|d| d.code == "open-ended"),
        "{:?}",
        o.diagnostics
    );
}

#[test]
fn in_reserve_without_a_verb_is_an_order_to_stand_in_reserve() {
    // Rule `verb.in-reserve`.
    for text in [
        "4th Div: in reserve behind Hinzeberg.",
        "Pellerin: in reserve at 5.10 until I send for you.",
    ] {
        let o = hall(text);
        assert!(!o.has_errors(), "{text}: {:?}", o.diagnostics);
        assert_eq!(o.order_type, Some(OrderType::General), "{text}: {}", o.key);
        assert!(
            o.readback.contains("stand in reserve"),
            "{text}: {}",
            o.readback
        );
    }
}

#[test]
fn a_military_clock_after_at_is_read_back_with_its_at() {
    let o = hall("2nd Div: attack Hall from the direction of Hinzeberg at 1000.");
    assert!(o.readback.contains("at 1000"), "{}", o.readback);
    assert_eq!(o.order_type, Some(OrderType::Complex), "{}", o.key);
}

#[test]
fn a_relation_head_before_a_name_is_its_relation_not_a_remark() {
    // Rule `name.relation-head`: "the foot of", "the line of the", "the outskirts of".
    for (text, rel, id) in [
        ("3rd Div: hold the foot of Kümla.", "the foot of", "kumla"),
        (
            "2nd Div: march to the outskirts of Hall and halt.",
            "the outskirts of",
            "hall",
        ),
        (
            "3rd Div: hold the west bank of the Viskan.",
            "the west bank of the",
            "viskan",
        ),
    ] {
        let o = hall(text);
        assert!(
            o.diagnostics.iter().all(|d| d.code == "anatomy"),
            "{text}: {:?}",
            o.diagnostics
        );
        let r = o.stages[0]
            .objectives
            .iter()
            .find(|r| r.relation.is_some())
            .unwrap_or_else(|| panic!("{text}: {}", o.key));
        assert_eq!(r.relation.as_deref(), Some(rel), "{text}");
        assert_eq!(
            r.resolved.as_ref().map(|x| x.id.as_str()),
            Some(id),
            "{text}"
        );
        assert!(
            o.readback.contains(
                &text[text.find("the ").unwrap()
                    ..text
                        .find('.')
                        .unwrap()
                        .min(text.find(" and").unwrap_or(usize::MAX))]
            ),
            "{text}: {}",
            o.readback
        );
    }
}

#[test]
fn retaking_ground_and_courtesies_without_that_are_read() {
    let s = staffwork::scenario::bundled("talavera-1809").unwrap();
    let o = order::check_one(
        "Tilson to reoccupy the Cerro de Medellín at daylight with both brigades.",
        Some(&s),
        Some("allied"),
    );
    assert!(!o.has_errors(), "{:?}", o.diagnostics);
    assert!(
        o.readback.contains("reoccupy the Cerro de Medellín"),
        "{}",
        o.readback
    );
    let o = order::check_one(
        "4 Div will hold the Pajar de Vergara as long as possible.",
        Some(&s),
        Some("allied"),
    );
    assert!(
        o.diagnostics.iter().all(|d| d.code == "anatomy"),
        "{:?}",
        o.diagnostics
    );
    assert!(o.readback.contains("as long as possible"), "{}", o.readback);
}

#[test]
fn the_same_subject_going_on_is_no_remark() {
    // Rule `lead.same-subject`, without a scenario: the staff style of general orders.
    for (text, stages) in [
        (
            "Major General Crawfurd will move with the Light Division by the road to Fuentes, and will halt at the bridge.",
            2,
        ),
        (
            "The 3rd division will march to Guarda, where it will halt until further orders.",
            2,
        ),
    ] {
        let o = order::check_one(text, None, None);
        assert!(o.remarks.is_empty(), "{text}: {:?}", o.remarks);
        assert_eq!(
            o.stages.iter().map(|s| s.steps.len()).sum::<usize>(),
            stages,
            "{text}: {}",
            o.key
        );
    }
    // "will be so good as to" is a courtesy holding the link, not a report.
    let o = order::check_one(
        "General Leith will be so good as to occupy Badajoz with his division.",
        None,
        None,
    );
    assert!(!o.stages.is_empty(), "{:?}", o.diagnostics);
    assert!(
        o.readback.starts_with("General Leith is to occupy Badajoz"),
        "{}",
        o.readback
    );
    // "wait there for further instructions" is how long, not an unread word.
    let o = order::check_one(
        "General Cole will halt his division at Albuera and wait there for further instructions.",
        None,
        None,
    );
    assert!(o.remarks.is_empty(), "{:?}", o.remarks);
}

#[test]
fn all_divisions_is_the_writers_army_and_common_verbs_are_known() {
    // Rule `name.all`: the army, whose order its formations share (6.1); the writer's side
    // decides which army.
    for text in [
        "All divisions: hold your present positions until further orders.",
        "All formations will halt at once.",
    ] {
        let o = hall(text);
        assert!(!o.has_errors(), "{text}: {:?}", o.diagnostics);
        assert_eq!(recipient_id(&o).as_deref(), Some("imperial-army"), "{text}");
    }
    for text in [
        "I Corps Arty: bombard Hall from Hinzeberg until 1000, then cease fire.",
        "Cav-I: screen the right flank towards Säter and keep touch with the enemy.",
    ] {
        let o = hall(text);
        assert!(
            o.diagnostics.iter().all(|d| d.code == "anatomy"),
            "{text}: {:?}",
            o.diagnostics
        );
    }
}

#[test]
fn troops_supporting_an_action_go_with_it_and_are_no_route() {
    // Rule `with.supported-by`: "by" before one's own troops is no route through them.
    for (text, force) in [
        (
            "To General Morvan: attack Hall at 1100 precisely, supported by the 3rd Division on your left.",
            "3rd Division",
        ),
        (
            "3rd Div: attack Hall, covered by the guns of I Corps Arty.",
            "guns of I Corps Arty",
        ),
    ] {
        let o = hall(text);
        let st = &o.stages[0];
        assert!(st.route.is_empty(), "{text}: {}", o.key);
        assert!(
            st.steps[0].forces.iter().any(|r| r.text.contains(force)),
            "{text}: {}",
            o.key
        );
        // The read-back reads back to the same order.
        let re = hall(&o.readback);
        assert_eq!(re.key, o.key, "{} → {}", o.readback, re.readback);
    }
    // A road after "by" stays the route.
    let o = hall("2nd Div: march to Kümla by the Kümla road.");
    assert!(!o.stages[0].route.is_empty(), "{}", o.key);
}

#[test]
fn a_name_before_you_will_is_addressed_and_you_will_is_no_remark() {
    // Rule `lead.vocative` with `lead.you`: titled or not, the name before ", you will" is the
    // recipient, and "you will" links him to his verb (before, "Morvan, you will …" left the
    // recipient implicit or "you will" as an unread remark).
    for (text, want) in [
        ("Morvan, you will capture Hall from the west.", "div-2"),
        (
            "General Morvan, you will capture Hall from the west.",
            "div-2",
        ),
        ("Sauret, you are to hold Kümla until relieved.", "div-3"),
        ("Sauret, you are not to cross the Viskan.", "div-3"),
    ] {
        let o = hall(text);
        assert_eq!(recipient_id(&o).as_deref(), Some(want), "{text}: {}", o.key);
        assert!(o.remarks.is_empty(), "{text}: {:?}", o.remarks);
        assert!(
            !o.diagnostics
                .iter()
                .any(|d| d.code == "implicit-recipient" || d.code == "unstructured-text"),
            "{text}: {:?}",
            o.diagnostics
        );
    }
    // A lower-case word before the comma is no name: "Meanwhile, you will …" addresses the
    // recipient of the order, nobody called "Meanwhile".
    let o = hall("2nd Div: meanwhile, you will hold Hinzeberg.");
    assert_eq!(recipient_id(&o).as_deref(), Some("div-2"), "{}", o.key);
}
