//! Reader gaps of issue 11 closed by reader21: the telegraphic memorandum ("The 3rd division to
//! collect this night at Braine …": an infinitive order with no "will") and French imperial staff
//! orders in English translation ("The Emperor has just ordered the Count d'Erlon to move …",
//! "The intention of the Emperor is that you …", "Order to General Reille: …"). Decisions
//! 0220–0222. Each test asserts what a user sees: the recipient, the type (NBS 6.3), the stages,
//! the places, the diagnostics and the read-back, and that the read-back reads again the same.

use super::common::{codes, fired, read, recipient, round_trips};
use staffwork::order::{Action, CheckedOrder};
use staffwork::rules::OrderType;

fn places(o: &CheckedOrder) -> Vec<&str> {
    o.places.iter().map(|p| p.text.as_str()).collect()
}

/// 30.0: "this evening", "this night", "to-morrow morning" are a later hour, a start time, so
/// the order is Complex; never a place called "evening" nor an unread "this".
#[test]
fn this_evening_and_to_morrow_morning_are_start_times() {
    let o = read("The light division to move this evening to Gallegos.");
    assert!(fired(&o, "time.day-part"), "{:?}", o.rules);
    assert_eq!(o.order_type, Some(OrderType::Complex));
    assert_eq!(places(&o), ["Gallegos"]);
    let t = o.stages[0].timing.as_ref().expect("a start time");
    assert_eq!(t.text, "this evening");
    assert!(t.is_start());
    assert!(!codes(&o).contains(&"unstructured-text"), "{:?}", codes(&o));
    round_trips(&o);
    let o = read("The 7th division to move to-morrow morning to Nave d'Aver.");
    assert_eq!(o.order_type, Some(OrderType::Complex));
    assert_eq!(places(&o), ["Nave d'Aver"]);
    round_trips(&o);
}

/// "Order to General Reille:" names the recipient (a heading), and "you will" after it is the
/// usual second person; "Order for the march to-morrow:" names nobody.
#[test]
fn an_order_to_heading_names_the_recipient() {
    let o = read(
        "Order to General Reille: you will move your division at six o'clock to Ostiz, and there await further orders.",
    );
    assert!(fired(&o, "lead.order-header"), "{:?}", o.rules);
    assert_eq!(recipient(&o), Some("General Reille"));
    assert_eq!(places(&o), ["Ostiz"]);
    assert_eq!(o.order_type, Some(OrderType::Complex)); // a start time, 30.0
    assert!(!o.readback.contains("to General Reille"), "{}", o.readback);
    round_trips(&o);
    let o = read("Orders for General Sébastiani: you will pass the Marne at La Ferté.");
    assert_eq!(recipient(&o), Some("General Sébastiani"));
    let o = read(
        "Order for the march to-morrow: the Guard will leave Dresden at five in the morning and will march by the road to Bautzen.",
    );
    assert_eq!(recipient(&o), Some("Guard"));
    assert!(!places(&o).contains(&"march"), "{:?}", places(&o));
}

/// An authority verb in any tense, a person and "to": the person is the recipient, the
/// authority a courtesy; the perfect's "has", "just", "ordered" are no remarks.
#[test]
fn the_emperor_has_just_ordered_a_marshal_to_move() {
    let o = read(
        "The Emperor has just ordered the Count d'Erlon to move with his corps to the heights of St. Amand.",
    );
    assert!(fired(&o, "lead.authority"), "{:?}", o.rules);
    assert_eq!(recipient(&o), Some("Count d'Erlon"));
    assert_eq!(o.order_type, Some(OrderType::General));
    assert!(o.remarks.is_empty(), "{:?}", o.remarks);
    assert!(
        o.courtesies
            .iter()
            .any(|c| c.text == "The Emperor has just ordered"),
        "{:?}",
        o.courtesies
    );
    assert!(
        o.readback.starts_with("The Count d'Erlon is to move"),
        "{}",
        o.readback
    );
    round_trips(&o);
    for text in [
        "The Emperor has ordered General Savary to occupy Pultusk with his division, and to watch the Narew.",
        "His Majesty orders Marshal Davout to move with his whole corps upon Naumburg.",
        "The Emperor directs Marshal Ney to attack the enemy at Guttstadt.",
    ] {
        let o = read(text);
        assert!(
            recipient(&o).is_some_and(|r| r.starts_with("General") || r.starts_with("Marshal")),
            "{text}: {:?}",
            recipient(&o)
        );
        round_trips(&o);
    }
}

/// "The intention of the Emperor is that you attack …": an authority lead; "push him" is a
/// pursuit of the enemy (rule `verb.push-troops`), so attacking and pushing is one Engage stage.
#[test]
fn the_intention_of_the_emperor_is_that_you_attack() {
    let o = read(
        "Monsieur le Maréchal, the intention of the Emperor is that you attack the enemy at Hoff, and that you push him vigorously.",
    );
    assert!(fired(&o, "lead.authority"), "{:?}", o.rules);
    assert!(fired(&o, "verb.push-troops"), "{:?}", o.rules);
    assert_eq!(o.order_type, Some(OrderType::Engage));
    assert_eq!(places(&o), ["Hoff"]);
    assert!(!o.readback.contains("Emperor"), "{}", o.readback);
    assert!(!codes(&o).contains(&"unstructured-text"), "{:?}", codes(&o));
    round_trips(&o);
}

/// "that X march" (the French subjunctive, no "will"): X is the recipient; a second "that" with
/// its own subject is a second wish, and "that he …" carries on the same man.
#[test]
fn orders_that_in_the_subjunctive_give_each_subject_its_stage() {
    let o = read(
        "The Emperor orders that the Guard remain at Vitry, and that the Duke of Ragusa march on Saint-Dizier with his corps.",
    );
    assert_eq!(recipient(&o), Some("Guard"));
    assert_eq!(o.stages.len(), 2);
    let second = o.stages[1].subject.as_ref().expect("a subject of its own");
    assert_eq!(second.text, "Duke of Ragusa");
    assert_eq!(o.order_type, Some(OrderType::General));
    round_trips(&o);
    let o = read(
        "The Emperor orders that Marshal Soult march at daybreak upon Eylau with his corps, and that he take position on the heights to the right of the town.",
    );
    assert_eq!(recipient(&o), Some("Marshal Soult"));
    assert!(!codes(&o).contains(&"unstructured-text"), "{:?}", codes(&o));
    let actions: Vec<Action> = o
        .stages
        .iter()
        .flat_map(|s| s.steps.iter().map(|x| x.action))
        .collect();
    assert_eq!(actions, [Action::Move, Action::Deploy]);
    round_trips(&o);
}

/// "His Majesty desires that the whole of the Young Guard should …": a capitalised verb word
/// ("Guard") before the link ends the name; "at the first order" is how ready (lexicon manner),
/// never a place "the first".
#[test]
fn the_young_guard_and_at_the_first_order() {
    let o = read(
        "His Majesty desires that the whole of the Young Guard should take up a position in front of Wachau.",
    );
    assert_eq!(recipient(&o), Some("whole of the Young Guard"));
    assert_eq!(o.order_type, Some(OrderType::General));
    round_trips(&o);
    let o = read(
        "His Majesty desires that Marshal Bernadotte should hold himself ready to march at the first order.",
    );
    assert_eq!(recipient(&o), Some("Marshal Bernadotte"));
    assert_eq!(o.order_type, Some(OrderType::General));
    assert!(o.places.is_empty(), "{:?}", places(&o));
    assert!(o.stages.iter().all(|s| s.condition.is_none()));
    assert!(
        o.readback
            .starts_with("Marshal Bernadotte is to hold himself ready to march at the first order"),
        "{}",
        o.readback
    );
    round_trips(&o);
}

/// The memorandum's subject: troops, "to" and a verb, with where they stand; also after ", and"
/// later in the sentence.
#[test]
fn the_telegraphic_subject_is_the_recipient() {
    let o = read("The reserve artillery to follow the 5th division.");
    assert!(fired(&o, "lead.telegraphic"), "{:?}", o.rules);
    assert_eq!(recipient(&o), Some("reserve artillery"));
    assert_eq!(o.order_type, Some(OrderType::General)); // follows own troops
    round_trips(&o);
    let o = read(
        "The troops in Ath and its neighbourhood to assemble this evening at Ath, and be in readiness to move at a moment's notice.",
    );
    assert_eq!(recipient(&o), Some("troops"));
    assert_eq!(places(&o), ["Ath", "Ath"]);
    assert_eq!(o.order_type, Some(OrderType::Complex));
    assert!(!codes(&o).contains(&"no-recipient"), "{:?}", codes(&o));
    round_trips(&o);
    let o = read("The artillery of the reserve to remain at Ledesma until the bridge is repaired.");
    assert_eq!(recipient(&o), Some("artillery of the reserve"));
    assert_eq!(o.order_type, Some(OrderType::General)); // a duration, no condition
    round_trips(&o);
    let o = read(
        "General Hill's corps to march at four in the afternoon upon Almendralejo, and the cavalry of the right to follow the corps.",
    );
    let second = o.stages.last().and_then(|s| s.subject.as_ref());
    assert_eq!(
        second.map(|s| s.text.as_str()),
        Some("cavalry of the right")
    );
    round_trips(&o);
}

/// "send a brigade and two battalions to support …" keeps its object: a telegraphic subject
/// after a bare "and" would split it.
#[test]
fn a_bare_and_before_troops_to_verb_is_no_new_subject() {
    let o = read(
        "General Cuesta will send a brigade of cavalry and two battalions to support the British right.",
    );
    assert!(
        o.stages.iter().all(|s| s.subject.is_none()),
        "{}",
        o.readback
    );
}

/// "will be followed by the 4th division": the 4th division follows (a move behind own troops,
/// 6.3.2), a stage of its own subject, never forces of the first stage.
#[test]
fn be_followed_by_is_a_stage_of_the_follower() {
    let o = read(
        "General Picton's division will assemble at daylight in rear of the 1st division, and will be followed by the 4th division.",
    );
    assert!(fired(&o, "lead.followed-by"), "{:?}", o.rules);
    assert_eq!(o.stages.len(), 2);
    let s = &o.stages[1];
    assert_eq!(
        s.subject.as_ref().map(|x| x.text.as_str()),
        Some("4th division")
    );
    assert_eq!(s.action, Action::Move);
    assert!(o.stages[0].steps.iter().all(|x| x.forces.is_empty()));
    assert_eq!(o.order_type, Some(OrderType::Complex)); // "at daylight", 30.0
    round_trips(&o);
}

/// "the whole of his corps", "the rest of your brigade", "part of his cavalry": troops, never an
/// unread "of".
#[test]
fn the_whole_of_and_the_rest_of_are_troops() {
    let o = read(
        "Marshal Ney will attack Gross-Görschen with the whole of his corps, and will carry it.",
    );
    assert!(fired(&o, "troops.part-of"), "{:?}", o.rules);
    assert_eq!(o.order_type, Some(OrderType::Engage));
    assert!(o.remarks.is_empty(), "{:?}", o.remarks);
    assert!(
        o.readback.contains("with the whole of his corps"),
        "{}",
        o.readback
    );
    round_trips(&o);
    let o = read(
        "You will occupy the wood in front of Heilsberg with your light troops, and support them with the rest of your brigade.",
    );
    assert!(o.remarks.is_empty(), "{:?}", o.remarks);
    assert_eq!(places(&o), ["Heilsberg"]);
}

/// "the bridge over the Saale" is a place description, never a route "via the Saale".
#[test]
fn the_bridge_over_a_river_is_no_route() {
    let o = read(
        "The Marshal Duke of Auerstädt will leave one division at Naumburg to guard the bridge over the Saale.",
    );
    assert!(fired(&o, "place.over"), "{:?}", o.rules);
    assert!(
        o.stages.iter().all(|s| s.route.is_empty()),
        "{}",
        o.readback
    );
    assert!(places(&o).contains(&"Saale"));
    assert!(!o.readback.contains("via"), "{}", o.readback);
    round_trips(&o);
}

/// "collect" as the subject's first action is "assemble" (a move); "cook" and "draw rations"
/// are the camp's chores, no stage, and the time written with them is theirs.
#[test]
fn collect_assembles_and_cooking_is_no_stage() {
    let o =
        read("The Prince of Orange is requested to collect at Nivelles the 2nd and 3rd divisions.");
    assert!(fired(&o, "verb.collect"), "{:?}", o.rules);
    assert_eq!(o.order_type, Some(OrderType::General));
    assert_eq!(o.stages[0].action, Action::Move);
    round_trips(&o);
    let o = read("The troops will cook at once, and be ready to march at ten o'clock.");
    assert!(fired(&o, "verb.administrative"), "{:?}", o.rules);
    assert_eq!(o.order_type, Some(OrderType::General));
    assert_eq!(o.stages.len(), 1);
    let t = o.stages[0].timing.as_ref().expect("when to be ready");
    assert!(!t.is_start(), "{t:?}"); // a deadline (verb.ready-to), not "at once"
    assert!(!codes(&o).contains(&"unstructured-text"), "{:?}", codes(&o));
    round_trips(&o);
}

/// Decision 0221: "so as to envelop …, and to fall upon his rear" is one purpose (the French "de
/// manière à … et à …"); the attack in it makes the stage Engage (§1.7).
#[test]
fn a_purpose_keeps_its_second_infinitive() {
    let o = read(
        "The Emperor orders you to manoeuvre so as to envelop the right of the enemy, and to fall upon his rear.",
    );
    assert_eq!(o.order_type, Some(OrderType::Engage));
    assert_eq!(o.stages.len(), 1);
    assert_eq!(
        o.intent.as_deref(),
        Some("envelop the right of the enemy, and to fall upon his rear")
    );
}

/// A man by his title and a surname ending in "s" is one man: "Marshal Lannes is to …".
#[test]
fn a_titled_surname_in_s_is_singular_in_the_read_back() {
    let o =
        read("His Majesty has directed Marshal Lannes to occupy Saalfeld with his advanced guard.");
    assert!(
        o.readback.starts_with("Marshal Lannes is to occupy"),
        "{}",
        o.readback
    );
    round_trips(&o);
}

/// "and there await further orders": "there" is where the next verb acts, read back after it
/// ("and await further orders there"), not "and there and await".
#[test]
fn and_there_await_reads_back_with_there_after_the_verb() {
    let o = read(
        "I am commanded by the Commander of the Forces to desire that you will move the brigade under your orders to Fuenteguinaldo to-morrow morning, and there await further orders.",
    );
    assert!(fired(&o, "pronoun.there-verb"), "{:?}", o.rules);
    assert!(
        o.readback
            .contains("to Fuenteguinaldo to-morrow morning and await further orders there"),
        "{}",
        o.readback
    );
    assert!(!o.readback.contains("there and"), "{}", o.readback);
    assert_eq!(o.order_type, Some(OrderType::Complex)); // "to-morrow morning", 30.0
    assert!(!codes(&o).contains(&"unstructured-text"), "{:?}", codes(&o));
    round_trips(&o);
}
