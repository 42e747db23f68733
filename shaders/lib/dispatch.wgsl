// Invocation indexing shared by every pass with `@workgroup_size(64)`.
//
// A one-dimensional dispatch is limited to 65535 workgroups (4.2 M invocations of 64), which a
// neighbour list of a few hundred thousand particles exceeds. Passes therefore accept any
// `(x, y, 1)` dispatch and number invocations row by row; a one-row dispatch gives the plain
// `global_invocation_id.x`.

const WORKGROUP_SIZE: u32 = 64u;

fn linear_index(id: vec3<u32>, num_workgroups: vec3<u32>) -> u32 {
    return id.x + id.y * num_workgroups.x * WORKGROUP_SIZE;
}
