//! Servo walls: a plane whose velocity along its normal is set to hold a target force (or a
//! stress on an area) that the particles exert on it, for confined compression (oedometer,
//! triaxial and shear-box tests).
//!
//! Every `every` steps, the wall's load `F` ([`crate::backend::wall_loads`], the same sum on
//! both backends) is compared with the target along the wall's inward normal `n`: the wall
//! moves along `n` at `v = clamp(gain (F . n - target), -max_speed, max_speed)`, so a bed that
//! pushes back less than the target (`F . n` above a negative target) is pressed further. The
//! target is negative in compression (`stress * area`, or `force`), as `F . n` is when the
//! particles push the wall back. A proportional controller on a quasi-static bed settles where
//! `F . n` meets the target; it is stable while `gain k every dt` stays below about 1, with `k`
//! the bed's stiffness against the wall (N/m).
//!
//! The velocity changes between steps, host-side, at the same steps on either backend: the
//! wall's motion is re-based at its pose then ([`rebase`]), and the steps between are ordinary
//! steps of a moving wall, so the ledger books the servo's work as `wall_work`.

use crate::backend::{Backend, WallLoad};
use crate::kernel_types::Wall;

/// A servo on one wall.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Servo {
    /// The wall, in the world's walls.
    pub wall: usize,
    /// The load to hold along the wall's inward normal (N), negative in compression.
    pub target: f64,
    /// Velocity per newton of error (m/s/N).
    pub gain: f64,
    /// Fastest the wall moves (m/s).
    pub max_speed: f64,
    /// Steps between updates of its velocity.
    pub every: u64,
}

impl Servo {
    /// The wall's velocity for its `load` now, given where it stands (`wall`).
    pub fn velocity(&self, wall: &Wall, load: &WallLoad) -> [f32; 3] {
        let n = wall.normal.map(f64::from);
        let along: f64 = (0..3).map(|k| load.force[k] * n[k]).sum();
        let v = (self.gain * (along - self.target)).clamp(-self.max_speed, self.max_speed);
        n.map(|x| (x * v) as f32)
    }

    /// The velocity it starts with, before any load: pressing at full speed towards a target
    /// in compression, away from one in tension.
    pub fn initial_velocity(&self, wall: &Wall) -> [f32; 3] {
        self.velocity(wall, &WallLoad::default())
    }
}

/// Give `wall` (whose motion counts from `origin`) the velocity `velocity` from now on: its
/// origin becomes its pose now and its count of steps moved starts again, so that
/// `wall_motion`'s pose, `origin + velocity * moved dt`, continues from where it stands.
pub fn rebase(wall: &mut Wall, origin: &mut Wall, velocity: [f32; 3]) {
    *origin = Wall {
        point: wall.point,
        normal: wall.normal,
        center: wall.center,
        ..*origin
    };
    wall.moved = 0;
    wall.velocity = velocity;
}

/// Update the servos that are due after `step` steps: each one's wall steered to the velocity
/// its load asks for. Returns whether any was.
pub fn steer(backend: &mut dyn Backend, servos: &[Servo], step: u64) -> bool {
    let due: Vec<&Servo> = servos
        .iter()
        .filter(|s| step.is_multiple_of(s.every.max(1)))
        .collect();
    if due.is_empty() {
        return false;
    }
    let loads = backend.wall_loads();
    let walls = backend.walls();
    for s in due {
        if let (Some(w), Some(l)) = (walls.get(s.wall), loads.get(s.wall)) {
            backend.steer_wall(s.wall, s.velocity(w, l));
        }
    }
    true
}
