// grains-gpu's own control kernels: the displacement decision, the neighbour-list capacity
// guard and the commit of a rebuilt list. They have no CPU twin: on the CPU the same decisions
// are plain `if`s in `CpuBackend::step` and `CpuBackend::rebuild`. Each entry point is built as
// its own module (the host splits this file at the `//!entry` markers) so that every pipeline
// binds only what it touches.
//
// control: [step, rebuild flag, rebuild count, overflow flag, list total, largest total seen,
//           force flag, records of the list, largest record count seen, largest packed slot
//           count seen, rebuild log ring...]
// plan:    [n_particles, n_cells, capacity, skin (f32 bits), workgroups per dimension, pad,
//           record capacity, pad, then one u32 per indirect
//           slot: a fixed group count, or threads per group for slots sized by the list total]
// args:    one (x, y, z, pad) quadruple per indirect slot.

//!common
const C_STEP: u32 = 0u;
const C_REBUILD: u32 = 1u;
const C_REBUILDS: u32 = 2u;
const C_OVERFLOW: u32 = 3u;
const C_TOTAL: u32 = 4u;
const C_MAX_TOTAL: u32 = 5u;
const C_FORCE: u32 = 6u;
const C_RECORDS: u32 = 7u;
const C_MAX_RECORDS: u32 = 8u;
const C_MAX_SLOTS: u32 = 9u;
const C_LOG: u32 = 10u;
const LOG_LEN: u32 = 256u;

const P_N: u32 = 0u;
const P_CELLS: u32 = 1u;
const P_CAPACITY: u32 = 2u;
const P_SKIN: u32 = 3u;
const P_MAX_DIM: u32 = 4u;
// Records (pairs) the per-record buffers hold.
const P_REC_CAPACITY: u32 = 6u;
const P_SLOTS: u32 = 8u;

const S_ZERO_CELLS: u32 = 0u;
const S_PAIR_FILL: u32 = 8u;
const S_PAIR_RECORD: u32 = 9u;
const S_COMMIT_LIST: u32 = 11u;
const S_COMMIT_PARTICLES: u32 = 12u;
const S_CONTACT: u32 = 13u;

fn linear_index(id: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return id.x + id.y * nwg.x * 64u;
}

//!entry decide
@group(0) @binding(0) var<storage, read_write> control: array<u32>;
@group(0) @binding(1) var<storage, read> plan: array<u32>;
@group(0) @binding(2) var<storage, read_write> args: array<u32>;
@group(0) @binding(3) var<storage, read_write> max_disp2: array<u32>;
// [0]: packed slots the last step's contact passes took (sources/neighbour.wgsl).
@group(0) @binding(4) var<storage, read_write> slot_count: array<u32>;

// (Duplicated in each kernel that writes `args`: WGSL cannot pass a storage pointer.)
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


// The same test as `CpuBackend::step`: sqrt of the largest squared displacement against half
// the skin, in f32.
@compute @workgroup_size(1)
fn decide() {
    let force = control[C_FORCE] != 0u;
    if (!force) {
        control[C_STEP] = control[C_STEP] + 1u;
    }
    let disp = sqrt(bitcast<f32>(max_disp2[0]));
    let rebuild = force || disp > 0.5 * bitcast<f32>(plan[P_SKIN]);
    max_disp2[0] = 0u;
    // The contact passes of this step count their slots from zero; the host grows the slots
    // (and replays) when a step took more than they hold.
    control[C_MAX_SLOTS] = max(control[C_MAX_SLOTS], slot_count[0]);
    slot_count[0] = 0u;
    control[C_FORCE] = 0u;
    control[C_REBUILD] = select(0u, 1u, rebuild);
    if (rebuild) {
        let r = control[C_REBUILDS];
        control[C_LOG + (r % LOG_LEN)] = control[C_STEP];
        control[C_REBUILDS] = r + 1u;
    }
    // Slots up to the fill and the particle commit get their fixed sizes; the ones sized by the
    // list total are left to the guard, which runs only when the list is rebuilt.
    for (var s = 0u; s < S_CONTACT; s = s + 1u) {
        var x = 0u;
        if (rebuild && (s <= S_PAIR_FILL || s == S_COMMIT_PARTICLES)) {
            x = plan[P_SLOTS + s];
        }
        set_args(s, x, plan[P_MAX_DIM]);
    }
}

//!entry guard
@group(0) @binding(0) var<storage, read_write> control: array<u32>;
@group(0) @binding(1) var<storage, read> plan: array<u32>;
@group(0) @binding(2) var<storage, read_write> args: array<u32>;
@group(0) @binding(3) var<storage, read> new_start: array<u32>;
@group(0) @binding(4) var<storage, read> new_pair_start: array<u32>;

// (Duplicated in each kernel that writes `args`: WGSL cannot pass a storage pointer.)
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


// Runs after the neighbour counts are scanned. A list that does not fit is not written: the
// step goes on with the old list (its result is discarded), and the host, at its next check,
// restores the state it saved, grows the buffers and replays.
@compute @workgroup_size(1)
fn guard() {
    // Dispatched every step (it cannot be sized from `args`, which it writes).
    if (control[C_REBUILD] == 0u) {
        return;
    }
    let total = new_start[plan[P_N]];
    let records = new_pair_start[plan[P_N]];
    control[C_MAX_TOTAL] = max(control[C_MAX_TOTAL], total);
    control[C_MAX_RECORDS] = max(control[C_MAX_RECORDS], records);
    if (total > plan[P_CAPACITY] || records > plan[P_REC_CAPACITY]) {
        control[C_OVERFLOW] = 1u;
        set_args(S_PAIR_FILL, 0u, 1u);
        set_args(S_COMMIT_PARTICLES, 0u, 1u);
        return;
    }
    control[C_TOTAL] = total;
    control[C_RECORDS] = records;
    let n_slots = arrayLength(&args) / 4u;
    for (var s = S_PAIR_RECORD; s < n_slots; s = s + 1u) {
        if (s == S_COMMIT_PARTICLES) {
            continue;
        }
        let threads = plan[P_SLOTS + s];
        set_args(s, (total + threads - 1u) / threads, plan[P_MAX_DIM]);
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
@group(0) @binding(2) var<storage, read> new_j: array<u32>;
@group(0) @binding(6) var<storage, read_write> nbr_j: array<u32>;
@group(0) @binding(10) var<storage, read> plan: array<u32>;
@group(0) @binding(11) var<storage, read> new_slot: array<u32>;
@group(0) @binding(12) var<storage, read_write> nbr_slot: array<u32>;

// The rebuilt list replaces the current one: its entries (`C_TOTAL`) and its pairs' records
// (`C_RECORDS`, fewer), their carried slot flags: the packed slots and history stay where they
// are, as `CpuBackend::rebuild` keeps them. The entries' owners are already in place: nothing
// in a rebuild reads the old list's (the carry finds old pairs by partner), so `pair_fill`
// writes them into `nbr_i` itself; nor its records (the carry computes both lists' owned
// records from their record starts, `pair_start` and `new_pair_start`), so `pair_record`
// writes them into `nbr_pair` itself. The list is held beside itself with two entry arrays
// fewer.
@compute @workgroup_size(64)
fn commit_list(@builtin(global_invocation_id) gid3: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let k = linear_index(gid3, nwg);
    if (k >= control[C_TOTAL]) {
        return;
    }
    nbr_j[k] = new_j[k];
    if (k >= control[C_RECORDS]) {
        return;
    }
    nbr_slot[k] = new_slot[k];
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
