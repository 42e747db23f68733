// grains-gpu's own control kernels: the displacement decision (which also moves the ring of
// packed slots given back on), the neighbour-list and slot capacity guards, and the clearing
// and commit of a rebuilt list. They have no CPU twin: on the CPU the same
// decisions are plain `if`s in `CpuBackend::step` and `CpuBackend::rebuild`. Each entry point is
// built as its own module (the host splits this file at the `//!entry` markers) so that every
// pipeline binds only what it touches.
//
// Freezing: every pass of a step is dispatched indirectly, from `args`. When a rebuilt list
// does not fit (`guard`), when the contact passes took more packed slots than there are
// (`slot_guard`), or, in a guarded run, when a particle is faulty (`decide`), the kernel that
// sees it sets `C_FROZEN` and zeroes the dispatch sizes, so the rest of the recorded batch does
// nothing and the state stays where the flag rose. The host reads the words, grows the buffers
// and records the rest of that step (from the guard, or from the contact passes, for the
// records that found no slot: shaders/lib/packed_slots.wgsl), or reports the fault with the
// state after its step. Nothing is saved and nothing is replayed.
//
// control: [step, rebuild flag, rebuild count, frozen (0, or FROZEN_*), list total, force
//           flag, records of the list, largest record count seen, largest packed slot count
//           seen, guarded run flag, rebuild log ring...]
// plan:    [n_particles, n_cells, skin (f32 bits), workgroups per dimension, first
//           every-step slot, record capacity, every-step slots before `decide`, packed slot
//           capacity, then one u32 per indirect slot: a fixed group count, or threads per
//           group for slots sized by the list's records]
// args:    one (x, y, z, pad) quadruple per indirect slot.

//!common
// The words of `control` and `plan` (C_*, P_*), the FROZEN_* reasons, NO_FAULT and the
// indirect slots (S_*) are written by the host from one Rust table
// (crates/grains-gpu/src/backend/control_words.rs) and put before this section.

// The words of `slot_count` (SLOT_*) come from shaders/lib/slot_words.wgsl, which the host
// puts before every control kernel.

fn linear_index(id: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return id.x + id.y * nwg.x * 64u;
}

//!args
// The dispatch sizes, for the kernels that bind `args` (the host adds this section to them).
// `g` workgroups as an (x, y) grid within the per-dimension limit; passes number their
// invocations row by row (shaders/lib/dispatch.wgsl) and skip the surplus.
fn set_args(slot: u32, g: u32, max_dim: u32) {
    let x = min(g, max_dim);
    let y = select(1u, (g + x - 1u) / x, x > 0u);
    args[4u * slot] = x;
    args[4u * slot + 1u] = y;
    args[4u * slot + 2u] = 1u;
    args[4u * slot + 3u] = 0u;
}

// Every indirect dispatch to nothing: the rest of the batch is frozen.
fn zero_args() {
    for (var s = 0u; s < arrayLength(&args) / 4u; s = s + 1u) {
        set_args(s, 0u, 1u);
    }
}

//!entry decide
@group(0) @binding(0) var<storage, read_write> control: array<u32>;
@group(0) @binding(1) var<storage, read> plan: array<u32>;
@group(0) @binding(2) var<storage, read_write> args: array<u32>;
@group(0) @binding(3) var<storage, read_write> max_disp2: array<u32>;
// The packed slots' counts (shaders/lib/packed_slots.wgsl).
@group(0) @binding(4) var<storage, read_write> slot_count: array<u32>;
// The lowest faulty particle's index since the host last cleared it
// (integrate_first_half.wgsl).
@group(0) @binding(5) var<storage, read> fault: array<u32>;

// The same test as `CpuBackend::step`: sqrt of the largest squared displacement against half
// the skin, in f32.
@compute @workgroup_size(1)
fn decide() {
    // A frozen batch does nothing more: not even this step's count.
    if (control[C_FROZEN] != 0u) {
        zero_args();
        control[C_REBUILD] = 0u;
        return;
    }
    let force = control[C_FORCE] != 0u;
    if (!force) {
        control[C_STEP] = control[C_STEP] + 1u;
    }
    let disp = sqrt(bitcast<f32>(max_disp2[0]));
    let rebuild = force || disp > 0.5 * bitcast<f32>(plan[P_SKIN]);
    max_disp2[0] = 0u;
    // The ring of slots given back moves on: last step's takers used the first of them, its
    // givers appended theirs (shaders/lib/packed_slots.wgsl).
    let popped = min(slot_count[SLOT_POPS], slot_count[SLOT_FREE]);
    slot_count[SLOT_HEAD] = (slot_count[SLOT_HEAD] + popped) % max(slot_count[SLOT_CAPACITY], 1u);
    slot_count[SLOT_FREE] = slot_count[SLOT_FREE] - popped + slot_count[SLOT_PUSHES];
    slot_count[SLOT_POPS] = 0u;
    slot_count[SLOT_PUSHES] = 0u;
    control[C_MAX_SLOTS] = max(control[C_MAX_SLOTS], slot_count[SLOT_TAKEN]);
    control[C_FORCE] = 0u;
    control[C_REBUILD] = select(0u, 1u, rebuild);
    if (rebuild) {
        let r = control[C_REBUILDS];
        control[C_LOG + (r % LOG_LEN)] = control[C_STEP];
        control[C_REBUILDS] = r + 1u;
    }
    // Slots up to the fill and the heads (one invocation per particle) and the particle commit
    // get their fixed sizes; the ones sized by the list's records are left to the guard, which
    // runs only when the list is rebuilt.
    for (var s = 0u; s < S_CONTACT; s = s + 1u) {
        var x = 0u;
        if (rebuild && (s <= S_PAIR_RECORD || s >= S_COMMIT_PARTICLES)) {
            x = plan[P_SLOTS + s];
        }
        set_args(s, x, plan[P_MAX_DIM]);
    }
    // A guarded run stops after the step whose first half found a faulty particle: this step
    // goes on, the next one's first passes do nothing, and its `decide` freezes the rest.
    if (control[C_GUARDED] != 0u && fault[0] != NO_FAULT) {
        control[C_FROZEN] = FROZEN_FAULT;
        for (var s = plan[P_EVERY]; s < plan[P_EVERY] + plan[P_PRE]; s = s + 1u) {
            set_args(s, 0u, 1u);
        }
    }
}

//!entry guard
@group(0) @binding(0) var<storage, read_write> control: array<u32>;
@group(0) @binding(1) var<storage, read> plan: array<u32>;
@group(0) @binding(2) var<storage, read_write> args: array<u32>;
@group(0) @binding(3) var<storage, read> new_start: array<u32>;
@group(0) @binding(4) var<storage, read> new_pair_start: array<u32>;
// The packed slots' counts: the carry runs over the slots ever taken.
@group(0) @binding(5) var<storage, read> slot_count: array<u32>;

// Runs after the neighbour counts are scanned. A list that does not fit is not written: the
// batch freezes here, and the host grows the buffers and records this step again from this
// kernel on (the counts and scans it reads are still there).
@compute @workgroup_size(1)
fn guard() {
    // Dispatched every step (it cannot be sized from `args`, which it writes).
    if (control[C_REBUILD] == 0u) {
        return;
    }
    let total = new_start[plan[P_N]];
    let records = new_pair_start[plan[P_N]];
    // The heads' references (`head_pair`) are held in a record-sized buffer too: one per
    // particle pair's record where the candidate test is symmetric, but never trusted to be.
    let per_record = max(records, total - records);
    control[C_MAX_RECORDS] = max(control[C_MAX_RECORDS], per_record);
    // Nothing on the device is kept per entry: only the records must fit.
    if (per_record > plan[P_REC_CAPACITY]) {
        control[C_FROZEN] = FROZEN_LIST;
        zero_args();
        return;
    }
    control[C_TOTAL] = total;
    control[C_RECORDS] = records;
    for (var s = S_CLEAR_FLAGS; s < plan[P_EVERY]; s = s + 1u) {
        if (s == S_COMMIT_PARTICLES) {
            continue;
        }
        let threads = plan[P_SLOTS + s];
        var count = records;
        if (s == S_SLOT_CARRY) {
            count = slot_count[SLOT_TAKEN];
        }
        set_args(s, (count + threads - 1u) / threads, plan[P_MAX_DIM]);
    }
}

//!entry slot_guard
@group(0) @binding(0) var<storage, read_write> control: array<u32>;
@group(0) @binding(1) var<storage, read> plan: array<u32>;
@group(0) @binding(2) var<storage, read_write> args: array<u32>;
@group(0) @binding(3) var<storage, read_write> slot_count: array<u32>;

// Runs after the list's contact passes (and before the passes of sources that keep a history
// per pair): if they wanted more packed slots than there are, the particles that found too few
// are marked and evaluated nothing, so the batch freezes; the host grows the slots and runs the
// contact passes again for those particles alone (shaders/lib/packed_slots.wgsl). Otherwise
// the step goes on, every record evaluated once.
@compute @workgroup_size(1)
fn slot_guard() {
    if (slot_count[SLOT_TAKEN] > slot_count[SLOT_CAPACITY]) {
        control[C_FROZEN] = FROZEN_SLOTS;
        zero_args();
    } else {
        slot_count[SLOT_PENDING] = 0u;
    }
}

//!entry zero_cells
@group(0) @binding(0) var<storage, read> plan: array<u32>;
@group(0) @binding(1) var<storage, read_write> cell_counts: array<u32>;

@compute @workgroup_size(64)
fn zero_cells(@builtin(global_invocation_id) gid3: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let c = linear_index(gid3, nwg);
    if (c < plan[P_CELLS]) {
        cell_counts[c] = 0u;
    }
}

//!entry cursor
@group(0) @binding(0) var<storage, read> plan: array<u32>;
@group(0) @binding(1) var<storage, read> cell_start: array<u32>;
@group(0) @binding(2) var<storage, read_write> cell_cursor: array<u32>;

@compute @workgroup_size(64)
fn cursor(@builtin(global_invocation_id) gid3: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let c = linear_index(gid3, nwg);
    if (c < plan[P_CELLS]) {
        cell_cursor[c] = cell_start[c];
    }
}

//!entry clear_flags
@group(0) @binding(0) var<storage, read> control: array<u32>;
@group(0) @binding(12) var<storage, read_write> nbr_slot: array<u32>;

// The rebuilt list's records start out of contact, one invocation per record (`C_RECORDS`):
// the carry (shaders/passes/slot_carry.wgsl) then names each packed slot in use in its pair's
// record. `pair_fill` and `pair_record` wrote the new list over the old one (owners, partners,
// heads' records): nothing in a rebuild reads the old list, since each slot in use keeps its
// pair.
@compute @workgroup_size(64)
fn clear_flags(@builtin(global_invocation_id) gid3: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let r = linear_index(gid3, nwg);
    if (r >= control[C_RECORDS]) {
        return;
    }
    nbr_slot[r] = 0u;
}

//!entry commit_particles
@group(0) @binding(0) var<storage, read> plan: array<u32>;
@group(0) @binding(1) var<storage, read> new_start: array<u32>;
@group(0) @binding(2) var<storage, read_write> nbr_start: array<u32>;
@group(0) @binding(3) var<storage, read> pos: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read_write> ref_pos: array<vec4<u32>>;
@group(0) @binding(5) var<storage, read> new_pair_start: array<u32>;
@group(0) @binding(6) var<storage, read_write> pair_start: array<u32>;

@compute @workgroup_size(64)
fn commit_particles(@builtin(global_invocation_id) gid3: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let k = linear_index(gid3, nwg);
    let n = plan[P_N];
    if (k <= n) {
        nbr_start[k] = new_start[k];
        pair_start[k] = new_pair_start[k];
    }
    if (k < n) {
        ref_pos[k] = pos[k];
    }
}

//!solve
// The implicit solve's scalars (passes/solve_*.wgsl, lib/solve.wgsl), for the kernels that
// bind `solve` and `solve_partials` (the host adds this section to them). `solve` holds the
// SW_* words (f32 ones as bits); the passes read alpha and beta from it.

var<workgroup> part: array<vec4<f32>, 64>;

// The sum of the last pass's workgroup partials, in a fixed order: lane k sums partials k,
// k + 64, ... in turn, then the lanes as a tree. Every invocation must call it.
fn partial_total(lid: u32) -> vec4<f32> {
    let groups = solve[SW_GROUPS];
    var s = vec4<f32>(0.0);
    for (var g = lid; g < groups; g = g + 64u) {
        s = s + solve_partials[g];
    }
    part[lid] = s;
    workgroupBarrier();
    for (var k = 32u; k > 0u; k = k / 2u) {
        if (lid < k) {
            part[lid] = part[lid] + part[lid + k];
        }
        workgroupBarrier();
    }
    return part[0];
}

fn solve_f32(w: u32) -> f32 {
    return bitcast<f32>(solve[w]);
}

fn set_solve_f32(w: u32, x: f32) {
    solve[w] = bitcast<u32>(x);
}

// The iteration passes' dispatches: their planned sizes while the solve runs, none once it
// has ended.
fn set_iterations(running: bool) {
    for (var s = SW_SLOT_APPLY; s <= SW_SLOT_DIRECTION; s = s + 1u) {
        let slot = solve[s];
        set_args(slot, select(0u, plan[P_SLOTS + slot], running), plan[P_MAX_DIM]);
    }
}

//!entry solve_begin
@group(0) @binding(0) var<storage, read> control: array<u32>;
@group(0) @binding(1) var<storage, read> plan: array<u32>;
@group(0) @binding(2) var<storage, read_write> args: array<u32>;
@group(0) @binding(3) var<storage, read_write> solve: array<u32>;
@group(0) @binding(4) var<storage, read> solve_partials: array<vec4<f32>>;

// After solve_start: the residual's and the right-hand side's norms, the target
// `tolerance |b|`, and whether the start already meets it (then no iteration runs).
@compute @workgroup_size(64)
fn solve_begin(@builtin(local_invocation_index) lid: u32) {
    let t = partial_total(lid);
    if (lid != 0u || control[C_FROZEN] != 0u) {
        return;
    }
    let target2 = solve_f32(SW_TOL2) * t.z;
    set_solve_f32(SW_RZ, t.y);
    set_solve_f32(SW_RR, t.x);
    set_solve_f32(SW_TARGET2, target2);
    set_solve_f32(SW_SCALE2, max(t.z, t.x));
    set_solve_f32(SW_ALPHA, 0.0);
    set_solve_f32(SW_BETA, 0.0);
    solve[SW_ITER] = 0u;
    solve[SW_SOLVES] = solve[SW_SOLVES] + 1u;
    let done = t.x <= target2;
    solve[SW_STATE] = select(SOLVE_RUNNING, SOLVE_CONVERGED, done);
    set_iterations(!done);
}

//!entry solve_alpha
@group(0) @binding(0) var<storage, read> control: array<u32>;
@group(0) @binding(1) var<storage, read> plan: array<u32>;
@group(0) @binding(2) var<storage, read_write> args: array<u32>;
@group(0) @binding(3) var<storage, read_write> solve: array<u32>;
@group(0) @binding(4) var<storage, read> solve_partials: array<vec4<f32>>;

// After solve_apply: the step `alpha = r.z / p.Ap`; a direction along which the matrix is not
// positive (or not finite) ends the solve as indefinite.
@compute @workgroup_size(64)
fn solve_alpha(@builtin(local_invocation_index) lid: u32) {
    let t = partial_total(lid);
    if (lid != 0u || control[C_FROZEN] != 0u || solve[SW_STATE] != SOLVE_RUNNING) {
        return;
    }
    let pq = t.x;
    if (!(pq > 0.0) || pq > 3.0e38) {
        solve[SW_STATE] = SOLVE_INDEFINITE;
        set_iterations(false);
        return;
    }
    set_solve_f32(SW_ALPHA, solve_f32(SW_RZ) / pq);
}

//!entry solve_beta
@group(0) @binding(0) var<storage, read> control: array<u32>;
@group(0) @binding(1) var<storage, read> plan: array<u32>;
@group(0) @binding(2) var<storage, read_write> args: array<u32>;
@group(0) @binding(3) var<storage, read_write> solve: array<u32>;
@group(0) @binding(4) var<storage, read> solve_partials: array<vec4<f32>>;

// After solve_update: one more iteration; converged when `|r|^2` is within the target, out of
// iterations at the cap, else the next direction's weight `beta = r.z (new) / r.z (old)`.
@compute @workgroup_size(64)
fn solve_beta(@builtin(local_invocation_index) lid: u32) {
    let t = partial_total(lid);
    if (lid != 0u || control[C_FROZEN] != 0u || solve[SW_STATE] != SOLVE_RUNNING) {
        return;
    }
    let it = solve[SW_ITER] + 1u;
    solve[SW_ITER] = it;
    solve[SW_ITER_TOTAL] = solve[SW_ITER_TOTAL] + 1u;
    set_solve_f32(SW_RR, t.x);
    if (t.x <= solve_f32(SW_TARGET2)) {
        solve[SW_STATE] = SOLVE_CONVERGED;
        solve[SW_ITER_MAX] = max(solve[SW_ITER_MAX], it);
        set_iterations(false);
        return;
    }
    if (it >= solve[SW_MAX_ITER]) {
        solve[SW_STATE] = SOLVE_UNCONVERGED;
        set_iterations(false);
        return;
    }
    set_solve_f32(SW_BETA, t.y / solve_f32(SW_RZ));
    set_solve_f32(SW_RZ, t.y);
}

//!entry solve_check
@group(0) @binding(0) var<storage, read_write> control: array<u32>;
@group(0) @binding(1) var<storage, read_write> args: array<u32>;
@group(0) @binding(2) var<storage, read> solve: array<u32>;

// After the iterations a step records: a solve that has not converged freezes the batch, and
// the host records more iterations (the vectors and scalars stay where they are) or, at the
// cap or on an indefinite matrix, stops the run with the step and the residual.
@compute @workgroup_size(1)
fn solve_check() {
    if (control[C_FROZEN] != 0u || solve[SW_STATE] == SOLVE_CONVERGED) {
        return;
    }
    control[C_FROZEN] = FROZEN_SOLVE;
    zero_args();
}
