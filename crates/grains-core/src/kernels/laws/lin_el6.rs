//! Purely elastic six-degree-of-freedom spring. WGSL twin: `shaders/laws/lin_el6.wgsl`.
//!
//! Six linear springs between two bodies, from the geometry they have when the pair is first
//! evaluated (its rest state, kept in the history): normal `F_n = -k_n (delta - delta_0) n`
//! (pushing when compressed beyond the rest overlap, pulling when stretched), two shear
//! `F_s = -k_s u` with the tangential displacement `u` integrated from the relative velocity at
//! the contact point, twist `M_t = -k_t phi n` and two bending `M_b = -k_b theta` with the
//! relative rotations integrated from `w1 - w2` about the normal and in the tangent plane.
//! The rotational stiffnesses come from a characteristic length `L`: `k_t = k_s L^2`,
//! `k_b = k_n L^2`. `u` and `theta` are turned into the current tangent plane each step with
//! their size kept, as Cundall-Strack's spring is. No limit and no damping: a test model, and a
//! bond on fixed pairs (evaluated at any distance). Where it is a contact law, the pair forgets
//! its rest state when it leaves the neighbour search.
//!
//! Energy: `1/2 (k_n (delta - delta_0)^2 + k_s |u|^2 + k_t phi^2 + k_b |theta|^2)`, stored.
//! The shear and bending springs are incremental, so under a finite rotation of the bond they
//! are path dependent: with every mode excited the ledger's total moves by about 1e-3 of the
//! energy, whatever the time step (`tests/lin_el6.rs`); the normal and twist modes alone are
//! exact.
//!
//! Scene keys: `stiffness` (k_n, N/m, required), `shear_stiffness` (k_s, N/m, required),
//! `length` (L, m, required).

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::v3;
use crate::law::{
    required, CollisionContext, Law, LawKeys, LawTwin, PairContext, ParityCase, SpringShape, Word,
};
use crate::parity::{random_geom, SplitMix};
use crate::registry::Slot;

crate::gpu_struct! {
    /// Per-pair parameters of the six-spring model.
    pub struct LinEl6Params {
        /// Normal stiffness `k_n` (N/m).
        pub stiffness: f32,
        /// Shear stiffness `k_s` (N/m).
        pub shear_stiffness: f32,
        /// Characteristic length `L` (m).
        pub length: f32,
    }
}

crate::gpu_struct! {
    /// Per-pair history of the six-spring model: its rest state and its displacements.
    pub struct LinEl6History {
        /// 1 once the rest state is taken.
        pub established: u32,
        /// Rest overlap `delta_0` (m).
        pub rest_overlap: f32,
        /// Twist angle `phi` (rad).
        pub twist: f32,
        /// Shear displacement `u` (m).
        pub shear: [f32; 3],
        /// Bending rotation `theta` (rad).
        pub bend: [f32; 3],
    }
}

/// Scene settings of `lin_el6`.
#[derive(Clone, Debug, PartialEq)]
pub struct LinEl6Spec {
    pub stiffness: f64,
    pub shear_stiffness: f64,
    pub length: f64,
}

/// `x` turned into the plane normal to `n`, its length kept.
#[inline]
fn into_plane(x: glam::Vec3, n: glam::Vec3) -> glam::Vec3 {
    let len = x.length();
    let y = x - n * x.dot(n);
    let plane = y.length();
    if plane > 0.0 {
        y * (len / plane)
    } else {
        y
    }
}

/// The six springs.
pub fn law_lin_el6(
    geom: &ContactGeom,
    params: &LinEl6Params,
    history: &mut LinEl6History,
    force: &mut ContactForce,
) {
    if history.established == 0 {
        *history = LinEl6History {
            established: 1,
            rest_overlap: geom.delta,
            ..LinEl6History::default()
        };
    }
    let n = v3(geom.normal);
    let vrel = v3(geom.vrel);
    let w = v3(geom.wrel);
    let u = into_plane(v3(history.shear), n) + (vrel - n * vrel.dot(n)) * geom.dt;
    let theta = into_plane(v3(history.bend), n) + (w - n * w.dot(n)) * geom.dt;
    let phi = history.twist + w.dot(n) * geom.dt;
    let stretch = geom.delta - history.rest_overlap;
    let kt = params.shear_stiffness * params.length * params.length;
    let kb = params.stiffness * params.length * params.length;
    let fn_mag = params.stiffness * stretch;
    let f = -n * fn_mag - u * params.shear_stiffness;
    let m = -n * (kt * phi) - theta * kb;
    force.force = (v3(force.force) + f).to_array();
    force.normal_force += fn_mag.max(0.0);
    force.stiffness += params.stiffness;
    force.torque1 = (v3(force.torque1) + m).to_array();
    force.torque2 = (v3(force.torque2) - m).to_array();
    force.elastic += 0.5
        * (params.stiffness * stretch * stretch
            + params.shear_stiffness * u.dot(u)
            + kt * phi * phi
            + kb * theta.dot(theta));
    history.shear = u.to_array();
    history.bend = theta.to_array();
    history.twist = phi;
}

/// The `lin_el6` law.
pub struct LinEl6;

impl Law for LinEl6 {
    const KEYWORD: &'static str = "lin_el6";
    const SLOT: Slot = Slot::Normal;
    const KEYS: &'static [&'static str] = &["stiffness", "shear_stiffness", "length"];
    const HISTORY_WORDS: &'static [Word] = &[
        Word::Exact,
        Word::Length,
        Word::Angle,
        Word::Length,
        Word::Length,
        Word::Length,
        Word::Angle,
        Word::Angle,
        Word::Angle,
    ];
    const ENERGY: &'static [&'static str] = &["elastic"];
    type Params = LinEl6Params;
    type History = LinEl6History;
    type Spec = LinEl6Spec;

    fn parse<K: LawKeys>(keys: &K) -> Result<LinEl6Spec, K::Error> {
        let k = keys.positive("stiffness", "N/m")?;
        let ks = keys.positive("shear_stiffness", "N/m")?;
        let l = keys.positive("length", "m")?;
        Ok(LinEl6Spec {
            stiffness: required(keys, "stiffness", "a positive number (N/m)", k)?,
            shear_stiffness: required(keys, "shear_stiffness", "a positive number (N/m)", ks)?,
            length: required(keys, "length", "a positive number (m)", l)?,
        })
    }

    fn spring(_: &LinEl6Spec) -> Option<SpringShape> {
        Some(SpringShape::Linear)
    }

    fn mix(spec: &LinEl6Spec, _: &PairContext<'_>) -> LinEl6Params {
        LinEl6Params {
            stiffness: spec.stiffness as f32,
            shear_stiffness: spec.shear_stiffness as f32,
            length: spec.length as f32,
        }
    }

    fn range(_: &LinEl6Spec, _: &PairContext<'_>) -> f64 {
        0.0
    }

    /// `pi sqrt(m* / k_n)`, half the normal oscillation.
    fn collision_time(spec: &LinEl6Spec, c: &CollisionContext<'_>) -> Option<f64> {
        Some(std::f64::consts::PI * (c.m_eff / spec.stiffness).sqrt())
    }

    fn apply(g: &ContactGeom, p: &LinEl6Params, h: &mut LinEl6History, f: &mut ContactForce) {
        law_lin_el6(g, p, h, f)
    }
}

impl LawTwin for LinEl6 {
    // Projections with rescales and sums of squares: 2e-5.
    const PARITY_TOLERANCE: f32 = 2e-5;

    fn parity_case(rng: &mut SplitMix, i: usize) -> ParityCase<LinEl6Params, LinEl6History> {
        let geom = random_geom(rng, i);
        let r = geom.r_eff as f64;
        ParityCase {
            geom,
            params: LinEl6Params {
                stiffness: rng.log_uniform(1e2, 1e8),
                shear_stiffness: rng.log_uniform(1e2, 1e8),
                length: (r * rng.range(0.1, 2.0)) as f32,
            },
            history: LinEl6History {
                established: !i.is_multiple_of(5) as u32,
                rest_overlap: (r * rng.range(-0.01, 0.01)) as f32,
                twist: rng.range(-0.1, 0.1) as f32,
                shear: rng.vec3(0.01 * r),
                bend: rng.vec3(0.1),
            },
            force: ContactForce::default(),
        }
    }
}
