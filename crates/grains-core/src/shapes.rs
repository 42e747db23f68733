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
use glam::{Quat, Vec3};

use crate::gpu_types::CapsuleBody;

/// The kind of a shape record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u32)]
pub enum ShapeKind {
    /// A solid sphere of the particle's radius (`pos.w`); no data.
    Sphere = 0,
    /// A segment swept by a sphere: `data = [half_length, radius, kx, ky, kz, 0, 0]`, `k` the
    /// principal moments of inertia per unit mass (m^2), axis along body `z`.
    Capsule = 1,
    /// A triangle of a mesh wall: `data[0]` holds the index into the world's triangle table
    /// (as the bits of a u32).
    Triangle = 2,
}

/// `ShapeKind::Capsule as u32`, as the kernels compare it.
pub const KIND_CAPSULE: u32 = ShapeKind::Capsule as u32;
/// `ShapeKind::Triangle as u32`.
pub const KIND_TRIANGLE: u32 = ShapeKind::Triangle as u32;

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

    /// The kind, if the number is one.
    pub fn shape_kind(&self) -> Option<ShapeKind> {
        match self.kind {
            0 => Some(ShapeKind::Sphere),
            1 => Some(ShapeKind::Capsule),
            2 => Some(ShapeKind::Triangle),
            _ => None,
        }
    }

    /// Principal moments of inertia per unit mass (m^2), body frame; `None` for a sphere
    /// (whose scalar inertia is in `omega.w`) and a triangle.
    pub fn inertia_per_mass(&self) -> Option<[f32; 3]> {
        (self.kind == KIND_CAPSULE).then(|| [self.data[2], self.data[3], self.data[4]])
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

/// The unit quaternion (x, y, z, w) turning body `z` onto the unit vector `axis`.
pub fn quat_from_axis(axis: [f64; 3]) -> [f32; 4] {
    let a = Vec3::new(axis[0] as f32, axis[1] as f32, axis[2] as f32).normalize();
    let q = Quat::from_rotation_arc(Vec3::Z, a);
    [q.x, q.y, q.z, q.w]
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
    let r = [axis.x * s, axis.y * s, axis.z * s, c];
    let q = quat;
    // r * q (Hamilton product, x y z w).
    let out = [
        r[3] * q[0] + r[0] * q[3] + r[1] * q[2] - r[2] * q[1],
        r[3] * q[1] - r[0] * q[2] + r[1] * q[3] + r[2] * q[0],
        r[3] * q[2] + r[0] * q[1] - r[1] * q[0] + r[2] * q[3],
        r[3] * q[3] - r[0] * q[0] - r[1] * q[1] - r[2] * q[2],
    ];
    let len = (out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3]).sqrt();
    [out[0] / len, out[1] / len, out[2] / len, out[3] / len]
}
