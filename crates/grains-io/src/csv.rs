//! CSV rows for `particles.csv` and `energy.csv` (docs/architecture.md).

use std::fmt::Write as _;

use grains_core::{ContactRecord, EnergyReport, Snapshot};

/// Header of `particles.csv`, a contract with scripts outside the project.
pub const PARTICLES_HEADER: &str = "step,time,id,x,y,z,vx,vy,vz,wx,wy,wz,fx,fy,fz,tx,ty,tz,radius";

/// The columns `particles.csv` adds with the `stress` format: the virial stress (Pa), compression
/// negative.
pub const PARTICLES_STRESS_COLUMNS: &str = ",sxx,syy,szz,sxy,sxz,syz";

/// The columns `particles.csv` adds in a scene with `[[cells]]`: each particle's generation (0
/// for the first cells) and the id of the cell it was born of, -1 for none.
pub const PARTICLES_CELL_COLUMNS: &str = ",generation,parent";

/// Header of `cells.csv`: per division step, the cells born and the colony's count after it.
pub const CELLS_HEADER: &str = "step,time,births,cells";

/// Header of `stress.csv`: per output step, the mean stress (Pa) of `[output] stress_region`
/// (the particles whose centres lie in it, their count and spheres' volume, and the region's
/// volume, m^3).
pub const STRESS_HEADER: &str = "step,time,particles,solid_volume,volume,sxx,syy,szz,sxy,sxz,syz";

/// Header of `energy.csv`, a contract with scripts outside the project.
pub const ENERGY_HEADER: &str =
    "step,time,kinetic,rotational,gravitational,elastic,damping_dissipated,friction_dissipated,total,removed,wall_work,kinematic_work,inserted";

/// Header of `contacts.csv`: one row per active contact per output step; `j = -1 - w` for wall
/// `w`; `fn` is the normal force (N, positive when repulsive), `ft` the tangential force's
/// magnitude (N), `n` the unit normal from `i` to `j`; `bond` is 1 for a bond (a `[[bond]]`
/// pair, which acts at any distance), 0 for a contact; `ft` the tangential force on `i` as a
/// vector (N); `f` the whole force on `i` (N); `v` the velocity of `j`'s surface relative to
/// `i`'s at the contact point (m/s); `t` the moment of the force about `i`'s centre (N m).
pub const CONTACTS_HEADER: &str =
    "step,time,i,j,overlap,fn,ft,nx,ny,nz,bond,ftx,fty,ftz,fx,fy,fz,vx,vy,vz,tx,ty,tz";

/// Appends one `contacts.csv` row per record.
pub(crate) fn contact_rows(out: &mut String, step: u64, time: f64, records: &[ContactRecord]) {
    for r in records {
        let _ = write!(out, "{step},{time},{},{}", r.i, r.j);
        for v in [r.overlap, r.normal_force, r.tangential_force]
            .into_iter()
            .chain(r.normal)
        {
            out.push(',');
            push_f32(out, v);
        }
        out.push_str(if r.bond { ",1" } else { ",0" });
        for v in r
            .tangential
            .into_iter()
            .chain(r.force())
            .chain(r.relative_velocity)
            .chain(r.torque)
        {
            out.push(',');
            push_f32(out, v);
        }
        out.push('\n');
    }
}

/// Appends `v` in Rust's shortest round-trip form, so equal f32 state gives equal bytes and
/// parsing gives the same bits back. Plain notation in the usual range keeps the file readable;
/// outside it plain notation would be long (`1e-30` has 30 zeros), so exponent form is used.
pub(crate) fn push_f32(out: &mut String, v: f32) {
    let a = v.abs();
    // Writing into a String cannot fail.
    let _ = if a == 0.0 || (1e-4..1e7).contains(&a) || !a.is_finite() {
        write!(out, "{v}")
    } else {
        write!(out, "{v:e}")
    };
}

/// Appends one `particles.csv` row per particle of `snap` to `out`, starting at particle `i0`
/// and stopping once `out` holds about `limit` bytes; returns the next particle to write.
///
/// Rows go out in chunks so a 100k-particle frame never sits whole in memory.
/// With `stress`, each row ends with the particle's virial stress (Pa):
/// [`PARTICLES_STRESS_COLUMNS`].
pub(crate) fn particle_rows(
    out: &mut String,
    snap: &Snapshot,
    ids: Option<&[u64]>,
    extra: crate::PerParticle<'_>,
    i0: usize,
    limit: usize,
) -> usize {
    let n = snap.pos.len();
    let mut i = i0;
    while i < n && out.len() < limit {
        let id = ids.map_or(i as u64, |ids| ids[i]);
        let _ = write!(out, "{},{},{}", snap.step, snap.time, id);
        let p = snap.pos[i];
        let groups: [&[f32]; 5] = [
            &p[..3],
            &snap.vel[i][..3],
            &snap.omega[i][..3],
            &snap.force[i][..3],
            &snap.torque[i][..3],
        ];
        for v in groups.into_iter().flatten() {
            out.push(',');
            push_f32(out, *v);
        }
        out.push(',');
        push_f32(out, p[3]);
        if let Some(t) = extra.stress {
            for v in t[i] {
                out.push(',');
                push_f32(out, v as f32);
            }
        }
        if let Some((generation, parent)) = extra.lineage {
            let _ = write!(out, ",{},{}", signed(generation[i]), signed(parent[i]));
        }
        out.push('\n');
        i += 1;
    }
    i
}

/// A lineage word as written: -1 for none (`u32::MAX`).
pub(crate) fn signed(v: u32) -> i64 {
    if v == u32::MAX {
        -1
    } else {
        v as i64
    }
}

/// One `stress.csv` line, newline included.
pub(crate) fn stress_row(step: u64, time: f64, r: &grains_core::stress::RegionStress) -> String {
    let mut s = format!(
        "{step},{time},{},{:e},{:e}",
        r.particles, r.solid_volume, r.volume
    );
    for v in r.stress {
        s.push_str(&format!(",{v:e}"));
    }
    s.push('\n');
    s
}

/// One `energy.csv` line, newline included. `{:e}` on f64 is shortest round-trip too.
pub(crate) fn energy_row(step: u64, time: f64, e: &EnergyReport) -> String {
    format!(
        "{step},{time},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{:e}\n",
        e.kinetic,
        e.rotational,
        e.gravitational,
        e.elastic,
        e.damping_dissipated,
        e.friction_dissipated,
        e.total,
        e.removed,
        e.wall_work,
        e.kinematic_work,
        e.inserted
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f32_formatting_round_trips_bitwise() {
        let values = [
            0.0f32,
            -0.0,
            1.0,
            -1.5,
            0.1,
            1e-30,
            -1e-30,
            1e-4,
            9.99e-5,
            1e7,
            3.4028235e38,
            f32::MIN_POSITIVE,
            1e-45,
            123456.79,
            f32::INFINITY,
        ];
        for v in values {
            let mut s = String::new();
            push_f32(&mut s, v);
            let back: f32 = s.parse().unwrap();
            assert_eq!(back.to_bits(), v.to_bits(), "{v} written as {s}");
            assert!(s.len() <= 16, "{v} written as {s}: too long");
        }
    }
}
