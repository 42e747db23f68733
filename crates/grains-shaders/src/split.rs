//! Arrays larger than one storage binding, split over several.
//!
//! An adapter binds at most `max_storage_buffer_binding_size` bytes of a buffer at once (128
//! MiB on lavapipe and on many adapters' defaults, 2 GiB on Vulkan drivers through wgpu), while
//! a buffer may be much larger (`max_buffer_size`). A kernel whose array is larger than a
//! binding gets that array as `parts` bindings of `chunk` elements each, windows of the one
//! buffer one after the other (the host binds `NAME`, `NAME_part1`, ... at offsets `k * chunk`
//! elements), and every access `NAME[i]` in its WGSL becomes a call that picks the window:
//! `NAME_at(i)`, `NAME_put(i, v)`, `NAME_atomicAdd(i, v)`. Kernels whose arrays fit are left as
//! written, so the split costs nothing until an array outgrows a binding.
//!
//! The rewrite is textual, over the composed module: accesses are found by name, an index by
//! its brackets, a write by the assignment after the access (with any member or index path).
//! What it cannot turn into a call (a pointer to an element or to the array, `arrayLength`) is
//! an error that names the array, never a silently wrong kernel.

use std::collections::{BTreeMap, BTreeSet};

use crate::ShaderError;

/// One runtime-sized storage array to split: `parts` bindings (at least 2) of `chunk` elements
/// each but the last.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ArraySplit {
    /// The array's binding name.
    pub name: String,
    /// Elements per binding.
    pub chunk: u32,
    /// Bindings, the first being the array's own.
    pub parts: u32,
}

/// The binding name of part `part` of array `name`: the array's own for part 0.
pub fn part_name(name: &str, part: u32) -> String {
    if part == 0 {
        name.to_string()
    } else {
        format!("{name}_part{part}")
    }
}

/// The array and part a binding name of [`part_name`]'s form is, if it is one beyond part 0.
pub fn parse_part(binding: &str) -> Option<(&str, u32)> {
    let (array, part) = binding.rsplit_once("_part")?;
    let part: u32 = part.parse().ok()?;
    (part > 0).then_some((array, part))
}

/// The atomic built-ins an access to a split array may be the pointer argument of, with
/// whether they return a value.
const ATOMICS: [(&str, bool); 10] = [
    ("atomicLoad", true),
    ("atomicStore", false),
    ("atomicAdd", true),
    ("atomicSub", true),
    ("atomicMax", true),
    ("atomicMin", true),
    ("atomicAnd", true),
    ("atomicOr", true),
    ("atomicXor", true),
    ("atomicExchange", true),
];

/// Assignment operators, longest first.
const ASSIGN: [&str; 13] = [
    "<<=", ">>=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "++", "--", "=",
];

/// A declared array: its group, access text (`read`, `read_write`) and element type.
pub(crate) struct Decl {
    pub(crate) group: String,
    pub(crate) access: String,
    pub(crate) elem: String,
    /// The declaration's own `@binding`.
    pub(crate) binding: u32,
    /// Byte index of the declaration's first attribute, and just past its `;`.
    pub(crate) start: usize,
    pub(crate) end: usize,
}

/// Where a rewritten module holds its arrays: windows of storage buffers, or storage textures
/// of one `u32` word a texel (crate::texture).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Holder {
    Buffers,
    Textures,
}

/// Rewrite module `src` (labelled `label` in errors) so that each array of `splits` that it
/// declares is bound as its parts. Arrays it does not declare, and splits of one part, are
/// left alone.
pub fn split_arrays(label: &str, src: &str, splits: &[ArraySplit]) -> Result<String, ShaderError> {
    rewrite_arrays(label, src, splits, Holder::Buffers)
}

/// [`split_arrays`], or with the arrays held in storage textures (`Holder::Textures`:
/// `chunk` elements a texture, `parts` textures; crate::texture writes the declarations and
/// accessors).
pub(crate) fn rewrite_arrays(
    label: &str,
    src: &str,
    splits: &[ArraySplit],
    holder: Holder,
) -> Result<String, ShaderError> {
    let textures = holder == Holder::Textures;
    let text = strip_comments(src);
    let mut wanted: BTreeMap<String, (ArraySplit, Decl)> = BTreeMap::new();
    for s in splits.iter().filter(|s| s.parts > 1 || textures) {
        if s.chunk == 0 {
            return Err(err(label, &s.name, "a chunk of 0 elements"));
        }
        if let Some(d) = declaration(&text, &s.name) {
            wanted.insert(s.name.clone(), (s.clone(), d));
        }
    }
    if wanted.is_empty() {
        return Ok(src.to_string());
    }
    let names: BTreeSet<String> = wanted.keys().cloned().collect();
    let shadows = shadowed(&text, &names);
    let mut rw = Rewriter {
        label,
        names: &names,
        shadows: &shadows,
        used: BTreeMap::new(),
    };
    // Declarations end with `;` and hold no access, so the text between them rewrites alone.
    let mut ends: Vec<(usize, &str)> = wanted
        .iter()
        .map(|(n, (_, d))| (d.end, n.as_str()))
        .collect();
    ends.sort();
    let mut next_binding = max_binding(&text) + 1;
    let mut out = String::new();
    let mut at = 0;
    for (end, name) in ends {
        let (s, d) = &wanted[name];
        if textures {
            out.push_str(&rw.rewrite(&text[at..d.start], at)?);
            out.push_str(&crate::texture::declarations(s, d, &mut next_binding));
            at = end;
            continue;
        }
        out.push_str(&rw.rewrite(&text[at..end], at)?);
        for p in 1..s.parts {
            out.push_str(&format!(
                "\n@group({}) @binding({next_binding}) var<storage, {}> {}: array<{}>;",
                d.group,
                d.access,
                part_name(name, p),
                d.elem
            ));
            next_binding += 1;
        }
        at = end;
    }
    out.push_str(&rw.rewrite(&text[at..], at)?);
    out.push('\n');
    let module = if textures {
        Some(crate::texture::parse(label, src)?)
    } else {
        None
    };
    for (name, uses) in &rw.used {
        let (s, d) = &wanted[name];
        match &module {
            Some(m) => out.push_str(&crate::texture::accessors(label, m, s, d, uses)?),
            None => out.push_str(&accessors(s, &d.elem, uses)),
        }
    }
    Ok(out)
}

pub(crate) fn err(label: &str, array: &str, what: &str) -> ShaderError {
    ShaderError::Split {
        label: label.to_string(),
        array: array.to_string(),
        message: what.to_string(),
    }
}

/// `src` without its comments (line and block), line breaks kept.
fn strip_comments(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    let mut start = 0;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            out.push_str(&src[start..i]);
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            start = i;
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            out.push_str(&src[start..i]);
            i += 2;
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                if b[i] == b'\n' {
                    out.push('\n');
                }
                i += 1;
            }
            i = (i + 2).min(b.len());
            start = i;
        } else {
            i += 1;
        }
    }
    out.push_str(&src[start..]);
    out
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The identifier starting at `i`, if one does (and is not the tail of a longer one).
fn ident_at(t: &str, i: usize) -> Option<&str> {
    let b = t.as_bytes();
    if i >= b.len() || !(b[i].is_ascii_alphabetic() || b[i] == b'_') {
        return None;
    }
    if i > 0 && is_ident(b[i - 1]) {
        return None;
    }
    let mut j = i;
    while j < b.len() && is_ident(b[j]) {
        j += 1;
    }
    Some(&t[i..j])
}

fn skip_ws(t: &str, mut i: usize) -> usize {
    let b = t.as_bytes();
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// The last non-space byte before `i`.
fn before(t: &str, i: usize) -> Option<u8> {
    t.as_bytes()[..i]
        .iter()
        .rev()
        .find(|c| !c.is_ascii_whitespace())
        .copied()
}

/// Whether `&` (address-of, not the tail of `&&`) is the last non-space byte before `i`.
fn address_of(t: &str, i: usize) -> bool {
    let b = t.as_bytes();
    let Some(k) = b[..i].iter().rposition(|c| !c.is_ascii_whitespace()) else {
        return false;
    };
    b[k] == b'&' && (k == 0 || b[k - 1] != b'&')
}

/// Index of the bracket that closes the one at `open` (`(`, `[` or `{`; all kinds nest).
fn closing(t: &str, open: usize) -> Option<usize> {
    let b = t.as_bytes();
    let mut depth = 0i32;
    for (k, &c) in b.iter().enumerate().skip(open) {
        match c {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
                if depth < 0 {
                    return None;
                }
            }
            _ => {}
        }
    }
    None
}

/// Index of the first `stop` byte at bracket depth 0 from `i`, before any bracket closes.
fn at_depth0(t: &str, i: usize, stop: &[u8]) -> Option<usize> {
    let b = t.as_bytes();
    let mut depth = 0i32;
    for (k, &c) in b.iter().enumerate().skip(i) {
        if depth == 0 && stop.contains(&c) {
            return Some(k);
        }
        match c {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth -= 1;
                if depth < 0 {
                    return None;
                }
            }
            _ => {}
        }
    }
    None
}

/// The declaration `@group(G) @binding(B) var<storage, ACCESS> name: array<ELEM>;` of `name`.
fn declaration(t: &str, name: &str) -> Option<Decl> {
    let mut from = 0;
    while let Some(k) = t[from..].find("var<storage") {
        let v = from + k;
        from = v + 1;
        let close = v + t[v..].find('>')?;
        let access = t[v + "var<storage".len()..close]
            .trim_start_matches(|c: char| c == ',' || c.is_whitespace())
            .trim()
            .to_string();
        let id_at = skip_ws(t, close + 1);
        if ident_at(t, id_at) != Some(name) {
            continue;
        }
        let colon = skip_ws(t, id_at + name.len());
        if t.as_bytes().get(colon) != Some(&b':') {
            continue;
        }
        let semi = colon + t[colon..].find(';')?;
        let ty = t[colon + 1..semi].trim();
        let elem = ty.strip_prefix("array<")?.strip_suffix('>')?.trim();
        // A fixed-size array (`array<T, N>`) is not split.
        if at_depth0(elem, 0, b",").is_some() {
            return None;
        }
        let line_start = t[..v].rfind(['\n', ';']).map_or(0, |p| p + 1);
        let attrs = &t[line_start..v];
        let attr = |a: &str| {
            attrs
                .split(a)
                .nth(1)
                .and_then(|g| g.split(')').next())
                .unwrap_or("0")
                .trim()
                .to_string()
        };
        let group = attr("@group(");
        let binding = attr("@binding(").parse().unwrap_or(0);
        let access = if access.is_empty() {
            "read".to_string()
        } else {
            access
        };
        return Some(Decl {
            group,
            access,
            elem: elem.to_string(),
            binding,
            start: line_start,
            end: semi + 1,
        });
    }
    None
}

/// The largest `@binding(N)` of the module.
fn max_binding(t: &str) -> u32 {
    t.split("@binding(")
        .skip(1)
        .filter_map(|s| s.split(')').next()?.trim().parse::<u32>().ok())
        .max()
        .unwrap_or(0)
}

/// Byte ranges where a parameter or a local declared with `let`/`var` has the name of a split
/// array, with the name: there the name is not the array. A parameter hides it in its whole
/// function; a local from its declaration to the end of its block (to the end of the function
/// where that block is not found, as for a `for` statement's own variable).
fn shadowed(t: &str, names: &BTreeSet<String>) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(k) = t[from..].find("fn ") {
        let f = from + k;
        from = f + 3;
        if f > 0 && is_ident(t.as_bytes()[f - 1]) {
            continue;
        }
        let Some(open) = t[f..].find('{').map(|p| f + p) else {
            break;
        };
        let Some(close) = closing(t, open) else {
            break;
        };
        let header = &t[f..open];
        for name in names {
            let param = header.find('(').is_some_and(|p| {
                let params = &header[p..];
                params.match_indices(name.as_str()).any(|(q, _)| {
                    ident_at(params, q) == Some(name.as_str())
                        && params[q + name.len()..].trim_start().starts_with(':')
                })
            });
            if param {
                out.push((f, close, name.clone()));
                continue;
            }
            for kw in ["let ", "var ", "var<function> "] {
                for (q, _) in t[open..close].match_indices(kw) {
                    let q = open + q;
                    let at = skip_ws(t, q + kw.len());
                    if is_ident(t.as_bytes()[q - 1]) || ident_at(t, at) != Some(name.as_str()) {
                        continue;
                    }
                    let end = at_depth0(t, at, b"}")
                        .filter(|&e| e <= close)
                        .unwrap_or(close);
                    out.push((q, end, name.clone()));
                }
            }
        }
        from = close;
    }
    out
}

/// What a module does with a split array: read it, write it, and which atomics it calls.
#[derive(Default)]
pub(crate) struct Uses {
    pub(crate) read: bool,
    pub(crate) write: bool,
    pub(crate) atomics: BTreeSet<&'static str>,
}

struct Rewriter<'a> {
    label: &'a str,
    names: &'a BTreeSet<String>,
    shadows: &'a [(usize, usize, String)],
    used: BTreeMap<String, Uses>,
}

impl Rewriter<'_> {
    fn is_split(&self, name: &str, at: usize) -> bool {
        self.names.contains(name)
            && !self
                .shadows
                .iter()
                .any(|(a, b, h)| (*a..*b).contains(&at) && h == name)
    }

    fn uses(&mut self, name: &str) -> &mut Uses {
        self.used.entry(name.to_string()).or_default()
    }

    /// `t` with every access to a split array turned into a call; `base` is `t`'s offset in
    /// the module (for the shadowing ranges).
    fn rewrite(&mut self, t: &str, base: usize) -> Result<String, ShaderError> {
        let b = t.as_bytes();
        let mut out = String::with_capacity(t.len());
        let mut i = 0;
        while i < b.len() {
            let Some(id) = ident_at(t, i) else {
                // Copy up to the next identifier start.
                let c = t[i..].chars().next().map_or(1, char::len_utf8);
                out.push_str(&t[i..i + c]);
                i += c;
                continue;
            };
            let after = i + id.len();
            if let Some(&(op, _)) = ATOMICS.iter().find(|(a, _)| *a == id) {
                if let Some((text, end)) = self.atomic(t, base, after, op)? {
                    out.push_str(&text);
                    i = end;
                    continue;
                }
            }
            if id == "arrayLength" {
                let p = skip_ws(t, after);
                if b.get(p) == Some(&b'(') {
                    let q = skip_ws(t, p + 1);
                    if b.get(q) == Some(&b'&') {
                        let r = skip_ws(t, q + 1);
                        if let Some(a) = ident_at(t, r) {
                            if self.is_split(a, base + r) {
                                return Err(err(
                                    self.label,
                                    a,
                                    "arrayLength of a split array (its length is the parts' sum)",
                                ));
                            }
                        }
                    }
                }
            }
            let member = before(t, i) == Some(b'.');
            if !member && self.is_split(id, base + i) {
                let open = skip_ws(t, after);
                if address_of(t, i) {
                    return Err(err(
                        self.label,
                        id,
                        "a pointer to a split array or its element",
                    ));
                }
                if b.get(open) == Some(&b'[') {
                    let (text, end) = self.access(t, base, i, id, open)?;
                    out.push_str(&text);
                    i = end;
                    continue;
                }
            }
            out.push_str(id);
            i = after;
        }
        Ok(out)
    }

    /// `atomicOp(&NAME[idx], args)` from the `(` at or after `p`, as `NAME_atomicOp(idx, args)`,
    /// and where the call ends; `None` where the pointer is not to a split array's element.
    fn atomic(
        &mut self,
        t: &str,
        base: usize,
        p: usize,
        op: &'static str,
    ) -> Result<Option<(String, usize)>, ShaderError> {
        let b = t.as_bytes();
        let paren = skip_ws(t, p);
        if b.get(paren) != Some(&b'(') {
            return Ok(None);
        }
        let amp = skip_ws(t, paren + 1);
        if b.get(amp) != Some(&b'&') {
            return Ok(None);
        }
        let at = skip_ws(t, amp + 1);
        let Some(name) = ident_at(t, at) else {
            return Ok(None);
        };
        if !self.is_split(name, base + at) {
            return Ok(None);
        }
        let open = skip_ws(t, at + name.len());
        let bad = || {
            err(
                self.label,
                name,
                &format!("an `{op}` whose pointer is not to an element"),
            )
        };
        if b.get(open) != Some(&b'[') {
            return Err(bad());
        }
        let close = closing(t, open).ok_or_else(bad)?;
        let idx = self.rewrite(&t[open + 1..close], base + open + 1)?;
        let end_paren = closing(t, paren).ok_or_else(bad)?;
        let next = skip_ws(t, close + 1);
        let args = match b.get(next) {
            Some(b',') => format!(
                ", {}",
                self.rewrite(&t[next + 1..end_paren], base + next + 1)?
                    .trim()
            ),
            Some(b')') => String::new(),
            _ => return Err(bad()),
        };
        self.uses(name).atomics.insert(op);
        Ok(Some((
            format!("{name}_{op}({}{args})", index(&idx)),
            end_paren + 1,
        )))
    }

    /// An access `NAME[idx]...` at `i` (its `[` at `open`): a write statement, or a read.
    fn access(
        &mut self,
        t: &str,
        base: usize,
        i: usize,
        name: &str,
        open: usize,
    ) -> Result<(String, usize), ShaderError> {
        let b = t.as_bytes();
        let close = closing(t, open)
            .ok_or_else(|| err(self.label, name, "an index without its closing bracket"))?;
        let idx = self.rewrite(&t[open + 1..close], base + open + 1)?;
        let idx = index(&idx);
        // The path after the element: members, swizzles and indices.
        let mut path = String::new();
        let mut j = close + 1;
        loop {
            let k = skip_ws(t, j);
            if b.get(k) == Some(&b'.') {
                let m = skip_ws(t, k + 1);
                let Some(field) = ident_at(t, m) else { break };
                path.push('.');
                path.push_str(field);
                j = m + field.len();
            } else if b.get(k) == Some(&b'[') {
                let c = closing(t, k)
                    .ok_or_else(|| err(self.label, name, "an index without its closing bracket"))?;
                path.push('[');
                path.push_str(self.rewrite(&t[k + 1..c], base + k + 1)?.trim());
                path.push(']');
                j = c + 1;
            } else {
                break;
            }
        }
        let k = skip_ws(t, j);
        let op = ASSIGN
            .iter()
            .find(|op| t[k..].starts_with(**op) && !(**op == "=" && t[k + 1..].starts_with('=')));
        let Some(&op) = op else {
            self.uses(name).read = true;
            return Ok((format!("{name}_at({idx}){path}"), j));
        };
        if !matches!(before(t, i), None | Some(b';' | b'{' | b'}')) {
            return Err(err(
                self.label,
                name,
                "a write that is not a statement of its own",
            ));
        }
        let after_op = k + op.len();
        let (rhs, end) = if op == "++" || op == "--" {
            let semi = skip_ws(t, after_op);
            if b.get(semi) != Some(&b';') {
                return Err(err(self.label, name, "an increment not followed by `;`"));
            }
            (String::new(), semi + 1)
        } else {
            let semi = at_depth0(t, after_op, b";")
                .ok_or_else(|| err(self.label, name, "a write without its `;`"))?;
            let rhs = self.rewrite(&t[after_op..semi], base + after_op)?;
            (rhs.trim().to_string(), semi + 1)
        };
        let u = self.uses(name);
        u.write = true;
        if path.is_empty() && op == "=" {
            return Ok((format!("{name}_put({idx}, {rhs});"), end));
        }
        u.read = true;
        let assign = if rhs.is_empty() {
            format!("split_v{path}{op};")
        } else {
            format!("split_v{path} {op} {rhs};")
        };
        Ok((
            format!(
                "{{ let split_i = {idx}; var split_v = {name}_at(split_i); {assign} {name}_put(split_i, split_v); }}"
            ),
            end,
        ))
    }
}

/// An index as the accessors take it: a `u32` (WGSL indexes arrays with `i32` as well).
fn index(idx: &str) -> String {
    format!("u32({})", idx.trim())
}

/// The accessors of split array `s` (element type `elem`) that a module uses.
fn accessors(s: &ArraySplit, elem: &str, uses: &Uses) -> String {
    let name = &s.name;
    let c = s.chunk as u64;
    let last = s.parts - 1;
    // Element `i` of part `p`.
    let at = |p: u32| {
        let part = part_name(name, p);
        if p == 0 {
            format!("{part}[i]")
        } else {
            format!("{part}[i - {}u]", p as u64 * c)
        }
    };
    // `body(element)` in the part that holds element `i`.
    let pick = |body: &dyn Fn(&str) -> String| {
        let mut f = String::new();
        for p in 0..last {
            f.push_str(&format!(
                "    if (i < {}u) {{\n        {}\n    }}\n",
                (p as u64 + 1) * c,
                body(&at(p))
            ));
        }
        f.push_str(&format!("    {}\n", body(&at(last))));
        f
    };
    let mut out = String::new();
    if uses.read {
        out.push_str(&format!("fn {name}_at(i: u32) -> {elem} {{\n"));
        out.push_str(&pick(&|e| format!("return {e};")));
        out.push_str("}\n");
    }
    if uses.write {
        out.push_str(&format!("fn {name}_put(i: u32, v: {elem}) {{\n"));
        out.push_str(&pick(&|e| format!("{e} = v;\n        return;")));
        out.push_str("}\n");
    }
    let scalar = elem
        .strip_prefix("atomic<")
        .and_then(|e| e.strip_suffix('>'))
        .unwrap_or(elem);
    for op in &uses.atomics {
        let returns = ATOMICS.iter().any(|(a, r)| a == op && *r);
        match *op {
            "atomicLoad" => {
                out.push_str(&format!("fn {name}_{op}(i: u32) -> {scalar} {{\n"));
                out.push_str(&pick(&|e| format!("return {op}(&{e});")));
            }
            _ if returns => {
                out.push_str(&format!(
                    "fn {name}_{op}(i: u32, v: {scalar}) -> {scalar} {{\n"
                ));
                out.push_str(&pick(&|e| format!("return {op}(&{e}, v);")));
            }
            _ => {
                out.push_str(&format!("fn {name}_{op}(i: u32, v: {scalar}) {{\n"));
                out.push_str(&pick(&|e| format!("{op}(&{e}, v);\n        return;")));
            }
        }
        out.push_str("}\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "
struct S { a: vec4<f32>, b: f32 }
@group(0) @binding(0) var<storage, read_write> xs: array<S>;
@group(0) @binding(3) var<storage, read> ys: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> counts: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
fn helper(ys: vec4<f32>) -> f32 {
    return ys[1];
}
fn scoped(i: u32) -> f32 {
    if (i > 3u) {
        let ys = vec4<f32>(1.0);
        return ys[2];
    }
    return ys[i].x;
}
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    let i = g.x;
    let y = ys[out[i]].xyz; // ys[comment]
    xs[i].a = vec4<f32>(y, 1.0);
    xs[i].b += ys[i + 1u][2] + helper(ys[0]);
    xs[i + 2u] = xs[i];
    out[i]++;
    if (i > 0u && out[i - 1u] > 2u) {
        out[i] = 1u;
    }
    let k = atomicAdd(&counts[out[i]], 1u);
    atomicStore(&counts[i], k);
}
";

    fn splits() -> Vec<ArraySplit> {
        ["xs", "ys", "counts", "out"]
            .iter()
            .map(|n| ArraySplit {
                name: n.to_string(),
                chunk: 5,
                parts: 3,
            })
            .collect()
    }

    #[test]
    fn rewritten_module_validates_and_calls_the_accessors() {
        let src = split_arrays("test", SRC, &splits()).unwrap();
        crate::validate(&src, "test").unwrap_or_else(|e| panic!("{e}\n{src}"));
        for want in [
            "let y = ys_at(u32(out_at(u32(i)))).xyz;",
            "{ let split_i = u32(i); var split_v = xs_at(split_i); split_v.a = vec4<f32>(y, 1.0); xs_put(split_i, split_v); }",
            "split_v.b += ys_at(u32(i + 1u))[2] + helper(ys_at(u32(0)));",
            "xs_put(u32(i + 2u), xs_at(u32(i)));",
            "split_v++;",
            "let k = counts_atomicAdd(u32(out_at(u32(i))), 1u);",
            "counts_atomicStore(u32(i), k);",
            // A parameter that shadows the array is left alone.
            "return ys[1];",
            // A local hides the array in its block only.
            "return ys[2];",
            "return ys_at(u32(i)).x;",
            "@binding(4) var<storage, read_write> xs_part1: array<S>;",
            "var<storage, read> ys_part2: array<vec4<f32>>;",
            "if (i < 10u) {\n        return ys_part1[i - 5u];",
            "return ys_part2[i - 10u];",
        ] {
            assert!(src.contains(want), "missing `{want}` in\n{src}");
        }
        assert!(!src.contains("comment"), "comments are dropped");
    }

    #[test]
    fn one_part_or_undeclared_arrays_leave_the_module_as_it_was() {
        let one = [ArraySplit {
            name: "xs".into(),
            chunk: 5,
            parts: 1,
        }];
        assert_eq!(split_arrays("t", SRC, &one).unwrap(), SRC);
        let other = [ArraySplit {
            name: "zs".into(),
            chunk: 5,
            parts: 2,
        }];
        assert_eq!(split_arrays("t", SRC, &other).unwrap(), SRC);
    }

    #[test]
    fn pointers_and_lengths_of_split_arrays_are_refused() {
        let s = splits();
        for bad in [
            "fn f() -> u32 { return arrayLength(&out); }",
            "fn f() { let p = &out[0]; }",
            "fn f() { let q = 1u + (out[0] = 2u); }",
        ] {
            let src =
                format!("@group(0) @binding(2) var<storage, read_write> out: array<u32>;\n{bad}\n");
            let e = split_arrays("t", &src, &s).unwrap_err().to_string();
            assert!(e.contains("`out`"), "{e}");
        }
    }

    #[test]
    fn part_names_round_trip() {
        assert_eq!(part_name("pos", 0), "pos");
        assert_eq!(parse_part(&part_name("pos", 3)), Some(("pos", 3)));
        assert_eq!(parse_part("slots_hi"), None);
        assert_eq!(parse_part("pos"), None);
    }
}
