//! `staffwork scenario check` on the bundled scenarios and on one broken fixture per kind of
//! problem (tests/data/scenarios/): exit code 1, and every message names the file, the line and
//! the field.

use crate::common::{staffwork, stdout};

/// Check a broken fixture: exit code 1 and a message `FILE:LINE: FIELD: …` containing `words`.
fn assert_problem(fixture: &str, line: usize, field: &str, words: &str) {
    let path = format!("tests/data/scenarios/{fixture}");
    let out = staffwork(&["scenario", "check", &path]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{fixture}: {text}");
    let head = format!("{path}:{line}: {field}: ");
    assert!(
        text.lines()
            .any(|l| l.starts_with(&head) && l.contains(words)),
        "{fixture}: no line `{head}…{words}…` in\n{text}"
    );
}

#[test]
fn bundled_scenarios_pass_check() {
    for file in [
        "scenarios/tutorial-hall.toml",
        "scenarios/vimeiro-1808.toml",
        "scenarios/talavera-1809.toml",
    ] {
        let out = staffwork(&["scenario", "check", file]);
        assert_eq!(out.status.code(), Some(0), "{file}: {}", stdout(&out));
        assert!(stdout(&out).contains(": ok ("), "{}", stdout(&out));
    }
}

#[test]
fn bundled_names_work_without_a_file() {
    let out = staffwork(&["scenario", "check", "vimeiro-1808"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("(bundled) vimeiro-1808.toml: ok"));
}

#[test]
fn a_missing_file_is_a_usage_error() {
    let out = staffwork(&[
        "scenario",
        "check",
        "tests/data/scenarios/no-such-file.toml",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
}

#[test]
fn toml_syntax_error() {
    assert_problem(
        "syntax-error.toml",
        33,
        "commanders[1].name (syntax)",
        "invalid basic string",
    );
}

#[test]
fn unknown_field_is_placed_at_its_line() {
    assert_problem(
        "unknown-field.toml",
        70,
        "units[1].strenght",
        "unknown field `strenght`",
    );
}

#[test]
fn unknown_unit_reference() {
    assert_problem(
        "unknown-reference.toml",
        58,
        "units[0].parent",
        "unknown formation `blue-corps`",
    );
}

#[test]
fn duplicate_id() {
    assert_problem(
        "duplicate-id.toml",
        65,
        "units[1].id",
        "duplicate id `blue-1` (already used in `units[0]`, line 55)",
    );
}

#[test]
fn hex_off_the_map() {
    assert_problem(
        "off-map.toml",
        62,
        "units[0].position",
        "hex 9.03 is off the map (columns 1–6, rows 1–4)",
    );
}

#[test]
fn rating_out_of_range() {
    assert_problem(
        "rating-out-of-range.toml",
        35,
        "commanders[1].rating",
        "command rating 7 is out of range",
    );
}

#[test]
fn commander_who_commands_nothing() {
    assert_problem(
        "commands-nothing.toml",
        39,
        "commanders[2].id",
        "commander `idle` commands nothing",
    );
}

#[test]
fn cycle_in_the_order_of_battle() {
    assert_problem(
        "cycle.toml",
        71,
        "formations[2].parent",
        "`div-1` is its own ancestor (a cycle in the order of battle)",
    );
    assert_problem(
        "cycle.toml",
        79,
        "formations[3].parent",
        "`div-2` is its own ancestor",
    );
}

#[test]
fn reinforcement_arrives_unknown_id_in_a_multi_line_array() {
    assert_problem(
        "reinforcement-unknown.toml",
        112,
        "reinforcements[0].arrives[1]",
        "unknown unit, formation or commander `red-2`",
    );
}

#[test]
fn temporary_division_member_of_the_other_side() {
    assert_problem(
        "temporary-division.toml",
        69,
        "formations[2].members[1]",
        "`red-1` is on side `red`",
    );
}

#[test]
fn preset_order_to_the_other_side() {
    assert_problem(
        "preset-order-side.toml",
        102,
        "preset_orders[0].to",
        "`blue-army` is on side `blue`, the order on side `red`",
    );
}

#[test]
fn terrain_grid_and_legend_mismatch() {
    assert_problem(
        "terrain-grid.toml",
        81,
        "map.terrain",
        "row 3 of the grid has 5 characters, the map has 6 columns",
    );
    assert_problem(
        "terrain-grid.toml",
        81,
        "map.terrain",
        "row 3 has `x`, which the legend does not define",
    );
}

#[test]
fn problem_inside_an_inline_table() {
    assert_problem(
        "inline-table.toml",
        118,
        "victory.points[1].side",
        "unknown side `green`",
    );
}

// Pre-scenario losses (Talavera 7.1, `P (S) <n>`): one fixture per broken case.

#[test]
fn malformed_unit_losses() {
    assert_problem(
        "losses-malformed-unit.toml",
        78,
        "units[0].losses",
        "`2 (x) <1>` is not a loss entry: `x` is not a whole number of stragglers",
    );
    let out = staffwork(&[
        "scenario",
        "check",
        "tests/data/scenarios/losses-malformed-unit.toml",
    ]);
    assert!(stdout(&out).contains("help: write `P (S) <n>`"));
}

#[test]
fn malformed_formation_losses() {
    assert_problem(
        "losses-malformed-formation.toml",
        60,
        "formations[1].losses",
        "`2 4 1` is not a loss entry: the stragglers in parentheses are missing",
    );
}

#[test]
fn unit_losses_beyond_its_boxes() {
    assert_problem(
        "losses-beyond-unit.toml",
        88,
        "units[1].losses",
        "3 (3) <0> marks 6 boxes, but `blue-2` has 5",
    );
    let out = staffwork(&[
        "scenario",
        "check",
        "tests/data/scenarios/losses-beyond-unit.toml",
    ]);
    assert!(stdout(&out).contains("help: lower the losses to at most 5 boxes"));
}

#[test]
fn division_losses_beyond_its_brigades_boxes() {
    assert_problem(
        "losses-beyond-formation.toml",
        60,
        "formations[1].losses",
        "10 (6) <1> marks 16 boxes, but the 2 brigade(s) of `blue-div` have 15 free boxes",
    );
}

#[test]
fn losses_on_a_train() {
    assert_problem(
        "losses-on-a-train.toml",
        96,
        "units[2].losses",
        "`blue-train` is a train and has no loss chart",
    );
}

#[test]
fn every_problem_in_a_file_is_reported_at_once() {
    let f = "many-problems.toml";
    assert_problem(f, 12, "clock.first_player", "unknown side `purple`");
    assert_problem(
        f,
        35,
        "commanders[1].rating",
        "command rating 7 is out of range",
    );
    assert_problem(f, 62, "units[0].position", "hex 9.03 is off the map");
    assert_problem(f, 65, "units[1].id", "duplicate id `blue-1`");
    assert_problem(f, 112, "reinforcements[0].arrives[1]", "`red-2`");
    assert_problem(f, 119, "victory.points[1].side", "unknown side `green`");
    let out = staffwork(&[
        "scenario",
        "check",
        "tests/data/scenarios/many-problems.toml",
    ]);
    assert!(stdout(&out).contains("7 problem(s) in tests/data/scenarios/many-problems.toml"));
}

#[test]
fn json_report_lists_every_problem_with_line_and_field() {
    let out = staffwork(&[
        "scenario",
        "check",
        "tests/data/scenarios/many-problems.toml",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["valid"], false);
    let problems = v["problems"].as_array().expect("problems");
    assert_eq!(problems.len(), 7);
    assert!(
        problems
            .iter()
            .all(|p| p["line"].is_u64() && p["field"].is_string())
    );
}

#[test]
fn show_on_a_broken_file_reports_the_problems() {
    let out = staffwork(&["scenario", "show", "tests/data/scenarios/off-map.toml"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("units[0].position"));
}

#[test]
fn rule_29_random_events_game_table() {
    let f = "random-events.toml";
    assert_problem(f, 130, "random_events[1].side", "unknown side `green`");
    assert_problem(
        f,
        136,
        "random_events[2].roll[0]",
        "a roll of 2 for `blue` already gives `Rain` (random_events[0])",
    );
    assert_problem(
        f,
        136,
        "random_events[2].roll[1]",
        "7 is not a result of one die",
    );
    assert_problem(
        f,
        138,
        "random_events[2].effect",
        "unknown effect `heat-stroke`",
    );
    assert_problem(f, 143, "random_events[3].name", "empty name");
    assert_problem(
        f,
        142,
        "random_events[3].roll",
        "no die result gives this event",
    );
    assert_problem(
        f,
        144,
        "random_events[3].assumed[0]",
        "`colour` is not a field of this entry",
    );
}

/// Issue 12: a type error stops the typed parse, but the file's other problems (invisible
/// characters, an overlong name) are still reported, each at its line.
#[test]
fn a_type_error_does_not_hide_the_other_problems() {
    let fixture = "type-error-and-hidden-characters.toml";
    assert_problem(fixture, 27, "clock.first_turn", "invalid type");
    assert_problem(fixture, 60, "commanders[1].name", "U+202E");
    assert_problem(fixture, 68, "commanders[2].name", "at most 120");
}

/// Issue 12: a scenario may not ask for a game of millennia.
#[test]
fn a_clock_of_millennia_is_refused() {
    assert_problem(
        "clock-too-long.toml",
        28,
        "clock.last_turn",
        "at most 14 days",
    );
}
