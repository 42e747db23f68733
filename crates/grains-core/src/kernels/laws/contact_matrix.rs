//! The contact matrix's assembly. WGSL twin: `shaders/laws/contact_matrix.wgsl`.
//!
//! Every chain of a world in an implicit dynamics mode (`[simulation] dynamics =
//! "overdamped"`, `"underdamped"` or `"static"`) ends with this element, never named in a
//! scene (Mpacts AssembleContactMatrix, `shared/reference/000`). It keeps, in the pair's history,
//! the blocks the laws before it declared, weighted by the contact fraction as assembly weights
//! the force: the friction block `Gamma = gamma_n n n^T + gamma_t (I - n n^T)` (`grad_v F`, from
//! the resistance laws) and the stiffness block `K = k_n n n^T + k_t (I - n n^T)` (`grad_x F`:
//! the normal law's tangent stiffness `dF_n/d delta`, which every normal law states, and the
//! transverse stiffness a law declares, a spring's `k (1 - L0/L)`). Both are symmetric blocks of
//! this form, so the record keeps the normal and four scalars, not two 3x3 matrices.
//!
//! The solve (`crate::implicit`) reads the records of the pairs in contact: each pair adds its
//! block `M = c_g Gamma + c_k K` to both particles' diagonal blocks and `-M` off the diagonal,
//! with the mode's coefficients ([`crate::world::Dynamics::coefficients`]).

use crate::kernel_types::{ContactForce, ContactGeom};
use crate::law::{CollisionContext, Law, LawKeys, LawTwin, PairContext, ParityCase, SpringShape, Word};
use crate::parity::{random_geom, random_prior_force, SplitMix};
use crate::registry::Slot;

crate::gpu_struct! {
    /// Per-pair parameters of the assembly.
    pub struct ContactMatrixParams {
        /// Scale of both blocks: 1 (the mixing has nothing to mix).
        pub scale: f32,
    }
}

crate::gpu_struct! {
    /// A pair's blocks, as the solve reads them.
    pub struct ContactMatrixHistory {
        /// The contact normal, body 1 towards body 2.
        pub normal: [f32; 3],
        /// Friction along the normal (N s/m).
        pub gamma_n: f32,
        /// Friction across the normal (N s/m).
        pub gamma_t: f32,
        /// Stiffness along the normal (N/m).
        pub stiffness_n: f32,
        /// Stiffness across the normal (N/m).
        pub stiffness_t: f32,
    }
}

/// Keep the blocks the chain's laws declared, weighted by the contact fraction.
pub fn law_contact_matrix(
    geom: &ContactGeom,
    params: &ContactMatrixParams,
    history: &mut ContactMatrixHistory,
    force: &mut ContactForce,
) {
    let w = geom.fraction * params.scale;
    history.normal = geom.normal;
    history.gamma_n = force.gamma_n * w;
    history.gamma_t = force.gamma_t * w;
    history.stiffness_n = force.stiffness * w;
    history.stiffness_t = force.stiffness_t * w;
}

/// The `contact_matrix` element.
pub struct ContactMatrix;

impl Law for ContactMatrix {
    const KEYWORD: &'static str = "contact_matrix";
    const SLOT: Slot = Slot::Matrix;
    const KEYS: &'static [&'static str] = &[];
    const HISTORY_WORDS: &'static [Word] = &[
        Word::Length,
        Word::Length,
        Word::Length,
        Word::Own,
        Word::Own,
        Word::Own,
        Word::Own,
    ];
    const ENERGY: &'static [&'static str] = &[];
    type Params = ContactMatrixParams;
    type History = ContactMatrixHistory;
    type Spec = ();

    fn parse<K: LawKeys>(_: &K) -> Result<(), K::Error> {
        Ok(())
    }

    fn spring(_: &()) -> Option<SpringShape> {
        None
    }

    fn mix(_: &(), _: &PairContext<'_>) -> ContactMatrixParams {
        ContactMatrixParams { scale: 1.0 }
    }

    fn range(_: &(), _: &PairContext<'_>) -> f64 {
        0.0
    }

    fn collision_time(_: &(), _: &CollisionContext<'_>) -> Option<f64> {
        None
    }

    fn apply(
        g: &ContactGeom,
        p: &ContactMatrixParams,
        h: &mut ContactMatrixHistory,
        f: &mut ContactForce,
    ) {
        law_contact_matrix(g, p, h, f)
    }
}

impl LawTwin for ContactMatrix {
    // Products of two numbers: 1e-6.
    const PARITY_TOLERANCE: f32 = 1e-6;

    fn parity_case(
        rng: &mut SplitMix,
        i: usize,
    ) -> ParityCase<ContactMatrixParams, ContactMatrixHistory> {
        let mut geom = random_geom(rng, i);
        geom.fraction = if i == 0 || rng.chance(0.5) {
            1.0
        } else {
            rng.range(0.0, 1.0) as f32
        };
        let mut force = random_prior_force(rng, &geom);
        force.gamma_n = rng.log_uniform(1e-6, 1e2);
        force.gamma_t = if i == 1 { 0.0 } else { rng.log_uniform(1e-6, 1e2) };
        force.stiffness_t = rng.range(-1e3, 1e3) as f32;
        ParityCase {
            geom,
            params: ContactMatrixParams { scale: 1.0 },
            history: ContactMatrixHistory::default(),
            force,
        }
    }
}
