//! Read an order as the order language understands it, from a program.
//!
//! `cargo run --example check_order -- "2nd Div: attack up the Säter road and capture Hall."`

fn main() {
    let text = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "2nd Div: attack up the Säter road and capture Hall.".to_string());
    let scenario = staffwork::scenario::bundled("tutorial-hall").expect("the tutorial is bundled");
    let order = staffwork::order::check_one(&text, Some(&scenario), Some("imperial"));
    println!("read back: {}", order.readback);
    println!("type:      {:?}", order.order_type);
    let recipient = order.recipient.as_ref().and_then(|r| r.resolved.as_ref());
    println!(
        "recipient: {}",
        recipient.map_or("(unresolved)", |r| r.id.as_str())
    );
    for d in &order.diagnostics {
        println!("{:?} [{}]: {}", d.severity, d.code, d.message);
    }
}
