//! The `stress` output: each particle's virial stress and a region's mean stress
//! (grains_core::stress) against closed forms, and the files a run writes with it.

use grains_core::stress::{region_stress, virial_moments, virial_stress};
use grains_core::{Backend, CpuBackend};
use grains_tests::test_world;

/// A sphere squeezed between two walls along z: its two contacts, at `+-(r - delta/2)` with
/// the normal force F each, give `sigma_zz = -2 (r - delta/2) F / V`, `-3 F / (2 pi r^2)` to
/// first order in `delta / r`, and nothing else. Tolerance: the records are f32 (1e-6), and
/// the closed form's `delta / (2 r)` term is taken into account exactly.
#[test]
fn a_sphere_squeezed_between_two_walls_has_sigma_zz_of_three_f_over_two_pi_r_squared() {
    let (r, d) = (1e-3, 2e-6);
    let text = format!(
        "[simulation]\nsteps = 1\ndt = 1e-7\ngravity = [0.0, 0.0, 0.0]\n\n\
         [domain]\nmin = [-0.01, -0.01, -0.01]\nmax = [0.01, 0.01, 0.01]\n\n\
         [[material]]\nname = \"glass\"\ndensity = 2500.0\nyoung = 1.0e8\npoisson = 0.3\n\n\
         [[particles]]\nmaterial = \"glass\"\nradius = {r:e}\npositions = [[0.0, 0.0, 0.0]]\n\n\
         [[wall]]\nmaterial = \"glass\"\nplane = {{ point = [0.0, 0.0, {:e}], normal = [0.0, 0.0, 1.0] }}\n\n\
         [[wall]]\nmaterial = \"glass\"\nplane = {{ point = [0.0, 0.0, {:e}], normal = [0.0, 0.0, -1.0] }}\n\n\
         [[interaction]]\nbetween = [\"glass\", \"glass\"]\nnormal = {{ law = \"hertz\" }}\n",
        -(r - d),
        r - d
    );
    let w = test_world(&text);
    let domain = w.domain.params();
    let mut b = CpuBackend::new(w).expect("cpu");
    let records = b.contact_records();
    assert_eq!(records.len(), 2, "{records:?}");
    let f = records[0].normal_force as f64;
    assert!(f > 0.0 && (records[1].normal_force as f64 - f).abs() <= 1e-6 * f);
    let s = virial_stress(&records, &b.snapshot().pos, &domain)[0];
    let v = 4.0 / 3.0 * std::f64::consts::PI * r * r * r;
    let exact = -2.0 * (r - d / 2.0) * f / v;
    let first_order = -3.0 * f / (2.0 * std::f64::consts::PI * r * r);
    assert!(
        (s[2] - exact).abs() <= 1e-6 * exact.abs(),
        "{s:?} against {exact}"
    );
    assert!(
        (s[2] - first_order).abs() <= d / r * first_order.abs(),
        "{s:?}"
    );
    for k in [0, 1, 3, 4, 5] {
        assert!(s[k].abs() <= 1e-9 * exact.abs(), "component {k}: {s:?}");
    }
}

/// Nine columns of four spheres between a floor and a lid, periodic across, relaxed (overdamped)
/// to balance: the mean stress of the box between the walls is the lid's traction, and it is
/// the mean particle stress times the solid fraction. Tolerance 2e-3: the walls' contact
/// points lie half an overlap inside the box (`delta / H`, 1e-4 here), and the relaxation
/// leaves the columns' forces balanced to 1e-3 of the load.
#[test]
fn a_compressed_lattice_carries_its_wall_traction_as_mean_stress() {
    let (r, gap, cols) = (1e-3, 2.6e-3, 3);
    let layers = 4;
    let h = 2.0 * r * layers as f64 - 4e-6;
    let mut positions = Vec::new();
    for ix in 0..cols {
        for iy in 0..cols {
            for k in 0..layers {
                let z = r + k as f64 * (h - 2.0 * r) / (layers - 1) as f64;
                positions.push(format!(
                    "[{:e}, {:e}, {z:e}]",
                    (ix as f64 + 0.5) * gap,
                    (iy as f64 + 0.5) * gap
                ));
            }
        }
    }
    let text = format!(
        "[simulation]\nsteps = 1\ngravity = [0.0, 0.0, 0.0]\ndynamics = \"overdamped\"\n\n\
         [domain]\nmin = [0.0, 0.0, -0.001]\nmax = [{w:e}, {w:e}, 0.01]\nperiodic = [true, true, false]\n\n\
         [[material]]\nname = \"glass\"\ndensity = 2500.0\nyoung = 1.0e6\npoisson = 0.3\n\
         substrate_friction = 1.0e-2\nsubstrate_rotational_friction = 1.0e-6\n\n\
         [[particles]]\nmaterial = \"glass\"\nradius = {r:e}\npositions = [{}]\n\n\
         [[wall]]\nmaterial = \"glass\"\nplane = {{ point = [0.0, 0.0, 0.0], normal = [0.0, 0.0, 1.0] }}\n\n\
         [[wall]]\nmaterial = \"glass\"\nplane = {{ point = [0.0, 0.0, {h:e}], normal = [0.0, 0.0, -1.0] }}\n\n\
         [[interaction]]\nbetween = [\"glass\", \"glass\"]\nnormal = {{ law = \"hertz\" }}\n",
        positions.join(", "),
        w = cols as f64 * gap
    );
    let w = test_world(&text);
    let domain = w.domain.params();
    let mut b = CpuBackend::new(w).expect("cpu");
    b.run(3000);
    let records = b.contact_records();
    let pos = b.snapshot().pos.to_vec();
    let lid: f64 = records
        .iter()
        .filter(|r| r.j == -2)
        .map(|r| r.normal_force as f64)
        .sum();
    assert_eq!(records.iter().filter(|r| r.j == -2).count(), cols * cols);
    let side = cols as f64 * gap;
    let area = side * side;
    let traction = -lid / area;
    let moments = virial_moments(&records, &pos, &domain);
    let box_ = region_stress(&moments, &pos, [0.0, 0.0, 0.0], [side, side, h]);
    assert_eq!(box_.particles as usize, cols * cols * layers);
    let szz = box_.stress[2];
    assert!(
        (szz - traction).abs() <= 2e-3 * traction.abs(),
        "mean stress {szz:e} Pa against the lid's {traction:e} Pa"
    );
    let each = virial_stress(&records, &pos, &domain);
    let mean = each.iter().map(|s| s[2]).sum::<f64>() / each.len() as f64;
    let fraction = box_.solid_volume / box_.volume;
    assert!(
        (mean * fraction - traction).abs() <= 2e-3 * traction.abs(),
        "mean particle stress {mean:e} x solid fraction {fraction} against {traction:e}"
    );
    for k in [0, 1, 3, 4, 5] {
        assert!(
            box_.stress[k].abs() <= 1e-6 * szz.abs(),
            "{:?}",
            box_.stress
        );
    }
}

/// A run with the `stress` format writes each particle's stress as `particles.csv`'s last six
/// columns and the frames' `stress` array, and one `stress.csv` line per output step for the
/// region it names; a region with `min` not below `max` is refused at its key.
#[test]
fn a_run_with_the_stress_format_writes_the_stress_files() {
    let dir = std::env::temp_dir().join(format!("grains-stress-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let scene = |region: &str| {
        format!(
            "[simulation]\nsteps = 20\ndt = 1e-6\ngravity = [0.0, 0.0, -9.81]\n\n\
             [domain]\nmin = [-0.01, -0.01, 0.0]\nmax = [0.01, 0.01, 0.02]\n\n\
             [output]\nevery_steps = 10\nformats = [\"vtk\", \"csv\", \"stress\"]\n{region}\n\n\
             [[material]]\nname = \"glass\"\ndensity = 2500.0\nyoung = 1.0e7\npoisson = 0.3\n\n\
             [[particles]]\nmaterial = \"glass\"\nradius = 0.001\n\
             positions = [[0.0, 0.0, 0.000999], [0.0, 0.0, 0.002997]]\n\n\
             [[wall]]\nmaterial = \"glass\"\nplane = {{ point = [0.0, 0.0, 0.0], normal = [0.0, 0.0, 1.0] }}\n\n\
             [[interaction]]\nbetween = [\"glass\", \"glass\"]\nnormal = {{ law = \"hertz\" }}\n"
        )
    };
    let path = dir.join("pair.toml");
    std::fs::write(
        &path,
        scene("stress_region = { min = [-0.01, -0.01, 0.0], max = [0.01, 0.01, 0.004] }"),
    )
    .expect("scene");
    let out = dir.join("out");
    let args = ["grains", "run", "-q", "--backend", "cpu", "--out"];
    let mut v: Vec<&str> = args.to_vec();
    let (p, o) = (path.to_string_lossy(), out.to_string_lossy());
    v.extend([o.as_ref(), p.as_ref()]);
    grains_cli::main_with_args(v).unwrap_or_else(|e| panic!("{e:#}"));
    let csv = std::fs::read_to_string(out.join("particles.csv")).expect("particles.csv");
    let mut lines = csv.lines();
    assert!(lines
        .next()
        .is_some_and(|h| h.ends_with(",radius,sxx,syy,szz,sxy,sxz,syz")));
    let last: Vec<f64> = csv
        .lines()
        .last()
        .expect("a row")
        .split(',')
        .map(|x| x.parse().expect("a number"))
        .collect();
    assert_eq!(last.len(), 25);
    // The upper sphere rests on the lower one: compressed along z.
    assert!(last[21] < 0.0, "szz {}", last[21]);
    let stress = std::fs::read_to_string(out.join("stress.csv")).expect("stress.csv");
    let rows: Vec<&str> = stress.lines().collect();
    assert_eq!(rows[0], grains_io::STRESS_HEADER);
    assert_eq!(rows.len(), 1 + 3, "{stress}");
    let cols: Vec<&str> = rows[3].split(',').collect();
    assert_eq!(cols[2], "2", "both spheres in the region");
    assert!(cols[7].parse::<f64>().expect("szz") < 0.0);
    let vtu = std::fs::read(out.join("frame_00000020.vtu")).expect("frame");
    let head = String::from_utf8_lossy(&vtu[..vtu.len().min(4000)]);
    assert!(
        head.contains("Name=\"stress\" NumberOfComponents=\"6\""),
        "{head}"
    );
    std::fs::write(
        &path,
        scene("stress_region = { min = [0.0, 0.0, 0.0], max = [0.01, 0.0, 0.01] }"),
    )
    .expect("scene");
    let e = match grains_scene::load_scene(&path) {
        Ok(_) => panic!("a region with min = max on y was accepted"),
        Err(e) => e.to_string(),
    };
    assert!(
        e.contains("output.stress_region.max") && e.contains("on y it is 0 <= 0"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
