//! Stages: a scene starting from where an earlier run of another scene stopped
//! (`[initial] from`). A stage that changes nothing continues bit for bit; one that removes a
//! wall carries the contact history where the chains are the same and not where they differ;
//! materials are matched by name; bad stages are refused at their key.

use std::path::{Path, PathBuf};

use grains_tests::workspace_root;

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("grains-stage-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// A bed of 144 glass beads settling in a steel box with a second floor plane below the first
/// (a wall a later stage may remove without changing anything the beads touch), `steps`
/// steps, checkpointed at its end; `particles` is the block the beads come from.
fn bed_scene(steps: u64, particles: &str, friction: f64, materials_reversed: bool) -> String {
    let glass = "[[material]]\nname = \"glass\"\ndensity = 2500.0\nyoung = 5.0e6\npoisson = 0.3\n";
    let steel = "[[material]]\nname = \"steel\"\ndensity = 7800.0\nyoung = 5.0e6\npoisson = 0.3\n";
    let materials = if materials_reversed {
        format!("{steel}\n{glass}")
    } else {
        format!("{glass}\n{steel}")
    };
    format!(
        r#"
[simulation]
steps = {steps}
dt = 1e-5
gravity = [0.0, 0.0, -9.81]

[domain]
min = [-0.01, -0.01, -0.002]
max = [0.01, 0.01, 0.03]

{materials}
{particles}

[[wall]]
material = "steel"
box = {{ min = [-0.01, -0.01, 0.0], max = [0.01, 0.01, 0.03] }}

WALL

[[interaction]]
between = ["glass", "glass"]
normal = {{ law = "hertz" }}
damping = {{ law = "viscous", restitution = 0.5 }}
tangential = {{ law = "cundall_strack", friction = {friction} }}

[[interaction]]
between = ["glass", "steel"]
normal = {{ law = "hertz" }}
damping = {{ law = "viscous", restitution = 0.5 }}
tangential = {{ law = "cundall_strack", friction = 0.5 }}

[output]
every_steps = 500
checkpoint_every_steps = 100000
formats = ["csv"]
"#
    )
}

const BEADS: &str = "[[particles]]\nmaterial = \"glass\"\nradius = 0.001\nlattice = { spacing = 0.0022, count = [6, 6, 4], origin = [-0.0055, -0.0055, 0.0012], jitter = 0.05, seed = 9 }";
const LOWER_FLOOR: &str =
    "[[wall]]\nmaterial = \"steel\"\nplane = { point = [0.0, 0.0, -0.001], normal = [0.0, 0.0, 1.0] }";

fn run(scene_text: &str, dir: &Path, name: &str) -> PathBuf {
    let scene = dir.join(format!("{name}.toml"));
    std::fs::write(&scene, scene_text).expect("scene");
    let out = dir.join(name);
    grains_tests::run_scene_file(&scene, "cpu", &out);
    out
}

/// `particles.csv`'s rows of the last frame, without step and time.
fn last_frame(out: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(out.join("particles.csv")).expect("particles.csv");
    let rows: Vec<&str> = text.lines().skip(1).collect();
    let last = rows
        .last()
        .expect("rows")
        .split(',')
        .next()
        .expect("step")
        .to_string();
    rows.iter()
        .filter(|r| r.split(',').next() == Some(last.as_str()))
        .map(|r| r.splitn(3, ',').nth(2).expect("columns").to_string())
        .collect()
}

fn staged(from: &Path, steps: u64, wall: &str, friction: f64, reversed: bool) -> String {
    let initial = format!("[initial]\nfrom = {:?}", from.to_string_lossy());
    bed_scene(steps, &initial, friction, reversed).replace("WALL", wall)
}

/// A bed settles for 1000 steps; a second stage of the same scene from its checkpoint runs
/// 1000 more: its last frame is, bit for bit, the frame of one run of 2000 steps (positions,
/// velocities, spins and forces of all 144 beads).
#[test]
fn a_stage_that_changes_nothing_continues_bit_for_bit() {
    let dir = temp_dir("same");
    let first = run(
        &bed_scene(1000, BEADS, 0.5, false).replace("WALL", LOWER_FLOOR),
        &dir,
        "fill",
    );
    assert!(first.join("stage.csv").exists(), "the run wrote its stage");
    let whole = run(
        &bed_scene(2000, BEADS, 0.5, false).replace("WALL", LOWER_FLOOR),
        &dir,
        "whole",
    );
    let second = run(
        &staged(&first, 1000, LOWER_FLOOR, 0.5, false),
        &dir,
        "second",
    );
    let (a, b) = (last_frame(&whole), last_frame(&second));
    assert_eq!(a.len(), 144);
    assert_eq!(
        a, b,
        "the second stage's last frame differs from the single run's"
    );
}

/// A stage removing the lower floor (which no bead touches, but the world changes) starts
/// from a fresh state with the beads' contact histories carried: every bead pair in contact
/// in both states with the chain unchanged, its history words those of the checkpoint. With
/// the beads' friction changed, none is carried. The stage's materials, declared in the other
/// order, are matched by name.
#[test]
fn a_stage_carries_contact_history_where_the_chains_are_the_same() {
    let dir = temp_dir("carry");
    let fill = bed_scene(1500, BEADS, 0.5, false).replace("WALL", LOWER_FLOOR);
    let first = run(&fill, &dir, "fill");
    let (_, old) = grains_io::read_checkpoint(&first.join("checkpoint.bin")).expect("checkpoint");
    // The bead pairs in contact at the checkpoint, by the first stage's own world.
    let fill_world = grains_scene::parse_scene(&fill, &dir.join("fill.toml"))
        .expect("fill")
        .world;
    let mut b = grains_core::CpuBackend::from_state(fill_world, old.clone()).expect("resume");
    let old_pairs = grains_core::Backend::contacts(&mut b).pairs as usize;
    for (friction, reversed, carried_some) in
        [(0.5, false, true), (0.5, true, true), (0.3, false, false)]
    {
        let text = staged(&first, 10, "", friction, reversed);
        let path = dir.join("stage.toml");
        let scene = grains_scene::parse_scene(&text, &path).expect("staged scene");
        let init = scene.initial.as_ref().expect("an initial stage");
        assert_eq!(init.ids.len(), 144);
        let glass = scene
            .world
            .materials
            .iter()
            .position(|m| m.name == "glass")
            .unwrap();
        assert!(scene.world.particles.material[..144]
            .iter()
            .all(|&m| m as usize == glass));
        let (state, carried) = grains_cli::stage::stage_state(&scene, init).expect("stage state");
        eprintln!(
            "friction {friction}, materials reversed {reversed}: {carried} of {old_pairs} bead contacts carried"
        );
        if !carried_some {
            assert_eq!(carried, 0, "a changed chain carries nothing");
            continue;
        }
        // At the same positions, every bead pair in contact at the checkpoint is again.
        assert_eq!(carried, old_pairs, "every bead contact is carried");
        // A carried history is the checkpoint's: the tangential springs are not zero.
        let nonzero = state.history.iter().filter(|&&h| h != 0.0).count();
        assert!(nonzero > 0, "the carried histories hold the springs");
    }
}

/// Bad stages are refused at `initial.from`: a folder with no stage, a stage whose material
/// the scene lacks (naming the file's line), a stage file that is not one.
#[test]
fn bad_stages_are_refused_at_their_key() {
    let dir = temp_dir("bad");
    let path = dir.join("stage.toml");
    let nothing = staged(&dir.join("nothing"), 10, "", 0.5, false);
    let e = grains_scene::parse_scene(&nothing, &path)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        e.contains("initial.from") && e.contains("stage.csv: cannot read it"),
        "{e}"
    );
    assert!(e.contains("stage.toml:"), "located: {e}");
    let fake = dir.join("fake");
    std::fs::create_dir_all(&fake).unwrap();
    std::fs::write(
        fake.join("stage.csv"),
        format!(
            "# pairs: sand|sand=00\n{}\n0,sand,0.001,0,0,0.001,0,0,0,0,0,0\n",
            grains_core::stage::STAGE_HEADER
        ),
    )
    .unwrap();
    let e = grains_scene::parse_scene(&staged(&fake, 10, "", 0.5, false), &path)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        e.contains("stage.csv:3: particle 0 is of material `sand`"),
        "{e}"
    );
    std::fs::write(fake.join("stage.csv"), "x,y,z\n1,2,3\n").unwrap();
    let e = grains_scene::parse_scene(&staged(&fake, 10, "", 0.5, false), &path)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(e.contains("stage.csv:1: expected the header"), "{e}");
    let _ = workspace_root;
}
