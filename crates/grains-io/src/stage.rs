//! `stage.csv`: a run's particles where its checkpoint holds them, for a later scene to start
//! from (`[initial] from = "OUT"`, read by the scene crate). Written beside every checkpoint
//! of a run of spheres.
//!
//! Two comment lines, then a header and a row per sphere of the run (dormant, deleted and
//! mesh-wall particles left out):
//!
//! ```text
//! # grains stage: step 15000, time 0.15 s (the state of checkpoint.bin)
//! # pairs: glass|glass=9f0c...,glass|steel=...
//! id,material,radius,x,y,z,vx,vy,vz,wx,wy,wz
//! ```
//!
//! `id` is the particle's index in the run, `material` its material's name; values are f32
//! written in full (read back to the same bits). The `pairs` line gives, for each pair of
//! materials, the signature of the chain two spheres of them meet with
//! ([`grains_core::materials::PairTable::pair_signature`]): a later stage carries a contact's
//! history where its own chain's signature is the same.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

use grains_core::backend::Snapshot;
use grains_core::shapes::KIND_SPHERE;
use grains_core::World;

use crate::IoError;
pub use grains_core::stage::{STAGE_CSV, STAGE_HEADER};

/// Whether a world's runs write a stage file: every particle but the mesh walls' is a sphere.
pub fn stages(world: &World) -> bool {
    let p = &world.particles;
    let n = p.shape.len() - world.triangle_tail();
    (0..n).all(|i| p.shape_of(i).kind == KIND_SPHERE)
}

/// The stage file's text for `world` in the state `snap`.
pub fn stage_text(world: &World, snap: &Snapshot<'_>) -> String {
    let names: Vec<&str> = world.materials.iter().map(|m| m.name.as_str()).collect();
    let mut out = format!(
        "# grains stage: step {}, time {} s (the state of checkpoint.bin)\n",
        snap.step, snap.time
    );
    let nm = names.len();
    let pairs: Vec<(String, String, u64)> = (0..nm)
        .flat_map(|a| (0..nm).map(move |b| (a, b)))
        .map(|(a, b)| {
            let sig = world.table.pair_signature(a, b);
            (names[a].to_string(), names[b].to_string(), sig)
        })
        .collect();
    out.push_str(&grains_core::stage::pairs_line(&pairs));
    out.push('\n');
    out.push_str(STAGE_HEADER);
    out.push('\n');
    let n = snap.pos.len() - world.triangle_tail();
    for i in 0..n {
        let (x, v, w) = (snap.pos[i], snap.vel[i], snap.omega[i]);
        if x[3] <= 0.0 {
            continue;
        }
        let m = world.particles.material.get(i).copied().unwrap_or(0) as usize;
        let _ = writeln!(
            out,
            "{i},{},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?},{:?}",
            names.get(m).copied().unwrap_or("?"),
            x[3],
            x[0],
            x[1],
            x[2],
            v[0],
            v[1],
            v[2],
            w[0],
            w[1],
            w[2]
        );
    }
    out
}

/// Write `OUT/stage.csv` for `world` in the state `snap`, beside its final name and renamed,
/// so a later stage never reads half a file; nothing for a world of other shapes than
/// spheres.
pub fn write_stage(dir: &Path, world: &World, snap: &Snapshot<'_>) -> Result<(), IoError> {
    if !stages(world) {
        return Ok(());
    }
    let path = dir.join(STAGE_CSV);
    let part = dir.join(format!("{STAGE_CSV}.tmp"));
    let text = stage_text(world, snap);
    let mut f = std::fs::File::create(&part).map_err(IoError::create(&part))?;
    f.write_all(text.as_bytes())
        .and_then(|()| f.flush())
        .map_err(IoError::write(&part))?;
    std::fs::rename(&part, &path).map_err(IoError::write(&path))?;
    Ok(())
}
