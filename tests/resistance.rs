//! The resistance slot's laws (friction and stiffness blocks of the implicit modes) against
//! closed forms: the blocks they declare, read from a run's `contact_matrix` records or from
//! the law applied to a resolver's geometry; lubrication closing a gap in the overdamped mode;
//! the slot's order; and each law's scene refusals.

use grains_core::kernel_types::{ContactForce, ContactGeom, SphereBody, Wall};
use grains_core::kernels::laws::area_weighted_resistance::{
    law_area_weighted_resistance, AreaWeightedResistanceParams,
};
use grains_core::kernels::laws::constant_resistance::{
    law_constant_resistance, ConstantResistanceParams,
};
use grains_core::kernels::laws::contact_matrix::ContactMatrixHistory;
use grains_core::kernels::resolvers::sphere_plane::resolve_sphere_plane;
use grains_core::kernels::resolvers::sphere_sphere::resolve_sphere_sphere;
use grains_core::{Backend, CpuBackend};
use grains_tests::test_world;

/// Scene text of an overdamped world: the `[simulation]` lines, one material block per
/// `(name, density, drag)`, and the rest.
fn scene(sim: &str, materials: &[(&str, f64, f64)], rest: &str) -> String {
    let mut s = format!(
        "[simulation]\n{sim}\ndynamics = \"overdamped\"\n\n[domain]\n\
         min = [-0.1, -0.1, -0.1]\nmax = [0.1, 0.1, 0.1]\n"
    );
    for (name, density, drag) in materials {
        s += &format!(
            "\n[[material]]\nname = \"{name}\"\ndensity = {density:e}\nyoung = 1.0e7\n\
             poisson = 0.3\nsubstrate_friction = {drag:e}\nsubstrate_rotational_friction = 1.0e-6\n"
        );
    }
    s + "\n" + rest
}

/// Materials `cell` and `matrix`, and particles of radius 1 mm at x = 0, 3, 6, ... mm (apart)
/// of the materials listed, in that order.
fn beads(materials: &[&str], rest: &str) -> String {
    let mut parts = String::new();
    for (i, m) in materials.iter().enumerate() {
        parts += &format!(
            "[[particles]]\nmaterial = \"{m}\"\nradius = 0.001\npositions = [[{:e}, 0.0, 0.0]]\n\n",
            0.003 * i as f64
        );
    }
    let mut inter = String::new();
    for (a, b) in [("cell", "cell"), ("cell", "matrix"), ("matrix", "matrix")] {
        inter += &format!(
            "[[interaction]]\nbetween = [\"{a}\", \"{b}\"]\nnormal = {{ law = \"hertz\" }}\n\n"
        );
    }
    scene(
        "steps = 1\ndt = 1e-3",
        &[("cell", 1000.0, 1e-3), ("matrix", 1000.0, 1e-3)],
        &(parts + &inter + rest),
    )
}

/// The `contact_matrix` record of each bond of the scene, as the backend keeps it after
/// building (which evaluates every chain once to solve the first velocities).
fn bond_blocks(text: &str) -> Vec<ContactMatrixHistory> {
    let b = CpuBackend::new(test_world(text)).expect("cpu backend");
    let w = &b.world;
    let offsets = grains_core::cpu::solve::matrix_offsets(&w.table);
    let nm = w.materials.len();
    let map = w
        .table
        .chain_map(grains_core::kernels::sources::SourceKind::Fixed);
    let stride = w.table.fixed_history_stride;
    let words = std::mem::size_of::<ContactMatrixHistory>() / 4;
    w.fixed_pairs
        .iter()
        .enumerate()
        .map(|(k, &[i, j])| {
            let m = |p: u32| w.particles.material[p as usize] as usize;
            let chain = map[m(i) * nm + m(j)] as usize;
            let off = offsets[chain].expect("an implicit chain ends with contact_matrix");
            let at = k * stride + off;
            *bytemuck::from_bytes(bytemuck::cast_slice(&b.fixed_history[at..at + words]))
        })
        .collect()
}

/// A `[[bond]]` of pairs `pairs` with a spring at its initial length and resistance `law`.
fn bond(pairs: &str, law: &str) -> String {
    format!(
        "[[bond]]\npairs = {pairs}\nnormal = {{ law = \"spring\", stiffness = 1.0 }}\n\
         resistance = {law}\n\n"
    )
}

/// `|got - want| <= tol |want|`, with a message.
fn close(what: &str, got: f64, want: f64, tol: f64) {
    assert!(
        (got - want).abs() <= tol * want.abs(),
        "{what}: {got} against {want} (tolerance {tol:e} relative)"
    );
}

/// The mesh weight at the regular valence 6 is `sin(pi/6) / sin(pi/3) = 1/sqrt(3)`, and 1 at
/// valence 3 (the contact_matrix record of a bond: f32, so to 1e-6).
#[test]
fn the_mesh_weight_is_one_over_root_three_at_valence_six() {
    for (valence, w) in [(None, 0.577350269), (Some(6), 0.577350269), (Some(3), 1.0)] {
        let v = valence.map_or(String::new(), |n| format!(", valence = {n}"));
        let law =
            format!("{{ law = \"mesh_weighted_resistance\", normal = 1.0, tangential = 2.0{v} }}");
        let text = beads(&["cell", "cell"], &bond("[[0, 1]]", &law));
        let block = bond_blocks(&text)[0];
        close("gamma_n", block.gamma_n as f64, w, 1e-6);
        close("gamma_t", block.gamma_t as f64, 2.0 * w, 1e-6);
    }
}

/// Two surfaces in series: `normal1 = 2`, `normal2 = 3` give `6/5`, whichever material is
/// body 1, and a material meeting itself takes both of its sides. Tangential 1 and 4: 0.8.
#[test]
fn material_specific_coefficients_combine_in_series() {
    let law = "{ law = \"material_specific_constant_resistance\", normal1 = 2.0, normal2 = 3.0, \
               tangential1 = 1.0, tangential2 = 4.0 }";
    // Bonds cell-matrix, matrix-cell (the other order of bodies) and cell-cell.
    let text = beads(
        &["cell", "matrix", "cell"],
        &bond("[[0, 1], [1, 2], [0, 2]]", law),
    );
    for (k, block) in bond_blocks(&text).iter().enumerate() {
        // The block is f32: 1e-6.
        close(
            &format!("bond {k} gamma_n"),
            block.gamma_n as f64,
            1.2,
            1e-6,
        );
        close(
            &format!("bond {k} gamma_t"),
            block.gamma_t as f64,
            0.8,
            1e-6,
        );
    }
    // One side frictionless: the contact is.
    let law = "{ law = \"material_specific_constant_resistance\", normal1 = 0.0, normal2 = 3.0 }";
    let block = bond_blocks(&beads(&["cell", "matrix"], &bond("[[0, 1]]", law)))[0];
    assert_eq!((block.gamma_n, block.gamma_t), (0.0, 0.0));
}

/// The masked law picks the entry of the two bodies' masks; a material not named has mask 0.
#[test]
fn masked_resistance_picks_the_entry_of_the_two_masks() {
    let law = "{ law = \"masked_constant_resistance\", masks = { matrix = 1 }, \
               normal = [[1.0, 2.0], [2.0, 3.0]], tangential = [[0.5, 0.25], [0.25, 0.125]] }";
    let text = beads(
        &["cell", "matrix", "matrix", "cell"],
        &bond("[[0, 1], [1, 2], [0, 3], [2, 3]]", law),
    );
    let want = [(2.0, 0.25), (3.0, 0.125), (1.0, 0.5), (2.0, 0.25)];
    for (k, (block, (gn, gt))) in bond_blocks(&text).iter().zip(want).enumerate() {
        assert_eq!(
            (block.gamma_n as f64, block.gamma_t as f64),
            (gn, gt),
            "bond {k}"
        );
    }
}

/// `dividing_resistance` sets the block whatever the slot's laws before it added; a law after
/// it is refused.
#[test]
fn dividing_resistance_sets_the_block() {
    let law = "[{ law = \"constant_resistance\", normal = 5.0, tangential = 7.0 }, \
               { law = \"area_weighted_resistance\", normal = 1.0e9 }, \
               { law = \"dividing_resistance\", friction = 2.0 }]";
    let block = bond_blocks(&beads(&["cell", "cell"], &bond("[[0, 1]]", law)))[0];
    assert_eq!((block.gamma_n, block.gamma_t), (2.0, 2.0));
    // Alone, and at zero: it sets, so zero clears.
    let law = "[{ law = \"constant_resistance\", normal = 5.0 }, \
               { law = \"dividing_resistance\", friction = 0.0 }]";
    let block = bond_blocks(&beads(&["cell", "cell"], &bond("[[0, 1]]", law)))[0];
    assert_eq!((block.gamma_n, block.gamma_t), (0.0, 0.0));
}

/// `constant_stiffness` adds `k I` to the stiffness block: along the normal on top of the
/// spring's `k_s` (1 N/m), across it on top of the spring's `k_s (1 - L0/L)` (0 at its rest
/// length). No friction.
#[test]
fn constant_stiffness_adds_k_to_both_halves_of_the_block() {
    let law = "{ law = \"constant_stiffness\", stiffness = 250.0 }";
    let block = bond_blocks(&beads(&["cell", "cell"], &bond("[[0, 1]]", law)))[0];
    close("stiffness_n", block.stiffness_n as f64, 251.0, 1e-6);
    close("stiffness_t", block.stiffness_t as f64, 250.0, 1e-6);
    assert_eq!((block.gamma_n, block.gamma_t), (0.0, 0.0));
}

/// The area `pi a^2` of the circle where spheres of radii `r1`, `r2` cross at overlap `delta`,
/// written as the brief has it: `a^2 = R1^2 - x1^2`, `x1 = (d^2 + R1^2 - R2^2) / (2 d)`.
fn circle_area(r1: f64, r2: f64, delta: f64) -> f64 {
    let d = r1 + r2 - delta;
    let x1 = (d * d + r1 * r1 - r2 * r2) / (2.0 * d);
    std::f64::consts::PI * (r1 * r1 - x1 * x1)
}

fn sphere(pos: [f32; 3], radius: f32) -> SphereBody {
    SphereBody {
        pos,
        radius,
        inv_mass: 1.0,
        ..Default::default()
    }
}

/// The area-weighted block of two overlapping spheres is `A_c` times the constant law's with
/// the same coefficients, `A_c` the circle where their surfaces cross; against a plane,
/// `pi (R^2 - (R - delta)^2)`; a declared area wins; apart, nothing.
#[test]
fn the_area_weighted_block_is_the_intersection_circle_times_the_constant_one() {
    let (gn, gt) = (3.0e4f32, 1.5e4f32);
    let block = |g: &ContactGeom, f: ContactForce| {
        let mut a = f;
        law_area_weighted_resistance(
            g,
            &AreaWeightedResistanceParams {
                normal: gn,
                tangential: gt,
            },
            &mut (),
            &mut a,
        );
        let mut c = ContactForce::default();
        law_constant_resistance(
            g,
            &ConstantResistanceParams {
                normal: gn,
                tangential: gt,
            },
            &mut (),
            &mut c,
        );
        (a, c)
    };
    let domain = grains_core::Domain {
        min: [-1.0; 3],
        max: [1.0; 3],
        periodic: [false; 3],
    }
    .params();
    for (r1, r2, d) in [
        (1e-3f32, 2e-3f32, 2.9e-3f32),
        (1e-3, 1e-3, 1.5e-3),
        (2e-3, 1e-3, 2.99e-3),
        (1e-3, 5e-4, 1.4999e-3),
    ] {
        let g = resolve_sphere_sphere(
            &sphere([0.0; 3], r1),
            &sphere([d, 0.0, 0.0], r2),
            &domain,
            1e-3,
        );
        let want = circle_area(r1 as f64, r2 as f64, g.delta as f64);
        let (a, c) = block(&g, ContactForce::default());
        // The f32 product form, a few ulps; the f64 difference of squares is exact enough
        // here (delta >= 1e-7 m against radii of 1 mm: 1e-9 relative): 1e-5.
        close(
            "gamma_n / A_c",
            a.gamma_n as f64 / want,
            c.gamma_n as f64,
            1e-5,
        );
        close(
            "gamma_t / A_c",
            a.gamma_t as f64 / want,
            c.gamma_t as f64,
            1e-5,
        );
    }
    // A plane wall below a sphere of 1 mm sunk 20 um into it.
    let (r, delta) = (1e-3f32, 2e-5f32);
    let wall = Wall::plane([0.0; 3], [0.0, 0.0, 1.0], 0);
    let g = resolve_sphere_plane(&sphere([0.0, 0.0, r - delta], r), &wall, 1e-3);
    let (rd, dd) = (r as f64, g.delta as f64);
    let want = std::f64::consts::PI * (rd * rd - (rd - dd) * (rd - dd));
    let (a, c) = block(&g, ContactForce::default());
    close(
        "wall gamma_n / A_c",
        a.gamma_n as f64 / want,
        c.gamma_n as f64,
        1e-5,
    );
    // A normal law's declared area replaces the circle.
    let declared = ContactForce {
        area: 4e-8,
        ..Default::default()
    };
    let (a, _) = block(&g, declared);
    close("declared", a.gamma_n as f64, 4e-8 * gn as f64, 1e-6);
    // Apart: no area, no block.
    let g = resolve_sphere_sphere(
        &sphere([0.0; 3], 1e-3),
        &sphere([2.1e-3, 0.0, 0.0], 1e-3),
        &domain,
        1e-3,
    );
    assert_eq!(block(&g, ContactForce::default()).0.gamma_n, 0.0);
}

/// The same through a run: a bond of two overlapping spheres keeps `A_c` times the
/// coefficients per unit area, both sides' in series for the material-specific law.
#[test]
fn a_run_keeps_the_area_weighted_block_of_overlapping_spheres() {
    let mut text = scene(
        "steps = 1\ndt = 1e-3",
        &[("cell", 1000.0, 1e-3), ("matrix", 1000.0, 1e-3)],
        "[[particles]]\nmaterial = \"cell\"\nradius = 0.001\npositions = [[0.0, 0.0, 0.0]]\n\n\
         [[particles]]\nmaterial = \"matrix\"\nradius = 0.002\npositions = [[0.0029, 0.0, 0.0]]\n\n\
         [[interaction]]\nbetween = [\"cell\", \"matrix\"]\nnormal = { law = \"hertz\" }\n\n",
    );
    text += &bond(
        "[[0, 1]]",
        "[{ law = \"area_weighted_resistance\", normal = 1.0e6, tangential = 2.0e6 }, \
         { law = \"material_specific_area_weighted_resistance\", normal1 = 2.0e6, normal2 = 3.0e6 }]",
    );
    let block = bond_blocks(&text)[0];
    // The f32 centre 2.9 mm is 2.9e-3 to 1e-10 m, the overlap 0.1 mm to 1e-6 of itself.
    let a = circle_area(1e-3, 2e-3, 1e-4);
    close("gamma_n", block.gamma_n as f64, a * (1.0e6 + 1.2e6), 1e-5);
    close("gamma_t", block.gamma_t as f64, a * 2.0e6, 1e-5);
}

/// A sphere (radius R) pulled towards a plane wall by its weight F through a lubricating film
/// (`lubrication_resistance`), with a negligible drag of its own, overdamped: `(c / h) dh/dt =
/// -F` with `c = 6 pi mu R^2` (R* = R against a plane: `sphere_plane` gives `r_eff = R`), so
/// the gap closes as `h0 exp(-F t / c)`, on both backends. The step takes the velocity at the start gap, so it
/// multiplies h by `1 - a dt` (`a = F / c`) where the flow multiplies it by `exp(-a dt)`: after
/// time t the relative error is `a t * a dt / 2`, 2e-4 at `a t = 2`, `a dt = 2e-4`; the drag
/// `gamma_0 = 1e-10 N s/m` shifts it by `gamma_0 h0 / c = 5e-10`; f32 positions near the origin
/// and gaps computed from a centre at 1.1 mm hold h to 1e-5. Tolerance: 5e-4; and against the
/// scheme's own `h0 (1 - a dt)^k`, 1e-5.
#[test]
fn lubrication_closes_a_gap_exponentially_in_the_overdamped_mode() {
    let (r, rho, g, mu, h0) = (1e-3, 1000.0, 9.81, 1.0, 1e-4);
    let m = rho * 4.0 / 3.0 * std::f64::consts::PI * r * r * r;
    let (f, c) = (m * g, 6.0 * std::f64::consts::PI * mu * r * r);
    let a = f / c;
    let steps = 10_000u64;
    let dt = 2e-4 / a;
    let text = scene(
        &format!("steps = {steps}\ndt = {dt:e}\ngravity = [0.0, 0.0, {:e}]", -g),
        &[("bead", rho, 1e-10)],
        &format!(
            "[[particles]]\nmaterial = \"bead\"\nradius = {r:e}\npositions = [[0.0, 0.0, 0.0]]\n\n\
             [[wall]]\nmaterial = \"bead\"\nplane = {{ point = [0.0, 0.0, {:e}], normal = [0.0, 0.0, 1.0] }}\n\n\
             [[interaction]]\nbetween = [\"bead\", \"bead\"]\nnormal = {{ law = \"hertz\" }}\n\
             resistance = {{ law = \"lubrication_resistance\", viscosity = {mu:e}, \
             min_gap = 1.0e-7, max_gap = 2.0e-4 }}\n",
            -(r + h0)
        ),
    );
    let mut all: Vec<Box<dyn Backend>> = vec![Box::new(
        CpuBackend::new(test_world(&text)).expect("cpu backend"),
    )];
    if let Some(ctx) = crate::gpu::gpu_context() {
        let g = grains_gpu::GpuBackend::new(test_world(&text), &ctx);
        all.push(Box::new(g.unwrap_or_else(|e| panic!("{e}"))));
    }
    for mut b in all {
        let name = b.name();
        let gap = |b: &mut dyn Backend| b.snapshot().pos[0][2] as f64 + h0;
        close(&format!("{name}: start gap"), gap(b.as_mut()), h0, 1e-6);
        for k in (2500..=steps).step_by(2500) {
            b.run(2500);
            let t = k as f64 * dt;
            let h = gap(b.as_mut());
            close(
                &format!("{name}: gap at step {k}"),
                h,
                h0 * (-a * t).exp(),
                5e-4,
            );
            // The scheme itself, `h0 (1 - a dt)^k`, to the f32 gaps' 1e-5.
            let scheme = h0 * (1.0 - a * dt).powi(k as i32);
            close(
                &format!("{name}: gap at step {k} against the scheme"),
                h,
                scheme,
                1e-5,
            );
        }
    }
}

/// Where a scene error points: `line:column` of the first occurrence of `at` on the line that
/// holds `line_has`.
fn place(text: &str, line_has: &str, at: &str) -> (usize, usize) {
    let (k, line) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains(line_has))
        .unwrap_or_else(|| panic!("no line holds {line_has:?}"));
    let col = line
        .find(at)
        .unwrap_or_else(|| panic!("{at:?} is not on line {}", k + 1));
    (k + 1, line[..col].chars().count() + 1)
}

/// The refusal of a bond whose resistance is `law`: at `at` on its line, naming `key` (under
/// `bond[0].resistance`), saying `says`.
fn refused(law: &str, at: &str, key: &str, says: &str) {
    let text = beads(&["cell", "cell"], &bond("[[0, 1]]", law));
    let e = match grains_scene::parse_scene(&text, std::path::Path::new("<test>")) {
        Ok(_) => panic!("{law}: accepted"),
        Err(e) => e.to_string(),
    };
    let (line, col) = place(&text, "resistance = ", at);
    let want = format!("<test>:{line}:{col}: bond[0].resistance{key}: ");
    assert!(
        e.starts_with(&want) && e.contains(says),
        "{law}:\n  got  {e}\n  want {want}... {says}"
    );
}

/// What a missing required key and a negative number are told.
const MISSING: &str = "missing required key";
const NEGATIVE: &str = "expected a number >= 0";

/// Each law's refusals: (law table, where the error points on its line, key under the slot,
/// part of the message).
const REFUSALS: &[(&str, &str, &str, &str)] = &[
    ("{ law = \"area_weighted_resistance\" }", "{", ".normal", MISSING),
    (
        "{ law = \"area_weighted_resistance\", normal = -1.0 }",
        "-1.0",
        ".normal",
        NEGATIVE,
    ),
    (
        "{ law = \"material_specific_constant_resistance\", normal1 = 1.0 }",
        "{",
        ".normal2",
        MISSING,
    ),
    (
        "{ law = \"material_specific_constant_resistance\", normal1 = 1.0, normal2 = -2.0 }",
        "-2.0",
        ".normal2",
        NEGATIVE,
    ),
    (
        "{ law = \"material_specific_constant_resistance\", normal1 = 1.0, normal2 = 2.0, tangential1 = 1.0 }",
        "1.0 }",
        ".tangential1",
        "given without tangential2",
    ),
    (
        "{ law = \"material_specific_area_weighted_resistance\", normal2 = 1.0 }",
        "{",
        ".normal1",
        MISSING,
    ),
    (
        "{ law = \"material_specific_area_weighted_resistance\", normal1 = -1.0, normal2 = 1.0 }",
        "-1.0",
        ".normal1",
        NEGATIVE,
    ),
    (
        "{ law = \"masked_constant_resistance\", normal = [[1.0]] }",
        "{",
        ".masks",
        MISSING,
    ),
    (
        "{ law = \"masked_constant_resistance\", masks = { cell = 0 } }",
        "{",
        ".normal",
        MISSING,
    ),
    (
        "{ law = \"masked_constant_resistance\", masks = { cell = 0 }, normal = [[1.0, 2.0], [2.0, -3.0]] }",
        "-3.0",
        ".normal[1][1]",
        NEGATIVE,
    ),
    (
        "{ law = \"masked_constant_resistance\", masks = { cell = -1 }, normal = [[1.0]] }",
        "-1 }",
        ".masks.cell",
        "expected an integer >= 0",
    ),
    (
        "{ law = \"masked_constant_resistance\", masks = { cel = 0 }, normal = [[1.0]] }",
        "cel =",
        ".masks.cel",
        "unknown material \"cel\"; defined materials: \"cell\", \"matrix\"",
    ),
    (
        "{ law = \"masked_constant_resistance\", masks = { cell = 1 }, normal = [[1.0]] }",
        "{ cell",
        ".masks",
        "the mask of \"cell\" is 1, but the 1x1 matrices take masks 0 to 0",
    ),
    (
        "{ law = \"masked_constant_resistance\", masks = { cell = 0 }, normal = [[1.0, 2.0], [2.5, 3.0]] }",
        "2.5",
        ".normal[1][0]",
        "the matrix must be symmetric",
    ),
    (
        "{ law = \"masked_constant_resistance\", masks = { cell = 0 }, normal = [[1.0, 2.0], [2.0]] }",
        "[2.0]]",
        ".normal[1]",
        "expected a row of 2 numbers",
    ),
    (
        "{ law = \"masked_constant_resistance\", masks = { cell = 0 }, normal = [[1.0]], tangential = [[1.0, 0.0], [0.0, 1.0]] }",
        "[[1.0, 0.0]",
        ".tangential",
        "expected a 1x1 matrix, the size of `normal`, found 2x2",
    ),
    ("{ law = \"mesh_weighted_resistance\" }", "{", ".normal", MISSING),
    (
        "{ law = \"mesh_weighted_resistance\", normal = 1.0, tangential = -1.0 }",
        "-1.0",
        ".tangential",
        NEGATIVE,
    ),
    (
        "{ law = \"mesh_weighted_resistance\", normal = 1.0, valence = 2 }",
        "2 }",
        ".valence",
        "expected an integer >= 3",
    ),
    ("{ law = \"dividing_resistance\" }", "{", ".friction", MISSING),
    (
        "{ law = \"dividing_resistance\", friction = -1.0 }",
        "-1.0",
        ".friction",
        NEGATIVE,
    ),
    (
        "{ law = \"lubrication_resistance\", viscosity = 1.0, min_gap = 1e-6 }",
        "{",
        ".max_gap",
        MISSING,
    ),
    (
        "{ law = \"lubrication_resistance\", viscosity = -1.0, min_gap = 1e-6, max_gap = 1e-5 }",
        "-1.0",
        ".viscosity",
        "expected a positive number",
    ),
    (
        "{ law = \"lubrication_resistance\", viscosity = 1.0, min_gap = 1e-5, max_gap = 1e-6 }",
        "max_gap",
        ".min_gap",
        "must be larger than min_gap",
    ),
    ("{ law = \"constant_stiffness\" }", "{", ".stiffness", MISSING),
    (
        "{ law = \"constant_stiffness\", stiffness = -5.0 }",
        "-5.0",
        ".stiffness",
        NEGATIVE,
    ),
];

/// Every law of the slot refuses a missing required key (at its table) and a negative value
/// (at the value), located; and the keys particular to each are checked ([`REFUSALS`]).
#[test]
fn resistance_laws_refuse_missing_and_negative_keys_where_they_are_written() {
    for &(law, at, key, says) in REFUSALS {
        refused(law, at, key, says);
    }
}

/// A law after `dividing_resistance` in the slot is refused at the law, which would add to
/// the block it set.
#[test]
fn a_law_after_dividing_resistance_is_refused() {
    let text = beads(
        &["cell", "cell"],
        &bond(
            "[[0, 1]]",
            "[{ law = \"dividing_resistance\", friction = 2.0 }, \
             { law = \"constant_resistance\", normal = 5.0 }]",
        ),
    );
    let e = match grains_scene::parse_scene(&text, std::path::Path::new("<test>")) {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    };
    let (line, col) = place(&text, "resistance = ", "{ law = \"constant");
    let want = format!("<test>:{line}:{col}: bond[0].resistance[1]: ");
    assert!(
        e.starts_with(&want)
            && e.contains("\"dividing_resistance\" sets the resistance slot's result and must be its last law"),
        "got {e}, want {want}"
    );
}
