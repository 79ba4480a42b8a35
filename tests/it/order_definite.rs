//! Issue 11 item 5, closed by reader19: a bare definite description — "the village", "the town",
//! "the bridge", "the heights" — points back to the last place **of its kind** named before it in
//! the order, as "that village" does (rule `place.definite`, decision 0214); with none of its
//! kind it is a scenario alias or a vague place of its own, never silently dropped; a scenario's
//! one place of a kind is not assumed (decision 0215); without a scenario a place's kind is read
//! from the order's own words (decision 0216). Each test asserts what a user sees: the resolved
//! ids, the places, the diagnostics, the rules `check --explain` prints.

use staffwork::order::{self, CheckedOrder, Form};
use staffwork::rules::OrderType;

use super::common::{staffwork, stdout};
use super::order_natural_leads::hall;

fn scen(name: &str, text: &str, side: &str) -> CheckedOrder {
    let s = staffwork::scenario::bundled(name).unwrap();
    order::check_one(text, Some(&s), Some(side))
}

fn plain(text: &str) -> CheckedOrder {
    order::check_one(text, None, None)
}

fn places(o: &CheckedOrder) -> Vec<(&str, Option<&str>)> {
    o.places
        .iter()
        .map(|p| (p.text.as_str(), p.resolved.as_ref().map(|x| x.id.as_str())))
        .collect()
}

fn place_texts(o: &CheckedOrder) -> Vec<&str> {
    o.places.iter().map(|p| p.text.as_str()).collect()
}

/// The last objective of the order's last step: (text, form, resolved id).
fn last_objective(o: &CheckedOrder) -> (String, Form, Option<String>) {
    let r = o
        .stages
        .last()
        .and_then(|s| s.steps.last())
        .and_then(|x| x.objectives.last())
        .unwrap_or_else(|| panic!("no objective: {}", o.key));
    (
        r.text.clone(),
        r.form,
        r.resolved.as_ref().map(|x| x.id.clone()),
    )
}

/// The resolved id of the objective written `text` (without its article).
fn objective(o: &CheckedOrder, text: &str) -> Option<String> {
    o.stages
        .iter()
        .flat_map(|s| s.steps.iter().flat_map(|x| &x.objectives))
        .find(|r| r.text == text)
        .unwrap_or_else(|| panic!("no objective {text:?}: {}", o.key))
        .resolved
        .as_ref()
        .map(|x| x.id.clone())
}

fn codes(o: &CheckedOrder) -> Vec<&'static str> {
    o.diagnostics.iter().map(|d| d.code).collect()
}

#[test]
fn the_village_is_the_last_village_named_not_the_last_place() {
    // The brief's first example: Hall is a village, the Mill bridge is not.
    let o = hall("2nd Div: take Hall, then cross the Mill bridge and hold the village.");
    assert_eq!(
        last_objective(&o),
        ("village".into(), Form::Pronoun, Some("hall".into())),
        "{}",
        o.key
    );
    assert_eq!(
        places(&o),
        [("Hall", Some("hall")), ("Mill bridge", Some("mill-bridge"))]
    );
    assert!(!codes(&o).contains(&"vague-place"), "{:?}", codes(&o));
    assert!(
        o.rules.iter().any(|r| r == "place.definite"),
        "{:?}",
        o.rules
    );
    // Exactly like the demonstrative: the same objective, the same stages and postures.
    let that = hall("2nd Div: take Hall, then cross the Mill bridge and hold that village.");
    assert_eq!(last_objective(&that).2, last_objective(&o).2);
    let postures = |o: &CheckedOrder| o.stages.iter().map(|s| s.posture).collect::<Vec<_>>();
    assert_eq!(postures(&o), postures(&that));
    // "the town" of a village, "the hill" of Hinzeberg.
    let o = hall("2nd Div: storm Hall, then hold the town against all counterattacks.");
    assert_eq!(objective(&o, "town").as_deref(), Some("hall"));
    let o = hall("4th Div: march by the Hinzeberg road to Kümla and hold the village.");
    assert_eq!(last_objective(&o).2.as_deref(), Some("kumla"));
    let o = hall("4th Div: take post on Hinzeberg and hold the hill until dusk.");
    assert_eq!(last_objective(&o).2.as_deref(), Some("hinzeberg"));
    // The read-back reads again as the same order.
    let s = staffwork::scenario::bundled("tutorial-hall").unwrap();
    let again = order::check_one(&o.readback, Some(&s), Some("imperial"));
    assert_eq!(again.key, o.key, "{}", o.readback);
}

#[test]
fn a_bridge_named_in_the_order_comes_before_the_scenario_alias() {
    // Decision 0214: "the bridge" is the tutorial's alias of Kirseberg bridge, but after the
    // Mill bridge it is the Mill bridge; with no bridge before it, the alias.
    let o = hall("3rd Div: cross the Mill bridge and hold the bridge at all costs.");
    assert_eq!(last_objective(&o).2.as_deref(), Some("mill-bridge"));
    assert_eq!(place_texts(&o), ["Mill bridge"]);
    let o = hall("3rd Div: hold the Kümla road and the bridge.");
    assert_eq!(
        places(&o),
        [
            ("Kümla road", Some("kumla-road")),
            ("bridge", Some("kirseberg-bridge"))
        ]
    );
    // An alias naming the very place pointed back to stays a place of the order.
    let o = scen(
        "vimeiro-1808",
        "Loison: march upon Vimeiro by the Torres Vedras road and carry the village.",
        "french",
    );
    assert_eq!(
        places(&o).last().copied(),
        Some(("village", Some("vimeiro")))
    );
    assert_eq!(o.order_type, Some(OrderType::Engage), "{}", o.key);
    // Against an alias only a place of the noun's first kind points back: the Portina is a
    // stream, so "the river" stays Talavera's alias, the Tajo; after the Arroyo de Escobar
    // "the stream" (alias of the Portina) is the Arroyo.
    let o = scen(
        "talavera-1809",
        "Villatte: march to the Arroyo de Escobar and hold the stream until dusk.",
        "french",
    );
    assert_eq!(last_objective(&o).2.as_deref(), Some("arroyo-de-escobar"));
    let o = scen(
        "talavera-1809",
        "Villatte: cross the Portina, then hold the river.",
        "french",
    );
    assert_eq!(last_objective(&o).2.as_deref(), Some("tajo"), "{}", o.key);
}

#[test]
fn the_place_a_step_moves_from_is_not_the_village_it_moves_against() {
    // Vimeiro: Ventosa is a village, and "the village" is the scenario's alias of Vimeiro.
    let o = scen(
        "vimeiro-1808",
        "Kellerman: at 10.30 a.m. advance from Ventosa against the village.",
        "french",
    );
    assert_eq!(
        places(&o),
        [("Ventosa", Some("ventosa")), ("village", Some("vimeiro"))]
    );
    let o = scen(
        "vimeiro-1808",
        "Thomières: push on to Ventosa and hold the village until Delaborde comes up.",
        "french",
    );
    assert_eq!(
        last_objective(&o).2.as_deref(),
        Some("ventosa"),
        "{}",
        o.key
    );
    assert_eq!(place_texts(&o), ["Ventosa"]);
}

#[test]
fn a_description_with_nothing_of_its_kind_before_it_is_a_vague_place() {
    // Kümla is a village, not heights: "the heights" is a vague place, with a warning whose
    // help names the map's one hill — it is not assumed (decision 0215).
    let o = hall("3rd Div: march to Kümla and occupy the heights.");
    assert_eq!(places(&o), [("Kümla", Some("kumla")), ("heights", None)]);
    let d = o
        .diagnostics
        .iter()
        .find(|d| d.code == "vague-place")
        .unwrap_or_else(|| panic!("{:?}", codes(&o)));
    assert!(d.help.contains("Hinzeberg"), "{}", d.help);
    // Talavera's one village is not taken for "the village"; no place of that kind anywhere
    // ("the farm" in the tutorial) is vague too.
    let o = scen("talavera-1809", "Leval: occupy the village.", "french");
    assert_eq!(places(&o), [("village", None)]);
    assert!(codes(&o).contains(&"vague-place"), "{:?}", codes(&o));
    let o = hall("2nd Div: hold the farm.");
    assert_eq!(places(&o), [("farm", None)]);
    // The map's several heights are listed in the help.
    let o = scen(
        "vimeiro-1808",
        "Solignac: march to Ventosa and occupy the heights.",
        "french",
    );
    assert_eq!(
        places(&o),
        [("Ventosa", Some("ventosa")), ("heights", None)]
    );
    let d = o
        .diagnostics
        .iter()
        .find(|d| d.code == "vague-place")
        .unwrap();
    assert!(d.help.contains("Vimeiro Hill"), "{}", d.help);
}

#[test]
fn without_a_scenario_a_bare_name_is_no_bridge() {
    // The brief's second example: San Cristobal may be the village, never the bridge.
    let o = plain("General Hill: march to San Cristobal, cross the bridge and hold the village.");
    assert_eq!(place_texts(&o), ["San Cristobal", "bridge"]);
    assert!(codes(&o).contains(&"vague-place"), "{:?}", codes(&o));
    assert_eq!(last_objective(&o).1, Form::Pronoun, "{}", o.key);
    assert!(
        o.rules.iter().any(|r| r == "place.definite"),
        "{:?}",
        o.rules
    );
    let o = plain("General Pack: march to Sorauren and hold the bridge.");
    assert_eq!(place_texts(&o), ["Sorauren", "bridge"]);
    // Today's behaviour kept: a bare name may be "the village".
    let o = plain("General Hill: march to San Cristobal and hold the village.");
    assert_eq!(place_texts(&o), ["San Cristobal"]);
}

#[test]
fn without_a_scenario_the_orders_words_give_a_place_its_kind() {
    // "the village of X" is a village, so not "the heights"; "the castle of X" names X too, a
    // town; "X bridge", "Fort X" are a bridge and a fort (decision 0216).
    let o = plain("Marshal Ney: storm the village of Elchingen, then hold the heights.");
    assert_eq!(place_texts(&o), ["village of Elchingen", "heights"]);
    let o = plain("General Picton: take the castle of Badajoz, then hold the town until relieved.");
    assert_eq!(place_texts(&o), ["castle of Badajoz"]);
    let o =
        plain("General Crauford: cross the Coa by the bridge at Castello Bom and hold the town.");
    assert_eq!(place_texts(&o), ["Coa", "bridge at Castello Bom"]);
    let o =
        plain("Colonel Colborne: march to Almaraz bridge, cross the river and hold the bridge.");
    assert_eq!(place_texts(&o), ["Almaraz bridge", "river"]);
    let o = plain("General Graham: march to Fort Concepcion and hold the fort until dusk.");
    assert_eq!(place_texts(&o), ["Fort Concepcion"]);
    // A name written with "the" is a river or a height, never the town: the town is Sabugal.
    let o = plain("Light Div: march to Sabugal, cross the Coa and hold the town.");
    assert_eq!(place_texts(&o), ["Sabugal", "Coa"]);
    let o = plain("General Hill: march to the Tagus and cross the river at daybreak.");
    assert_eq!(place_texts(&o), ["Tagus"]);
    let o = plain("General Hill: march to Sabugal, then cross the river.");
    assert_eq!(place_texts(&o), ["Sabugal", "river"]);
}

#[test]
fn approaching_a_place_and_carrying_the_village_is_one_engage_stage() {
    // 6.3.3 (rule `posture.approach`): "carry the village" after "march upon Essling" is
    // "carry it".
    let o = plain("General Oudinot: march upon Essling and carry the village.");
    assert_eq!(o.order_type, Some(OrderType::Engage), "{}", o.key);
    assert_eq!(o.stages.len(), 1, "{}", o.key);
}

#[test]
fn check_explain_lists_the_rule() {
    let out = staffwork(&[
        "check",
        "--scenario",
        "tutorial-hall",
        "--explain",
        "--text",
        "2nd Div: take Hall, then cross the Mill bridge and hold the village.",
    ]);
    let text = stdout(&out);
    assert!(text.contains("place.definite"), "{text}");
}
