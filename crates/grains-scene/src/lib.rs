//! grains-scene
