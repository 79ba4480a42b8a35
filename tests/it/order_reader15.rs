//! Reader gaps left open by session 9 (issue 11, the lead's probes): "whilst" and "meanwhile",
//! a generic arm with a report duty, "send … forward in support of X", a subject with a
//! prepositional phrase, "the heights above X", a passive "on no account" prohibition, names
//! with d'/de particles and a short name two hills share. The sentences are not those of the
//! probes: each rule is tested on other sentences of the same shape.

use staffwork::order::{self, Action, CheckedOrder};
use staffwork::rules::OrderType;

use super::order_natural_leads::{hall, vimeiro};

fn talavera(text: &str) -> CheckedOrder {
    let s = staffwork::scenario::bundled("talavera-1809").unwrap();
    order::check_one(text, Some(&s), Some("french"))
}

fn actions(o: &CheckedOrder) -> Vec<Action> {
    o.stages
        .iter()
        .flat_map(|s| s.steps.iter().map(|x| x.action))
        .collect()
}

fn plain(text: &str) -> CheckedOrder {
    order::check_one(text, None, None)
}

fn unread(o: &CheckedOrder) -> bool {
    o.diagnostics.iter().any(|d| d.code == "unstructured-text")
}

fn rereads(o: &CheckedOrder) {
    let again = plain(&o.readback);
    assert_eq!(
        again.key, o.key,
        "read-back {:?} re-reads differently",
        o.readback
    );
}

#[test]
fn whilst_is_while_and_meanwhile_keeps_the_clause_subject() {
    // Rule `cond.while` (30.0): "whilst" and a clause is another command's simultaneous action,
    // a condition of the stage, never a stage nor an unread word.
    for (text, cond) in [
        (
            "General Hill will hold the bridge at Almaraz whilst the 2nd Division passes the Tagus.",
            "whilst the 2nd Division passes the Tagus",
        ),
        (
            "Whilst the enemy holds Hall, the 3rd Division will hold Kümla.",
            "Whilst the enemy holds Hall",
        ),
        (
            "Pack: watch the ford whilst Bradford crosses the Agueda.",
            "whilst Bradford crosses the Agueda",
        ),
        // After a relation's name ("behind the Portina whilst …") and the recipient's own
        // things ("its present position whilst …"): the word is cut off the name.
        (
            "Mackenzie will fall back behind the Portina whilst the guns on the Medellin cover his retreat.",
            "whilst the guns on the Medellin cover his retreat",
        ),
        (
            "The 6th Division will remain in its present position whilst the 3rd Division crosses the river.",
            "whilst the 3rd Division crosses the river",
        ),
    ] {
        let o = plain(text);
        assert!(!unread(&o), "{text}: {:?}", o.diagnostics);
        assert_eq!(o.stages.len(), 1, "{text}: {}", o.readback);
        assert_eq!(
            o.stages[0].condition.as_ref().map(|c| c.text.as_str()),
            Some(cond),
            "{text}: {}",
            o.readback
        );
        assert_eq!(o.order_type, Some(OrderType::Complex), "{text}");
        rereads(&o);
    }
    // "meanwhile" / "in the meantime" carry no command: the subject after them is a clause's.
    for text in [
        "3rd Div: hold Kümla; meanwhile the 2nd Div will attack Hall from the west.",
        "3rd Div: hold Kümla; in the meantime the 2nd Div will attack Hall from the west.",
    ] {
        let o = hall(text);
        assert!(!unread(&o), "{text}: {:?}", o.diagnostics);
        assert_eq!(o.stages.len(), 2, "{text}: {}", o.readback);
        let subject = o.stages[1].subject.as_ref().expect("a subject");
        assert!(subject.text.contains("2nd Div"), "{text}: {subject:?}");
        assert_eq!(o.stages[0].objectives.len(), 1, "{text}: {}", o.readback);
    }
}

#[test]
fn a_passive_prohibition_with_its_negator_after_the_link() {
    // Rule `neg.passive` (6.3.2: an order that only forbids is General, no stage): "is on no
    // account to be", "are by no means to be" forbid that verb on the subject, also when the
    // subject opens the sentence; where and until when belong to what is forbidden.
    for (text, forbidden) in [
        (
            "The baggage is on no account to be brought forward.",
            "bring the baggage forward",
        ),
        ("The guns are not to be withdrawn.", "withdraw the guns"),
        (
            "The 2nd Division will hold Hall; the wagons are on no account to be sent across the river.",
            "send the wagons across the river",
        ),
        (
            "2nd Div: hold Hall. The bridge at Kümla is by no means to be destroyed before the 3rd Division has passed.",
            "destroy the bridge at Kümla before the 3rd Division has passed",
        ),
    ] {
        let o = plain(text);
        assert!(!unread(&o), "{text}: {:?}", o.diagnostics);
        assert_eq!(o.prohibitions.len(), 1, "{text}: {:?}", o.prohibitions);
        assert_eq!(o.prohibitions[0].text, forbidden, "{text}");
        assert!(
            o.readback.contains(&format!("not to {forbidden}")),
            "{text}: {}",
            o.readback
        );
        // The forbidden thing is never an objective of a stage.
        for s in &o.stages {
            assert!(
                s.objectives.iter().all(|r| !forbidden.contains(&r.text)),
                "{text}: {}",
                o.readback
            );
        }
        rereads(&o);
    }
    let o = plain("The baggage is on no account to be brought forward.");
    assert!(o.stages.is_empty(), "{}", o.readback);
    assert_eq!(o.order_type, Some(OrderType::General));
}

#[test]
fn a_description_above_or_below_a_name_is_that_place_with_the_relation() {
    // Rule `place.above` after `name.edges`: the name's edges no longer swallow "the heights
    // above" into an unread word; the place is the named one, relative to it.
    for (text, id, rel) in [
        ("2nd Div: form on the heights above Hall.", "hall", "above"),
        ("Form on the heights above Hall.", "hall", "above"),
        (
            "3rd Div: halt in the meadows below Kirseberg.",
            "kirseberg",
            "below",
        ),
        (
            "4th Div: deploy on the slopes above Kümla.",
            "kumla",
            "above",
        ),
    ] {
        let o = hall(text);
        assert!(!unread(&o), "{text}: {:?}", o.diagnostics);
        let objs: Vec<_> = o.stages.iter().flat_map(|s| &s.objectives).collect();
        let named = objs
            .iter()
            .find(|r| r.resolved.as_ref().is_some_and(|x| x.id == id))
            .unwrap_or_else(|| panic!("{text}: {objs:?}"));
        assert_eq!(named.relation.as_deref(), Some(rel), "{text}");
        assert!(
            o.readback.contains(&format!("{rel} ")),
            "{text}: {}",
            o.readback
        );
        assert_eq!(hall(&o.readback).key, o.key, "{text}: {}", o.readback);
    }
}

#[test]
fn a_name_with_an_elided_particle_stays_one_name() {
    // Rule `name.edges`: "d'Aver", "l'Orme" (an elided particle on a capitalised word) are words
    // of the name, never an unread word cut off after it.
    for (text, place) in [
        (
            "2nd Div: hold the bridge at Nave d'Aver.",
            "bridge at Nave d'Aver",
        ),
        ("Pack: occupy Nave d’Aver.", "Nave d’Aver"),
        ("Spencer: fall back on Pont d'Arcos.", "Pont d'Arcos"),
        ("The 4th Division will halt at Mont l'Orme.", "Mont l'Orme"),
        (
            "Slade: cross at the ford of Castel de Rodrigo.",
            "ford of Castel de Rodrigo",
        ),
    ] {
        let o = plain(text);
        assert!(!unread(&o), "{text}: {:?}", o.diagnostics);
        let objs: Vec<_> = o.stages.iter().flat_map(|s| &s.objectives).collect();
        assert_eq!(objs.len(), 1, "{text}: {objs:?}");
        assert_eq!(objs[0].text, place, "{text}");
        rereads(&o);
    }
}

#[test]
fn in_support_of_a_command_is_a_support_step_of_it() {
    // Rule `verb.in-support-of` (6.3.2: General): "in support of X" supports X; "send the
    // rest forward" moves the rest (its forces), never an objective called "rest".
    let o = talavera("Sebastiani: send the rest forward in support of Ruffin.");
    assert!(!unread(&o), "{:?}", o.diagnostics);
    assert_eq!(
        actions(&o),
        vec![Action::Move, Action::Support],
        "{}",
        o.readback
    );
    assert_eq!(o.order_type, Some(OrderType::General), "{}", o.readback);
    let steps = &o.stages[0].steps;
    assert_eq!(steps[0].forces[0].text, "rest", "{:?}", steps[0]);
    assert!(steps[0].objectives.is_empty(), "{:?}", steps[0].objectives);
    assert!(steps[0].direction.is_some(), "{:?}", steps[0]);
    let ruffin = steps[1].objectives[0].resolved.as_ref().expect("resolved");
    assert_eq!(ruffin.id, "1-i");
    assert_eq!(talavera(&o.readback).key, o.key, "{}", o.readback);
    // Other sentences of the shape: a move, or "follow" (after a friendly command: no pursuit).
    for (text, first) in [
        (
            "The 2nd Division will move up in support of the 1st Division.",
            Action::Move,
        ),
        (
            "Pack: push on towards Salamanca in support of the Light Division.",
            Action::Move,
        ),
        (
            "The hussars will follow in support of the dragoons.",
            Action::Move,
        ),
    ] {
        let o = plain(text);
        assert!(!unread(&o), "{text}: {:?}", o.diagnostics);
        assert_eq!(
            actions(&o),
            vec![first, Action::Support],
            "{text}: {}",
            o.readback
        );
        assert_eq!(
            o.order_type,
            Some(OrderType::General),
            "{text}: {}",
            o.readback
        );
        assert!(
            o.readback.contains(" in support of "),
            "{text}: {}",
            o.readback
        );
        rereads(&o);
    }
    let o = vimeiro("Kellerman's grenadiers will follow in support of Loison.");
    assert_eq!(o.order_type, Some(OrderType::General), "{}", o.readback);
    assert!(!unread(&o), "{:?}", o.diagnostics);
}

fn talavera_allied(text: &str) -> CheckedOrder {
    let s = staffwork::scenario::bundled("talavera-1809").unwrap();
    order::check_one(text, Some(&s), Some("allied"))
}

#[test]
fn a_subject_with_a_place_is_the_recipient_standing_there() {
    // Rule `lead.subject-where`: the troops before the preposition are the recipient; the place
    // is where they stand (a place of the order), never the recipient nor an objective.
    // Rule `cond.as` (30.0): "as they advance" is when, a condition, never a second stage.
    let o = talavera_allied(
        "The artillery on the Cerro will open on the enemy's columns as they advance.",
    );
    assert_eq!(
        o.recipient.as_ref().unwrap().text,
        "artillery",
        "{}",
        o.readback
    );
    assert_eq!(o.stages.len(), 1, "{}", o.readback);
    assert_eq!(actions(&o), vec![Action::Attack], "{}", o.readback);
    let objs: Vec<_> = o.stages[0]
        .objectives
        .iter()
        .map(|r| r.text.as_str())
        .collect();
    assert_eq!(objs, vec!["enemy's columns"], "{}", o.readback);
    assert_eq!(
        o.stages[0].condition.as_ref().map(|c| c.text.as_str()),
        Some("as they advance")
    );
    assert!(o.places.iter().any(|p| p.text == "Cerro"), "{:?}", o.places);
    assert!(!unread(&o), "{:?}", o.diagnostics);
    // Read back with the recipient, where it stands, so a pronoun after it still means it.
    assert!(
        o.readback
            .starts_with("The artillery on the Cerro is to open on"),
        "{}",
        o.readback
    );
    assert_eq!(talavera_allied(&o.readback).key, o.key, "{}", o.readback);
    let o = hall("The 2nd Division in Hall will hold it to the last.");
    assert!(
        o.readback.starts_with("2nd Division in Hall is to hold it"),
        "{}",
        o.readback
    );
    let again = hall(&o.readback);
    assert_eq!(
        (again.key, again.order_type),
        (o.key.clone(), o.order_type),
        "{}",
        o.readback
    );
    // Other sentences of the shape, with a scenario that knows the troops and the place.
    for (text, who, at, obj) in [
        (
            "The 2nd Division at Kümla will attack Hall from the west.",
            "div-2",
            "kumla",
            "hall",
        ),
        (
            "The 3rd Division on Hinzeberg is to hold Kirseberg.",
            "div-3",
            "hinzeberg",
            "kirseberg",
        ),
        // A relation the grammar reads whole ("near Kümla") stands for where they are too.
        (
            "The 4th Division near Kümla will occupy Kirseberg.",
            "div-4",
            "kumla",
            "kirseberg",
        ),
    ] {
        let o = hall(text);
        assert_eq!(
            super::order_natural_leads::recipient_id(&o).as_deref(),
            Some(who),
            "{text}: {}",
            o.readback
        );
        let objs: Vec<_> = o.stages.iter().flat_map(|s| &s.objectives).collect();
        assert_eq!(objs.len(), 1, "{text}: {objs:?}");
        assert_eq!(objs[0].resolved.as_ref().map(|r| r.id.as_str()), Some(obj));
        assert!(
            o.places
                .iter()
                .any(|p| p.resolved.as_ref().is_some_and(|r| r.id == at)),
            "{text}: {:?}",
            o.places
        );
        assert!(!o.has_errors(), "{text}: {:?}", o.diagnostics);
        assert_eq!(hall(&o.readback).key, o.key, "{text}: {}", o.readback);
    }
    // A pronoun after any condition's starter is its subject: "if they advance" is one
    // condition, not a condition "if they" and a stage "advance".
    let o = plain("2nd Div: charge the enemy's cavalry if they advance.");
    assert_eq!(o.stages.len(), 1, "{}", o.readback);
    assert_eq!(
        o.stages[0].condition.as_ref().map(|c| c.text.as_str()),
        Some("if they advance")
    );
    rereads(&o);
}

#[test]
fn a_generic_arm_is_the_recipient_and_its_report_duty_no_place() {
    // Rule `lead.third-person` with a generic arm, rule `clause.report-duty`: "and report …" is
    // kept with the stage and read back, never a stage (6.3.2), a place nor an unread word.
    for (text, who, duty) in [
        (
            "The light cavalry is to scour the country towards Escalona and report anything that moves.",
            "light cavalry",
            "and report anything that moves",
        ),
        (
            "The dragoons will watch the fords of the Agueda, and report the enemy's movements.",
            "dragoons",
            "and report the enemy's movements",
        ),
        (
            "The hussars are to patrol towards Säter and send word of what they find at Kümla.",
            "hussars",
            "and send word of what they find at Kümla",
        ),
    ] {
        let o = plain(text);
        assert_eq!(
            o.recipient.as_ref().map(|r| r.text.as_str()),
            Some(who),
            "{text}"
        );
        assert!(!unread(&o), "{text}: {:?}", o.diagnostics);
        assert_eq!(o.stages.len(), 1, "{text}: {}", o.readback);
        assert_eq!(o.stages[0].steps.len(), 1, "{text}: {}", o.readback);
        assert!(o.stages[0].condition.is_none(), "{text}: {}", o.readback);
        assert_eq!(o.order_type, Some(OrderType::General), "{text}");
        assert!(
            o.stages[0].steps[0].manner.iter().any(|m| m == duty),
            "{text}: {:?}",
            o.stages[0].steps[0].manner
        );
        assert!(o.readback.contains(duty), "{text}: {}", o.readback);
        assert!(
            o.places
                .iter()
                .all(|p| !p.text.contains("anything") && p.text != "find"),
            "{text}: {:?}",
            o.places
        );
        rereads(&o);
    }
    // A place named in the duty is still a place of the order, no objective.
    let o = hall(
        "Cav-I: patrol towards Säter and send word of what you find at Kümla, then return to Hall.",
    );
    assert!(o.places.iter().any(|p| p.text == "Kümla"), "{:?}", o.places);
    assert!(
        o.stages
            .iter()
            .flat_map(|s| &s.objectives)
            .all(|r| r.text != "Kümla"),
        "{}",
        o.readback
    );
}

#[test]
fn a_short_name_two_places_share_is_ambiguous_and_names_both() {
    // Rule `name.shared-word`: "the Cerro" in Talavera is either hill; the reader says so,
    // naming both, and takes neither (it used to call it "not a place on this map").
    for text in [
        "Hill: hold the Cerro.",
        "The artillery on the Cerro will open on the enemy's columns as they advance.",
    ] {
        let o = talavera_allied(text);
        let d = o
            .diagnostics
            .iter()
            .find(|d| d.code == "ambiguous-name" && d.message.contains("\"Cerro\""))
            .unwrap_or_else(|| panic!("{text}: {:?}", o.diagnostics));
        assert!(d.message.contains("Cerro de Cascajal"), "{}", d.message);
        assert!(d.message.contains("Cerro de Medellín"), "{}", d.message);
        assert!(!d.message.contains("slope"), "{}", d.message);
        assert!(
            o.diagnostics.iter().all(|d| d.code != "unknown-place"),
            "{text}: {:?}",
            o.diagnostics
        );
        let cerro = o
            .places
            .iter()
            .find(|p| p.text == "Cerro")
            .expect("a place");
        assert!(cerro.resolved.is_none(), "{cerro:?}");
    }
    // A name only one place holds whole still resolves, and the full name is never ambiguous.
    let o = talavera_allied("Hill: hold the Cerro de Medellín.");
    assert!(
        o.diagnostics
            .iter()
            .all(|d| d.code != "ambiguous-name" || !d.message.contains("Cerro")),
        "{:?}",
        o.diagnostics
    );
    assert_eq!(
        o.stages[0].objectives[0]
            .resolved
            .as_ref()
            .map(|r| r.id.as_str()),
        Some("cerro-de-medellin")
    );
}

#[test]
fn peninsula_probes_of_reader15_read_whole() {
    // Orders written in the manner of the Peninsula (1810–1811) that left words unread or
    // misread their stages; each checks the rule it needed.
    for (text, kind, n_steps) in [
        // `neg.prohibition`: "and is on no account to" is one negator.
        (
            "The Light Division is to fall back upon the Coa, covering the retreat of the baggage, and is on no account to engage a superior force.",
            OrderType::General,
            1,
        ),
        // `clause.participle` with a verb that is no stage ("keeping up").
        (
            "Should the enemy cross the Agueda in force, the cavalry will retire by the road to Alfayates, keeping up the communication with the Light Division.",
            OrderType::Complex,
            1,
        ),
        // `clause.report-duty`: a task that moves nobody ("destroy the bridge of boats").
        (
            "General Hill will send a brigade across the Tagus at Almaraz and destroy the bridge of boats.",
            OrderType::General,
            1,
        ),
        // "receive further orders" is waiting for them (halt).
        (
            "The 7th Division will march upon Villar Formoso, where it will halt and receive further orders.",
            OrderType::General,
            3,
        ),
        // `cond.while` after the recipient's own things ("its present position whilst").
        (
            "The 6th Division will remain in its present position whilst the 3rd Division crosses the river.",
            OrderType::Complex,
            1,
        ),
        // `verb.bring` with troops in lower case taken across a river: a move, no capture.
        (
            "Sir Stapleton Cotton will take the light cavalry across the Coa by the bridge at Castello Bom, and form on the heights beyond it.",
            OrderType::General,
            2,
        ),
    ] {
        let o = plain(text);
        assert!(!unread(&o), "{text}: {:?}", o.diagnostics);
        assert_eq!(o.order_type, Some(kind), "{text}: {}", o.readback);
        let steps: usize = o.stages.iter().map(|s| s.steps.len()).sum();
        assert_eq!(steps, n_steps, "{text}: {}", o.readback);
        rereads(&o);
    }
    let o = plain(
        "The Light Division is to fall back upon the Coa, and is on no account to engage a superior force.",
    );
    assert_eq!(o.prohibitions.len(), 1, "{:?}", o.prohibitions);
    assert_eq!(o.prohibitions[0].text, "engage a superior force");
    let o =
        plain("The hussars are to keep their horses saddled, ready to move at a moment's notice.");
    assert!(!unread(&o), "{:?}", o.diagnostics);
}

#[test]
fn a_passive_supported_by_troops_and_a_later_step_after_a_condition() {
    // Rule `with.supported-by` inside a passive (`lead.passive-own`): "supported by the 95th"
    // goes with them; it is no agent, no route and no support step.
    let o =
        plain("The light companies are to be pushed forward into the wood, supported by the 95th.");
    assert_eq!(
        o.recipient.as_ref().map(|r| r.text.as_str()),
        Some("light companies"),
        "{}",
        o.readback
    );
    assert_eq!(actions(&o), vec![Action::Move], "{}", o.readback);
    assert!(!unread(&o), "{:?}", o.diagnostics);
    assert!(o.stages[0].route.is_empty(), "{:?}", o.stages[0].route);
    rereads(&o);
    // Rule `lead.same-subject` with "afterwards": the condition ends before it, and what comes
    // afterwards is a stage of its own (6.3.3: a sequence).
    let o = plain(
        "The cavalry will cover the retreat of the infantry whilst it passes the defile, and will afterwards form behind Fuente Guinaldo.",
    );
    assert!(!unread(&o), "{:?}", o.diagnostics);
    assert_eq!(o.stages.len(), 2, "{}", o.readback);
    assert_eq!(
        o.stages[0].condition.as_ref().map(|c| c.text.as_str()),
        Some("whilst it passes the defile")
    );
    assert!(o.stages[1].condition.is_none(), "{}", o.readback);
    rereads(&o);
}

#[test]
fn a_subject_before_a_negator_that_holds_its_link_is_the_recipient() {
    // Rule `lead.third-person` with a negator of the lexicon that holds the link ("is not to",
    // "is on no account to"): the troops before it are the recipient, the verb is forbidden.
    for (text, id, forbidden) in [
        (
            "The reserve battery is not to limber up before the 3rd Division has left Hinzeberg.",
            "art-i",
            "limber up",
        ),
        (
            "The 3rd Division is on no account to abandon Kümla.",
            "div-3",
            "abandon Kümla",
        ),
        (
            "The 2nd Division at Kümla is on no account to cross the Viskan.",
            "div-2",
            "cross the Viskan",
        ),
    ] {
        let o = hall(text);
        assert_eq!(
            super::order_natural_leads::recipient_id(&o).as_deref(),
            Some(id),
            "{text}: {:?}",
            o.diagnostics
        );
        assert_eq!(o.prohibitions.len(), 1, "{text}: {:?}", o.prohibitions);
        assert!(
            o.prohibitions[0].text.starts_with(forbidden),
            "{text}: {:?}",
            o.prohibitions
        );
        assert!(o.stages.is_empty(), "{text}: {}", o.readback);
        assert!(!o.has_errors(), "{text}: {:?}", o.diagnostics);
        assert_eq!(hall(&o.readback).key, o.key, "{text}: {}", o.readback);
    }
    // Rule `cond.while` with an action noun's phrase as the subject and a verb form the lexicon
    // does not know ("goes on").
    let o = plain("The baggage is to be sent back to Kümla whilst the attack on Hall goes on.");
    assert!(!unread(&o), "{:?}", o.diagnostics);
    assert_eq!(
        o.stages[0].condition.as_ref().map(|c| c.text.as_str()),
        Some("whilst the attack on Hall goes on")
    );
    assert_eq!(o.order_type, Some(OrderType::Complex), "{}", o.readback);
    rereads(&o);
}

#[test]
fn an_inverted_negator_and_a_route_by_a_quarter_of_the_compass() {
    // Rule `neg.prohibition`: "on no account are you to engage" is one negator, read back as
    // "is not to engage"; rule `route.round`: "round by the north" is a direction, no word left.
    let o = vimeiro(
        "Brennier: march round by the north, and fall upon the English left; on no account are you to engage before Loison has attacked.",
    );
    assert!(!unread(&o), "{:?}", o.diagnostics);
    assert_eq!(o.prohibitions.len(), 1, "{:?}", o.prohibitions);
    assert_eq!(
        o.prohibitions[0].text, "engage before Loison has attacked",
        "{}",
        o.readback
    );
    assert!(!o.readback.contains("are you"), "{}", o.readback);
    let march = &o.stages[0].steps[0];
    assert_eq!(
        march.direction.as_ref().and_then(|d| d.compass.as_deref()),
        Some("north"),
        "{march:?}"
    );
    assert_eq!(vimeiro(&o.readback).key, o.key, "{}", o.readback);
    let o = plain("Pack: march by the east to Salamanca; by no means are you to enter the town.");
    assert!(!unread(&o), "{:?}", o.diagnostics);
    assert_eq!(o.prohibitions.len(), 1, "{:?}", o.prohibitions);
    rereads(&o);
}

#[test]
fn a_subject_with_may_is_the_recipient_of_a_permission() {
    // "Campbell may retire to Talavera if pressed": "may" links a subject to its action as
    // "will" does (staff letters grant leave so: "the 4th Division may halt at …"). The word is
    // read, not left as a remark, and the subject is the recipient.
    for (text, who, action) in [
        (
            "The 4th Division may halt at Talavera until further orders.",
            "4th Division",
            Action::Halt,
        ),
        (
            "Campbell may retire to Talavera if pressed.",
            "Campbell",
            Action::Withdraw,
        ),
    ] {
        let s = staffwork::scenario::bundled("talavera-1809").unwrap();
        let o = order::check_one(text, Some(&s), Some("allied"));
        assert_eq!(o.recipient.as_ref().unwrap().text, who, "{text}");
        assert!(actions(&o).contains(&action), "{text}: {:?}", actions(&o));
        assert!(!unread(&o), "{text}: {:?}", o.diagnostics);
        let again = order::check_one(&o.readback, Some(&s), Some("allied"));
        assert_eq!(
            again.key, o.key,
            "read-back {:?} re-reads differently",
            o.readback
        );
    }
}

#[test]
fn you_may_addresses_the_recipient() {
    // Rule `lead.you` with leave: "2nd Div: you may withdraw to Kümla if pressed" — "you may"
    // is the recipient addressed, never a remark; a condition's "may" stays in the condition.
    let o = hall("2nd Div: you may withdraw to Kümla if pressed.");
    assert!(!unread(&o), "{:?}", o.diagnostics);
    assert!(o.rules.iter().any(|r| r == "lead.you"), "{:?}", o.rules);
    assert_eq!(actions(&o), vec![Action::Withdraw]);
    let o = hall("2nd Div: if the enemy may attack, hold Hall.");
    assert!(!o.rules.iter().any(|r| r == "lead.you"), "{:?}", o.rules);
    assert_eq!(actions(&o), vec![Action::Defend]);
}
