//! The `grains` binary: see `grains --help`.

fn main() {
    // Mesa's Vulkan drivers probe Wayland when the instance is created and print
    // "XDG_RUNTIME_DIR is invalid" on headless machines where it is unset; a run that never
    // opens a window should not greet its user with an error line. Set before any thread
    // exists, so changing the environment is sound.
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        std::env::set_var("XDG_RUNTIME_DIR", std::env::temp_dir());
    }
    if let Err(e) = grains_cli::main_with_args(std::env::args_os()) {
        // An interruption asked for is not an error: say where the run stopped and how to
        // resume it, and exit as shells expect of a command stopped by SIGINT.
        if let Some(stop) = e.downcast_ref::<grains_cli::run::Interrupted>() {
            eprintln!("{stop}");
            std::process::exit(130);
        }
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
