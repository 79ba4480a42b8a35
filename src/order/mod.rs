//! TEMPORARY stand-in for the order language (replaced by the order branch on merge).
use crate::rules::{OrderType, Posture};
use crate::scenario::Scenario;
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Severity {
    Error,
    Warning,
    Note,
}
#[derive(Clone, Debug, Serialize)]
pub struct Diagnostic {
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
}
#[derive(Clone, Debug, Serialize)]
pub struct Resolved {
    pub id: String,
}
#[derive(Clone, Debug, Serialize)]
pub struct Reference {
    pub text: String,
    pub resolved: Option<Resolved>,
}
#[derive(Clone, Debug, Serialize)]
pub struct Stage {
    pub posture: Posture,
}
#[derive(Clone, Debug, Serialize)]
pub struct CheckedOrder {
    pub text: String,
    pub recipient: Option<Reference>,
    pub order_type: Option<OrderType>,
    pub stages: Vec<Stage>,
    pub independent: bool,
    pub readback: String,
    pub diagnostics: Vec<Diagnostic>,
}
impl CheckedOrder {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.severity == Severity::Error)
    }
    pub fn same_order_key(&self) -> String {
        crate::text::fold(&self.text)
    }
}
pub fn check_one(text: &str, scenario: Option<&Scenario>, _side: Option<&str>) -> CheckedOrder {
    let (head, body) = text.split_once(':').unwrap_or(("", text));
    let f = crate::text::fold(head);
    let resolved = scenario.and_then(|s| {
        s.formations.iter().find(|x| {
            crate::text::fold(&x.name) == f
                || x.aliases.iter().any(|a| crate::text::fold(a) == f)
                || x.short.as_deref().is_some_and(|a| crate::text::fold(a) == f)
        })
    });
    let b = crate::text::fold(body);
    let engage = ["attack", "capture", "drive"].iter().any(|w| b.contains(w));
    let complex = b.contains(" if ") || b.contains("instant") || b.contains("then");
    let t = if complex { OrderType::Complex } else if engage { OrderType::Engage } else { OrderType::General };
    CheckedOrder {
        text: text.to_string(),
        recipient: Some(Reference { text: head.into(), resolved: resolved.map(|r| Resolved { id: r.id.clone() }) }),
        order_type: Some(t),
        stages: vec![Stage { posture: if engage { Posture::Engage } else { Posture::General } }],
        independent: b.contains("independent"),
        readback: format!("(stub) {}", text.trim()),
        diagnostics: vec![],
    }
}
