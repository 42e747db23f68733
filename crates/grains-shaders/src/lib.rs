//! grains-shaders: the WGSL of `shaders/`, embedded at build time, composed into kernels and
//! checked by naga without a device.
//!
//! - [`compose_pass`]: one pass of the step (`shaders/passes/<stem>.wgsl`) with its includes.
//! - [`compose_chain`]: the contact kernel of one [`ChainSpec`]: the one `contact` template with
//!   the chain's pair source, its resolver (with generated `pair_overlap` and `pair_geom`), laws,
//!   generated parameter and history records and a generated `apply_chain`.
//! - [`compose_harness`]: a parity harness: one of the templates of `shaders/testing/` with one
//!   law or resolver inserted.
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
mod split;
mod texture;

use std::collections::BTreeMap;

use grains_core::materials::PairTable;
use grains_core::{ChainSpec, LawKind, ResolverKind};

use compose::{Composer, Piece};
pub use error::ShaderError;
/// The naga this crate parses and validates with (the version wgpu uses).
pub use naga;
pub use reflect::{
    module_bindings, record_words, reflect_bindings, struct_layout, BindingInfo, BindingKind,
};
pub use split::{parse_part, part_name, split_arrays, ArraySplit};
pub use texture::texture_arrays;

/// The pass that is the template of every chain ([`compose_chain`]) rather than a standalone
/// kernel; its entry point has the same name.
pub const CHAIN_TEMPLATE: &str = "contact";

/// Entry point of every law harness (`shaders/testing/harness_law.wgsl`).
pub const LAW_HARNESS_ENTRY_POINT: &str = "harness_law";

/// Entry point of every resolver harness (`shaders/testing/harness_resolve.wgsl`).
pub const RESOLVER_HARNESS_ENTRY_POINT: &str = "harness_resolve";

/// The GPU backend's control kernels (`shaders/control/control.wgsl`): no CPU twin and no
/// composition; the backend splits the file at its `//!entry` markers.
pub const CONTROL_WGSL: &str = include_str!("../../../shaders/control/control.wgsl");

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
        .filter(|s| *s != CHAIN_TEMPLATE)
        .collect()
}

/// Compose pass `stem` (`shaders/passes/<stem>.wgsl`) with its includes.
///
/// `contact` is the chain template: it fails here with [`ShaderError::UnfilledSlot`]; use
/// [`compose_chain`].
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

/// The WGSL form of [`ResolverKind::overlap`] and [`ResolverKind::resolve`]: `pair_overlap`
/// and `pair_geom` of a source pair, reading the contact template's bindings (and the wall
/// source's `walls`), each resolver's own ([`ResolverKind::adapter`]), after the shape
/// bindings for a resolver that reads them. Inserted after the resolver's own file.
pub fn resolver_adapter(resolver: ResolverKind) -> String {
    if resolver.reads_shapes() {
        format!("{SHAPE_BINDINGS}{}", resolver.adapter())
    } else {
        resolver.adapter().to_string()
    }
}

/// The bindings and loaders of the resolvers of shapes beyond the sphere: orientations, the
/// shape and triangle tables (CPU form: `Bodies` and the loaders in `kernels/resolvers/mod.rs`).
const SHAPE_BINDINGS: &str = "@group(0) @binding(20) var<storage, read> quat: array<vec4<f32>>;
@group(0) @binding(21) var<storage, read> shape: array<u32>;
@group(0) @binding(22) var<storage, read> shapes: array<ShapeRecord>;
@group(0) @binding(23) var<storage, read> triangles: array<Triangle>;
fn load_capsule_at(i: u32) -> CapsuleBody {
    return load_capsule(pos[i], vel[i], omega[i], quat[i], shapes[shape[i]]);
}
fn triangle_of(i: u32) -> Triangle {
    return triangles[bitcast<u32>(shapes[shape[i]].data[0])];
}
";

/// How a chain's kernel is bound in a world: the strides of the parameter table and of the
/// history records its pair source keeps, and how far beyond touching the chain acts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChainBinding {
    /// Words per material pair in the parameter table (at least the chain's own).
    pub params_stride: usize,
    /// Words per history record of the chain's pair source (at least the chain's own): whole
    /// vec4s for the fixed source, unpadded for the neighbour list's
    /// ([`PairTable::nbr_history_words`]).
    pub history_stride: usize,
    /// How far beyond touching pairs are evaluated (m): the pair table's `chain_reach`.
    pub range: f32,
    /// The chain's place among the neighbour list's chains (those of its two sources), which
    /// run in chain order: the first writes each particle's sums, the others add to them
    /// (`LIST_ORDER` in shaders/lib/packed_slots.wgsl). 0 for a chain of another source.
    pub list_order: u32,
    /// Whether it is the last of the list's chains (`LIST_LAST`).
    pub list_last: bool,
}

impl ChainBinding {
    /// The binding of chain `chain_id` of a world's pair table.
    pub fn of(table: &PairTable, chain_id: usize) -> ChainBinding {
        let chain = &table.chains[chain_id];
        let listed = |c: &ChainSpec| c.source.in_list();
        ChainBinding {
            params_stride: table.params_stride,
            history_stride: if listed(chain) {
                table.nbr_history_words
            } else {
                table.history_stride(chain.source)
            },
            range: table.chain_reach.get(chain_id).copied().unwrap_or(0.0),
            list_order: table.chains[..chain_id]
                .iter()
                .filter(|c| listed(c))
                .count() as u32,
            list_last: listed(chain) && !table.chains[chain_id + 1..].iter().any(listed),
        }
    }

    /// A chain alone: strides of its own records (rounded up to whole `vec4`s), range 0.
    pub fn tight(chain: &ChainSpec) -> ChainBinding {
        let l = chain.layout();
        ChainBinding {
            params_stride: l.params_words.max(1).next_multiple_of(4),
            history_stride: l.history_words.max(1).next_multiple_of(4),
            range: 0.0,
            list_order: 0,
            list_last: true,
        }
    }
}

/// A finite f32 as a WGSL `f32` literal that parses back to the same value.
fn f32_literal(x: f32) -> Option<String> {
    // Rust's `Debug` prints the shortest text that round-trips, e.g. `0.0`, `1e-5`.
    x.is_finite().then(|| format!("{x:?}f"))
}

/// A struct of the given members (a placeholder word when there are none: WGSL has no empty
/// structs).
fn record_struct(name: &str, members: &[(String, String)]) -> String {
    let mut s = format!("struct {name} {{\n");
    for (field, ty) in members {
        s.push_str(&format!("    {field}: {ty},\n"));
    }
    if members.is_empty() {
        s.push_str("    _unused: f32,\n");
    }
    s.push_str("}\n");
    s
}

/// The words of the record struct `name` that `laws/<stem>.wgsl` declares.
fn law_record_words(
    chain: &ChainSpec,
    stem: &str,
    name: &str,
) -> Result<Vec<(String, bool)>, ShaderError> {
    let path = format!("laws/{stem}.wgsl");
    let src = compose_file(&path)?;
    let module = validate(&src, &path)?;
    record_words(&module, name).map_err(|message| ShaderError::Chain {
        chain: chain.name(),
        message,
    })
}

/// Lane of word `k` of a `vec4` array.
fn lane(k: usize) -> &'static str {
    ["x", "y", "z", "w"][k % 4]
}

/// The generated records, their loads and stores, and `apply_chain`: the WGSL form of
/// `grains_core::kernels::passes::contact::apply_chain`. `ChainParams` and `ChainHistory` are
/// the laws' records in chain order; in the buffers each is `params_stride` /
/// `history_stride` words (whole `vec4`s), at the word offsets of [`ChainSpec::layout`], the
/// CPU's. Loads and stores move whole `vec4`s (`load_params`, `load_history`,
/// `store_history`, `clear_history`): four times fewer memory operations than word by word.
fn apply_chain_source(chain: &ChainSpec, b: &ChainBinding) -> Result<String, ShaderError> {
    let layout = chain.layout();
    // A source that packs its history (the neighbour list's) keeps it word by word, unpadded;
    // a fixed source keeps whole vec4s.
    let packed = chain.source.in_list();
    check_strides(chain, b, &layout, packed)?;
    let (ps4, hs4) = (b.params_stride / 4, b.history_stride / 4);
    let words = chain_record_words(chain, &layout)?;
    let mut s = format!(
        "// Generated for chain `{}`: its records and its laws in chain order.\n",
        chain.name()
    );
    s.push_str(&format!("const PARAMS_VEC4: u32 = {ps4}u;\n"));
    if packed {
        s.push_str(&format!(
            "const HISTORY_WORDS: u32 = {}u;\n",
            b.history_stride
        ));
    } else {
        s.push_str(&format!("const HISTORY_VEC4: u32 = {hs4}u;\n"));
    }
    s.push_str(&record_struct("ChainParams", &words.params));
    s.push_str(&record_struct("ChainHistory", &words.history));
    // Loads: the vec4s a record spans, then each field from its lane.
    let used =
        |words: &[(usize, String, bool)]| words.iter().map(|w| w.0 / 4 + 1).max().unwrap_or(0);
    s.push_str("fn load_params(t: u32) -> ChainParams {\n    var p: ChainParams;\n");
    for v in 0..used(&words.params_words) {
        s.push_str(&format!(
            "    let w{v} = pair_params[t * PARAMS_VEC4 + {v}u];\n"
        ));
    }
    for (k, path, u) in &words.params_words {
        let w = format!("w{}.{}", k / 4, lane(*k));
        let value = if *u { w } else { format!("bitcast<f32>({w})") };
        s.push_str(&format!("    p.{path} = {value};\n"));
    }
    s.push_str("    return p;\n}\n");
    s.push_str(&history_accessors(packed, &words.history_words));
    s.push_str(&apply_chain_fn(chain));
    Ok(s)
}

/// Refuse strides that are not whole vec4s (a fixed source's history) or do not hold the
/// chain's records.
fn check_strides(
    chain: &ChainSpec,
    b: &ChainBinding,
    layout: &grains_core::ChainLayout,
    packed: bool,
) -> Result<(), ShaderError> {
    let aligned =
        b.params_stride.is_multiple_of(4) && (packed || b.history_stride.is_multiple_of(4));
    if b.params_stride < layout.params_words || b.history_stride < layout.history_words || !aligned
    {
        return Err(ShaderError::Chain {
            chain: chain.name(),
            message: format!(
                "strides ({} parameter, {} history words) must be whole vec4s (the history of a fixed source) and hold the chain's ({}, {})",
                b.params_stride, b.history_stride, layout.params_words, layout.history_words
            ),
        });
    }
    Ok(())
}

/// A chain's records: the laws' parameter and history structs in chain order, and every word
/// of each record as (word in the record, access path, is u32).
struct RecordWords {
    params: Vec<(String, String)>,
    history: Vec<(String, String)>,
    params_words: Vec<(usize, String, bool)>,
    history_words: Vec<(usize, String, bool)>,
}

/// The [`RecordWords`] of `chain`, each law's WGSL record checked against its Rust size.
fn chain_record_words(
    chain: &ChainSpec,
    layout: &grains_core::ChainLayout,
) -> Result<RecordWords, ShaderError> {
    let mut params = Vec::new();
    let mut history = Vec::new();
    // (word in the record, access path, is u32) of every word of each record.
    let mut params_words = Vec::new();
    let mut history_words = Vec::new();
    for (law, &(po, pw, ho, hw)) in chain.laws.iter().zip(&layout.laws) {
        let stem = law.stem();
        params.push((stem.to_string(), law.params_struct().to_string()));
        let words = law_record_words(chain, stem, law.params_struct())?;
        if words.len() != pw {
            return Err(ShaderError::Chain {
                chain: chain.name(),
                message: format!(
                    "{} has {} words in WGSL and {pw} in Rust",
                    law.params_struct(),
                    words.len()
                ),
            });
        }
        for (k, (path, u)) in words.into_iter().enumerate() {
            params_words.push((po + k, format!("{stem}.{path}"), u));
        }
        if let Some(h) = law.history_struct() {
            history.push((stem.to_string(), h.to_string()));
            let words = law_record_words(chain, stem, h)?;
            if words.len() != hw {
                return Err(ShaderError::Chain {
                    chain: chain.name(),
                    message: format!("{h} has {} words in WGSL and {hw} in Rust", words.len()),
                });
            }
            for (k, (path, u)) in words.into_iter().enumerate() {
                history_words.push((ho + k, format!("{stem}.{path}"), u));
            }
        }
    }
    Ok(RecordWords {
        params,
        history,
        params_words,
        history_words,
    })
}

/// The WGSL that reads and writes a chain's history: `load_history`, `store_history`, and
/// for a packed source its word accessors, for a fixed one `clear_history`.
fn history_accessors(packed: bool, hwords: &[(usize, String, bool)]) -> String {
    let used =
        |words: &[(usize, String, bool)]| words.iter().map(|w| w.0 / 4 + 1).max().unwrap_or(0);
    let mut s = String::new();
    // A source that packs its history (the neighbour list's) keeps it in place, word by word
    // (no padding: a fifth less for Hertz with Cundall-Strack, 7 words); a fixed source keeps
    // whole vec4s.
    // A chain whose laws keep no history binds none of it.
    if packed && !hwords.is_empty() {
        s.push_str(
            "fn history_word(e: u32, w: u32) -> f32 {\n    return history[e * HISTORY_WORDS + w];\n}\n",
        );
        s.push_str(
            "fn set_history_word(e: u32, w: u32, x: f32) {\n    history[e * HISTORY_WORDS + w] = x;\n}\n",
        );
    }
    s.push_str("fn load_history(e: u32) -> ChainHistory {\n    var h: ChainHistory;\n");
    if packed {
        for (k, path, u) in hwords {
            let w = format!("history_word(e, {k}u)");
            let value = if *u { format!("bitcast<u32>({w})") } else { w };
            s.push_str(&format!("    h.{path} = {value};\n"));
        }
    } else {
        for v in 0..used(hwords) {
            s.push_str(&format!(
                "    let w{v} = history[e * HISTORY_VEC4 + {v}u];\n"
            ));
        }
        for (k, path, u) in hwords {
            let w = format!("w{}.{}", k / 4, lane(*k));
            let value = if *u { format!("bitcast<u32>({w})") } else { w };
            s.push_str(&format!("    h.{path} = {value};\n"));
        }
    }
    s.push_str("    return h;\n}\n");
    s.push_str("fn store_history(e: u32, h: ChainHistory) {\n");
    if packed {
        for (k, path, u) in hwords {
            let x = if *u {
                format!("bitcast<f32>(h.{path})")
            } else {
                format!("h.{path}")
            };
            s.push_str(&format!("    set_history_word(e, {k}u, {x});\n"));
        }
    } else {
        for v in 0..used(hwords) {
            let mut lanes = Vec::new();
            for l in 0..4 {
                let k = 4 * v + l;
                lanes.push(match hwords.iter().find(|w| w.0 == k) {
                    Some((_, path, true)) => format!("bitcast<f32>(h.{path})"),
                    Some((_, path, false)) => format!("h.{path}"),
                    None => "0.0".to_string(),
                });
            }
            let x = format!("vec4<f32>({})", lanes.join(", "));
            s.push_str(&format!("    history[e * HISTORY_VEC4 + {v}u] = {x};\n"));
        }
    }
    s.push_str("}\n");
    // Only a fixed source clears a record in place; a packed one drops its slot instead.
    if !packed {
        s.push_str(
            "fn clear_history(e: u32) {\n    for (var v = 0u; v < HISTORY_VEC4; v = v + 1u) {\n        history[e * HISTORY_VEC4 + v] = vec4<f32>(0.0);\n    }\n}\n",
        );
    }
    s
}

/// The WGSL `apply_chain`: each law of the chain in order, its history through a local.
fn apply_chain_fn(chain: &ChainSpec) -> String {
    let mut s = String::new();
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
    s
}

/// Compose the contact kernel of `chain`, whose id in the pair table is `chain_id` (invocations
/// whose material pair maps to another chain return at once), bound as `binding` says.
///
/// The template is [`CHAIN_TEMPLATE`] (`passes/contact.wgsl`), entry point `contact`. Its
/// `source` slot receives `sources/<stem>.wgsl` of the chain's source; its `chain` slot
/// `CHAIN_ID`, `INTERACTION_RANGE`, the resolver's file and [`resolver_adapter`], the laws'
/// files, the generated records and `apply_chain`.
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
        "// Chain `{name}`.\nconst CHAIN_ID: u32 = {chain_id}u;\nconst INTERACTION_RANGE: f32 = {range};\n\
         const LIST_ORDER: u32 = {}u;\nconst LIST_LAST: bool = {};\n",
        binding.list_order, binding.list_last
    ))];
    pieces.push(Piece::File(format!(
        "resolvers/{}.wgsl",
        chain.resolver.stem()
    )));
    // Loaders of non-spherical bodies and `flip_geom`, which the adapters of their resolvers
    // call (included once however many files ask for it).
    pieces.push(Piece::File("lib/shape.wgsl".to_string()));
    pieces.push(Piece::Text(resolver_adapter(chain.resolver)));
    for law in &chain.laws {
        pieces.push(Piece::File(format!("laws/{}.wgsl", law.stem())));
    }
    pieces.push(Piece::Text(apply_chain_source(chain, binding)?));
    let template = format!("passes/{CHAIN_TEMPLATE}.wgsl");
    let source = vec![Piece::File(format!("sources/{}.wgsl", chain.source.stem()))];
    let slots = BTreeMap::from([
        ("source".to_string(), source),
        ("chain".to_string(), pieces),
    ]);
    Composer::new(&name, slots).run(&template)
}

/// Every parity harness as `(name, entry point)`: `harness_resolve_<stem>` for each resolver
/// (entry point [`RESOLVER_HARNESS_ENTRY_POINT`]) and `harness_law_<stem>` for each law (entry
/// point [`LAW_HARNESS_ENTRY_POINT`]), in registry order.
pub fn harnesses() -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    for &r in ResolverKind::ALL {
        out.push((r.harness().to_string(), RESOLVER_HARNESS_ENTRY_POINT));
    }
    for l in LawKind::ALL {
        out.push((format!("harness_law_{}", l.stem()), LAW_HARNESS_ENTRY_POINT));
    }
    out
}

/// Compose harness `name`: `harness_resolve_<stem>` for a resolver of the registry (the generic
/// `testing/harness_resolve.wgsl` with that resolver inserted), or `harness_law_<stem>` for a
/// law of the registry (the generic `testing/harness_law.wgsl` with that law inserted).
pub fn compose_harness(name: &str) -> Result<String, ShaderError> {
    if let Some(r) = ResolverKind::ALL
        .iter()
        .copied()
        .find(|r| r.harness() == name)
    {
        return compose_resolver_harness(name, r);
    }
    let law = name
        .strip_prefix("harness_law_")
        .and_then(|stem| LawKind::ALL.iter().copied().find(|l| l.stem() == stem));
    if let Some(law) = law {
        return compose_law_harness(name, law);
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

/// The resolver harness of `resolver`: its file, the aliases of the two records its twin reads
/// and a `harness_apply` that passes the template's inputs to `resolve_<stem>` as it takes them.
fn compose_resolver_harness(name: &str, resolver: ResolverKind) -> Result<String, ShaderError> {
    let (body1, body2) = resolver.harness_bodies();
    let call = format!(
        "// Generated: the resolver under test and its records.\nalias HarnessBody1 = {body1};\nalias HarnessBody2 = {body2};\nfn harness_apply(b1: HarnessBody1, b2: HarnessBody2, t: Triangle, domain: DomainParams, dt: f32) -> ContactGeom {{\n    return resolve_{}({});\n}}\n",
        resolver.stem(),
        resolver.twin_args(),
    );
    let pieces = vec![
        Piece::File(format!("resolvers/{}.wgsl", resolver.stem())),
        Piece::Text(call),
    ];
    let slots = BTreeMap::from([("resolver".to_string(), pieces)]);
    Composer::new(name, slots).run("testing/harness_resolve.wgsl")
}

/// The law harness of `law`: its file, the aliases of its records and a `harness_apply` that
/// calls `law_<stem>`.
fn compose_law_harness(name: &str, law: LawKind) -> Result<String, ShaderError> {
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
    Composer::new(name, slots).run("testing/harness_law.wgsl")
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
    fn the_template_is_not_a_pass() {
        assert!(matches!(
            compose_pass(CHAIN_TEMPLATE),
            Err(ShaderError::UnfilledSlot { .. })
        ));
    }

    #[test]
    fn every_single_law_chain_validates_on_every_source() {
        for &r in ResolverKind::ALL {
            for &s in r.sources() {
                for &l in LawKind::ALL {
                    let chain = grains_core::ChainSpec::on(s, r, vec![l]);
                    let b = ChainBinding::tight(&chain);
                    check(&compose_chain(&chain, 7, &b).unwrap(), &chain.name());
                }
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
        assert!(compose_harness("harness_resolve").is_err());
        assert!(compose_harness("nope").is_err());
    }
}
