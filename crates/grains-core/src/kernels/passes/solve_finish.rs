//! The end of an implicit step on the GPU. WGSL twin: `shaders/passes/solve_finish.wgsl`.

use crate::kernel_types::{SolveParams, StepParams};
use crate::kernels::solve::{MODE_OVERDAMPED, MODE_UNDERDAMPED};

/// Invocation `gid`: a free particle's velocity and spin from its solution `x`.
#[allow(clippy::too_many_arguments)]
pub fn solve_finish(
    step: &StepParams,
    params: &SolveParams,
    vel: &mut [f32; 4],
    omega: &mut [f32; 4],
    pos: &[f32; 4],
    torque: &[f32; 4],
    rot_drag: f32,
    x: &[f32; 4],
) {
    if !(vel[3] > 0.0 && pos[3] > 0.0) {
        return;
    }
    let dt = step.dt;
    let (x, t) = ([x[0], x[1], x[2]], [torque[0], torque[1], torque[2]]);
    let mut nv = x.map(|u| u / dt);
    let mut no = [0.0f32; 3];
    if params.mode == MODE_OVERDAMPED {
        nv = x;
        if rot_drag > 0.0 {
            no = t.map(|t| t / rot_drag);
        }
    } else if params.mode == MODE_UNDERDAMPED {
        nv = std::array::from_fn(|k| vel[k] + x[k] * dt);
        no = std::array::from_fn(|k| omega[k] + t[k] * omega[3] * dt);
    }
    if step.planar != 0 {
        nv[2] = 0.0;
        no = [0.0, 0.0, no[2]];
    }
    *vel = [nv[0], nv[1], nv[2], vel[3]];
    *omega = [no[0], no[1], no[2], omega[3]];
}
