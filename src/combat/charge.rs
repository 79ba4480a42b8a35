//! Cavalry charges (16) — in progress.
