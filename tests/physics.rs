//! Physics against closed forms (CPU backend).
