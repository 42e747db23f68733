//! gpu tests (being written).
