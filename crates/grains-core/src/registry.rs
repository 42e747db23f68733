//! The registry of chain elements: every resolver and law grains knows.
//!
//! Laws are listed once, in the `laws!` table of `kernels/laws/mod.rs`: one line per law,
//! naming its variant, its module and the type in it that implements [`Law`] (physics and scene
//! settings) and [`LawTwin`](crate::law::LawTwin) (parity and record layouts). From that table the macro generates
//! [`LawKind`] (keyword, slot, sizes, tolerance), [`LawSpec`] (a law's scene settings, parsed by
//! the law), and the dispatch the CPU chain, the composer, the scene parser, the time-step
//! estimate and the tests loop over, each from the trait that holds it. Nothing else names a
//! law.
//!
//! Resolvers are listed once too, in the `resolvers!` table of `kernels/resolvers/mod.rs`, each a
//! type implementing [`crate::kernels::resolvers::Resolver`]; the macro generates [`ResolverKind`] and its dispatch.

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::kernels::sources::SourceKind;
use crate::law::Law;

/// Generates, from the `resolvers!` table in `kernels/resolvers/mod.rs`, each resolver's
/// `pub mod`, the [`ResolverKind`] enum and every dispatch over it.
macro_rules! resolvers {
    ($($variant:ident => $module:ident :: $ty:ident),* $(,)?) => {
        $(pub mod $module;)*

        /// Geometry resolver of a chain: which two kinds of body meet. Generated from the
        /// registry table in `kernels/resolvers/mod.rs`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum ResolverKind {
            $(
                #[doc = concat!("`", stringify!($module), "`: see [`crate::kernels::resolvers::", stringify!($module), "`].")]
                $variant,
            )*
        }

        impl ResolverKind {
            /// Every resolver, in registry order.
            pub const ALL: &'static [ResolverKind] = &[$(ResolverKind::$variant),*];

            /// File stem under `shaders/resolvers/` and `kernels/resolvers/`; the WGSL function
            /// is `resolve_<stem>`.
            pub fn stem(self) -> &'static str {
                match self {
                    $(ResolverKind::$variant => stringify!($module),)*
                }
            }

            /// Name of its parity harness: the generic `shaders/testing/harness_resolve.wgsl`
            /// with this resolver inserted.
            pub fn harness(self) -> &'static str {
                match self {
                    $(ResolverKind::$variant => concat!("harness_resolve_", stringify!($module)),)*
                }
            }

            /// Relative tolerance of CPU/GPU parity on the resolver's outputs.
            pub fn parity_tolerance(self) -> f32 {
                match self {
                    $(ResolverKind::$variant => <crate::kernels::resolvers::$module::$ty as Resolver>::PARITY_TOLERANCE,)*
                }
            }

            /// WGSL names of the records its harness reads as `b1` and `b2`
            /// ([`crate::kernels::resolvers::Resolver::Body1`], `Body2`).
            pub fn harness_bodies(self) -> (&'static str, &'static str) {
                match self {
                    $(ResolverKind::$variant => {
                        type R = crate::kernels::resolvers::$module::$ty;
                        (<<R as Resolver>::Body1 as HarnessRecord>::WGSL, <<R as Resolver>::Body2 as HarnessRecord>::WGSL)
                    })*
                }
            }

            /// The arguments of `resolve_<stem>` in WGSL, from the harness's inputs
            /// ([`crate::kernels::resolvers::Resolver::TWIN_ARGS`]).
            pub fn twin_args(self) -> &'static str {
                match self {
                    $(ResolverKind::$variant => <crate::kernels::resolvers::$module::$ty as Resolver>::TWIN_ARGS,)*
                }
            }

            /// Random parity case `i`, its bodies as words.
            pub fn parity_case(self, rng: &mut SplitMix, i: usize) -> ResolverCase<Vec<u32>, Vec<u32>> {
                match self {
                    $(ResolverKind::$variant => <crate::kernels::resolvers::$module::$ty as Resolver>::parity_case(rng, i).to_words(),)*
                }
            }

            /// The CPU twin on a parity case ([`ResolverKind::parity_case`]).
            pub fn parity_twin(self, case: &ResolverCase<Vec<u32>, Vec<u32>>, domain: &DomainParams, dt: f32) -> ContactGeom {
                match self {
                    $(ResolverKind::$variant => {
                        type R = crate::kernels::resolvers::$module::$ty;
                        <R as Resolver>::twin(&case.typed(), domain, dt)
                    })*
                }
            }

            /// How far the twin moves under the rounding of a parity case's inputs
            /// ([`crate::kernels::resolvers::Resolver::rounding_spread`]).
            pub fn rounding_spread(self, case: &ResolverCase<Vec<u32>, Vec<u32>>, domain: &DomainParams, dt: f32) -> [f32; 4] {
                match self {
                    $(ResolverKind::$variant => {
                        type R = crate::kernels::resolvers::$module::$ty;
                        <R as Resolver>::rounding_spread(&case.typed(), domain, dt)
                    })*
                }
            }

            /// The pair sources whose pairs this resolver can read, the first being where an
            /// `[[interaction]]` of its bodies runs.
            pub fn sources(self) -> &'static [SourceKind] {
                match self {
                    $(ResolverKind::$variant => <crate::kernels::resolvers::$module::$ty as Resolver>::SOURCES,)*
                }
            }

            /// Whether its WGSL adapter reads the shape bindings
            /// ([`crate::kernels::resolvers::Resolver::READS_SHAPES`]).
            pub fn reads_shapes(self) -> bool {
                match self {
                    $(ResolverKind::$variant => <crate::kernels::resolvers::$module::$ty as Resolver>::READS_SHAPES,)*
                }
            }

            /// Its WGSL `pair_overlap` and `pair_geom`
            /// ([`crate::kernels::resolvers::Resolver::ADAPTER`]).
            pub fn adapter(self) -> &'static str {
                match self {
                    $(ResolverKind::$variant => <crate::kernels::resolvers::$module::$ty as Resolver>::ADAPTER,)*
                }
            }

            /// The largest effective radius (m) for bodies of largest radii `ra`, `rb` (m).
            pub fn r_eff_max(self, ra: f64, rb: f64) -> f64 {
                match self {
                    $(ResolverKind::$variant => <crate::kernels::resolvers::$module::$ty as Resolver>::r_eff_max(ra, rb),)*
                }
            }

            /// Overlap (m) of source pair `pr`, computed exactly as [`ResolverKind::resolve`]
            /// computes `delta`: the contact pass's early out for the many candidates that do
            /// not touch. The CPU form of the `pair_overlap` the composer generates.
            #[inline]
            pub fn overlap(self, pr: &SourcePair, b: &Bodies<'_>) -> f32 {
                match self {
                    $(ResolverKind::$variant => <crate::kernels::resolvers::$module::$ty as Resolver>::overlap(pr, b),)*
                }
            }

            /// The contact geometry of source pair `pr`: the CPU form of the generated
            /// `pair_geom`.
            #[inline]
            pub fn resolve(self, pr: &SourcePair, b: &Bodies<'_>) -> ContactGeom {
                match self {
                    $(ResolverKind::$variant => <crate::kernels::resolvers::$module::$ty as Resolver>::resolve(pr, b),)*
                }
            }
        }
    };
}

pub(crate) use resolvers;

/// Generates, from the `walls!` table in `kernels/walls/mod.rs`, each analytic wall kind's
/// `pub mod`, its `WALL_*` id, [`WallKind`](crate::kernels::walls::WallKind) and every dispatch
/// over it: the scene keyword and keys, the resolver, the reading of a block, the broad phase's
/// distance bound, the contact, the outline drawn in frames, the parity placement and the WGSL
/// that names the kinds.
macro_rules! walls {
    ($($id:literal $variant:ident $constant:ident => $module:ident :: $ty:ident),* $(,)?) => {
        $(pub mod $module;)*

        $(
            #[doc = concat!("[`Wall::kind`](crate::kernel_types::Wall::kind) of a `", stringify!($module), "` wall.")]
            pub const $constant: u32 = $id;
        )*

        /// Number of wall kinds: the wall source's pair table has one block of material pairs
        /// each, so the ids are `0..WALL_KINDS` (checked by a test).
        pub const WALL_KINDS: usize = [$($id),*].len();

        /// An analytic wall's kind. Generated from the table in `kernels/walls/mod.rs`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum WallKind {
            $(
                #[doc = concat!("`", stringify!($module), "`: see [`crate::kernels::walls::", stringify!($module), "`].")]
                $variant,
            )*
        }

        impl WallKind {
            /// Every kind, in id order.
            pub const ALL: &'static [WallKind] = &[$(WallKind::$variant),*];

            /// The kind of [`Wall::kind`](crate::kernel_types::Wall::kind) `kind`, if it is one.
            pub fn of(kind: u32) -> Option<WallKind> {
                match kind {
                    $($id => Some(WallKind::$variant),)*
                    _ => None,
                }
            }

            /// Its [`Wall::kind`](crate::kernel_types::Wall::kind).
            pub fn id(self) -> u32 {
                match self {
                    $(WallKind::$variant => $id,)*
                }
            }

            /// The name of its WGSL constant (`WALL_PLANE`), the same as the Rust one.
            pub fn constant(self) -> &'static str {
                match self {
                    $(WallKind::$variant => stringify!($constant),)*
                }
            }

            /// File stem under `kernels/walls/` and `shaders/walls/`.
            pub fn stem(self) -> &'static str {
                match self {
                    $(WallKind::$variant => stringify!($module),)*
                }
            }

            /// The key of a `[[wall]]` block that gives a wall of this kind.
            pub fn keyword(self) -> &'static str {
                match self {
                    $(WallKind::$variant => <$module::$ty as WallShape>::KEYWORD,)*
                }
            }

            /// The keys of its table, in the order messages list them.
            pub fn keys(self) -> &'static [&'static str] {
                match self {
                    $(WallKind::$variant => <$module::$ty as WallShape>::KEYS,)*
                }
            }

            /// [`WallShape::EXAMPLE`] of this kind.
            pub fn example(self) -> &'static str {
                match self {
                    $(WallKind::$variant => <$module::$ty as WallShape>::EXAMPLE,)*
                }
            }

            /// The resolver of a sphere against it.
            pub fn resolver(self) -> ResolverKind {
                match self {
                    $(WallKind::$variant => <$module::$ty as WallShape>::RESOLVER,)*
                }
            }

            /// Read the wall of `material` from its table.
            pub fn read<K: ShapeKeys>(self, keys: &K, material: u32) -> Result<Wall, K::Error> {
                match self {
                    $(WallKind::$variant => <$module::$ty as WallShape>::read(keys, material),)*
                }
            }

            /// [`WallShape::distance_bound`] of this kind.
            pub fn distance_bound(self, w: &Wall, a: f32, rho: f32) -> f32 {
                match self {
                    $(WallKind::$variant => <$module::$ty as WallShape>::distance_bound(w, a, rho),)*
                }
            }

            /// [`WallShape::contact`] of this kind.
            pub fn contact(self, b: &SphereBody, w: &Wall) -> ContactGeom {
                match self {
                    $(WallKind::$variant => <$module::$ty as WallShape>::contact(b, w),)*
                }
            }

            /// [`WallShape::outline`] of this kind.
            pub fn outline(self, w: &Wall, along: (f64, f64)) -> Outline {
                match self {
                    $(WallKind::$variant => <$module::$ty as WallShape>::outline(w, along),)*
                }
            }

            /// [`WallShape::place_near`] of this kind.
            pub fn place_near(self, w: &mut Wall, near: &Near, rng: &mut SplitMix) {
                match self {
                    $(WallKind::$variant => <$module::$ty as WallShape>::place_near(w, near, rng),)*
                }
            }
        }
    };
}

pub(crate) use walls;

pub use crate::kernels::resolvers::ResolverKind;

impl ResolverKind {
    /// The resolver of a wall of kind `kind` ([`crate::kernel_types::Wall::kind`]).
    pub fn of_wall(kind: u32) -> ResolverKind {
        crate::kernels::walls::WallKind::of(kind).map_or(
            ResolverKind::SpherePlane,
            crate::kernels::walls::WallKind::resolver,
        )
    }
}

pub use crate::law::Slot;

impl Slot {
    /// The laws that fill this slot.
    pub fn laws(self) -> Vec<LawKind> {
        LawKind::ALL
            .iter()
            .copied()
            .filter(|l| l.slot() == self)
            .collect()
    }
}

/// Words (4 bytes each) of a Pod record with 4-byte alignment.
pub(crate) const fn words<T>() -> usize {
    std::mem::size_of::<T>() / 4
}

/// The law of a parity case, with its parameters and history as words.
#[derive(Clone, Debug)]
pub struct ParityWords {
    pub geom: ContactGeom,
    pub params: Vec<u32>,
    pub history: Vec<f32>,
    pub force: ContactForce,
}

/// Generates, from the registry table in `kernels/laws/mod.rs`, each law's `pub mod`, the
/// [`LawKind`] and [`LawSpec`] enums and every dispatch over them.
macro_rules! laws {
    ($($variant:ident => $module:ident :: $ty:ident),* $(,)?) => {
        $(pub mod $module;)*

        /// A force law of a chain. Generated from the registry table.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum LawKind {
            $(
                #[doc = concat!("`", stringify!($module), "`: see [`crate::kernels::laws::", stringify!($module), "`].")]
                $variant,
            )*
        }

        /// A law with its scene settings. Generated from the registry table.
        #[derive(Clone, Debug, PartialEq)]
        pub enum LawSpec {
            $(
                #[doc = concat!("Settings of `", stringify!($module), "`.")]
                $variant(<crate::kernels::laws::$module::$ty as Law>::Spec),
            )*
        }

        impl LawKind {
            /// Every law, in registry order.
            pub const ALL: &'static [LawKind] = &[$(LawKind::$variant),*];

            /// Scene keyword (`law = "..."`), also the stem of its files and of `law_<stem>`.
            pub fn keyword(self) -> &'static str {
                match self {
                    $(LawKind::$variant => <crate::kernels::laws::$module::$ty as Law>::KEYWORD,)*
                }
            }

            /// The slot the law fills.
            pub fn slot(self) -> Slot {
                match self {
                    $(LawKind::$variant => <crate::kernels::laws::$module::$ty as Law>::SLOT,)*
                }
            }

            /// Keys its slot table accepts besides `law`.
            pub fn keys(self) -> &'static [&'static str] {
                match self {
                    $(LawKind::$variant => <crate::kernels::laws::$module::$ty as Law>::KEYS,)*
                }
            }

            /// Relative tolerance of CPU/GPU parity on the law's outputs.
            pub fn parity_tolerance(self) -> f32 {
                match self {
                    $(LawKind::$variant => <crate::kernels::laws::$module::$ty as LawTwin>::PARITY_TOLERANCE,)*
                }
            }

            /// Name of its parameter struct (Rust and WGSL).
            pub fn params_struct(self) -> &'static str {
                match self {
                    $(LawKind::$variant => <crate::kernels::laws::$module::$ty as LawTwin>::PARAMS_STRUCT,)*
                }
            }

            /// Name of its history struct (Rust and WGSL), if it keeps history.
            pub fn history_struct(self) -> Option<&'static str> {
                match self {
                    $(LawKind::$variant => <crate::kernels::laws::$module::$ty as LawTwin>::HISTORY_STRUCT,)*
                }
            }

            /// Size of its parameters (4-byte words).
            pub fn params_words(self) -> usize {
                match self {
                    $(LawKind::$variant => words::<<crate::kernels::laws::$module::$ty as Law>::Params>(),)*
                }
            }

            /// What each of its history words measures; the length is the history's size.
            pub fn history_words(self) -> &'static [Word] {
                match self {
                    $(LawKind::$variant => <crate::kernels::laws::$module::$ty as Law>::HISTORY_WORDS,)*
                }
            }

            /// Whether it sets what the laws before it declared, and so must be the last law of
            /// its slot ([`Law::OVERWRITES`]).
            pub fn overwrites(self) -> bool {
                match self {
                    $(LawKind::$variant => <crate::kernels::laws::$module::$ty as Law>::OVERWRITES,)*
                }
            }

            /// The ledger columns it writes.
            pub fn energy_terms(self) -> &'static [&'static str] {
                match self {
                    $(LawKind::$variant => <crate::kernels::laws::$module::$ty as Law>::ENERGY,)*
                }
            }

            /// Rust layouts of its params and history structs.
            pub fn layouts(self) -> Vec<(&'static str, u32, FieldOffsets)> {
                match self {
                    $(LawKind::$variant => <crate::kernels::laws::$module::$ty as LawTwin>::layouts(),)*
                }
            }

            /// Parse the law's settings from its slot table.
            pub fn parse<K: LawKeys>(self, keys: &K) -> Result<LawSpec, K::Error> {
                Ok(match self {
                    $(LawKind::$variant => LawSpec::$variant(<crate::kernels::laws::$module::$ty as Law>::parse(keys)?),)*
                })
            }

            /// Random parity case `i`, parameters and history as words.
            pub fn parity_case(self, rng: &mut SplitMix, i: usize) -> ParityWords {
                match self {
                    $(LawKind::$variant => {
                        let c = <crate::kernels::laws::$module::$ty as LawTwin>::parity_case(rng, i);
                        ParityWords {
                            geom: c.geom,
                            params: bytemuck::cast_slice(bytemuck::bytes_of(&c.params)).to_vec(),
                            history: bytemuck::cast_slice(bytemuck::bytes_of(&c.history)).to_vec(),
                            force: c.force,
                        }
                    })*
                }
            }

            /// The step at which a pair of this law broke for good ([`Law::broken_at`]), from
            /// its history words (exactly the law's words).
            pub fn broken_at(self, history: &[f32]) -> Option<u64> {
                match self {
                    $(LawKind::$variant => {
                        type L = crate::kernels::laws::$module::$ty;
                        let h: &<L as Law>::History = bytemuck::try_from_bytes(bytemuck::cast_slice(history)).ok()?;
                        <L as Law>::broken_at(h)
                    })*
                }
            }

            /// Apply the law to `geom`, reading its parameters from `params` and its history
            /// from `history` (each exactly the law's words).
            #[inline]
            pub fn apply(
                self,
                geom: &ContactGeom,
                params: &[u32],
                history: &mut [f32],
                force: &mut ContactForce,
            ) {
                match self {
                    $(LawKind::$variant => apply_law::<crate::kernels::laws::$module::$ty>(geom, params, history, force),)*
                }
            }
        }

        /// One law on one pair, out of line: inlined into the dispatch, every law's arithmetic on
        /// the geometry alone was hoisted above it and run for every pair, whichever laws its
        /// chain has (about a hundred instructions a pair).
        #[inline(never)]
        fn apply_law<L: Law>(
            geom: &ContactGeom,
            params: &[u32],
            history: &mut [f32],
            force: &mut ContactForce,
        ) {
            let p: &<L as Law>::Params = bytemuck::from_bytes(bytemuck::cast_slice(params));
            let h: &mut <L as Law>::History =
                bytemuck::from_bytes_mut(bytemuck::cast_slice_mut(history));
            <L as Law>::apply(geom, p, h, force)
        }

        impl LawSpec {
            /// Which law these settings are for.
            pub fn kind(&self) -> LawKind {
                match self {
                    $(LawSpec::$variant(_) => LawKind::$variant,)*
                }
            }

            /// The elastic shape, for a normal law.
            pub fn spring(&self) -> Option<SpringShape> {
                match self {
                    $(LawSpec::$variant(s) => <crate::kernels::laws::$module::$ty as Law>::spring(s),)*
                }
            }

            /// Parameters of one material pair, as words.
            pub fn mix(&self, pair: &PairContext<'_>) -> Vec<u32> {
                match self {
                    $(LawSpec::$variant(s) => {
                        let p = <crate::kernels::laws::$module::$ty as Law>::mix(s, pair);
                        bytemuck::cast_slice(bytemuck::bytes_of(&p)).to_vec()
                    })*
                }
            }

            /// How far beyond touching the law acts (m).
            pub fn range(&self, pair: &PairContext<'_>) -> f64 {
                match self {
                    $(LawSpec::$variant(s) => <crate::kernels::laws::$module::$ty as Law>::range(s, pair),)*
                }
            }

            /// Collision time (s) of a normal law, for `dt = "auto"`.
            pub fn collision_time(&self, c: &CollisionContext<'_>) -> Option<f64> {
                match self {
                    $(LawSpec::$variant(s) => <crate::kernels::laws::$module::$ty as Law>::collision_time(s, c),)*
                }
            }

            /// Relaxation time (s) of a law's dashpot, for `dt = "auto"`.
            pub fn damping_time(&self, c: &crate::law::DampingContext<'_>) -> Option<f64> {
                match self {
                    $(LawSpec::$variant(s) => <crate::kernels::laws::$module::$ty as Law>::damping_time(s, c),)*
                }
            }
        }
    };
}

pub(crate) use laws;

pub use crate::kernels::laws::{LawKind, LawSpec};

impl LawKind {
    /// The law of a scene keyword.
    pub fn from_keyword(word: &str) -> Option<LawKind> {
        LawKind::ALL.iter().copied().find(|l| l.keyword() == word)
    }

    /// File stem under `shaders/laws/` and `kernels/laws/`; the function is `law_<stem>`.
    pub fn stem(self) -> &'static str {
        self.keyword()
    }

    /// Whether the law keeps per-pair history.
    pub fn uses_history(self) -> bool {
        !self.history_words().is_empty()
    }
}

/// Where each law of a chain finds its parameters and history: word offsets into the chain's
/// parameter record and history record, laid out in chain order. The composer lays the WGSL
/// structs out the same way (4-byte scalars only, so no padding between laws).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainLayout {
    /// `(params offset, params words, history offset, history words)` per law, in chain order.
    pub laws: Vec<(usize, usize, usize, usize)>,
    /// Words of parameters the chain uses.
    pub params_words: usize,
    /// Words of history the chain uses.
    pub history_words: usize,
}

/// A contact model chain: a pair source, a resolver, then laws in slot order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ChainSpec {
    /// Where its pairs come from (one of the resolver's [`ResolverKind::sources`]).
    pub source: SourceKind,
    pub resolver: ResolverKind,
    /// Laws in the order they run (sorted by slot when built through [`ChainSpec::new`]).
    pub laws: Vec<LawKind>,
}

impl ChainSpec {
    /// A chain on the resolver's first source, with its laws put in slot order (stable for
    /// laws of the same slot).
    pub fn new(resolver: ResolverKind, laws: Vec<LawKind>) -> Self {
        ChainSpec::on(resolver.sources()[0], resolver, laws)
    }

    /// A chain on pair source `source` (which `resolver` must be able to read).
    pub fn on(source: SourceKind, resolver: ResolverKind, mut laws: Vec<LawKind>) -> Self {
        debug_assert!(resolver.sources().contains(&source));
        laws.sort_by_key(|l| l.slot());
        ChainSpec {
            source,
            resolver,
            laws,
        }
    }

    /// Word offsets of each law's parameters and history.
    pub fn layout(&self) -> ChainLayout {
        let (mut p, mut h) = (0, 0);
        let mut laws = Vec::with_capacity(self.laws.len());
        for l in &self.laws {
            let (pw, hw) = (l.params_words(), l.history_words().len());
            laws.push((p, pw, h, hw));
            p += pw;
            h += hw;
        }
        ChainLayout {
            laws,
            params_words: p,
            history_words: h,
        }
    }

    /// A stable identifier usable in file and entry-point names, e.g.
    /// `sphere_sphere__hertz__viscous__cundall_strack`; a chain on another source than its
    /// resolver's first is prefixed with the source, e.g. `fixed__sphere_sphere__linear`.
    pub fn name(&self) -> String {
        let mut s = String::new();
        if self.source != self.resolver.sources()[0] {
            s.push_str(self.source.stem());
            s.push_str("__");
        }
        s.push_str(self.resolver.stem());
        for l in &self.laws {
            s.push_str("__");
            s.push_str(l.stem());
        }
        s
    }
}

/// `law_list!(A, B, C)` is the type `(A, (B, (C, ())))`, a
/// [`crate::kernels::passes::contact::LawList`].
macro_rules! law_list {
    () => { () };
    ($head:ty $(, $tail:ty)*) => { ($head, law_list!($($tail),*)) };
}

/// Generates, from the table below, [`compiled_chain`] and [`compiled_chains`].
macro_rules! compiled_chains {
    ($($rmod:ident :: $rty:ident => [$($lmod:ident :: $lty:ident),*]),* $(,)?) => {
        /// The chain compiled whole for `spec` (the same laws in the same order on the same
        /// resolver, whatever its source), if the table has it.
        pub fn compiled_chain(
            spec: &ChainSpec,
        ) -> Option<crate::kernels::passes::contact::EvaluateFn> {
            use crate::kernels::passes::contact::{evaluate_as, LawList, Whole};
            $(
                {
                    type L = law_list!($(crate::kernels::laws::$lmod::$lty),*);
                    if spec.resolver.stem() == stringify!($rmod)
                        && spec.laws.iter().map(|l| l.keyword()).eq(L::keywords())
                    {
                        type R = crate::kernels::resolvers::$rmod::$rty;
                        return Some(evaluate_as::<Whole<R, L>>);
                    }
                }
            )*
            None
        }

        /// Every chain of the table, with its laws run compiled whole: for the test that they
        /// give the bits of the registry's dispatch.
        pub fn compiled_chains() -> Vec<(ChainSpec, CompiledApply)> {
            use crate::kernels::passes::contact::LawList;
            vec![$(
                (
                    ChainSpec::new(
                        ResolverKind::ALL
                            .iter()
                            .copied()
                            .find(|r| r.stem() == stringify!($rmod))
                            .expect("a resolver of the registry"),
                        vec![$(LawKind::from_keyword(
                            <crate::kernels::laws::$lmod::$lty as Law>::KEYWORD,
                        ).expect("a law of the registry")),*],
                    ),
                    <law_list!($(crate::kernels::laws::$lmod::$lty),*) as LawList>::apply
                        as CompiledApply,
                ),
            )*]
        }
    };
}

/// A compiled chain's laws applied to one pair: geometry, the chain's parameter and history
/// records, the force accumulated.
pub type CompiledApply = fn(&ContactGeom, &[u32], &mut [f32], &mut ContactForce);

// The chains the CPU backend runs compiled whole: its resolver and laws inlined into one
// function, with no dispatch per pair (about a fifth of a settling bed's instructions went to
// the dispatch and the records it copies). Any other chain runs through the registry's
// dispatch, with the same results. One line per chain: resolver, then laws in slot order.
compiled_chains! {
    sphere_sphere::SphereSphereResolver => [hertz::Hertz, viscous::Viscous, cundall_strack::CundallStrack],
    sphere_plane::SpherePlaneResolver => [hertz::Hertz, viscous::Viscous, cundall_strack::CundallStrack],
    sphere_sphere::SphereSphereResolver => [hertz::Hertz, viscous::Viscous],
    sphere_plane::SpherePlaneResolver => [hertz::Hertz, viscous::Viscous],
    sphere_sphere::SphereSphereResolver => [linear::Linear, viscous::Viscous, cundall_strack::CundallStrack],
    sphere_plane::SpherePlaneResolver => [linear::Linear, viscous::Viscous, cundall_strack::CundallStrack],
}
