//! The conformance suite (tests/conformance/*.case) as one test per case, named
//! `FILE::CASE NAME`, so `cargo test --test conformance -- charge` runs the cases whose file or
//! name says "charge" and one failing case is one failing test (libtest-mimic, `harness =
//! false`). The runner itself is tested too (`runner::…`): a wrong expectation, a missing die
//! and a superfluous die each fail with a message that shows the difference.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};
use staffwork::conformance::{CaseResult, collect, parse, run_case};

fn suite() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance")
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = case_trials();
    trials.extend(runner_trials());
    libtest_mimic::run(&args, trials).exit();
}

/// One trial per case of the suite; a file that does not parse is one failing trial naming
/// the line.
fn case_trials() -> Vec<Trial> {
    let files = collect(&[suite()]).expect("suite folder readable");
    let mut trials = Vec::new();
    let mut names = BTreeSet::new();
    let mut count = 0;
    for file in &files {
        let stem = file
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("?")
            .to_string();
        let text = match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) => {
                let msg = format!("{}: {e}", file.display());
                trials.push(Trial::test(format!("{stem}::(unreadable)"), move || {
                    Err(msg.into())
                }));
                continue;
            }
        };
        match parse(file, &text) {
            Err(e) => trials.push(Trial::test(format!("{stem}::(format)"), move || {
                Err(e.to_string().into())
            })),
            Ok(cases) => {
                for case in cases {
                    count += 1;
                    let mut name = format!("{stem}::{}", case.name);
                    if !names.insert(name.clone()) {
                        name = format!("{name} (line {})", case.line);
                    }
                    trials.push(Trial::test(name, move || outcome(&run_case(&case))));
                }
            }
        }
    }
    let file_count = files.len();
    trials.push(Trial::test("suite::is_all_there", move || {
        if file_count >= 5 && count >= 50 {
            Ok(())
        } else {
            Err(
                format!("expected the full suite, found {count} cases in {file_count} files")
                    .into(),
            )
        }
    }));
    trials
}

fn outcome(r: &CaseResult) -> Result<(), Failed> {
    match &r.failure {
        None => Ok(()),
        Some(f) => Err(format!(
            "{}:{} {} [{}]: {f}",
            r.file,
            r.line,
            r.name,
            r.rules.join(", ")
        )
        .into()),
    }
}

/// The runner's own tests, as trials.
fn runner_trials() -> Vec<Trial> {
    let t = |name: &str, f: fn()| {
        Trial::test(format!("runner::{name}"), move || {
            f();
            Ok(())
        })
    };
    vec![
        t("a_correct_case_passes", a_correct_case_passes),
        t(
            "a_wrong_expectation_fails_showing_the_difference",
            a_wrong_expectation_fails_showing_the_difference,
        ),
        t(
            "a_missing_die_fails_naming_it",
            a_missing_die_fails_naming_it,
        ),
        t(
            "a_superfluous_die_fails_listing_it",
            a_superfluous_die_fails_listing_it,
        ),
        t(
            "an_unexpected_refusal_and_a_missing_refusal_both_fail",
            an_unexpected_refusal_and_a_missing_refusal_both_fail,
        ),
        t("format_errors_name_the_line", format_errors_name_the_line),
        t(
            "the_cli_prints_one_line_per_failure_and_a_closing_count",
            the_cli_prints_one_line_per_failure_and_a_closing_count,
        ),
        t(
            "inequalities_ranges_and_alternatives_compare_values",
            inequalities_ranges_and_alternatives_compare_values,
        ),
        t(
            "expectations_mid_script_are_checked_at_their_point",
            expectations_mid_script_are_checked_at_their_point,
        ),
        t(
            "refused_with_any_code_accepts_any_refusal_but_not_success",
            refused_with_any_code_accepts_any_refusal_but_not_success,
        ),
        t(
            "odds_expectations_are_exact_fractions",
            odds_expectations_are_exact_fractions,
        ),
        t(
            "an_unscripted_die_names_the_roll_the_rule_and_the_command",
            an_unscripted_die_names_the_roll_the_rule_and_the_command,
        ),
        t(
            "a_failing_case_fails_its_trial",
            a_failing_case_fails_its_trial,
        ),
        t(
            "offer_expectations_read_the_pending_offers",
            offer_expectations_read_the_pending_offers,
        ),
    ]
}

/// `opportunity-offered` and `reaction-offered` (decisions 0154, 0155) compare with what the
/// umpire's status offers, and a wrong one fails naming the line, the offer and what was found.
fn offer_expectations_read_the_pending_offers() {
    let moved = "case: offers\nrules: 16.5, 17.4\nscenario: scenarios/mini-reaction.toml\ncommands:\n  turn\n  move --piece fr-col --to 5.05\n";
    let ok = run_text(&format!(
        "{moved}expect:\n  opportunity-offered aus-bty fr-col 5.06 yes\n  opportunity-offered aus-bty fr-col 5.07 no\n  reaction-offered aus-cav fr-col 5.07 yes\n  reaction-offered aus-cav fr-col 5.05 check\n"
    ));
    assert!(ok.passed, "{ok:?}");
    let bad = run_text(&format!(
        "{moved}expect:\n  opportunity-offered aus-bty fr-col 5.07 yes\n"
    ));
    let f = bad.failure.unwrap();
    assert!(
        f.contains("opportunity-offered aus-bty fr-col 5.07: expected yes, got no"),
        "{f}"
    );
    let bad = run_text(&format!(
        "{moved}expect:\n  reaction-offered aus-cav fr-col 5.05 yes\n"
    ));
    let f = bad.failure.unwrap();
    assert!(f.contains("expected yes, got check"), "{f}");
}

fn run_text(text: &str) -> CaseResult {
    let file = suite().join("(inline).case");
    let cases = parse(&file, text).expect("case parses");
    run_case(&cases[0])
}

const BASE: &str = "case: written General order costs 6\nrules: 6.4.1\ncommands:\n  order --side imperial --method written \"3rd Div: march to Kümla and defend.\"\n";

fn a_correct_case_passes() {
    let r = run_text(&format!("{BASE}expect:\n  command-points imperial 9\n"));
    assert!(r.passed, "{r:?}");
}

fn a_wrong_expectation_fails_showing_the_difference() {
    let r = run_text(&format!("{BASE}expect:\n  command-points imperial 10\n"));
    assert!(!r.passed);
    let f = r.failure.unwrap();
    assert!(f.contains("expected 10, got 9"), "{f}");
}

fn a_missing_die_fails_naming_it() {
    let text = "case: acceptance needs a die\nrules: 6.5\ncommands:\n  order --side imperial --method written \"3rd Div: march to Kümla and defend.\"\n  turn\n  turn\n  turn\n  turn\n  turn\ndice:\n  delay-reduction d6: 1\n";
    let r = run_text(text);
    assert!(!r.passed);
    let f = r.failure.unwrap();
    assert!(f.contains("no 6-sided die scripted for Acceptance"), "{f}");
}

fn a_superfluous_die_fails_listing_it() {
    let r = run_text(&format!(
        "{BASE}dice:\n  acceptance 11..66: 66\nexpect:\n  command-points imperial 9\n"
    ));
    assert!(!r.passed);
    let f = r.failure.unwrap();
    assert!(
        f.contains("dice given but not used") && f.contains("Acceptance [6, 6]"),
        "{f}"
    );
}

fn an_unexpected_refusal_and_a_missing_refusal_both_fail() {
    let r = run_text(
        "case: x\ncommands:\n  order --side imperial --method in-person \"3rd Div: march to Kümla and defend.\"\n",
    );
    assert!(r.failure.unwrap().contains("not-stacked"));
    let r = run_text(&format!(
        "{}  => refused not-enough-command-points\n",
        BASE.trim_end()
    ));
    assert!(
        r.failure
            .unwrap()
            .contains("expected refusal `not-enough-command-points`")
    );
}

fn format_errors_name_the_line() {
    let e = parse(Path::new("x.case"), "case: a\nbogus: 1\n").unwrap_err();
    assert_eq!(e.line, 2);
    assert!(e.message.contains("unknown key `bogus`"));
    let e = parse(Path::new("x.case"), "  turn\n").unwrap_err();
    assert_eq!(e.line, 1);
}

fn the_cli_prints_one_line_per_failure_and_a_closing_count() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("bad.case");
    std::fs::write(&f, format!("{BASE}expect:\n  command-points imperial 10\n")).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_staffwork"))
        .args(["conformance", f.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("FAIL") && stdout.contains("expected 10, got 9"),
        "{stdout}"
    );
    assert!(
        stdout.trim_end().ends_with("0 passed, 1 failed"),
        "{stdout}"
    );
}

fn a_failing_case_fails_its_trial() {
    let r = run_text(&format!("{BASE}expect:\n  command-points imperial 10\n"));
    let e = outcome(&r).expect_err("a failing case is a failing trial");
    let msg = format!("{e:?}");
    assert!(msg.contains("expected 10, got 9"), "{msg}");
    assert!(
        outcome(&run_text(&format!(
            "{BASE}expect:\n  command-points imperial 9\n"
        )))
        .is_ok()
    );
}

/// The written General order of the `BASE` case, rolled for on the fifth `turn`.
const ROLLED: &str = "case: written General order, rolled for\nrules: 6.5\ncommands:\n  order --side imperial --method written \"3rd Div: march to Kümla and defend.\"\n  turn\n  turn\n  turn\n  turn\n  turn\ndice:\n  delay-reduction d6: 1\n  acceptance 11..66: 11\n";

fn inequalities_ranges_and_alternatives_compare_values() {
    let ok = run_text(&format!(
        "{ROLLED}expect:\n  command-points imperial >= 9\n  order 4 cost in 5..8\n  order 4 status one-of accepted distorted\n  turn != 1\n  event acceptance-rolled order=4 roll<=11 number=5..7 result=A|Dt\n  distance(hq:imperial-army, 1.01) >= 0\n"
    ));
    assert!(ok.passed, "{ok:?}");
    let bad = run_text(&format!(
        "{ROLLED}expect:\n  order 4 status one-of accepted superseded\n"
    ));
    let f = bad.failure.unwrap();
    assert!(
        f.contains("expected one of accepted, superseded, got distorted"),
        "{f}"
    );
    let bad = run_text(&format!(
        "{ROLLED}expect:\n  event acceptance-rolled order=4 number>=7\n"
    ));
    let f = bad.failure.unwrap();
    assert!(f.contains("number>=7") && f.contains("turn="), "{f}");
}

fn expectations_mid_script_are_checked_at_their_point() {
    let ok = run_text(&format!(
        "{ROLLED}expect:\n  after 1: order 4 status in-transit\n  after 1: command-points imperial 9\n  at turn 1: no-event acceptance-rolled\n  at turn 2: event acceptance-rolled order=4\n  order 4 status distorted\n"
    ));
    assert!(ok.passed, "{ok:?}");
    let bad = run_text(&format!(
        "{ROLLED}expect:\n  after 1: order 4 status distorted\n"
    ));
    let f = bad.failure.unwrap();
    assert!(f.starts_with("after command 1 (`order"), "{f}");
    let bad = run_text(&format!("{ROLLED}expect:\n  after 9: turn 1\n"));
    assert!(bad.failure.unwrap().contains("the case has 6 command(s)"));
    let bad = run_text(&format!("{ROLLED}expect:\n  at turn 7: turn 7\n"));
    assert!(bad.failure.unwrap().contains("never in turn 7"));
}

fn refused_with_any_code_accepts_any_refusal_but_not_success() {
    let r = run_text(
        "case: x\ncommands:\n  order --side imperial --method in-person \"3rd Div: march to Kümla and defend.\" => refused any\n",
    );
    assert!(r.passed, "{r:?}");
    let r = run_text(&format!("{}  => refused\n", BASE.trim_end()));
    assert!(
        r.failure.unwrap().contains("expected refusal `any`"),
        "a command that succeeds fails `refused`"
    );
}

fn odds_expectations_are_exact_fractions() {
    // Chart p1: column 6 (3 + 3 + written 0 + General 0 + current General 0) accepts on 24 of
    // 36 readings (31-66); 2/3 is the same fraction. Rating 2 gains Initiative on 64-66.
    let ok = run_text(&format!(
        "{BASE}expect:\n  odds acceptance --sender-rating 3 --receiver-rating 3 --method written --type general --current general A = 2/3\n  odds initiative --rating 2 initiative = 3/36\n  odds stoppage --sub-units 3 --wrecked 1 --rating 2 pass = 26/36\n  odds acceptance order 4 Dt = 1/36\n"
    ));
    assert!(ok.passed, "{ok:?}");
    let bad = run_text(&format!(
        "{BASE}expect:\n  odds acceptance order 4 A = 35/36\n"
    ));
    let f = bad.failure.unwrap();
    assert!(f.contains("expected 35/36, got"), "{f}");
}

fn an_unscripted_die_names_the_roll_the_rule_and_the_command() {
    let text = "case: acceptance needs a die\nrules: 6.5\ncommands:\n  order --side imperial --method written \"3rd Div: march to Kümla and defend.\"\n  turn\n  turn\n  turn\n  turn\n  turn\ndice:\n  delay-reduction d6: 1\n";
    let f = run_text(text).failure.unwrap();
    assert!(
        f.contains("`turn` asked for a die the case did not give")
            && f.contains("New Order Acceptance (rule 6.5)")
            && f.contains("`acceptance 11..66: TENS-UNITS, e.g. 23`"),
        "{f}"
    );
}
