//! grains-shaders: the WGSL of `shaders/`, embedded at build time, composed into kernels and
//! checked by naga without a device.
//!
//! - [`compose_pass`]: one pass of the step (`shaders/passes/<stem>.wgsl`) with its includes.
//! - [`compose_chain`]: the contact kernel of one [`ChainSpec`]: the `contact` (sphere pairs) or
//!   `wall_contact` (sphere-plane) template with the chain's resolver, laws and a generated
//!   `apply_chain`.
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

/// Template (under `shaders/passes/`) of a resolver's contact pass, and the entry point in it.
pub fn chain_template(resolver: ResolverKind) -> &'static str {
    match resolver {
        ResolverKind::SphereSphere => "contact",
        ResolverKind::SpherePlane => "wall_contact",
    }
}

/// The member of `InteractionParams` that law `law` reads.
fn law_params_field(law: LawKind) -> &'static str {
    match law {
        LawKind::Linear => "linear",
        LawKind::Hertz => "hertz",
        LawKind::HertzDamped => "hertz_damped",
        LawKind::Viscous => "viscous",
        LawKind::CundallStrack => "cundall_strack",
    }
}

/// A finite f32 as a WGSL `f32` literal that parses back to the same value.
fn f32_literal(x: f32) -> Option<String> {
    // Rust's `Debug` prints the shortest text that round-trips, e.g. `0.0`, `1e-5`.
    x.is_finite().then(|| format!("{x:?}f"))
}

/// The generated `apply_chain`: the WGSL form of `grains_core::kernels::passes::contact::apply_chain`.
fn apply_chain_source(chain: &ChainSpec) -> String {
    let mut s = String::new();
    s.push_str(&format!(
        "// Generated for chain `{}`: its laws in chain order.\n",
        chain.name()
    ));
    s.push_str(
        "fn apply_chain(geom: ContactGeom, params: InteractionParams, history: ptr<function, PairHistory>) -> ContactForce {\n",
    );
    s.push_str("    var f = ContactForce();\n");
    for &law in &chain.laws {
        s.push_str(&format!(
            "    law_{}(geom, params.{}, history, &f);\n",
            law.stem(),
            law_params_field(law)
        ));
    }
    s.push_str("    return f;\n}\n");
    s
}

/// Compose the contact kernel of `chain`, whose id in the pair table is `chain_id` (invocations
/// whose material pair maps to another chain return at once).
///
/// The template is `contact` for [`ResolverKind::SphereSphere`] and `wall_contact` for
/// [`ResolverKind::SpherePlane`] (see [`chain_template`]); its entry point has the same name. The
/// slot receives `CHAIN_ID`, `INTERACTION_RANGE`, the resolver's and laws' files and the
/// generated `apply_chain`.
pub fn compose_chain(chain: &ChainSpec, chain_id: u32) -> Result<String, ShaderError> {
    let name = chain.name();
    let range = chain.interaction_range();
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
    pieces.push(Piece::Text(apply_chain_source(chain)));
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
        if let Some(law) = LawKind::ALL.into_iter().find(|l| l.stem() == stem) {
            let call = format!(
                "// Generated: the law under test.\nfn harness_apply(geom: ContactGeom, params: InteractionParams, history: ptr<function, PairHistory>, force: ptr<function, ContactForce>) {{\n    law_{}(geom, params.{}, history, force);\n}}\n",
                law.stem(),
                law_params_field(law)
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
            for l in LawKind::ALL {
                let chain = ChainSpec::new(r, vec![l]);
                check(&compose_chain(&chain, 7).unwrap(), &chain.name());
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
