//! Every seed cell of the combat tables, transcribed here independently from the rulebook
//! charts (seed 001, charts p3–p5), is compared with the data file: same value, tagged
//! `seed`; and every cell the file tags `seed` is in this transcription. Validation errors name
//! table / row / column.

use staffwork::combat::tables::{CombatTables, Table, TableError, builtin};
use staffwork::provenance::Provenance;

/// (table id, first row key, rows of cells) — only the rows the seed prints.
fn seed_res_tables() -> Vec<(&'static str, i32, Vec<Vec<&'static str>>)> {
    vec![
        // 15.3, chart p5: Attacker Won – Attacker's Losses, rows 1–4.
        (
            "cc_attacker_won_attacker",
            1,
            vec![
                vec!["0", "0", "0(1)", "0(2)", "0(2)"],
                vec!["0(1)M+1", "0(1)", "0(2)", "0(3)", "0(4)M-1"],
                vec!["0(2)", "0(3)", "1(3)M-1", "1(3)M-1", "1(4)M-1"],
                vec!["1(2)", "1(3)M-1", "1(4)M-1", "1(4)M-1", "1(4)M-2"],
            ],
        ),
        (
            "cc_attacker_won_defender",
            1,
            vec![
                vec!["1(3)", "1(4)", "0(6)", "0(6)", "0(7)"],
                vec!["2(3)", "2(4)", "1(6)", "1(7)", "0(8)"],
                vec!["2(4)", "2(5)", "1(7)", "1(8)", "1(9)"],
                vec!["2(5)", "2(6)", "2(7)", "2(9)", "1(10)"],
            ],
        ),
        (
            "cc_defender_won_attacker",
            1,
            vec![
                vec!["1(1)", "1(1)", "0(2)M-1", "0(3)M-1", "0(4)M-2"],
                vec!["1(2)M-1", "1(2)M-1", "1(3)M-1", "0(4)M-2", "0(5)M-2"],
                vec!["2(1)M-1", "2(2)M-1", "1(4)M-2", "1(5)M-2", "0(6)M-3"],
                vec!["2(2)M-1", "2(3)M-2", "2(4)M-2", "1(6)M-2", "1(7)M-3"],
            ],
        ),
        (
            "cc_defender_won_defender",
            1,
            vec![
                vec!["0", "0", "0", "0M+1", "0(1)"],
                vec!["0M+1", "0", "0(1)", "0(1)", "0(2)M-1"],
                vec!["0(1)", "0(1)", "0(2)", "0(2)M-1", "0(3)M-1"],
                vec!["1(1)", "1(2)", "1(2)M-1", "1(2)M-1", "1(4)M-1"],
            ],
        ),
        (
            "firefight",
            0,
            vec![
                vec!["0", "0"],
                vec!["1", "0"],
                vec!["1(1)", "0(1)"],
                vec!["2M-1", "1M-1"],
                vec!["2(1)M-1", "1(1)M-1"],
                vec!["2(2)M-2", "2(1)M-2"],
                vec!["2(3)", "2(2)"],
            ],
        ),
        (
            "charge_successful",
            1,
            vec![
                vec!["0", "1(3)", "0(1)", "0(1)"],
                vec!["0", "1(2)", "1(1)", "1"],
                vec!["1", "1(2)", "1(1)", "1"],
                vec!["1", "2(1)", "2", "1"],
                vec!["2M-1", "3(1)", "2", "2"],
            ],
        ),
        (
            "breakoff",
            1,
            vec![
                vec!["OF"],
                vec!["-"],
                vec!["-"],
                vec!["M-1"],
                vec!["M-1"],
                vec!["M-2"],
                vec!["M-3"],
            ],
        ),
        (
            "repulse",
            1,
            vec![
                vec!["1M-1"],
                vec!["1M-1"],
                vec!["2M-1"],
                vec!["2M-1"],
                vec!["3M-2"],
                vec!["3M-2"],
                vec!["4M-2"],
            ],
        ),
        (
            "cavalry_vs_cavalry",
            1,
            vec![
                vec!["0", "0", "1M-1"],
                vec!["0", "1", "2M-1"],
                vec!["1", "1", "2M-1"],
                vec!["2", "2M-2", "3M-2"],
                vec!["2M-1", "3M-1", "3M-2"],
                vec!["3M-1", "3M-2", "4M-3"],
            ],
        ),
        (
            "fire_results",
            1,
            vec![
                vec![
                    "M-1", "1M-2", "1M-2", "1(1)M-2", "2(1)M-2", "2(2)M-2", "3(2)M-2",
                ],
                vec!["0", "0", "1", "1", "1(1)", "2(1)", "2(2)"],
                vec!["M-1", "M-1", "M-1", "1M-2", "1M-2", "1(1)M-2", "2(1)M-2"],
            ],
        ),
    ]
}

fn table<'a>(t: &'a CombatTables, id: &str) -> &'a Table<staffwork::combat::tables::Res> {
    t.res_tables()
        .into_iter()
        .find(|x| x.id == id)
        .unwrap_or_else(|| panic!("no table {id}"))
}

/// Charts p3–p5: every printed cell of every loss/result table.
#[test]
fn every_seed_cell_of_the_result_tables_matches_the_charts() {
    let t = builtin();
    let mut checked = 0;
    for (id, first, rows) in seed_res_tables() {
        let tb = table(t, id);
        for (ri, row) in rows.iter().enumerate() {
            let key = first + ri as i32;
            let r = tb.rows.iter().find(|r| r.key == key).unwrap();
            for (c, want) in row.iter().enumerate() {
                let cell = &r.cells[c];
                let parsed = staffwork::combat::tables::parse_res(want).unwrap();
                assert_eq!(cell.value, parsed, "{id} row {key} col {}", tb.columns[c]);
                assert_eq!(cell.provenance, Provenance::Seed, "{id} row {key} col {c}");
                checked += 1;
            }
        }
        // Nothing else in this table is tagged seed.
        let seed_cells = tb
            .rows
            .iter()
            .flat_map(|r| r.cells.iter())
            .filter(|c| c.provenance == Provenance::Seed)
            .count();
        assert_eq!(seed_cells, rows.iter().map(Vec::len).sum::<usize>(), "{id}");
    }
    assert_eq!(checked, 20 * 4 + 14 + 20 + 7 + 7 + 18 + 21);
}

/// Chart p3: Artillery Fire Values, Light [Heavy], rows 5, 4, 3 and the two 2-GP cells.
#[test]
fn every_seed_fire_value_matches_chart_p3() {
    let t = builtin();
    // (gp, range column, light, heavy); None = blank.
    let seed: Vec<(i32, usize, Option<u8>, Option<u8>)> = vec![
        (5, 0, Some(5), Some(5)),
        (5, 1, Some(4), Some(4)),
        (5, 2, Some(2), Some(3)),
        (5, 3, Some(1), Some(2)),
        (5, 4, Some(1), Some(2)),
        (5, 5, Some(1), Some(1)),
        (4, 0, Some(4), Some(4)),
        (4, 1, Some(3), Some(4)),
        (4, 2, Some(1), Some(2)),
        (4, 3, Some(1), Some(2)),
        (4, 4, Some(1), Some(2)),
        (4, 5, Some(1), Some(1)),
        (3, 0, Some(3), Some(4)),
        (3, 1, Some(2), Some(3)),
        (3, 2, Some(1), Some(2)),
        (3, 3, Some(1), Some(2)),
        (3, 4, Some(1), Some(1)),
        (3, 5, None, Some(1)),
        (2, 0, Some(2), Some(3)),
        (2, 1, Some(1), Some(2)),
    ];
    for (gp, col, light, heavy) in &seed {
        for (tb, want) in [(&t.fire_values_light, light), (&t.fire_values_heavy, heavy)] {
            let r = tb.rows.iter().find(|r| r.key == *gp).unwrap();
            assert_eq!(r.cells[*col].value, *want, "{} {gp} GP col {col}", tb.id);
            assert_eq!(r.cells[*col].provenance, Provenance::Seed);
        }
    }
    let seed_count = |tb: &Table<Option<u8>>| {
        tb.rows
            .iter()
            .flat_map(|r| r.cells.iter())
            .filter(|c| c.provenance == Provenance::Seed)
            .count()
    };
    assert_eq!(seed_count(&t.fire_values_light), seed.len());
    assert_eq!(seed_count(&t.fire_values_heavy), seed.len());
}

/// Chart p3 Gun Loss Table (23.1.1): 0–3 → 0, 4 → 1, 5 → 2, 6 → 3, 7+ → all; modifiers.
#[test]
fn gun_loss_table_matches_chart_p3() {
    use staffwork::combat::GunLoss;
    let t = builtin();
    for (k, want) in [
        (0, GunLoss::Points(0)),
        (3, GunLoss::Points(0)),
        (4, GunLoss::Points(1)),
        (5, GunLoss::Points(2)),
        (6, GunLoss::Points(3)),
        (7, GunLoss::All),
        (8, GunLoss::All),
    ] {
        assert_eq!(t.gun_loss.lookup(k, 0).unwrap().0, want, "roll {k}");
    }
    assert_eq!(t.gun_loss.modifier("all_horse_artillery"), -1);
    assert_eq!(t.gun_loss.modifier("attacked_by_cavalry"), 2);
}

/// Charts p4–p6: stand numbers, morale check numbers, caps, commander loss on 11–12.
#[test]
fn scalar_seed_values_match_the_charts() {
    let t = builtin();
    assert_eq!(t.stand.need, [1, 2, 3, 4, 5]);
    assert_eq!(t.stand.max_modifier, 4);
    assert_eq!(t.stand.unmodified_always_stands, 6);
    assert_eq!(t.morale_check.need, [3, 4, 5, 6, 6]);
    assert_eq!(t.close_combat.loss_max_modifier, 2);
    assert_eq!(t.commander_loss.lost_on, vec![11, 12]);
    let cc = |k: &str| t.stand.close_combat[k].value;
    for (k, v) in [
        ("blood_lust", 1),
        ("commander_advantage", 1),
        ("shaken", -1),
        ("opponent_twice_size", -1),
        ("disorganized", -2),
        ("attacked_in_rear", -2),
        ("wrecked", -2),
        ("artillery_skirmishers_only", -2),
        ("defending_fortified", 1),
        ("attacking_in_line", -1),
        ("skirmisher_disadvantage", -1),
        ("attacking_in_march_column", -1),
        ("night", -2),
        ("attacking_line_in_village", -1),
    ] {
        assert_eq!(cc(k), v, "{k}");
    }
    let ch = |k: &str| t.stand.charge[k].value;
    for (k, v) in [
        ("light_vs_heavy", -1),
        ("blown_or_stationary", -2),
        ("in_square", 1),
        ("in_march_column", -1),
        ("in_line", -1),
    ] {
        assert_eq!(ch(k), v, "{k}");
    }
    assert_eq!(t.repulse.modifier("defender_in_line"), 2);
    assert_eq!(t.repulse.modifier("defender_in_square"), -2);
    assert_eq!(t.breakoff.modifier("morale_a"), -2);
    assert_eq!(t.breakoff.modifier("morale_e"), 2);
    assert_eq!(t.charge_successful.modifier("attacker_size_aa_plus"), 2);
    assert_eq!(t.firefight.modifier("skirmisher_firing"), -2);
    assert_eq!(t.cc_defender_won_defender.modifier("fortified"), -2);
    assert_eq!(t.straggler_recovery.night.value, 1);
    assert_eq!(t.skirmisher_fire.elite_full_halves, 4);
    assert_eq!(t.skirmisher_fire.regular_reduced_halves, 1);
}

/// 8.1 items 3–6: the reconstructed cells are tagged, and exactly where the seed lost them.
#[test]
fn reconstructed_cells_are_tagged_assumed_or_derived() {
    let t = builtin();
    let cells = t.non_seed_cells();
    let derived: Vec<_> = cells
        .iter()
        .filter(|c| c.provenance == Provenance::Derived)
        .collect();
    // fire results rows 4–6 (21 cells) + Attacker Won B row 5 (19.5 example).
    assert_eq!(derived.len(), 22);
    assert!(
        derived
            .iter()
            .any(|c| c.table == "cc_attacker_won_attacker" && c.row == 5 && c.column == "B")
    );
    let assumed = cells.len() - derived.len();
    // 4 CC tables × 10 − 1 derived, charge successful 3 rows × 4, fire values 2 × (6 + 4).
    assert_eq!(assumed, 39 + 12 + 20);
}

#[test]
fn validation_errors_name_table_row_and_column() {
    let bad = staffwork::combat::tables::BUILTIN_TOML.replace(
        r#"{ key = 4, cells = ["2(5)", "2(6)", "2(7)", "2(9)", "1(10)"] },"#,
        r#"{ key = 4, cells = ["2(5)", "2(6)", "0", "2(9)", "1(10)"] },"#,
    );
    let e = CombatTables::from_toml_str(&bad).unwrap_err();
    assert!(
        matches!(&e, TableError::NotMonotone { table, row: 4, column, .. } if table == "cc_attacker_won_defender" && column == "C"),
        "{e}"
    );
    assert!(e.to_string().contains("row 4, column C"));

    let bad = staffwork::combat::tables::BUILTIN_TOML
        .replace(r#"cells = ["1M-1"] },"#, r#"cells = ["1Q-1"] },"#);
    let e = CombatTables::from_toml_str(&bad).unwrap_err();
    assert!(
        matches!(e, TableError::Cell { ref table, row: 1, .. } if table == "repulse"),
        "{e}"
    );

    let bad = staffwork::combat::tables::BUILTIN_TOML
        .replace("need = [1, 2, 3, 4, 5]", "need = [1, 2, 9, 4, 5]");
    assert!(matches!(
        CombatTables::from_toml_str(&bad).unwrap_err(),
        TableError::Setting { .. }
    ));
    assert!(matches!(
        CombatTables::from_toml_str("not toml [").unwrap_err(),
        TableError::Parse(_)
    ));
}

#[test]
fn user_override_replaces_whole_sections() {
    let user = r#"
[gun_loss]
title = "Gun Loss Table (printed copy)"
rule = "23.1.1"
columns = ["gp-lost"]
monotone = ["value-rows-up"]
rows = [
  { key = 4, cells = ["0"] },
  { key = 5, cells = ["1"] },
  { key = 6, cells = ["All"] },
]
[gun_loss.modifiers]
all_horse_artillery = { value = -1, rule = "p3" }
attacked_by_cavalry = { value = 2, rule = "p3" }
"#;
    let t = CombatTables::with_override(user).unwrap();
    assert_eq!(t.gun_loss.rows.len(), 3);
    assert_eq!(
        t.cc_attacker_won_attacker,
        builtin().cc_attacker_won_attacker
    );
    assert!(CombatTables::with_override("[nonsense]\nx = 1").is_err());
}

/// The reconstructed rows 5–6 keep the seed's trend: from row 3 on, the Morale Change never
/// improves as the roll rises (true of the seed rows 3–4 of all four tables).
#[test]
fn reconstructed_close_combat_rows_keep_morale_trend() {
    let t = builtin();
    for tb in [
        &t.cc_attacker_won_attacker,
        &t.cc_attacker_won_defender,
        &t.cc_defender_won_attacker,
        &t.cc_defender_won_defender,
    ] {
        for c in 0..5 {
            let ms: Vec<i8> = tb
                .rows
                .iter()
                .filter(|r| r.key >= 3)
                .map(|r| r.cells[c].value.loss.morale_change)
                .collect();
            assert!(
                ms.windows(2).all(|w| w[1] <= w[0]),
                "{} col {c}: {ms:?}",
                tb.id
            );
        }
    }
}
