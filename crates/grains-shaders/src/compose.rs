//! The preprocessor that joins WGSL files into one module.
//!
//! Two directives, each on a line of its own (a WGSL line comment, so the raw files stay valid
//! WGSL text):
//!
//! - `//!include PATH`: insert the file at `PATH` (relative to `shaders/`) here, unless this
//!   composition has already included it. Includes nest; each file appears once, so every file
//!   can declare what it needs without caring what its includer already has. WGSL resolves
//!   module-scope names regardless of order, so where a file lands does not matter.
//! - `//!slot NAME`: in a template, insert the content the caller gave for `NAME` (files to
//!   include and generated text). A slot reached with no content is an error, as is content
//!   for a slot the template lacks.
//!
//! A path under `generated/` names WGSL written from a Rust table ([`generated`]).
//!
//! Each inserted file is preceded by a `// ---- PATH ----` banner, so naga's error excerpts of
//! a composed module show where the offending line came from.

use std::collections::{BTreeMap, HashSet};

use crate::ShaderError;

/// A piece of a slot's content.
#[derive(Clone, Debug)]
pub(crate) enum Piece {
    /// A file to include (once), relative to `shaders/`.
    File(String),
    /// Generated WGSL text.
    Text(String),
}

/// The embedded text of `path` (relative to `shaders/`).
pub(crate) fn file(path: &str) -> Option<&'static str> {
    crate::files::FILES
        .iter()
        .find(|(p, _)| *p == path)
        .map(|(_, s)| *s)
}

/// The files under `generated/`, written from the Rust tables they mirror rather than kept in
/// `shaders/`, so the two cannot drift: `generated/walls.wgsl` is the wall kinds' constants
/// and dispatch (`grains_core::kernels::walls::wgsl`), `generated/slot_words.wgsl` the words
/// of the packed slots' counts (`slot_carry::slot_words_wgsl`).
pub(crate) fn generated(path: &str) -> Option<String> {
    match path {
        "generated/walls.wgsl" => Some(grains_core::kernels::walls::wgsl()),
        "generated/slot_words.wgsl" => {
            Some(grains_core::kernels::passes::slot_carry::slot_words_wgsl())
        }
        _ => None,
    }
}

/// What to say when a template's slot is reached without content.
fn slot_hint(slot: &str) -> String {
    match slot {
        "chain" | "source" => "compose it with compose_chain".to_string(),
        "law" => "compose it with compose_harness(\"harness_law_<stem>\")".to_string(),
        "resolver" => "compose it with compose_harness(\"harness_resolve_<stem>\")".to_string(),
        _ => "no API fills this slot".to_string(),
    }
}

/// One composition in progress.
pub(crate) struct Composer {
    label: String,
    included: HashSet<String>,
    slots: BTreeMap<String, Vec<Piece>>,
    used_slots: HashSet<String>,
    out: String,
}

impl Composer {
    /// A composition labelled `label` (used in errors), with the given slot contents.
    pub(crate) fn new(label: &str, slots: BTreeMap<String, Vec<Piece>>) -> Composer {
        Composer {
            label: label.to_string(),
            included: HashSet::new(),
            slots,
            used_slots: HashSet::new(),
            out: String::new(),
        }
    }

    /// Compose starting from `root`, returning the joined source.
    pub(crate) fn run(mut self, root: &str) -> Result<String, ShaderError> {
        let wanted_by = format!("the composition `{}`", self.label);
        self.include(root, &wanted_by)?;
        if let Some(slot) = self.slots.keys().find(|s| !self.used_slots.contains(*s)) {
            return Err(ShaderError::UnusedSlot {
                label: self.label,
                slot: slot.clone(),
            });
        }
        Ok(self.out)
    }

    fn include(&mut self, path: &str, wanted_by: &str) -> Result<(), ShaderError> {
        if !self.included.insert(path.to_string()) {
            return Ok(());
        }
        let written = generated(path);
        let text = match &written {
            Some(t) => t.as_str(),
            None => file(path).ok_or_else(|| ShaderError::UnknownFile {
                path: path.to_string(),
                wanted_by: wanted_by.to_string(),
            })?,
        };
        self.out.push_str(&format!("// ---- {path} ----\n"));
        for (n, line) in text.lines().enumerate() {
            let trimmed = line.trim();
            let Some(directive) = trimmed.strip_prefix("//!") else {
                self.out.push_str(line);
                self.out.push('\n');
                continue;
            };
            let bad = |message: String| ShaderError::Directive {
                file: path.to_string(),
                line: n + 1,
                message,
            };
            let mut words = directive.split_whitespace();
            let (Some(name), Some(arg), None) = (words.next(), words.next(), words.next()) else {
                return Err(bad(format!(
                    "expected `//!include PATH` or `//!slot NAME`, found `{trimmed}`"
                )));
            };
            match name {
                "include" => {
                    let here = format!("{path}:{}", n + 1);
                    self.include(arg, &here)?;
                }
                "slot" => self.fill_slot(path, arg)?,
                other => return Err(bad(format!("unknown directive `{other}`"))),
            }
        }
        self.out.push_str(&format!("// ---- end of {path} ----\n"));
        Ok(())
    }

    fn fill_slot(&mut self, path: &str, slot: &str) -> Result<(), ShaderError> {
        let Some(pieces) = self.slots.get(slot).cloned() else {
            return Err(ShaderError::UnfilledSlot {
                file: path.to_string(),
                slot: slot.to_string(),
                hint: slot_hint(slot),
            });
        };
        self.used_slots.insert(slot.to_string());
        let wanted_by = format!("slot `{slot}` of {path}");
        for piece in pieces {
            match piece {
                Piece::File(f) => self.include(&f, &wanted_by)?,
                Piece::Text(t) => {
                    self.out.push_str(&t);
                    if !t.ends_with('\n') {
                        self.out.push('\n');
                    }
                }
            }
        }
        Ok(())
    }
}
