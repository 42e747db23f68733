//! grains-gpu
