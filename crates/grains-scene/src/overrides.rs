//! Scene overrides: `grains run SCENE --set PATH=VALUE`. Each override changes one key of the
//! scene text before it is read, so everything a scene file says about that key (its checks,
//! its located errors) holds for the overridden value too.
//!
//! `PATH` is the key's dotted path: `simulation.dt`, `interaction[0].tangential.friction`,
//! `output.formats`; a block of an array of tables is picked by its index (`material[1]`) or,
//! where its blocks have a `name`, by that name (`material.glass.young`). `VALUE` is a TOML
//! value (`1e7`, `"cpu"`, `[0.0, 0.0, -9.81]`, `{ law = "hertz" }`), one line. A key the block
//! does not have is added to it.
//!
//! Replacing a value keeps every line where it was; an added key takes a line of its own, and
//! the errors below it are moved back to the file's own lines ([`Applied::locate`]). An error
//! at an overridden key says which `--set` gave the value.

use std::ops::Range;
use std::path::Path;

use toml::de::{DeTable, DeValue};
use toml::Spanned;

use crate::error::SceneError;

/// One `--set PATH=VALUE`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Override {
    pub path: String,
    pub value: String,
}

impl std::str::FromStr for Override {
    type Err = String;

    fn from_str(s: &str) -> Result<Override, String> {
        let (path, value) = s.split_once('=').ok_or_else(|| {
            format!("`{s}`: expected PATH=VALUE, such as material.glass.young=1e7")
        })?;
        let (path, value) = (path.trim(), value.trim());
        if path.is_empty() || value.is_empty() {
            return Err(format!(
                "`{s}`: expected PATH=VALUE with both sides, such as simulation.dt=1e-5"
            ));
        }
        Ok(Override {
            path: path.to_string(),
            value: value.to_string(),
        })
    }
}

impl std::fmt::Display for Override {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}={}", self.path, self.value)
    }
}

/// One step of a path: a key, or an index into an array of tables.
#[derive(Clone, Debug, PartialEq)]
enum Step {
    Key(String),
    Index(usize),
}

/// `a.b[2].c` as steps.
fn steps(path: &str) -> Option<Vec<Step>> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let (key, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if key.is_empty() {
            return None;
        }
        out.push(Step::Key(key.to_string()));
        while let Some(r) = rest.strip_prefix('[') {
            let end = r.find(']')?;
            out.push(Step::Index(r[..end].parse().ok()?));
            rest = &r[end + 1..];
        }
        if !rest.is_empty() {
            return None;
        }
    }
    Some(out)
}

/// Where an override goes: over a value's span, or as a new `key = value` in a table.
#[derive(Clone, Debug)]
enum Edit {
    Replace(Range<usize>),
    /// A new line after byte `at` (the end of a standard table's header line), or, in an
    /// inline table, before its closing brace at `at` (`empty`: it has no key yet).
    AddLine {
        at: usize,
        key: String,
    },
    AddInline {
        at: usize,
        key: String,
        empty: bool,
    },
}

/// The scene text with its overrides applied, and how to move its errors back to the file.
#[derive(Clone, Debug)]
pub struct Applied {
    pub text: String,
    /// Per override, in order: the byte range its value takes in `text`.
    values: Vec<(Range<usize>, Override)>,
    /// Where an override changed the count of lines: at byte `offset` of `text`, the lines
    /// after the one holding it moved by `delta` (+1 for an added key, -k for a value of k + 1
    /// lines replaced by one).
    shifts: Vec<(usize, isize)>,
}

impl Applied {
    /// `err`, read from [`Applied::text`], located in the scene file: lines below an added
    /// line moved back, and an error at an overridden value naming its `--set`.
    pub fn locate(&self, err: SceneError) -> SceneError {
        let line_of = |offset: usize| {
            self.text[..offset.min(self.text.len())]
                .matches('\n')
                .count()
                + 1
        };
        let setting = |line: usize| {
            self.values
                .iter()
                .find(|(r, _)| line_of(r.start) == line)
                .map(|(_, o)| o.clone())
        };
        let back = |line: usize| {
            let moved: isize = self
                .shifts
                .iter()
                .filter(|(at, _)| line_of(*at) < line)
                .map(|(_, d)| d)
                .sum();
            (line as isize - moved).max(1) as usize
        };
        match err {
            SceneError::Invalid {
                file,
                line,
                column,
                key,
                message,
            } => match setting(line) {
                Some(o) => SceneError::Invalid {
                    file,
                    line: back(line),
                    column,
                    key,
                    message: format!("{message} (the value given by --set {o})"),
                },
                None => SceneError::Invalid {
                    file,
                    line: back(line),
                    column,
                    key,
                    message,
                },
            },
            SceneError::Core {
                file,
                line,
                column,
                key,
                err,
            } => SceneError::Core {
                file,
                line: back(line),
                column,
                key,
                err,
            },
            other => other,
        }
    }
}

/// The error of an override that cannot be applied.
fn refused(file: &Path, o: &Override, why: String) -> SceneError {
    SceneError::Override {
        file: file.to_path_buf(),
        set: o.to_string(),
        message: why,
    }
}

/// Apply `sets` to scene `text` (of `file`, for messages), in order.
pub fn apply(text: &str, file: &Path, sets: &[Override]) -> Result<Applied, SceneError> {
    let mut applied = Applied {
        text: text.to_string(),
        values: Vec::new(),
        shifts: Vec::new(),
    };
    for o in sets {
        if o.value.contains('\n') {
            return Err(refused(file, o, "the value must be one line".into()));
        }
        // The value must be TOML on its own.
        let probe = format!("v = {}", o.value);
        if let Err(e) = DeTable::parse(&probe) {
            return Err(refused(
                file,
                o,
                format!(
                    "`{}` is not a TOML value ({}); strings need quotes: --set {}='\"...\"'",
                    o.value,
                    e.message(),
                    o.path
                ),
            ));
        }
        let root = DeTable::parse(&applied.text).map_err(|e| {
            refused(
                file,
                o,
                format!("the scene is not valid TOML: {}", e.message()),
            )
        })?;
        let edit = locate(&applied.text, root.get_ref(), o).map_err(|why| refused(file, o, why))?;
        splice(&mut applied, edit, o);
    }
    Ok(applied)
}

/// Put override `o` in, as `edit` says, shifting the ranges already recorded.
fn splice(applied: &mut Applied, edit: Edit, o: &Override) {
    let text = &mut applied.text;
    let (at, removed, inserted, value_at, delta) = match edit {
        Edit::Replace(r) => {
            let lines = text[r.clone()].matches('\n').count() as isize;
            text.replace_range(r.clone(), &o.value);
            (r.start, r.end - r.start, o.value.len(), r.start, -lines)
        }
        Edit::AddLine { at, key } => {
            let line = format!("{key} = {}\n", o.value);
            text.insert_str(at, &line);
            (at, 0, line.len(), at + key.len() + 3, 1)
        }
        Edit::AddInline { at, key, empty } => {
            let piece = format!("{}{key} = {} ", if empty { "" } else { ", " }, o.value);
            text.insert_str(at, &piece);
            let lead = if empty { 0 } else { 2 };
            (at, 0, piece.len(), at + lead + key.len() + 3, 0)
        }
    };
    let moved = |x: &mut usize| {
        if *x >= at + removed {
            *x = *x + inserted - removed;
        }
    };
    for (r, _) in applied.values.iter_mut() {
        moved(&mut r.start);
        moved(&mut r.end);
    }
    for (x, _) in applied.shifts.iter_mut() {
        moved(x);
    }
    if delta != 0 {
        applied.shifts.push((at, delta));
    }
    applied
        .values
        .push((value_at..value_at + o.value.len(), o.clone()));
}

/// Where override `o` goes in `root` (parsed from `text`).
fn locate(text: &str, root: &DeTable<'_>, o: &Override) -> Result<Edit, String> {
    let path = steps(&o.path).ok_or_else(|| {
        format!(
            "`{}` is not a key path: keys joined by dots, blocks by index or name, such as \
             interaction[0].tangential.friction or material.glass.young",
            o.path
        )
    })?;
    let mut table: &DeTable<'_> = root;
    // The span of the current table's value (None: the root).
    let mut span: Option<Range<usize>> = None;
    let mut walked = String::new();
    let mut k = 0;
    while k < path.len() {
        let Step::Key(key) = &path[k] else {
            return Err(format!(
                "an index must follow an array's key, at `{walked}`"
            ));
        };
        let name = if walked.is_empty() {
            key.clone()
        } else {
            format!("{walked}.{key}")
        };
        let Some(v) = table.get(key.as_str()) else {
            if k + 1 == path.len() {
                return Ok(add(text, span, key));
            }
            return Err(format!(
                "the scene has no `{name}`; --set changes or adds a key of a table the scene has"
            ));
        };
        if k + 1 == path.len() {
            return Ok(Edit::Replace(v.span()));
        }
        k += 1;
        let (next, next_span, label) = into(v, &path, &mut k, &name)?;
        table = next;
        span = Some(next_span);
        walked = label;
    }
    Err(format!("`{}` names a table, not a key", o.path))
}

/// Step from value `v` (at path `name`) into the table the path names next: `v` itself, or
/// the block of an array of tables picked by `path[*k]` (an index, or a name).
fn into<'a, 'i>(
    v: &'a Spanned<DeValue<'i>>,
    path: &[Step],
    k: &mut usize,
    name: &str,
) -> Result<(&'a DeTable<'i>, Range<usize>, String), String> {
    match v.get_ref() {
        DeValue::Table(t) => Ok((t, v.span(), name.to_string())),
        DeValue::Array(a) => {
            let (i, label) = match &path[*k] {
                Step::Index(i) => (*i, format!("{name}[{i}]")),
                Step::Key(wanted) => {
                    let named = |x: &Spanned<DeValue<'_>>| match x.get_ref() {
                        DeValue::Table(t) => t
                            .get("name")
                            .and_then(|n| n.get_ref().as_str())
                            .is_some_and(|n| n == wanted),
                        _ => false,
                    };
                    let i = a
                        .iter()
                        .position(named)
                        .ok_or_else(|| format!("no `{name}` block is named \"{wanted}\""))?;
                    (i, format!("{name}[{i}]"))
                }
            };
            *k += 1;
            if *k == path.len() {
                return Err(format!("`{label}` is a block, not a key"));
            }
            let item = a
                .get(i)
                .ok_or_else(|| format!("`{name}` has {} blocks, not {}", a.len(), i + 1))?;
            match item.get_ref() {
                DeValue::Table(t) => Ok((t, item.span(), label)),
                _ => Err(format!("`{label}` is not a table")),
            }
        }
        _ => Err(format!("`{name}` is a value, not a table")),
    }
}

/// A new `key` in the table at `span` (the root where `None`).
fn add(text: &str, span: Option<Range<usize>>, key: &str) -> Edit {
    let Some(span) = span else {
        // Top-level keys come before the first table.
        return Edit::AddLine {
            at: 0,
            key: key.to_string(),
        };
    };
    let body = &text[span.clone()];
    if body.trim_start().starts_with('{') {
        let close = span.start + body.rfind('}').unwrap_or(body.len());
        let empty = body.trim_start()[1..].trim_start().starts_with('}');
        return Edit::AddInline {
            at: close,
            key: key.to_string(),
            empty,
        };
    }
    // A standard table: the line after its header.
    let after = text[span.start..]
        .find('\n')
        .map(|i| span.start + i + 1)
        .unwrap_or(text.len());
    Edit::AddLine {
        at: after,
        key: key.to_string(),
    }
}
