//! grains-shaders: the WGSL of `shaders/`, embedded at build time, composed into kernels and
//! checked by naga without a device.
//!
//! - [`compose_pass`]: one pass of the step (`shaders/passes/<stem>.wgsl`) with its includes.
//! - [`compose_chain`]: the contact kernel of one [`ChainSpec`]: the `contact` (sphere pairs) or
//!   `wall_contact` (sphere-plane) template with the chain's resolver, laws, generated parameter
//!   and history records and a generated `apply_chain`.
//! - [`compose_harness`]: the parity harnesses of `shaders/testing/`.
//! - [`validate`], [`reflect_bindings`], [`struct_layout`]: naga's view of a composed module.
//!
//! The preprocessor's directives (`//!include PATH`, `//!slot NAME`) are described in the
//! `compose` module and in `shaders/README.md`, which also holds the binding table of every pass.

mod compose;
mod error;
mod files {
    include!(concat!(env!("OUT_DIR"), "/files.rs"));
}
mod reflect;

use std::collections::BTreeMap;

use grains_core::materials::PairTable;
use grains_core::{ChainSpec, LawKind, ResolverKind};

use compose::{Composer, Piece};
pub use error::ShaderError;
/// The naga this crate parses and validates with (the version wgpu uses).
pub use naga;
pub use reflect::{reflect_bindings, struct_layout, BindingInfo, BindingKind};

/// Passes that are templates for [`compose_chain`] rather than standalone kernels.
const CHAIN_TEMPLATES: [&str; 2] = ["contact", "wall_contact"];

/// Entry point of every law harness (`shaders/testing/harness_law.wgsl`).
pub const LAW_HARNESS_ENTRY_POINT: &str = "harness_law";

/// Every embedded WGSL file as `(path relative to shaders/, source)`, sorted by path.
pub fn wgsl_files() -> Vec<(&'static str, &'static str)> {
    files::FILES.to_vec()
}

/// Stems of the standalone passes (`shaders/passes/<stem>.wgsl`, minus the chain templates), in
/// path order. Each has one entry point named after the stem.
pub fn pass_stems() -> Vec<&'static str> {
    files::FILES
        .iter()
        .filter_map(|(p, _)| p.strip_prefix("passes/")?.strip_suffix(".wgsl"))
        .filter(|s| !CHAIN_TEMPLATES.contains(s))
        .collect()
}

/// Compose pass `stem` (`shaders/passes/<stem>.wgsl`) with its includes.
///
/// `contact` and `wall_contact` are chain templates: they fail here with
/// [`ShaderError::UnfilledSlot`]; use [`compose_chain`].
pub fn compose_pass(stem: &str) -> Result<String, ShaderError> {
    let path = format!("passes/{stem}.wgsl");
    if compose::file(&path).is_none() {
        return Err(ShaderError::UnknownFile {
            path,
            wanted_by: format!("compose_pass({stem:?})"),
        });
    }
    Composer::new(&path, BTreeMap::new()).run(&path)
}

/// Compose any file of `shaders/` (path relative to it, e.g. `laws/hertz.wgsl`) with its
/// includes, for reading its structs (a law's records) through naga.
pub fn compose_file(path: &str) -> Result<String, ShaderError> {
    if compose::file(path).is_none() {
        return Err(ShaderError::UnknownFile {
            path: path.to_string(),
            wanted_by: format!("compose_file({path:?})"),
        });
    }
    Composer::new(path, BTreeMap::new()).run(path)
}

/// Template (under `shaders/passes/`) of a resolver's contact pass, and the entry point in it.
pub fn chain_template(resolver: ResolverKind) -> &'static str {
    match resolver {
        ResolverKind::SphereSphere => "contact",
        ResolverKind::SpherePlane => "wall_contact",
    }
}

/// How a chain's kernel is bound in a world: the strides of the parameter table and of the
/// history records its pair source keeps, and how far beyond touching the chain acts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChainBinding {
    /// Words per material pair in the parameter table (at least the chain's own).
    pub params_stride: usize,
    /// Words per history record of the chain's pair source (at least the chain's own).
    pub history_stride: usize,
    /// How far beyond touching pairs are evaluated (m): the pair table's `chain_reach`.
    pub range: f32,
}

impl ChainBinding {
    /// The binding of chain `chain_id` of a world's pair table.
    pub fn of(table: &PairTable, chain_id: usize) -> ChainBinding {
        let chain = &table.chains[chain_id];
        ChainBinding {
            params_stride: table.params_stride,
            history_stride: table.history_stride(chain.resolver),
            range: table.chain_reach.get(chain_id).copied().unwrap_or(0.0),
        }
    }

    /// A chain alone: strides of exactly its own records (at least one word), range 0.
    pub fn tight(chain: &ChainSpec) -> ChainBinding {
        let l = chain.layout();
        ChainBinding {
            params_stride: l.params_words.max(1),
            history_stride: l.history_words.max(1),
            range: 0.0,
        }
    }
}

/// A finite f32 as a WGSL `f32` literal that parses back to the same value.
fn f32_literal(x: f32) -> Option<String> {
    // Rust's `Debug` prints the shortest text that round-trips, e.g. `0.0`, `1e-5`.
    x.is_finite().then(|| format!("{x:?}f"))
}

/// A struct of the given members, padded with `_pad: array<scalar, n>` up to `stride` words.
fn record_struct(
    name: &str,
    members: &[(String, String, usize)],
    stride: usize,
    scalar: &str,
) -> String {
    let mut s = format!("struct {name} {{\n");
    let mut used = 0;
    for (field, ty, words) in members {
        s.push_str(&format!("    {field}: {ty},\n"));
        used += words;
    }
    if stride > used {
        s.push_str(&format!("    _pad: array<{scalar}, {}>,\n", stride - used));
    }
    s.push_str("}\n");
    s
}

/// The generated records and `apply_chain`: the WGSL form of
/// `grains_core::kernels::passes::contact::apply_chain`. `ChainParams` and `ChainHistory` are
/// the laws' records in chain order (4-byte scalars, so the word offsets are those of
/// [`ChainSpec::layout`]), padded to the binding's strides.
fn apply_chain_source(chain: &ChainSpec, b: &ChainBinding) -> Result<String, ShaderError> {
    let layout = chain.layout();
    if b.params_stride < layout.params_words || b.history_stride < layout.history_words {
        return Err(ShaderError::Chain {
            chain: chain.name(),
            message: format!(
                "strides ({} parameter, {} history words) below the chain's ({}, {})",
                b.params_stride, b.history_stride, layout.params_words, layout.history_words
            ),
        });
    }
    let params: Vec<_> = chain
        .laws
        .iter()
        .map(|l| {
            (
                l.stem().to_string(),
                l.params_struct().to_string(),
                l.params_words(),
            )
        })
        .collect();
    let history: Vec<_> = chain
        .laws
        .iter()
        .filter_map(|l| {
            l.history_struct()
                .map(|h| (l.stem().to_string(), h.to_string(), l.history_words().len()))
        })
        .collect();
    let mut s = format!(
        "// Generated for chain `{}`: its records and its laws in chain order.\n",
        chain.name()
    );
    s.push_str(&record_struct(
        "ChainParams",
        &params,
        b.params_stride,
        "u32",
    ));
    s.push_str(&record_struct(
        "ChainHistory",
        &history,
        b.history_stride,
        "f32",
    ));
    s.push_str(
        "fn apply_chain(geom: ContactGeom, params: ChainParams, history: ptr<function, ChainHistory>) -> ContactForce {\n",
    );
    s.push_str("    var f = ContactForce();\n");
    // A law's history goes through a local: naga's SPIR-V writer cannot pass a pointer to a
    // member of a pointed-to struct as a call argument.
    for &law in &chain.laws {
        let stem = law.stem();
        if law.history_struct().is_some() {
            s.push_str(&format!("    var h_{stem} = (*history).{stem};\n"));
            s.push_str(&format!(
                "    law_{stem}(geom, params.{stem}, &h_{stem}, &f);\n"
            ));
            s.push_str(&format!("    (*history).{stem} = h_{stem};\n"));
        } else {
            s.push_str(&format!("    law_{stem}(geom, params.{stem}, &f);\n"));
        }
    }
    s.push_str("    return f;\n}\n");
    Ok(s)
}

/// Compose the contact kernel of `chain`, whose id in the pair table is `chain_id` (invocations
/// whose material pair maps to another chain return at once), bound as `binding` says.
///
/// The template is `contact` for [`ResolverKind::SphereSphere`] and `wall_contact` for
/// [`ResolverKind::SpherePlane`] (see [`chain_template`]); its entry point has the same name. The
/// slot receives `CHAIN_ID`, `INTERACTION_RANGE`, the resolver's and laws' files, the generated
/// records and `apply_chain`.
pub fn compose_chain(
    chain: &ChainSpec,
    chain_id: u32,
    binding: &ChainBinding,
) -> Result<String, ShaderError> {
    let name = chain.name();
    let range = binding.range;
    let range = f32_literal(range).ok_or_else(|| ShaderError::Chain {
        chain: name.clone(),
        message: format!("interaction range {range} is not finite"),
    })?;
    let mut pieces = vec![Piece::Text(format!(
        "// Chain `{name}`.\nconst CHAIN_ID: u32 = {chain_id}u;\nconst INTERACTION_RANGE: f32 = {range};\n"
    ))];
    pieces.push(Piece::File(format!(
        "resolvers/{}.wgsl",
        chain.resolver.stem()
    )));
    for law in &chain.laws {
        pieces.push(Piece::File(format!("laws/{}.wgsl", law.stem())));
    }
    pieces.push(Piece::Text(apply_chain_source(chain, binding)?));
    let template = format!("passes/{}.wgsl", chain_template(chain.resolver));
    let slots = BTreeMap::from([("chain".to_string(), pieces)]);
    Composer::new(&name, slots).run(&template)
}

/// Every parity harness as `(name, entry point)`: `harness_resolve_<stem>` for each resolver
/// (entry point of the same name) and `harness_law_<stem>` for each law (entry point
/// [`LAW_HARNESS_ENTRY_POINT`]), in registry order.
pub fn harnesses() -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    for r in ResolverKind::ALL {
        let name = format!("harness_resolve_{}", r.stem());
        let entry = match r {
            ResolverKind::SphereSphere => "harness_resolve_sphere_sphere",
            ResolverKind::SpherePlane => "harness_resolve_sphere_plane",
        };
        out.push((name, entry));
    }
    for l in LawKind::ALL {
        out.push((format!("harness_law_{}", l.stem()), LAW_HARNESS_ENTRY_POINT));
    }
    out
}

/// Compose harness `name`: a file `shaders/testing/<name>.wgsl`, or `harness_law_<stem>` for a
/// law of the registry (the generic `testing/harness_law.wgsl` with that law inserted).
pub fn compose_harness(name: &str) -> Result<String, ShaderError> {
    if let Some(stem) = name.strip_prefix("harness_law_") {
        if let Some(law) = LawKind::ALL.iter().copied().find(|l| l.stem() == stem) {
            let (history_type, history_arg) = match law.history_struct() {
                Some(h) => (format!("alias HarnessHistory = {h};\n"), "history, "),
                None => (
                    "struct HarnessHistory {\n    unused: f32,\n}\n".to_string(),
                    "",
                ),
            };
            let call = format!(
                "// Generated: the law under test and its records.\nalias HarnessParams = {};\n{history_type}fn harness_apply(geom: ContactGeom, params: HarnessParams, history: ptr<function, HarnessHistory>, force: ptr<function, ContactForce>) {{\n    law_{}(geom, params, {history_arg}force);\n}}\n",
                law.params_struct(),
                law.stem(),
            );
            let pieces = vec![
                Piece::File(format!("laws/{}.wgsl", law.stem())),
                Piece::Text(call),
            ];
            let slots = BTreeMap::from([("law".to_string(), pieces)]);
            return Composer::new(name, slots).run("testing/harness_law.wgsl");
        }
    }
    let path = format!("testing/{name}.wgsl");
    if name != "harness_law" && compose::file(&path).is_some() {
        return Composer::new(name, BTreeMap::new()).run(&path);
    }
    Err(ShaderError::UnknownHarness {
        name: name.to_string(),
        known: harnesses()
            .into_iter()
            .map(|(n, _)| n)
            .collect::<Vec<_>>()
            .join(", "),
    })
}

/// Parse `source` and run naga's validator on it. Errors carry naga's rendering (with the
/// offending excerpt) and `label`.
pub fn validate(source: &str, label: &str) -> Result<naga::Module, ShaderError> {
    let module = naga::front::wgsl::parse_str(source).map_err(|e| ShaderError::Parse {
        label: label.to_string(),
        message: e.emit_to_string_with_path(source, label),
    })?;
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    )
    .validate(&module)
    .map_err(|e| ShaderError::Validation {
        label: label.to_string(),
        message: e.emit_to_string_with_path(source, label),
    })?;
    Ok(module)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(src: &str, label: &str) {
        if let Err(e) = validate(src, label) {
            panic!("{e}");
        }
    }

    #[test]
    fn passes_validate() {
        assert!(!pass_stems().is_empty());
        for stem in pass_stems() {
            check(&compose_pass(stem).unwrap(), stem);
        }
    }

    #[test]
    fn templates_are_not_passes() {
        for t in CHAIN_TEMPLATES {
            assert!(matches!(
                compose_pass(t),
                Err(ShaderError::UnfilledSlot { .. })
            ));
        }
    }

    #[test]
    fn every_single_law_chain_validates() {
        for r in ResolverKind::ALL {
            for &l in LawKind::ALL {
                let chain = ChainSpec::new(r, vec![l]);
                let b = ChainBinding::tight(&chain);
                check(&compose_chain(&chain, 7, &b).unwrap(), &chain.name());
            }
        }
    }
}

#[cfg(test)]
mod harness_tests {
    use super::*;

    #[test]
    fn harnesses_validate() {
        for (name, entry) in harnesses() {
            let src = compose_harness(&name).unwrap();
            let m = validate(&src, &name).unwrap_or_else(|e| panic!("{e}"));
            assert!(m.entry_points.iter().any(|e| e.name == entry), "{name}");
        }
        assert!(compose_harness("harness_law").is_err());
        assert!(compose_harness("nope").is_err());
    }
}
