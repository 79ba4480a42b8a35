//! Dispositions in the present tense (issue 11, session 13): "The first column marches …",
//! "The reserve remains at …" name each body of troops by a description at the head of its
//! sentence; "The enemy occupies Hall …" in the same tense is a report. Rules
//! `lead.disposition`, `clause.report-present`, `name.ordinal-troops`, `verb.ready-to`, and own
//! troops with "will" opening a later clause (`lead.clause-subject`). Each test asserts what a
//! user sees — the recipient, the NBS type (6.3), the stages, the read-back — and that the
//! read-back reads again the same.

use super::common::{codes, fired, read, recipient, round_trips};
use staffwork::rules::OrderType;

/// Own troops described at the head of a present-tense sentence are its recipient, and the
/// verb reads back in its base form.
#[test]
fn a_disposition_in_the_present_tense_names_its_recipient() {
    let o = read("The reserve remains at Hinzeberg until further orders.");
    assert!(fired(&o, "lead.disposition"), "{:?}", o.rules);
    assert_eq!(recipient(&o), Some("reserve"));
    assert_eq!(o.order_type, Some(OrderType::General));
    assert!(!codes(&o).contains(&"no-recipient"), "{:?}", codes(&o));
    assert!(o.readback.contains("remain at Hinzeberg"), "{}", o.readback);
    round_trips(&o);

    let o = read("The cavalry covers the left of the infantry and watches the Borna road.");
    assert_eq!(recipient(&o), Some("cavalry"));
    assert_eq!(o.order_type, Some(OrderType::General));
    round_trips(&o);
}

/// "the first column", "the third column": an ordinal written out and a troop word are troops,
/// though "column" alone is not.
#[test]
fn an_ordinal_column_is_a_body_of_troops() {
    let o = read("The first column marches from Zöbigker to Markkleeberg.");
    assert_eq!(recipient(&o), Some("first column"));
    assert!(
        !o.places.iter().any(|p| p.text.contains("column")),
        "{:?}",
        o.places
    );
    round_trips(&o);
    // "follows the first": the ordinal alone is the column before it, followed (a move, 6.3.2).
    let o = read("The second column follows the first and deploys behind Dölitz.");
    assert!(fired(&o, "verb.follow-own"), "{:?}", o.rules);
    assert_eq!(o.order_type, Some(OrderType::General));
    assert!(
        !o.places.iter().any(|p| p.text == "first"),
        "{:?}",
        o.places
    );
    let o = read("The third column descends from Wachau and attacks Liebertwolkwitz.");
    assert_eq!(recipient(&o), Some("third column"));
    assert_eq!(o.cost_type, Some(OrderType::Engage));
}

/// "The second column, under General Kleist, descends …": the apposition is said of the
/// subject; "The artillery of the reserve takes post …": the "of" phrase is part of its name.
#[test]
fn an_apposition_or_an_of_phrase_stays_with_the_subject() {
    let o = read(
        "The second column, under General Kleist, descends from the heights and forms in line.",
    );
    assert_eq!(recipient(&o), Some("second column"));
    assert!(!codes(&o).contains(&"unstructured-text"), "{:?}", codes(&o));
    assert!(!codes(&o).contains(&"no-recipient"), "{:?}", codes(&o));
    let o = read("The artillery of the reserve takes post on the hill north of Güldengossa.");
    assert_eq!(recipient(&o), Some("artillery of the reserve"));
    assert_eq!(o.order_type, Some(OrderType::General));
    round_trips(&o);
}

/// The enemy's troops at the head of a present-tense sentence are reported, never ordered:
/// "The enemy occupies Hall" gives nobody a stage; an order after it still counts.
#[test]
fn the_enemy_in_the_present_tense_is_a_report() {
    let o = read("The enemy occupies Hall with two battalions and holds the bridge.");
    assert!(fired(&o, "clause.report"), "{:?}", o.rules);
    assert!(o.stages.is_empty(), "{:?}", o.readback);
    assert_eq!(recipient(&o), None);
    let o = read("The French cavalry retires on Salamanca; attack it at once.");
    assert_eq!(o.stages.len(), 1, "{}", o.readback);
    assert!(
        o.readback.to_lowercase().contains("attack"),
        "{}",
        o.readback
    );
}

/// ", ready to charge" says how ready the troops stand, not a charge of their own (no
/// open-ended Engage stage), and it keeps its comma when read back.
#[test]
fn ready_to_after_a_comma_is_no_stage() {
    let o = read("The heavy cavalry stands in second line behind the centre, ready to charge.");
    assert!(fired(&o, "verb.ready-to"), "{:?}", o.rules);
    assert_eq!(o.order_type, Some(OrderType::General));
    assert_eq!(o.stages.len(), 1);
    assert!(!codes(&o).contains(&"open-ended"), "{:?}", codes(&o));
    assert!(o.readback.contains(", ready to charge"), "{}", o.readback);
    round_trips(&o);
}

/// "…, and the line will follow": own troops in lower case with "will" begin a clause of
/// their own, not an objective of the step before.
#[test]
fn own_troops_with_will_open_their_own_clause() {
    let o = read("The light infantry will skirmish in front of Hall, and the cavalry will follow.");
    assert!(fired(&o, "lead.clause-subject"), "{:?}", o.rules);
    assert_eq!(o.stages.len(), 2, "{}", o.readback);
    assert!(!codes(&o).contains(&"unstructured-text"), "{:?}", codes(&o));
}
