//! determinism tests (being written).
