//! shaders tests (being written).
