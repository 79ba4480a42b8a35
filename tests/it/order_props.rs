//! Property tests of the order checker: any input is read without panicking, spans stay inside
//! the input, and read-backs read back to the same order (NBS 6.5.2 same-order key).

use proptest::prelude::*;
use staffwork::order::{self, CheckedOrder, Reference};

fn spans_ok(text: &str, o: &CheckedOrder) {
    let ok = |s: (usize, usize)| {
        s.0 <= s.1 && s.1 <= text.len() && text.is_char_boundary(s.0) && text.is_char_boundary(s.1)
    };
    assert!(ok(o.span));
    for d in &o.diagnostics {
        assert!(ok(d.span), "{:?} in {text:?}", d);
    }
    for r in &o.remarks {
        assert!(ok(r.span));
    }
    let mut refs: Vec<&Reference> = o.places.iter().collect();
    refs.extend(o.recipient.iter());
    for st in &o.stages {
        refs.extend(st.objectives.iter().chain(st.route.iter()));
    }
    for r in refs {
        assert!(ok(r.span), "{r:?}");
    }
}

const WORDS: &[&str] = &[
    "2nd Div:",
    "3rd Div",
    "To General Morvan:",
    "The Duke will",
    "Has orders to",
    "march",
    "move",
    "attack",
    "capture",
    "defend",
    "hold",
    "withdraw",
    "cross",
    "deploy",
    "support",
    "await orders",
    "take up position as reserve",
    "pursue",
    "reconnoitre",
    "leave the map",
    "and",
    "and then",
    "then",
    "or",
    "either",
    ",",
    ";",
    ".",
    "!",
    "to",
    "over",
    "up",
    "via",
    "along",
    "from",
    "at",
    "on",
    "behind",
    "north of",
    "the",
    "Hall",
    "Kümla",
    "Säter",
    "Hinzeberg",
    "Viskan Stream",
    "Säter road",
    "Cerro de Medellin",
    "29.17",
    "B29.17",
    "w/i 3 of 20.22",
    "18.25, 19.25 & 20.25",
    "between 24.12 and 24.20",
    "facing west",
    "west",
    "against attacks from the north",
    "from the direction of Säter",
    "at 10:00",
    "before 0900 hours",
    "at dawn",
    "on receipt",
    "if",
    "if possible",
    "as soon as",
    "the instant",
    "the enemy holds",
    "4th Division arrives",
    "in order to",
    "fall on the rear of the enemy",
    "Independent Order",
    "with Cav-I attached",
    "My dear General,",
    "Sir,",
    "Your obedient servant,",
    "W/E 10:30 —",
    "vigorously",
    "it",
    "them",
    "there",
    "your location",
    "whatever that is",
    "Engage order",
    "(",
    ")",
    "xyzzy",
    "\n",
];

fn soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(WORDS), 0..40).prop_map(|w| w.join(" "))
}

fn structured() -> impl Strategy<Value = String> {
    let recipient = prop::sample::select(vec![
        "2nd Div:",
        "3rd Div:",
        "To General Morvan:",
        "The Duke will",
        "Hill —",
    ]);
    let verb = prop::sample::select(vec![
        "march", "attack", "capture", "defend", "cross", "withdraw", "support", "pursue", "occupy",
    ]);
    let route = prop::sample::select(vec![
        "",
        " up the Säter road",
        " over Hinzeberg",
        " via Kirseberg",
    ]);
    let obj = prop::sample::select(vec![
        " Hall",
        " to Kümla",
        " Säter",
        " 12.14",
        " w/i 2 of 16.10",
        " the bridge",
        " between 13.13 and 13.14",
    ]);
    let extra = prop::sample::select(vec![
        "",
        " from the direction of Säter",
        " facing west",
        " at 10:00",
        " before 0900 hours",
        " if the enemy holds Kümla",
        " in order to fall on the rear of the enemy",
        " vigorously",
    ]);
    let join = prop::sample::select(vec![" and ", " and then ", ". ", ", then "]);
    let clause = (verb, route, obj, extra).prop_map(|(v, r, o, e)| format!("{v}{r}{o}{e}"));
    (recipient, prop::collection::vec((clause, join), 1..4)).prop_map(|(r, cs)| {
        let mut s = r.to_string();
        for (i, (c, j)) in cs.iter().enumerate() {
            s.push(' ');
            s.push_str(c);
            if i + 1 < cs.len() {
                s.push_str(j);
            }
        }
        s.push('.');
        s
    })
}

fn round_trips(o: &CheckedOrder) {
    if o.stages.is_empty() {
        return;
    }
    let again = order::check_one(&o.readback, None, None);
    assert_eq!(
        again.same_order_key(),
        o.same_order_key(),
        "{}\n{}",
        o.text,
        o.readback
    );
    assert_eq!(again.order_type, o.order_type, "{}", o.readback);
    assert_eq!(again.readback, o.readback);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn any_text_is_read_without_panic(text in "\\PC{0,300}") {
        let r = order::check(&text, None, None);
        for o in &r.orders { spans_ok(&text, o); }
    }

    #[test]
    fn any_bytes_as_lossy_text_are_read(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let s = staffwork::scenario::bundled("tutorial-hall").unwrap();
        let r = order::check(&text, Some(&s), Some("imperial"));
        for o in &r.orders { spans_ok(&text, o); }
    }

    #[test]
    fn word_soup_is_read_and_spans_hold(text in soup()) {
        let s = staffwork::scenario::bundled("tutorial-hall").unwrap();
        for scen in [None, Some(&s)] {
            let r = order::check(&text, scen, Some("imperial"));
            for o in &r.orders { spans_ok(&text, o); }
        }
    }

    #[test]
    fn structured_orders_read_back_to_the_same_order(text in structured()) {
        let o = order::check_one(&text, None, None);
        prop_assert!(!o.stages.is_empty(), "{}", text);
        round_trips(&o);
    }

    #[test]
    fn word_soup_read_backs_are_read(text in soup()) {
        // Arbitrary word soup need not round-trip exactly (see docs/decisions/0013); its
        // read-back must still be read without panic and keep its type.
        for o in order::check(&text, None, None).orders {
            let again = order::check_one(&o.readback, None, None);
            spans_ok(&o.readback, &again);
            prop_assert_eq!(again.order_type.is_some(), o.order_type.is_some());
        }
    }
}

#[test]
fn a_megabyte_of_text_is_read() {
    // One megabyte in one order: refused unread (decision 0176; linear by construction).
    let no_stops = "attack Hall and ".repeat(1_048_576 / 16);
    let r = order::check(&no_stops, None, None);
    assert!(
        r.orders[0]
            .diagnostics
            .iter()
            .any(|d| d.code == "order-length")
    );
    // 128 KiB of noise in short lines and blank lines.
    let noise: String = (0..131_072u32)
        .map(|i| match i % 97 {
            0 => '\n',
            1 if i % 3 == 0 => '\n',
            n => char::from_u32(0x20 + (i.wrapping_mul(2_654_435_761) % 0x2F0) + n % 2)
                .unwrap_or('?'),
        })
        .collect();
    let r = order::check(&noise, None, None);
    assert!(!r.orders.is_empty());
    // Parsed text: many orders and one order of many stages (kept small for debug builds; the
    // full megabyte of parsed orders is `a_megabyte_of_orders_is_parsed`, and throughput is
    // measured in benches/orders.rs).
    let many_orders = "2nd Div: capture Hall.\n\n".repeat(2_000);
    assert_eq!(order::check(&many_orders, None, None).orders.len(), 2_000);
    let unit = "2nd Div: attack up the Säter road and capture Hall. Then defend it against attacks from the east.\n";
    // As long as an order may be (8000 characters, decision 0176) …
    let n = order::MAX_ORDER_CHARS / unit.chars().count();
    let r = order::check(&unit.repeat(n), None, None);
    assert_eq!(r.orders[0].stages.len(), 2 * n);
    // … and longer: refused unread.
    let r = order::check(&unit.repeat(500), None, None);
    assert!(r.orders[0].stages.is_empty());
    assert!(
        r.orders[0]
            .diagnostics
            .iter()
            .any(|d| d.code == "order-length")
    );
}

/// A megabyte of real orders, parsed in full. Slow in debug builds (about a minute), so run it
/// with `cargo test --release -- --ignored`.
#[test]
#[ignore]
fn a_megabyte_of_orders_is_parsed() {
    let unit = "2nd Div: attack up the Säter road and capture Hall. Then defend it vigorously against attacks from the east.\n";
    let text = unit.repeat(1_048_576 / unit.len());
    let r = order::check(&text, None, None);
    assert_eq!(r.orders.len(), 1);
    assert!(r.orders[0].stages.len() > 15_000);
}

#[test]
fn deep_nesting_and_every_script_are_read() {
    let nested = format!(
        "2nd Div: capture {}Hall{}.",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    let o = order::check_one(&nested, None, None);
    spans_ok(&nested, &o);
    let mut scripts = String::from("2nd Div: capture ");
    for start in (0x00A0u32..0x3_0000).step_by(97) {
        if let Some(c) = char::from_u32(start) {
            scripts.push(c);
            if start % 7 == 0 {
                scripts.push(' ');
            }
        }
    }
    for text in [
        scripts.as_str(),
        "",
        " ",
        "\n\n\n",
        ".",
        "\u{0}",
        "2nd Div:",
        "Ku\u{308}\u{308}\u{308}mla",
    ] {
        let r = order::check(text, None, None);
        for o in &r.orders {
            spans_ok(text, o);
        }
        let o = order::check_one(text, None, None);
        spans_ok(text, &o);
    }
}

/// Found by `structured_orders_read_back_to_the_same_order`: a conditioned stage of several steps
/// after a conditioned stage reads its condition first, or its first step would join the stage
/// before it when read back (rule `readback.condition-first`, joined stages).
#[test]
fn two_conditioned_stages_read_back_to_the_same_order() {
    for text in [
        "2nd Div: occupy over Hinzeberg Hall if the enemy holds Kümla and  support over Hinzeberg the bridge if the enemy holds Kümla and  occupy w/i 2 of 16.10.",
        "2nd Div: occupy Hall if the enemy holds Kümla and support the bridge if the enemy holds Kümla and occupy 16.10.",
    ] {
        let o = order::check_one(text, None, None);
        assert_eq!(o.stages.len(), 2, "{text}");
        round_trips(&o);
    }
}
