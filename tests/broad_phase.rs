//! broad_phase tests (being written).
