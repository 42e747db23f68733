//! grains-io
