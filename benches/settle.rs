//! Settle benchmark: particle-steps per second of the CPU and GPU backends at 20k, 100k and 1M
//! spheres, side by side in one run (the CPU backend is the ratio's baseline).
//!
//! `GRAINS_BENCH_SIZES=20000,100000` and `GRAINS_BENCH_STEPS=200` override the defaults.

fn main() -> anyhow::Result<()> {
    // As in the `grains` binary: keep Mesa's Wayland probe quiet on headless machines (set
    // before any thread exists).
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        std::env::set_var("XDG_RUNTIME_DIR", std::env::temp_dir());
    }
    let sizes =
        std::env::var("GRAINS_BENCH_SIZES").unwrap_or_else(|_| "20000,100000,1000000".into());
    let steps = std::env::var("GRAINS_BENCH_STEPS").unwrap_or_else(|_| "200".into());
    grains_cli::main_with_args(["grains", "bench", "--sizes", &sizes, "--steps", &steps])
}
