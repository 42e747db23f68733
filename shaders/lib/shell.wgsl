// Records of the shell passes. Twins: `ShellEdgeParams`, `ShellParams`, `ShellCounts` in
// crates/grains-core/src/shells.rs (the layout test compares them with naga's).

struct ShellEdgeParams {
    stretch: f32,
    relax_time: f32,
    viscosity: f32,
    bend_law: u32,
    bend: f32,
    theta0: f32,
    shell: u32,
    _pad: u32,
}

struct ShellParams {
    volume_stiffness: f32,
    rest_volume: f32,
    tri_start: u32,
    tri_count: u32,
    ref_node: u32,
    contact_stiffness: f32,
    self_contact: u32,
    contact_reach: f32,
}

struct ShellCounts {
    n_edges: u32,
    n_shells: u32,
    _pad0: u32,
    _pad1: u32,
}

// No node: the second lever of a boundary edge.
const NO_NODE: u32 = 0xffffffffu;
// Bit of a shell entry that marks a triangle corner.
const TRIANGLE_ENTRY: u32 = 0x80000000u;
