//! Every resolver and law against its CPU twin through the harness kernels, on seeded random
//! inputs.

use super::*;

// ---------------------------------------------------------------------------------------------
// Elements through their harness kernels

use grains_core::gpu_types::{CapsuleBody, ContactForce, ContactGeom, SphereBody, Triangle, Wall};
use grains_core::kernels::resolvers::{
    resolve_capsule_capsule, resolve_capsule_plane, resolve_capsule_sphere,
    resolve_capsule_triangle, resolve_sphere_cone, resolve_sphere_cylinder, resolve_sphere_disk,
    resolve_sphere_plane, resolve_sphere_point, resolve_sphere_sphere, resolve_sphere_triangle,
};
use grains_core::{LawKind, ResolverKind};

const N_RANDOM: usize = 10_000;

fn norm(v: [f32; 3]) -> f32 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

/// Run a harness over the given buffers and read back its outputs as `T`s.
fn harness(
    ctx: &GpuContext,
    name: &str,
    buffers: &[(&str, &[u8])],
    outputs: &[&str],
    n: usize,
) -> Vec<Vec<u8>> {
    let src = grains_shaders::compose_harness(name).unwrap_or_else(|e| panic!("{name}: {e}"));
    let entry = grains_shaders::harnesses()
        .into_iter()
        .find(|(h, _)| h == name)
        .map(|(_, e)| e)
        .unwrap_or_else(|| panic!("no harness {name}"));
    grains_gpu::kernel::run_once(
        ctx,
        name,
        &src,
        entry,
        buffers,
        outputs,
        n.div_ceil(64) as u32,
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// `|a - b| <= tol * scale` per component, with a message naming the element and field.
fn check(what: &str, i: usize, field: &str, a: &[f32], b: &[f32], tol: f32, scale: f32) {
    check_slack(what, i, field, a, b, tol, scale, 0.0);
}

/// As [`check`], with `slack` added to the bound: the rounding a value inherits from larger
/// inputs it is a difference of.
#[allow(clippy::too_many_arguments)]
fn check_slack(
    what: &str,
    i: usize,
    field: &str,
    a: &[f32],
    b: &[f32],
    tol: f32,
    scale: f32,
    slack: f32,
) {
    for k in 0..a.len() {
        let ok = (a[k] - b[k]).abs() <= tol * scale + slack || (a[k].is_nan() && b[k].is_nan());
        assert!(
            ok,
            "{what} #{i} {field}: cpu {a:?} gpu {b:?} (tol {tol} x scale {scale:e} + {slack:e})"
        );
    }
}

/// How far a wall resolver's twin moves when the geometry it reads (the sphere's centre and
/// radius; the wall's point, axis, radius and slope) is rounded by 4 ulp, each float up or down
/// (signs from a generator seeded by the inputs), three times: the largest change of the normal
/// (per component), the overlap, the arms and the contact point from the twin's outputs `a`. Where the sphere's
/// centre is near a cone's or a cylinder's axis, the radial direction amplifies the rounding of
/// the centre by the ratio of the wall's radius to that distance: an H200 turned a sphere-cone
/// normal by 1.5e-5 there, which `compare_geom`'s fixed 16 ulp of the positions did not cover,
/// and moved the contact point, which lies along that normal, by 3.8e-7 m (1.1e-5 of the
/// positions).
fn wall_spread(
    twin: impl Fn(&SphereBody, &Wall) -> ContactGeom,
    a: &ContactGeom,
    b: &SphereBody,
    w: &Wall,
) -> [f32; 4] {
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

/// A random pair of spheres touching, nearly touching or apart, with edge cases first:
/// coincident centres, exactly touching, a fixed body.
fn sphere_pairs(rng: &mut SplitMix) -> Vec<(SphereBody, SphereBody)> {
    let mut out = Vec::new();
    for i in 0..N_RANDOM {
        let r1 = rng.log_uniform(1e-4, 1e-2);
        let r2 = rng.log_uniform(1e-4, 1e-2);
        let p1 = rng.vec3(0.05);
        let n = rng.unit();
        let gap = match i {
            0 => 0.0,              // coincident centres
            1 => (r1 + r2) as f64, // exactly touching (zero overlap)
            _ => (r1 + r2) as f64 * rng.range(0.8, 1.1),
        };
        let p2 = std::array::from_fn(|k| p1[k] + n[k] * gap as f32);
        let body = |rng: &mut SplitMix, pos: [f32; 3], radius: f32, fixed: bool| SphereBody {
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
        };
        let b1 = body(rng, p1, r1, false);
        let b2 = body(rng, p2, r2, i == 2);
        out.push((b1, b2));
    }
    out
}

/// Resolver outputs: directions to `tol` absolute (unit vectors), lengths to `tol` of the
/// pair's size (the overlap is a difference of nearly equal lengths, so relative to itself
/// it would be ill-conditioned), velocities to `tol` of the pair's largest surface speed,
/// masses, radii and pass-through values relative to themselves.
///
/// `spread` is the twin's own movement under input rounding ([`wall_spread`]: normal, overlap,
/// arms, point; zero where not measured), four times of which each bound adds.
#[allow(clippy::too_many_arguments)]
fn compare_geom(
    what: &str,
    i: usize,
    a: &ContactGeom,
    b: &ContactGeom,
    tol: f32,
    size: f32,
    speed: f32,
    pos_scale: f32,
    spread: [f32; 4],
) {
    // The overlap and the arms are differences of positions: each carries the positions'
    // rounding, an ulp of `pos_scale` (f32::EPSILON of it) per operation, whatever their own
    // size. A conforming adapter may round sqrt and division to 2.5 ulp and fuse multiply-adds
    // (an H100 under Vulkan gave 0.9 ulp of the position on a sphere-disk arm, 1.1e-5 of the
    // radius); 16 ulp of the positions covers that with room.
    let slack = 16.0 * f32::EPSILON * pos_scale;
    // The normal is the direction between two points `size - delta` apart (the centres, or a
    // centre and its closest point on a wall): their rounding turns it by `slack` over that
    // distance (an H100 turned a sphere-disk normal by 4e-5 near the rim). Coincident points
    // keep the resolver's convention, exactly.
    let gap = size - a.delta;
    let turn = if gap > 0.0 {
        (slack / gap).min(2.0)
    } else {
        0.0
    };
    let turn = turn + 4.0 * spread[0];
    check_slack(what, i, "normal", &a.normal, &b.normal, tol, 1.0, turn);
    let dslack = slack + 4.0 * spread[1];
    check_slack(what, i, "delta", &[a.delta], &[b.delta], tol, size, dslack);
    check_slack(
        what,
        i,
        "point",
        &a.point,
        &b.point,
        tol,
        pos_scale,
        4.0 * spread[3],
    );
    check(what, i, "r_eff", &[a.r_eff], &[b.r_eff], tol, a.r_eff.abs());
    check(what, i, "vrel", &a.vrel, &b.vrel, tol, speed);
    check(what, i, "m_eff", &[a.m_eff], &[b.m_eff], tol, a.m_eff.abs());
    let aslack = slack + 4.0 * spread[2];
    check_slack(what, i, "arm1", &a.arm1, &b.arm1, tol, size, aslack);
    check_slack(what, i, "arm2", &a.arm2, &b.arm2, tol, size, aslack);
    // A pass-through 1 for most resolvers, an area ratio for the triangle's.
    check(what, i, "fraction", &[a.fraction], &[b.fraction], tol, 1.0);
    check(what, i, "dt", &[a.dt], &[b.dt], 0.0, 1.0);
    check(what, i, "lengths", &a.lengths, &b.lengths, 0.0, 1.0);
    let spin = (0..3).map(|k| a.wrel[k].abs()).fold(1e-30f32, f32::max);
    check(what, i, "wrel", &a.wrel, &b.wrel, tol, spin);
}

#[test]
fn resolvers_match_their_twins() {
    let Some(ctx) = gpu_context() else { return };
    let mut rng = SplitMix(0x5EED_0001);
    let dt = 1e-6f32;
    for &r in ResolverKind::ALL {
        let tol = r.parity_tolerance();
        let pairs = sphere_pairs(&mut rng);
        let b1: Vec<SphereBody> = pairs.iter().map(|p| p.0).collect();
        let n = b1.len();
        let zero_geom = vec![ContactGeom::default(); n];
        let name = format!("harness_resolve_{}", r.stem());
        match r {
            ResolverKind::SphereSphere | ResolverKind::SpherePoint => {
                let twin = match r {
                    ResolverKind::SpherePoint => resolve_sphere_point,
                    _ => resolve_sphere_sphere,
                };
                let b2: Vec<SphereBody> = pairs.iter().map(|p| p.1).collect();
                // Periodic in x only, over a box the pairs straddle.
                let domain = Domain {
                    min: [-0.06; 3],
                    max: [0.06; 3],
                    periodic: [true, false, false],
                }
                .params();
                let out = harness(
                    &ctx,
                    &name,
                    &[
                        ("b1", bytemuck::cast_slice(&b1)),
                        ("b2", bytemuck::cast_slice(&b2)),
                        ("domain", bytemuck::bytes_of(&domain)),
                        ("dt", bytemuck::bytes_of(&dt)),
                        ("geom", bytemuck::cast_slice(&zero_geom)),
                    ],
                    &["geom"],
                    n,
                );
                let gpu: Vec<ContactGeom> = bytemuck::pod_collect_to_vec(&out[0]);
                for i in 0..n {
                    let c = twin(&b1[i], &b2[i], &domain, dt);
                    let size = b1[i].radius + b2[i].radius;
                    let speed = norm(b1[i].vel)
                        + norm(b2[i].vel)
                        + norm(b1[i].omega) * b1[i].radius
                        + norm(b2[i].omega) * b2[i].radius;
                    let pos_scale = norm(b1[i].pos).max(size);
                    // Measured for the wall resolvers alone, where a radial direction amplifies rounding.
                    let spread = [0.0; 4];
                    compare_geom(&name, i, &c, &gpu[i], tol, size, speed, pos_scale, spread);
                }
            }
            ResolverKind::SpherePlane
            | ResolverKind::SphereCylinder
            | ResolverKind::SphereDisk
            | ResolverKind::SphereCone => {
                let twin = match r {
                    ResolverKind::SphereCone => resolve_sphere_cone,
                    ResolverKind::SphereCylinder => resolve_sphere_cylinder,
                    ResolverKind::SphereDisk => resolve_sphere_disk,
                    _ => resolve_sphere_plane,
                };
                let walls: Vec<Wall> = (0..n)
                    .map(|i| random_wall(r, &b1[i], &mut rng, i))
                    .collect();
                let out = harness(
                    &ctx,
                    &name,
                    &[
                        ("b1", bytemuck::cast_slice(&b1)),
                        ("w", bytemuck::cast_slice(&walls)),
                        ("dt", bytemuck::bytes_of(&dt)),
                        ("geom", bytemuck::cast_slice(&zero_geom)),
                    ],
                    &["geom"],
                    n,
                );
                let gpu: Vec<ContactGeom> = bytemuck::pod_collect_to_vec(&out[0]);
                for i in 0..n {
                    let c = twin(&b1[i], &walls[i], dt);
                    let size = b1[i].radius;
                    let wall_speed = norm(walls[i].velocity)
                        + norm(walls[i].omega) * (norm(b1[i].pos) + norm(walls[i].center));
                    let speed = norm(b1[i].vel) + norm(b1[i].omega) * b1[i].radius + wall_speed;
                    let pos_scale = norm(b1[i].pos).max(norm(walls[i].point)).max(size);
                    let spread = wall_spread(|b, w| twin(b, w, dt), &c, &b1[i], &walls[i]);
                    compare_geom(&name, i, &c, &gpu[i], tol, size, speed, pos_scale, spread);
                }
            }
            ResolverKind::CapsuleSphere
            | ResolverKind::CapsuleCapsule
            | ResolverKind::CapsulePlane
            | ResolverKind::SphereTriangle
            | ResolverKind::CapsuleTriangle => {
                let domain = Domain {
                    min: [-0.06; 3],
                    max: [0.06; 3],
                    periodic: [true, false, false],
                }
                .params();
                let b2: Vec<SphereBody> = pairs.iter().map(|p| p.1).collect();
                let c1: Vec<CapsuleBody> =
                    (0..n).map(|i| capsule_of(&b1[i], &mut rng, i)).collect();
                let c2: Vec<CapsuleBody> = (0..n)
                    .map(|i| capsule_of(&b2[i], &mut rng, i + 1))
                    .collect();
                let tris: Vec<Triangle> = (0..n)
                    .map(|i| triangle_near(&b1[i], &b2[i], &mut rng, i))
                    .collect();
                let walls: Vec<Wall> = (0..n)
                    .map(|i| random_wall(ResolverKind::SpherePlane, &b1[i], &mut rng, i))
                    .collect();
                let mut inputs: Vec<(&str, &[u8])> = match r {
                    ResolverKind::CapsuleSphere => vec![
                        ("b1", bytemuck::cast_slice(&c1)),
                        ("b2", bytemuck::cast_slice(&b2)),
                    ],
                    ResolverKind::CapsuleCapsule => vec![
                        ("b1", bytemuck::cast_slice(&c1)),
                        ("b2", bytemuck::cast_slice(&c2)),
                    ],
                    ResolverKind::CapsulePlane => vec![
                        ("b1", bytemuck::cast_slice(&c1)),
                        ("w", bytemuck::cast_slice(&walls)),
                    ],
                    ResolverKind::SphereTriangle => vec![
                        ("b1", bytemuck::cast_slice(&b1)),
                        ("b2", bytemuck::cast_slice(&b2)),
                        ("t", bytemuck::cast_slice(&tris)),
                    ],
                    _ => vec![
                        ("b1", bytemuck::cast_slice(&c1)),
                        ("b2", bytemuck::cast_slice(&b2)),
                        ("t", bytemuck::cast_slice(&tris)),
                    ],
                };
                if r != ResolverKind::CapsulePlane {
                    inputs.push(("domain", bytemuck::bytes_of(&domain)));
                }
                inputs.push(("dt", bytemuck::bytes_of(&dt)));
                inputs.push(("geom", bytemuck::cast_slice(&zero_geom)));
                let out = harness(&ctx, &name, &inputs, &["geom"], n);
                let gpu: Vec<ContactGeom> = bytemuck::pod_collect_to_vec(&out[0]);
                for i in 0..n {
                    let c = match r {
                        ResolverKind::CapsuleSphere => {
                            resolve_capsule_sphere(&c1[i], &b2[i], &domain, dt)
                        }
                        ResolverKind::CapsuleCapsule => {
                            resolve_capsule_capsule(&c1[i], &c2[i], &domain, dt)
                        }
                        ResolverKind::CapsulePlane => resolve_capsule_plane(&c1[i], &walls[i], dt),
                        ResolverKind::SphereTriangle => {
                            resolve_sphere_triangle(&b1[i], &b2[i], &tris[i], &domain, dt)
                        }
                        _ => resolve_capsule_triangle(&c1[i], &b2[i], &tris[i], &domain, dt),
                    };
                    let size = b1[i].radius + b2[i].radius + c1[i].half_length + c2[i].half_length;
                    let speed = norm(b1[i].vel)
                        + norm(b2[i].vel)
                        + (norm(b1[i].omega) + norm(b2[i].omega)) * size
                        + norm(walls[i].velocity)
                        + norm(walls[i].omega) * (norm(b1[i].pos) + norm(walls[i].center));
                    let pos_scale = norm(b1[i].pos).max(norm(walls[i].point)).max(size);
                    // Measured for the wall resolvers alone, where a radial direction amplifies rounding.
                    let spread = [0.0; 4];
                    compare_geom(&name, i, &c, &gpu[i], tol, size, speed, pos_scale, spread);
                }
            }
        }
        eprintln!("{name}: {n} inputs within {tol}");
    }
}

/// Sphere `b` as a capsule: its centre and radius, a random axis and a half-length of up to
/// twice its radius (zero in every fourth case, where a capsule is a sphere).
fn capsule_of(b: &SphereBody, rng: &mut SplitMix, i: usize) -> CapsuleBody {
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
fn triangle_near(b1: &SphereBody, b2: &SphereBody, rng: &mut SplitMix, i: usize) -> Triangle {
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

/// A wall of the resolver's kind placed at a random distance around sphere `b` (touching in
/// about half the cases), moving in half of them.
fn random_wall(r: ResolverKind, b: &SphereBody, rng: &mut SplitMix, i: usize) -> Wall {
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
    match r {
        ResolverKind::SphereCylinder => {
            // The axis along `normal`, the centre `rho` from it along `across`.
            let big = rad * rng.range(3.0, 10.0) as f32;
            w.kind = grains_core::gpu_types::WALL_CYLINDER;
            w.radius = big;
            w.hollow = (i % 2) as u32;
            let rho = if w.hollow == 1 { big - d } else { big + d };
            w.point = std::array::from_fn(|k| x[k] - across[k] * rho + normal[k] * rad);
        }
        ResolverKind::SphereCone => {
            // The orifice below the sphere (the rim) or beside it (the slanted wall).
            let r0 = rad * rng.range(2.0, 6.0) as f32;
            w.kind = grains_core::gpu_types::WALL_CONE;
            w.radius = r0;
            w.slope = rng.range(0.2, 1.5) as f32;
            let rho = r0 * rng.range(0.0, 1.4) as f32;
            let h = rad * rng.range(-1.5, 4.0) as f32;
            w.point = std::array::from_fn(|k| x[k] - across[k] * rho - normal[k] * h);
        }
        ResolverKind::SphereDisk => {
            // The centre projected `d` below, offset across by up to 1.5 disk radii (the rim).
            let big = rad * rng.range(1.0, 4.0) as f32;
            let off = big * rng.range(0.0, 1.5) as f32;
            w.kind = grains_core::gpu_types::WALL_DISK;
            w.radius = big;
            w.point = std::array::from_fn(|k| x[k] - normal[k] * d - across[k] * off);
        }
        _ => {}
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
/// the input rounding of [`rounding_spread`] and [`wall_spread`].
fn ulp_rounder(tag: u64, words: &[u32]) -> impl FnMut(&mut f32) {
    let seed = words.iter().fold(tag, |a, &x| a.rotate_left(5) ^ x as u64);
    let mut rng = SplitMix(seed);
    move |x: &mut f32| {
        let s = if rng.uniform() < 0.5 { -1.0 } else { 1.0 };
        *x *= 1.0 + s * 4.0 * f32::EPSILON;
    }
}

/// How far a law's twin moves under the rounding of its inputs: every float of the geometry
/// and the incoming force, and every history word that is not exact, scaled by 1 + 4 ulp or
/// 1 - 4 ulp (signs from a generator seeded by the inputs), three times; per output lane (the
/// `ContactForce`'s 16 floats, then the history words) the largest change from the twin's
/// outputs on the inputs as they are, `(f0, h0)`. A GPU whose compiler fuses multiply-adds and whose divisions and square roots round
/// to 2.5 ulp (both within WGSL's accuracy rules) differs from the twin by about this where a
/// law subtracts nearly equal terms: a dashpot cancelling most of a spring, the normal speed of
/// a nearly tangential velocity. Without it an H100 failed cases at 1.5e-5 and 5.8e-5 of the
/// force scale, from one-ulp differences; lavapipe gives the twin's bits there.
fn rounding_spread(
    law: LawKind,
    geom: &ContactGeom,
    params: &[u32],
    history: &[f32],
    force: &ContactForce,
    words: &[Word],
    (f0, h0): (&ContactForce, &[f32]),
) -> ([f32; 16], Vec<f32>) {
    let run = |g: &ContactGeom, h: &[f32], f: &ContactForce| {
        let (mut h, mut f) = (h.to_vec(), *f);
        law.apply(g, params, &mut h, &mut f);
        (f, h)
    };
    let lanes = |f: &ContactForce| -> [f32; 16] { bytemuck::cast(*f) };
    let mut bump = ulp_rounder(
        0x5EED_0003,
        bytemuck::cast_slice(std::slice::from_ref(geom)),
    );
    let (mut sf, mut sh) = ([0.0f32; 16], vec![0.0f32; h0.len()]);
    for _ in 0..3 {
        let (mut g, mut h, mut f) = (*geom, history.to_vec(), *force);
        bytemuck::cast_slice_mut::<ContactGeom, f32>(std::slice::from_mut(&mut g))
            .iter_mut()
            .for_each(&mut bump);
        bytemuck::cast_slice_mut::<ContactForce, f32>(std::slice::from_mut(&mut f))
            .iter_mut()
            .for_each(&mut bump);
        for (x, w) in h.iter_mut().zip(words) {
            if *w != Word::Exact {
                bump(x);
            }
        }
        let (f1, h1) = run(&g, &h, &f);
        for (k, (a, b)) in lanes(f0).iter().zip(lanes(&f1)).enumerate() {
            sf[k] = sf[k].max((a - b).abs());
        }
        for (k, (a, b)) in h0.iter().zip(&h1).enumerate() {
            sh[k] = sh[k].max((a - b).abs());
        }
    }
    (sf, sh)
}

/// Every law of the registry through its harness kernel, on 10,000 random cases its own module
/// generates (edge cases first), against its CPU twin, within the tolerance it declares.
/// Scales: forces and torques relative to the largest force magnitude of the case; stiffness
/// relative to itself; energies relative to the work scale `|F| |delta| + |F| |v| dt` plus their
/// own size (several are differences of terms); history words by what each measures
/// ([`Word`]): forces and energies by those scales, lengths by the record's largest length,
/// flags exactly.
#[test]
fn laws_match_their_twins() {
    let Some(ctx) = gpu_context() else { return };
    let mut rng = SplitMix(0x5EED_0002);
    for &law in LawKind::ALL {
        let tol = law.parity_tolerance();
        let cases: Vec<_> = (0..N_RANDOM)
            .map(|i| law.parity_case(&mut rng, i))
            .collect();
        let n = cases.len();
        let words = law.history_words();
        // A law without history gets the harness's one-word placeholder.
        let hw = words.len().max(1);
        let gs: Vec<ContactGeom> = cases.iter().map(|c| c.geom).collect();
        let ps: Vec<u32> = cases.iter().flat_map(|c| c.params.clone()).collect();
        let hs: Vec<f32> = cases
            .iter()
            .flat_map(|c| {
                let mut h = c.history.clone();
                h.resize(hw, 0.0);
                h
            })
            .collect();
        let fs: Vec<ContactForce> = cases.iter().map(|c| c.force).collect();
        let name = format!("harness_law_{}", law.stem());
        let out = harness(
            &ctx,
            &name,
            &[
                ("geom", bytemuck::cast_slice(&gs)),
                ("params", bytemuck::cast_slice(&ps)),
                ("history_in", bytemuck::cast_slice(&hs)),
                ("force_in", bytemuck::cast_slice(&fs)),
                ("history_out", bytemuck::cast_slice(&hs)),
                ("force_out", bytemuck::cast_slice(&fs)),
            ],
            &["history_out", "force_out"],
            n,
        );
        let gh: Vec<f32> = bytemuck::pod_collect_to_vec(&out[0]);
        let gf: Vec<ContactForce> = bytemuck::pod_collect_to_vec(&out[1]);
        let mut worst = 0.0f32;
        for (i, c) in cases.iter().enumerate() {
            let (mut h, mut f) = (c.history.clone(), c.force);
            law.apply(&c.geom, &c.params, &mut h, &mut f);
            let fscale = norm(f.force).max(f.normal_force).max(norm(c.force.force));
            let (sf, sh) = rounding_spread(
                law,
                &c.geom,
                &c.params,
                &c.history,
                &c.force,
                words,
                (&f, &h),
            );
            // Each field's bound adds 4 times the twin's own spread under input rounding.
            let sl = |lanes: std::ops::Range<usize>| {
                4.0 * sf[lanes].iter().fold(0.0f32, |a, &x| a.max(x))
            };
            let escale = fscale * (c.geom.delta.abs() + norm(c.geom.vrel) * c.geom.dt)
                + f.elastic.abs()
                + f.damping_dissipated.abs()
                + f.friction_dissipated.abs()
                + 1e-30;
            // The largest word of a kind, in the record before and after the law.
            let largest = |kind: Word| {
                words
                    .iter()
                    .zip(h.iter().zip(&c.history))
                    .filter(|(w, _)| **w == kind)
                    .map(|(_, (x, y))| x.abs().max(y.abs()))
                    .fold(1e-30f32, f32::max)
            };
            // A length the law stores (a spring's rest length, a tangential displacement) is kept
            // to an ulp, and a GPU that fuses `d - s e` into one rounding keeps it an ulp away
            // from the twin: the energies then differ by the force across that ulp, whatever
            // their own size. An H200 gave 1.5e-9 J (7 %) on a serial dashpot's relaxation of
            // 2.1e-8 J, a 12 N spring 7.5 mm long: 1 ulp of the rest length is 4.7e-10 m.
            let longest = largest(Word::Length).max(c.geom.lengths[0] + c.geom.lengths[1]);
            let eslack = 2.0 * fscale * f32::EPSILON * longest;
            let g = &gf[i];
            // ContactForce's lanes: force 0..3, normal_force 3, torque1 4..7, stiffness 7,
            // torque2 8..11, elastic 11, damping 12, friction 13.
            check_slack(&name, i, "force", &f.force, &g.force, tol, fscale, sl(0..3));
            let nf = (&[f.normal_force], &[g.normal_force]);
            check_slack(&name, i, "normal_force", nf.0, nf.1, tol, fscale, sl(3..4));
            let k = (&[f.stiffness], &[g.stiffness]);
            check_slack(
                &name,
                i,
                "stiffness",
                k.0,
                k.1,
                tol,
                f.stiffness.abs(),
                sl(7..8),
            );
            let t1 = norm(f.torque1).max(1e-30);
            check_slack(
                &name,
                i,
                "torque1",
                &f.torque1,
                &g.torque1,
                tol,
                t1,
                sl(4..7),
            );
            let t2 = norm(f.torque2).max(1e-30);
            check_slack(
                &name,
                i,
                "torque2",
                &f.torque2,
                &g.torque2,
                tol,
                t2,
                sl(8..11),
            );
            let e = (&[f.elastic], &[g.elastic]);
            check_slack(
                &name,
                i,
                "elastic",
                e.0,
                e.1,
                tol,
                escale,
                sl(11..12) + eslack,
            );
            let d = (&[f.damping_dissipated], &[g.damping_dissipated]);
            check_slack(
                &name,
                i,
                "damping_dissipated",
                d.0,
                d.1,
                tol,
                escale,
                sl(12..13) + eslack,
            );
            let d = (&[f.friction_dissipated], &[g.friction_dissipated]);
            check_slack(
                &name,
                i,
                "friction_dissipated",
                d.0,
                d.1,
                tol,
                escale,
                sl(13..14) + eslack,
            );
            let lscale = largest(Word::Length);
            let ascale = largest(Word::Angle);
            let mscale = largest(Word::Moment).max(t1).max(t2);
            for (w, kind) in words.iter().enumerate() {
                let (a, b) = (h[w], gh[i * hw + w]);
                let field = format!("history word {w} ({kind:?})");
                let scale = match kind {
                    Word::Exact => {
                        assert_eq!(a, b, "{name} #{i} {field}");
                        continue;
                    }
                    Word::Force => a.abs().max(fscale),
                    Word::Energy => a.abs().max(escale),
                    Word::Length => lscale,
                    Word::Angle => ascale,
                    Word::Moment => mscale,
                    Word::Own => a.abs(),
                };
                check_slack(&name, i, &field, &[a], &[b], tol, scale, 4.0 * sh[w]);
            }
            for k in 0..3 {
                if fscale > 0.0 {
                    worst = worst.max((f.force[k] - g.force[k]).abs() / fscale);
                }
            }
        }
        eprintln!(
            "{name}: {n} inputs, worst force difference {worst:e} of scale (tolerance {tol})"
        );
    }
}

/// The compensated drift survives the shader compiler: a particle at 0.1 m moving 1e-9 m per
/// step (under half an ulp) must advance on the GPU exactly as on the CPU. Mesa folds a plain
/// Kahan compensation to zero; `StepParams::unit` keeps it.
#[test]
fn compensated_drift_survives_the_shader_compiler() {
    let Some(ctx) = gpu_context() else { return };
    let w = slow_particle_world();
    let mut g = gpu(w, &ctx);
    g.run(2000);
    let s = g.snapshot();
    let ulp = 0.1f32.next_up() - 0.1f32;
    assert!(
        (s.pos[0][0] - (0.1 + 2e-6) as f32).abs() <= ulp,
        "x = {}",
        s.pos[0][0]
    );
    assert!(
        (s.pos[0][1] - (0.1 - 2e-6) as f32).abs() <= ulp,
        "y = {}",
        s.pos[0][1]
    );
}
