// grains-gpu's own control kernels: the displacement decision, the neighbour-list and slot
// capacity guards and the commit of a rebuilt list. They have no CPU twin: on the CPU the same
// decisions are plain `if`s in `CpuBackend::step` and `CpuBackend::rebuild`. Each entry point is
// built as its own module (the host splits this file at the `//!entry` markers) so that every
// pipeline binds only what it touches.
//
// Freezing: every pass of a step is dispatched indirectly, from `args`. When a rebuilt list
// does not fit (`guard`), when the contact passes took more packed slots than there are
// (`slot_guard`), or, in a guarded run, when a particle is faulty (`decide`), the kernel that
// sees it sets `C_FROZEN` and zeroes the dispatch sizes, so the rest of the recorded batch does
// nothing and the state stays where the flag rose. The host reads the words, grows the buffers
// and records the rest of that step (from the guard, or from the contact passes, which read
// last step's flags and history and write this step's elsewhere), or reports the fault with the
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
const C_STEP: u32 = 0u;
const C_REBUILD: u32 = 1u;
const C_REBUILDS: u32 = 2u;
const C_FROZEN: u32 = 3u;
const C_TOTAL: u32 = 4u;
const C_FORCE: u32 = 5u;
const C_RECORDS: u32 = 6u;
const C_MAX_RECORDS: u32 = 7u;
const C_MAX_SLOTS: u32 = 8u;
const C_GUARDED: u32 = 9u;
const C_LOG: u32 = 10u;
const LOG_LEN: u32 = 256u;

const P_N: u32 = 0u;
const P_CELLS: u32 = 1u;
const P_SKIN: u32 = 2u;
const P_MAX_DIM: u32 = 3u;
// The first indirect slot of the passes every step runs (after the list-sized ones).
const P_EVERY: u32 = 4u;
// Records (pairs) the per-record buffers hold.
const P_REC_CAPACITY: u32 = 5u;
// How many every-step slots come before `decide` (the first half-step and its followers),
// which a fault stops before the next step.
const P_PRE: u32 = 6u;
// Packed slots (`slots` and `slots_hi` together).
const P_SLOT_CAPACITY: u32 = 7u;
const P_SLOTS: u32 = 8u;

// Why a batch stopped (`control[C_FROZEN]`).
const FROZEN_LIST: u32 = 1u;
const FROZEN_SLOTS: u32 = 2u;
const FROZEN_FAULT: u32 = 3u;
// `fault[0]` when no particle is faulty.
const NO_FAULT: u32 = 0xffffffffu;

const S_ZERO_CELLS: u32 = 0u;
const S_PAIR_FILL: u32 = 8u;
const S_PAIR_RECORD: u32 = 9u;
const S_HISTORY_CARRY: u32 = 10u;
const S_COMMIT_LIST: u32 = 11u;
const S_COMMIT_PARTICLES: u32 = 12u;
const S_CONTACT: u32 = 13u;

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
// [0]: packed slots the last step's contact passes took (sources/neighbour.wgsl).
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
    // The contact passes of this step count their slots from zero (`slot_guard` checks them).
    control[C_MAX_SLOTS] = max(control[C_MAX_SLOTS], slot_count[0]);
    slot_count[0] = 0u;
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
        if (rebuild && (s <= S_PAIR_RECORD || s == S_COMMIT_PARTICLES)) {
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
    for (var s = S_HISTORY_CARRY; s < plan[P_EVERY]; s = s + 1u) {
        if (s == S_COMMIT_PARTICLES) {
            continue;
        }
        let threads = plan[P_SLOTS + s];
        set_args(s, (records + threads - 1u) / threads, plan[P_MAX_DIM]);
    }
}

//!entry slot_guard
@group(0) @binding(0) var<storage, read_write> control: array<u32>;
@group(0) @binding(1) var<storage, read> plan: array<u32>;
@group(0) @binding(2) var<storage, read_write> args: array<u32>;
@group(0) @binding(3) var<storage, read> slot_count: array<u32>;

// Runs after the list's contact passes (and before any pass that updates history in place):
// if they took more packed slots than there are, some records lost their slot, so the batch
// freezes. The contact passes read last step's flags and history and write this step's to the
// other buffers, so the host can grow the slots and run them again from the same inputs.
@compute @workgroup_size(1)
fn slot_guard() {
    if (slot_count[0] > plan[P_SLOT_CAPACITY]) {
        control[C_FROZEN] = FROZEN_SLOTS;
        zero_args();
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

//!entry commit_list
@group(0) @binding(0) var<storage, read> control: array<u32>;
@group(0) @binding(2) var<storage, read> new_pair_j: array<u32>;
@group(0) @binding(6) var<storage, read_write> pair_j: array<u32>;
@group(0) @binding(10) var<storage, read> plan: array<u32>;
@group(0) @binding(11) var<storage, read> new_slot: array<u32>;
@group(0) @binding(12) var<storage, read_write> nbr_slot: array<u32>;

// The rebuilt list replaces the current one, one invocation per record (`C_RECORDS`): each
// record's partner (`new_pair_j`, which the fill wrote beside the live ones, which the carry
// reads) and its carried slot flag: the packed slots and history stay where they are, as
// `CpuBackend::rebuild` keeps them. The records' owners and the heads' records are already in
// place: nothing in a rebuild reads the old list's, so `pair_fill` and `pair_record` write
// them into `pair_i` and `head_pair` themselves. The list is held beside itself with one word
// a record more and the carried flags.
@compute @workgroup_size(64)
fn commit_list(@builtin(global_invocation_id) gid3: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let r = linear_index(gid3, nwg);
    if (r >= control[C_RECORDS]) {
        return;
    }
    pair_j[r] = new_pair_j[r];
    nbr_slot[r] = new_slot[r];
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
