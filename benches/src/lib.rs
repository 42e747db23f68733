//! Benchmarks of grains. `cargo bench -p grains-benches` runs `settle.rs`, which uses the same
//! code as `grains bench` (`grains_cli::bench`).
