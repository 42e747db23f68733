//! The layout of the control buffer, the plan and the indirect-dispatch slots, written once:
//! the host reads and writes these words, and the control kernels
//! (`shaders/control/control.wgsl`) get the same constants as WGSL from [`control_wgsl`],
//! put before their common section ([`super::plan::control_source`]).

grains_core::wgsl_constants! { control_wgsl;
    // control: one word each, then the rebuild log ring.
    /// The step count.
    pub(crate) C_STEP: usize = 0;
    /// 1 while this step rebuilds the list.
    pub(crate) C_REBUILD: usize = 1;
    /// Rebuilds so far.
    pub(crate) C_REBUILDS: usize = 2;
    /// 0, or why the batch froze (`FROZEN_*`).
    pub(crate) C_FROZEN: usize = 3;
    /// Entries of the rebuilt list.
    pub(crate) C_TOTAL: usize = 4;
    /// 1 to rebuild at the next step whatever the displacements.
    pub(crate) C_FORCE: usize = 5;
    /// Records of the list.
    pub(crate) C_RECORDS: usize = 6;
    /// The largest record count seen.
    pub(crate) C_MAX_RECORDS: usize = 7;
    /// The largest packed slot count seen.
    pub(crate) C_MAX_SLOTS: usize = 8;
    /// 1 in a guarded run (a faulty particle freezes the batch).
    pub(crate) C_GUARDED: usize = 9;
    /// The rebuild log ring, `LOG_LEN` words.
    pub(crate) C_LOG: usize = 10;
    pub(crate) LOG_LEN: usize = 256;
    /// Words of the control buffer.
    pub(crate) CONTROL_WORDS: usize = C_LOG + LOG_LEN;

    // plan: one word each, then one word per indirect slot.
    pub(crate) P_N: usize = 0;
    pub(crate) P_CELLS: usize = 1;
    /// The skin, as f32 bits.
    pub(crate) P_SKIN: usize = 2;
    /// Workgroups per dimension of a 2-D dispatch.
    pub(crate) P_MAX_DIM: usize = 3;
    /// The first indirect slot of the passes every step runs (after the list-sized ones).
    pub(crate) P_EVERY: usize = 4;
    /// Records (pairs) the per-record buffers hold.
    pub(crate) P_REC_CAPACITY: usize = 5;
    /// How many every-step slots come before `decide` (the first half-step and its
    /// followers), which a fault stops before the next step.
    pub(crate) P_PRE: usize = 6;
    /// Packed slots.
    pub(crate) P_SLOT_CAPACITY: usize = 7;
    /// The first indirect slot's word.
    pub(crate) P_SLOTS: usize = 8;

    // Why a batch froze (`control[C_FROZEN]`).
    pub(crate) FROZEN_LIST: u32 = 1;
    pub(crate) FROZEN_SLOTS: u32 = 2;
    pub(crate) FROZEN_FAULT: u32 = 3;
    /// The implicit solve did not converge in the iterations recorded (shaders/control's
    /// `solve_check`).
    pub(crate) FROZEN_SOLVE: u32 = 4;

    // The implicit solve's words (`solve`): f32 ones as bits. Alpha and beta are the words
    // shaders/lib/solve.wgsl reads as SOLVE_ALPHA and SOLVE_BETA.
    pub(crate) SW_ALPHA: u32 = 0;
    pub(crate) SW_BETA: u32 = 1;
    /// `r . z` of the current residual (f32).
    pub(crate) SW_RZ: u32 = 2;
    /// `(tolerance |b|)^2` (f32).
    pub(crate) SW_TARGET2: u32 = 3;
    /// `|r|^2` of the latest residual (f32).
    pub(crate) SW_RR: u32 = 4;
    /// `SOLVE_*`.
    pub(crate) SW_STATE: u32 = 5;
    /// Iterations of the current solve.
    pub(crate) SW_ITER: u32 = 6;
    /// Solves, iterations and the most iterations of one converged solve since the host last
    /// read them.
    pub(crate) SW_SOLVES: u32 = 7;
    pub(crate) SW_ITER_TOTAL: u32 = 8;
    pub(crate) SW_ITER_MAX: u32 = 9;
    /// The indirect slots of solve_apply, solve_update and solve_direction, in that order.
    pub(crate) SW_SLOT_APPLY: u32 = 10;
    pub(crate) SW_SLOT_UPDATE: u32 = 11;
    pub(crate) SW_SLOT_DIRECTION: u32 = 12;
    /// `max(|b|^2, |r_0|^2)`, the scale of the residual reported (f32).
    pub(crate) SW_SCALE2: u32 = 13;
    /// Workgroup partials the reducing passes write.
    pub(crate) SW_GROUPS: u32 = 14;
    pub(crate) SW_MAX_ITER: u32 = 15;
    /// `tolerance^2` (f32).
    pub(crate) SW_TOL2: u32 = 16;
    pub(crate) SOLVE_WORDS: usize = 20;
    pub(crate) SOLVE_RUNNING: u32 = 0;
    pub(crate) SOLVE_CONVERGED: u32 = 1;
    pub(crate) SOLVE_INDEFINITE: u32 = 2;
    pub(crate) SOLVE_UNCONVERGED: u32 = 3;
    /// The guard's word when no particle is faulty (integrate_first_half folds with
    /// atomicMin).
    pub(crate) NO_FAULT: u32 = u32::MAX;

    // Indirect slots of the rebuild, in dispatch order; the every-step slots follow.
    pub(crate) S_ZERO_CELLS: u32 = 0;
    pub(crate) S_CELL_COUNT: u32 = 1;
    pub(crate) S_PREFIX_CELLS: u32 = 2;
    pub(crate) S_CURSOR: u32 = 3;
    pub(crate) S_CELL_SCATTER: u32 = 4;
    pub(crate) S_PAIR_COUNT: u32 = 5;
    pub(crate) S_PREFIX_NBR: u32 = 6;
    pub(crate) S_GUARD: u32 = 7;
    pub(crate) S_PAIR_FILL: u32 = 8;
    pub(crate) S_PAIR_RECORD: u32 = 9;
    pub(crate) S_CLEAR_FLAGS: u32 = 10;
    pub(crate) S_SLOT_CARRY: u32 = 11;
    pub(crate) S_COMMIT_PARTICLES: u32 = 12;
    /// The block passes of the cells' and the list's scans (shaders/passes/scan_blocks.wgsl,
    /// scan_add.wgsl), one workgroup per block.
    pub(crate) S_SCAN_CELLS: u32 = 13;
    pub(crate) S_SCAN_NBR: u32 = 14;
    pub(crate) S_CONTACT: u32 = 15;
}
