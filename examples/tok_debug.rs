fn main() {
    for a in std::env::args().skip(1) {
        let r = staffwork::order::check_one(&a, None, None);
        println!(
            "{}\n  rec={:?}\n  rb={}\n  remarks={:?}",
            a,
            r.recipient.as_ref().map(|r| &r.text),
            r.readback,
            r.remarks
        );
    }
}
