//! `staffwork scenario show`: the Vimeiro order of battle from the rulebook is all there, the
//! summary sections are printed, JSON carries the scenario plus `summary` and `assumed`, and
//! bundled names work without a file.

use crate::common::staffwork;

fn show(args: &[&str]) -> String {
    let out = staffwork(args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Every brigade, battery, train, HQ and commander of the Vimeiro order of battle and set-up
/// (Vimeiro game rules 4.2 and Order of Battle).
const VIMEIRO_NAMES: &[&str] = &[
    // British commanders and HQ.
    "Wellesley",
    "Burrard",
    "Rowland Hill",
    "Ronald Ferguson",
    "Crawfurd",
    "HQ at 13.13",
    // British brigades, cavalry, batteries and trains.
    "1-Hill",
    "2-Ferguson",
    "3-Nightingall",
    "4-Bowes",
    "5-Crawfurd",
    "6-Fane",
    "7-Anstruther",
    "8-Acland",
    "Trant",
    "20th Light Dragoons",
    "Portuguese Cavalry",
    "Army (Lf) battery at 5.10",
    "Army (Lf) battery at 15.16",
    "Army (Lf) battery at 20.10",
    "Train Unit at 11.16",
    "Train Unit at 15.13",
    "Hill's Temporary Division",
    // French commanders and formations.
    "Junot",
    "Loison",
    "DeLaborde",
    "Kellerman",
    "Margaron",
    "Travot",
    "Division Loison",
    "Division DeLaborde",
    "Division of United Grenadiers",
    "Cavalry Division",
    // French brigades, cavalry, batteries, reinforcement.
    "Solignac",
    "Charlot",
    "Thomières",
    "Brennier",
    "St. Clair",
    "Maransin",
    "3rd Provisional Dragoons",
    "4th Provisional Dragoons",
    "5th Provisional Dragoons",
    "Volunteer Squadron",
    "26th Chasseurs",
    "3/66th Line",
    "Army (2Lh)",
    "Army (4Lf)",
    "Army (2Hf)",
];

#[test]
fn vimeiro_show_lists_the_whole_order_of_battle() {
    let text = show(&["scenario", "show", "scenarios/vimeiro-1808.toml"]);
    for name in VIMEIRO_NAMES {
        assert!(text.contains(name), "`{name}` missing from scenario show");
    }
}

#[test]
fn vimeiro_show_places_units_at_the_seed_set_up_hexes() {
    let text = show(&["scenario", "show", "vimeiro-1808"]);
    for (unit, hex) in [
        ("1-Hill:", "at 2.10"),
        ("5-Crawfurd:", "at 5.10"),
        ("8-Acland:", "at 6.11"),
        ("3-Nightingall:", "at 9.08"),
        ("4-Bowes:", "at 11.11"),
        ("Train Unit at 11.16", "at 11.16"),
        ("2-Ferguson:", "at 13.12"),
        ("Trant:", "at 15.16"),
        ("Train Unit at 15.13", "at 15.13"),
        ("20 LtD:", "at 15.10"),
        ("Cavalry:", "at 15.10"),
        ("7-Anstruther:", "at 17.09"),
        ("6-Fane:", "at 20.10"),
    ] {
        let line = text
            .lines()
            .find(|l| l.contains(unit))
            .unwrap_or_else(|| panic!("no line for {unit}"));
        assert!(line.contains(hex), "{unit}: `{line}` lacks `{hex}`");
    }
    assert!(text.contains(
        "Solignac's Brigade — infantry, strength AA*, morale C*, arrives 08:00 at entry-a"
    ));
    assert!(text.contains("arrives 08:30 at entry-a (french-0830)"));
    assert!(text.contains("Maransin's Brigade — infantry, strength B*, morale A*, arrives 09:00"));
}

#[test]
fn vimeiro_show_has_every_section() {
    let text = show(&["scenario", "show", "vimeiro-1808"]);
    for needle in [
        "first turn 1808-08-21 08:00, last turn 1808-08-21 18:00: 21 turns (21 day",
        "first player: french",
        "Lt Gen Sir Arthur Wellesley (rating 4*), 16 CP/turn",
        "GD Jean-Andoche Junot (rating 2*), 13 CP/turn",
        "columns 1–40, rows 1–22 (40 × 22 hexes); provenance assumed",
        "~ ocean: ",
        "vimeiro-hill — Vimeiro Hill (hill): 18.09, 19.09",
        "hill-defend → hill-div (british), accepted",
        "His orders are to defend the hill west of Vimeiro against attacks from the south.",
        "Army HQ is to move to 38.12. All other formations are to move to within 2 hexes of Army HQ and await further orders.",
        "12:00 french-3-66 (french) at entry-a: 3-66-line; from 12:00 each Command Phase on 6 (d6)",
        "+7 or more: Major British Victory",
        "-2 or less: French Minor Victory",
        "V2.3 vimeiro-temporary-divisions — Temporary Divisions",
        "V2.5 vimeiro-burrard",
        "V3.1 vimeiro-french-initiative-minus-one",
        "V2.1 vimeiro-british-no-independent-infantry",
        "V5.2 travot — Travot's Division (+3 VP British)",
        "V5.4 junot-wakes-up",
        "commander wellesley: rating = 4 (assumed)",
        "map: terrain, elevation, extent = 40 × 22 hexes, our reconstruction (assumed)",
        "commander cost: woods = 2 MP (assumed)",
    ] {
        assert!(text.contains(needle), "`{needle}` missing");
    }
}

#[test]
fn tutorial_show_works_by_bundled_name() {
    let text = show(&["scenario", "show", "tutorial-hall"]);
    assert!(text.contains("The Battle of Hall (tutorial)"));
    assert!(text.contains("Marshal Davrange (rating 3*)"));
    assert!(text.contains("commander davrange: rating = 3 (assumed)"));
}

#[test]
fn show_json_is_the_scenario_plus_summary_and_assumed() {
    let out = staffwork(&["scenario", "show", "vimeiro-1808", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["meta"]["id"], "vimeiro-1808");
    assert_eq!(v["summary"]["turns"], 21);
    assert_eq!(v["summary"]["sides"][0]["command_points"], 16);
    let assumed = v["assumed"].as_array().expect("assumed list");
    assert!(
        assumed
            .iter()
            .any(|a| a["text"] == "commander wellesley: rating = 4 (assumed)")
    );
    let units = v["units"].as_array().expect("units");
    assert!(
        units
            .iter()
            .any(|u| u["id"] == "7-anstruther" && u["position"] == "17.09")
    );
}
