//! grains-shaders
