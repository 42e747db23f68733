//! cli tests (being written).
