//! Arrays held in storage textures, for adapters whose storage buffers a shader stage, times
//! their binding size, reach less than a kernel's arrays.
//!
//! Lavapipe (Mesa 22.3) binds at most 32 storage buffers of 128 MiB in a stage, 4 GiB, and has
//! no arrays of bindings; it binds 36 storage textures a stage besides, each up to its
//! `maxMemoryAllocationSize` of 2 GiB (16384 x 16384 texels a layer, 2048 layers). An array
//! held as `r32uint` storage textures, one 4-byte word a texel, in row-major order over each
//! texture's width, height and layers, is reached through them: [`texture_arrays`] rewrites a
//! composed kernel as [`crate::split_arrays`] does (every `NAME[i]` a call: `NAME_at(i)`,
//! `NAME_put(i, v)`), with the array's declaration replaced by its textures (`NAME`,
//! `NAME_part1`, ...: `chunk` elements each) and accessors that assemble an element from its
//! words by the struct's layout (naga's) and take it apart again. The textures' shapes are
//! the host's choice: the accessors read them with `textureDimensions`.
//!
//! Atomics on such an array are refused (WGSL has no atomics on these textures without an
//! extension): an array a kernel updates atomically stays in buffers.

use naga::{Module, ScalarKind, TypeInner, VectorSize};

use crate::split::{err, rewrite_arrays, ArraySplit, Decl, Holder, Uses};
use crate::ShaderError;

/// Rewrite module `src` (labelled `label` in errors) so that each array of `arrays` that it
/// declares is held in storage textures: `parts` textures of `chunk` elements each, the
/// array's binding the first, the others at new binding numbers after the module's largest
/// (as [`crate::part_name`] names them). Arrays it does not declare are left alone.
pub fn texture_arrays(
    label: &str,
    src: &str,
    arrays: &[ArraySplit],
) -> Result<String, ShaderError> {
    for a in arrays {
        if a.parts == 0 || a.chunk == 0 {
            return Err(err(
                label,
                &a.name,
                "no texture, or none holding an element",
            ));
        }
    }
    rewrite_arrays(label, src, arrays, Holder::Textures)
}

/// The module as naga reads it, for the arrays' element layouts.
pub(crate) fn parse(label: &str, src: &str) -> Result<Module, ShaderError> {
    naga::front::wgsl::parse_str(src).map_err(|e| ShaderError::Parse {
        label: label.to_string(),
        message: e.emit_to_string(src),
    })
}

/// The declarations of array `s`'s textures, in place of its storage buffer's `d`; parts past
/// the first take binding numbers from `next`.
pub(crate) fn declarations(s: &ArraySplit, d: &Decl, next: &mut u32) -> String {
    let access = if d.access.contains("write") {
        "read_write"
    } else {
        "read"
    };
    let mut out = String::new();
    for p in 0..s.parts {
        let binding = if p == 0 {
            d.binding
        } else {
            *next += 1;
            *next - 1
        };
        out.push_str(&format!(
            "\n@group({}) @binding({binding}) var {}: texture_storage_2d_array<r32uint, {access}>;",
            d.group,
            crate::part_name(&s.name, p)
        ));
    }
    out
}

/// Word `k` of texture `t`, and the statement storing `w` there: one texel a word, row-major
/// over the texture's width, height and layers.
fn texel(t: &str, k: &str) -> (String, String) {
    let coords = format!(
        "let d = textureDimensions({t}); let c = vec2<u32>({k} % d.x, ({k} / d.x) % d.y); \
         let l = ({k} / d.x) / d.y;"
    );
    (
        format!("{coords} return textureLoad({t}, c, l).x;"),
        format!("{coords} textureStore({t}, c, l, vec4<u32>(w, 0u, 0u, 0u));"),
    )
}

/// The accessors of array `s` (declared by `d` in `module`) that the rewritten module uses.
pub(crate) fn accessors(
    label: &str,
    module: &Module,
    s: &ArraySplit,
    d: &Decl,
    uses: &Uses,
) -> Result<String, ShaderError> {
    let name = &s.name;
    if let Some(op) = uses.atomics.iter().next() {
        return Err(err(
            label,
            name,
            &format!("an `{op}` on an array held in textures"),
        ));
    }
    let var = module
        .global_variables
        .iter()
        .find(|(_, g)| g.name.as_deref() == Some(name.as_str()))
        .map(|(_, g)| g)
        .ok_or_else(|| err(label, name, "no such global in the parsed module"))?;
    let TypeInner::Array { base, stride, .. } = module.types[var.ty].inner else {
        return Err(err(label, name, "not an array"));
    };
    if stride % 4 != 0 {
        return Err(err(
            label,
            name,
            "an element that is not whole 4-byte words",
        ));
    }
    let words = stride / 4;
    let per_texture = s.chunk as u64 * words as u64;
    if per_texture > u32::MAX as u64 {
        return Err(err(label, name, "more words a texture than 32 bits index"));
    }
    // `body(texture, word)` in the texture that holds word `k`.
    let pick = |body: &dyn Fn(&str, &str) -> String| {
        let mut f = String::new();
        for p in 0..s.parts {
            let t = crate::part_name(name, p);
            let local = if p == 0 {
                "k".to_string()
            } else {
                format!("(k - {}u)", p as u64 * per_texture)
            };
            let text = body(&t, &local);
            if p + 1 < s.parts {
                f.push_str(&format!(
                    "    if (k < {}u) {{ {text} }}\n",
                    (p as u64 + 1) * per_texture
                ));
            } else {
                f.push_str(&format!("    {{ {text} }}\n"));
            }
        }
        f
    };
    let mut out = String::new();
    if uses.read {
        out.push_str(&format!("fn {name}_tex_load(k: u32) -> u32 {{\n"));
        out.push_str(&pick(&|t, k| texel(t, k).0));
        out.push_str("}\n");
        let value = compose(label, name, module, base, 0)?;
        out.push_str(&format!(
            "fn {name}_at(i: u32) -> {} {{\n    let k = i * {words}u;\n    return {value};\n}}\n",
            d.elem
        ));
    }
    if uses.write {
        out.push_str(&format!("fn {name}_tex_store(k: u32, w: u32) {{\n"));
        out.push_str(&pick(&|t, k| texel(t, k).1 + " return;"));
        out.push_str("}\n");
        let mut stores = Vec::new();
        decompose(label, name, module, base, "v", 0, &mut stores)?;
        out.push_str(&format!(
            "fn {name}_put(i: u32, v: {}) {{\n    let k = i * {words}u;\n",
            d.elem
        ));
        for st in stores {
            out.push_str(&format!("    {st}\n"));
        }
        out.push_str("}\n");
    }
    Ok(out)
}

/// The WGSL of a 4-byte scalar: its type, and whether it is stored as its bits.
fn scalar(kind: ScalarKind, width: u8) -> Option<(&'static str, bool)> {
    match (kind, width) {
        (ScalarKind::Uint, 4) => Some(("u32", false)),
        (ScalarKind::Sint, 4) => Some(("i32", true)),
        (ScalarKind::Float, 4) => Some(("f32", true)),
        _ => None,
    }
}

fn lanes(size: VectorSize) -> usize {
    match size {
        VectorSize::Bi => 2,
        VectorSize::Tri => 3,
        VectorSize::Quad => 4,
    }
}

const LANE: [&str; 4] = ["x", "y", "z", "w"];

/// The element of type `ty` whose first word is `k + off` (words), from `NAME_tex_load`.
fn compose(
    label: &str,
    name: &str,
    module: &Module,
    ty: naga::Handle<naga::Type>,
    off: u32,
) -> Result<String, ShaderError> {
    let word = |o: u32, kind: ScalarKind, width: u8| -> Result<String, ShaderError> {
        let (t, bits) = scalar(kind, width)
            .ok_or_else(|| err(label, name, "a member that is not a 4-byte scalar"))?;
        let w = format!("{name}_tex_load(k + {o}u)");
        Ok(if bits {
            format!("bitcast<{t}>({w})")
        } else {
            w
        })
    };
    match &module.types[ty].inner {
        TypeInner::Scalar(s) => word(off, s.kind, s.width),
        TypeInner::Vector { size, scalar: s } => {
            let (t, _) = scalar(s.kind, s.width)
                .ok_or_else(|| err(label, name, "a vector of other than 4-byte scalars"))?;
            let parts: Result<Vec<String>, ShaderError> = (0..lanes(*size))
                .map(|c| word(off + c as u32, s.kind, s.width))
                .collect();
            Ok(format!("vec{}<{t}>({})", lanes(*size), parts?.join(", ")))
        }
        TypeInner::Struct { members, .. } => {
            let type_name = module.types[ty]
                .name
                .clone()
                .ok_or_else(|| err(label, name, "an unnamed struct"))?;
            let parts: Result<Vec<String>, ShaderError> = members
                .iter()
                .map(|m| compose(label, name, module, m.ty, off + m.offset / 4))
                .collect();
            Ok(format!("{type_name}({})", parts?.join(", ")))
        }
        TypeInner::Array {
            base,
            size: naga::ArraySize::Constant(n),
            stride,
        } => {
            let parts: Result<Vec<String>, ShaderError> = (0..n.get())
                .map(|c| compose(label, name, module, *base, off + c * stride / 4))
                .collect();
            let ty_text = wgsl_type(module, ty)
                .ok_or_else(|| err(label, name, "an array of an unnamed type"))?;
            Ok(format!("{ty_text}({})", parts?.join(", ")))
        }
        _ => Err(err(label, name, OTHER)),
    }
}

const OTHER: &str = "an element other than scalars, vectors, structs and fixed arrays of them";

/// The WGSL spelling of type `ty` (4-byte scalars, their vectors, named structs and fixed
/// arrays of those).
fn wgsl_type(module: &Module, ty: naga::Handle<naga::Type>) -> Option<String> {
    match &module.types[ty].inner {
        TypeInner::Scalar(s) => scalar(s.kind, s.width).map(|(t, _)| t.to_string()),
        TypeInner::Vector { size, scalar: s } => {
            scalar(s.kind, s.width).map(|(t, _)| format!("vec{}<{t}>", lanes(*size)))
        }
        TypeInner::Struct { .. } => module.types[ty].name.clone(),
        TypeInner::Array {
            base,
            size: naga::ArraySize::Constant(n),
            ..
        } => Some(format!("array<{}, {n}>", wgsl_type(module, *base)?)),
        _ => None,
    }
}

/// The statements storing `value` (of type `ty`) from word `k + off` on, through `NAME_tex_store`.
fn decompose(
    label: &str,
    name: &str,
    module: &Module,
    ty: naga::Handle<naga::Type>,
    value: &str,
    off: u32,
    out: &mut Vec<String>,
) -> Result<(), ShaderError> {
    let store = |o: u32, v: String, kind: ScalarKind, width: u8| -> Result<String, ShaderError> {
        let (_, bits) = scalar(kind, width)
            .ok_or_else(|| err(label, name, "a member that is not a 4-byte scalar"))?;
        let w = if bits {
            format!("bitcast<u32>({v})")
        } else {
            v
        };
        Ok(format!("{name}_tex_store(k + {o}u, {w});"))
    };
    match &module.types[ty].inner {
        TypeInner::Scalar(s) => out.push(store(off, value.to_string(), s.kind, s.width)?),
        TypeInner::Vector { size, scalar: s } => {
            for (c, lane) in LANE.iter().enumerate().take(lanes(*size)) {
                out.push(store(
                    off + c as u32,
                    format!("{value}.{lane}"),
                    s.kind,
                    s.width,
                )?);
            }
        }
        TypeInner::Struct { members, .. } => {
            for m in members {
                let field = m
                    .name
                    .as_deref()
                    .ok_or_else(|| err(label, name, "an unnamed member"))?;
                decompose(
                    label,
                    name,
                    module,
                    m.ty,
                    &format!("{value}.{field}"),
                    off + m.offset / 4,
                    out,
                )?;
            }
        }
        TypeInner::Array {
            base,
            size: naga::ArraySize::Constant(n),
            stride,
        } => {
            for c in 0..n.get() {
                let v = format!("{value}[{c}]");
                decompose(label, name, module, *base, &v, off + c * stride / 4, out)?;
            }
        }
        _ => return Err(err(label, name, OTHER)),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "
struct S { a: vec3<f32>, b: u32, c: vec2<i32> }
@group(0) @binding(0) var<storage, read_write> xs: array<S>;
@group(0) @binding(3) var<storage, read> ys: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> counts: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    let i = g.x;
    xs[i].a += ys[i + 1u].xyz;
    xs[i + 2u] = S(ys[i].xyz, out[i], vec2<i32>(-1, 2));
    out[i] = xs[i].b + u32(xs[i].c.y);
    atomicAdd(&counts[0], 1u);
}
";

    fn arrays(names: &[&str], parts: u32) -> Vec<ArraySplit> {
        names
            .iter()
            .map(|n| ArraySplit {
                name: n.to_string(),
                chunk: 5,
                parts,
            })
            .collect()
    }

    #[test]
    fn arrays_in_textures_validate_and_keep_their_bindings() {
        for parts in [1, 3] {
            let src = texture_arrays("t", SRC, &arrays(&["xs", "ys", "out"], parts))
                .unwrap_or_else(|e| panic!("{e}"));
            let module = crate::validate(&src, "t").unwrap_or_else(|e| panic!("{e}\n{src}"));
            let bindings = crate::module_bindings(&module);
            // The atomic array stays a buffer; each other array's first texture keeps its
            // binding, the further ones follow the module's largest.
            let at = |n: &str| bindings.iter().find(|b| b.name == n).map(|b| b.binding);
            assert_eq!(at("counts"), Some(1));
            assert_eq!(at("xs"), Some(0), "{src}");
            assert_eq!(at("ys"), Some(3));
            assert_eq!(at("out"), Some(2));
            if parts == 3 {
                assert_eq!(at("xs_part2"), Some(5), "{src}");
                assert_eq!(at("ys_part2"), Some(7), "{src}");
            }
            assert!(!src.contains("xs["), "{src}");
            // A struct of 8 words: vec3 (3), u32 (1), vec2<i32> at word 4 after padding.
            assert!(src.contains("let k = i * 8u;"), "{src}");
            assert!(src.contains("bitcast<i32>(xs_tex_load(k + 4u))"), "{src}");
        }
    }

    #[test]
    fn atomics_on_arrays_in_textures_are_refused() {
        let e = texture_arrays("t", SRC, &arrays(&["counts"], 2))
            .expect_err("an atomic array went into textures");
        assert!(e.to_string().contains("counts"), "{e}");
        assert!(e.to_string().contains("atomicAdd"), "{e}");
    }
}
