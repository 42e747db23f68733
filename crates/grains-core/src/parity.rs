//! Random inputs for CPU/GPU parity tests: a deterministic generator, the common parts of a
//! law's random case (a contact geometry and the force earlier laws accumulated), and the bodies,
//! walls and triangles of a resolver's. Each law adds its own parameters and history in its
//! `parity_case`; each resolver picks its records in its own.

use crate::kernel_types::{
    CapsuleBody, ContactForce, ContactGeom, DomainParams, SphereBody, Triangle, Wall,
};
use crate::kernels::resolvers::ResolverCase;
use crate::kernels::walls::{Near, WallKind, WALL_PLANE};

/// splitmix64: the deterministic random source of parity inputs and tests.
#[derive(Clone, Debug)]
pub struct SplitMix(pub u64);

impl SplitMix {
    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [a, b).
    pub fn range(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.uniform()
    }

    /// Log-uniform in [a, b) (a, b > 0), as f32.
    pub fn log_uniform(&mut self, a: f64, b: f64) -> f32 {
        (a.ln() + (b.ln() - a.ln()) * self.uniform()).exp() as f32
    }

    /// A random unit vector.
    pub fn unit(&mut self) -> [f32; 3] {
        loop {
            let v = [
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
            ];
            let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
            if l > 0.1 && l <= 1.0 {
                return v.map(|x| (x / l) as f32);
            }
        }
    }

    /// A vector with components uniform in [-s, s).
    pub fn vec3(&mut self, s: f64) -> [f32; 3] {
        std::array::from_fn(|_| self.range(-s, s) as f32)
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.uniform() < p
    }
}

/// A random contact geometry: radii 0.1 to 10 mm, overlaps mostly positive (a tenth slightly
/// apart, case 0 exactly touching), any normal, speeds up to 1 m/s.
pub fn random_geom(rng: &mut SplitMix, i: usize) -> ContactGeom {
    let r1 = rng.log_uniform(1e-4, 1e-2);
    let r2 = rng.log_uniform(1e-4, 1e-2);
    let r_eff = r1 * r2 / (r1 + r2);
    let delta = match i {
        0 => 0.0,
        _ if rng.chance(0.1) => -(r_eff * rng.range(0.0, 0.01) as f32),
        _ => r_eff * rng.log_uniform(1e-6, 1e-1),
    };
    let normal = rng.unit();
    ContactGeom {
        normal,
        delta,
        point: rng.vec3(0.05),
        r_eff,
        vrel: rng.vec3(1.0),
        m_eff: rng.log_uniform(1e-7, 1e-1),
        arm1: normal.map(|x| x * r1),
        fraction: 1.0,
        arm2: normal.map(|x| -x * r2),
        dt: rng.log_uniform(1e-7, 1e-5),
        lengths: [r1, r2],
        _pad: [0.0; 2],
        wrel: rng.vec3(1e3),
        _pad2: 0.0,
        alignment: [0.0; 3],
        _pad3: 0.0,
    }
}

/// A realistic force from an earlier normal law, for laws later in the chain.
pub fn random_prior_force(rng: &mut SplitMix, geom: &ContactGeom) -> ContactForce {
    let fn_mag = rng.log_uniform(1e-6, 1e1);
    ContactForce {
        force: geom.normal.map(|x| -x * fn_mag),
        normal_force: fn_mag,
        stiffness: rng.log_uniform(1e1, 1e7),
        ..Default::default()
    }
}

/// The time step of the resolver harnesses (s), written into `ContactGeom.dt`.
pub const RESOLVER_DT: f32 = 1e-6;

/// The domain of the resolver harnesses: periodic in x only, over a box the pairs straddle, so
/// that pairs of particles across the boundary are resolved through the minimum image.
pub fn resolver_domain() -> DomainParams {
    crate::world::Domain {
        min: [-0.06; 3],
        max: [0.06; 3],
        periodic: [true, false, false],
    }
    .params()
}

fn norm(v: [f32; 3]) -> f32 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

/// A sphere at `pos` of radius `radius`, moving and spinning; `fixed` gives it no inverse mass.
pub fn random_sphere(rng: &mut SplitMix, pos: [f32; 3], radius: f32, fixed: bool) -> SphereBody {
    SphereBody {
        pos,
        radius,
        vel: rng.vec3(1.0),
        inv_mass: if fixed {
            0.0
        } else {
            rng.log_uniform(1e1, 1e6)
        },
        omega: rng.vec3(100.0),
        _pad: 0.0,
    }
}

/// A random pair of spheres touching, nearly touching or apart, with edge cases first:
/// coincident centres (case 0), exactly touching (case 1), a fixed body 2 (case 2).
pub fn sphere_pair(rng: &mut SplitMix, i: usize) -> (SphereBody, SphereBody) {
    let r1 = rng.log_uniform(1e-4, 1e-2);
    let r2 = rng.log_uniform(1e-4, 1e-2);
    let p1 = rng.vec3(0.05);
    let n = rng.unit();
    let gap = match i {
        0 => 0.0,
        1 => (r1 + r2) as f64,
        _ => (r1 + r2) as f64 * rng.range(0.8, 1.1),
    };
    let p2 = std::array::from_fn(|k| p1[k] + n[k] * gap as f32);
    let b1 = random_sphere(rng, p1, r1, false);
    let b2 = random_sphere(rng, p2, r2, i == 2);
    (b1, b2)
}

/// The case of two spheres ([`sphere_pair`]): lengths compared at the sum of the radii,
/// velocities at the largest surface speed.
pub fn sphere_pair_case(rng: &mut SplitMix, i: usize) -> ResolverCase<SphereBody, SphereBody> {
    let (b1, b2) = sphere_pair(rng, i);
    let size = b1.radius + b2.radius;
    ResolverCase {
        b1,
        b2,
        triangle: Triangle::default(),
        size,
        speed: norm(b1.vel)
            + norm(b2.vel)
            + norm(b1.omega) * b1.radius
            + norm(b2.omega) * b2.radius,
        pos_scale: norm(b1.pos).max(size),
    }
}

/// The case of a sphere and a wall of kind `kind` ([`random_wall`]): lengths compared at the
/// sphere's radius, velocities at the largest surface speed, the wall's included.
pub fn sphere_wall_case(kind: u32, rng: &mut SplitMix, i: usize) -> ResolverCase<SphereBody, Wall> {
    let radius = rng.log_uniform(1e-4, 1e-2);
    let pos = rng.vec3(0.05);
    let b1 = random_sphere(rng, pos, radius, false);
    let w = random_wall(kind, &b1, rng, i);
    let wall_speed = norm(w.velocity) + norm(w.omega) * (norm(b1.pos) + norm(w.center));
    ResolverCase {
        b1,
        b2: w,
        triangle: Triangle::default(),
        size: radius,
        speed: norm(b1.vel) + norm(b1.omega) * radius + wall_speed,
        pos_scale: norm(b1.pos).max(norm(w.point)).max(radius),
    }
}

/// The inputs of the resolvers of shapes beyond the sphere (capsules, triangles, a capsule on a
/// plane), all drawn together from one pair of spheres, and the scales all of them are
/// compared at: the pair's size with both capsules' half-lengths, every surface speed, the
/// wall's included.
#[derive(Clone, Copy, Debug)]
pub struct ShapeInputs {
    /// A pair of spheres ([`sphere_pair`]).
    pub spheres: (SphereBody, SphereBody),
    /// Each sphere as a capsule ([`capsule_of`]).
    pub capsules: (CapsuleBody, CapsuleBody),
    /// A triangle carried by the second sphere ([`triangle_near`]).
    pub triangle: Triangle,
    /// A plane wall near the first sphere ([`random_wall`]).
    pub plane: Wall,
    /// Length scale (m).
    pub size: f32,
    /// Speed scale (m/s).
    pub speed: f32,
    /// Position scale (m).
    pub pos_scale: f32,
}

/// Random shape inputs of case `i` (edge cases first: those of [`sphere_pair`], a capsule of
/// zero half-length in every fourth case, a wall exactly touching in case 1).
pub fn shape_inputs(rng: &mut SplitMix, i: usize) -> ShapeInputs {
    let (b1, b2) = sphere_pair(rng, i);
    let c1 = capsule_of(&b1, rng, i);
    let c2 = capsule_of(&b2, rng, i + 1);
    let triangle = triangle_near(&b1, &b2, rng, i);
    let plane = random_wall(WALL_PLANE, &b1, rng, i);
    let size = b1.radius + b2.radius + c1.half_length + c2.half_length;
    let speed = norm(b1.vel)
        + norm(b2.vel)
        + (norm(b1.omega) + norm(b2.omega)) * size
        + norm(plane.velocity)
        + norm(plane.omega) * (norm(b1.pos) + norm(plane.center));
    ShapeInputs {
        spheres: (b1, b2),
        capsules: (c1, c2),
        triangle,
        plane,
        size,
        speed,
        pos_scale: norm(b1.pos).max(norm(plane.point)).max(size),
    }
}

impl ShapeInputs {
    /// The case of bodies `b1` and `b2` (picked from these inputs) with the triangle and the
    /// scales of these inputs.
    pub fn case<B1, B2>(&self, b1: B1, b2: B2) -> ResolverCase<B1, B2> {
        ResolverCase {
            b1,
            b2,
            triangle: self.triangle,
            size: self.size,
            speed: self.speed,
            pos_scale: self.pos_scale,
        }
    }
}

/// Sphere `b` as a capsule: its centre and radius, a random axis and a half-length of up to
/// twice its radius (zero in every fourth case, where a capsule is a sphere).
pub fn capsule_of(b: &SphereBody, rng: &mut SplitMix, i: usize) -> CapsuleBody {
    CapsuleBody {
        pos: b.pos,
        radius: b.radius,
        vel: b.vel,
        inv_mass: b.inv_mass,
        omega: b.omega,
        half_length: if i.is_multiple_of(4) {
            0.0
        } else {
            b.radius * rng.range(0.0, 2.0) as f32
        },
        axis: rng.unit(),
        _pad: 0.0,
    }
}

/// A triangle carried by `b2`, about the size of `b1`, near the segment between them: some
/// reach `b1`, some miss it.
pub fn triangle_near(b1: &SphereBody, b2: &SphereBody, rng: &mut SplitMix, i: usize) -> Triangle {
    let size = b1.radius * rng.range(0.5, 3.0) as f32;
    let towards: [f32; 3] = std::array::from_fn(|k| (b1.pos[k] - b2.pos[k]) * 0.5);
    let corner = |rng: &mut SplitMix| {
        let u = rng.unit();
        std::array::from_fn(|k| towards[k] * (i % 3) as f32 * 0.5 + u[k] * size)
    };
    Triangle {
        a: corner(rng),
        b: corner(rng),
        c: corner(rng),
        ..Default::default()
    }
}

/// A wall of kind `kind` placed at a random distance around sphere `b` (touching in about half
/// the cases, exactly in case 1; [`WallShape::place_near`](crate::kernels::walls::WallShape::place_near)
/// shapes it), moving in the odd cases.
pub fn random_wall(kind: u32, b: &SphereBody, rng: &mut SplitMix, i: usize) -> Wall {
    let normal = rng.unit();
    let rad = b.radius;
    let d = if i == 1 {
        rad
    } else {
        rad * rng.range(0.5, 1.2) as f32
    };
    let x = b.pos;
    let across = {
        let a = rng.unit();
        let c = [
            a[1] * normal[2] - a[2] * normal[1],
            a[2] * normal[0] - a[0] * normal[2],
            a[0] * normal[1] - a[1] * normal[0],
        ];
        let l = norm(c).max(1e-6);
        c.map(|v| v / l)
    };
    let mut w = Wall::plane(std::array::from_fn(|k| x[k] - normal[k] * d), normal, 0);
    if let Some(kind) = WallKind::of(kind) {
        let near = Near {
            x,
            rad,
            d,
            normal,
            across,
            i,
        };
        kind.place_near(&mut w, &near, rng);
    }
    if i % 2 == 1 {
        w.velocity = rng.unit().map(|v| v * 0.3);
        w.omega = rng.unit().map(|v| v * 20.0);
        w.center = std::array::from_fn(|k| w.point[k] + across[k] * 0.01);
        w.moving = 1;
    }
    w
}

/// A rounding of floats by 4 ulp, up or down, the signs drawn from a generator seeded by `tag`
/// and the bits of `words` (a case's inputs), so that a case always gets the same roundings:
/// the input rounding of [`wall_spread`] and of the law parity test.
pub fn ulp_rounder(tag: u64, words: &[u32]) -> impl FnMut(&mut f32) {
    let seed = words.iter().fold(tag, |a, &x| a.rotate_left(5) ^ x as u64);
    let mut rng = SplitMix(seed);
    move |x: &mut f32| {
        let s = if rng.uniform() < 0.5 { -1.0 } else { 1.0 };
        *x *= 1.0 + s * 4.0 * f32::EPSILON;
    }
}

/// How far a wall resolver's twin moves when the geometry it reads (the sphere's centre and
/// radius; the wall's point, axis, radius and slope) is rounded by 4 ulp, each float up or down
/// (signs from a generator seeded by the inputs), three times: the largest change of the normal
/// (per component), the overlap, the arms and the contact point from the twin's outputs on the
/// inputs as they are. Where the sphere's centre is near a cone's or a cylinder's axis, the
/// radial direction amplifies the rounding of the centre by the ratio of the wall's radius to
/// that distance: an H200 turned a sphere-cone normal by 1.5e-5 there, which a fixed 16 ulp of
/// the positions did not cover, and moved the contact point, which lies along that normal, by
/// 3.8e-7 m (1.1e-5 of the positions).
pub fn wall_spread(
    twin: impl Fn(&SphereBody, &Wall) -> ContactGeom,
    b: &SphereBody,
    w: &Wall,
) -> [f32; 4] {
    let a = twin(b, w);
    let mut bump = ulp_rounder(0x5EED_0004, bytemuck::cast_slice(std::slice::from_ref(w)));
    let mut out = [0.0f32; 4];
    for _ in 0..3 {
        let (mut b, mut w) = (*b, *w);
        b.pos.iter_mut().for_each(&mut bump);
        bump(&mut b.radius);
        w.point.iter_mut().for_each(&mut bump);
        w.normal.iter_mut().for_each(&mut bump);
        bump(&mut w.radius);
        bump(&mut w.slope);
        let g = twin(&b, &w);
        let most =
            |x: [f32; 3], y: [f32; 3]| (0..3).fold(0.0f32, |m, k| m.max((x[k] - y[k]).abs()));
        out[0] = out[0].max(most(a.normal, g.normal));
        out[1] = out[1].max((a.delta - g.delta).abs());
        out[2] = out[2].max(most(a.arm1, g.arm1)).max(most(a.arm2, g.arm2));
        out[3] = out[3].max(most(a.point, g.point));
    }
    out
}
