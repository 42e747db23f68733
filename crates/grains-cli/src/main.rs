//! The `grains` binary: see `grains --help`.

/// Fix glibc malloc's thresholds for the run: large arrays in mappings of their own, given
/// back to the system when freed.
///
/// By default glibc raises its mmap threshold to the size of each large block freed (up to
/// 32 MiB), after which the arrays a rebuild or a frame holds for a moment come from the heap
/// and stay resident once freed. `scenes/settle_100k.toml` on the CPU peaked at 49.8 and
/// 53.6 MiB resident against a heap peak (heaptrack) of 36.8 MB; with the thresholds fixed at
/// 256 KiB (mmap) and 1 MiB (trim), at 41.9 MiB, at the same speed.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn tune_allocator() {
    extern "C" {
        fn mallopt(param: std::ffi::c_int, value: std::ffi::c_int) -> std::ffi::c_int;
    }
    // glibc's <malloc.h>.
    const M_TRIM_THRESHOLD: std::ffi::c_int = -1;
    const M_MMAP_THRESHOLD: std::ffi::c_int = -3;
    // SAFETY: mallopt only sets the allocator's parameters and may be called at any time; a
    // refused value (return 0) leaves the defaults, which are correct, only larger.
    unsafe {
        mallopt(M_MMAP_THRESHOLD, 256 << 10);
        mallopt(M_TRIM_THRESHOLD, 1 << 20);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn tune_allocator() {}

fn main() {
    tune_allocator();
    // Mesa's Vulkan drivers probe Wayland when the instance is created and print
    // "XDG_RUNTIME_DIR is invalid" on headless machines where it is unset; a run that never
    // opens a window should not greet its user with an error line. Set before any thread
    // exists, so changing the environment is sound.
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        std::env::set_var("XDG_RUNTIME_DIR", std::env::temp_dir());
    }
    let status = grains_cli::exit_status(grains_cli::main_with_args(std::env::args_os()));
    std::process::exit(status);
}
