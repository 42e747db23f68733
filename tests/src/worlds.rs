//! Small worlds built directly with grains-core's API, for tests that should not depend on the
//! scene parser.

use grains_core::kernel_types::Wall;
use grains_core::kernels::laws::cundall_strack::{CundallStrackSpec, TangentialStiffness};
use grains_core::kernels::laws::hertz_damped::HertzDampedSpec;
use grains_core::kernels::laws::linear::LinearSpec;
use grains_core::kernels::laws::viscous::ViscousSpec;
use grains_core::material::Material;
use grains_core::materials::Interaction;
pub use grains_core::parity::SplitMix;
use grains_core::{Domain, LawSpec, Particles, World};

/// A material with the given Young's modulus (Pa) and density (kg/m^3), Poisson 0.3.
pub fn material(name: &str, young: f64, density: f64) -> Material {
    Material {
        name: name.into(),
        density,
        young,
        poisson: 0.3,
        drag: Default::default(),
    }
}

/// `hertz`.
pub fn hertz() -> LawSpec {
    LawSpec::Hertz(())
}

/// `linear`, with the stiffness given (N/m) or from Young's modulus.
pub fn linear(stiffness: Option<f64>) -> LawSpec {
    LawSpec::Linear(LinearSpec { stiffness })
}

/// `hertz_damped` with damping constant `a` (s).
pub fn hertz_damped(damping_time: f64) -> LawSpec {
    LawSpec::HertzDamped(HertzDampedSpec { damping_time })
}

/// `viscous` for restitution `e`.
pub fn viscous(restitution: f64) -> LawSpec {
    LawSpec::Viscous(ViscousSpec {
        restitution,
        tsuji: false,
    })
}

/// `cundall_strack` with dynamic and static coefficients.
pub fn cundall_strack(mu_d: f64, mu_s: f64, stiffness: TangentialStiffness) -> LawSpec {
    LawSpec::CundallStrack(CundallStrackSpec {
        friction: mu_d,
        friction_static: mu_s,
        liggghts: None,
        stiffness: Some(stiffness),
    })
}

/// Interaction of material 0 with itself: a normal law, optionally a viscous dashpot for
/// `restitution` and a Cundall-Strack spring with `(mu_d, mu_s)`.
pub fn self_interaction(
    normal: LawSpec,
    restitution: Option<f64>,
    friction: Option<(f64, f64)>,
    stiffness: TangentialStiffness,
) -> Interaction {
    let mut laws = vec![normal];
    laws.extend(restitution.map(viscous));
    laws.extend(friction.map(|(mu_d, mu_s)| cundall_strack(mu_d, mu_s, stiffness)));
    Interaction::new(0, 0, laws)
}

/// An open domain that is large enough for a handful of particles near the origin.
pub fn open_domain(half: f64) -> Domain {
    Domain {
        min: [-half; 3],
        max: [half; 3],
        periodic: [false; 3],
    }
}

/// A plane wall of material 0 through `point` with inward `normal`.
pub fn wall(point: [f32; 3], normal: [f32; 3]) -> Wall {
    Wall::plane(point, normal, 0)
}

/// Six inward walls on the faces of the box `[min, max]`.
pub fn box_walls(min: [f32; 3], max: [f32; 3]) -> Vec<Wall> {
    let mut w = Vec::new();
    for k in 0..3 {
        let mut n = [0.0f32; 3];
        n[k] = 1.0;
        w.push(wall(min, n));
        let mut n = [0.0f32; 3];
        n[k] = -1.0;
        w.push(wall(max, n));
    }
    w
}

/// `n` spheres of radius `r` in a jittered simple-cubic lattice filling the box `[lo, hi]`,
/// with random velocities of magnitude up to `vmax` (m/s) and spins up to `wmax` (rad/s).
#[allow(clippy::too_many_arguments)]
pub fn lattice_particles(
    lo: [f64; 3],
    hi: [f64; 3],
    r: f64,
    spacing: f64,
    density: f64,
    vmax: f64,
    wmax: f64,
    seed: u64,
) -> Particles {
    let mut rng = SplitMix(seed);
    let mut p = Particles::default();
    let counts: Vec<usize> = (0..3)
        .map(|k| ((hi[k] - lo[k]) / spacing).floor() as usize)
        .collect();
    let jitter = 0.5 * (spacing - 2.0 * r) * 0.9;
    for k in 0..counts[2] {
        for j in 0..counts[1] {
            for i in 0..counts[0] {
                let c = [i, j, k];
                let x: [f64; 3] = std::array::from_fn(|a| {
                    lo[a] + (c[a] as f64 + 0.5) * spacing + rng.range(-jitter, jitter)
                });
                let v: [f64; 3] = std::array::from_fn(|_| rng.range(-vmax, vmax));
                let w: [f64; 3] = std::array::from_fn(|_| rng.range(-wmax, wmax));
                p.push_sphere(x, r, v, w, 0, density, false);
            }
        }
    }
    p
}

/// Build a world, panicking with the core error (tests only).
#[allow(clippy::too_many_arguments)]
pub fn world(
    particles: Particles,
    walls: Vec<Wall>,
    mat: Material,
    inter: Interaction,
    domain: Domain,
    gravity: [f64; 3],
    dt: f64,
    skin: f64,
) -> World {
    match World::new(
        particles,
        walls,
        vec![mat],
        vec![inter],
        domain,
        gravity,
        dt,
        skin,
    ) {
        Ok(w) => w,
        Err(e) => panic!("test world rejected: {e}"),
    }
}

/// Hertz, no damping, no friction.
pub fn hertz_only() -> Interaction {
    self_interaction(hertz(), None, None, TangentialStiffness::Mindlin)
}

/// One sphere at (0.1, 0.1, 0.1) m drifting at (1e-4, -1e-4, 0) m/s with dt = 1e-5 s: each
/// step moves it 1e-9 m, under half an ulp of its coordinates (3.7e-9 m).
pub fn slow_particle_world() -> World {
    let mut p = Particles::default();
    p.push_sphere(
        [0.1, 0.1, 0.1],
        0.001,
        [1e-4, -1e-4, 0.0],
        [0.0; 3],
        0,
        2500.0,
        false,
    );
    world(
        p,
        vec![],
        material("m", 1e7, 2500.0),
        hertz_only(),
        open_domain(1.0),
        [0.0; 3],
        1e-5,
        0.0005,
    )
}

/// Two equal spheres of radius `r` (m, density 2500 kg/m^3, material `young` Pa) approaching
/// head on along x at relative speed `v` (m/s) from a gap of `r / 1000`, joined by `inter`, at
/// time step `dt` (s), in an open domain with no gravity.
pub fn head_on_world(inter: Interaction, r: f64, v: f64, young: f64, dt: f64) -> World {
    let mut p = Particles::default();
    let gap = 1e-3 * r;
    for (x, vx) in [(-(r + gap), 0.5 * v), (r + gap, -0.5 * v)] {
        p.push_sphere([x, 0.0, 0.0], r, [vx, 0.0, 0.0], [0.0; 3], 0, 2500.0, false);
    }
    world(
        p,
        vec![],
        material("m", young, 2500.0),
        inter,
        open_domain(10.0 * r),
        [0.0; 3],
        dt,
        0.1 * r,
    )
}

/// Step `b` through one contact of particle 0: until its contact force, once non-zero, is
/// zero again, or `max_steps`. Returns the steps spent in contact (0: they never met).
pub fn through_contact(b: &mut grains_core::CpuBackend, max_steps: u64) -> u64 {
    use grains_core::Backend;
    let mut in_contact = 0;
    for _ in 0..max_steps {
        b.step();
        if b.force[0][0] != 0.0 {
            in_contact += 1;
        } else if in_contact > 0 {
            break;
        }
    }
    in_contact
}

/// The restitution of a head-on impact along x: separation speed over `v`.
pub fn restitution_of(b: &grains_core::CpuBackend, v: f64) -> f64 {
    (b.vel[1][0] - b.vel[0][0]) as f64 / v
}

/// A sphere of radius `r` (m, density 2500 kg/m^3, material `young` Pa) on a floor at z = 0
/// under gravity g = 9.81 m/s^2, starting at its Hertz rest overlap with velocity `v` (m/s) and
/// spin `w` (rad/s), joined to the floor by `laws`, at time step `dt` (s). Returns the world and
/// that overlap (m).
pub fn sphere_on_floor(
    r: f64,
    young: f64,
    v: [f64; 3],
    w: [f64; 3],
    laws: Vec<LawSpec>,
    dt: f64,
) -> (World, f64) {
    let g = 9.81;
    let mat = material("m", young, 2500.0);
    let m = 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * r * r * r;
    let k = 4.0 / 3.0 * grains_core::material::effective_young(&mat, &mat) * r.sqrt();
    let delta = (m * g / k).powf(2.0 / 3.0);
    let mut p = Particles::default();
    p.push_sphere([0.0, 0.0, r - delta], r, v, w, 0, 2500.0, false);
    let walls = vec![wall([0.0, 0.0, 0.0], [0.0, 0.0, 1.0])];
    let inter = Interaction::new(0, 0, laws);
    let world = world(
        p,
        walls,
        mat,
        inter,
        open_domain(1.0),
        [0.0, 0.0, -g],
        dt,
        0.2 * r,
    );
    (world, delta)
}
