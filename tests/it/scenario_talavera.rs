//! The Talavera 1809 scenario 4, "The Main Assault", as data (Talavera game rules T1–T6 and
//! scenario 4): the order of battle and the ids the engine relies on, set-ups on the map, the
//! pre-scenario losses (7.1), the special rules and variants; and as a game: it starts, its
//! pre-set orders are in force, the losses are in the units' loss charts and in `status`, and a
//! whole game turn runs.

use staffwork::engine::{CommandStatus, OrderStatus};
use staffwork::game::{Game, NewGame, Until};
use staffwork::hex::Hex;
use staffwork::scenario::{self, Echelon, LossCounts, Scenario};

use crate::common::{staffwork, stdout};

fn talavera() -> Scenario {
    scenario::bundled("talavera-1809").expect("talavera-1809 is bundled and valid")
}

fn game() -> Game {
    let (_, text) = scenario::bundled_text("talavera-1809").expect("bundled");
    let new = NewGame::on(text.to_string(), talavera(), 7).expect("every pre-set order reads");
    Game::in_memory(new).expect("the game starts")
}

fn counts(p: u8, s: u8, n: u8) -> LossCounts {
    LossCounts {
        permanent: p,
        stragglers: s,
        skirmishers: n,
    }
}

#[test]
fn scenario_check_passes_by_file_and_by_name() {
    for name in ["scenarios/talavera-1809.toml", "talavera-1809"] {
        let out = staffwork(&["scenario", "check", name]);
        assert_eq!(out.status.code(), Some(0), "{name}: {}", stdout(&out));
        assert!(stdout(&out).contains(": ok ("), "{}", stdout(&out));
    }
}

#[test]
fn clock_is_8_day_turns_from_2_30_pm_french_first() {
    let s = talavera();
    let turns = s.clock.turns();
    assert_eq!(turns.len(), 8);
    assert_eq!(turns[0].time.format("%H:%M").to_string(), "14:30");
    assert_eq!(turns[7].time.format("%H:%M").to_string(), "18:00");
    assert_eq!(s.clock.first_player, "french");
    let sides: Vec<&str> = s.sides.iter().map(|x| x.id.as_str()).collect();
    assert_eq!(sides, ["allied", "french"]);
}

#[test]
fn the_ids_the_engine_relies_on_exist() {
    let s = talavera();
    for id in [
        "wellesley",
        "cuesta",
        "joseph",
        "jourdan",
        "victor",
        "sebastiani",
        "manglano",
        "bassecourt",
        "alburquerque",
        "henestrosa",
        "sherbrooke",
        "hill",
        "tilson",
    ] {
        assert!(s.commander(id).is_some(), "commander {id}");
    }
    assert_eq!(
        s.army_commander("allied").map(|c| c.id.as_str()),
        Some("wellesley")
    );
    assert_eq!(
        s.army_commander("french").map(|c| c.id.as_str()),
        Some("joseph")
    );
}

#[test]
fn successions_follow_t2_1_t3_1_t4_1() {
    let s = talavera();
    let succ = |id: &str| s.formation(id).expect(id).succession.clone();
    assert_eq!(succ("allied-army"), ["sherbrooke", "hill"]);
    assert_eq!(succ("extremadura"), ["alburquerque", "henestrosa"]);
    assert_eq!(succ("french-army"), ["jourdan", "victor"]);
    // Hill is wounded: Tilson commands 2 Div and Hill is off the map.
    assert_eq!(
        s.formation("2-div").and_then(|f| f.commander.as_deref()),
        Some("tilson")
    );
    assert!(s.commander("hill").expect("hill").position.is_none());
}

#[test]
fn the_army_of_extremadura_is_one_corps_under_cuesta() {
    let s = talavera();
    let x = s.formation("extremadura").expect("corps");
    assert_eq!(x.echelon, Echelon::Corps);
    assert_eq!(x.parent.as_deref(), Some("allied-army"));
    assert_eq!(x.commander.as_deref(), Some("cuesta"));
    let divisions: Vec<&str> = s
        .child_formations("extremadura")
        .map(|f| f.id.as_str())
        .collect();
    assert_eq!(
        divisions,
        [
            "van-div", "i-div", "ii-div", "iii-div", "iv-div", "v-div", "i-cav", "ii-cav"
        ]
    );
    assert_eq!(
        s.formation("iv-div").and_then(|f| f.commander.as_deref()),
        Some("manglano")
    );
}

#[test]
fn british_divisions_are_independent_and_the_loans_are_marked() {
    let s = talavera();
    for id in ["1-div", "2-div", "3-div", "4-div", "cav-div"] {
        let f = s.formation(id).expect(id);
        assert!(f.independent, "{id} (T3.1)");
        assert_eq!(f.parent.as_deref(), Some("allied-army"));
    }
    assert!(s.formation("v-div").expect("V Div").borrowed);
    assert!(s.formation("ii-cav").expect("II Cav").borrowed);
    assert!(s.unit("extremadura-2hf").expect("(2Hf)").borrowed);
    let borrowed_formations = s.formations.iter().filter(|f| f.borrowed).count();
    let borrowed_units = s.units.iter().filter(|u| u.borrowed).count();
    assert_eq!((borrowed_formations, borrowed_units), (2, 1));
}

#[test]
fn joseph_commands_army_and_guard_jourdan_nothing_sebastiani_corps_and_division() {
    let s = talavera();
    assert_eq!(
        s.formation("royal-guard")
            .and_then(|f| f.commander.as_deref()),
        Some("joseph")
    );
    assert_eq!(
        s.formation_of_commander("joseph").map(|f| f.id.as_str()),
        Some("french-army")
    );
    assert!(s.formation_of_commander("jourdan").is_none());
    assert!(s.commander("jourdan").expect("jourdan").position.is_some());
    assert_eq!(
        s.formation("1-iv").and_then(|f| f.commander.as_deref()),
        Some("sebastiani")
    );
    assert_eq!(
        s.formation_of_commander("sebastiani")
            .map(|f| f.id.as_str()),
        Some("iv-corps")
    );
}

#[test]
fn rating_hints_of_the_seed_hold() {
    let s = talavera();
    let r = |id: &str| s.commander(id).expect(id).rating;
    assert!(r("cuesta") < 3, "5.4a raises Cuesta to 3");
    assert!(r("victor") > 2, "5.3b reduces Victor to 2");
    assert_eq!(r("cuesta"), r("manglano") + 1, "the T2.4 example");
    let a: Vec<String> = scenario::assumed_values(&s)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert!(a.contains(&"commander cuesta: rating = 2 (assumed)".to_string()));
    assert!(a.iter().any(|x| x.starts_with("map: ")));
}

#[test]
fn players_names_resolve_to_the_order_of_battle() {
    let s = talavera();
    let short = |id: &str| {
        s.formation(id)
            .and_then(|f| f.short.clone())
            .or_else(|| s.unit(id).and_then(|u| u.short.clone()))
            .unwrap_or_default()
    };
    for (id, want) in [
        ("v-div", "V Div"),
        ("ii-cav", "II Cav"),
        ("1-i", "1-I"),
        ("2dr", "2DR"),
        ("dessolles-div", "Dessolles"),
        ("1-div", "1 Div"),
        ("rey-i-cav", "Rey-I Cav"),
        ("16-lt-2-i", "16 Lt-2-I"),
        ("frndo-vii-iv", "Frndo VII-IV"),
    ] {
        assert_eq!(short(id), want, "{id}");
    }
}

#[test]
fn every_set_up_and_named_hex_is_on_land() {
    let s = talavera();
    let hexes = s
        .commanders
        .iter()
        .filter_map(|c| c.position.as_ref())
        .chain(s.formations.iter().filter_map(|f| f.hq.as_ref()))
        .chain(s.units.iter().filter_map(|u| u.position.as_ref()))
        .flat_map(|p| std::iter::once(p.hex).chain(p.extensions.iter().copied()));
    for h in hexes {
        assert!(s.map.contains(h), "{h} off the map");
        assert_ne!(s.map.terrain_at(h), Some("river"), "{h}");
    }
    for (id, hexes) in [
        ("casa-de-salinas", vec!["50.04"]),
        ("crossroads", vec!["36.14"]),
        ("cerro-de-cascajal", vec!["27.25"]),
        ("cerro-de-medellin", vec!["18.25", "19.25", "20.25"]),
        ("casa-de-valdefuentes", vec!["19.28"]),
        ("pajar-de-vergara", vec!["20.15"]),
        ("t-junction", vec!["8.20"]),
        ("oropesa-road-exit", vec!["1.09"]),
    ] {
        let want: Vec<Hex> = hexes.iter().map(|h| h.parse().expect("hex")).collect();
        assert_eq!(s.place(id).expect(id).hexes, want, "{id}");
    }
    for id in [
        "talavera",
        "portina",
        "tajo",
        "tajo-bridge",
        "madrid-road",
        "olive-groves",
        "orchards",
        "city-wall",
        "city-gates",
        "sunken-road",
        "vargas-road",
        "salinas-road",
        "oropesa-road",
    ] {
        assert!(s.place(id).is_some(), "place {id}");
    }
    assert!(
        s.place("talavera")
            .expect("town")
            .hexes
            .contains(&"11.07".parse().expect("hex"))
    );
    assert_eq!(
        s.map.terrain_at("20.15".parse().expect("hex")),
        Some("redoubt")
    );
    assert_eq!(
        s.map.elevation_at("19.25".parse().expect("hex")),
        4,
        "the Medellín's high ground"
    );
}

#[test]
fn special_rules_and_variants_have_the_engine_ids() {
    let s = talavera();
    for (id, rule) in [
        ("talavera-extremadura-corps", "T2.1"),
        ("talavera-cuesta-engage-minus-four", "T2.1"),
        ("talavera-spanish-cavalry-morale", "T2.2a"),
        ("talavera-spanish-unease", "T2.2b"),
        ("talavera-tartana", "T2.3"),
        ("talavera-borrowing", "T2.4"),
        ("talavera-british-independent-divisions", "T3.1"),
        ("talavera-wellesley-style", "T3.4"),
        ("talavera-joseph-in-person", "T4.2a"),
        ("talavera-jourdan-relay", "T4.2b"),
        ("talavera-victor-stoppage", "T4.2c"),
        ("talavera-royal-guard", "T4.4"),
        ("talavera-sebastiani", "T4.5"),
        ("talavera-tajo-bridge", "T1.2a"),
        ("talavera-olive-groves", "T1.2b"),
        ("talavera-sunken-road", "T1.2c"),
        ("talavera-town", "T1.2d"),
        ("talavera-city-wall", "T1.2e"),
    ] {
        let r = s
            .special_rules
            .iter()
            .find(|r| r.id == id)
            .unwrap_or_else(|| panic!("special rule {id}"));
        assert_eq!(r.rule, rule, "{id}");
        assert!(!r.text.is_empty(), "{id}");
    }
    // Campaign-only rules are not in force in scenario 4.
    assert!(!s.special_rules.iter().any(|r| r.rule == "T3.5"));
    for (id, vp) in [
        ("ditch", "none"),
        ("treason", "none"),
        ("craufurd", "none"),
        ("joseph-sends-aides", "none"),
        ("jourdan-commands", "none"),
        ("victor-messenger", "none"),
        ("cuesta-misunderstood", "+3 VP Allied"),
        ("cuesta-moron", "+3 VP Allied"),
        ("wilson", "+1 VP French"),
        ("zayas", "none"),
        ("ney", "none"),
        ("random-events", "none"),
    ] {
        let v = s
            .variants
            .iter()
            .find(|v| v.id == id)
            .unwrap_or_else(|| panic!("variant {id}"));
        assert_eq!(v.victory_points, vp, "{id}");
    }
    // Craufurd comes only with his variant.
    let r = s.arrival_of("craufurd-light").expect("Craufurd's arrival");
    assert_eq!(r.variant.as_deref(), Some("craufurd"));
    assert!(
        s.victory
            .conditions
            .iter()
            .any(|c| c.starts_with("Decisive Victory"))
    );
}

#[test]
fn pre_scenario_losses_are_dealt_one_box_at_a_time_in_oob_order() {
    let s = talavera();
    let t = staffwork::combat::tables::builtin();
    let (losses, problems) = scenario::losses::distribute(&s, |u| t.wrecked.unit_boxes(u));
    assert!(problems.is_empty(), "{problems:?}");
    let got = |id: &str| losses.get(id).copied().unwrap_or_default();
    // 1 Div 2 (4) <2>: P to Campbell-1, Cameron-1; S on round from Langwerth-1.
    assert_eq!(got("campbell-1"), counts(1, 1, 1));
    assert_eq!(got("cameron-1"), counts(1, 1, 1));
    assert_eq!(got("langwerth-1"), counts(0, 1, 0));
    assert_eq!(got("lowe-1"), counts(0, 1, 0));
    // 2 Div 3 (1) <1>; 3 Div 2 (0) <1>.
    assert_eq!(got("tilson-2"), counts(2, 0, 1));
    assert_eq!(got("stewart-2"), counts(1, 1, 0));
    assert_eq!(got("mackenzie-3"), counts(1, 0, 1));
    assert_eq!(got("donkin-3"), counts(1, 0, 0));
    // Unit entries.
    assert_eq!(got("frndo-vii-iv"), counts(0, 2, 0));
    assert_eq!(got("osna-ii"), counts(0, 1, 0));
    assert_eq!(got("kgl-2lf-1"), counts(1, 0, 0));
    // 1-I 7 (4) <4> over its own three brigades (not the attached 63 Ln and 27 Lt).
    assert_eq!(got("9-lt-1-i"), counts(3, 1, 2));
    assert_eq!(got("24-ln-1-i"), counts(2, 2, 1));
    assert_eq!(got("96-ln-1-i"), counts(2, 1, 1));
    assert_eq!(got("63-ln-3-i"), counts(0, 0, 0));
    // 2-I 1 (1) <2>, in Order of Battle order: 8th Line, 54th Line, 16th Light, 45th Line.
    assert_eq!(got("8-ln-2-i"), counts(1, 0, 1));
    assert_eq!(got("54-ln-2-i"), counts(0, 1, 1));
    // Totals match the seed.
    let total = |ids: &[&str]| {
        ids.iter().fold((0u32, 0u32, 0u32), |a, id| {
            let c = got(id);
            (
                a.0 + u32::from(c.permanent),
                a.1 + u32::from(c.stragglers),
                a.2 + u32::from(c.skirmishers),
            )
        })
    };
    assert_eq!(total(&["9-lt-1-i", "24-ln-1-i", "96-ln-1-i"]), (7, 4, 4));
}

#[test]
fn a_game_starts_with_the_pre_set_orders_in_force_and_the_losses_marked() {
    let g = game();
    let st = &g.state;
    assert_eq!(st.turn, 1);
    assert_eq!(st.phasing(), "french");
    // Every pre-set order is in the log, accepted, and its holder executes it.
    let s = &g.scenario;
    assert_eq!(st.orders.len(), s.preset_orders.len());
    for o in st.orders.values() {
        assert_eq!(o.status, OrderStatus::Accepted, "{}", o.recipient);
    }
    for id in [
        "2-i",
        "1-i",
        "1-iv",
        "3-iv",
        "2dr",
        "1-div",
        "v-div",
        "ii-cav",
        "rey-i-cav",
    ] {
        let c = st.commands.get(id).expect(id);
        assert_eq!(c.status, CommandStatus::Ordered, "{id}");
        assert!(c.independent || id.ends_with("-div"), "{id}");
    }
    let attack = st
        .orders
        .values()
        .find(|o| o.recipient == "1-i")
        .expect("1-I's order");
    assert!(attack.independent);
    assert_eq!(attack.attaches, ["63-ln-3-i", "27-lt-3-i"]);
    // "1-I with 63 Ln-3-I and 27 Lt-3-I attached": the two brigades now belong to 1-I.
    for b in ["63-ln-3-i", "27-lt-3-i"] {
        assert_eq!(st.commands[b].parent.as_deref(), Some("1-i"), "{b}");
    }
    // 3 Div has no orders.
    assert_eq!(st.commands["3-div"].status, CommandStatus::NoOrders);
    // Losses are on the loss charts.
    let u = &st.units["9-lt-1-i"];
    assert_eq!((u.track.permanent, u.track.stragglers), (3, 1));
    assert_eq!(u.skirmisher_losses, 2);
    let kgl = &st.units["kgl-2lf-1"];
    assert_eq!((kgl.track.boxes, kgl.track.permanent), (2, 1));
    assert!(!st.commands["9-lt-1-i"].wrecked);
    // Joseph answers for the army, Sebastiani for IV Corps (T4.4, T4.5), Jourdan for nothing.
    use staffwork::engine::oob::formation_of;
    assert_eq!(formation_of(st, "joseph"), Some("french-army"));
    assert_eq!(formation_of(st, "sebastiani"), Some("iv-corps"));
    assert_eq!(formation_of(st, "jourdan"), None);
    assert_eq!(st.commanders["royal-guard"], "joseph");
    // Jourdan stands at the Army HQ with Joseph.
    assert_eq!(
        st.positions.get("jourdan"),
        st.positions.get("hq:french-army")
    );
}

#[test]
fn a_whole_game_turn_runs_and_replays() {
    let mut g = game();
    g.advance(Until::Turn(2), None).expect("turn 1 runs");
    assert_eq!(g.state.turn, 2);
    assert_eq!(g.state.phasing(), "french");
    let v = g.verify().expect("verify");
    assert!(v.ok(), "{v:?}");
    assert_eq!(g.state_at(None).expect("playback"), g.state);
}

#[test]
fn losses_beyond_the_charts_in_play_refuse_the_game() {
    let (_, text) = scenario::bundled_text("talavera-1809").expect("bundled");
    let mut new = NewGame::on(text.to_string(), talavera(), 1).expect("presets");
    // Loss charts of 2 boxes per A: 1-I's 11 boxes no longer fit its three brigades.
    new.combat_tables_toml = "[wrecked]\nrule = \"21.6\"\nprovenance = \"assumed\"\nbrigade_fraction = [1, 2]\ndivision_less = 1\nboxes_per_a = 2\nmorale_change = -1\n".into();
    match Game::in_memory(new) {
        Err(staffwork::game::GameError::Refused(r)) => {
            assert_eq!(r.code, "losses-beyond-chart");
            assert!(r.message.contains("1-i"), "{}", r.message);
        }
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("the game started"),
    }
}

#[test]
fn status_shows_the_losses_to_their_owner_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("t.sqlite");
    let d = db.to_str().expect("utf-8 path");
    let out = staffwork(&["new", "--db", d, "--scenario", "talavera-1809"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let umpire = stdout(&staffwork(&["status", "--db", d]));
    assert!(umpire.contains("losses (P (S) <n>"), "{umpire}");
    assert!(
        umpire
            .lines()
            .any(|l| l.trim_start().starts_with("9-lt-1-i") && l.contains("3 (1) <2>")),
        "{umpire}"
    );
    assert!(
        umpire
            .lines()
            .any(|l| l.trim_start().starts_with("campbell-1") && l.contains("1 (1) <1>")),
        "{umpire}"
    );
    let french = stdout(&staffwork(&["status", "--db", d, "--side", "french"]));
    assert!(french.contains("9-lt-1-i"));
    assert!(
        !french
            .lines()
            .any(|l| l.trim_start().starts_with("campbell-1") && l.contains("<")),
        "{french}"
    );
    let json: serde_json::Value = serde_json::from_slice(
        &staffwork(&["status", "--db", d, "--side", "allied", "--format", "json"]).stdout,
    )
    .expect("json");
    let units = json["units"].as_array().expect("units");
    assert!(units.iter().all(|u| u["side"] == "allied"));
    let frndo = units
        .iter()
        .find(|u| u["unit"] == "frndo-vii-iv")
        .expect("Fernando VII");
    assert_eq!(frndo["stragglers"], 2);
    assert_eq!(frndo["boxes"], 20);
    // A whole game turn through the CLI.
    let out = staffwork(&["turn", "--db", d, "--until-turn", "2"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("=== turn 2"), "{}", stdout(&out));
}

// ---------------------------------------------------------------- scenario 1, Casa de Salinas

fn salinas() -> Scenario {
    scenario::bundled("talavera-1809-casa-de-salinas").expect("bundled and valid")
}

#[test]
fn casa_de_salinas_checks_and_keeps_to_its_play_area() {
    let out = staffwork(&["scenario", "check", "talavera-1809-casa-de-salinas"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let s = salinas();
    assert_eq!(s.clock.turns().len(), 7);
    assert_eq!(s.clock.first_player, "french");
    // "All hexes east of hex row 31.xx": the map starts at column 32.
    assert_eq!(s.map.first_col, 32);
    assert_eq!(
        s.place("casa-de-salinas").expect("Casa").hexes,
        ["50.04".parse::<Hex>().expect("hex")]
    );
    let d5 = s
        .preset_orders
        .iter()
        .find(|o| o.to == "1-div")
        .expect("1 Div's order");
    assert_eq!(d5.status, scenario::PresetStatus::D5);
    assert!(d5.text.contains("off the play area at 32.19"));
    let at = |id: &str| {
        s.arrival_of(id)
            .map(|r| r.time.format("%H:%M").to_string())
            .unwrap_or_default()
    };
    for (id, t) in [
        ("lapisse", "15:00"),
        ("8-ln-2-i", "15:00"),
        ("beamont-i", "15:30"),
        ("i-2lh-1", "15:30"),
        ("2-i-2lf", "15:30"),
        ("mackenzie", "15:30"),
        ("victor", "16:30"),
        ("9-lt-1-i", "16:30"),
        ("95-ln-3-i", "16:30"),
    ] {
        assert_eq!(at(id), t, "{id}");
    }
    // 16 Lt-2-I starts at 53.07, ahead of its division.
    assert_eq!(
        s.unit("16-lt-2-i")
            .and_then(|u| u.position.as_ref())
            .map(ToString::to_string),
        Some("53.07".to_string())
    );
}

#[test]
fn casa_de_salinas_starts_with_1_div_in_delay_and_mackenzie_arrives() {
    let (_, text) = scenario::bundled_text("talavera-1809-casa-de-salinas").expect("bundled");
    let mut g = Game::in_memory(NewGame::on(text.to_string(), salinas(), 3).expect("presets read"))
        .expect("starts");
    let delayed = g
        .state
        .orders
        .values()
        .find(|o| o.recipient == "1-div")
        .expect("1 Div's order");
    assert_eq!(delayed.status, OrderStatus::Delayed { needs: 5 });
    assert_eq!(g.state.commands["3-div"].status, CommandStatus::NoOrders);
    assert!(!g.state.positions.contains_key("mackenzie"));
    g.advance(Until::Turn(3), None).expect("two turns run");
    assert_eq!(
        g.state.positions.get("mackenzie"),
        Some(&"51.04".parse().expect("hex"))
    );
    assert!(g.state.positions.contains_key("lapisse"));
    assert!(g.verify().expect("verify").ok());
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 256, .. proptest::prelude::ProptestConfig::default() })]

    /// Any text in a `losses` field is read or refused, never a panic; what is read prints back
    /// to the same numbers.
    #[test]
    fn any_loss_text_is_read_or_refused(text in "[0-9 ()<>x-]{0,16}") {
        if let Ok(c) = scenario::losses::parse(&text) {
            proptest::prop_assert_eq!(scenario::losses::parse(&c.to_string()), Ok(c));
        }
    }
}
