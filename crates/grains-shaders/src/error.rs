//! The one error type of grains-shaders.

/// Why a shader could not be composed or validated. Every variant names the file or the label
/// of the composed module, so a message read in a log says where to look.
#[derive(Debug, thiserror::Error)]
pub enum ShaderError {
    /// A path (from an `//!include`, a registry stem or an API argument) has no embedded file.
    #[error("no WGSL file `{path}` under shaders/ (wanted by {wanted_by})")]
    UnknownFile {
        /// Path relative to `shaders/`.
        path: String,
        /// The file or API call that asked for it.
        wanted_by: String,
    },
    /// A `//!` line that is not a directive the composer knows, or is malformed.
    #[error("{file}:{line}: {message}")]
    Directive {
        /// File holding the directive, relative to `shaders/`.
        file: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong with it.
        message: String,
    },
    /// A template's `//!slot` was reached without content for it: the file is not a standalone
    /// pass (for instance `contact`, which only [`crate::compose_chain`] can fill).
    #[error("{file}: slot `{slot}` has no content; {hint}")]
    UnfilledSlot {
        /// Template file, relative to `shaders/`.
        file: String,
        /// Name of the slot.
        slot: String,
        /// Which API composes this template.
        hint: String,
    },
    /// Content was given for a slot the template does not have.
    #[error("{label}: the template has no `//!slot {slot}`")]
    UnusedSlot {
        /// Label of the composition.
        label: String,
        /// Name of the slot.
        slot: String,
    },
    /// A chain that cannot be turned into WGSL.
    #[error("chain `{chain}`: {message}")]
    Chain {
        /// [`grains_core::ChainSpec::name`] of the chain.
        chain: String,
        /// What is wrong with it.
        message: String,
    },
    /// A harness name that is neither a file under `shaders/testing/` nor a registry element.
    #[error("unknown harness `{name}` (known: {known})")]
    UnknownHarness {
        /// The name asked for.
        name: String,
        /// Every harness name, comma-separated.
        known: String,
    },
    /// naga could not parse the WGSL; `message` is naga's rendering with the source excerpt.
    #[error("{label}: WGSL parse error\n{message}")]
    Parse {
        /// Label of the module (file path or chain name).
        label: String,
        /// naga's `emit_to_string` output.
        message: String,
    },
    /// An array could not be split over several bindings (`split_arrays`) or held in
    /// textures (`texture_arrays`).
    #[error("{label}: cannot bind `{array}` in parts: {message}")]
    Split {
        /// Label of the module.
        label: String,
        /// The array's binding name.
        array: String,
        /// What in the module stands in the way.
        message: String,
    },
    /// naga parsed the WGSL but its validator rejected it.
    #[error("{label}: WGSL validation error\n{message}")]
    Validation {
        /// Label of the module (file path or chain name).
        label: String,
        /// naga's `emit_to_string` output.
        message: String,
    },
}
