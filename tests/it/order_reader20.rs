//! Reader gaps of issue 11 closed by reader20, found on a fresh set of real orders 1806–1814
//! (`tests/data/orders/corpus/reader20-real.toml`): bids inside a sentence and in the
//! imperative ("Order the Polish light horse to Compiègne", "Show this letter and desire Hill
//! to …", "Send to Le Cor, and desire him to …"), a list of recipients before a wish ("I wish
//! the 6th division, and General Pack's brigade, to …"), a passive with two agents, thanks in
//! advance as a courtesy ("I shall be much obliged to you, if you will …"), a pronoun passive
//! ("It must be placed on a strong position"), "Frankfort on the Oder", spans of days, "too"
//! after a name, a participle describing a noun, and "observe" an article of orders. Each test
//! asserts what a user sees: type, recipients, places, diagnostics, read-back, rules.

use staffwork::order::{self, Action, CheckedOrder, Severity};
use staffwork::rules::OrderType;

fn plain(text: &str) -> CheckedOrder {
    order::check_one(text, None, None)
}

fn places(o: &CheckedOrder) -> Vec<&str> {
    o.places.iter().map(|p| p.text.as_str()).collect()
}

fn errors(o: &CheckedOrder) -> Vec<&'static str> {
    o.diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.code)
        .collect()
}

fn fired(o: &CheckedOrder, rule: &str) -> bool {
    o.rules.iter().any(|r| r == rule)
}

/// Rule `lead.bid-imperative` (a): "Order X to Y" bids X march to Y (6.3.2: General; a start
/// time makes it Complex, 30.0). Before reader20 this was an `unreadable` error.
#[test]
fn order_x_to_a_place_is_a_march_of_the_ones_bidden() {
    let o = plain("Order the Polish light horse to Compiègne to-morrow.");
    assert!(errors(&o).is_empty(), "{:?}", errors(&o));
    let r = o.recipient.as_ref().expect("the ones bidden");
    assert_eq!(r.text, "Polish light horse");
    assert_eq!(o.stages.len(), 1, "{}", o.readback);
    assert_eq!(o.stages[0].action, Action::Move);
    assert_eq!(o.order_type, Some(OrderType::Complex), "a start time");
    assert_eq!(places(&o), ["Compiègne"]);
    assert!(o.readback.contains("march to Compiègne"), "{}", o.readback);
    assert!(fired(&o, "lead.bid-imperative"));
}

/// Rule `lead.bid-imperative` (b): a bid after "and" inside a sentence names the one bidden;
/// "give orders" moves nobody, so there is no stage and no error; a person is no place.
#[test]
fn a_bid_inside_a_sentence_names_the_one_bidden() {
    let o =
        plain("Show this letter and desire Hill to give orders accordingly to Sir Robert Kennedy.");
    assert_eq!(o.recipient.as_ref().map(|r| r.text.as_str()), Some("Hill"));
    assert!(o.stages.is_empty(), "{}", o.readback);
    assert!(errors(&o).is_empty(), "{:?}", errors(&o));
    assert!(!places(&o).contains(&"Show"), "{:?}", places(&o));
    assert!(
        !places(&o).contains(&"Sir Robert Kennedy"),
        "{:?}",
        places(&o)
    );
}

/// Rule `lead.send-to`: "Send to Le Cor, and desire him to …" — Le Cor is the recipient, never
/// "Send".
#[test]
fn send_to_a_general_and_desire_him_names_that_general() {
    let o = plain(
        "Send to Le Cor, and desire him to have at least a battalion and two guns on the \
         northern extremity of the Serra da Murcella.",
    );
    assert_eq!(
        o.recipient.as_ref().map(|r| r.text.as_str()),
        Some("Le Cor")
    );
    assert!(fired(&o, "lead.send-to"));
}

/// Rule `lead.wish-list`: every name before the wish's "to" is a recipient (rule
/// `lead.several`), the read-back names them all.
#[test]
fn a_list_of_recipients_before_a_wish_keeps_them_all() {
    let o = plain(
        "I wish the 6th division, and General Pack's brigade, to cross the Tagus to-morrow, the \
         18th instant, and to move to Niza.",
    );
    let r = o.recipient.as_ref().expect("the first");
    assert_eq!(r.text, "6th division");
    let also: Vec<&str> = o.also.iter().map(|a| a.text.as_str()).collect();
    assert_eq!(also, ["General Pack's brigade"]);
    assert!(
        o.readback
            .starts_with("The 6th division and General Pack's brigade are to cross"),
        "{}",
        o.readback
    );
    assert_eq!(o.order_type, Some(OrderType::Complex));
}

/// Rule `lead.passive-agents`: two agents after "by" are two recipients (Vimeiro: Anstruther's
/// 7th Brigade and Trant's Portuguese).
#[test]
fn a_passive_with_two_agents_keeps_both() {
    let s = staffwork::scenario::bundled("vimeiro-1808").unwrap();
    let o = order::check_one(
        "The village is to be held by Anstruther's brigade and the Portuguese brigade.",
        Some(&s),
        Some("british"),
    );
    let first = o.recipient.as_ref().and_then(|r| r.resolved.as_ref());
    assert_eq!(first.map(|x| x.id.as_str()), Some("7-anstruther"));
    let also: Vec<&str> = o
        .also
        .iter()
        .filter_map(|a| a.resolved.as_ref().map(|x| x.id.as_str()))
        .collect();
    assert_eq!(also, ["trant"], "{:?}", o.also);
    assert!(errors(&o).is_empty(), "{:?}", errors(&o));
}

/// Rule `lead.obliged`: thanks in advance and "if you will" are a courtesy, never the writer's
/// own intention nor a condition; a logistic order is General (6.3.2).
#[test]
fn thanks_in_advance_are_a_courtesy_not_a_condition() {
    let o = plain(
        "I shall likewise be much obliged to you, if you will take measures to have taken out of \
         the water, placed upon their carriages, and drawn into Elvas, the five boats now formed \
         into the two flying bridges.",
    );
    assert_eq!(o.order_type, Some(OrderType::General), "{}", o.readback);
    assert!(o.stages.iter().all(|s| s.condition.is_none()));
    assert!(fired(&o, "lead.obliged"));
    // Rule `clause.participle-description`: the bridges describe the boats.
    assert_eq!(places(&o), ["Elvas"]);
}

/// Rule `lead.passive-pronoun`: "It must be placed on …" is the addressee's force taking post.
#[test]
fn it_must_be_placed_is_the_addressees_force_taking_post() {
    let o = plain("It must be placed on a strong position.");
    assert_eq!(o.stages.len(), 1, "{}", o.readback);
    assert_eq!(o.stages[0].action, Action::Deploy);
    assert_eq!(places(&o), ["strong position"]);
    // "It is to be held by the 2nd Division" stays a passive with an agent (rule lead.passive).
    let o = plain("It is to be held by the 2nd Division.");
    assert!(!fired(&o, "lead.passive-pronoun"));
}

/// Rules `name.on-river` and `name.between-edges`: "Frankfort on the Oder" in a list is one
/// town; "too strong" after a name is no part of it.
#[test]
fn a_town_on_its_river_is_one_place_and_too_ends_a_name() {
    let o = plain(
        "You will despatch parties of light cavalry on the roads to Kustrin, Langsberg, and \
         Frankfort on the Oder.",
    );
    assert!(
        places(&o).contains(&"Frankfort on the Oder"),
        "{:?}",
        places(&o)
    );
    assert!(!places(&o).contains(&"Oder"), "{:?}", places(&o));
    assert_eq!(o.order_type, Some(OrderType::General));
    let o = plain(
        "You may depend upon it that we cannot make the position between Oyarzun and the \
         Bidasoa too strong.",
    );
    assert!(places(&o).contains(&"Bidasoa"), "{:?}", places(&o));
    assert!(
        !places(&o).iter().any(|p| p.contains("strong")),
        "{:?}",
        places(&o)
    );
}

/// Rules `time.between` and `lead.everything-subject`: a span of days is a time, never a place
/// called "15th of February"; "everything that belongs to …" is what moves.
#[test]
fn a_span_of_days_is_a_time_and_everything_that_belongs_moves() {
    let o = plain(
        "Everything that belongs to your staff and to general headquarters must be assembled at \
         Mainz between the 15th of February and the 1st of March.",
    );
    assert_eq!(places(&o), ["Mainz"]);
    assert_eq!(
        o.recipient.as_ref().map(|r| r.text.as_str()),
        Some("Everything that belongs to your staff and to general headquarters")
    );
    assert_eq!(
        o.order_type,
        Some(OrderType::General),
        "a window is no start time"
    );
    // The read-back reads again as the same order.
    let again = plain(o.readback.trim_end_matches(" General order."));
    assert_eq!(again.key, o.key, "{}", o.readback);
}

/// Rule `verb.observe-orders`: "observe" an article of the instructions moves nobody.
#[test]
fn observing_an_article_of_orders_is_no_stage() {
    let o = plain("Pray observe particularly the 29th Article of the Instructions.");
    assert!(o.stages.is_empty(), "{}", o.readback);
    assert!(o.places.is_empty(), "{:?}", places(&o));
    assert!(errors(&o).is_empty(), "{:?}", errors(&o));
    // "observe the enemy" is still a watch.
    let o = plain("2nd Div: observe the enemy at Kümla.");
    assert_eq!(o.stages.len(), 1);
}

/// Rule `time.day-word` inside a name, and lexicon lines ("start", "despatch", "fix", "direct
/// your march", "take measures", "Poles"): one test per line of data that reader20 added.
#[test]
fn reader20_lexicon_lines_are_read() {
    let o = plain("Start the 3d regiment of the grenadiers of the Guard to-morrow, for Metz.");
    assert_eq!(o.order_type, Some(OrderType::Complex), "{}", o.readback);
    assert!(
        !places(&o).iter().any(|p| p.contains("to-morrow")),
        "{:?}",
        places(&o)
    );
    let o = plain("Fix your head-quarters on the road to Kustrin.");
    assert_eq!(o.stages[0].action, Action::Deploy);
    let o = plain("You will direct your march on Berlin.");
    assert_eq!(o.stages[0].action, Action::Move);
    let o = plain("Keep the secret, so that the Poles shall not know where they are going.");
    assert!(o.places.is_empty(), "{:?}", places(&o));
    assert!(o.stages.is_empty(), "{}", o.readback);
    let o = plain("You may put the whole army, if you like it, under his command.");
    assert!(o.stages.iter().all(|s| s.condition.is_none()), "a courtesy");
    let o = plain("You will despatch a squadron to Kustrin.");
    assert_eq!(o.stages[0].action, Action::Move);
}
