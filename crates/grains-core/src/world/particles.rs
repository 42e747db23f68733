//! The particles of a world: their state as structure of arrays.

/// Particle state as structure of arrays. Every per-particle field is 16 bytes so the arrays
/// upload to the GPU as they are.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Particles {
    /// Centre (m) and radius (m).
    pub pos: Vec<[f32; 4]>,
    /// Velocity (m/s) and inverse mass (1/kg; 0 = fixed): the initial state, which a backend
    /// takes (empty in a backend's own world).
    pub vel: Vec<[f32; 4]>,
    /// Angular velocity (rad/s) and inverse moment of inertia (1/(kg m^2); 0 = fixed); taken
    /// by a backend as `vel` is.
    pub omega: Vec<[f32; 4]>,
    /// Orientation quaternion (x, y, z, w); taken by a backend as `vel` is.
    pub quat: Vec<[f32; 4]>,
    /// Material index.
    pub material: Vec<u32>,
    /// Mass (kg), kept for fixed particles too (energy, output).
    pub mass: Vec<f32>,
    /// Moment of inertia about the centre (kg m^2).
    pub inertia: Vec<f32>,
    /// Index into the shape table `shapes` ([`crate::shapes`]); `pos.w` is the bounding radius.
    pub shape: Vec<u32>,
    /// The shape table: entry 0 is the sphere (an empty table means spheres only).
    pub shapes: Vec<crate::shapes::ShapeRecord>,
}

impl Particles {
    /// Number of particles.
    pub fn len(&self) -> usize {
        // Not `pos`: a CPU backend's world has given its positions to the backend.
        self.material.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.material.is_empty()
    }

    /// Room for `more` particles in every per-particle array, exactly (a clump's members and a
    /// capsule take one each as well).
    pub fn reserve_exact(&mut self, more: usize) {
        self.pos.reserve_exact(more);
        self.vel.reserve_exact(more);
        self.omega.reserve_exact(more);
        self.quat.reserve_exact(more);
        self.material.reserve_exact(more);
        self.mass.reserve_exact(more);
        self.inertia.reserve_exact(more);
        self.shape.reserve_exact(more);
    }

    /// Give back the room the arrays grew into while particles were pushed one by one (up to
    /// as much again as they hold), which a run would otherwise keep to its end.
    pub fn shrink_to_fit(&mut self) {
        self.pos.shrink_to_fit();
        self.vel.shrink_to_fit();
        self.omega.shrink_to_fit();
        self.quat.shrink_to_fit();
        self.material.shrink_to_fit();
        self.mass.shrink_to_fit();
        self.inertia.shrink_to_fit();
        self.shape.shrink_to_fit();
        self.shapes.shrink_to_fit();
    }

    /// The shape table as the kernels read it: never empty, entry 0 the sphere.
    pub fn shape_table(&self) -> Vec<crate::shapes::ShapeRecord> {
        if self.shapes.is_empty() {
            vec![crate::shapes::ShapeRecord::sphere()]
        } else {
            self.shapes.clone()
        }
    }

    /// Whether spheres' orientations follow their spins (entry 0 of the shape table is
    /// [`crate::shapes::ShapeRecord::sphere_turning`]); off by default, as nothing a sphere
    /// touches depends on it.
    pub fn sphere_orientation(&self) -> bool {
        self.shapes.first().is_some_and(|s| s.turns())
    }

    /// Whether any particle keeps an orientation (a shape of the table turns,
    /// [`crate::shapes::ShapeRecord::turns`]): where none does, the backends hold no `quat`
    /// array and report every orientation as the identity.
    pub fn orientations_kept(&self) -> bool {
        self.shape_table().iter().any(|s| s.turns())
    }

    /// Whether a kinematic particle moves: a fixed body (inverse mass 0, not integrated) given
    /// a velocity or spin, which it keeps and with which it does work on the rest of the
    /// system (a clump's members follow their body and are not counted apart from it). Read
    /// from `vel` and `omega`, so only before a backend takes them ([`World::kinematic`] keeps
    /// the answer).
    pub fn kinematic_moves(&self) -> bool {
        use crate::shapes::KIND_MEMBER;
        (0..self.vel.len().min(self.omega.len())).any(|i| {
            let (v, w) = (self.vel[i], self.omega[i]);
            v[3] == 0.0
                && self.shape_of(i).kind != KIND_MEMBER
                && (v[..3].iter().chain(&w[..3]).any(|&x| x != 0.0))
        })
    }

    /// Track spheres' orientations (`on`) or leave them as they started.
    pub fn set_sphere_orientation(&mut self, on: bool) {
        use crate::shapes::ShapeRecord;
        let sphere = if on {
            ShapeRecord::sphere_turning()
        } else {
            ShapeRecord::sphere()
        };
        match self.shapes.first_mut() {
            Some(s) => *s = sphere,
            None if on => self.shapes.push(sphere),
            None => {}
        }
    }

    /// The shape record of particle `i`.
    pub fn shape_of(&self, i: usize) -> crate::shapes::ShapeRecord {
        self.shapes
            .get(self.shape[i] as usize)
            .copied()
            .unwrap_or_else(crate::shapes::ShapeRecord::sphere)
    }

    /// Index of `rec` in the shape table, added if new.
    pub fn add_shape(&mut self, rec: crate::shapes::ShapeRecord) -> u32 {
        if self.shapes.is_empty() {
            self.shapes.push(crate::shapes::ShapeRecord::sphere());
        }
        match self.shapes.iter().position(|s| *s == rec) {
            Some(i) => i as u32,
            None => {
                self.shapes.push(rec);
                (self.shapes.len() - 1) as u32
            }
        }
    }

    /// Append a solid capsule of segment half-length `half_length` and radius `radius` (m),
    /// oriented by the unit quaternion `quat` (x, y, z, w; body `z` is the axis), of `density`
    /// (kg/m^3). Its `pos.w` is the bounding radius `radius + half_length`, its `omega.w` the
    /// inverse of its transverse moment of inertia.
    #[allow(clippy::too_many_arguments)]
    pub fn push_capsule(
        &mut self,
        x: [f64; 3],
        radius: f64,
        half_length: f64,
        quat: [f32; 4],
        v: [f64; 3],
        w: [f64; 3],
        material: u32,
        density: f64,
        fixed: bool,
    ) {
        let (mass, perp, _) = crate::shapes::capsule_inertia(half_length, radius, density);
        let shape = self.add_shape(crate::shapes::ShapeRecord::capsule(
            half_length as f32,
            radius as f32,
        ));
        let (im, ii) = if fixed {
            (0.0, 0.0)
        } else {
            (1.0 / mass, 1.0 / perp)
        };
        let bound = radius + half_length;
        self.pos
            .push([x[0] as f32, x[1] as f32, x[2] as f32, bound as f32]);
        self.vel
            .push([v[0] as f32, v[1] as f32, v[2] as f32, im as f32]);
        self.omega
            .push([w[0] as f32, w[1] as f32, w[2] as f32, ii as f32]);
        self.quat.push(quat);
        self.material.push(material);
        self.mass.push(mass as f32);
        self.inertia.push(perp as f32);
        self.shape.push(shape);
    }

    /// Append a clump: a rigid body of the overlapping spheres `props` describes
    /// ([`crate::shapes::clump_props`]), whose member offsets were given relative to `x` (m)
    /// in the frame `quat` (x, y, z, w) turns into the world's. The body (at the centre of mass,
    /// in its principal frame) is appended first, then one particle per member sphere of
    /// `radii` (m). Members carry the body's inverse mass, so a contact's effective mass is the
    /// body's; they do not count in the energy, the body does.
    #[allow(clippy::too_many_arguments)]
    pub fn push_clump(
        &mut self,
        x: [f64; 3],
        props: &crate::shapes::ClumpProps,
        radii: &[f64],
        quat: [f32; 4],
        v: [f64; 3],
        w: [f64; 3],
        material: u32,
        fixed: bool,
    ) {
        use crate::shapes::{quat_mul, quat_rotate, ShapeRecord};
        let q = quat_mul(quat, props.axes);
        let com = quat_rotate(
            quat,
            glam::Vec3::new(
                props.com[0] as f32,
                props.com[1] as f32,
                props.com[2] as f32,
            ),
        );
        let xb = [0, 1, 2].map(|k| x[k] + com[k] as f64);
        let k = props.k.map(|x| x as f32);
        let perp = props.mass * props.k.iter().cloned().fold(f64::INFINITY, f64::min);
        let (im, ii) = if fixed {
            (0.0, 0.0)
        } else {
            (1.0 / props.mass, 1.0 / perp)
        };
        let n = radii.len() as u32;
        let body = self.add_shape(ShapeRecord::clump(n, k));
        self.pos.push([
            xb[0] as f32,
            xb[1] as f32,
            xb[2] as f32,
            crate::shapes::CLUMP_BODY_RADIUS,
        ]);
        self.vel
            .push([v[0] as f32, v[1] as f32, v[2] as f32, im as f32]);
        self.omega
            .push([w[0] as f32, w[1] as f32, w[2] as f32, ii as f32]);
        self.quat.push(q);
        self.material.push(material);
        self.mass.push(props.mass as f32);
        self.inertia.push(perp as f32);
        self.shape.push(body);
        let wv = glam::Vec3::new(w[0] as f32, w[1] as f32, w[2] as f32);
        for (j, (o, r)) in props.offsets.iter().zip(radii).enumerate() {
            let off = [o[0] as f32, o[1] as f32, o[2] as f32];
            let arm = quat_rotate(q, glam::Vec3::from(off));
            let vm = glam::Vec3::new(v[0] as f32, v[1] as f32, v[2] as f32) + wv.cross(arm);
            let s = self.add_shape(ShapeRecord::member(off, j as u32 + 1));
            self.pos.push([
                xb[0] as f32 + arm.x,
                xb[1] as f32 + arm.y,
                xb[2] as f32 + arm.z,
                *r as f32,
            ]);
            self.vel.push([vm.x, vm.y, vm.z, im as f32]);
            self.omega
                .push([w[0] as f32, w[1] as f32, w[2] as f32, ii as f32]);
            self.quat.push(q);
            self.material.push(material);
            self.mass.push(0.0);
            self.inertia.push(0.0);
            self.shape.push(s);
        }
    }

    /// Append a dormant sphere at `x` (m): the mass and inertia of `radius` (m) at `density`
    /// (kg/m^3) kept for when it enters the run, but the removed-particle radius, no velocity,
    /// no inverse mass or inertia ([`crate::insert`], [`crate::cells`]).
    pub fn push_dormant(&mut self, x: [f64; 3], radius: f64, material: u32, density: f64) {
        self.push_sphere(x, radius, [0.0; 3], [0.0; 3], material, density, false);
        let i = self.len() - 1;
        self.pos[i][3] = crate::backend::REMOVED_RADIUS;
        self.vel[i] = [0.0; 4];
        self.omega[i][3] = 0.0;
    }

    /// Append a solid sphere of `density` (kg/m^3).
    #[allow(clippy::too_many_arguments)]
    pub fn push_sphere(
        &mut self,
        x: [f64; 3],
        radius: f64,
        v: [f64; 3],
        w: [f64; 3],
        material: u32,
        density: f64,
        fixed: bool,
    ) {
        let mass = density * 4.0 / 3.0 * std::f64::consts::PI * radius.powi(3);
        let inertia = 0.4 * mass * radius * radius;
        let (im, ii) = if fixed {
            (0.0, 0.0)
        } else {
            (1.0 / mass, 1.0 / inertia)
        };
        self.pos
            .push([x[0] as f32, x[1] as f32, x[2] as f32, radius as f32]);
        self.vel
            .push([v[0] as f32, v[1] as f32, v[2] as f32, im as f32]);
        self.omega
            .push([w[0] as f32, w[1] as f32, w[2] as f32, ii as f32]);
        self.quat.push(crate::shapes::IDENTITY);
        self.material.push(material);
        self.mass.push(mass as f32);
        self.inertia.push(inertia as f32);
        self.shape.push(crate::shapes::SPHERE);
    }
}
