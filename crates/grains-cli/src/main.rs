//! The `grains` binary: see `grains --help`.

fn main() {
    if let Err(e) = grains_cli::main_with_args(std::env::args_os()) {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
