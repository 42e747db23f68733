//! `grains export SCENE` or `grains export OUT`: the state a run left in its checkpoint,
//! written as pack files (`x y z r vx vy vz`, one sphere a line), one per material, so that a
//! later scene can start from it (`[[particles]] file = ...`): a bed filled by one scene,
//! compressed or discharged by the next. Given the run's output folder, the spheres of its
//! `stage.csv` (written beside each checkpoint); given its scene, the checkpoint read with the
//! scene's world.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;
use grains_core::shapes::KIND_SPHERE;

/// Arguments of `grains export`.
#[derive(Args, Debug, Clone)]
pub struct ExportArgs {
    /// The scene whose run is exported (its materials name the files), or the run's output
    /// folder (its stage.csv).
    pub scene: PathBuf,
    /// The run's output directory (default: the scene's `[output] dir`).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// What to write: `pack`, pack files `OUT/export/<material>.pack`.
    #[arg(long, default_value = "pack")]
    pub format: String,
    /// The overrides the run was given (`--set PATH=VALUE`, as in its `overrides.txt`).
    #[arg(long = "set", value_name = "PATH=VALUE")]
    pub set: Vec<grains_scene::overrides::Override>,
}

/// Write the pack files of the run's checkpoint; the paths written.
pub fn export(args: &ExportArgs) -> Result<Vec<PathBuf>> {
    if args.format != "pack" {
        bail!(
            "--format {}: expected pack (pack files, x y z r vx vy vz a line)",
            args.format
        );
    }
    if args.scene.is_dir() {
        return export_stage(&args.scene);
    }
    let scene = grains_scene::load_scene_with(&args.scene, None, &args.set)?;
    let out = args.out.clone().unwrap_or_else(|| scene.output.dir.clone());
    let path = out.join(grains_io::CHECKPOINT_FILE);
    if !path.exists() {
        bail!(
            "{}: no checkpoint to export; a run writes one with [output] checkpoint_every (at \
             its end too) or when stopped with Ctrl-C",
            path.display()
        );
    }
    let (fingerprint, state) = grains_io::read_checkpoint(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let w = &scene.world;
    if fingerprint != w.fingerprint() {
        bail!(
            "{} was written by a run of another scene (or of this one changed since, or with \
             other overrides: see its overrides.txt); export it with the scene and the --set \
             that wrote it",
            path.display()
        );
    }
    let dir = out.join("export");
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let p = &w.particles;
    let mut written = Vec::new();
    for (m, mat) in w.materials.iter().enumerate() {
        let lines: Vec<String> = (0..state.pos.len())
            .filter(|&i| p.material[i] as usize == m)
            // Spheres still in the run: not removed or dormant (negative radius), not mesh
            // triangles, clumps or capsules.
            .filter(|&i| state.pos[i][3] > 0.0 && p.shape_of(i).kind == KIND_SPHERE)
            .map(|i| {
                let (x, v) = (state.pos[i], state.vel[i]);
                format!(
                    "{:e} {:e} {:e} {:e} {:e} {:e} {:e}",
                    x[0], x[1], x[2], x[3], v[0], v[1], v[2]
                )
            })
            .collect();
        if lines.is_empty() {
            continue;
        }
        let what = format!("step {} of {}", state.step, args.scene.display());
        written.push(write_pack(&dir, &mat.name, &what, &lines)?);
    }
    Ok(written)
}

/// Write `DIR/<material>.pack` of `lines`, from `what`; its path.
fn write_pack(
    dir: &std::path::Path,
    material: &str,
    what: &str,
    lines: &[String],
) -> Result<PathBuf> {
    let file = dir.join(format!("{material}.pack"));
    let text = format!(
        "# {} spheres of \"{material}\" at {what}: x y z r vx vy vz (SI)\n{}\n",
        lines.len(),
        lines.join("\n")
    );
    std::fs::write(&file, text).with_context(|| format!("cannot write {}", file.display()))?;
    Ok(file)
}

/// The pack files of the spheres of `out`'s stage.csv, in `out/export`, one per material in the
/// order they first appear.
fn export_stage(out: &std::path::Path) -> Result<Vec<PathBuf>> {
    let path = out.join(grains_core::stage::STAGE_CSV);
    let text = std::fs::read_to_string(&path).with_context(|| {
        format!(
            "cannot read {}: export a run's folder once it has written a checkpoint ([output] \
             checkpoint_every, at its end too), or give its scene",
            path.display()
        )
    })?;
    let (rows, _) = grains_core::stage::parse_stage(&text)
        .map_err(|(line, what)| anyhow::anyhow!("{}:{line}: {what}", path.display()))?;
    let mut by_material: Vec<(String, Vec<String>)> = Vec::new();
    for (_, r) in rows {
        let v = r.values;
        let line = format!(
            "{:e} {:e} {:e} {:e} {:e} {:e} {:e}",
            v[1], v[2], v[3], v[0], v[4], v[5], v[6]
        );
        match by_material.iter_mut().find(|(m, _)| *m == r.material) {
            Some((_, lines)) => lines.push(line),
            None => by_material.push((r.material, vec![line])),
        }
    }
    let dir = out.join("export");
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let what = format!("the stage of {}", out.display());
    by_material
        .iter()
        .map(|(m, lines)| write_pack(&dir, m, &what, lines))
        .collect()
}
