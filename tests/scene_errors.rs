//! scene_errors tests (being written).
