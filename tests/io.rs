//! io tests (being written).
