//! What a force law is: the [`Law`] trait (its physics and scene settings) and the [`LawTwin`]
//! trait (how it is checked against its WGSL twin) that every law module implements, and the
//! small interfaces a law uses to read its scene keys ([`LawKeys`]), mix material properties
//! into per-pair parameters ([`PairContext`]) and estimate a collision time
//! ([`CollisionContext`]).
//!
//! A law is one module under `kernels/laws/` (its Rust twin) plus one WGSL file under
//! `shaders/laws/`, joined by one line of the registry table (`registry.rs`). Everything else
//! (the `LawKind` enum, `apply_chain` on both sides, slot dispatch in the parser, the per-chain
//! parameter and history layouts, parity and layout test lists, the time-step estimate) is
//! generated from that table or loops over it, in the spirit of LAMMPS GRANULAR's sub-models
//! (`coeffs_to_local`, `mix_coeffs`, `calculate_forces`, registered once).
//!
//! Parameter and history records are `#[repr(C)]` Pod structs of 4-byte scalars (`f32`, `u32`,
//! `[f32; N]`), defined through [`gpu_struct!`](crate::gpu_struct), which also gives their names
//! and layouts to the layout test: they have alignment 4 on both sides, so a chain's record is
//! the plain concatenation of its laws' records, with the same word offsets in Rust and WGSL.

use bytemuck::Pod;

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::material::Material;
use crate::parity::SplitMix;

/// The elastic shape of a normal law, which later laws of the chain may need: the viscous
/// dashpot's damping ratio for a requested restitution depends on it, and so does the default
/// tangential stiffness.
pub use crate::restitution::SpringShape;

/// What a law knows when it turns its scene settings into the parameters of one material pair.
#[derive(Clone, Copy, Debug)]
pub struct PairContext<'a> {
    /// Material of body 1 (a particle).
    pub a: &'a Material,
    /// Material of body 2 (a particle or a wall).
    pub b: &'a Material,
    /// Elastic shape of the chain's normal law.
    pub spring: SpringShape,
    /// Largest effective radius `R*` of any pair this chain may meet (m): the interaction range
    /// of an adhesive law grows with it.
    pub r_eff_max: f64,
    /// Largest sum of the two contact lengths `l1 + l2` of any pair this chain may meet (m):
    /// the two radii for particles, twice the radius against a wall.
    pub lengths_max: f64,
}

/// What a normal law needs to estimate the duration of a collision, for `dt = "auto"`: two
/// equal particles of the smallest radius of a material meeting head on.
#[derive(Clone, Copy, Debug)]
pub struct CollisionContext<'a> {
    pub material: &'a Material,
    /// Effective mass `m* = m/2` (kg).
    pub m_eff: f64,
    /// Effective radius `R* = R/2` (m).
    pub r_eff: f64,
    /// Radius of the particles (m).
    pub radius: f64,
    /// Largest expected impact speed (m/s).
    pub impact_speed: f64,
}

impl CollisionContext<'_> {
    /// Hertz's spring constant of the pair, `4/3 E* sqrt(R*)` (N/m^(3/2)).
    pub fn hertz_stiffness(&self) -> f64 {
        let e = crate::material::effective_young(self.material, self.material);
        4.0 / 3.0 * e * self.r_eff.sqrt()
    }

    /// Collision time (s) of a power-law spring `F = k delta^n` alone, the two spheres head on:
    /// `2 (delta_max / v) I(n + 1)` with `delta_max = ((n+1) m* v^2 / (2k))^(1/(n+1))` and
    /// `I(p) = int_0^1 dx / sqrt(1 - x^p)` (from energy conservation; for n = 3/2, 2 I = 2.943,
    /// the Hertz constant).
    pub fn power_law_time(&self, k: f64, n: f64) -> f64 {
        let v = self.impact_speed;
        let dmax = ((n + 1.0) * self.m_eff * v * v / (2.0 * k)).powf(1.0 / (n + 1.0));
        // x = 1 - s^2 removes the endpoint singularity; the midpoint rule is then accurate to
        // 1e-6.
        let p = n + 1.0;
        let m = 2000;
        let integral: f64 = (0..m)
            .map(|i| {
                let s = (i as f64 + 0.5) / m as f64;
                let x = 1.0 - s * s;
                2.0 * s / (1.0 - x.powf(p)).sqrt() / m as f64
            })
            .sum();
        2.0 * dmax / v * integral
    }

    /// Hertz collision time `2.868 (m*^2 / (R* E*^2 v))^(1/5)` (Johnson 1985, §11.4).
    pub fn hertz_time(&self) -> f64 {
        let e = crate::material::effective_young(self.material, self.material);
        2.868 * (self.m_eff * self.m_eff / (self.r_eff * e * e * self.impact_speed)).powf(0.2)
    }

    /// Largest overlap of a Hertz impact at the expected speed,
    /// `delta_max = (15 m* v^2 / (16 E* sqrt(R*)))^(2/5)` (m; Johnson 1985, §11.4).
    pub fn hertz_overlap(&self) -> f64 {
        let e = crate::material::effective_young(self.material, self.material);
        let v = self.impact_speed;
        (15.0 * self.m_eff * v * v / (16.0 * e * self.r_eff.sqrt())).powf(0.4)
    }
}

/// `sqrt(m*/k)` (s) at the largest tangent stiffness `k` a normal spring reaches in a head-on
/// collision lasting `collision` seconds: the time scale a dashpot `c = 2 zeta sqrt(m* k)` is
/// measured against. Linear spring: `t_c = pi sqrt(m*/k)`. Hertz: at the deepest overlap
/// `k = 3/2 K delta_max^(1/2)` with `K delta_max^(5/2) = 5/4 m* v^2` (energy), so
/// `sqrt(m*/k) = delta_max / (v sqrt(15/8))`, and `t_c = 2.943 delta_max / v`
/// ([`CollisionContext::power_law_time`]): `sqrt(m*/k) = t_c / (2.943 sqrt(15/8))`.
pub fn stiffest_time(spring: SpringShape, collision: f64) -> f64 {
    match spring {
        SpringShape::Linear => collision / std::f64::consts::PI,
        SpringShape::Hertz => collision / (2.943 * (15.0f64 / 8.0).sqrt()),
    }
}

/// What a damping law needs to state its own time scale for `dt = "auto"`
/// ([`Law::damping_time`]): the collision, and the chain's normal spring.
#[derive(Clone, Copy, Debug)]
pub struct DampingContext<'a> {
    /// The two bodies and the impact speed.
    pub collision: CollisionContext<'a>,
    /// Elastic shape of the chain's normal law (Hertz when the chain has none).
    pub spring: SpringShape,
    /// Collision time of the chain's normal law at the impact speed (s).
    pub collision_time: f64,
}

impl DampingContext<'_> {
    /// The relaxation time `m*/c` (s) of a dashpot of constant coefficient `c` (kg/s) on this
    /// collision's bodies; `None` without damping.
    pub fn dashpot_time(&self, c: f64) -> Option<f64> {
        (c > 0.0).then(|| self.collision.m_eff / c)
    }
}

/// The ledger column a history word is measured in, so the parity test compares it against the
/// right scale.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Word {
    /// A force (N): compared relative to the pair's force scale.
    Force,
    /// An energy (J): compared relative to the pair's work scale.
    Energy,
    /// A length or a component of a displacement vector (m): compared relative to the largest
    /// length word of the record.
    Length,
    /// A torque or a component of a torque vector (N m): compared relative to the pair's torque
    /// scale, the largest moment word of the record and the torques the law returns. A
    /// component (or a capped dashpot, a difference of nearly equal torques) can be many ulps of
    /// the torque it belongs to and still be far smaller: relative to itself it would be
    /// ill-conditioned (an H200 gave 4e-3 of such a word, 2e-14 N m of a 1.1e-6 N m torque).
    Moment,
    /// An angle or a component of a rotation vector (rad): compared relative to the largest
    /// angle word of the record.
    Angle,
    /// A scalar compared relative to its own size (a stiffness, a radius).
    Own,
    /// A flag or a state: compared exactly.
    Exact,
}

/// Reading a law's keys from its slot table (`normal = { law = "...", ... }`). The scene crate
/// implements it over the TOML table, with spans, so errors name file, line, column and key.
pub trait LawKeys {
    /// The scene crate's error.
    type Error;
    /// Whether key `k` is present.
    fn has(&self, k: &str) -> bool;
    /// A number; `what` describes what is expected.
    fn number(&self, k: &str, what: &str) -> Result<Option<f64>, Self::Error>;
    /// A positive number in `unit`.
    fn positive(&self, k: &str, unit: &str) -> Result<Option<f64>, Self::Error>;
    /// A number `>= 0` in `unit`.
    fn non_negative(&self, k: &str, unit: &str) -> Result<Option<f64>, Self::Error>;
    /// A string; `what` describes what is expected.
    fn string(&self, k: &str, what: &str) -> Result<Option<String>, Self::Error>;
    /// An integer `>= min`.
    fn integer(&self, k: &str, min: u64) -> Result<Option<u64>, Self::Error>;
    /// A table of integers `>= min` keyed by material name (`{ cell = 0, matrix = 1 }`), in the
    /// order written; a key that names no material of the scene is an error at that key.
    fn material_integers(
        &self,
        k: &str,
        min: u64,
    ) -> Result<Option<Vec<(String, u64)>>, Self::Error>;
    /// A non-empty square symmetric matrix of numbers `>= 0` in `unit`, as an array of rows
    /// (`[[a, b], [b, c]]`); a short row or an entry unlike its mirror is an error there.
    fn symmetric_matrix(&self, k: &str, unit: &str) -> Result<Option<Vec<Vec<f64>>>, Self::Error>;
    /// How the value of key `k` is written in the file, for "found ..." in messages.
    fn found(&self, k: &str) -> String;
    /// The error "key `k` is required".
    fn missing(&self, k: &str, what: &str) -> Self::Error;
    /// An error at key `k` (its value, or the table when `k` is absent).
    fn error(&self, k: &str, message: String) -> Self::Error;
    /// An error at the later of keys `k1`, `k2` (two keys that exclude each other).
    fn conflict(&self, k1: &str, k2: &str, message: String) -> Self::Error;
}

/// A required key: `Ok(v)` or the "missing" error.
pub fn required<K: LawKeys>(
    keys: &K,
    k: &str,
    what: &str,
    v: Option<f64>,
) -> Result<f64, K::Error> {
    v.ok_or_else(|| keys.missing(k, what))
}

/// The required key `restitution`: a coefficient of restitution in (0, 1].
pub fn required_restitution<K: LawKeys>(keys: &K) -> Result<f64, K::Error> {
    let what = "a restitution coefficient in (0, 1]";
    let e = keys.number("restitution", what)?;
    let e = required(keys, "restitution", "a number in (0, 1]", e)?;
    if !(e > 0.0 && e <= 1.0) {
        let found = keys.found("restitution");
        return Err(keys.error("restitution", format!("expected {what}, found {found}")));
    }
    Ok(e)
}

/// `(field, byte offset)` of a struct, for the layout test against naga.
pub type FieldOffsets = Vec<(String, u32)>;

/// A `#[repr(C)]` record that WGSL declares under the same name with the same fields: its name
/// and its Rust layout, for the layout test against naga. Implemented by [`gpu_struct!`] from the
/// struct's own definition, so a field added on one side only changes the size or the field
/// list, and the test fails.
pub trait GpuLayout: Pod {
    /// Name of the struct on both sides.
    const NAME: &'static str;
    /// `(struct name, size in bytes, fields)`.
    fn layout() -> (&'static str, u32, FieldOffsets);
}

/// A law's history record: a [`GpuLayout`] struct, or `()` for a law that keeps none.
pub trait HistoryLayout: Pod {
    /// Name of the struct on both sides; `None` for `()`.
    const NAME: Option<&'static str>;
    /// Its layout; `None` for `()`.
    fn layout() -> Option<(&'static str, u32, FieldOffsets)>;
}

impl<T: GpuLayout> HistoryLayout for T {
    const NAME: Option<&'static str> = Some(<T as GpuLayout>::NAME);
    fn layout() -> Option<(&'static str, u32, FieldOffsets)> {
        Some(<T as GpuLayout>::layout())
    }
}

impl HistoryLayout for () {
    const NAME: Option<&'static str> = None;
    fn layout() -> Option<(&'static str, u32, FieldOffsets)> {
        None
    }
}

/// Defines `#[repr(C)]` Pod records shared with WGSL and implements [`GpuLayout`] for each from
/// the same tokens, so the name and the field list are written once:
///
/// ```ignore
/// grains_core::gpu_struct! {
///     /// Per-pair parameters of the linear spring.
///     pub struct LinearParams {
///         /// Normal stiffness (N/m).
///         pub stiffness: f32,
///     }
/// }
/// ```
#[macro_export]
macro_rules! gpu_struct {
    ($(
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $($(#[$field_meta:meta])* $field_vis:vis $field:ident : $ty:ty),* $(,)?
        }
    )+) => {$(
        $(#[$meta])*
        #[repr(C)]
        #[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
        $vis struct $name {
            $($(#[$field_meta])* $field_vis $field: $ty),*
        }

        impl $crate::law::GpuLayout for $name {
            const NAME: &'static str = stringify!($name);
            fn layout() -> (&'static str, u32, $crate::law::FieldOffsets) {
                (
                    stringify!($name),
                    std::mem::size_of::<$name>() as u32,
                    vec![$((stringify!($field).to_string(), std::mem::offset_of!($name, $field) as u32)),*],
                )
            }
        }
    )+};
}

/// `(struct name, size in bytes, fields)` of a Rust struct defined elsewhere, fields listed by
/// hand (records that are not [`gpu_struct!`]s).
#[macro_export]
macro_rules! pod_layout {
    ($t:ident { $($f:ident),* $(,)? }) => {
        (
            stringify!($t),
            std::mem::size_of::<$t>() as u32,
            vec![$((stringify!($f).to_string(), std::mem::offset_of!($t, $f) as u32)),*],
        )
    };
}

/// One random parity case of a law: inputs for the CPU twin and the WGSL harness.
#[derive(Clone, Copy, Debug)]
pub struct ParityCase<P, H> {
    pub geom: ContactGeom,
    pub params: P,
    pub history: H,
    /// The force accumulated by earlier laws of the chain (a realistic `normal_force` and
    /// `stiffness` for laws after the normal slot).
    pub force: ContactForce,
}

/// A force law: its physics and its scene settings. Implemented by a zero-sized type in the
/// law's module, which also implements [`LawTwin`]; the registry table lists it once.
pub trait Law {
    /// Scene keyword (`law = "..."`), also the stem of its files and of `law_<stem>`.
    const KEYWORD: &'static str;
    /// The slot it fills.
    const SLOT: Slot;
    /// Keys its slot table accepts besides `law`.
    const KEYS: &'static [&'static str];
    /// What each history word measures (its length is the history's size in words).
    const HISTORY_WORDS: &'static [Word];
    /// The ledger columns it writes: elastic, damping, friction.
    const ENERGY: &'static [&'static str];
    /// Whether it overwrites rather than adds: it SETS what the chain's laws before it
    /// declared (`dividing` the pair's force and all that goes with it, `dividing_resistance`
    /// the friction block), so that, while it acts, the pair feels it alone. A later law of
    /// its slot would add to what it set, so it must be its slot's last law (the scene refuses
    /// one after it); the force slots end with `extra`, so an overwriting `extra` law is the
    /// chain's last word on the force. This one flag is the whole overwrite mechanism.
    const OVERWRITES: bool = false;

    /// Per-pair parameters (`#[repr(C)]`, Pod, 4-byte scalars only).
    type Params: Pod + Default + std::fmt::Debug + PartialEq;
    /// Per-pair history (`#[repr(C)]`, Pod, 4-byte scalars only); `()` when none.
    type History: Pod + Default + std::fmt::Debug + PartialEq;
    /// Its settings as the scene gives them.
    type Spec: Clone + std::fmt::Debug + PartialEq;

    /// Parse its keys (unknown keys are refused before this is called).
    fn parse<K: LawKeys>(keys: &K) -> Result<Self::Spec, K::Error>;
    /// The elastic shape, for a normal law; `None` for the other slots.
    fn spring(spec: &Self::Spec) -> Option<SpringShape>;
    /// Parameters of one material pair.
    fn mix(spec: &Self::Spec, pair: &PairContext<'_>) -> Self::Params;
    /// How far beyond touching it acts for these parameters (m), at the largest `R*` of the
    /// pairs it meets (`pair.r_eff_max`).
    fn range(spec: &Self::Spec, pair: &PairContext<'_>) -> f64;
    /// Collision time (s) of a normal law, for `dt = "auto"`; `None` for the other slots.
    fn collision_time(spec: &Self::Spec, c: &CollisionContext<'_>) -> Option<f64>;
    /// Relaxation time (s) of a law's dashpot, `m*/c` at its largest damping coefficient `c`
    /// in the collision, for `dt = "auto"`: an explicit step resolves a dashpot only when it is
    /// well below this (forward in time, `v -= (c/m*) v dt` overshoots past `dt = m*/c` and
    /// diverges past `2 m*/c`), and at low restitution it is far shorter than the collision.
    /// `None` (the default) for a law without a dashpot.
    fn damping_time(_spec: &Self::Spec, _c: &DampingContext<'_>) -> Option<f64> {
        None
    }
    /// Apply the law: the CPU twin `law_<stem>` with the registry's uniform signature.
    fn apply(
        geom: &ContactGeom,
        params: &Self::Params,
        history: &mut Self::History,
        force: &mut ContactForce,
    );
    /// The step at which the pair broke for good, read from its history (a spring past its
    /// rupture length); `None` for a pair that holds, and for laws that never break.
    fn broken_at(_history: &Self::History) -> Option<u64> {
        None
    }
}

/// How a law is checked against its WGSL twin: the parity tolerance, random inputs, and the
/// names and layouts of its records (derived from their [`gpu_struct!`] definitions).
pub trait LawTwin: Law<Params: GpuLayout, History: HistoryLayout> {
    /// Relative tolerance of CPU/GPU parity on its outputs.
    const PARITY_TOLERANCE: f32;
    /// Name of its parameter struct on both sides.
    const PARAMS_STRUCT: &'static str = <Self::Params as GpuLayout>::NAME;
    /// Name of its history struct on both sides, or `None` when it keeps no history.
    const HISTORY_STRUCT: Option<&'static str> = <Self::History as HistoryLayout>::NAME;

    /// Random parity case `i` (the first few indices are edge cases).
    fn parity_case(rng: &mut SplitMix, i: usize) -> ParityCase<Self::Params, Self::History>;
    /// Rust layouts of its params and history structs, for the test against naga.
    fn layouts() -> Vec<(&'static str, u32, FieldOffsets)> {
        let mut out = vec![<Self::Params as GpuLayout>::layout()];
        out.extend(<Self::History as HistoryLayout>::layout());
        out
    }
}

/// The slot a law occupies in a chain; laws run in slot order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Slot {
    Normal,
    Damping,
    Tangential,
    Rolling,
    Twisting,
    Extra,
    /// Friction-matrix laws of the implicit dynamics modes: they declare a friction block
    /// (`ContactForce::gamma_n`, `gamma_t`) and add no force.
    Resistance,
    /// The contact matrix's assembly (`contact_matrix`), which every chain of an implicit
    /// world ends with; never named in a scene.
    Matrix,
}

impl Slot {
    /// Every slot a scene fills, in chain order.
    pub const ALL: [Slot; 7] = [
        Slot::Normal,
        Slot::Damping,
        Slot::Tangential,
        Slot::Rolling,
        Slot::Twisting,
        Slot::Extra,
        Slot::Resistance,
    ];

    /// The scene key of the slot inside an `[[interaction]]` table.
    pub fn key(self) -> &'static str {
        match self {
            Slot::Normal => "normal",
            Slot::Damping => "damping",
            Slot::Tangential => "tangential",
            Slot::Rolling => "rolling",
            Slot::Twisting => "twisting",
            Slot::Extra => "extra",
            Slot::Resistance => "resistance",
            Slot::Matrix => "matrix",
        }
    }
}
