//! Interaction definitions (the laws between two materials) and the per-material-pair table
//! the kernels read. The materials themselves are [`crate::material`]; each law mixes its own
//! parameters from the two ([`crate::law::Law::mix`]); friction is given per interaction, not
//! per material.

use crate::error::{CoreError, MissingInteraction};
use crate::kernels::sources::SourceKind;
use crate::law::{PairContext, SpringShape};
use crate::material::Material;
use crate::registry::{ChainSpec, LawKind, LawSpec, ResolverKind, Slot};

/// One `[[interaction]]`: the laws between two materials, one per filled slot.
#[derive(Clone, Debug, PartialEq)]
pub struct Interaction {
    /// Material indices (order does not matter).
    pub between: (usize, usize),
    /// The laws with their settings (the normal slot is required).
    pub laws: Vec<LawSpec>,
}

impl Interaction {
    /// An interaction between materials `a` and `b`; the laws are put in slot order.
    pub fn new(a: usize, b: usize, mut laws: Vec<LawSpec>) -> Interaction {
        laws.sort_by_key(|l| l.kind().slot());
        Interaction {
            between: (a, b),
            laws,
        }
    }

    /// The laws of this interaction, in slot order.
    pub fn kinds(&self) -> Vec<LawKind> {
        self.laws.iter().map(|l| l.kind()).collect()
    }

    /// The law in `slot`, if any.
    pub fn law(&self, slot: Slot) -> Option<&LawSpec> {
        self.laws.iter().find(|l| l.kind().slot() == slot)
    }

    /// Elastic shape of the normal law (Hertz when, impossibly, there is none).
    pub fn spring(&self) -> SpringShape {
        self.laws
            .iter()
            .find_map(|l| l.spring())
            .unwrap_or(SpringShape::Hertz)
    }

    /// The chain's parameter record for materials `a`, `b` (words, in chain order), and the
    /// largest range of its laws (m) for pairs of effective radius up to `r_eff_max`.
    pub fn params(&self, a: &Material, b: &Material, reach: PairReach) -> (Vec<u32>, f64) {
        let pair = PairContext {
            a,
            b,
            spring: self.spring(),
            r_eff_max: reach.r_eff_max,
            lengths_max: reach.lengths_max,
        };
        let mut words = Vec::new();
        let mut range = 0.0f64;
        for l in &self.laws {
            words.extend(l.mix(&pair));
            range = range.max(l.range(&pair));
        }
        (words, range)
    }
}

/// The sizes of the largest pair a chain may meet, which bound its laws' ranges.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairReach {
    /// Largest effective radius `R*` (m).
    pub r_eff_max: f64,
    /// Largest sum of the two contact lengths (m).
    pub lengths_max: f64,
}

/// Index meaning "no chain": the pair does not interact.
pub const NO_CHAIN: u32 = u32::MAX;

/// Per-material-pair table: which chain runs and with which parameters, indexed by
/// `a * n_materials + b` (ordered: body 1 of material `a`, body 2 of material `b`).
#[derive(Clone, Debug, Default)]
pub struct PairTable {
    pub n_materials: usize,
    /// Distinct chains; sphere-sphere and sphere-plane chains are separate entries.
    pub chains: Vec<ChainSpec>,
    /// Interaction range of each chain (m): the largest over the material pairs it serves.
    pub chain_range: Vec<f32>,
    /// How far beyond touching each chain's pairs are evaluated (m): its range, plus the skin
    /// for a chain that acts beyond touching; `f32::MAX` for a fixed-source chain, whose pairs
    /// are evaluated at any distance. A pair separating fast can then not leave the
    /// range between two steps unseen: its laws always see it go (an adhesive contact breaks
    /// and books its energy) before the pass forgets its history.
    pub chain_reach: Vec<f32>,
    /// Chain index of each material pair meeting as two spheres.
    pub sphere_chain: Vec<u32>,
    /// Chain index of each (particle material, wall material) pair.
    pub wall_chain: Vec<u32>,
    /// Chain index of each material pair joined by a fixed-topology pair (a bond).
    pub fixed_chain: Vec<u32>,
    /// Parameter record of each material pair, per pair source: one block of
    /// `n_materials^2` records per source in [`SourceKind::ALL`] order (each source's pairs may
    /// run another chain: a bond and a contact of the same two materials), each record
    /// `params_stride` words from `(a * n_materials + b) * params_stride` of its block, laid out
    /// as its chain's [`ChainSpec::layout`]. See [`PairTable::params_of`].
    pub params: Vec<u32>,
    /// Words per material pair in `params`: the largest chain record, rounded up to whole
    /// 16-byte `vec4`s, which the GPU kernels load at once.
    pub params_stride: usize,
    /// History words per neighbour-list entry: the largest chain's of the neighbour and wall
    /// sources (a wall pair is an entry of the list), in whole `vec4`s (at least one).
    pub nbr_history_stride: usize,
    /// History words per fixed pair: the largest fixed-source chain's, in whole `vec4`s (at
    /// least one).
    pub fixed_history_stride: usize,
    /// History words per neighbour-list entry as the CPU keeps them: the largest chain's of the
    /// neighbour and wall sources, unpadded (at least one once the table is built, 0 as
    /// `nbr_history_stride` is before). The GPU loads a record a `vec4` at a
    /// time, so the state and the device keep `nbr_history_stride`; the CPU's laws read words.
    pub nbr_history_words: usize,
}

/// The material pairs one pair source meets, and the interactions that may join them.
#[derive(Clone, Copy, Debug)]
pub struct PairSet<'a> {
    pub source: SourceKind,
    /// The resolver of the source's pairs.
    pub resolver: ResolverKind,
    pub pairs: &'a [TouchingPair],
    /// Where a pair's chain is looked up (the last interaction naming the pair wins).
    pub interactions: &'a [Interaction],
    /// First table entry of the set in its source's block: the wall source has one block of
    /// `n_materials^2` entries per wall kind, at `kind * n_materials^2`.
    pub offset: usize,
}

/// Two materials that can touch and why, for the message when no interaction joins them.
#[derive(Clone, Debug)]
pub struct TouchingPair {
    pub a: usize,
    pub b: usize,
    /// Why they can touch, e.g. "2 particles of \"glass\"".
    pub why: String,
}

impl PairTable {
    /// Build the table for the material pairs each source meets (`sets`). `r_max[m]` is the
    /// largest particle radius of material `m` (m), which bounds the range of adhesive laws.
    pub fn build(
        materials: &[Material],
        sets: &[PairSet<'_>],
        r_max: &[f64],
    ) -> Result<PairTable, CoreError> {
        let n = materials.len();
        let mut t = PairTable {
            n_materials: n,
            sphere_chain: vec![NO_CHAIN; n * n],
            wall_chain: vec![NO_CHAIN; crate::kernels::walls::WALL_KINDS * n * n],
            fixed_chain: vec![NO_CHAIN; n * n],
            ..Default::default()
        };
        let mut records: Vec<(SourceKind, usize, Vec<u32>)> = Vec::new();
        for set in sets {
            let find = |a: usize, b: usize| {
                set.interactions
                    .iter()
                    .rev()
                    .find(|i| i.between == (a, b) || i.between == (b, a))
            };
            for tp in set.pairs {
                let (a, b) = (tp.a, tp.b);
                let inter = find(a, b).ok_or_else(|| {
                    CoreError::MissingInteraction(Box::new(MissingInteraction {
                        a: materials[a].name.clone(),
                        b: materials[b].name.clone(),
                        why: tp.why.clone(),
                    }))
                })?;
                let spec = ChainSpec::on(set.source, set.resolver, inter.kinds());
                let id = match t.chains.iter().position(|c| *c == spec) {
                    Some(i) => i,
                    None => {
                        t.chains.push(spec);
                        t.chain_range.push(0.0);
                        t.chains.len() - 1
                    }
                };
                let ra = r_max.get(a).copied().unwrap_or(0.0);
                let rb = r_max.get(b).copied().unwrap_or(0.0);
                let reach = PairReach {
                    r_eff_max: set.resolver.r_eff_max(ra, rb),
                    // Two radii, or one twice against a wall: at most twice the larger.
                    lengths_max: 2.0 * ra.max(rb),
                };
                for (x, y) in [(a, b), (b, a)] {
                    let (words, range) = inter.params(&materials[x], &materials[y], reach);
                    t.chain_range[id] = t.chain_range[id].max(range as f32);
                    let k = set.offset + x * n + y;
                    t.chain_map_mut(set.source)[k] = id as u32;
                    records.push((set.source, k, words));
                }
            }
        }
        let words_of = |s: SourceKind| {
            t.chains
                .iter()
                .filter(|c| c.source == s)
                .map(|c| c.layout().history_words)
                .max()
                .unwrap_or(0)
                .max(1)
        };
        let stride_of = |s: SourceKind| words_of(s).next_multiple_of(4);
        // Walls' pairs are entries of the neighbour list: one history record for both.
        t.nbr_history_stride = stride_of(SourceKind::Neighbour).max(stride_of(SourceKind::Wall));
        t.nbr_history_words = words_of(SourceKind::Neighbour).max(words_of(SourceKind::Wall));
        t.fixed_history_stride = stride_of(SourceKind::Fixed);
        t.params_stride = t
            .chains
            .iter()
            .map(|c| c.layout().params_words)
            .max()
            .unwrap_or(0)
            .max(1)
            .next_multiple_of(4);
        t.params = vec![0; (t.block(SourceKind::Fixed) + n * n) * t.params_stride];
        for (s, k, words) in records {
            let at = (t.block(s) + k) * t.params_stride;
            t.params[at..at + words.len()].copy_from_slice(&words);
        }
        Ok(t)
    }

    /// History words per slot of pair source `s`.
    pub fn history_stride(&self, s: SourceKind) -> usize {
        match s {
            SourceKind::Neighbour => self.nbr_history_stride,
            // Wall pairs are entries of the neighbour list, with its records.
            SourceKind::Wall => self.nbr_history_stride,
            SourceKind::Fixed => self.fixed_history_stride,
        }
    }

    /// First table entry of source `s`'s block in `params`.
    fn block(&self, s: SourceKind) -> usize {
        let n2 = self.n_materials * self.n_materials;
        match s {
            SourceKind::Neighbour => 0,
            SourceKind::Wall => n2,
            SourceKind::Fixed => (1 + crate::kernels::walls::WALL_KINDS) * n2,
        }
    }

    /// Table entries of source `s`'s block.
    fn entries(&self, s: SourceKind) -> usize {
        let n2 = self.n_materials * self.n_materials;
        match s {
            SourceKind::Wall => crate::kernels::walls::WALL_KINDS * n2,
            SourceKind::Neighbour | SourceKind::Fixed => n2,
        }
    }

    /// A signature of the contact chain two spheres of materials `a` and `b` meet with: its
    /// laws and their parameters (FNV-1a of both). Two worlds whose signatures for a pair are
    /// equal evaluate the pair alike, so a stage may carry its contact history
    /// ([`crate::world::World`]s of two scenes). 0 for materials that never meet so.
    pub fn pair_signature(&self, a: usize, b: usize) -> u64 {
        let nm = self.n_materials;
        let pair = a * nm + b;
        // Materials that never meet as two spheres: no chain.
        let Some(chain) = self.chains.get(self.sphere_chain[pair] as usize) else {
            return 0;
        };
        let stride = self.params_stride;
        let params = &self.params_of(SourceKind::Neighbour)[pair * stride..(pair + 1) * stride];
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let text = format!("{chain:?}");
        for b in text
            .as_bytes()
            .iter()
            .chain(bytemuck::cast_slice::<u32, u8>(params))
        {
            h ^= *b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        h
    }

    /// The parameter records of source `s`: `params_stride` words per table entry.
    pub fn params_of(&self, s: SourceKind) -> &[u32] {
        let len = self.entries(s) * self.params_stride;
        let at = self.block(s) * self.params_stride;
        &self.params[at..at + len]
    }

    /// Chain index per table entry for the pairs of source `s`.
    pub fn chain_map(&self, s: SourceKind) -> &[u32] {
        match s {
            SourceKind::Neighbour => &self.sphere_chain,
            SourceKind::Wall => &self.wall_chain,
            SourceKind::Fixed => &self.fixed_chain,
        }
    }

    fn chain_map_mut(&mut self, s: SourceKind) -> &mut Vec<u32> {
        match s {
            SourceKind::Neighbour => &mut self.sphere_chain,
            SourceKind::Wall => &mut self.wall_chain,
            SourceKind::Fixed => &mut self.fixed_chain,
        }
    }

    /// The parameter record of table entry `k` (`a * n_materials + b`) of the neighbour list.
    #[inline]
    pub fn record(&self, k: usize) -> &[u32] {
        &self.params[k * self.params_stride..(k + 1) * self.params_stride]
    }
}
