//! The shape table: what each particle is, beyond the bounding sphere the broad phase sees.
//!
//! Every particle holds an index into the table (`Particles::shape`); `pos.w` stays the
//! bounding radius, so the broad phase does not change when a shape is added. A shape record
//! holds what a resolver and the integrator read besides the particle's own arrays: a capsule's
//! half-length, radius and inertia per unit mass; a mesh triangle's index in the world's
//! triangle table. One record per distinct shape, not per particle (but one per triangle).
//!
//! The body frame of a non-spherical particle is its principal frame; its orientation
//! (`quat`, x y z w) turns body into world coordinates. A capsule's axis is its body `z`.
//! WGSL twins of the helpers: `shaders/lib/shape.wgsl`.

use bytemuck::{Pod, Zeroable};
use glam::Vec3;

use crate::kernel_types::CapsuleBody;

/// The kind of a shape record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u32)]
pub enum ShapeKind {
    /// A solid sphere of the particle's radius (`pos.w`): `data[0]` is 1 where its orientation
    /// follows its spin ([`ShapeRecord::sphere_turning`]), 0 where it stays as it started
    /// ([`ShapeRecord::sphere`]); nothing a sphere touches depends on it.
    Sphere = 0,
    /// A segment swept by a sphere: `data = [half_length, radius, kx, ky, kz, 0, 0]`, `k` the
    /// principal moments of inertia per unit mass (m^2), axis along body `z`.
    Capsule = 1,
    /// A triangle of a mesh wall: `data[0]` holds the index into the world's triangle table
    /// (as the bits of a u32).
    Triangle = 2,
    /// The body of a clump: `data = [members (u32 bits), 0, kx, ky, kz, 0, 0]`, `k` its
    /// principal moments of inertia per unit mass (m^2). Its members are the particles right
    /// after it; it touches nothing itself (`pos.w` is [`CLUMP_BODY_RADIUS`]).
    Clump = 3,
    /// A sphere of a clump: `data = [ox, oy, oz, j (u32 bits), 0, 0, 0]`, its centre's offset
    /// from the body's centre of mass in the body's principal frame (m), and `j`, how many
    /// places after its body it is (the body is particle `i - j`).
    Member = 4,
}

/// The identity orientation (x, y, z, w): every particle's that keeps none.
pub const IDENTITY: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

/// `pos.w` of a clump's body: negative enough that no pair or wall ever reaches it (its
/// members touch for it), distinct from a removed particle's.
pub const CLUMP_BODY_RADIUS: f32 = -1e29;

/// `ShapeKind::Sphere as u32`, as the scene's checks compare it.
pub const KIND_SPHERE: u32 = ShapeKind::Sphere as u32;
/// `ShapeKind::Capsule as u32`, as the kernels compare it.
pub const KIND_CAPSULE: u32 = ShapeKind::Capsule as u32;
/// `ShapeKind::Triangle as u32`.
pub const KIND_TRIANGLE: u32 = ShapeKind::Triangle as u32;
/// `ShapeKind::Clump as u32`.
pub const KIND_CLUMP: u32 = ShapeKind::Clump as u32;
/// `ShapeKind::Member as u32`.
pub const KIND_MEMBER: u32 = ShapeKind::Member as u32;

/// One entry of the shape table, as the kernels read it (32 bytes, two vec4s).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ShapeRecord {
    /// [`ShapeKind`] as a number.
    pub kind: u32,
    /// Shape data whose meaning depends on the kind (lengths in m, inertia per mass in m^2).
    pub data: [f32; 7],
}

impl ShapeRecord {
    /// The sphere: a particle of the radius its `pos.w` gives.
    pub fn sphere() -> ShapeRecord {
        ShapeRecord {
            kind: ShapeKind::Sphere as u32,
            data: [0.0; 7],
        }
    }

    /// The sphere whose orientation follows its spin (the scene's
    /// `simulation.sphere_orientation`), for output that shows spheres turning.
    pub fn sphere_turning() -> ShapeRecord {
        let mut data = [0.0; 7];
        data[0] = 1.0;
        ShapeRecord {
            kind: ShapeKind::Sphere as u32,
            data,
        }
    }

    /// A capsule of segment half-length `half_length` and radius `radius` (m), solid and of
    /// uniform density.
    pub fn capsule(half_length: f32, radius: f32) -> ShapeRecord {
        let (_, k_perp, k_axial) = capsule_inertia(half_length as f64, radius as f64, 1.0);
        let vol = capsule_volume(half_length as f64, radius as f64);
        let (kp, ka) = ((k_perp / vol) as f32, (k_axial / vol) as f32);
        ShapeRecord {
            kind: ShapeKind::Capsule as u32,
            data: [half_length, radius, kp, kp, ka, 0.0, 0.0],
        }
    }

    /// Triangle `index` of the world's triangle table.
    pub fn triangle(index: u32) -> ShapeRecord {
        let mut data = [0.0; 7];
        data[0] = f32::from_bits(index);
        ShapeRecord {
            kind: ShapeKind::Triangle as u32,
            data,
        }
    }

    /// A clump's body with `members` members and principal moments of inertia per unit mass
    /// `k` (m^2).
    pub fn clump(members: u32, k: [f32; 3]) -> ShapeRecord {
        ShapeRecord {
            kind: ShapeKind::Clump as u32,
            data: [f32::from_bits(members), 0.0, k[0], k[1], k[2], 0.0, 0.0],
        }
    }

    /// A clump's member `j` places after its body, at `offset` (m, body frame).
    pub fn member(offset: [f32; 3], j: u32) -> ShapeRecord {
        ShapeRecord {
            kind: ShapeKind::Member as u32,
            data: [
                offset[0],
                offset[1],
                offset[2],
                f32::from_bits(j),
                0.0,
                0.0,
                0.0,
            ],
        }
    }

    /// The kind, if the number is one.
    pub fn shape_kind(&self) -> Option<ShapeKind> {
        match self.kind {
            0 => Some(ShapeKind::Sphere),
            1 => Some(ShapeKind::Capsule),
            2 => Some(ShapeKind::Triangle),
            3 => Some(ShapeKind::Clump),
            4 => Some(ShapeKind::Member),
            _ => None,
        }
    }

    /// Principal moments of inertia per unit mass (m^2), body frame, of a body that turns
    /// through its angular momentum: a capsule of non-zero length or a clump; `None` for the
    /// rest (a sphere's scalar inertia is in `omega.w`).
    pub fn inertia_per_mass(&self) -> Option<[f32; 3]> {
        self.turns_rigidly()
            .then(|| [self.data[2], self.data[3], self.data[4]])
    }

    /// Whether the particle keeps an orientation that the integrator turns with its spin: a
    /// capsule, a clump and its members, and a sphere whose orientation is tracked
    /// ([`ShapeRecord::sphere_turning`]); not an untracked sphere, nor a mesh triangle (fixed).
    /// WGSL twin `turns` in `shaders/lib/shape.wgsl`.
    pub fn turns(&self) -> bool {
        match self.shape_kind() {
            Some(ShapeKind::Sphere) => self.data[0] != 0.0,
            Some(ShapeKind::Triangle) | None => false,
            Some(_) => true,
        }
    }

    /// Whether the body turns through its angular momentum (a capsule of non-zero length or a
    /// clump). WGSL twin `turns_rigidly` in `shaders/lib/shape.wgsl`.
    pub fn turns_rigidly(&self) -> bool {
        (self.kind == KIND_CAPSULE && self.data[0] > 0.0) || self.kind == KIND_CLUMP
    }
}

/// Index of the sphere in every shape table.
pub const SPHERE: u32 = 0;

/// Volume of a capsule (m^3).
pub fn capsule_volume(half_length: f64, radius: f64) -> f64 {
    let pi = std::f64::consts::PI;
    pi * radius * radius * 2.0 * half_length + 4.0 / 3.0 * pi * radius.powi(3)
}

/// Mass (kg) and principal moments of inertia about the centre (kg m^2), `(m, I_perp,
/// I_axial)`, of a solid capsule of density `density`: a cylinder of length `L = 2h` and two
/// hemispheres, each hemisphere moved from its own centroid (`3r/8` from its face) by the
/// parallel-axis theorem, which sums to `m_s (2r^2/5 + h^2 + 3hr/4)` for both caps of mass
/// `m_s` about a transverse axis.
pub fn capsule_inertia(half_length: f64, radius: f64, density: f64) -> (f64, f64, f64) {
    let pi = std::f64::consts::PI;
    let (h, r) = (half_length, radius);
    let m_c = density * pi * r * r * 2.0 * h;
    let m_s = density * 4.0 / 3.0 * pi * r.powi(3);
    let axial = m_c * r * r / 2.0 + m_s * 0.4 * r * r;
    let perp =
        m_c * ((2.0 * h).powi(2) / 12.0 + r * r / 4.0) + m_s * (0.4 * r * r + h * h + 0.75 * h * r);
    (m_c + m_s, perp, axial)
}

/// Rotate `v` by the unit quaternion `q` (x, y, z, w): `v + 2 w (u x v) + 2 u x (u x v)`, the
/// form the WGSL twin `quat_rotate` follows.
pub fn quat_rotate(q: [f32; 4], v: Vec3) -> Vec3 {
    let u = Vec3::new(q[0], q[1], q[2]);
    let t = 2.0 * u.cross(v);
    v + q[3] * t + u.cross(t)
}

/// Rotate `v` by the inverse of unit quaternion `q`: world into body frame.
pub fn quat_rotate_inv(q: [f32; 4], v: Vec3) -> Vec3 {
    quat_rotate([-q[0], -q[1], -q[2], q[3]], v)
}

/// The capsule particle `p` as its resolvers read it, from its array elements and its shape
/// record. WGSL twin: `load_capsule` in `shaders/lib/shape.wgsl`.
pub fn load_capsule(
    pos: [f32; 4],
    vel: [f32; 4],
    omega: [f32; 4],
    quat: [f32; 4],
    rec: &ShapeRecord,
) -> CapsuleBody {
    let axis = quat_rotate(quat, Vec3::Z);
    CapsuleBody {
        pos: [pos[0], pos[1], pos[2]],
        radius: rec.data[1],
        vel: [vel[0], vel[1], vel[2]],
        inv_mass: vel[3],
        omega: [omega[0], omega[1], omega[2]],
        half_length: rec.data[0],
        axis: axis.to_array(),
        _pad: 0.0,
    }
}

/// Angular momentum (kg m^2/s, world frame) of a body spinning at `omega` (world frame) with
/// orientation `quat` and principal moments per unit mass `k` (m^2, body frame): `R I R^T w`.
/// WGSL twin `angular_momentum` in `shaders/lib/shape.wgsl`.
pub fn angular_momentum(omega: Vec3, quat: [f32; 4], k: [f32; 3], inv_m: f32) -> Vec3 {
    let wb = quat_rotate_inv(quat, omega);
    quat_rotate(quat, Vec3::new(k[0], k[1], k[2]) * wb / inv_m)
}

/// Angular velocity (rad/s, world frame) of a body with angular momentum `l` (world frame):
/// `R I^-1 R^T L`. WGSL twin `spin_of` in `shaders/lib/shape.wgsl`.
pub fn spin_of(l: Vec3, quat: [f32; 4], k: [f32; 3], inv_m: f32) -> Vec3 {
    let lb = quat_rotate_inv(quat, l);
    quat_rotate(quat, lb * inv_m / Vec3::new(k[0], k[1], k[2]))
}

/// `quat` turned by the rotation vector `omega dt` (exactly: by `|omega| dt` about `omega`),
/// normalised. WGSL twin `quat_turn` in `shaders/lib/shape.wgsl`.
pub fn quat_turn(quat: [f32; 4], omega: Vec3, dt: f32) -> [f32; 4] {
    let angle = omega.length() * dt;
    let axis = if angle > 0.0 {
        omega / omega.length()
    } else {
        Vec3::ZERO
    };
    let (s, c) = ((0.5 * angle).sin(), (0.5 * angle).cos());
    let out = quat_mul([axis.x * s, axis.y * s, axis.z * s, c], quat);
    let len = (out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3]).sqrt();
    [out[0] / len, out[1] / len, out[2] / len, out[3] / len]
}

/// What a clump is, computed once from its member spheres: mass (kg), principal moments of
/// inertia per unit mass (m^2), the orientation of the principal frame in the frame the members
/// were given in (quaternion x, y, z, w), the centre of mass there (m), and each member's offset
/// from the centre of mass in the principal frame (m).
#[derive(Clone, Debug, PartialEq)]
pub struct ClumpProps {
    pub mass: f64,
    pub k: [f64; 3],
    pub axes: [f32; 4],
    pub com: [f64; 3],
    pub offsets: Vec<[f64; 3]>,
}

/// Mass properties of the union of overlapping spheres `members` (`(offset, radius)`, m) of
/// density `density` (kg/m^3): volume, centre of mass and inertia tensor integrated on a grid
/// of `n`^3 cell centres over the union's bounding box (each point counted once however many
/// spheres hold it), then the tensor's principal axes by Jacobi rotations. With `n = 96` a
/// single sphere's volume comes out within 0.1% and its moment within 0.2%.
pub fn clump_props(members: &[([f64; 3], f64)], density: f64, n: usize) -> ClumpProps {
    let lo = [0, 1, 2].map(|k| {
        members
            .iter()
            .map(|(o, r)| o[k] - r)
            .fold(f64::INFINITY, f64::min)
    });
    let hi = [0, 1, 2].map(|k| {
        members
            .iter()
            .map(|(o, r)| o[k] + r)
            .fold(f64::NEG_INFINITY, f64::max)
    });
    let h = [0, 1, 2].map(|k| (hi[k] - lo[k]) / n as f64);
    let dv = h[0] * h[1] * h[2];
    let (mut vol, mut first) = (0.0, [0.0f64; 3]);
    let mut second = [[0.0f64; 3]; 3];
    for a in 0..n {
        for b in 0..n {
            for c in 0..n {
                let x = [
                    lo[0] + (a as f64 + 0.5) * h[0],
                    lo[1] + (b as f64 + 0.5) * h[1],
                    lo[2] + (c as f64 + 0.5) * h[2],
                ];
                let inside = members
                    .iter()
                    .any(|(o, r)| (0..3).map(|k| (x[k] - o[k]).powi(2)).sum::<f64>() <= r * r);
                if !inside {
                    continue;
                }
                vol += dv;
                for i in 0..3 {
                    first[i] += x[i] * dv;
                    for j in 0..3 {
                        second[i][j] += x[i] * x[j] * dv;
                    }
                }
            }
        }
    }
    let com = first.map(|f| f / vol);
    // Inertia per unit volume about the centre of mass: I = tr(S) 1 - S, S the second moment.
    let mut s = [[0.0f64; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            s[i][j] = second[i][j] / vol - com[i] * com[j];
        }
    }
    let tr = s[0][0] + s[1][1] + s[2][2];
    let mut inertia = [[0.0f64; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            inertia[i][j] = if i == j { tr - s[i][j] } else { -s[i][j] };
        }
    }
    let (k, v) = jacobi_eigen(inertia);
    // Columns of v are the principal axes; make it a proper rotation.
    let mut v = v;
    let det = v[0][0] * (v[1][1] * v[2][2] - v[1][2] * v[2][1])
        - v[0][1] * (v[1][0] * v[2][2] - v[1][2] * v[2][0])
        + v[0][2] * (v[1][0] * v[2][1] - v[1][1] * v[2][0]);
    if det < 0.0 {
        for row in v.iter_mut() {
            row[2] = -row[2];
        }
    }
    let m = glam::DMat3::from_cols(
        glam::DVec3::new(v[0][0], v[1][0], v[2][0]),
        glam::DVec3::new(v[0][1], v[1][1], v[2][1]),
        glam::DVec3::new(v[0][2], v[1][2], v[2][2]),
    );
    let q = glam::DQuat::from_mat3(&m).normalize();
    let offsets = members
        .iter()
        .map(|(o, _)| {
            let d = glam::DVec3::new(o[0] - com[0], o[1] - com[1], o[2] - com[2]);
            (m.transpose() * d).to_array()
        })
        .collect();
    ClumpProps {
        mass: density * vol,
        k,
        axes: [q.x as f32, q.y as f32, q.z as f32, q.w as f32],
        com,
        offsets,
    }
}

/// Eigenvalues and eigenvectors (columns) of a symmetric 3x3 matrix by cyclic Jacobi rotations.
// A rotation acts on rows and columns by index: index loops read as the formula.
#[allow(clippy::needless_range_loop)]
fn jacobi_eigen(mut a: [[f64; 3]; 3]) -> ([f64; 3], [[f64; 3]; 3]) {
    let mut v = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    for _ in 0..50 {
        let off = a[0][1].abs() + a[0][2].abs() + a[1][2].abs();
        let scale = a[0][0].abs() + a[1][1].abs() + a[2][2].abs();
        if off <= 1e-15 * scale {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            if a[p][q].abs() <= 1e-300 {
                continue;
            }
            let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
            let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
            let t = if theta == 0.0 { 1.0 } else { t };
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            for k in 0..3 {
                let (akp, akq) = (a[k][p], a[k][q]);
                a[k][p] = c * akp - s * akq;
                a[k][q] = s * akp + c * akq;
            }
            for k in 0..3 {
                let (apk, aqk) = (a[p][k], a[q][k]);
                a[p][k] = c * apk - s * aqk;
                a[q][k] = s * apk + c * aqk;
            }
            for row in v.iter_mut() {
                let (vp, vq) = (row[p], row[q]);
                row[p] = c * vp - s * vq;
                row[q] = s * vp + c * vq;
            }
        }
    }
    ([a[0][0], a[1][1], a[2][2]], v)
}

/// Hamilton product `a b` of quaternions (x, y, z, w): the rotation `b` then `a`. WGSL twin
/// `quat_mul` in `shaders/lib/shape.wgsl`.
pub fn quat_mul(a: [f32; 4], b: [f32; 4]) -> [f32; 4] {
    [
        a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
        a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
        a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
        a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two equal overlapping spheres of radius r, centres 2a apart along x: the union's volume
    /// and axial moment in closed form (two spheres minus the lens), to the grid's accuracy.
    #[test]
    fn clump_props_of_two_spheres_match_closed_form() {
        let (r, a) = (1.0, 0.5);
        let p = clump_props(&[([-a, 0.3, 0.0], r), ([a, 0.3, 0.0], r)], 1.0, 96);
        let pi = std::f64::consts::PI;
        // Lens of two spheres at distance d = 2a: V = pi (4r + d)(2r - d)^2 / 12.
        let d = 2.0 * a;
        let lens = pi * (4.0 * r + d) * (2.0 * r - d).powi(2) / 12.0;
        let vol = 2.0 * 4.0 / 3.0 * pi - lens;
        assert!((p.mass - vol).abs() < 2e-3 * vol, "{} vs {vol}", p.mass);
        assert!((p.com[0]).abs() < 1e-9 && (p.com[1] - 0.3).abs() < 1e-9);
        // The axis through both centres is the symmetry axis: its moment is the smallest,
        // and the principal frame's offsets lie along one axis.
        let kmin = p.k.iter().cloned().fold(f64::INFINITY, f64::min);
        let axis = p.k.iter().position(|&x| x == kmin).unwrap();
        for o in &p.offsets {
            for (c, oc) in o.iter().enumerate() {
                if c != axis {
                    assert!(oc.abs() < 1e-9, "{o:?}");
                }
            }
            assert!((o[axis].abs() - a).abs() < 1e-9);
        }
        // A single sphere: k = 2/5 r^2 about every axis.
        let s = clump_props(&[([0.0; 3], r)], 1.0, 96);
        for k in s.k {
            assert!((k - 0.4).abs() < 2e-3, "{k}");
        }
    }
}
