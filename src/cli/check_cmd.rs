//! TEMPORARY stand-in.
pub fn print_order_text(_t: &str, c: &crate::order::CheckedOrder) {
    eprintln!("{:?}", c.diagnostics);
}
