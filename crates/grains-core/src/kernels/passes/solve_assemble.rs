//! The implicit solve's blocks per record. WGSL twin: `shaders/passes/solve_assemble.wgsl`.

use crate::kernel_types::{MatBlock, SolveParams, StepParams, Wall};
use crate::kernels::solve::NO_BLOCK;
use crate::kernels::sources::{fixed, list_record_pair, SourceKind};

/// The chain tables and records the assembly reads.
#[derive(Clone, Copy)]
pub struct AssembleView<'a> {
    pub step: &'a StepParams,
    pub params: &'a SolveParams,
    pub pair_start: &'a [u32],
    pub pair_j: &'a [u32],
    pub nbr_slot: &'a [u32],
    pub history: &'a [f32],
    pub material: &'a [u32],
    pub walls: &'a [Wall],
    pub sphere_chain: &'a [u32],
    pub wall_chain: &'a [u32],
    pub fixed_chain: &'a [u32],
    pub fixed_pairs: &'a [[u32; 2]],
    pub fixed_history: &'a [f32],
    /// Where each chain keeps its matrix record (words), `NO_BLOCK` for none.
    pub matrix_offset: &'a [u32],
}

/// The blocks of the record at word `at` of `words`, owned by `owner`.
fn block_at(words: &[f32], at: usize, owner: u32) -> MatBlock {
    MatBlock {
        normal: [words[at], words[at + 1], words[at + 2]],
        partner: owner,
        gamma_n: words[at + 3],
        gamma_t: words[at + 4],
        stiffness_n: words[at + 5],
        stiffness_t: words[at + 6],
    }
}

fn no_block() -> MatBlock {
    MatBlock {
        partner: NO_BLOCK,
        ..Default::default()
    }
}

impl AssembleView<'_> {
    /// The chain of particle `p`'s record of partner `q` (a wall past the particles), as the
    /// list's sources find it.
    fn record_chain(&self, p: u32, q: u32) -> u32 {
        let (src, pr) = list_record_pair(p, q, (self.walls, &[]), self.step, self.material);
        let map = match src {
            SourceKind::Wall => self.wall_chain,
            _ => self.sphere_chain,
        };
        map[pr.table as usize]
    }
}

/// Invocation `gid`: particle `gid`'s records' blocks into `mat_block`, and fixed pair `gid`'s
/// into `mat_fixed`.
pub fn solve_assemble(
    gid: usize,
    v: &AssembleView<'_>,
    mat_block: &mut [MatBlock],
    mat_fixed: &mut [MatBlock],
) {
    if gid < v.step.n_particles as usize {
        for r in v.pair_start[gid]..v.pair_start[gid + 1] {
            let r = r as usize;
            let a = v.nbr_slot[r];
            let mut blk = no_block();
            if a != 0 {
                let off = v.matrix_offset[v.record_chain(gid as u32, v.pair_j[r]) as usize];
                if off != NO_BLOCK {
                    let at = (a - 1) * v.params.history_words + off;
                    blk = block_at(v.history, at as usize, gid as u32);
                }
            }
            mat_block[r] = blk;
        }
    }
    if gid < v.step.n_fixed as usize {
        let pr = fixed::source_pair(gid, v.step, v.material, v.fixed_pairs);
        let off = v.matrix_offset[v.fixed_chain[pr.table as usize] as usize];
        mat_fixed[gid] = if off != NO_BLOCK {
            let at = gid as u32 * v.params.fixed_stride + off;
            block_at(v.fixed_history, at as usize, pr.p)
        } else {
            no_block()
        };
    }
}
