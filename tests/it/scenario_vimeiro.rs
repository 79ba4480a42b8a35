//! The Vimeiro 1808 scenario as data (Vimeiro game rules V1–V5): the set-up hexes of the seed
//! lie on land, the order of battle and arrivals follow V4.2, and scenario text never panics the
//! loader.

use proptest::prelude::*;
use staffwork::hex::Hex;
use staffwork::scenario::{self, PresetStatus, Scenario};

fn vimeiro() -> Scenario {
    scenario::bundled("vimeiro-1808").expect("vimeiro-1808 is bundled and valid")
}

#[test]
fn every_seed_set_up_hex_is_on_land() {
    let s = vimeiro();
    for h in [
        "2.10", "5.10", "6.11", "9.08", "11.11", "11.16", "13.12", "13.13", "15.10", "15.13",
        "15.16", "17.09", "20.10", "38.12",
    ] {
        let hex: Hex = h.parse().expect("hex");
        assert!(s.map.contains(hex), "{h} off the map");
        let t = s.map.terrain_at(hex).expect("terrain");
        assert!(t != "ocean", "{h} is {t}");
    }
}

#[test]
fn named_places_of_the_seed_exist() {
    let s = vimeiro();
    for id in [
        "vimeiro",
        "vimeiro-hill",
        "west-hill",
        "ventosa",
        "maceira-bay",
        "the-landing",
        "entry-a",
        "entry-b",
        "entry-c",
        "hex-38-12",
        "lourinha-road",
        "torres-vedras-road",
    ] {
        assert!(s.place(id).is_some(), "place {id}");
    }
    assert_eq!(s.place("vimeiro-hill").map(|p| p.hexes.len()), Some(2));
    // Maceira Bay is all ocean; The Landing is open beach (V1.2).
    for h in &s.place("maceira-bay").expect("bay").hexes {
        assert_eq!(s.map.terrain_at(*h), Some("ocean"), "{h}");
    }
    let landing = s.place("the-landing").expect("landing").hexes[0];
    assert_eq!(s.map.terrain_at(landing), Some("beach"));
}

#[test]
fn clock_is_21_day_turns_french_first() {
    let s = vimeiro();
    assert_eq!(s.clock.turns().len(), 21);
    assert_eq!(s.clock.first_player, "french");
}

#[test]
fn hill_commands_a_temporary_division_of_three_brigades_and_one_battery() {
    let s = vimeiro();
    let div = s.formation("hill-div").expect("hill-div");
    assert!(div.temporary);
    assert_eq!(div.commander.as_deref(), Some("hill"));
    let ids: Vec<&str> = s
        .direct_units("hill-div")
        .iter()
        .map(|u| u.id.as_str())
        .collect();
    assert_eq!(ids, ["1-hill", "5-crawfurd", "8-acland", "army-lf-1"]);
    assert_eq!(
        s.temporary_division_of("5-crawfurd").map(|f| f.id.as_str()),
        Some("hill-div")
    );
    assert!(s.temporary_division_of("2-ferguson").is_none());
    let order = s
        .preset_orders
        .iter()
        .find(|o| o.to == "hill-div")
        .expect("Hill's order");
    assert!(
        order
            .text
            .contains("defend the hill west of Vimeiro against attacks from the south")
    );
    assert_eq!(order.status, PresetStatus::Accepted);
}

#[test]
fn other_british_infantry_defends_in_place() {
    let s = vimeiro();
    for id in [
        "2-ferguson",
        "3-nightingall",
        "4-bowes",
        "6-fane",
        "7-anstruther",
        "trant",
    ] {
        assert!(
            s.preset_orders
                .iter()
                .any(|o| o.to == id && o.text == "Defend in place."),
            "{id}"
        );
    }
}

#[test]
fn french_arrive_on_the_v4_2_schedule() {
    let s = vimeiro();
    let at = |id: &str| {
        s.arrival_of(id)
            .map(|r| r.time.format("%H:%M").to_string())
            .unwrap_or_default()
    };
    for (id, t) in [
        ("junot", "08:00"),
        ("french-army", "08:00"),
        ("26-chasseurs", "08:00"),
        ("solignac", "08:00"),
        ("loison", "08:00"),
        ("army-2lh", "08:00"),
        ("thomieres", "08:30"),
        ("delaborde", "08:30"),
        ("3-prov-dragoons", "08:30"),
        ("margaron", "08:30"),
        ("army-4lf", "08:30"),
        ("st-clair", "09:00"),
        ("kellerman", "09:00"),
        ("army-2hf", "09:00"),
        ("3-66-line", "12:00"),
    ] {
        assert_eq!(at(id), t, "{id}");
    }
    let r = s.arrival_of("3-66-line").expect("3/66th");
    let roll = r.condition.as_ref().expect("die roll");
    assert_eq!((roll.sides, roll.min), (6, 6));
    // Every French unit arrives; none starts on the map.
    for u in s.units.iter().filter(|u| u.side == "french") {
        assert!(u.position.is_none(), "{}", u.id);
        assert!(s.arrival_of(&u.id).is_some(), "{}", u.id);
    }
    // British are all set up except the off-map commanders.
    assert!(s.arrival_of("2-ferguson").is_none());
}

#[test]
fn special_rules_have_stable_ids() {
    let s = vimeiro();
    for id in [
        "vimeiro-temporary-divisions",
        "vimeiro-burrard",
        "vimeiro-french-initiative-minus-one",
        "vimeiro-british-no-independent-infantry",
        "vimeiro-defend-in-place",
        "vimeiro-lack-of-horses",
        "vimeiro-case-shot",
        "vimeiro-atlantic",
    ] {
        assert!(s.special_rules.iter().any(|r| r.id == id), "{id}");
    }
    for id in [
        "no-breakfast",
        "early-lunch",
        "travot",
        "variable-entry",
        "junot-wakes-up",
    ] {
        assert!(s.variants.iter().any(|v| v.id == id), "{id}");
    }
}

#[test]
fn assumed_values_cover_ratings_and_the_map() {
    let s = vimeiro();
    let a: Vec<String> = scenario::assumed_values(&s)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert!(a.contains(&"commander wellesley: rating = 4 (assumed)".to_string()));
    assert!(a.iter().any(|x| x.starts_with("map: ")));
    assert!(a.iter().any(|x| x.starts_with("commander cost: clear")));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    /// Any damage to a scenario file gives problems or a scenario, never a panic.
    #[test]
    fn damaged_scenario_text_never_panics(cut in 0usize..20_000, len in 0usize..40, junk in "[\\[\\]=\"a-z0-9.\\n ]{0,12}") {
        let (_, text) = scenario::bundled_text("tutorial-hall").expect("bundled");
        let mut t = text.to_string();
        let start = (cut % t.len()).min(t.len());
        let start = (0..=start).rev().find(|i| t.is_char_boundary(*i)).unwrap_or(0);
        let end = (start + len).min(t.len());
        let end = (end..=t.len()).find(|i| t.is_char_boundary(*i)).unwrap_or(t.len());
        t.replace_range(start..end, &junk);
        let _ = scenario::parse("damaged.toml", &t);
    }
}
