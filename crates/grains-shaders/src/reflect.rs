//! What a composed module declares, read from naga's IR: the bindings an entry point uses and
//! the memory layout of structs.

use std::collections::HashSet;

use naga::{Block, Handle, Module, Statement, TypeInner};

/// How a binding is accessed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BindingKind {
    /// `var<uniform>`.
    Uniform,
    /// `var<storage, read>`.
    StorageRead,
    /// `var<storage, read_write>`.
    StorageReadWrite,
    /// `texture_storage_2d_array<r32uint, read>`: part of an array held in textures
    /// (`texture_arrays`).
    TextureRead,
    /// `texture_storage_2d_array<r32uint, read_write>`.
    TextureReadWrite,
}

impl BindingKind {
    /// Whether the binding is a storage buffer (what a stage's storage-buffer limit counts).
    pub fn is_storage_buffer(self) -> bool {
        matches!(
            self,
            BindingKind::StorageRead | BindingKind::StorageReadWrite
        )
    }

    /// Whether the binding is a storage texture.
    pub fn is_texture(self) -> bool {
        matches!(
            self,
            BindingKind::TextureRead | BindingKind::TextureReadWrite
        )
    }
}

/// One resource binding of an entry point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BindingInfo {
    /// Name of the global variable (by the binding contract, the CPU twin's parameter name).
    pub name: String,
    /// `@group`.
    pub group: u32,
    /// `@binding`.
    pub binding: u32,
    /// Address space and access.
    pub kind: BindingKind,
    /// WGSL spelling of the variable's type, e.g. `array<vec4<f32>>`, `StepParams`.
    pub type_name: String,
    /// Bytes per element of a runtime-sized array (`array<T>`), 0 for any other type: what an
    /// array larger than a binding is split by (`split_arrays`).
    pub stride: u32,
}

/// The WGSL spelling of type `ty`.
fn type_name(module: &Module, ty: Handle<naga::Type>) -> String {
    let t = &module.types[ty];
    if let Some(name) = &t.name {
        return name.clone();
    }
    match &t.inner {
        TypeInner::Scalar(s) => scalar_name(*s),
        TypeInner::Vector { size, scalar } => {
            format!("vec{}<{}>", *size as u8, scalar_name(*scalar))
        }
        TypeInner::Atomic(s) => format!("atomic<{}>", scalar_name(*s)),
        TypeInner::Array { base, size, .. } => match size {
            naga::ArraySize::Constant(n) => format!("array<{}, {n}>", type_name(module, *base)),
            _ => format!("array<{}>", type_name(module, *base)),
        },
        other => format!("{other:?}"),
    }
}

fn scalar_name(s: naga::Scalar) -> String {
    let kind = match s.kind {
        naga::ScalarKind::Sint => "i",
        naga::ScalarKind::Uint => "u",
        naga::ScalarKind::Float => "f",
        naga::ScalarKind::Bool => return "bool".to_string(),
        other => return format!("{other:?}"),
    };
    format!("{kind}{}", s.width as u32 * 8)
}

/// Functions called anywhere in `block`, nested blocks included.
fn calls_in(block: &Block, out: &mut Vec<Handle<naga::Function>>) {
    for stmt in block.iter() {
        match stmt {
            Statement::Block(b) => calls_in(b, out),
            Statement::If { accept, reject, .. } => {
                calls_in(accept, out);
                calls_in(reject, out);
            }
            Statement::Switch { cases, .. } => {
                for c in cases {
                    calls_in(&c.body, out);
                }
            }
            Statement::Loop {
                body, continuing, ..
            } => {
                calls_in(body, out);
                calls_in(continuing, out);
            }
            Statement::Call { function, .. } => out.push(*function),
            // No other statement holds a block or calls a function.
            _ => {}
        }
    }
}

/// Globals referenced by `f`'s expressions.
fn globals_in(f: &naga::Function, out: &mut HashSet<Handle<naga::GlobalVariable>>) {
    for (_, e) in f.expressions.iter() {
        if let naga::Expression::GlobalVariable(g) = e {
            out.insert(*g);
        }
    }
}

/// The resource bindings entry point `entry_point` uses, directly or through the functions it
/// calls, sorted by (group, binding). Empty when there is no such entry point.
pub fn reflect_bindings(module: &Module, entry_point: &str) -> Vec<BindingInfo> {
    let Some(ep) = module.entry_points.iter().find(|e| e.name == entry_point) else {
        return Vec::new();
    };
    let mut used = HashSet::new();
    globals_in(&ep.function, &mut used);
    let mut pending = Vec::new();
    calls_in(&ep.function.body, &mut pending);
    let mut seen = HashSet::new();
    while let Some(h) = pending.pop() {
        if !seen.insert(h) {
            continue;
        }
        let f = &module.functions[h];
        globals_in(f, &mut used);
        calls_in(&f.body, &mut pending);
    }
    let mut out: Vec<BindingInfo> = used
        .into_iter()
        .filter_map(|h| binding_info(module, h))
        .collect();
    out.sort_by_key(|b| (b.group, b.binding));
    out
}

/// Every resource binding `module` declares, used or not (a pipeline layout may hold bindings
/// an entry point does not use), sorted by (group, binding). A bound global that is neither a
/// uniform nor a storage buffer is left out.
pub fn module_bindings(module: &Module) -> Vec<BindingInfo> {
    let mut out: Vec<BindingInfo> = module
        .global_variables
        .iter()
        .filter_map(|(h, _)| binding_info(module, h))
        .collect();
    out.sort_by_key(|b| (b.group, b.binding));
    out
}

/// The binding of global `h`, if it is a uniform or storage buffer.
fn binding_info(module: &Module, h: Handle<naga::GlobalVariable>) -> Option<BindingInfo> {
    let g = &module.global_variables[h];
    let rb = g.binding.as_ref()?;
    let kind = match g.space {
        naga::AddressSpace::Uniform => BindingKind::Uniform,
        naga::AddressSpace::Storage { access } => {
            if access.contains(naga::StorageAccess::STORE) {
                BindingKind::StorageReadWrite
            } else {
                BindingKind::StorageRead
            }
        }
        naga::AddressSpace::Handle => match &module.types[g.ty].inner {
            TypeInner::Image {
                class:
                    naga::ImageClass::Storage {
                        format: naga::StorageFormat::R32Uint,
                        access,
                    },
                dim: naga::ImageDimension::D2,
                arrayed: true,
            } => {
                if access.contains(naga::StorageAccess::STORE) {
                    BindingKind::TextureReadWrite
                } else {
                    BindingKind::TextureRead
                }
            }
            _ => return None,
        },
        _ => return None,
    };
    Some(BindingInfo {
        name: g.name.clone().unwrap_or_default(),
        group: rb.group,
        binding: rb.binding,
        kind,
        type_name: type_name(module, g.ty),
        stride: match &module.types[g.ty].inner {
            TypeInner::Array {
                size: naga::ArraySize::Dynamic,
                stride,
                ..
            } => *stride,
            _ => 0,
        },
    })
}

/// Size and `(member, offset)` list of struct `name` in `module`, as naga's layouter computes
/// them (WGSL's host-shareable rules), or `None` when there is no such struct.
pub fn struct_layout(module: &Module, name: &str) -> Option<(u32, Vec<(String, u32)>)> {
    let (handle, ty) = module
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some(name))?;
    let TypeInner::Struct { members, .. } = &ty.inner else {
        return None;
    };
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(module.to_ctx()).ok()?;
    let size = layouter[handle].size;
    let fields = members
        .iter()
        .map(|m| (m.name.clone().unwrap_or_default(), m.offset))
        .collect();
    Some((size, fields))
}

/// The words of record struct `name` in order, as `(access path, is u32)`: a law's parameter
/// or history struct, whose members must be 4-byte scalars (`f32`, `u32`) or fixed arrays of
/// them (an array member `xi: array<f32, 3>` gives `xi[0]`, `xi[1]`, `xi[2]`). `Err` names the
/// member that is not.
pub fn record_words(module: &Module, name: &str) -> Result<Vec<(String, bool)>, String> {
    let ty = module
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some(name))
        .map(|(_, t)| t)
        .ok_or_else(|| format!("no struct `{name}`"))?;
    let TypeInner::Struct { members, .. } = &ty.inner else {
        return Err(format!("`{name}` is not a struct"));
    };
    let scalar = |s: &naga::Scalar| match (s.kind, s.width) {
        (naga::ScalarKind::Float, 4) => Some(false),
        (naga::ScalarKind::Uint, 4) => Some(true),
        _ => None,
    };
    let mut out = Vec::new();
    for m in members {
        let field = m.name.clone().unwrap_or_default();
        let bad = || format!("`{name}.{field}` is not an f32, a u32 or a fixed array of them");
        match &module.types[m.ty].inner {
            TypeInner::Scalar(s) => out.push((field.clone(), scalar(s).ok_or_else(bad)?)),
            TypeInner::Array {
                base,
                size: naga::ArraySize::Constant(n),
                ..
            } => {
                let TypeInner::Scalar(s) = &module.types[*base].inner else {
                    return Err(bad());
                };
                let is_u32 = scalar(s).ok_or_else(bad)?;
                for k in 0..n.get() {
                    out.push((format!("{field}[{k}]"), is_u32));
                }
            }
            _ => return Err(bad()),
        }
    }
    Ok(out)
}
