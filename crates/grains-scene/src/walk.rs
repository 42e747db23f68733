//! Typed access to the spanned TOML tree. Every accessor knows the key path of what it reads,
//! so any failure becomes a `file:line:column: key: message` error without the caller having
//! to thread locations around.

use std::ops::Range;
use std::path::Path;

use toml::de::{DeArray, DeTable, DeValue};
use toml::Spanned;

use crate::error::SceneError;

pub(crate) type Value<'i> = Spanned<DeValue<'i>>;

/// Numbers the kernels will see as f32 must fit; anything larger overflows on the device.
const F32_LIMIT: f64 = f32::MAX as f64;

/// The scene text and its path, for turning byte spans into messages.
pub(crate) struct Ctx<'s> {
    pub file: &'s Path,
    pub src: &'s str,
    /// The memory a scene may take, checked before particles are generated.
    pub memory: Option<&'s crate::MemoryBudget>,
    /// What the scene is allowed to hold but should be told about (`file:line:column: key:
    /// message`, as errors), in the order found: [`crate::Scene::warnings`].
    pub warnings: std::cell::RefCell<Vec<String>>,
    /// Whether `[domain] dimensions = 2`, set once the domain is read: generators then place
    /// particles in the plane z = 0.
    pub planar: std::cell::Cell<bool>,
    /// The materials' names, set once the materials are read: law keys that name materials
    /// (`masked_constant_resistance`'s `masks`) are checked against them.
    pub materials: std::cell::RefCell<Vec<String>>,
}

impl Ctx<'_> {
    /// Refuse, at `span`, to generate a scene of `particles` particles that would not fit in the
    /// memory budget (checked with [`crate::memory_per_particle_at_least`], a bound that needs
    /// no walls or laws yet, before anything is generated).
    pub fn check_memory(
        &self,
        particles: u64,
        span: &Range<usize>,
        key: &str,
    ) -> Result<(), SceneError> {
        let Some(budget) = self.memory else {
            return Ok(());
        };
        let per = grains_core::cpu::memory_per_particle_at_least();
        let need = particles.saturating_mul(per);
        if need > budget.bytes {
            return Err(self.err(
                span,
                key,
                format!(
                    "{particles} particles need at least {} ({} per particle for their state and \
                     neighbour list), more than the {} available ({}); at most {} particles fit",
                    crate::bytes(need),
                    crate::bytes(per),
                    crate::bytes(budget.bytes),
                    budget.what,
                    budget.bytes / per
                ),
            ));
        }
        Ok(())
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let mut off = offset.min(self.src.len());
        while !self.src.is_char_boundary(off) {
            off -= 1;
        }
        let before = &self.src[..off];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
        let column = before[line_start..].chars().count() + 1;
        (line, column)
    }

    /// Record a warning at `span` on `key`, located as an error would be.
    pub fn warn(&self, span: &Range<usize>, key: &str, message: impl Into<String>) {
        let located = self.err(span, key, message).to_string();
        self.warnings.borrow_mut().push(located);
    }

    pub fn err(&self, span: &Range<usize>, key: &str, message: impl Into<String>) -> SceneError {
        let (line, column) = self.line_col(span.start);
        SceneError::Invalid {
            file: self.file.to_path_buf(),
            line,
            column,
            key: key.to_string(),
            message: message.into(),
        }
    }

    /// How a value looks in the file, for "found ..." (scalars as written, shortened).
    pub fn found(&self, v: &Value<'_>) -> String {
        match v.get_ref() {
            DeValue::Table(_) => "a table".to_string(),
            DeValue::Array(_) => "an array".to_string(),
            DeValue::Datetime(_) => "a date-time".to_string(),
            DeValue::String(_) | DeValue::Integer(_) | DeValue::Float(_) | DeValue::Boolean(_) => {
                let text = self.src.get(v.span()).unwrap_or("").trim();
                let short: String = text.chars().take(40).collect();
                if short.len() < text.len() {
                    format!("{short}...")
                } else {
                    short
                }
            }
        }
    }

    fn expected(&self, v: &Value<'_>, key: &str, what: &str) -> SceneError {
        self.err(
            &v.span(),
            key,
            format!("expected {what}, found {}", self.found(v)),
        )
    }

    /// A number (integer or float), finite and within f32 range.
    pub fn number(&self, v: &Value<'_>, key: &str, what: &str) -> Result<f64, SceneError> {
        let x = match v.get_ref() {
            DeValue::Integer(i) => i64::from_str_radix(i.as_str(), i.radix())
                .ok()
                .map(|n| n as f64),
            DeValue::Float(f) => f.as_str().replace('_', "").parse::<f64>().ok(),
            _ => None,
        };
        match x {
            Some(x) if x.is_finite() && x.abs() <= F32_LIMIT => Ok(x),
            _ => Err(self.expected(v, key, what)),
        }
    }

    /// A number > 0.
    pub fn positive(&self, v: &Value<'_>, key: &str, unit: &str) -> Result<f64, SceneError> {
        let what = if unit.is_empty() {
            "a positive number".to_string()
        } else {
            format!("a positive number ({unit})")
        };
        let x = self.number(v, key, &what)?;
        // Below f32's smallest subnormal the kernels would see zero.
        if x > 0.0 && (x as f32) > 0.0 {
            Ok(x)
        } else {
            Err(self.expected(v, key, &what))
        }
    }

    /// A number >= 0.
    pub fn non_negative(&self, v: &Value<'_>, key: &str, unit: &str) -> Result<f64, SceneError> {
        let what = if unit.is_empty() {
            "a number >= 0".to_string()
        } else {
            format!("a number >= 0 ({unit})")
        };
        let x = self.number(v, key, &what)?;
        if x >= 0.0 {
            Ok(x)
        } else {
            Err(self.expected(v, key, &what))
        }
    }

    /// An integer >= `min`.
    pub fn integer(&self, v: &Value<'_>, key: &str, min: u64) -> Result<u64, SceneError> {
        let what = format!("an integer >= {min}");
        let n = match v.get_ref() {
            DeValue::Integer(i) => u64::from_str_radix(i.as_str(), i.radix()).ok(),
            _ => None,
        };
        match n {
            Some(n) if n >= min => Ok(n),
            _ => Err(self.expected(v, key, &what)),
        }
    }

    /// `[nx, ny]` of integers in `1..=max`, each refused at its own place ("expected at most
    /// `max` `noun`").
    pub fn count_pair(
        &self,
        v: &Value<'_>,
        key: &str,
        max: u64,
        noun: &str,
    ) -> Result<[u64; 2], SceneError> {
        let what = "[nx, ny] (positive integers)";
        let a = self.array(v, key, what)?;
        if a.len() != 2 {
            return Err(self.err(
                &v.span(),
                key,
                format!("expected {what}, found {} element(s)", a.len()),
            ));
        }
        let mut out = [0u64; 2];
        for (k, (x, o)) in a.iter().zip(out.iter_mut()).enumerate() {
            let at = format!("{key}[{k}]");
            *o = self.integer(x, &at, 1)?;
            if *o > max {
                let message = format!("expected at most {max} {noun}, found {o}");
                return Err(self.err(&x.span(), &at, message));
            }
        }
        Ok(out)
    }

    pub fn string<'a>(
        &self,
        v: &'a Value<'_>,
        key: &str,
        what: &str,
    ) -> Result<&'a str, SceneError> {
        v.get_ref()
            .as_str()
            .ok_or_else(|| self.expected(v, key, what))
    }

    pub fn boolean(&self, v: &Value<'_>, key: &str) -> Result<bool, SceneError> {
        v.get_ref()
            .as_bool()
            .ok_or_else(|| self.expected(v, key, "true or false"))
    }

    pub fn array<'a, 'i>(
        &self,
        v: &'a Value<'i>,
        key: &str,
        what: &str,
    ) -> Result<&'a DeArray<'i>, SceneError> {
        v.get_ref()
            .as_array()
            .ok_or_else(|| self.expected(v, key, what))
    }

    /// `[x, y, z]` of finite numbers.
    pub fn vec3(&self, v: &Value<'_>, key: &str, unit: &str) -> Result<[f64; 3], SceneError> {
        let what = format!("an array of 3 numbers [x, y, z] ({unit})");
        let a = self.array(v, key, &what)?;
        if a.len() != 3 {
            return Err(self.err(
                &v.span(),
                key,
                format!(
                    "{}, found {} element(s)",
                    &format!("expected {what}"),
                    a.len()
                ),
            ));
        }
        let mut out = [0.0; 3];
        for (k, (x, o)) in a.iter().zip(out.iter_mut()).enumerate() {
            *o = self.number(x, &format!("{key}[{k}]"), &format!("a number ({unit})"))?;
        }
        Ok(out)
    }

    /// A quaternion `[w, x, y, z]` of finite numbers, as written (the caller checks its length).
    pub fn quaternion(&self, v: &Value<'_>, key: &str) -> Result<[f64; 4], SceneError> {
        let what = "a unit quaternion [w, x, y, z]";
        let a = self.array(v, key, what)?;
        if a.len() != 4 {
            return Err(self.err(
                &v.span(),
                key,
                format!("expected {what}, found {} element(s)", a.len()),
            ));
        }
        let mut q = [0.0f64; 4];
        for (k, (x, o)) in a.iter().zip(q.iter_mut()).enumerate() {
            *o = self.number(x, &format!("{key}[{k}]"), "a number")?;
        }
        Ok(q)
    }

    /// `[a, b, c]` of booleans.
    pub fn bool3(&self, v: &Value<'_>, key: &str) -> Result<[bool; 3], SceneError> {
        let what = "an array of 3 booleans [x, y, z]";
        let a = self.array(v, key, what)?;
        if a.len() != 3 {
            return Err(self.err(
                &v.span(),
                key,
                format!("expected {what}, found {} element(s)", a.len()),
            ));
        }
        let mut out = [false; 3];
        for (k, (x, o)) in a.iter().zip(out.iter_mut()).enumerate() {
            *o = self.boolean(x, &format!("{key}[{k}]"))?;
        }
        Ok(out)
    }

    /// A table, as a [`Table`] that knows its key path.
    pub fn table<'a, 'i>(
        &'a self,
        v: &'a Value<'i>,
        key: &str,
        what: &str,
    ) -> Result<Table<'a, 'i>, SceneError> {
        let t = v
            .get_ref()
            .as_table()
            .ok_or_else(|| self.expected(v, key, what))?;
        Ok(Table {
            ctx: self,
            t,
            span: v.span(),
            path: key.to_string(),
        })
    }

    /// An array of tables (`[[name]]` in the file), each with its key path `name[i]`.
    pub fn tables<'a, 'i>(
        &'a self,
        v: &'a Value<'i>,
        key: &str,
    ) -> Result<Vec<Table<'a, 'i>>, SceneError> {
        let what = format!("an array of tables ([[{key}]] blocks)");
        let a = self.array(v, key, &what)?;
        a.iter()
            .enumerate()
            .map(|(i, x)| self.table(x, &format!("{key}[{i}]"), &what))
            .collect()
    }
}

/// A TOML table with the key path it sits at.
pub(crate) struct Table<'a, 'i> {
    pub ctx: &'a Ctx<'a>,
    pub t: &'a DeTable<'i>,
    pub span: Range<usize>,
    pub path: String,
}

impl<'a, 'i> Table<'a, 'i> {
    /// Key path of a key of this table.
    pub fn key(&self, k: &str) -> String {
        if self.path.is_empty() {
            k.to_string()
        } else {
            format!("{}.{k}", self.path)
        }
    }

    pub fn get(&self, k: &str) -> Option<&'a Value<'i>> {
        self.t.get(k)
    }

    /// Span of a key's name (where "this key is wrong here" points).
    pub fn key_span(&self, k: &str) -> Range<usize> {
        self.t
            .get_key_value(k)
            .map(|(name, _)| name.span())
            .unwrap_or_else(|| self.span.clone())
    }

    /// A required key; missing, the error points at the table and says what was expected.
    pub fn req(&self, k: &str, what: &str) -> Result<&'a Value<'i>, SceneError> {
        self.get(k).ok_or_else(|| {
            self.ctx.err(
                &self.span,
                &self.key(k),
                format!("missing required key `{k}` (expected {what})"),
            )
        })
    }

    /// Error on the first key (in file order) that is not in `accepted`.
    pub fn deny_unknown(&self, accepted: &[&str]) -> Result<(), SceneError> {
        let unknown = self
            .t
            .iter()
            .filter(|(k, _)| !accepted.contains(&k.get_ref().as_ref()))
            .min_by_key(|(k, _)| k.span().start);
        if let Some((k, _)) = unknown {
            let name: &str = k.get_ref();
            let place = if self.path.is_empty() {
                "at the top level".to_string()
            } else {
                format!("in `{}`", self.path)
            };
            return Err(self.ctx.err(
                &k.span(),
                &self.key(name),
                format!(
                    "unknown key `{name}` {place}; accepted keys: {}",
                    accepted.join(", ")
                ),
            ));
        }
        Ok(())
    }
}
