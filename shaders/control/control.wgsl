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
