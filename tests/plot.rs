//! `grains plot` on a real run's output: the head-on scene run on the CPU with the contact
//! table on, then its energy and contacts plotted through the command line.

use std::path::{Path, PathBuf};

use grains_tests::workspace_root;

fn grains(args: &[&str]) -> anyhow::Result<()> {
    let mut v = vec!["grains"];
    v.extend_from_slice(args);
    grains_cli::main_with_args(v)
}

fn table(path: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| l.split(',').map(String::from).collect())
        .collect()
}

/// The PNG `path` begins with the PNG signature and decodes to `size`.
fn check_png(path: &Path, size: (u32, u32)) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
        "{}",
        path.display()
    );
    let reader = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .expect("a PNG header");
    assert_eq!((reader.info().width, reader.info().height), size);
}

/// The run's file names and columns are the ones grains-plot reads.
#[test]
fn plot_reads_the_files_runs_write() {
    assert_eq!(grains_plot::ENERGY_CSV, grains_io::ENERGY_CSV);
    assert_eq!(grains_plot::WALLS_CSV, grains_io::WALLS_CSV);
    assert_eq!(grains_plot::CONTACTS_CSV, grains_io::CONTACTS_CSV);
    let has = |header: &str, cols: &[&str]| {
        let h: Vec<&str> = header.split(',').collect();
        cols.iter().all(|c| h.contains(c))
    };
    assert!(has(grains_io::ENERGY_HEADER, &["step", "time", "total"]));
    assert!(has(
        grains_io::WALLS_HEADER,
        &["step", "time", "wall", "fx", "fy", "fz"]
    ));
    assert!(has(
        grains_io::CONTACTS_HEADER,
        &["step", "time", "fn", "bond"]
    ));
}

#[test]
fn plot_draws_a_runs_energy_and_contacts() {
    let out = std::env::temp_dir().join(format!("grains-plot-run-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let o = out.to_string_lossy().into_owned();
    let scene = workspace_root().join("scenes/two_spheres_head_on.toml");
    let s = scene.to_string_lossy().into_owned();
    grains(&[
        "run",
        &s,
        "--backend",
        "cpu",
        "--out",
        &o,
        "-q",
        "--set",
        "output.formats=[\"contacts\"]",
    ])
    .expect("run");

    let figs: PathBuf = out.join("figs");
    let f = figs.to_string_lossy().into_owned();
    grains(&["plot", "energy", &o, "--out", &f]).expect("plot energy");
    check_png(&figs.join("energy.png"), grains_plot::figure_size(1));
    check_png(&figs.join("energy_drift.png"), grains_plot::figure_size(1));
    let svg = std::fs::read_to_string(figs.join("energy.svg")).expect("energy.svg");
    assert!(svg.contains("<svg"));
    // The head-on collision moves the kinetic, elastic and dissipated columns.
    for name in ["kinetic", "elastic", "damping_dissipated", "total"] {
        assert!(
            svg.contains(&format!("\n{name}\n")),
            "{name} not in the legend"
        );
    }
    // The table behind the figure holds the log's values, row for row.
    let energy = table(&out.join("energy.csv"));
    let plotted = table(&figs.join("energy_plot.csv"));
    assert_eq!(plotted.len(), energy.len());
    for (c, name) in plotted[0].iter().enumerate() {
        let k = energy[0].iter().position(|h| h == name).expect(name);
        for (p, e) in plotted.iter().zip(&energy).skip(1) {
            assert_eq!(p[c].parse::<f64>().ok(), e[k].parse::<f64>().ok(), "{name}");
        }
    }

    grains(&["plot", "contacts", &o, "--out", &f]).expect("plot contacts");
    check_png(&figs.join("contacts.png"), grains_plot::figure_size(2));
    let contacts = table(&figs.join("contacts_plot.csv"));
    assert_eq!(
        contacts[0],
        ["step", "time", "contacts", "mean_fn", "max_fn"]
    );
    // Every output step is there, with or without contacts, and the collision is seen.
    assert_eq!(contacts.len(), energy.len());
    assert!(contacts[1..].iter().any(|r| r[2] == "1"));
    assert!(contacts[1..].iter().any(|r| r[2] == "0"));

    // A run without moving walls has no walls.csv: the message says what writes it.
    let e = grains(&["plot", "walls", &o]).expect_err("no walls.csv");
    let e = format!("{e:#}");
    assert!(
        e.contains("walls.csv is missing") && e.contains("moving wall or a mesh wall"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&out);
}
