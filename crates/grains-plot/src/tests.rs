//! Each kind of plot on small tables written here: the files it writes, the table behind each
//! figure against its input, and the messages of missing and malformed inputs.

use std::path::{Path, PathBuf};

use crate::{plot, Kind, PlotError};

/// A fresh folder under the system's temporary folder.
fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("grains-plot-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn rows(path: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| l.split(',').map(String::from).collect())
        .collect()
}

fn names(files: &[PathBuf]) -> Vec<String> {
    files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect()
}

/// The figure `stem` in `dir` is a PNG of `size` and an SVG naming each of `legend`.
fn check_figure(dir: &Path, stem: &str, size: (u32, u32), legend: &[&str]) {
    let png = std::fs::read(dir.join(format!("{stem}.png"))).unwrap();
    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let reader = decoder.read_info().unwrap();
    assert_eq!((reader.info().width, reader.info().height), size, "{stem}");
    let svg = std::fs::read_to_string(dir.join(format!("{stem}.svg"))).unwrap();
    assert!(svg.contains("<svg"), "{stem}");
    for name in legend {
        // Each text element holds its text on a line of its own.
        assert!(svg.contains(&format!("\n{name}\n")), "{stem}: {name}");
    }
}

const ENERGY: &str = "step,time,kinetic,rotational,gravitational,elastic,damping_dissipated,friction_dissipated,total,removed,wall_work,kinematic_work,inserted
0,0,1e0,0e0,2e0,0e0,0e0,0e0,3e0,0e0,0e0,0e0,0e0
10,0.001,5e-1,0e0,2.25e0,2.5e-1,0e0,0e0,3.00003e0,0e0,0e0,0e0,0e0
20,0.002,2.5e-1,0e0,2.5e0,0e0,2.5e-1,0e0,3e0,0e0,0e0,0e0,0e0
";

#[test]
fn energy_plots_the_ledger_columns_that_move_and_the_drift() {
    let dir = temp_dir("energy");
    std::fs::write(dir.join("energy.csv"), ENERGY).unwrap();
    let files = plot(Kind::Energy, &dir, &dir, None).unwrap();
    assert_eq!(
        names(&files),
        [
            "energy.png",
            "energy.svg",
            "energy_plot.csv",
            "energy_drift.png",
            "energy_drift.svg",
            "energy_drift_plot.csv"
        ]
    );
    let legend = [
        "kinetic",
        "gravitational",
        "elastic",
        "damping_dissipated",
        "total",
    ];
    check_figure(
        &dir,
        "energy",
        (crate::WIDTH, crate::SINGLE_HEIGHT),
        &legend,
    );
    let t = rows(&dir.join("energy_plot.csv"));
    let mut header = vec!["step", "time"];
    header.extend(legend);
    assert_eq!(t[0], header);
    assert_eq!(t.len(), 4);
    // Each value as the input has it, column by column.
    let input: Vec<Vec<&str>> = ENERGY.lines().map(|l| l.split(',').collect()).collect();
    for (r, row) in t.iter().enumerate().skip(1) {
        for (c, name) in header.iter().enumerate() {
            let k = input[0].iter().position(|h| h == name).unwrap();
            let want: f64 = input[r][k].parse().unwrap();
            assert_eq!(row[c].parse::<f64>().unwrap(), want, "row {r} {name}");
        }
    }
    let d = rows(&dir.join("energy_drift_plot.csv"));
    assert_eq!(d[0], ["step", "time", "drift"]);
    let drift: Vec<f64> = d[1..].iter().map(|r| r[2].parse().unwrap()).collect();
    assert_eq!(drift[0], 0.0);
    assert!((drift[1] - 1e-5).abs() < 1e-12, "{drift:?}");
    assert_eq!(drift[2], 0.0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn walls_plot_each_walls_force_and_its_magnitude() {
    let dir = temp_dir("walls");
    let text = "step,time,wall,fx,fy,fz,tx,ty,tz,cx,cy,cz\n\
                0,0,0,0,0,3,0,0,0,0,0,0\n0,0,1,4,0,0,0,0,0,0,0,0\n\
                5,0.5,0,0,0,6,0,0,0,0,0,0\n5,0.5,1,3,4,0,0,0,0,0,0,0\n";
    std::fs::write(dir.join("walls.csv"), text).unwrap();
    let out = dir.join("figs");
    let files = plot(Kind::Walls, &dir, &out, None).unwrap();
    assert_eq!(names(&files), ["walls.png", "walls.svg", "walls_plot.csv"]);
    check_figure(
        &out,
        "walls",
        crate::figure_size(2),
        &["Force on wall 0", "Force on wall 1", "fx", "|F|"],
    );
    let t = rows(&out.join("walls_plot.csv"));
    assert_eq!(
        t[0],
        ["step", "time", "wall", "fx", "fy", "fz", "magnitude"]
    );
    assert_eq!(t[2], ["0", "0", "1", "4", "0", "0", "4"]);
    assert_eq!(t[4], ["5", "0.5", "1", "3", "4", "0", "5"]);
    assert_eq!(t.len(), 5);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn many_walls_share_one_panel_of_magnitudes() {
    let dir = temp_dir("many-walls");
    let mut text = String::from("step,time,wall,fx,fy,fz\n");
    for w in 0..20 {
        text.push_str(&format!("0,0,{w},1,0,0\n1,0.1,{w},{w},0,0\n"));
    }
    std::fs::write(dir.join("walls.csv"), text).unwrap();
    plot(Kind::Walls, &dir, &dir, None).unwrap();
    check_figure(&dir, "walls", crate::figure_size(1), &["wall 0", "wall 19"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn contacts_count_per_output_step_without_bonds() {
    let dir = temp_dir("contacts");
    let row = |step: u32, time: &str, f: &str, bond: u8| {
        format!("{step},{time},0,1,0,{f},0,0,0,1,{bond},0,0,0,0,0,0,0,0,0,0,0,0\n")
    };
    let mut text = String::from(
        "step,time,i,j,overlap,fn,ft,nx,ny,nz,bond,ftx,fty,ftz,fx,fy,fz,vx,vy,vz,tx,ty,tz\n",
    );
    text += &row(10, "0.1", "2", 0);
    text += &row(10, "0.1", "4", 0);
    text += &row(10, "0.1", "100", 1);
    text += &row(30, "0.3", "1.5", 0);
    std::fs::write(dir.join("contacts.csv"), text).unwrap();
    // Step 20 has no contact: the energy log says it was an output step.
    std::fs::write(
        dir.join("energy.csv"),
        "step,time,kinetic\n10,0.1,1\n20,0.2,1\n30,0.3,1\n",
    )
    .unwrap();
    plot(Kind::Contacts, &dir, &dir, None).unwrap();
    check_figure(
        &dir,
        "contacts",
        crate::figure_size(2),
        &["contacts", "mean fn", "max fn"],
    );
    let t = rows(&dir.join("contacts_plot.csv"));
    assert_eq!(t[0], ["step", "time", "contacts", "mean_fn", "max_fn"]);
    assert_eq!(t[1], ["10", "0.1", "2", "3", "4"]);
    assert_eq!(t[2], ["20", "0.2", "0", "0", "0"]);
    assert_eq!(t[3], ["30", "0.3", "1", "1.5", "1.5"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn post_tables_plot_their_numeric_columns_against_the_first() {
    let dir = temp_dir("post");
    std::fs::create_dir_all(dir.join("post")).unwrap();
    std::fs::write(
        dir.join("post/repose.csv"),
        "step,time,angle_deg\n0,0,\n10,0.1,25.5\n20,0.2,26\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("post/discharge.csv"),
        "step,time,discharged,rate,note\n0,0,0,,a\n10,0.1,5,,b\nrate,,5,50,\n",
    )
    .unwrap();
    let files = plot(Kind::Post, &dir, &dir, None).unwrap();
    assert_eq!(
        names(&files),
        [
            "post_discharge.png",
            "post_discharge.svg",
            "post_discharge_plot.csv",
            "post_repose.png",
            "post_repose.svg",
            "post_repose_plot.csv"
        ]
    );
    check_figure(
        &dir,
        "post_repose",
        crate::figure_size(1),
        &["time", "angle_deg"],
    );
    let t = rows(&dir.join("post_repose_plot.csv"));
    assert_eq!(t[0], ["step", "time", "angle_deg"]);
    assert_eq!(t[1], ["0", "0", ""]);
    assert_eq!(t[2], ["10", "0.1", "25.5"]);
    // The summary row and the text column are not plotted; `rate` is empty on every plotted row.
    let d = rows(&dir.join("post_discharge_plot.csv"));
    assert_eq!(d[0], ["step", "time", "discharged"]);
    assert_eq!(d.len(), 3);
    // One table by --file.
    let files = plot(Kind::Post, &dir, &dir, Some(&dir.join("post/repose.csv"))).unwrap();
    assert_eq!(files.len(), 3);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_missing_file_says_what_writes_it() {
    let dir = temp_dir("missing");
    let message = |kind| plot(kind, &dir, &dir, None).unwrap_err().to_string();
    let e = message(Kind::Energy);
    assert!(
        e.contains("energy.csv is missing") && e.contains("[output] energy = true"),
        "{e}"
    );
    let e = message(Kind::Walls);
    assert!(
        e.contains("walls.csv is missing") && e.contains("moving wall"),
        "{e}"
    );
    let e = message(Kind::Contacts);
    assert!(
        e.contains("contacts.csv is missing") && e.contains("\"contacts\""),
        "{e}"
    );
    let e = message(Kind::Post);
    assert!(
        e.contains("post is missing") && e.contains("grains post"),
        "{e}"
    );
    // Nothing was written.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_malformed_file_names_its_line_and_cell() {
    let dir = temp_dir("malformed");
    let path = dir.join("energy.csv");
    let cases = [
        (
            "step,time,kinetic\n0,0,1\n1,0.1,x\n",
            ":3: column `kinetic` (column 3): `x` is not a number",
        ),
        (
            "step,time,kinetic\n0,0,1\n1,0.1\n",
            ":3: 2 cells, but the header has 3",
        ),
        ("step,kinetic\n0,1\n", ":1: the header has no column `time`"),
        (
            "step,time,kinetic\n0.5,0,1\n",
            ":2: column `step` (column 1): `0.5` is not a whole number",
        ),
        ("", ": the file is empty"),
        ("step,time,kinetic\n", ": no rows after the header"),
    ];
    for (text, want) in cases {
        std::fs::write(&path, text).unwrap();
        let e = plot(Kind::Energy, &dir, &dir, None).unwrap_err();
        assert!(matches!(e, PlotError::Malformed { .. }), "{e}");
        let e = e.to_string();
        assert!(
            e.starts_with(&path.display().to_string()) && e.contains(want),
            "{e}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
