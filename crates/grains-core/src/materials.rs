//! Materials, interaction definitions and the per-material-pair table the kernels read.
//!
//! Mixing rules: Hertz effective modulus `E* = 1/((1-nu1^2)/E1 + (1-nu2^2)/E2)`, effective
//! shear modulus `G* = 1/(2(2-nu1)(1+nu1)/E1 + 2(2-nu2)(1+nu2)/E2)` (Mindlin; the form
//! LIGGGHTS uses). Friction is given per interaction, not per material.

use crate::error::CoreError;
use crate::gpu_types::{
    CundallStrackParams, HertzDampedParams, HertzParams, InteractionParams, LinearParams,
    ViscousParams,
};
use crate::registry::{ChainSpec, LawKind, ResolverKind};
use crate::restitution::{zeta_for_restitution, SpringShape};

/// An isotropic elastic material.
#[derive(Clone, Debug, PartialEq)]
pub struct Material {
    /// Name used by the scene.
    pub name: String,
    /// Density (kg/m^3).
    pub density: f64,
    /// Young's modulus (Pa).
    pub young: f64,
    /// Poisson's ratio.
    pub poisson: f64,
}

/// Effective Hertz modulus of two materials (Pa).
pub fn effective_young(a: &Material, b: &Material) -> f64 {
    1.0 / ((1.0 - a.poisson * a.poisson) / a.young + (1.0 - b.poisson * b.poisson) / b.young)
}

/// Effective shear modulus of two materials for Mindlin's tangential stiffness (Pa).
pub fn effective_shear(a: &Material, b: &Material) -> f64 {
    1.0 / (2.0 * (2.0 - a.poisson) * (1.0 + a.poisson) / a.young
        + 2.0 * (2.0 - b.poisson) * (1.0 + b.poisson) / b.young)
}

/// The normal slot of an interaction.
#[derive(Clone, Debug, PartialEq)]
pub enum NormalLaw {
    /// Linear spring; `None` derives the stiffness from Young's moduli (Woo).
    Linear { stiffness: Option<f64> },
    /// Hertz.
    Hertz,
    /// Kuwabara-Kono damped Hertz with damping constant `A` (s).
    HertzDamped { damping_time: f64 },
}

/// The damping slot of an interaction.
#[derive(Clone, Debug, PartialEq)]
pub enum DampingLaw {
    /// Viscous dashpot achieving restitution `e` on a head-on impact.
    Viscous { restitution: f64 },
}

/// Tangential stiffness of the Cundall-Strack spring.
#[derive(Clone, Debug, PartialEq)]
pub enum TangentialStiffness {
    /// `k_t = ratio * k_n` (tangent normal stiffness).
    Ratio(f64),
    /// Mindlin's `8 G* sqrt(R* delta)`.
    Mindlin,
}

/// The tangential slot of an interaction.
#[derive(Clone, Debug, PartialEq)]
pub enum TangentialLaw {
    /// Cundall-Strack spring with static and dynamic Coulomb coefficients.
    CundallStrack {
        friction: f64,
        friction_static: f64,
        stiffness: TangentialStiffness,
    },
}

/// One `[[interaction]]`: the laws between two materials.
#[derive(Clone, Debug, PartialEq)]
pub struct Interaction {
    /// Material indices (order does not matter).
    pub between: (usize, usize),
    pub normal: NormalLaw,
    pub damping: Option<DampingLaw>,
    pub tangential: Option<TangentialLaw>,
}

impl Interaction {
    /// The laws of this interaction, in slot order.
    pub fn laws(&self) -> Vec<LawKind> {
        let mut laws = vec![match self.normal {
            NormalLaw::Linear { .. } => LawKind::Linear,
            NormalLaw::Hertz => LawKind::Hertz,
            NormalLaw::HertzDamped { .. } => LawKind::HertzDamped,
        }];
        if let Some(DampingLaw::Viscous { .. }) = self.damping {
            laws.push(LawKind::Viscous);
        }
        if let Some(TangentialLaw::CundallStrack { .. }) = self.tangential {
            laws.push(LawKind::CundallStrack);
        }
        laws
    }

    /// Law parameters for materials `a`, `b`.
    pub fn params(&self, a: &Material, b: &Material) -> InteractionParams {
        let e_eff = effective_young(a, b) as f32;
        let mut p = InteractionParams::default();
        let shape = match self.normal {
            NormalLaw::Linear { stiffness } => {
                p.linear = LinearParams {
                    stiffness: stiffness.unwrap_or(0.0) as f32,
                    _pad: [0.0; 3],
                };
                SpringShape::Linear
            }
            NormalLaw::Hertz => {
                p.hertz = HertzParams {
                    e_eff,
                    _pad: [0.0; 3],
                };
                SpringShape::Hertz
            }
            NormalLaw::HertzDamped { damping_time } => {
                p.hertz_damped = HertzDampedParams {
                    e_eff,
                    damping_time: damping_time as f32,
                    _pad: [0.0; 2],
                };
                SpringShape::Hertz
            }
        };
        if let Some(DampingLaw::Viscous { restitution }) = self.damping {
            p.viscous = ViscousParams {
                zeta: zeta_for_restitution(shape, restitution) as f32,
                _pad: [0.0; 3],
            };
        }
        if let Some(TangentialLaw::CundallStrack {
            friction,
            friction_static,
            stiffness,
        }) = &self.tangential
        {
            let (ratio, mindlin) = match stiffness {
                TangentialStiffness::Ratio(r) => (*r as f32, 0),
                TangentialStiffness::Mindlin => (0.0, 1),
            };
            p.cundall_strack = CundallStrackParams {
                mu_static: *friction_static as f32,
                mu_dynamic: *friction as f32,
                stiffness_ratio: ratio,
                mindlin,
                g_eff: effective_shear(a, b) as f32,
                _pad: [0.0; 3],
            };
        }
        p
    }
}

/// Index meaning "no chain": the pair does not interact.
pub const NO_CHAIN: u32 = u32::MAX;

/// Per-material-pair table: which chain runs and with which parameters, indexed by
/// `a * n_materials + b` (symmetric).
#[derive(Clone, Debug, Default)]
pub struct PairTable {
    pub n_materials: usize,
    /// Distinct chains; sphere-sphere and sphere-plane chains are separate entries.
    pub chains: Vec<ChainSpec>,
    /// Chain index of each material pair meeting as two spheres.
    pub sphere_chain: Vec<u32>,
    /// Chain index of each (particle material, wall material) pair.
    pub wall_chain: Vec<u32>,
    /// Law parameters of each material pair.
    pub params: Vec<InteractionParams>,
}

impl PairTable {
    /// Build the table. Every pair of `present` materials (those of particles, and particle
    /// materials against wall materials) must have an interaction.
    pub fn build(
        materials: &[Material],
        interactions: &[Interaction],
        sphere_pairs: &[(usize, usize)],
        wall_pairs: &[(usize, usize)],
    ) -> Result<PairTable, CoreError> {
        let n = materials.len();
        let mut t = PairTable {
            n_materials: n,
            chains: Vec::new(),
            sphere_chain: vec![NO_CHAIN; n * n],
            wall_chain: vec![NO_CHAIN; n * n],
            params: vec![InteractionParams::default(); n * n],
        };
        let find = |a: usize, b: usize| {
            interactions
                .iter()
                .rev()
                .find(|i| i.between == (a, b) || i.between == (b, a))
        };
        for (set, resolver) in [
            (sphere_pairs, ResolverKind::SphereSphere),
            (wall_pairs, ResolverKind::SpherePlane),
        ] {
            for &(a, b) in set {
                let inter = find(a, b).ok_or_else(|| CoreError::MissingInteraction {
                    a: materials[a].name.clone(),
                    b: materials[b].name.clone(),
                })?;
                let spec = ChainSpec::new(resolver, inter.laws());
                let id = match t.chains.iter().position(|c| *c == spec) {
                    Some(i) => i,
                    None => {
                        t.chains.push(spec);
                        t.chains.len() - 1
                    }
                } as u32;
                let params = inter.params(&materials[a], &materials[b]);
                for (x, y) in [(a, b), (b, a)] {
                    let k = x * n + y;
                    t.params[k] = params;
                    match resolver {
                        ResolverKind::SphereSphere => t.sphere_chain[k] = id,
                        ResolverKind::SpherePlane => t.wall_chain[k] = id,
                    }
                }
            }
        }
        Ok(t)
    }
}
