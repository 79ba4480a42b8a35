//! Orders in the manner of the Peninsula (1810–1813) that the reader misread when probed: a span
//! of time before an event, "put in motion", "no X are to be allowed", a participle clause after
//! a comma, a condition whose verb takes an infinitive ("attempt to pass") (issue 11).

use staffwork::order::{self, CheckedOrder};
use staffwork::rules::OrderType;

use super::order_natural_leads::{hall, vimeiro};

fn plain(text: &str) -> CheckedOrder {
    order::check_one(text, None, None)
}

fn unread(o: &CheckedOrder) -> bool {
    o.diagnostics.iter().any(|d| d.code == "unstructured-text")
}

#[test]
fn a_span_of_time_before_an_event_is_a_start_time() {
    // Rule `time.offset` (30.0: a start time makes the order Complex).
    for (text, when) in [
        (
            "The divisions are to be under arms an hour before daylight.",
            "an hour before daylight",
        ),
        (
            "The brigade will be under arms two hours before daylight.",
            "two hours before daylight",
        ),
        (
            "The 4th Division will march half an hour before dawn.",
            "half an hour before dawn",
        ),
        (
            "The cavalry will advance 30 minutes after daybreak.",
            "30 minutes after daybreak",
        ),
    ] {
        let o = plain(text);
        assert!(!unread(&o), "{text}: {:?}", o.diagnostics);
        assert_eq!(
            o.order_type,
            Some(OrderType::Complex),
            "{text}: {}",
            o.readback
        );
        let t = o.stages[0].timing.as_ref().expect("a timing");
        assert_eq!(t.text, when, "{text}");
        assert!(t.is_start(), "{text}: {t:?}");
        assert!(o.readback.contains(when), "{text}: {}", o.readback);
        assert_eq!(plain(&o.readback).readback, o.readback, "{text}");
    }
    // A bare "before daybreak" stays a deadline.
    let o = plain("The cavalry will advance before daybreak.");
    assert!(
        !o.stages[0].timing.as_ref().unwrap().is_start(),
        "{}",
        o.readback
    );
}

#[test]
fn putting_troops_in_motion_is_a_move_of_those_troops() {
    // Rule `verb.split-object` with a phrase-only verb ("put … in motion", "set … in motion"):
    // a move (6.3.2: General), the troops inside are what moves, never an objective.
    for (text, troops) in [
        (
            "Major-General Cole will have the goodness to put the 4th Division in motion at 4 a.m.",
            "4th Division",
        ),
        (
            "General Hill will set his columns in motion towards Merida.",
            "his columns",
        ),
        (
            "Lord Wellington desires that General Picton will put the 3rd Division in motion.",
            "3rd Division",
        ),
    ] {
        let o = plain(text);
        assert!(!unread(&o), "{text}: {:?}", o.diagnostics);
        assert!(
            o.diagnostics.iter().all(|d| d.code != "no-action"),
            "{text}: {:?}",
            o.diagnostics
        );
        assert_eq!(o.stages.len(), 1, "{text}: {}", o.readback);
        let st = &o.stages[0];
        assert_eq!(st.action, staffwork::order::Action::Move, "{text}");
        assert!(
            st.objectives.iter().all(|r| r.text != troops),
            "{text}: {:?}",
            st.objectives
        );
        assert!(
            st.steps[0].forces.iter().any(|r| r.text == troops),
            "{text}: {:?}",
            st.steps[0].forces
        );
        assert!(o.readback.contains("in motion"), "{text}: {}", o.readback);
        assert_eq!(plain(&o.readback).readback, o.readback, "{text}");
    }
}

#[test]
fn no_troops_are_to_be_allowed_there_is_a_prohibition_with_its_place() {
    // Rule `neg.passive` with "no" and "allowed"/"permitted" on a noun that is no action (an
    // action noun is `neg.no-noun`): allowing them is forbidden, where and when included.
    for (text, forbidden, stage) in [
        (
            "The baggage of the army will be sent to the rear, and no carts are to be allowed upon the high road.",
            "allow carts upon the high road",
            "be sent to the rear",
        ),
        (
            "2nd Div: hold Hall; no stragglers are to be permitted in the village.",
            "permit stragglers in the village",
            "hold Hall",
        ),
        (
            "2nd Div: hold Hall; the guns are not to be withdrawn from the ridge before noon.",
            "withdraw the guns from the ridge before noon",
            "hold Hall",
        ),
    ] {
        let o = plain(text);
        assert!(!unread(&o), "{text}: {:?}", o.diagnostics);
        assert_eq!(
            o.prohibitions
                .iter()
                .map(|p| p.text.as_str())
                .collect::<Vec<_>>(),
            [forbidden],
            "{text}: {}",
            o.readback
        );
        assert_eq!(o.stages.len(), 1, "{text}: {}", o.readback);
        assert!(
            o.readback.contains(&format!("{stage},"))
                || o.readback.contains(&format!("{stage} and")),
            "{text}: {}",
            o.readback
        );
        assert_eq!(plain(&o.readback).readback, o.readback, "{text}");
    }
    // An action noun stays `neg.no-noun`: the movement itself is forbidden.
    let o = plain("2nd Div: hold Hall; no movement is to be permitted before dawn.");
    assert_eq!(o.prohibitions.len(), 1, "{}", o.readback);
    assert!(
        o.prohibitions[0].text.starts_with("movement"),
        "{:?}",
        o.prohibitions
    );
}

#[test]
fn a_participle_clause_after_a_comma_is_how_the_stage_is_done() {
    // Rule `clause.participle`: a manner of the stage (6.3.2), not a remark nor an objective.
    for (text, manner) in [
        (
            "General Picton will move the 3rd Division to the right, keeping his left on the Azava, and be ready to support the Light Division if it is pressed.",
            "keeping his left on the Azava",
        ),
        (
            "2nd Div: march to Kümla, covering the bridge with the light companies.",
            "covering the bridge with the light companies",
        ),
        (
            "The Light Division will retire on Fuentes, skirmishing with the enemy.",
            "skirmishing with the enemy",
        ),
    ] {
        let o = plain(text);
        assert!(!unread(&o), "{text}: {:?}", o.diagnostics);
        assert!(o.remarks.is_empty(), "{text}: {:?}", o.remarks);
        let st = &o.stages[0];
        assert!(
            st.steps[0].manner.iter().any(|m| m == manner),
            "{text}: {:?}",
            st.steps[0].manner
        );
        assert!(
            st.objectives.iter().all(|r| !manner.contains(&r.text)),
            "{text}: {:?}",
            st.objectives
        );
        assert!(
            o.readback.contains(&format!(", {manner}")),
            "{text}: {}",
            o.readback
        );
        assert_eq!(plain(&o.readback).readback, o.readback, "{text}");
    }
    // With a scenario, the clause does not turn the stage into an attack or add an objective.
    let o = hall("3rd Div: advance on Hall, keeping the stream on your left, and attack at noon.");
    assert!(!unread(&o), "{:?}", o.diagnostics);
}

#[test]
fn a_condition_with_a_verb_of_trying_keeps_its_infinitive_and_gives_way_to_the_subject() {
    // Rules `cond.attempt-to` and `cond.then-subject` (30.0: a condition makes it Complex).
    for (text, condition, who, said) in [
        (
            "Should the enemy attempt to pass the river, the brigade is to dispute the passage.",
            "Should the enemy attempt to pass the river",
            "brigade",
            "dispute the passage",
        ),
        (
            "If the French try to cross at the ford, the light infantry will defend the bank.",
            "If the French try to cross at the ford",
            "light infantry",
            "defend the bank",
        ),
        (
            "Should the enemy endeavour to turn our right, the cavalry is to charge him in flank.",
            "Should the enemy endeavour to turn our right",
            "cavalry",
            "charge him in flank",
        ),
    ] {
        let o = plain(text);
        assert!(!unread(&o), "{text}: {:?}", o.diagnostics);
        assert_eq!(
            o.order_type,
            Some(OrderType::Complex),
            "{text}: {}",
            o.readback
        );
        assert_eq!(o.stages.len(), 1, "{text}: {}", o.readback);
        assert_eq!(
            o.stages[0].condition.as_ref().map(|c| c.text.as_str()),
            Some(condition),
            "{text}: {}",
            o.readback
        );
        assert_eq!(
            o.recipient.as_ref().map(|r| r.text.to_lowercase()),
            Some(who.to_string()),
            "{text}: {}",
            o.readback
        );
        assert!(o.readback.contains(said), "{text}: {}", o.readback);
        assert_eq!(plain(&o.readback).readback, o.readback, "{text}");
    }
}

#[test]
fn following_an_own_brigade_and_another_general_task_is_one_stage() {
    // Rule `verb.follow-own` (Vimeiro, French): once the pursuit is a move, the General stages
    // joined by "and" are one stage as `build::stages` groups them (6.3.3: General, not Complex).
    for text in [
        "Solignac will follow Charlot closely and keep his brigade well in hand.",
        "Solignac will follow Charlot and hold the ridge.",
    ] {
        let o = vimeiro(text);
        assert!(
            o.rules.iter().any(|r| r == "verb.follow-own"),
            "{text}: {:?}",
            o.rules
        );
        assert_eq!(o.stages.len(), 1, "{text}: {}", o.readback);
        assert_eq!(o.stages[0].steps.len(), 2, "{text}: {}", o.readback);
        assert_eq!(
            o.order_type,
            Some(OrderType::General),
            "{text}: {}",
            o.readback
        );
        assert_eq!(vimeiro(&o.readback).readback, o.readback, "{text}");
    }
    // Two sentences, or "then", stay two stages.
    for text in [
        "Solignac will follow Charlot closely. Keep your brigade well in hand.",
        "Solignac will follow Charlot closely and then attack Vimeiro Hill.",
    ] {
        let o = vimeiro(text);
        assert_eq!(o.stages.len(), 2, "{text}: {}", o.readback);
        assert_eq!(
            o.order_type,
            Some(OrderType::Complex),
            "{text}: {}",
            o.readback
        );
    }
}

#[test]
fn ready_to_act_as_circumstances_require_is_a_manner() {
    // Lexicon manners: left to the commander's judgement, no condition and no stage (6.3.2).
    let text = "The heavy cavalry will remain in the rear of the 1st Division, ready to act as circumstances may require.";
    let o = plain(text);
    assert!(!unread(&o), "{:?}", o.diagnostics);
    assert!(o.remarks.is_empty(), "{:?}", o.remarks);
    assert_eq!(o.order_type, Some(OrderType::General), "{}", o.readback);
    let manner = &o.stages[0].steps[0].manner;
    assert!(
        manner.iter().any(|m| m == "as circumstances may require"),
        "{manner:?}"
    );
    assert!(
        o.stages[0]
            .objectives
            .iter()
            .all(|r| r.text != "circumstances")
    );
    assert_eq!(plain(&o.readback).readback, o.readback);
}

#[test]
fn above_and_below_a_place_and_not_quitting_a_position_are_read() {
    // Rule `place.above`: where, relative to the place (never an unread word).
    for (text, said) in [
        (
            "The 7th Division will cross the Coa at the ford of Seceiras and take post on the heights above it.",
            "above it",
        ),
        (
            "3rd Div: cross at the ford below the bridge.",
            "below the bridge",
        ),
    ] {
        let o = plain(text);
        assert!(!unread(&o), "{text}: {:?}", o.diagnostics);
        assert!(
            o.rules.iter().any(|r| r == "place.above"),
            "{text}: {:?}",
            o.rules
        );
        assert!(o.readback.contains(said), "{text}: {}", o.readback);
        assert_eq!(plain(&o.readback).readback, o.readback, "{text}");
    }
    // "quit" (lexicon: withdraw) after "will not" is a prohibition (neg.prohibition).
    let o = plain("General Spencer will not quit his position without further orders.");
    assert!(
        o.diagnostics.iter().all(|d| d.code != "no-action"),
        "{:?}",
        o.diagnostics
    );
    assert_eq!(o.prohibitions.len(), 1, "{}", o.readback);
    assert!(
        o.prohibitions[0].text.starts_with("quit his position"),
        "{:?}",
        o.prohibitions
    );
}
