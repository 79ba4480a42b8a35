//! Reader gaps of issue 11 closed by reader17: a recipient named by his command ("the officer
//! commanding at X"), a bid passed on by a third person ("Colonel Elley will desire the officers
//! … to …"), a second subject with its own task in one wish ("…, and that General Cole will
//! …"), a pronoun recipient ("Tell him to …"), own troops named by their arm against a scenario
//! ("the light cavalry", "the heavy battery", "the Guards"), "meet them with the bayonet", a
//! flank of the enemy as the limit of an attack (6.4.4) and "the left of the line". Each test
//! asserts what a user sees: the recipient, the type, the stages, the places, the diagnostics
//! and the read-back.

use staffwork::order::{self, Action, CheckedOrder, Severity};
use staffwork::rules::OrderType;

use super::order_natural_leads::hall;

fn plain(text: &str) -> CheckedOrder {
    order::check_one(text, None, None)
}

fn talavera(text: &str, side: &str) -> CheckedOrder {
    let s = staffwork::scenario::bundled("talavera-1809").unwrap();
    order::check_one(text, Some(&s), Some(side))
}

fn codes(o: &CheckedOrder) -> Vec<&'static str> {
    o.diagnostics.iter().map(|d| d.code).collect()
}

fn unread(o: &CheckedOrder) -> bool {
    o.diagnostics.iter().any(|d| d.code == "unstructured-text")
}

fn recipient(o: &CheckedOrder) -> Option<&str> {
    o.recipient.as_ref().map(|r| r.text.as_str())
}

fn resolved(o: &CheckedOrder) -> Option<&str> {
    o.recipient
        .as_ref()
        .and_then(|r| r.resolved.as_ref())
        .map(|x| x.id.as_str())
}

fn place_texts(o: &CheckedOrder) -> Vec<&str> {
    o.places
        .iter()
        .map(|p| &o.text[p.span.0..p.span.1])
        .collect()
}

fn actions(o: &CheckedOrder) -> Vec<Action> {
    o.stages
        .iter()
        .flat_map(|s| s.steps.iter().map(|x| x.action))
        .collect()
}

/// The read-back reads again as the same order (docs/order-language.md §6).
fn rereads(o: &CheckedOrder, again: impl Fn(&str) -> CheckedOrder) {
    let a = again(&o.readback);
    assert_eq!(
        a.key, o.key,
        "read-back {:?} re-reads differently",
        o.readback
    );
}

#[test]
fn an_officer_named_by_his_command_is_the_recipient_and_his_place_stays_a_place() {
    // Rule `lead.commanding`: the officer is the recipient; "at Castello Branco" says where he
    // commands (a place of the order, no recipient, no objective).
    let o = plain(
        "The officer commanding at Castello Branco will destroy the bridge and will then retire to Sarzedas.",
    );
    assert_eq!(recipient(&o), Some("officer commanding at Castello Branco"));
    // Rule `place.definite` (decisions 0214, 0216): Castello Branco, a bare name, is no bridge,
    // so "the bridge" is a vague place of its own, not Castello Branco.
    assert_eq!(place_texts(&o), ["Castello Branco", "bridge", "Sarzedas"]);
    assert!(
        o.stages
            .iter()
            .all(|s| s.objectives.iter().all(|r| r.text != "Castello Branco")),
        "{}",
        o.readback
    );
    // Rule `verb.work-then`: destroying the bridge, then retiring, is two stages (6.3.3).
    assert_eq!(
        actions(&o),
        [Action::Halt, Action::Withdraw],
        "{}",
        o.readback
    );
    assert_eq!(o.order_type, Some(OrderType::Complex));
    assert!(!unread(&o), "{:?}", o.diagnostics);
    assert!(!codes(&o).contains(&"no-recipient"), "{:?}", o.diagnostics);
    assert!(
        o.readback
            .starts_with("The officer commanding at Castello Branco is to destroy the bridge"),
        "{}",
        o.readback
    );
    rereads(&o, plain);

    // Other commands and links: "the rear guard" is what he commands, not a verb "guard".
    for (text, who) in [
        (
            "The officer commanding the rear guard will hold the bridge at Sabugal until the baggage has passed.",
            "officer commanding the rear guard",
        ),
        (
            "The officer in command at Almeida is to hold the place to the last.",
            "officer in command at Almeida",
        ),
    ] {
        let o = plain(text);
        assert_eq!(recipient(&o), Some(who), "{text}: {}", o.readback);
        assert!(!unread(&o), "{text}: {:?}", o.diagnostics);
        assert_eq!(o.order_type, Some(OrderType::General), "{text}");
        rereads(&o, plain);
    }
}

#[test]
fn an_officer_named_by_his_command_resolves_to_the_command_a_scenario_has() {
    // Against Talavera (Allied side): "the cavalry" is the Cavalry Division, "the horse
    // artillery" the one horse battery; at the Pajar two Allied units stand, so he is none of
    // them, and the warning names both; nobody of the Allies is set up in Talavera.
    let o = talavera(
        "The officer commanding the horse artillery will follow Craufurd's brigade.",
        "allied",
    );
    assert_eq!(resolved(&o), Some("british-2lh"));
    assert!(!o.has_errors(), "{:?}", o.diagnostics);
    let o = talavera(
        "The officer commanding the cavalry will cover the left of the line.",
        "allied",
    );
    assert_eq!(resolved(&o), Some("cav-div"));
    let o = talavera(
        "The officer commanding at the Pajar de Vergara will hold it to the last.",
        "allied",
    );
    assert_eq!(resolved(&o), None);
    assert!(!o.has_errors(), "{:?}", o.diagnostics);
    let d = o
        .diagnostics
        .iter()
        .find(|d| d.code == "ambiguous-name")
        .expect("the candidates are named");
    assert!(
        d.message.contains("Skirmisher of the Van") && d.message.contains("20.15"),
        "{}",
        d.message
    );
    assert_eq!(place_texts(&o), ["Pajar de Vergara"]);
}

#[test]
fn a_bid_passed_on_gives_the_task_to_the_ones_bidden() {
    // Rule `lead.passed-on`: Elley only passes the order on; it is the regiments' officers'.
    let o = plain(
        "Colonel Elley will desire the officers commanding the cavalry regiments to send their led horses to the rear.",
    );
    assert_eq!(
        recipient(&o),
        Some("officers commanding the cavalry regiments")
    );
    assert!(
        o.courtesies
            .iter()
            .any(|c| c.text.starts_with("Colonel Elley")),
        "{:?}",
        o.courtesies
    );
    assert_eq!(actions(&o), [Action::Move]);
    assert!(place_texts(&o).is_empty(), "{:?}", place_texts(&o));
    assert_eq!(o.order_type, Some(OrderType::General));
    assert!(!unread(&o), "{:?}", o.diagnostics);
    rereads(&o, plain);

    // Another bid of the same shape, against a scenario: the one bidden is resolved.
    let o = talavera(
        "General Sherbrooke will request the officer commanding the Guards to hold the ground behind the Portina.",
        "allied",
    );
    assert_eq!(resolved(&o), Some("campbell-1"), "{:?}", o.recipient);
    assert!(!o.has_errors(), "{:?}", o.diagnostics);
}

#[test]
fn a_second_subject_in_one_wish_has_its_own_stage() {
    // Rule `lead.that-subject`: "…, and that General Cole will send …" — two recipients, each
    // with its own stage (the second stage's subject), as tests/it/several_recipients.rs keeps
    // several.
    let o = plain(
        "Lord Wellington desires that the 4th Division may halt at Guarda, and that General Cole will send a brigade to Celorico.",
    );
    assert_eq!(recipient(&o), Some("4th Division"));
    assert_eq!(o.stages.len(), 2, "{}", o.readback);
    assert!(o.stages[0].subject.is_none());
    assert_eq!(
        o.stages[1].subject.as_ref().map(|s| s.text.as_str()),
        Some("General Cole")
    );
    assert_eq!(actions(&o), [Action::Halt, Action::Move]);
    assert_eq!(o.stages[0].objectives[0].text, "Guarda");
    assert!(
        o.stages[1].objectives.iter().any(|r| r.text == "Celorico"),
        "{}",
        o.readback
    );
    assert_eq!(o.order_type, Some(OrderType::General));
    assert!(!unread(&o), "{:?}", o.diagnostics);
    assert_eq!(
        o.readback,
        "The 4th Division is to halt at Guarda. General Cole is to send a brigade to Celorico. General order."
    );
    rereads(&o, plain);

    // Against a scenario each subject resolves to its command; the crossing of the first is
    // not made an attack by the second's charge (rule `lead.that-subject` in 6.3.1).
    let o = talavera(
        "Sir Arthur desires that the 4th Division will hold the Pajar, and that General Mackenzie will support it.",
        "allied",
    );
    assert_eq!(resolved(&o), Some("4-div"));
    let second = o.stages[1]
        .subject
        .as_ref()
        .and_then(|s| s.resolved.as_ref());
    assert_eq!(second.map(|x| x.id.as_str()), Some("3-div"));
    assert!(!o.has_errors(), "{:?}", o.diagnostics);
    // A second subject named by its arm is the writer's one unit of it (rule `name.arm`),
    // never the enemy's unit the words also fit ("the Spanish heavy battery").
    let o = talavera(
        "The King desires that Ruffin's division will hold the Cascajal, and that the heavy battery will support it.",
        "french",
    );
    assert_eq!(resolved(&o), Some("1-i"));
    let second = o.stages[1]
        .subject
        .as_ref()
        .and_then(|s| s.resolved.as_ref());
    assert_eq!(
        second.map(|x| x.id.as_str()),
        Some("i-3hf"),
        "{}",
        o.readback
    );
    let o = plain(
        "The Commander of the Forces desires that the Light Division will cross the Agueda, and that the hussars will charge the enemy's pickets.",
    );
    assert_eq!(o.stages.len(), 2, "{}", o.readback);
    assert_eq!(
        o.stages[0].posture,
        staffwork::rules::Posture::General,
        "{}",
        o.key
    );
    rereads(&o, plain);
}

#[test]
fn a_pronoun_is_the_recipient_not_an_objective() {
    // Rule `pronoun.recipient`: "him" is the one the bearer is sent to.
    let o = plain("Tell him to hang upon the left flank of the enemy.");
    assert_eq!(recipient(&o), Some("him"));
    assert!(
        o.stages
            .iter()
            .all(|s| s.objectives.iter().all(|r| r.text != "him")),
        "{}",
        o.readback
    );
    assert_eq!(o.order_type, Some(OrderType::Engage));
    assert!(
        codes(&o).contains(&"implicit-recipient"),
        "{:?}",
        o.diagnostics
    );
    assert!(!codes(&o).contains(&"no-recipient"), "{:?}", o.diagnostics);
    assert!(!unread(&o), "{:?}", o.diagnostics);
    rereads(&o, plain);

    // The man named in the sentence before is the one meant.
    let o = plain(
        "General Alten is at Espeja with the cavalry. Tell him to fall back upon Fuentes de Oñoro if pressed.",
    );
    assert_eq!(recipient(&o), Some("General Alten"));
    assert!(
        o.readback.starts_with("General Alten is to fall back"),
        "{}",
        o.readback
    );
    rereads(&o, plain);

    // Against a scenario an unnamed "him" is no unknown command: a warning, no error.
    let o = talavera("Tell him to hold the Pajar de Vergara.", "allied");
    assert!(!o.has_errors(), "{:?}", o.diagnostics);
    assert!(
        codes(&o).contains(&"implicit-recipient"),
        "{:?}",
        o.diagnostics
    );
}

#[test]
fn own_troops_named_by_their_arm_resolve_to_the_writers_one_unit_of_that_arm() {
    // Rule `name.arm`: the one unit (or formation) of the writer's side of that arm.
    for (text, side, want) in [
        (
            "The horse artillery will come into action on the Medellin.",
            "allied",
            "british-2lh",
        ),
        (
            "The heavy guns will fire on the Cascajal from the Medellin.",
            "allied",
            "extremadura-2hf",
        ),
        (
            "The heavy battery will bombard the Pajar de Vergara.",
            "french",
            "i-3hf",
        ),
        (
            "The lancers will charge the guns in the Pajar.",
            "french",
            "merlin-cav-iv",
        ),
        // The French writer's Guards are the King's Guard, never the British Guards brigade.
        (
            "The Guards will stand in reserve at the Cascajal.",
            "french",
            "royal-guard",
        ),
        (
            "The Guards will stand in reserve behind the Medellin.",
            "allied",
            "campbell-1",
        ),
    ] {
        let o = talavera(text, side);
        assert_eq!(
            resolved(&o),
            Some(want),
            "{text} ({side}): {:?}",
            o.diagnostics
        );
        assert!(!o.has_errors(), "{text} ({side}): {:?}", o.diagnostics);
    }
}

#[test]
fn an_arm_several_units_fit_is_left_unresolved_naming_only_the_writers_units() {
    let scenario = staffwork::scenario::bundled("talavera-1809").unwrap();
    let names = |side: &str| -> Vec<String> {
        scenario
            .units
            .iter()
            .filter(|u| u.side == side)
            .map(|u| u.name.clone())
            .chain(
                scenario
                    .formations
                    .iter()
                    .filter(|f| f.side == side)
                    .map(|f| f.name.clone()),
            )
            .collect()
    };
    let cases: [(&str, &str, &str, &[&str]); 4] = [
        (
            "The light cavalry will watch the valley north of the Cerro de Medellín.",
            "allied",
            "french",
            &["Cotton's Brigade", "Anson's Brigade"],
        ),
        (
            "The light cavalry will scout towards the Tajo.",
            "french",
            "allied",
            &["Beamont's Brigade", "Strolz's Brigade (Cav-IV)"],
        ),
        (
            "The guns will open on the Cascajal.",
            "allied",
            "french",
            &["British (2Lf) battery at 20.15", "any of 12"],
        ),
        (
            "The artillery will fire on the Pajar de Vergara.",
            "french",
            "allied",
            &["1-I (2Lf) battery", "any of 9"],
        ),
    ];
    for (text, side, enemy, must) in cases {
        let o = talavera(text, side);
        assert_eq!(resolved(&o), None, "{text}");
        assert!(!o.has_errors(), "{text}: {:?}", o.diagnostics);
        let d = o
            .diagnostics
            .iter()
            .find(|d| d.code == "ambiguous-name")
            .unwrap_or_else(|| panic!("{text}: {:?}", o.diagnostics));
        assert_eq!(d.severity, Severity::Warning);
        for m in must {
            assert!(d.message.contains(*m), "{text}: {}", d.message);
        }
        for n in names(enemy) {
            assert!(
                !d.message.contains(&n),
                "{text}: names the enemy's {n}: {}",
                d.message
            );
        }
    }
    // An unknown recipient's suggestions are the writer's own commands only.
    let o = talavera("General Ney: attack Talavera.", "french");
    let d = o
        .diagnostics
        .iter()
        .find(|d| d.code == "unknown-recipient")
        .expect("Ney is no command of this scenario");
    assert!(d.help.starts_with("did you mean"), "{}", d.help);
    for n in names("allied") {
        assert!(
            !d.help.contains(&format!("\"{n}\"")),
            "suggests the Allies' {n}: {}",
            d.help
        );
    }
}

#[test]
fn meet_them_with_the_bayonet_is_an_attack() {
    // "meet" is one line of grammar/lexicon.toml (attack): engaging the approaching enemy.
    let o = talavera(
        "Should the French columns cross the Portina, the Guards will meet them with the bayonet.",
        "allied",
    );
    assert_eq!(actions(&o), [Action::Attack], "{}", o.readback);
    assert_eq!(o.cost_type, Some(OrderType::Engage));
    assert_eq!(o.order_type, Some(OrderType::Complex));
    assert!(o.stages[0].condition.is_some());
    assert_eq!(resolved(&o), Some("campbell-1"));
    let o = hall("3rd Div: hold Kümla and meet the enemy's columns with the bayonet.");
    assert!(actions(&o).contains(&Action::Attack), "{}", o.readback);
    assert!(!unread(&o), "{:?}", o.diagnostics);
    // Decision 0203: why a command takes its ground is no attack of its own.
    let o = hall("2nd Div: march to Kümla in order to meet the enemy's column coming from Säter.");
    assert_eq!(o.order_type, Some(OrderType::General), "{}", o.key);
    assert!(o.intent.is_some());
}

#[test]
fn a_flank_of_the_enemy_limits_an_attack_and_a_compass_point_does_not() {
    // Decision 0201 (6.4.4): "the English left" is a particular body to attack, the limit of
    // the march that approaches it.
    for text in [
        "The 3rd Division will march north and fall upon the English left.",
        "Ruffin: march north and fall upon the English left.",
        "General Reynier will cross the Coa and fall upon the enemy's right.",
        "The 2nd Division will advance west and attack the enemy's left flank.",
    ] {
        let o = plain(text);
        assert!(
            !codes(&o).contains(&"open-ended"),
            "{text}: {:?}",
            o.diagnostics
        );
        assert_eq!(o.order_type, Some(OrderType::Engage), "{text}");
        assert!(
            place_texts(&o)
                .iter()
                .all(|p| !p.contains("left") && !p.contains("right")),
            "{text}"
        );
    }
    // Only whose troops, or only a direction, is still no limit.
    for text in [
        "The 3rd Division will march north and fall upon the enemy.",
        "The 3rd Division will attack west!",
    ] {
        let o = plain(text);
        assert!(
            codes(&o).contains(&"open-ended"),
            "{text}: {:?}",
            o.diagnostics
        );
    }
}

#[test]
fn the_left_of_the_line_is_read_as_one_phrase() {
    // Rule `name.side-of` (decision 0203): a side of the own line or army is a part of the
    // troops (no place); a side of "the position" is a vague place.
    for (text, phrase) in [
        (
            "The cavalry brigade will cover the left of the line.",
            "the left of the line",
        ),
        (
            "The 3rd Division will cover the right of the army.",
            "the right of the army",
        ),
        (
            "Anson: protect the right flank of the line.",
            "the right flank of the line",
        ),
    ] {
        let o = plain(text);
        assert!(!unread(&o), "{text}: {:?}", o.diagnostics);
        assert!(place_texts(&o).is_empty(), "{text}: {:?}", place_texts(&o));
        assert!(
            !codes(&o).contains(&"vague-place"),
            "{text}: {:?}",
            o.diagnostics
        );
        assert!(o.readback.contains(phrase), "{text}: {}", o.readback);
        rereads(&o, plain);
    }
    let o = plain("The reserve artillery will take post in the centre of the position.");
    assert!(!unread(&o), "{:?}", o.diagnostics);
    assert_eq!(place_texts(&o), ["centre of the position"]);
    assert!(codes(&o).contains(&"vague-place"), "{:?}", o.diagnostics);
    rereads(&o, plain);
}
