//! Artillery and skirmisher fire (17, 18) — in progress.
