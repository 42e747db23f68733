//! The contact pass, one for every pair source and resolver. WGSL twin:
//! `shaders/passes/contact.wgsl`, a template into which the composer inserts the chain's pair
//! source (`shaders/sources/`: its bindings and `source_pair`), its resolver with the generated
//! `pair_overlap` and `pair_geom` ([`crate::ResolverKind::overlap`] and `resolve` here), its
//! laws, its parameter and history records and the generated `apply_chain`.
//!
//! One invocation per pair of the source; a pair whose table entry runs this chain is
//! evaluated by the invocation that owns it, from its record (`source_record`: its flag
//! `pair_active`). A pair in contact reads its history where its source keeps it
//! (`source_history`), runs the laws, and leaves force, torques, energies and the new history
//! where the source puts them ([`SlotSink`], the WGSL sources' `place_slot`):
//!
//! - the fixed source keeps one slot and one history record per pair, in place, `pair_active`
//!   1 while they may be non-zero;
//! - the neighbour list packs both, only for the pairs in contact, named in `pair_active` as
//!   `1 + index` (0: out of contact, no history). Here (the CPU) every pair in contact takes
//!   the next slot of its block's region each step and reads its history from last step's
//!   records (`history_in`, a copy of the region) at its flag; the GPU keeps a pair's slot
//!   while it stays in contact and reads and writes its history there in place
//!   (`shaders/lib/packed_slots.wgsl`). Most candidates never touch, so the list keeps
//!   48-byte slots and its history only for the pairs in contact (about 0.6 per sphere in a
//!   settled bed, against 4.5 candidate pairs).
//!
//! An inactive pair found apart again writes nothing, and the gather reads only the slots of
//! pairs in contact. So a step moves the bytes of the pairs in contact, not of every candidate.

use crate::kernel_types::{ContactForce, ContactGeom, PairSlot};
use crate::kernels::resolvers::{Bodies, Resolver};
use crate::kernels::sources::{fixed, neighbour, SourceView};
use crate::kernels::v3;
use crate::law::Law;
use crate::registry::{ChainLayout, ChainSpec};

/// A chain as the contact passes run it: its laws with their word offsets, its id in the pair
/// table and its interaction range.
#[derive(Clone, Debug)]
pub struct ChainRun<'a> {
    pub id: u32,
    pub spec: &'a ChainSpec,
    pub layout: ChainLayout,
    /// Reach (m): pairs closer than this beyond touching are evaluated (the pair table's
    /// `chain_reach`).
    pub range: f32,
    /// How its pairs are evaluated: the chain compiled whole where the registry's table of
    /// compiled chains has it ([`crate::registry::compiled_chain`]), else [`evaluate`], which
    /// dispatches to the resolver and each law in turn. Both compute the same values in the
    /// same order.
    pub evaluate: EvaluateFn,
}

impl<'a> ChainRun<'a> {
    /// Chain `id` of `spec`, acting out to `range` (m).
    pub fn new(id: u32, spec: &'a ChainSpec, range: f32) -> ChainRun<'a> {
        ChainRun {
            id,
            spec,
            layout: spec.layout(),
            range,
            evaluate: crate::registry::compiled_chain(spec).unwrap_or(evaluate),
        }
    }

    /// The same chain evaluated through the registry's dispatch alone (what a chain outside
    /// the table of compiled chains runs), for the test that the two agree.
    pub fn dispatched(mut self) -> ChainRun<'a> {
        self.evaluate = evaluate;
        self
    }
}

/// The signature of [`evaluate`] and of the chains compiled whole.
pub type EvaluateFn = for<'p, 'c, 'b, 'q, 's, 'r, 'a> fn(
    &'p crate::kernel_types::SourcePair,
    &'c ChainRun<'c>,
    &'b Bodies<'b>,
    &'q [u32],
    usize,
    SlotSink<'s, 'r>,
    &'a mut u32,
);

/// Run a chain's laws in order: the CPU form of the `apply_chain` the composer generates.
/// `params` is the pair's parameter record and `history` its history record.
#[inline]
pub fn apply_chain(
    chain: &ChainRun<'_>,
    geom: &ContactGeom,
    params: &[u32],
    history: &mut [f32],
) -> ContactForce {
    let mut f = ContactForce::default();
    for (law, &(po, pw, ho, hw)) in chain.spec.laws.iter().zip(&chain.layout.laws) {
        law.apply(
            geom,
            &params[po..po + pw],
            &mut history[ho..ho + hw],
            &mut f,
        );
    }
    f
}

/// Assembly: the slot of a pair from the chain's accumulated force, weighted by the contact
/// fraction (Mpacts' `contact_fraction`: the share of one surface this primitive carries, so a
/// sphere on several triangles of one flat mesh gets one surface's force, energy and
/// dissipation; 1 for every other resolver).
pub fn assemble_slot(geom: &ContactGeom, f: &ContactForce) -> PairSlot {
    let w = geom.fraction;
    let force = v3(f.force) * w;
    let t1 = v3(geom.arm1).cross(force) + v3(f.torque1) * w;
    let t2 = v3(geom.arm2).cross(-force) + v3(f.torque2) * w;
    PairSlot {
        force: force.to_array(),
        elastic: f.elastic * w,
        torque1: t1.to_array(),
        damping_dissipated: f.damping_dissipated * w,
        torque2: t2.to_array(),
        friction_dissipated: f.friction_dissipated * w,
    }
}

/// Where a pair keeps its history and, in contact, its slot: the CPU form of the WGSL sources'
/// `source_history`, `place_slot` and `drop_slot` (see the module documentation).
#[derive(Debug)]
pub enum SlotSink<'a, 'r> {
    /// The pair's own slot and history record, in place (the fixed source).
    Own(&'a mut PairSlot, &'a mut [f32]),
    /// The neighbour list's packed slots and history: a pair in contact takes the next free
    /// slot of its block's region (the WGSL sources count them with an atomic counter), its
    /// history carried from `history_in`, the last step's packed records of `stride` words, at
    /// its flag.
    Packed {
        region: &'a mut neighbour::SlotRegion<'r>,
        history_in: &'a [f32],
        stride: usize,
    },
}

/// Evaluate pair `gid` of the chain's pair source if the pair is the invocation's to evaluate
/// and its table entry runs `chain`. Inlined into the backend's loop, so that the many pairs a
/// chain skips (the other side of a pair, another source's or chain's pairs) cost a few loads
/// rather than a call.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn contact(
    gid: usize,
    chain: &ChainRun<'_>,
    source: &SourceView<'_>,
    bodies: &Bodies<'_>,
    pair_chain: &[u32],
    pair_params: &[u32],
    params_stride: usize,
    material: &[u32],
    slots: SlotSink<'_, '_>,
    pair_active: &mut u32,
) {
    let pr = source.pair(gid, bodies.step, material);
    if pr.owns == 0 {
        return;
    }
    let table = pr.table as usize;
    if pair_chain[table] != chain.id {
        return;
    }
    (chain.evaluate)(
        &pr,
        chain,
        bodies,
        pair_params,
        params_stride,
        slots,
        pair_active,
    );
}

/// The pair `pr` of a chain: its history, slot and flag (`contact`'s work once the pair is the
/// invocation's and the chain's), through the registry's dispatch to the chain's resolver and
/// laws.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub fn evaluate(
    pr: &crate::kernel_types::SourcePair,
    chain: &ChainRun<'_>,
    bodies: &Bodies<'_>,
    pair_params: &[u32],
    params_stride: usize,
    slots: SlotSink<'_, '_>,
    pair_active: &mut u32,
) {
    evaluate_as::<Dispatched>(
        pr,
        chain,
        bodies,
        pair_params,
        params_stride,
        slots,
        pair_active,
    )
}

/// How [`evaluate_as`] finds a pair's geometry and runs its laws.
pub(crate) trait ChainForm {
    fn overlap(chain: &ChainRun<'_>, pr: &crate::kernel_types::SourcePair, b: &Bodies<'_>) -> f32;
    fn resolve(
        chain: &ChainRun<'_>,
        pr: &crate::kernel_types::SourcePair,
        b: &Bodies<'_>,
    ) -> ContactGeom;
    fn apply(
        chain: &ChainRun<'_>,
        geom: &ContactGeom,
        params: &[u32],
        history: &mut [f32],
    ) -> ContactForce;
}

/// Any chain, through the registry's dispatch: a `match` on the resolver, then one on each law.
struct Dispatched;

impl ChainForm for Dispatched {
    #[inline(always)]
    fn overlap(chain: &ChainRun<'_>, pr: &crate::kernel_types::SourcePair, b: &Bodies<'_>) -> f32 {
        chain.spec.resolver.overlap(pr, b)
    }
    #[inline(always)]
    fn resolve(
        chain: &ChainRun<'_>,
        pr: &crate::kernel_types::SourcePair,
        b: &Bodies<'_>,
    ) -> ContactGeom {
        chain.spec.resolver.resolve(pr, b)
    }
    #[inline(always)]
    fn apply(
        chain: &ChainRun<'_>,
        geom: &ContactGeom,
        params: &[u32],
        history: &mut [f32],
    ) -> ContactForce {
        apply_chain(chain, geom, params, history)
    }
}

/// One chain compiled whole: resolver `R` and the laws `L` (a [`LawList`]) inlined into one
/// function, as the composer builds one WGSL kernel per chain: no `match` on the resolver or a
/// law, and each law's words at offsets known when it is compiled.
pub(crate) struct Whole<R, L>(std::marker::PhantomData<(R, L)>);

impl<R: Resolver, L: LawList> ChainForm for Whole<R, L> {
    #[inline(always)]
    fn overlap(_: &ChainRun<'_>, pr: &crate::kernel_types::SourcePair, b: &Bodies<'_>) -> f32 {
        R::overlap(pr, b)
    }
    #[inline(always)]
    fn resolve(
        _: &ChainRun<'_>,
        pr: &crate::kernel_types::SourcePair,
        b: &Bodies<'_>,
    ) -> ContactGeom {
        R::resolve(pr, b)
    }
    #[inline(always)]
    fn apply(
        _: &ChainRun<'_>,
        geom: &ContactGeom,
        params: &[u32],
        history: &mut [f32],
    ) -> ContactForce {
        let mut f = ContactForce::default();
        L::apply(geom, params, history, &mut f);
        f
    }
}

/// Laws as a type: `(A, (B, (C, ())))` runs A, B then C, each on its words of the chain's
/// parameter and history records (laid out as [`ChainSpec::layout`] lays them).
pub(crate) trait LawList {
    /// The laws' keywords, in order.
    fn keywords() -> Vec<&'static str>;
    fn apply(geom: &ContactGeom, params: &[u32], history: &mut [f32], f: &mut ContactForce);
}

impl LawList for () {
    fn keywords() -> Vec<&'static str> {
        Vec::new()
    }
    #[inline(always)]
    fn apply(_: &ContactGeom, _: &[u32], _: &mut [f32], _: &mut ContactForce) {}
}

impl<A: Law, B: LawList> LawList for (A, B) {
    fn keywords() -> Vec<&'static str> {
        let mut k = vec![A::KEYWORD];
        k.extend(B::keywords());
        k
    }
    #[inline(always)]
    fn apply(geom: &ContactGeom, params: &[u32], history: &mut [f32], f: &mut ContactForce) {
        let pw = crate::registry::words::<A::Params>();
        let hw = A::HISTORY_WORDS.len();
        let (p, p_rest) = params.split_at(pw);
        let (h, h_rest) = history.split_at_mut(hw);
        A::apply(
            geom,
            bytemuck::from_bytes(bytemuck::cast_slice(p)),
            bytemuck::from_bytes_mut(bytemuck::cast_slice_mut(h)),
            f,
        );
        B::apply(geom, p_rest, h_rest, f);
    }
}

/// [`evaluate`] in form `F`: the registry's dispatch, or a chain compiled whole (the table of
/// compiled chains takes `evaluate_as::<Whole<R, L>>` as its [`ChainRun::evaluate`]).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn evaluate_as<F: ChainForm>(
    pr: &crate::kernel_types::SourcePair,
    chain: &ChainRun<'_>,
    bodies: &Bodies<'_>,
    pair_params: &[u32],
    params_stride: usize,
    slots: SlotSink<'_, '_>,
    pair_active: &mut u32,
) {
    let table = pr.table as usize;
    // Most candidates do not touch: decide that from the positions alone. A pair in contact
    // last step most likely still is: `resolve` measures the same overlap and makes the same
    // decision below, so it goes there at once.
    if *pair_active == 0 && F::overlap(chain, pr, bodies) <= -chain.range {
        clear_slot(slots, pair_active);
        return;
    }
    let geom = F::resolve(chain, pr, bodies);
    if geom.delta > -chain.range {
        let params = &pair_params[table * params_stride..(table + 1) * params_stride];
        match slots {
            SlotSink::Own(slot, history) => {
                let f = F::apply(chain, &geom, params, history);
                fixed::place_slot(assemble_slot(&geom, &f), slot, pair_active);
            }
            SlotSink::Packed {
                region,
                history_in,
                stride,
            } => {
                let h = neighbour::source_history(*pair_active, history_in, stride, region);
                let f = F::apply(chain, &geom, params, h);
                neighbour::place_slot(assemble_slot(&geom, &f), region, pair_active);
            }
        }
    } else {
        clear_slot(slots, pair_active);
    }
}

/// A pair out of reach: its history and slot dropped, written only if they may not be zero.
#[inline]
fn clear_slot(slots: SlotSink<'_, '_>, pair_active: &mut u32) {
    if *pair_active != 0 {
        match slots {
            SlotSink::Own(own, history) => fixed::drop_slot(own, history, pair_active),
            SlotSink::Packed { .. } => neighbour::drop_slot(pair_active),
        }
    }
}
