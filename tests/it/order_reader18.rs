//! Reader gaps of issue 11 closed by reader18: an attack that waits for the sender's word ("charge
//! only on my order", decision 0207), formation phrases as manner ("in columns of attack"), "in
//! hand" and "throw … in" (commit to the attack, decision 0208), terrain nouns with no name ("among
//! the vines", "from the churchyard"), "round" a place as a stage's route (6.4.4), "send a brigade
//! to X" (the troops sent, not an objective) and an unnamed "him" read back so that it reads
//! again the same. Each test asserts what a user sees: the type, the stages, the places, the
//! diagnostics and the read-back.

use staffwork::order::{self, Action, CheckedOrder, Severity};
use staffwork::rules::{OrderType, Posture};

use super::order_natural_leads::hall;

fn vimeiro(text: &str, side: &str) -> CheckedOrder {
    let s = staffwork::scenario::bundled("vimeiro-1808").unwrap();
    order::check_one(text, Some(&s), Some(side))
}

fn talavera(text: &str, side: &str) -> CheckedOrder {
    let s = staffwork::scenario::bundled("talavera-1809").unwrap();
    order::check_one(text, Some(&s), Some(side))
}

fn codes(o: &CheckedOrder) -> Vec<&'static str> {
    o.diagnostics.iter().map(|d| d.code).collect()
}

fn places(o: &CheckedOrder) -> Vec<(&str, Option<&str>)> {
    o.places
        .iter()
        .map(|p| (p.text.as_str(), p.resolved.as_ref().map(|x| x.id.as_str())))
        .collect()
}

/// 6.4.4 with decision 0207: a charge released only by the sender's own order is no open-ended
/// attack; the order waits, and the note says the releasing word must give direction and limit.
#[test]
fn a_charge_on_my_order_waits_for_the_word_and_is_not_open_ended() {
    let o = vimeiro(
        "The 20th Light Dragoons will remain behind the hill and charge only on my order.",
        "british",
    );
    assert_eq!(o.order_type, Some(OrderType::Complex));
    assert_eq!(o.stages.len(), 2);
    assert_eq!(o.stages[1].posture, Posture::Engage);
    let c = o.stages[1].condition.as_ref().expect("the charge waits");
    assert_eq!(c.text, "on my order");
    let cs = codes(&o);
    assert!(!cs.contains(&"open-ended"), "{cs:?}");
    assert!(!cs.contains(&"unstructured-text"), "{cs:?}");
    assert!(!cs.contains(&"condition-may-fail"), "{cs:?}");
    let note = o
        .diagnostics
        .iter()
        .find(|d| d.code == "awaits-order")
        .expect("a note says the charge waits for the word");
    assert_eq!(note.severity, Severity::Note);
    assert!(
        o.readback.contains("charge only on my order"),
        "{}",
        o.readback
    );
    assert!(!o.diagnostics.iter().any(|d| d.severity == Severity::Error));
    for (text, cond) in [
        ("The 20th will charge on my signal.", "on my signal"),
        ("The 20th will charge at my signal.", "at my signal"),
        ("The 20th will charge on the signal.", "on the signal"),
        ("The 20th will charge when ordered.", "when ordered"),
        ("The 20th will charge when I send word.", "when I send word"),
    ] {
        let o = vimeiro(text, "british");
        assert_eq!(o.order_type, Some(OrderType::Complex), "{text}");
        assert_eq!(
            o.stages[0].condition.as_ref().map(|c| c.text.as_str()),
            Some(cond),
            "{text}"
        );
        let cs = codes(&o);
        assert!(cs.contains(&"awaits-order"), "{text}: {cs:?}");
        assert!(!cs.contains(&"open-ended"), "{text}: {cs:?}");
    }
    // Any other condition is still a condition that may fail, and an unlimited charge still
    // open-ended.
    let o = vimeiro("The 20th will charge when the French waver.", "british");
    assert!(codes(&o).contains(&"condition-may-fail"), "{:?}", codes(&o));
    let o = vimeiro("The 20th will charge.", "british");
    assert!(codes(&o).contains(&"open-ended"), "{:?}", codes(&o));
}

/// 8.2: "in columns of attack" is how the division attacks, one Engage stage with the attack
/// (decision 0208), no unknown word.
#[test]
fn columns_of_attack_are_the_manner_of_the_attack() {
    let o = vimeiro(
        "Delaborde: form your division in columns of attack and carry Vimeiro hill.",
        "french",
    );
    assert_eq!(o.order_type, Some(OrderType::Engage));
    assert_eq!(o.stages.len(), 1);
    let cs = codes(&o);
    assert!(!cs.contains(&"unknown-word"), "{cs:?}");
    assert!(!cs.contains(&"unstructured-text"), "{cs:?}");
    assert!(
        o.stages[0].steps[0]
            .manner
            .iter()
            .any(|m| m == "in columns of attack"),
        "{:?}",
        o.stages[0].steps[0].manner
    );
    assert_eq!(places(&o), vec![("Vimeiro hill", Some("vimeiro-hill"))]);
    for f in [
        "in column",
        "in line",
        "in square",
        "in close column",
        "in open column",
        "in echelon",
    ] {
        let text = format!("Loison: advance {f} to Ventosa.");
        let o = vimeiro(&text, "french");
        let cs = codes(&o);
        assert!(!cs.contains(&"unknown-word"), "{text}: {cs:?}");
        assert!(!cs.contains(&"unstructured-text"), "{text}: {cs:?}");
        assert_eq!(places(&o), vec![("Ventosa", Some("ventosa"))], "{text}");
    }
}

/// "hold … in hand" is a reserve, "throw them in" an attack (decision 0208) that here waits for
/// the sender's word (decision 0207).
#[test]
fn grenadiers_in_hand_are_thrown_in_when_word_is_sent() {
    let o = vimeiro(
        "Kellermann, hold the grenadiers in hand behind the ridge and throw them in only when I send word.",
        "french",
    );
    let cs = codes(&o);
    assert!(!cs.contains(&"unknown-word"), "{cs:?}");
    assert!(!cs.contains(&"open-ended"), "{cs:?}");
    assert!(cs.contains(&"awaits-order"), "{cs:?}");
    assert_eq!(o.order_type, Some(OrderType::Complex));
    assert_eq!(o.stages.len(), 2);
    assert_eq!(o.stages[0].posture, Posture::General);
    assert_eq!(o.stages[1].posture, Posture::Engage);
    assert_eq!(o.stages[1].steps[0].action, Action::Attack);
    assert!(
        o.stages[0].steps[0].manner.iter().any(|m| m == "in hand"),
        "{:?}",
        o.stages[0].steps[0].manner
    );
    let o = vimeiro(
        "Loison: advance in echelon from the left and throw your leading brigade into Vimeiro.",
        "french",
    );
    assert_eq!(o.order_type, Some(OrderType::Engage));
    assert!(places(&o).contains(&("Vimeiro", Some("vimeiro"))));
}

/// Terrain with no name is a vague place, never an unknown word.
#[test]
fn vines_and_churchyards_are_terrain() {
    let o = vimeiro(
        "Fane and Anstruther will hold Vimeiro hill to the last, the riflemen in front among the vines.",
        "british",
    );
    let cs = codes(&o);
    assert!(!cs.contains(&"unknown-word"), "{cs:?}");
    assert!(cs.contains(&"vague-place"), "{cs:?}");
    assert_eq!(
        places(&o),
        vec![("Vimeiro hill", Some("vimeiro-hill")), ("vines", None)]
    );
    let o = vimeiro(
        "Acland's brigade is to support Anstruther from the churchyard.",
        "british",
    );
    assert!(!codes(&o).contains(&"unknown-word"), "{:?}", codes(&o));
    assert_eq!(places(&o), vec![("churchyard", None)]);
    assert_eq!(o.order_type, Some(OrderType::General));
    // "the garden walls of Vimeiro" is Vimeiro.
    let o = vimeiro(
        "Bowes: hold the garden walls of Vimeiro until relieved.",
        "british",
    );
    assert_eq!(places(&o), vec![("Vimeiro", Some("vimeiro"))]);
    for t in ["cemetery", "gardens", "enclosure", "olive grove"] {
        let text = format!("Bowes: hold the {t} near Ventosa.");
        let o = vimeiro(&text, "british");
        assert!(
            !codes(&o).contains(&"unknown-word"),
            "{text}: {:?}",
            codes(&o)
        );
    }
}

/// 6.4.4: going round a place is the stage's route; going round enemy-held ground is Engage
/// (6.3.1).
#[test]
fn round_a_place_is_the_route() {
    let o = talavera(
        "General Ruffin will move at daybreak round the northern foot of the Cerro de Medellín and turn the English left.",
        "french",
    );
    let cs = codes(&o);
    assert!(!cs.contains(&"no-route"), "{cs:?}");
    assert_eq!(o.order_type, Some(OrderType::Complex));
    assert_eq!(o.stages[0].posture, Posture::Engage);
    let route: Vec<&str> = o.stages[0].steps[0]
        .route
        .iter()
        .map(|r| r.text.as_str())
        .collect();
    assert_eq!(route, vec!["Cerro de Medellín"]);
    assert_eq!(
        places(&o),
        vec![("Cerro de Medellín", Some("cerro-de-medellin"))]
    );
    assert!(
        o.readback
            .contains("round the northern foot of the Cerro de Medellín"),
        "{}",
        o.readback
    );
    // An attack whose march goes round a hill has its route.
    let o = talavera(
        "Villatte will march around the Cerro de Cascajal and fall upon the British guns on the Medellín.",
        "french",
    );
    assert!(!codes(&o).contains(&"no-route"), "{:?}", codes(&o));
    assert_eq!(o.order_type, Some(OrderType::Engage));
}

/// "send a brigade to X": the brigade is the troops sent; a move into enemy-held ground after
/// holding steps is a stage of its own (6.3).
#[test]
fn a_brigade_sent_is_a_force_not_an_objective() {
    let o = hall("2nd Div: send a brigade to Kümla.");
    let st = &o.stages[0].steps[0];
    let objs: Vec<&str> = st.objectives.iter().map(|r| r.text.as_str()).collect();
    let forces: Vec<&str> = st.forces.iter().map(|r| r.text.as_str()).collect();
    assert_eq!(objs, vec!["Kümla"]);
    assert_eq!(forces, vec!["brigade"]);
    assert_eq!(
        o.readback,
        "2nd Division is to send a brigade to Kümla. General order."
    );
    let o = talavera(
        "Sebastiani's division will hold the enclosures along the Portina and send a brigade to the olive groves.",
        "french",
    );
    assert_eq!(o.order_type, Some(OrderType::Complex));
    assert_eq!(o.stages.len(), 2);
    assert_eq!(o.stages[0].posture, Posture::General);
    assert_eq!(o.stages[1].posture, Posture::Engage);
    let again = talavera(&o.readback, "french");
    assert_eq!(again.key, o.key, "{}", o.readback);
}

/// An unnamed "him" reads back as "The officer addressed", which reads again as the same order
/// with the same warning, never an unknown command.
#[test]
fn an_unnamed_him_reads_back_as_the_officer_addressed() {
    let o = hall("Tell him to hold Hall.");
    assert_eq!(
        o.readback,
        "The officer addressed is to hold Hall. General order."
    );
    assert!(codes(&o).contains(&"implicit-recipient"));
    let again = hall(&o.readback);
    assert_eq!(again.key, o.key);
    assert_eq!(again.readback, o.readback);
    assert!(
        codes(&again).contains(&"implicit-recipient"),
        "{:?}",
        codes(&again)
    );
    assert!(
        !codes(&again).contains(&"unknown-recipient"),
        "{:?}",
        codes(&again)
    );
    let o = hall("Him: hold Hall.");
    assert!(!codes(&o).contains(&"unknown-recipient"), "{:?}", codes(&o));
}
