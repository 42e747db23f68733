//! The registry of chain elements: every resolver and law grains knows, with its scene
//! keyword, slot, WGSL file, history use and parity tolerance.
//!
//! Matches on these enums never use a wildcard arm, so adding a variant makes the compiler list
//! every place that must learn about it (CPU chain, composer, scene parser, parity tests).

/// Geometry resolver of a chain: which two kinds of body meet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ResolverKind {
    /// Two spheres.
    SphereSphere,
    /// A sphere and an infinite plane wall.
    SpherePlane,
}

impl ResolverKind {
    /// Every resolver, in registry order.
    pub const ALL: [ResolverKind; 2] = [ResolverKind::SphereSphere, ResolverKind::SpherePlane];

    /// File stem under `shaders/resolvers/` and `kernels/resolvers/`; the WGSL function is
    /// `resolve_<stem>`.
    pub fn stem(self) -> &'static str {
        match self {
            ResolverKind::SphereSphere => "sphere_sphere",
            ResolverKind::SpherePlane => "sphere_plane",
        }
    }

    /// Relative tolerance of CPU/GPU parity on the resolver's outputs. f32 with a square root
    /// and a division: a few ulps, with margin for fused multiply-adds on the GPU.
    pub fn parity_tolerance(self) -> f32 {
        match self {
            ResolverKind::SphereSphere => 1e-5,
            ResolverKind::SpherePlane => 1e-5,
        }
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
}

impl Slot {
    /// The scene key of the slot inside an `[[interaction]]` table.
    pub fn key(self) -> &'static str {
        match self {
            Slot::Normal => "normal",
            Slot::Damping => "damping",
            Slot::Tangential => "tangential",
            Slot::Rolling => "rolling",
            Slot::Twisting => "twisting",
            Slot::Extra => "extra",
        }
    }
}

/// A force law of a chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LawKind {
    /// Linear spring (Cundall & Strack 1979), `k_n` given or from Young's modulus (Woo).
    Linear,
    /// Hertz elastic sphere contact.
    Hertz,
    /// Kuwabara-Kono damped Hertz contact.
    HertzDamped,
    /// Viscous dashpot tuned to a requested restitution coefficient.
    Viscous,
    /// Cundall-Strack tangential spring with a Coulomb limit.
    CundallStrack,
}

impl LawKind {
    /// Every law, in registry order.
    pub const ALL: [LawKind; 5] = [
        LawKind::Linear,
        LawKind::Hertz,
        LawKind::HertzDamped,
        LawKind::Viscous,
        LawKind::CundallStrack,
    ];

    /// Scene keyword (`law = "..."`).
    pub fn keyword(self) -> &'static str {
        match self {
            LawKind::Linear => "linear",
            LawKind::Hertz => "hertz",
            LawKind::HertzDamped => "hertz_damped",
            LawKind::Viscous => "viscous",
            LawKind::CundallStrack => "cundall_strack",
        }
    }

    /// The law of a scene keyword.
    pub fn from_keyword(word: &str) -> Option<LawKind> {
        LawKind::ALL.into_iter().find(|l| l.keyword() == word)
    }

    /// File stem under `shaders/laws/` and `kernels/laws/`; the function is `law_<stem>`.
    pub fn stem(self) -> &'static str {
        self.keyword()
    }

    /// The slot the law occupies.
    pub fn slot(self) -> Slot {
        match self {
            LawKind::Linear => Slot::Normal,
            LawKind::Hertz => Slot::Normal,
            LawKind::HertzDamped => Slot::Normal,
            LawKind::Viscous => Slot::Damping,
            LawKind::CundallStrack => Slot::Tangential,
        }
    }

    /// Whether the law reads or writes the pair history.
    pub fn uses_history(self) -> bool {
        match self {
            LawKind::Linear => false,
            LawKind::Hertz => false,
            LawKind::HertzDamped => true,
            LawKind::Viscous => true,
            LawKind::CundallStrack => true,
        }
    }

    /// Distance beyond touching over which the law still acts (m). None of these laws is
    /// adhesive, so they act only while the surfaces overlap.
    pub fn interaction_range(self) -> f32 {
        match self {
            LawKind::Linear => 0.0,
            LawKind::Hertz => 0.0,
            LawKind::HertzDamped => 0.0,
            LawKind::Viscous => 0.0,
            LawKind::CundallStrack => 0.0,
        }
    }

    /// Relative tolerance of CPU/GPU parity on the law's force. Closed-form laws: 1e-5 (a few
    /// f32 ulps through powers and square roots). The tangential law also rotates and rescales
    /// its history vector, which adds a normalisation: 2e-5.
    pub fn parity_tolerance(self) -> f32 {
        match self {
            LawKind::Linear => 1e-5,
            LawKind::Hertz => 1e-5,
            LawKind::HertzDamped => 1e-5,
            LawKind::Viscous => 1e-5,
            LawKind::CundallStrack => 2e-5,
        }
    }
}

/// A contact model chain: a resolver, then laws in slot order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ChainSpec {
    pub resolver: ResolverKind,
    /// Laws in the order they run (sorted by slot when built through [`ChainSpec::new`]).
    pub laws: Vec<LawKind>,
}

impl ChainSpec {
    /// A chain with its laws put in slot order (stable for laws of the same slot).
    pub fn new(resolver: ResolverKind, mut laws: Vec<LawKind>) -> Self {
        laws.sort_by_key(|l| l.slot());
        ChainSpec { resolver, laws }
    }

    /// Largest interaction range of the chain's laws (m).
    pub fn interaction_range(&self) -> f32 {
        self.laws
            .iter()
            .map(|l| l.interaction_range())
            .fold(0.0, f32::max)
    }

    /// A stable identifier usable in file and entry-point names, e.g.
    /// `sphere_sphere__hertz__viscous__cundall_strack`.
    pub fn name(&self) -> String {
        let mut s = self.resolver.stem().to_string();
        for l in &self.laws {
            s.push_str("__");
            s.push_str(l.stem());
        }
        s
    }
}
