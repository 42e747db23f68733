//! Scene files: every kind of broken scene gives its precise `file:line:col: key: message`,
//! and valid scenes (inline, fixtures, the repository's `scenes/`) build the expected world.
//!
//! The refusals are rows of one table, [`REFUSALS`], checked by one driver; the tests after it
//! check what a row cannot say (other files beside the scene, the world built, a whole
//! message).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use grains_core::kernels::laws::cundall_strack::{CundallStrackParams, CundallStrackSpec};
use grains_core::timestep::timestep_report;
use grains_core::{LawKind, LawSpec, Slot};
use grains_scene::{load_scene, parse_scene, BackendChoice, Scene, SceneError};
use grains_tests::workspace_root;
use grains_tests::worlds::{hertz, linear};
use Fragment::{Append, AppendEdit, Edit, Flat};
use Place::{At, Edited, Of};

/// A valid scene; the error cases edit it in place, so its line numbers hold for them:
/// 1 `[simulation]`, 3 `dt`, 6 `[domain]`, 8 `max`, 10 `[[material]]`, 12 `density`,
/// 13 `young`, 14 `poisson`, 16 `[[particles]]`, 17 `material`, 19 `positions`,
/// 20 `velocities`, 22 `[[interaction]]`, 24 `normal`, 25 `damping`, 26 `tangential`.
const VALID: &str = r#"[simulation]
steps = 100
dt = 1e-5
gravity = [0.0, 0.0, -9.81]

[domain]
min = [0.0, 0.0, 0.0]
max = [0.01, 0.01, 0.01]

[[material]]
name = "glass"
density = 2500.0
young = 5.0e6
poisson = 0.3

[[particles]]
material = "glass"
radius = 0.001
positions = [[0.002, 0.002, 0.002], [0.005, 0.005, 0.005]]
velocities = [[0.0, 0.0, -1.0], [0.0, 0.0, 0.0]]

[[interaction]]
between = ["glass", "glass"]
normal = { law = "hertz" }
damping = { law = "viscous", restitution = 0.5 }
tangential = { law = "cundall_strack", friction = 0.5 }
"#;

/// `VALID`'s particle list (lines 19 and 20), which the lattice and file cases replace.
const LISTED: &str = "positions = [[0.002, 0.002, 0.002], [0.005, 0.005, 0.005]]\nvelocities = [[0.0, 0.0, -1.0], [0.0, 0.0, 0.0]]";

/// `VALID`'s normal law (line 24).
const HERTZ: &str = "normal = { law = \"hertz\" }";

/// A bond's spring, as `[[bond]]` blocks take it.
const SPRING: &str = "normal = { law = \"spring\", stiffness = 10.0 }\n";

/// An `[[insert]]` block of three glass beads within `VALID`'s domain (particles 2 to 4),
/// whose `box` or size the cases edit.
const INSERT: &str = "\n[[insert]]\nmaterial = \"glass\"\nbox = { min = [0.002, 0.002, 0.006], max = [0.008, 0.008, 0.009] }\ncount = 3\nrate = 100.0\nradius = 0.0005\n";

/// `INSERT`'s region.
const REGION: &str = "box = { min = [0.002, 0.002, 0.006], max = [0.008, 0.008, 0.009] }";

/// A second material, which no interaction of `VALID` names.
const STEEL: &str =
    "\n[[material]]\nname = \"steel\"\ndensity = 7800.0\nyoung = 2.0e11\npoisson = 0.29\n";

/// Two clumps of two overlapping members each (particles 2 to 4 and 5 to 7: body, members)
/// beside `VALID`'s beads.
const CLUMPS: &str = r#"
[[material]]
name = "rock"
density = 2500.0
young = 5.0e6
poisson = 0.3

[[particles]]
material = "rock"
shape = "clump"
members = [{ offset = [0.0, 0.0, 0.0], radius = 0.001 }, { offset = [0.0015, 0.0, 0.0], radius = 0.001 }]
positions = [[0.002, 0.007, 0.008], [0.006, 0.007, 0.008]]

[[interaction]]
between = ["rock", "rock"]
normal = { law = "hertz" }

[[interaction]]
between = ["glass", "rock"]
normal = { law = "hertz" }
"#;

/// A fresh folder under the system temp dir for one test.
fn temp_dir(tag: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "grains-scene-tests-{}-{}-{tag}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

/// Write `text` as `scene.toml` in a fresh folder and load it.
fn load_text(tag: &str, text: &str) -> (PathBuf, Result<Scene, SceneError>) {
    let path = temp_dir(tag).join("scene.toml");
    std::fs::write(&path, text).expect("write scene");
    let r = load_scene(&path);
    (path, r)
}

/// `VALID` with one exact substring replaced (which must exist).
fn edit(from: &str, to: &str) -> String {
    assert!(VALID.contains(from), "VALID has no {from:?}");
    VALID.replacen(from, to, 1)
}

/// Where `needle` first starts in `text`: its 1-based line and column (in characters).
fn place_of(text: &str, needle: &str) -> Option<(usize, usize)> {
    let offset = text.find(needle)?;
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    Some((line, before[start..].chars().count() + 1))
}

/// [`place_of`], for a needle the test put there itself.
fn at(text: &str, needle: &str) -> (usize, usize) {
    place_of(text, needle).unwrap_or_else(|| panic!("no {needle:?} in the text"))
}

// ---------------------------------------------------------------- broken scenes

/// How a row's scene is made from `VALID`.
enum Fragment {
    /// `VALID` with the first `from` replaced by `to`: `Edit(from, to)`.
    Edit(&'static str, &'static str),
    /// `VALID` followed by these parts.
    Append(&'static [&'static str]),
    /// `VALID` followed by these parts, then the first `from` replaced by `to`:
    /// `AppendEdit(parts, from, to)`.
    AppendEdit(&'static [&'static str], &'static str, &'static str),
    /// [`flat`] (`VALID` made 2-D) with the first `from` replaced by `to`: `Flat(from, to)`.
    Flat(&'static str, &'static str),
}

/// `VALID` made 2-D (`[domain] dimensions = 2`): gravity, positions and velocities in the plane
/// z = 0, the domain reaching below it.
fn flat() -> String {
    [
        ("gravity = [0.0, 0.0, -9.81]", "gravity = [0.0, -9.81, 0.0]"),
        ("min = [0.0, 0.0, 0.0]", "min = [0.0, 0.0, -0.01]"),
        (
            "max = [0.01, 0.01, 0.01]\n",
            "max = [0.01, 0.01, 0.01]\ndimensions = 2\n",
        ),
        (
            "[[0.002, 0.002, 0.002], [0.005, 0.005, 0.005]]",
            "[[0.002, 0.002, 0.0], [0.005, 0.005, 0.0]]",
        ),
        (
            "[[0.0, 0.0, -1.0], [0.0, 0.0, 0.0]]",
            "[[0.0, -1.0, 0.0], [0.0, 0.0, 0.0]]",
        ),
    ]
    .iter()
    .fold(VALID.to_string(), |t, (a, b)| t.replacen(a, b, 1))
}

impl Fragment {
    /// The scene's text, or why it cannot be made (an edit whose `from` is not there).
    fn text(&self) -> Result<String, String> {
        let (base, parts, from, to) = match *self {
            Fragment::Edit(from, to) => (VALID.to_string(), &[][..], Some(from), to),
            Fragment::Append(parts) => (VALID.to_string(), parts, None, ""),
            Fragment::AppendEdit(parts, from, to) => (VALID.to_string(), parts, Some(from), to),
            Fragment::Flat(from, to) => (flat(), &[][..], Some(from), to),
        };
        let text = parts.iter().fold(base, |t, p| t + p);
        match from {
            None => Ok(text),
            Some(from) if text.contains(from) => Ok(text.replacen(from, to, 1)),
            Some(from) => Err(format!("the scene has no {from:?} to edit")),
        }
    }

    /// The text an edit puts in, if the fragment edits.
    fn edited(&self) -> Option<&'static str> {
        match *self {
            Fragment::Edit(_, to) | Fragment::AppendEdit(_, _, to) | Fragment::Flat(_, to) => {
                Some(to)
            }
            Fragment::Append(_) => None,
        }
    }
}

/// Where a row's error points.
enum Place {
    /// This line and column.
    At(usize, usize),
    /// Where this text first starts in the scene.
    Of(&'static str),
    /// Where the text the edit put in starts.
    Edited,
}

/// A broken scene and the error it must give: at `at`, on `key` (empty for a TOML syntax
/// error, which has none), with every one of `parts` in the message.
struct Refusal {
    tag: &'static str,
    scene: Fragment,
    at: Place,
    key: &'static str,
    parts: &'static [&'static str],
}

/// Every refusal of a broken scene, grouped by what is wrong.
static REFUSALS: &[Refusal] = &[
    // ------------------------------------------------ 2-D scenes (`dimensions = 2`)
    Refusal {
        tag: "flat-dimensions",
        scene: Flat("dimensions = 2", "dimensions = 4"),
        at: Of("4\n\n[[material]]"),
        key: "domain.dimensions",
        parts: &["expected 2 (particles in the plane z = 0) or 3, found 4"],
    },
    Refusal {
        tag: "flat-periodic-z",
        scene: Flat(
            "dimensions = 2\n",
            "dimensions = 2\nperiodic = [false, false, true]\n",
        ),
        at: Of("2\nperiodic"),
        key: "domain.dimensions",
        parts: &["z cannot be periodic", "expected periodic = [x, y, false]"],
    },
    Refusal {
        tag: "flat-gravity",
        scene: Flat("gravity = [0.0, -9.81, 0.0]", "gravity = [0.0, -9.81, 1.0]"),
        at: Of("[0.0, -9.81, 1.0]"),
        key: "simulation.gravity",
        parts: &[
            "has a z component in a 2-D scene",
            "expected gravity in the plane, e.g. [0.0, -9.81, 0.0]",
        ],
    },
    Refusal {
        tag: "flat-off-plane",
        scene: Flat("[0.005, 0.005, 0.0]]", "[0.005, 0.005, 0.001]]"),
        at: Of("2\n\n[[material]]"),
        key: "domain.dimensions",
        parts: &[
            "particle 1 lies at",
            "off the plane z = 0 of a 2-D scene",
            "expected every particle centred in z = 0",
        ],
    },
    Refusal {
        tag: "flat-velocity",
        scene: Flat("[0.0, -1.0, 0.0]", "[0.0, -1.0, 0.5]"),
        at: Of("2\n\n[[material]]"),
        key: "domain.dimensions",
        parts: &["particle 0 moves at", "out of the plane"],
    },
    Refusal {
        tag: "flat-spin",
        scene: Flat(
            "[0.0, 0.0, 0.0]]\n",
            "[0.0, 0.0, 0.0]]\nangular_velocities = [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]\n",
        ),
        at: Of("2\n\n[[material]]"),
        key: "domain.dimensions",
        parts: &["particle 0 spins at", "about an axis not normal to the plane"],
    },
    Refusal {
        tag: "flat-capsule",
        scene: Flat(
            "radius = 0.001\n",
            "radius = 0.001\nshape = \"capsule\"\nlength = 0.001\n",
        ),
        at: Of("2\n\n[[material]]"),
        key: "domain.dimensions",
        parts: &["particle 0 is not a sphere; a 2-D scene holds spheres and analytic walls"],
    },
    Refusal {
        tag: "flat-lattice-layers",
        scene: Flat(
            "positions = [[0.002, 0.002, 0.0], [0.005, 0.005, 0.0]]",
            "lattice = { spacing = 0.003, count = [2, 2, 2] }",
        ),
        at: Of("[2, 2, 2]"),
        key: "particles[0].lattice.count",
        parts: &["a 2-D scene's lattice has one layer, in the plane z = 0; expected count = [2, 2, 1]"],
    },
    Refusal {
        tag: "flat-insert",
        scene: Flat(
            "friction = 0.5 }\n",
            "friction = 0.5 }\n\n[[insert]]\nmaterial = \"glass\"\nbox = { min = [0.002, 0.002, -0.001], max = [0.008, 0.008, 0.001] }\ncount = 3\nrate = 100.0\nradius = 0.0005\n",
        ),
        at: Of("2\n\n[[material]]"),
        key: "domain.dimensions",
        parts: &["`[[insert]]` blocks are not available in 2-D"],
    },
    // ------------------------------------------------ TOML syntax, unknown and missing keys
    Refusal {
        tag: "syntax",
        scene: Edit("steps = 100", "steps = "),
        at: At(2, 9),
        key: "",
        parts: &["TOML syntax error", "scene.toml:2:9:"],
    },
    Refusal {
        tag: "unknown-top",
        scene: Append(&["[simulaton]\nsteps = 1\n"]),
        at: At(27, 2),
        key: "simulaton",
        parts: &[
            "unknown key `simulaton` at the top level",
            "accepted keys: simulation, domain, initial, material, particles, wall, interaction, bond, shell, ring, insert, cells, output",
        ],
    },
    Refusal {
        tag: "unknown-nested",
        scene: Edit("density = 2500.0", "densty = 2500.0"),
        at: At(12, 1),
        key: "material[0].densty",
        parts: &[
            "unknown key `densty` in `material[0]`",
            "accepted keys: name, density, young, poisson",
        ],
    },
    // Inside an inline table, two levels down.
    Refusal {
        tag: "unknown-inline",
        scene: Edit(HERTZ, "normal = { law = \"hertz\", stiffnes = 1.0 }"),
        at: At(24, 27),
        key: "interaction[0].normal.stiffnes",
        parts: &[
            "unknown key `stiffnes` in `interaction[0].normal`",
            "accepted keys: law",
        ],
    },
    Refusal {
        tag: "missing-young",
        scene: Edit("young = 5.0e6\n", ""),
        at: At(10, 1),
        key: "material[0].young",
        parts: &[
            "missing required key `young`",
            "expected a positive number (Pa)",
        ],
    },
    Refusal {
        tag: "missing-domain",
        scene: Edit(
            "[domain]\nmin = [0.0, 0.0, 0.0]\nmax = [0.01, 0.01, 0.01]\n",
            "",
        ),
        at: At(1, 1),
        key: "domain",
        parts: &["missing required key `domain`"],
    },
    // ------------------------------------------------------------------------ wrong types
    Refusal {
        tag: "wrong-type",
        scene: Edit("density = 2500.0", "density = \"heavy\""),
        at: At(12, 11),
        key: "material[0].density",
        parts: &["expected a positive number (kg/m^3), found \"heavy\""],
    },
    Refusal {
        tag: "wrong-type-vec",
        scene: Edit("gravity = [0.0, 0.0, -9.81]", "gravity = [0.0, -9.81]"),
        at: At(4, 11),
        key: "simulation.gravity",
        parts: &["expected an array of 3 numbers [x, y, z] (m/s^2), found 2 element(s)"],
    },
    Refusal {
        tag: "not-array-of-tables",
        scene: Edit("[[material]]", "[material]"),
        at: At(10, 1),
        key: "material",
        parts: &["expected an array of tables ([[material]] blocks), found a table"],
    },
    // ------------------------------------------------------------------------- materials
    Refusal {
        tag: "unknown-material",
        scene: Edit("material = \"glass\"", "material = \"steel\""),
        at: At(17, 12),
        key: "particles[0].material",
        parts: &["unknown material \"steel\"", "defined materials: \"glass\""],
    },
    Refusal {
        tag: "unknown-material-between",
        scene: Edit(
            "between = [\"glass\", \"glass\"]",
            "between = [\"glass\", \"glas\"]",
        ),
        at: At(23, 21),
        key: "interaction[0].between[1]",
        parts: &["unknown material \"glas\"", "defined materials: \"glass\""],
    },
    Refusal {
        tag: "unknown-material-wall",
        scene: Append(&["\n[[wall]]\nplane = { point = [0.0, 0.0, 0.0], normal = [0.0, 0.0, 1.0] }\nmaterial = \"steel\"\n"]),
        at: At(30, 12),
        key: "wall[0].material",
        parts: &["unknown material \"steel\"", "defined materials: \"glass\""],
    },
    Refusal {
        tag: "duplicate-material",
        scene: Append(&[
            "\n[[material]]\nname = \"glass\"\ndensity = 1.0\nyoung = 1.0\npoisson = 0.1\n",
        ]),
        at: At(29, 8),
        key: "material[1].name",
        parts: &["duplicate material name \"glass\"", "material[0] (line 11)"],
    },
    // ---------------------------------------------- numbers out of range, or not finite
    Refusal {
        tag: "negative-young",
        scene: Edit("young = 5.0e6", "young = -5.0"),
        at: At(13, 9),
        key: "material[0].young",
        parts: &["expected a positive number (Pa), found -5.0"],
    },
    Refusal {
        tag: "zero-density",
        scene: Edit("density = 2500.0", "density = 0"),
        at: At(12, 11),
        key: "material[0].density",
        parts: &["expected a positive number (kg/m^3), found 0"],
    },
    Refusal {
        tag: "zero-radius",
        scene: Edit("radius = 0.001", "radius = 0.0"),
        at: At(18, 10),
        key: "particles[0].radius",
        parts: &["expected a positive number (m), found 0.0"],
    },
    Refusal {
        tag: "negative-spacing",
        scene: Edit(LISTED, "lattice = { spacing = -0.002, count = [2, 2, 2] }\n"),
        at: At(19, 23),
        key: "particles[0].lattice.spacing",
        parts: &["expected a positive number (m), found -0.002"],
    },
    Refusal {
        tag: "nan-density",
        scene: Edit("density = 2500.0", "density = nan"),
        at: At(12, 11),
        key: "material[0].density",
        parts: &["expected a positive number (kg/m^3), found nan"],
    },
    Refusal {
        tag: "inf-gravity",
        scene: Edit("gravity = [0.0, 0.0, -9.81]", "gravity = [0.0, 0.0, -inf]"),
        at: At(4, 22),
        key: "simulation.gravity[2]",
        parts: &["expected a number (m/s^2), found -inf"],
    },
    Refusal {
        tag: "poisson",
        scene: Edit("poisson = 0.3", "poisson = 0.5"),
        at: At(14, 11),
        key: "material[0].poisson",
        parts: &["expected a Poisson's ratio in (-1, 0.5), found 0.5"],
    },
    // ------------------------------------------------------ laws and their parameters
    Refusal {
        tag: "unknown-law",
        scene: Edit(HERTZ, "normal = { law = \"hooke\" }"),
        at: At(24, 18),
        key: "interaction[0].normal.law",
        parts: &[
            "unknown normal law \"hooke\"",
            "accepted: \"linear\", \"hertz\", \"hertz_damped\"",
        ],
    },
    Refusal {
        tag: "wrong-slot",
        scene: Edit(HERTZ, "normal = { law = \"viscous\" }"),
        at: At(24, 18),
        key: "interaction[0].normal.law",
        parts: &[
            "\"viscous\" is a damping law and cannot fill the normal slot",
            "accepted here: \"linear\", \"hertz\", \"hertz_damped\"",
        ],
    },
    // Every slot has laws now (none is reserved): an unknown law is named with the accepted
    // ones, and a law of another slot inside an `extra` list is sent to its slot.
    Refusal {
        tag: "rolling",
        scene: Append(&["rolling = { law = \"constant_torque\", coefficient = 0.1 }\n"]),
        at: At(27, 19),
        key: "interaction[0].rolling.law",
        parts: &[
            "unknown rolling law \"constant_torque\"",
            "accepted: \"rolling_constant_torque\"",
        ],
    },
    Refusal {
        tag: "extra",
        scene: Append(&["extra = [{ law = \"jkr\" }]\n"]),
        at: At(27, 18),
        key: "interaction[0].extra[0].law",
        parts: &[
            "\"jkr\" is a normal law and cannot fill the extra slot",
            "\"linear_adhesion\"",
            "(put \"jkr\" under `normal`)",
        ],
    },
    // A law twice in an `extra` list is refused at its second place.
    Refusal {
        tag: "extra_twice",
        scene: Append(&["extra = [{ law = \"constant_force\", force = 1.0 }, { law = \"constant_force\", force = 2.0 }]\n"]),
        at: At(27, 51),
        key: "interaction[0].extra[1]",
        parts: &["\"constant_force\" is already in this extra list"],
    },
    Refusal {
        tag: "viscous-form",
        scene: Edit("restitution = 0.5", "restitution = 0.5, form = \"liggghts\""),
        at: At(25, 56),
        key: "interaction[0].damping.form",
        parts: &["expected \"exact\" or \"tsuji\", found \"liggghts\""],
    },
    Refusal {
        tag: "tangential-form",
        scene: Edit("friction = 0.5", "friction = 0.5, form = \"lammps\""),
        at: At(26, 63),
        key: "interaction[0].tangential.form",
        parts: &["expected \"cundall_strack\" or \"liggghts\", found \"lammps\""],
    },
    Refusal {
        tag: "tangential-restitution",
        scene: Edit("friction = 0.5", "friction = 0.5, restitution = 0.5"),
        at: At(26, 70),
        key: "interaction[0].tangential.restitution",
        parts: &["only with form = \"liggghts\""],
    },
    Refusal {
        tag: "tangential-liggghts",
        scene: Edit("friction = 0.5", "friction = 0.5, form = \"liggghts\""),
        at: At(26, 14),
        key: "interaction[0].tangential.restitution",
        parts: &["missing required key `restitution`"],
    },
    Refusal {
        tag: "restitution",
        scene: Edit("restitution = 0.5", "restitution = 1.5"),
        at: At(25, 44),
        key: "interaction[0].damping.restitution",
        parts: &["expected a restitution coefficient in (0, 1], found 1.5"],
    },
    Refusal {
        tag: "restitution-zero",
        scene: Edit("restitution = 0.5", "restitution = 0"),
        at: At(25, 44),
        key: "interaction[0].damping.restitution",
        parts: &["in (0, 1], found 0"],
    },
    Refusal {
        tag: "friction-negative",
        scene: Edit("friction = 0.5", "friction = -0.1"),
        at: At(26, 51),
        key: "interaction[0].tangential.friction",
        parts: &["expected a number >= 0 (Coulomb coefficient), found -0.1"],
    },
    Refusal {
        tag: "friction-static",
        scene: Edit("friction = 0.5", "friction = 0.5, friction_static = 0.3"),
        at: At(26, 74),
        key: "interaction[0].tangential.friction_static",
        parts: &["expected friction_static >= friction (0.5), found 0.3"],
    },
    // ---------------------------------------------- the domain and the particles in it
    Refusal {
        tag: "domain-box",
        scene: Edit("max = [0.01, 0.01, 0.01]", "max = [0.01, 0.0, 0.01]"),
        at: At(8, 7),
        key: "domain.max",
        parts: &["expected domain.max > domain.min on every axis; on y it is 0 <= 0"],
    },
    Refusal {
        tag: "periodic-short",
        scene: Edit(
            "max = [0.01, 0.01, 0.01]\n",
            "max = [0.006, 0.01, 0.01]\nperiodic = [true, false, false]\n",
        ),
        at: At(6, 1),
        key: "domain",
        parts: &["periodic axis x", "needs at least 3 cells"],
    },
    Refusal {
        tag: "outside",
        scene: Edit("[0.005, 0.005, 0.005]]", "[0.005, 0.005, 0.02]]"),
        at: At(19, 37),
        key: "particles[0].positions[1]",
        parts: &["particle centre", "lies outside the domain on z"],
    },
    // A lattice too large for the domain: pointed at the lattice, naming the site.
    Refusal {
        tag: "outside-lattice",
        scene: Edit(LISTED, "lattice = { spacing = 0.002, count = [6, 2, 2] }\n"),
        at: At(19, 11),
        key: "particles[0].lattice",
        parts: &[
            "lattice site (5, 0, 0): particle centre",
            "lies outside the domain on x",
        ],
    },
    // A particle whose centre starts behind a wall plane is refused at the wall, naming the
    // particle, its distance behind the plane and what is expected.
    Refusal {
        tag: "behind-wall",
        scene: Append(&["\n[[wall]]\nplane = { point = [0.0, 0.0, 0.003], normal = [0.0, 0.0, 1.0] }\nmaterial = \"glass\"\n"]),
        at: At(28, 1),
        key: "wall[0]",
        parts: &[
            "particle 0 at",
            "behind plane 0",
            "expected every particle centre on the side the normal points to",
            "lies 1.000e-3 m behind",
        ],
    },
    Refusal {
        tag: "file-missing",
        scene: Edit(LISTED, "file = \"nope.xyzr\"\n"),
        at: At(19, 8),
        key: "particles[0].file",
        parts: &["cannot read particle file", "nope.xyzr"],
    },
    Refusal {
        tag: "velocities-length",
        scene: Edit(
            "velocities = [[0.0, 0.0, -1.0], [0.0, 0.0, 0.0]]",
            "velocities = [[0.0, 0.0, -1.0]]",
        ),
        at: At(20, 14),
        key: "particles[0].velocities",
        parts: &["expected 2 entries (one per particle of positions), found 1"],
    },
    Refusal {
        tag: "two-sources",
        scene: Edit(
            "radius = 0.001\n",
            "radius = 0.001\nlattice = { spacing = 0.002, count = [1, 1, 1] }\n",
        ),
        at: At(20, 1),
        key: "particles[0].positions",
        parts: &["expected exactly one particle source, found lattice and positions"],
    },
    // Materials that meet need an interaction: two kinds of particles, then a wall.
    Refusal {
        tag: "missing-interaction",
        scene: Append(&[
            STEEL,
            "\n[[particles]]\nmaterial = \"steel\"\nradius = 0.001\npositions = [[0.008, 0.008, 0.008]]\n",
        ]),
        at: At(35, 12),
        key: "particles[1].material",
        parts: &[
            "particles of \"glass\" and \"steel\" can touch but no [[interaction]] has between = [\"glass\", \"steel\"]",
            "defined interactions: [\"glass\", \"glass\"]",
        ],
    },
    Refusal {
        tag: "missing-wall-interaction",
        scene: Append(&[
            STEEL,
            "\n[[wall]]\nbox = { min = [0.0, 0.0, 0.0], max = [0.01, 0.01, 0.01] }\nmaterial = \"steel\"\n",
        ]),
        at: At(36, 12),
        key: "wall[0].material",
        parts: &["particles of \"glass\" can touch this wall of \"steel\""],
    },
    // ----------------------------------------------------- run length and time step
    Refusal {
        tag: "duration-and-steps",
        scene: Edit("steps = 100\n", "steps = 100\nduration = 0.1\n"),
        at: At(3, 1),
        key: "simulation.duration",
        parts: &["give either `duration` (s) or `steps`, not both"],
    },
    Refusal {
        tag: "no-length",
        scene: Edit("steps = 100\n", ""),
        at: At(1, 1),
        key: "simulation.duration",
        parts: &["missing the run length: expected `duration` (s) or `steps`"],
    },
    Refusal {
        tag: "steps-zero",
        scene: Edit("steps = 100", "steps = 0"),
        at: At(2, 9),
        key: "simulation.steps",
        parts: &["expected an integer >= 1, found 0"],
    },
    Refusal {
        tag: "dt-word",
        scene: Edit("dt = 1e-5", "dt = \"fast\""),
        at: At(3, 6),
        key: "simulation.dt",
        parts: &["expected \"auto\" or a positive number of seconds, found \"fast\""],
    },
    Refusal {
        tag: "dt-negative",
        scene: Edit("dt = 1e-5", "dt = -1e-5"),
        at: At(3, 6),
        key: "simulation.dt",
        parts: &["expected \"auto\" or a positive number of seconds, found -1e-5"],
    },
    // `simulation.sphere_orientation` is a boolean.
    Refusal {
        tag: "orient-bad",
        scene: Edit("steps = 100", "steps = 100\nsphere_orientation = \"yes\""),
        at: At(3, 22),
        key: "simulation.sphere_orientation",
        parts: &["expected true or false, found"],
    },
    // ----------------------------------------------------------------------- output
    Refusal {
        tag: "every-zero",
        scene: Append(&["\n[output]\nevery = 0\n"]),
        at: At(29, 9),
        key: "output.every",
        parts: &["expected a positive number (s), found 0"],
    },
    Refusal {
        tag: "every-steps-zero",
        scene: Append(&["\n[output]\nevery_steps = 0\n"]),
        at: At(29, 15),
        key: "output.every_steps",
        parts: &["expected an integer >= 1, found 0"],
    },
    Refusal {
        tag: "format",
        scene: Append(&["\n[output]\nformats = [\"vtk\", \"hdf5\"]\n"]),
        at: At(29, 19),
        key: "output.formats[1]",
        parts: &["expected \"vtk\", \"csv\", \"contacts\" or \"stress\", found \"hdf5\""],
    },
    Refusal {
        tag: "checkpoint-both",
        scene: Append(&["\n[output]\ncheckpoint_every = 0.01\ncheckpoint_every_steps = 10\n"]),
        at: At(30, 1),
        key: "output.checkpoint_every_steps",
        parts: &["give either `checkpoint_every` (s) or `checkpoint_every_steps`, not both"],
    },
    Refusal {
        tag: "checkpoint-zero",
        scene: Append(&["\n[output]\ncheckpoint_every_steps = 0\n"]),
        at: At(29, 26),
        key: "output.checkpoint_every_steps",
        parts: &["expected an integer >= 1, found 0"],
    },
    // ------------------------------------------------------------------------ bonds
    // A bond to a particle of an `[[insert]]` block, dormant until the run places it, is
    // refused at its id: its rest length would be taken where it waits outside the domain,
    // and the pair would leave at speed once it is placed.
    Refusal {
        tag: "bond-dormant",
        scene: Append(&[INSERT, "\n[[bond]]\npairs = [[0, 1], [1, 3]]\n", SPRING]),
        at: Of("3]]"),
        key: "bond[0].pairs[1][1]",
        parts: &[
            "particle 3 is a dormant particle of insert[0] (ids 2 to 4)",
            "a bond takes its rest length at the start",
            "expected a particle of a [[particles]] block or a shell node",
        ],
    },
    // Bonds to a clump's body (which touches nothing) and between two members of one clump
    // (one rigid body) are refused at the id or the pair. `touching = true` never pairs the
    // overlapping members of one clump, and no other particles are within 0.1 mm.
    Refusal {
        tag: "bond-bodies",
        scene: Append(&[CLUMPS, "\n[[bond]]\npairs = [[2, 5]]\n", SPRING]),
        at: Of("2, 5]]"),
        key: "bond[0].pairs[0][0]",
        parts: &[
            "particle 2 is the body of a clump",
            "particles 3 to 4",
            "expected one of its members",
        ],
    },
    Refusal {
        tag: "bond-one-clump",
        scene: Append(&[CLUMPS, "\n[[bond]]\npairs = [[0, 1], [3, 4]]\n", SPRING]),
        at: Of("[3, 4]]"),
        key: "bond[0].pairs[1]",
        parts: &[
            "particles 3 and 4 are members of one clump (body 2)",
            "expected particles of different bodies",
        ],
    },
    Refusal {
        tag: "bond-touching-clump",
        scene: Append(&[CLUMPS, "\n[[bond]]\ntouching = true\ntolerance = 0.0001\n", SPRING]),
        at: Of("true"),
        key: "bond[0].touching",
        parts: &["no two particles are within 1.000e-4 m of touching"],
    },
    // ------------------------------------------------- insertion regions and size tables
    // An insertion region that reaches outside the domain is refused at its key, naming the
    // side it crosses: particles are placed only inside the domain, so such a block inserted
    // fewer particles than its count, or none, and the run ended without a word.
    Refusal {
        tag: "insert-above",
        scene: AppendEdit(
            &[INSERT],
            REGION,
            "box = { min = [0.002, 0.002, 0.006], max = [0.008, 0.008, 0.012] }",
        ),
        at: Edited,
        key: "insert[0].box",
        parts: &[
            "the region reaches z = 0.01200 m, above the domain's max z = 0.01000 m",
            "expected a region within the domain on every side",
        ],
    },
    Refusal {
        tag: "insert-below",
        scene: AppendEdit(
            &[INSERT],
            REGION,
            "box = { min = [-0.001, 0.002, 0.006], max = [0.008, 0.008, 0.009] }",
        ),
        at: Edited,
        key: "insert[0].box",
        parts: &[
            "the region reaches x = -1.000e-3 m, below the domain's min x = 0",
            "expected a region within the domain on every side",
        ],
    },
    Refusal {
        tag: "insert-cylinder",
        scene: AppendEdit(
            &[INSERT],
            REGION,
            "cylinder = { center = [0.005, 0.005, 0.006], axis = [1.0, 0.0, 0.0], radius = 0.002, height = 0.006 }",
        ),
        at: Edited,
        key: "insert[0].cylinder",
        parts: &[
            "the region reaches x = 0.01100 m, above the domain's max x = 0.01000 m",
            "expected a region within the domain on every side",
        ],
    },
    // A size table's mass fractions must add to 1: fractions that do not were normalised
    // without a word, so a missing row or a typo changed the sizes silently.
    Refusal {
        tag: "table-sum",
        scene: AppendEdit(
            &[INSERT],
            "radius = 0.0005\n",
            "radii = { table = [[0.0004, 0.3], [0.0005, 0.6]] }\n",
        ),
        at: Of("[[0.0004"),
        key: "insert[0].radii.table",
        parts: &["the mass fractions add to 0.9; they must add to 1"],
    },
    // -------------------------------------------------------------------- unit slips
    // Values off by a thousand (millimetres for metres) are refused where they are written,
    // each message naming the likely slip: radii larger than the domain, an `[[insert]]`
    // block's radii likewise, and an insertion region smaller than its particles.
    Refusal {
        tag: "radius-mm",
        scene: Edit("radius = 0.001", "radius = 1.0"),
        at: At(18, 10),
        key: "particles[0].radius",
        parts: &[
            "radius 1.000 m in a domain 0.01000 m across: were the radii given in mm? (SI units: m)",
        ],
    },
    Refusal {
        tag: "insert-radius-mm",
        scene: Append(&["\n[[insert]]\nmaterial = \"glass\"\nbox = { min = [0.0, 0.0, 0.006], max = [0.01, 0.01, 0.01] }\nradius = 2.0\ncount = 10\nrate = 100.0\n"]),
        at: At(31, 10),
        key: "insert[0].radius",
        parts: &["radius 2.000 m in a domain 0.01000 m across: were the radii given in mm?"],
    },
    Refusal {
        tag: "insert-region-small",
        scene: Append(&["\n[[insert]]\nmaterial = \"glass\"\nbox = { min = [0.0, 0.0, 0.009], max = [0.01, 0.01, 0.0095] }\nradius = 0.001\ncount = 10\nrate = 100.0\n"]),
        at: At(30, 1),
        key: "insert[0].box",
        parts: &[
            "a particle of radius 1.000e-3 m cannot fit in the region, which is 5.000e-4 m across (along z), so the block would insert nothing",
            "expected a region at least one diameter (2.000e-3 m) across on every side",
        ],
    },
    Refusal {
        tag: "insert-region-mm",
        scene: Append(&["\n[[insert]]\nmaterial = \"glass\"\nbox = { min = [0.0, 0.0, 0.009], max = [0.01, 0.01, 0.00905] }\nradius = 0.001\ncount = 10\nrate = 100.0\n"]),
        at: At(30, 1),
        key: "insert[0].box",
        parts: &[
            "cannot fit in the region",
            "were the radii given in mm? (SI units: m)",
        ],
    },
];

impl Refusal {
    /// Load the row's scene and compare its error with the row: the message starts
    /// `path:line:col: key: `, the error's line, column and key are the row's, and every part
    /// is in the message. Every mismatch is said.
    fn check(&self) -> Result<(), String> {
        let text = self.scene.text()?;
        let (line, col) = match self.at {
            At(line, col) => (line, col),
            Of(needle) => {
                place_of(&text, needle).ok_or_else(|| format!("no {needle:?} in the scene"))?
            }
            Edited => self
                .scene
                .edited()
                .and_then(|to| place_of(&text, to))
                .ok_or("the row points at its edit, but there is none")?,
        };
        let (path, r) = load_text(self.tag, &text);
        let err = r.err().ok_or("the scene was accepted")?;
        let msg = err.to_string();
        let head = if self.key.is_empty() {
            format!("{}:{line}:{col}: ", path.display())
        } else {
            format!("{}:{line}:{col}: {}: ", path.display(), self.key)
        };
        let mut wrong = Vec::new();
        if !msg.starts_with(&head) {
            wrong.push(format!("expected the message to start with {head:?}"));
        }
        for (what, got, want) in [("line", err.line(), line), ("column", err.column(), col)] {
            if got != Some(want) {
                wrong.push(format!("{what} {got:?}, expected {want}"));
            }
        }
        if err.key() != Some(self.key) {
            wrong.push(format!("key {:?}, expected {:?}", err.key(), self.key));
        }
        for part in self.parts {
            if !msg.contains(part) {
                wrong.push(format!("expected {part:?} in the message"));
            }
        }
        if wrong.is_empty() {
            Ok(())
        } else {
            Err(format!("{}\n  got\n  {msg}", wrong.join("\n  ")))
        }
    }
}

/// Every row of [`REFUSALS`] is refused as it says; all rows run, and every failing one is
/// named with its reason.
#[test]
fn every_broken_scene_is_refused_at_its_place() {
    // A failure names its row by tag, so a tag must name one row.
    let mut tags: Vec<&str> = REFUSALS.iter().map(|row| row.tag).collect();
    tags.sort_unstable();
    tags.dedup();
    assert_eq!(tags.len(), REFUSALS.len(), "a tag names two rows");
    let failures: Vec<String> = REFUSALS
        .iter()
        .filter_map(|row| {
            let reason = match std::panic::catch_unwind(|| row.check()) {
                Ok(r) => r.err(),
                Err(_) => Some("panicked (its message is above)".to_string()),
            };
            reason.map(|why| format!("{}: {why}", row.tag))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} refusals failed:\n{}",
        failures.len(),
        REFUSALS.len(),
        failures.join("\n")
    );
}

// ------------------------------------------------- refusals a row cannot say

/// Not a row: a row checks how the message starts and what it holds; this checks that nothing
/// follows the description.
#[test]
fn a_refusal_message_ends_with_its_description() {
    let (_, r) = load_text("young-end", &edit("young = 5.0e6", "young = -5.0"));
    let msg = r.expect_err("a negative modulus is refused").to_string();
    assert!(
        msg.ends_with(
            "scene.toml:13:9: material[0].young: expected a positive number (Pa), found -5.0"
        ),
        "{msg}"
    );
}

/// Not rows: a pack file is written beside the scene, and the message names the pack's own
/// line after the scene's place.
#[test]
fn particle_file_errors() {
    // A malformed line: the message gives the pack file's own line number.
    let path = temp_dir("file-bad").join("scene.toml");
    let pack = path.with_file_name("pack.xyzr");
    std::fs::write(
        &pack,
        "# header\n0.002 0.002 0.002 0.001\n\n0.003 0.003 0.001\n",
    )
    .expect("write pack");
    let err = parse_scene(&edit(LISTED, "file = \"pack.xyzr\"\n"), &path)
        .expect_err("malformed pack accepted");
    let msg = err.to_string();
    let head = format!(
        "{}:19:8: particles[0].file: {}:4: ",
        path.display(),
        pack.display()
    );
    assert!(msg.starts_with(&head), "expected {head}\ngot {msg}");
    assert!(
        msg.contains("expected 4 numbers (x y z r) or 7 (x y z r vx vy vz), found 3 field(s)"),
        "{msg}"
    );
    // A number that is not one.
    std::fs::write(&pack, "0.002 0.002 0.002 0.001\n0.003 0.003 0.003 abc\n").expect("write pack");
    let msg = parse_scene(&edit(LISTED, "file = \"pack.xyzr\"\n"), &path)
        .expect_err("accepted")
        .to_string();
    assert!(
        msg.contains("pack.xyzr:2: field 4 (r): expected a finite number, found `abc`"),
        "{msg}"
    );
    // A well-formed particle the scene refuses: pointed at `file`, naming the particle's own
    // line of the pack (comments and blank lines counted).
    std::fs::write(
        &pack,
        "# x y z r\n0.002 0.002 0.002 0.001\n\n0.003 0.003 0.5 0.001\n",
    )
    .expect("write pack");
    let scene = edit(LISTED, "file = \"pack.xyzr\"\n").replacen("radius = 0.001\n", "", 1);
    let msg = parse_scene(&scene, &path)
        .expect_err("a particle outside the domain accepted")
        .to_string();
    let head = format!(
        "{}:18:8: particles[0].file: {}:4: particle centre",
        path.display(),
        pack.display()
    );
    assert!(msg.starts_with(&head), "expected {head}\ngot {msg}");
    assert!(msg.contains("lies outside the domain on z"), "{msg}");
}

/// The scenes one edit away from refused rows load, and build what they say. Not rows: they
/// are accepted, and each checks its own part of the scene built.
#[test]
fn the_scenes_beside_the_refusals_load() {
    // Beside `viscous-form` and `tangential-liggghts`.
    let (_, ok) = load_text(
        "viscous-form-ok",
        &edit("restitution = 0.5", "restitution = 0.5, form = \"tsuji\""),
    );
    assert!(ok.is_ok(), "form = \"tsuji\" is accepted: {:?}", ok.err());
    let (_, ok) = load_text(
        "tangential-liggghts-ok",
        &edit(
            "friction = 0.5",
            "friction = 0.5, form = \"liggghts\", restitution = 0.5",
        ),
    );
    assert!(ok.is_ok(), "{:?}", ok.err());
    // Beside `checkpoint-both`: an interval in seconds becomes one in steps.
    let (_, r) = load_text(
        "checkpoint-seconds",
        &format!("{VALID}\n[output]\ncheckpoint_every = 2e-4\n"),
    );
    let scene = r.expect("valid");
    assert_eq!(
        scene.output.checkpoint_every_steps,
        Some(20),
        "2e-4 s at dt = 1e-5 s"
    );
    // Beside `bond-dormant`: a bond between beads placed at the start.
    let (_, r) = load_text(
        "bond-live",
        &format!("{VALID}{INSERT}\n[[bond]]\npairs = [[0, 1]]\n{SPRING}"),
    );
    assert_eq!(
        r.expect("a bond between placed beads").world.fixed_pairs,
        vec![[0, 1]]
    );
    // Beside the clump bonds: members of two clumps, and a member and a bead, bond.
    let (_, r) = load_text(
        "bond-clumps-ok",
        &format!("{VALID}{CLUMPS}\n[[bond]]\npairs = [[3, 6], [0, 4]]\n{SPRING}"),
    );
    let scene = r.expect("members of two clumps, a member and a bead");
    assert_eq!(scene.world.fixed_pairs, vec![[3, 6], [0, 4]]);
    // Beside the insertion regions: one inside the domain.
    let (_, r) = load_text("insert-inside", &format!("{VALID}{INSERT}"));
    assert_eq!(r.expect("a region inside").world.insertions.len(), 1);
    // Beside `table-sum`: mass fractions adding to 1.
    let (_, r) = load_text(
        "table-ok",
        &format!("{VALID}{INSERT}").replace(
            "radius = 0.0005\n",
            "radii = { table = [[0.0004, 0.25], [0.0005, 0.75]] }\n",
        ),
    );
    r.expect("fractions adding to 1");
}

/// A bond to a triangle of a mesh wall (a fixed wall element, not a particle) is refused at
/// its id; `touching = true` does not pair a bead with the triangles it sits near. Not rows: the
/// mesh file is written beside the scene, which has another name than a row's.
#[test]
fn a_bond_to_a_mesh_wall_triangle_is_refused() {
    let dir = temp_dir("bond-mesh");
    std::fs::write(
        dir.join("floor.obj"),
        "v 0 0 0\nv 0.01 0 0\nv 0.01 0.01 0\nv 0 0.01 0\nf 1 2 3\nf 1 3 4\n",
    )
    .expect("write obj");
    let wall = "\n[[material]]\nname = \"steel\"\ndensity = 7800.0\nyoung = 5.0e6\npoisson = 0.3\n\n[[wall]]\nmaterial = \"steel\"\nmesh = { file = \"floor.obj\" }\n\n[[interaction]]\nbetween = [\"glass\", \"steel\"]\nnormal = { law = \"hertz\" }\n";
    let load = |tag: &str, bond: &str| {
        let text = format!("{VALID}{wall}\n[[bond]]\n{bond}{SPRING}");
        let path = dir.join(format!("{tag}.toml"));
        std::fs::write(&path, &text).expect("write scene");
        (text, path.clone(), load_scene(&path))
    };
    let (text, path, r) = load("pairs", "pairs = [[0, 2]]\n");
    let Err(e) = r else {
        panic!("a bond to a triangle was accepted")
    };
    let (line, col) = at(&text, "2]]");
    assert_eq!(
        (e.line(), e.column(), e.key()),
        (Some(line), Some(col), Some("bond[0].pairs[0][1]")),
        "{e}"
    );
    let msg = e.to_string();
    assert!(msg.starts_with(&path.display().to_string()), "{msg}");
    assert!(
        msg.contains("particle 2 is a triangle of a mesh wall, not a particle"),
        "{msg}"
    );
    // Bead 0 sits 1 mm above the floor, inside its triangles' bounding spheres; the beads are
    // 3.2 mm apart.
    let (_, _, r) = load("touching", "touching = true\ntolerance = 0.0005\n");
    let Err(e) = r else {
        panic!("touching = true bonded a bead to the floor")
    };
    assert!(
        e.to_string()
            .contains("no two particles are within 5.000e-4 m of touching"),
        "{e}"
    );
}

/// A mesh wall from a file in millimetres (93 m across in a domain of 0.017 m) is
/// refused at its `file` (or `scale`) with the factor that would fix it. Not rows: the mesh
/// file is written beside the scene.
#[test]
fn a_mesh_in_millimetres_is_refused_with_its_scale() {
    let dir = temp_dir("mesh-mm");
    // A square of 66 mm a side read as metres: 93 m across.
    std::fs::write(
        dir.join("floor.obj"),
        "v 0 0 0\nv 66 0 0\nv 66 66 0\nv 0 66 0\nf 1 2 3\nf 1 3 4\n",
    )
    .expect("write mesh");
    let cases = [
        (
            "mesh = { file = \"floor.obj\" }",
            30,
            17,
            "wall[0].mesh.file",
            "0.001",
        ),
        (
            "mesh = { file = \"floor.obj\", scale = 0.5 }",
            30,
            38,
            "wall[0].mesh.scale",
            "0.0005",
        ),
    ];
    for (mesh, line, col, key, scale) in cases {
        let text = format!("{VALID}\n[[wall]]\nmaterial = \"glass\"\n{mesh}\n");
        let path = dir.join("scene.toml");
        std::fs::write(&path, &text).expect("write scene");
        let e = load_scene(&path).expect_err("refused");
        let m = e.to_string();
        assert!(
            m.starts_with(&format!("{}:{line}:{col}: {key}: ", path.display())),
            "{m}"
        );
        assert!(
            m.contains("domain (diagonals): is the file in mm? give `scale = ")
                && m.contains(&format!("`scale = {scale}` (SI units: m)")),
            "{m}"
        );
    }
}

/// A thin domain is a scene, not a unit slip: a monolayer of 2 mm beads between two plates
/// 2.4 mm apart parses (the size check refuses only a particle wider than the domain), where a
/// bead wider than the gap is refused without the millimetre hint it gives a thousandfold slip.
/// Not a row: the scene is another than `VALID`, and what the message lacks is checked.
#[test]
fn a_monolayer_between_close_plates_is_accepted() {
    let scene = |gap: f64| {
        format!(
            r#"
[simulation]
steps = 10
[domain]
min = [0.0, 0.0, 0.0]
max = [0.02, 0.02, {gap}]
[[material]]
name = "glass"
density = 2500.0
young = 5.0e6
poisson = 0.3
[[particles]]
material = "glass"
radius = 0.001
lattice = {{ spacing = 0.0025, count = [6, 6, 1], origin = [0.002, 0.002, 0.0012] }}
[[wall]]
box = {{ min = [0.0, 0.0, 0.0], max = [0.02, 0.02, {gap}] }}
material = "glass"
[[interaction]]
between = ["glass", "glass"]
normal = {{ law = "hertz" }}
"#
        )
    };
    let ok = grains_scene::parse_scene(&scene(0.0024), Path::new("mono.toml"));
    assert!(ok.is_ok(), "{:?}", ok.err().map(|e| e.to_string()));
    let e = grains_scene::parse_scene(&scene(0.0019), Path::new("mono.toml"))
        .expect_err("a bead wider than the gap")
        .to_string();
    assert!(e.contains("which the particle must fit in"), "{e}");
    assert!(!e.contains("mm?"), "{e}");
}

/// Not rows: these are refused with any message, and must not panic on the way.
#[test]
fn nothing_panics_on_odd_input() {
    // Odd but syntactically valid documents must give errors, never panics.
    let odd: Vec<String> = vec![
        String::new(),
        "simulation = 3".into(),
        "[simulation]\nsteps = 9223372036854775807\n".into(),
        "[simulation]\nsteps = -1\n".into(),
        "[[simulation]]\n".into(),
        edit("radius = 0.001", "radius = 1e300"),
        edit("radius = 0.001", "radius = 1e-30"),
        edit("dt = 1e-5", "dt = 1e-300"),
        edit("steps = 100", "duration = 1e30"),
        edit("positions = [[0.002, 0.002, 0.002], [0.005, 0.005, 0.005]]", "positions = []"),
        edit("positions = [[0.002, 0.002, 0.002], [0.005, 0.005, 0.005]]", "positions = [[1, 2], 3]"),
        edit("between = [\"glass\", \"glass\"]", "between = []"),
        format!("{VALID}\n[[wall]]\nplane = {{ point = [0.0, 0.0, 0.0], normal = [0.0, 0.0, 0.0] }}\nmaterial = \"glass\"\n"),
    ];
    for text in &odd {
        assert!(
            parse_scene(text, Path::new("odd.toml")).is_err(),
            "accepted:\n{text}"
        );
    }
    // A lattice count that would not fit in memory is refused before generating.
    let lattice = edit(
        "positions = [[0.002, 0.002, 0.002], [0.005, 0.005, 0.005]]\nvelocities = [[0.0, 0.0, -1.0], [0.0, 0.0, 0.0]]",
        "lattice = { spacing = 1e-9, count = [100000, 100000, 100000] }\n",
    );
    let msg = parse_scene(&lattice, Path::new("odd.toml"))
        .expect_err("huge lattice")
        .to_string();
    assert!(msg.contains("particles[0].lattice.count"), "{msg}");
}

/// A material pair that cannot touch needs no interaction: one sphere of "ball" dropped on a
/// floor of "floor" runs with only the ball-floor interaction. A second ball makes ball-ball
/// contacts possible, and then the missing interaction is an error that says why they touch.
/// Not a row: the scene is another than `VALID`, and the core's own refusal is checked too.
#[test]
fn a_material_pair_that_cannot_touch_needs_no_interaction() {
    let one = r#"[simulation]
steps = 50
dt = 1e-5

[domain]
min = [0.0, 0.0, 0.0]
max = [0.01, 0.01, 0.01]

[[material]]
name = "ball"
density = 2500.0
young = 5.0e6
poisson = 0.3

[[material]]
name = "floor"
density = 7800.0
young = 2.0e11
poisson = 0.29

[[particles]]
material = "ball"
radius = 0.001
positions = [[0.005, 0.005, 0.00105]]

[[wall]]
plane = { point = [0.0, 0.0, 0.0], normal = [0.0, 0.0, 1.0] }
material = "floor"

[[interaction]]
between = ["ball", "floor"]
normal = { law = "hertz" }
"#;
    let scene = parse_scene(one, Path::new("one.toml")).expect("one ball needs no ball-ball law");
    let mut b = grains_core::CpuBackend::new(scene.world).expect("backend");
    grains_core::Backend::run(&mut b, 50);
    let two = one.replace(
        "positions = [[0.005, 0.005, 0.00105]]",
        "positions = [[0.005, 0.005, 0.00105], [0.002, 0.002, 0.002]]",
    );
    let err = parse_scene(&two, Path::new("two.toml")).expect_err("two balls can touch");
    let msg = err.to_string();
    assert!(
        msg.contains("particles of \"ball\" and \"ball\" can touch")
            && msg.contains("defined interactions: [\"ball\", \"floor\"]"),
        "{msg}"
    );
    // The core says the same when a world is built directly.
    use grains_core::material::Material;
    use grains_core::materials::Interaction;
    let mat = |name: &str| Material {
        name: name.into(),
        density: 2500.0,
        young: 5e6,
        poisson: 0.3,
        drag: Default::default(),
    };
    let mut p = grains_core::Particles::default();
    for x in [0.002, 0.006] {
        p.push_sphere(
            [x, 0.005, 0.005],
            0.001,
            [0.0; 3],
            [0.0; 3],
            0,
            2500.0,
            false,
        );
    }
    let err = grains_core::World::new(
        p,
        vec![],
        vec![mat("ball"), mat("floor")],
        vec![Interaction::new(0, 1, vec![hertz()])],
        grains_core::Domain {
            min: [0.0; 3],
            max: [0.01; 3],
            periodic: [false; 3],
        },
        [0.0; 3],
        1e-5,
        1e-4,
    )
    .expect_err("two balls, no ball-ball law");
    assert!(
        err.to_string()
            .starts_with("2 particles of \"ball\" can touch, but no [[interaction]]"),
        "{err}"
    );
}

// ---------------------------------------------------------------- valid scenes

#[test]
fn valid_scene_builds_the_world() {
    let text = format!(
        "{VALID}\n[[wall]]\nbox = {{ min = [0.0, 0.0, 0.0], max = [0.01, 0.01, 0.01] }}\nmaterial = \"glass\"\n\n[[wall]]\nplane = {{ point = [0.0, 0.0, 0.001], normal = [0.0, 0.0, 2.0] }}\nmaterial = \"glass\"\n"
    );
    let (_, r) = load_text("valid", &text);
    let scene = r.expect("valid scene");
    let w = &scene.world;
    assert_eq!(w.particles.len(), 2);
    assert_eq!(w.materials.len(), 1);
    let mass = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * 0.001f64.powi(3);
    for m in &w.particles.mass {
        assert!((*m as f64 - mass).abs() < 1e-6 * mass, "mass {m} vs {mass}");
    }
    assert!((w.particles.vel[0][3] as f64 - 1.0 / mass).abs() < 1e-6 / mass);
    assert_eq!(w.particles.vel[0][2], -1.0);
    assert_eq!(w.particles.pos[1], [0.005, 0.005, 0.005, 0.001]);
    // Box: six inward planes; then the plane, its normal made unit.
    assert_eq!(w.walls.len(), 7);
    assert_eq!(w.walls[0].normal, [1.0, 0.0, 0.0]);
    assert_eq!(w.walls[1].normal, [-1.0, 0.0, 0.0]);
    assert_eq!(w.walls[1].point, [0.01, 0.01, 0.01]);
    assert_eq!(w.walls[6].normal, [0.0, 0.0, 1.0]);
    assert!(w.walls.iter().all(|p| p.material == 0));
    // Every particle indexes the shape table, whose entry 0 is the sphere.
    assert_eq!(w.particles.shape, vec![grains_core::shapes::SPHERE; 2]);
    assert_eq!(
        w.particles.shape_table(),
        vec![grains_core::shapes::ShapeRecord::sphere()]
    );
    // One chain between spheres, one against walls.
    let names: Vec<String> = w.table.chains.iter().map(|c| c.name()).collect();
    assert_eq!(
        names,
        [
            "sphere_sphere__hertz__viscous__cundall_strack",
            "sphere_plane__hertz__viscous__cundall_strack"
        ]
    );
    let inter = &w.interactions[0];
    assert_eq!(inter.law(Slot::Normal), Some(&hertz()));
    assert_eq!(
        inter.law(Slot::Tangential),
        Some(&LawSpec::CundallStrack(CundallStrackSpec {
            friction: 0.5,
            friction_static: 0.5,
            liggghts: None,
            stiffness: None
        }))
    );
    // After Hertz, the tangential stiffness defaults to Mindlin's.
    assert_eq!(cundall_strack_params(w).mindlin, 1);
    assert_eq!(w.dt, 1e-5);
    assert!(!scene.dt_auto);
    assert_eq!(w.gravity, [0.0, 0.0, -9.81]);
    assert!((w.skin - 0.0005).abs() < 1e-10, "skin {}", w.skin);
    assert_eq!(scene.run.steps, 100);
    assert_eq!(scene.run.backend, BackendChoice::Auto);
    assert_eq!(scene.output.dir, PathBuf::from("out"));
    assert_eq!(scene.output.every_steps, 1);
    assert!(scene.output.vtk && !scene.output.csv && scene.output.energy);
    let summary = scene.summary();
    for part in [
        "particles   2",
        "counts      2 particles, 0 mesh triangles, 2 walls",
        "walls       2 (7 planes)",
        "chains      2",
        "dt          1.000e-5 s (given)",
    ] {
        assert!(summary.contains(part), "{part:?} not in\n{summary}");
    }
    // The backends' estimates, which `grains check` puts in the summary.
    let memory = grains_cli::preflight::memory_lines(&scene);
    assert!(memory.contains("MiB (CPU backend estimate"), "{memory}");
    // --steps override rescales the default output interval.
    let scene = scene.with_steps(5000);
    assert_eq!(scene.run.steps, 5000);
    assert_eq!(scene.output.every_steps, 50);
}

#[test]
fn linear_law_defaults_and_output_settings() {
    let text = edit("normal = { law = \"hertz\" }", "normal = { law = \"linear\", stiffness = 1e3 }")
        .replace("steps = 100", "duration = 0.05")
        + "\n[output]\ndir = \"results/run1\"\nevery = 0.001\nformats = [\"csv\"]\nenergy = false\n";
    let scene = parse_scene(&text, Path::new("x.toml")).expect("valid");
    let inter = &scene.world.interactions[0];
    assert_eq!(inter.law(Slot::Normal), Some(&linear(Some(1e3))));
    // After a linear spring, the tangential stiffness defaults to 0.2 k_n.
    let cs = cundall_strack_params(&scene.world);
    assert_eq!((cs.mindlin, cs.stiffness_ratio), (0, 0.2));
    // 0.05 s / 1e-5 s is 5000 steps, not 5001 from rounding.
    assert_eq!(scene.run.steps, 5000);
    assert_eq!(scene.output.every_steps, 100);
    assert_eq!(scene.output.dir, PathBuf::from("results/run1"));
    assert!(!scene.output.vtk && scene.output.csv && !scene.output.energy);
    // An explicit interval survives a step override.
    assert_eq!(scene.with_steps(10).output.every_steps, 100);
}

#[test]
fn file_reads_comments_and_velocities() {
    let path = workspace_root().join("tests/fixtures/scenes/pack_scene.toml");
    let scene = load_scene(&path).expect("fixture scene");
    let p = &scene.world.particles;
    assert_eq!(p.len(), 4);
    assert_eq!(p.pos[1], [0.005, 0.002, 0.002, 0.0015]);
    assert_eq!(p.pos[2], [0.002, 0.005, 0.002, 0.001]);
    // Per-line velocity first, then the block's `velocity`.
    assert_eq!(&p.vel[0][..3], &[0.0, 0.0, -1.0]);
    assert_eq!(&p.vel[1][..3], &[0.1, 0.0, -0.2]);
    assert_eq!(&p.vel[2][..3], &[0.0, 0.0, -1.0]);
    assert_eq!(&p.vel[3][..3], &[0.0, 0.0, 0.0]);
    let big = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * 0.0015f64.powi(3);
    assert!((p.mass[1] as f64 - big).abs() < 1e-6 * big);
}

#[test]
fn file_reads_peer_benchmark_format() {
    // The first particles of the peer kit's gas scene (x y z r vx vy vz, `#` header).
    let dir = temp_dir("peer");
    let src = workspace_root().join("tests/fixtures/scenes/gas_100k_head.xyzr");
    std::fs::copy(&src, dir.join("gas.xyzr")).expect("copy fixture");
    let text = "[simulation]\nsteps = 2000\ndt = 1e-5\n[domain]\nmin = [0.0, 0.0, 0.0]\nmax = [0.1104, 0.1104, 0.1104]\nperiodic = [true, true, true]\n[[material]]\nname = \"glass\"\ndensity = 2500.0\nyoung = 5e6\npoisson = 0.3\n[[particles]]\nmaterial = \"glass\"\nfile = \"gas.xyzr\"\n[[interaction]]\nbetween = [\"glass\", \"glass\"]\nnormal = { law = \"hertz\" }\ndamping = { law = \"viscous\", restitution = 0.5 }\ntangential = { law = \"cundall_strack\", friction = 0.5 }\n";
    let path = dir.join("gas.toml");
    std::fs::write(&path, text).expect("write");
    let scene = load_scene(&path).expect("peer-format scene");
    let p = &scene.world.particles;
    assert_eq!(p.len(), 20);
    assert_eq!(
        p.pos[0],
        [1.264810436e-03, 1.242825957e-03, 1.225139449e-03, 1.0e-3]
    );
    assert_eq!(
        &p.vel[0][..3],
        &[3.420616307e-03, 5.089090039e-02, -8.601404328e-02]
    );
    let speed = (p.vel[5][0].powi(2) + p.vel[5][1].powi(2) + p.vel[5][2].powi(2)).sqrt();
    assert!((speed - 0.1).abs() < 1e-6, "speed {speed}");

    // The full peer files, when generated (`/work/shared/peers/make_scenes.sh /tmp/peer-scenes`).
    for (name, n) in [("settle_20k", 20_800usize), ("gas_100k", 97_336)] {
        let xyzr = Path::new("/tmp/peer-scenes").join(format!("{name}.xyzr"));
        if !xyzr.exists() {
            eprintln!("skipping {}: not generated", xyzr.display());
            continue;
        }
        let (max, per) = if name == "gas_100k" {
            ("[0.1104, 0.1104, 0.1104]", "[true, true, true]")
        } else {
            ("[0.088, 0.088, 0.0286]", "[false, false, false]")
        };
        let text = text
            .replace("gas.xyzr", &xyzr.display().to_string())
            .replace("[0.1104, 0.1104, 0.1104]", max)
            .replace("[true, true, true]", per);
        let scene = parse_scene(&text, &path).expect("peer scene");
        assert_eq!(scene.world.particles.len(), n);
    }
}

#[test]
fn lattice_count_order_and_determinism() {
    let lattice = |seed: u64| {
        edit(
            "positions = [[0.002, 0.002, 0.002], [0.005, 0.005, 0.005]]\nvelocities = [[0.0, 0.0, -1.0], [0.0, 0.0, 0.0]]",
            &format!("lattice = {{ spacing = 0.0022, count = [4, 3, 2], jitter = 0.05, seed = {seed} }}\nvelocity = [0.0, 0.0, -0.5]"),
        )
    };
    let a = parse_scene(&lattice(7), Path::new("a.toml")).expect("lattice");
    let b = parse_scene(&lattice(7), Path::new("b.toml")).expect("lattice");
    let c = parse_scene(&lattice(8), Path::new("c.toml")).expect("lattice");
    let pa = &a.world.particles;
    assert_eq!(pa.len(), 24);
    assert_eq!(pa.pos, b.world.particles.pos, "same seed, same positions");
    assert_ne!(pa.pos, c.world.particles.pos, "another seed moves them");
    // Default origin: domain.min + spacing/2; x fastest, then y, then z; jitter <= 5%.
    let amp = 0.05 * 0.0022 + 1e-9;
    for (p, x) in pa.pos.iter().enumerate() {
        let (i, j, k) = (p % 4, (p / 4) % 3, p / 12);
        let site = [i, j, k].map(|s| 0.0011 + 0.0022 * s as f64);
        for c in 0..3 {
            assert!(
                (x[c] as f64 - site[c]).abs() <= amp,
                "particle {p} axis {c}: {} vs {}",
                x[c],
                site[c]
            );
        }
        assert_eq!(&pa.vel[p][..3], &[0.0, 0.0, -0.5]);
    }
}

#[test]
fn lattice_reproduces_the_peer_generator() {
    // gen_scene.py settle: spacing 1.1 d, jitter 0.04 d, seed 1, origin s/2; its first 45
    // particles are in the fixture, printed with 10 significant digits. Positions are f32,
    // so they agree to one f32 ulp; a wrong seed or key would be off by the jitter, 8e-5 m.
    let text = edit(
        "max = [0.01, 0.01, 0.01]",
        "max = [0.088, 0.088, 0.0286]",
    )
    .replace(
        "positions = [[0.002, 0.002, 0.002], [0.005, 0.005, 0.005]]\nvelocities = [[0.0, 0.0, -1.0], [0.0, 0.0, 0.0]]",
        &format!("lattice = {{ spacing = 0.0022, count = [40, 40, 13], jitter = {}, seed = 1 }}", 0.08e-3 / 2.2e-3),
    );
    let scene = parse_scene(&text, Path::new("settle.toml")).expect("settle lattice");
    assert_eq!(scene.world.particles.len(), 20_800);
    let reference = std::fs::read_to_string(
        workspace_root().join("tests/fixtures/scenes/settle_20k_head.xyzr"),
    )
    .expect("fixture");
    let rows: Vec<Vec<f64>> = reference
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            l.split_whitespace()
                .map(|x| x.parse().expect("number"))
                .collect()
        })
        .collect();
    assert_eq!(rows.len(), 45);
    for (p, row) in rows.iter().enumerate() {
        for c in 0..3 {
            let got = scene.world.particles.pos[p][c] as f64;
            assert!(
                (got - row[c]).abs() <= f32::EPSILON as f64 * row[c].abs(),
                "particle {p} axis {c}: {got} vs {}",
                row[c]
            );
        }
    }
}

#[test]
fn auto_dt_is_the_timestep_report_choice() {
    let text = edit("dt = 1e-5", "dt = \"auto\"").replace("steps = 100", "duration = 0.01");
    let scene = parse_scene(&text, Path::new("auto.toml")).expect("auto dt");
    assert!(scene.dt_auto);
    let report = timestep_report(&scene.world);
    assert_eq!(scene.world.dt, report.auto_dt);
    assert_eq!(scene.timestep, report);
    assert_eq!(scene.run.steps, (0.01 / report.auto_dt).ceil() as u64);
    assert!(scene.summary().contains("(auto)"));
    // Omitting dt means auto as well.
    let text = edit("dt = 1e-5\n", "");
    let scene = parse_scene(&text, Path::new("auto.toml")).expect("auto dt");
    assert!(scene.dt_auto);
}

#[test]
fn repository_scenes_all_parse() {
    let dir = workspace_root().join("scenes");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    paths.sort();
    // A scene starting from an earlier run (`[initial] from`) is read from a stage of one
    // glass bead standing in for that run's.
    let stage = std::env::temp_dir().join(format!("grains-repo-stage-{}", std::process::id()));
    std::fs::create_dir_all(&stage).expect("stage dir");
    std::fs::write(
        stage.join("stage.csv"),
        format!(
            "# pairs: glass|glass=0\n{}\n0,glass,0.001,0,0,0.03,0,0,0,0,0,0\n",
            grains_core::stage::STAGE_HEADER
        ),
    )
    .expect("stage");
    let mut failures = Vec::new();
    for p in &paths {
        let text = std::fs::read_to_string(p).expect("scene");
        let parsed = match text.find("[initial]\nfrom = ") {
            None => load_scene(p).map(|_| ()),
            Some(_) => {
                let line = text
                    .lines()
                    .find(|l| l.starts_with("from = "))
                    .expect("from");
                let text = text.replace(line, &format!("from = {:?}", stage.to_string_lossy()));
                grains_scene::parse_scene(&text, p).map(|_| ())
            }
        };
        if let Err(e) = parsed {
            failures.push(e.to_string());
        }
    }
    assert!(
        failures.is_empty(),
        "scenes that do not parse:\n{}",
        failures.join("\n")
    );
}

/// `extra` takes a table or an array of tables: every law in it joins the chain, in order (a
/// law twice in the list is refused: row `extra_twice`).
#[test]
fn extra_takes_a_list_of_laws() {
    let text = format!(
        "{VALID}extra = [{{ law = \"linear_adhesion\", detach_force = 1e-3, detach_length = 1e-5 }}, {{ law = \"lubrication\", viscosity = 1e-3, min_gap = 1e-7, max_gap = 1e-4 }}]\n"
    );
    let (_, r) = load_text("extra_list", &text);
    let scene = r.unwrap_or_else(|e| panic!("{e}"));
    let chain = &scene.world.table.chains[scene.world.table.sphere_chain[0] as usize];
    assert_eq!(
        chain.laws,
        [
            LawKind::Hertz,
            LawKind::Viscous,
            LawKind::CundallStrack,
            LawKind::LinearAdhesion,
            LawKind::Lubrication
        ]
    );
}

/// `simulation.sphere_orientation`: off unless asked (the shape table's sphere then keeps its
/// orientation), on with `true` (anything but a boolean is refused: row `orient-bad`).
#[test]
fn sphere_orientation_is_off_unless_asked() {
    let (_, r) = load_text("orient-default", VALID);
    let scene = r.expect("the valid scene loads");
    assert!(!scene.world.particles.sphere_orientation());
    assert!(!scene.world.particles.shape_table()[0].turns());
    assert!(scene
        .summary()
        .contains("orientation none kept for spheres"));
    let on = edit("steps = 100", "steps = 100\nsphere_orientation = true");
    let scene = load_text("orient-on", &on).1.expect("the scene loads");
    assert!(scene.world.particles.sphere_orientation());
    assert!(scene.world.particles.shape_table()[0].turns());
    assert!(scene.summary().contains("orientation spheres' tracked"));
}

/// The `cundall_strack` parameters of material pair (0, 0) in the first chain, read from the
/// pair table at the offset the chain's layout gives.
fn cundall_strack_params(w: &grains_core::World) -> CundallStrackParams {
    let chain = &w.table.chains[w.table.sphere_chain[0] as usize];
    let k = chain
        .laws
        .iter()
        .position(|&l| l == LawKind::CundallStrack)
        .expect("a cundall_strack law");
    let (po, pw, _, _) = chain.layout().laws[k];
    *bytemuck::from_bytes(bytemuck::cast_slice(&w.table.record(0)[po..po + pw]))
}
