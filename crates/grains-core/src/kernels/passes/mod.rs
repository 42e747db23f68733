//! Per-step passes, each the CPU twin of one WGSL entry point of the same name
//! (`shaders/passes/<stem>.wgsl`). Each function does the work of one invocation (`gid`), so the
//! CPU backend is a (parallel) loop over `gid` and the GPU a dispatch. Parameters are the WGSL
//! bindings of the same names; a binding an invocation writes only at `gid` is passed as that
//! element (`&mut T`), which is what lets the CPU backend run invocations on several threads.

pub mod applied_power;
pub mod cell_count;
pub mod cell_scatter;
pub mod clump_gather;
pub mod clump_place;
pub mod contact;
pub mod gather;
pub mod gather_kick;
pub mod integrate_first_half;
pub mod integrate_second_half;
pub mod kinematic_power;
pub mod mesh_motion;
pub mod pair_count;
pub mod pair_fill;
pub mod pair_record;
pub mod prefix_sum;
pub mod scan_add;
pub mod scan_blocks;
pub mod shell_edges;
pub mod shell_gather;
pub mod shell_volume;
pub mod slot_carry;
pub mod solve_apply;
pub mod solve_assemble;
pub mod solve_book;
pub mod solve_direction;
pub mod solve_finish;
pub mod solve_start;
pub mod solve_update;
pub mod surface_contact;
pub mod surface_gather;
pub mod wall_motion;
pub mod wall_power;

pub use applied_power::applied_power;
pub use cell_count::cell_count;
pub use cell_scatter::cell_scatter;
pub use clump_gather::clump_gather;
pub use clump_place::clump_place;
pub use contact::{apply_chain, contact, evaluate, ChainRun, EvaluateFn, SlotSink};
pub use gather::gather;
pub use gather_kick::gather_kick;
pub use integrate_first_half::integrate_first_half;
pub use integrate_second_half::integrate_second_half;
pub use kinematic_power::kinematic_power;
pub use mesh_motion::mesh_motion;
pub use pair_count::pair_count;
pub use pair_fill::pair_fill;
pub use pair_record::pair_record;
pub use prefix_sum::prefix_sum;
pub use scan_add::scan_add;
pub use scan_blocks::scan_blocks;
pub use shell_edges::shell_edges;
pub use shell_gather::shell_gather;
pub use shell_volume::shell_volume;
pub use slot_carry::slot_carry;
pub use solve_apply::solve_apply;
pub use solve_assemble::solve_assemble;
pub use solve_book::solve_book;
pub use solve_direction::solve_direction;
pub use solve_finish::solve_finish;
pub use solve_start::solve_start;
pub use solve_update::solve_update;
pub use surface_contact::surface_contact;
pub use surface_gather::surface_gather;
pub use wall_motion::wall_motion;
pub use wall_power::wall_power;

use crate::kernel_types::{GridParams, SphereBody};

/// Cell coordinates of a position: clamped on bounded axes, wrapped on periodic ones.
pub fn cell_coords(grid: &GridParams, x: [f32; 4]) -> [i32; 3] {
    let mut c = [0i32; 3];
    for k in 0..3 {
        let dim = grid.dims[k] as i32;
        let mut ck = ((x[k] - grid.origin[k]) / grid.cell_size[k]).floor() as i32;
        if grid.periodic_mask & (1 << k) != 0 {
            ck = ck.rem_euclid(dim);
        } else {
            ck = ck.clamp(0, dim - 1);
        }
        c[k] = ck;
    }
    c
}

/// Linear index of cell coordinates.
pub fn cell_index(grid: &GridParams, c: [i32; 3]) -> u32 {
    (c[0] as u32) + grid.dims[0] * ((c[1] as u32) + grid.dims[1] * (c[2] as u32))
}

/// Gather particle `p` into the form resolvers read.
pub fn load_sphere(p: usize, pos: &[[f32; 4]], vel: &[[f32; 4]], omega: &[[f32; 4]]) -> SphereBody {
    SphereBody {
        pos: [pos[p][0], pos[p][1], pos[p][2]],
        radius: pos[p][3],
        vel: [vel[p][0], vel[p][1], vel[p][2]],
        inv_mass: vel[p][3],
        omega: [omega[p][0], omega[p][1], omega[p][2]],
        _pad: 0.0,
    }
}
