fn main() {
    let s = staffwork::scenario::bundled("tutorial-hall").unwrap();
    for f in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&f).unwrap();
        for sc in [None, Some(&s)] {
            let r = staffwork::order::check(&text, sc, None);
            for o in &r.orders {
                let again = staffwork::order::check_one(&o.readback, sc, None);
                if again.key != o.key || again.order_type != o.order_type {
                    println!(
                        "MISMATCH ({}):\n  {}\n  {}\n  {}\n  {}",
                        sc.is_some(),
                        o.text,
                        o.readback,
                        o.key,
                        again.key
                    );
                }
                if again.readback != o.readback {
                    println!("UNSTABLE: {}\n  {}", o.readback, again.readback);
                }
            }
        }
    }
}
