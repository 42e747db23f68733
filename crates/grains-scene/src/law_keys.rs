//! A law's slot table as [`grains_core::law::LawKeys`]: each law module parses its own keys
//! through this, and every error keeps the file, line, column and key path of the scene.

use grains_core::kernels::walls::ShapeKeys;
use grains_core::law::LawKeys;

use crate::error::SceneError;
use crate::walk::Table;

/// The keys of one slot table (`normal = { law = "...", ... }`).
pub(crate) struct SlotKeys<'t, 'a, 'i> {
    pub t: &'t Table<'a, 'i>,
}

impl LawKeys for SlotKeys<'_, '_, '_> {
    type Error = SceneError;

    fn has(&self, k: &str) -> bool {
        self.t.get(k).is_some()
    }

    fn number(&self, k: &str, what: &str) -> Result<Option<f64>, SceneError> {
        self.t
            .get(k)
            .map(|v| self.t.ctx.number(v, &self.t.key(k), what))
            .transpose()
    }

    fn positive(&self, k: &str, unit: &str) -> Result<Option<f64>, SceneError> {
        self.t
            .get(k)
            .map(|v| self.t.ctx.positive(v, &self.t.key(k), unit))
            .transpose()
    }

    fn non_negative(&self, k: &str, unit: &str) -> Result<Option<f64>, SceneError> {
        self.t
            .get(k)
            .map(|v| self.t.ctx.non_negative(v, &self.t.key(k), unit))
            .transpose()
    }

    fn string(&self, k: &str, what: &str) -> Result<Option<String>, SceneError> {
        self.t
            .get(k)
            .map(|v| {
                self.t
                    .ctx
                    .string(v, &self.t.key(k), what)
                    .map(str::to_string)
            })
            .transpose()
    }

    fn integer(&self, k: &str, min: u64) -> Result<Option<u64>, SceneError> {
        self.t
            .get(k)
            .map(|v| self.t.ctx.integer(v, &self.t.key(k), min))
            .transpose()
    }

    fn material_integers(
        &self,
        k: &str,
        min: u64,
    ) -> Result<Option<Vec<(String, u64)>>, SceneError> {
        let Some(v) = self.t.get(k) else {
            return Ok(None);
        };
        let ctx = self.t.ctx;
        let what = format!("a table {{ material = integer >= {min}, ... }}");
        let table = ctx.table(v, &self.t.key(k), &what)?;
        let known = ctx.materials.borrow();
        let mut out = Vec::new();
        // In file order, so that the first bad entry is the one reported.
        let mut entries: Vec<_> = table.t.iter().collect();
        entries.sort_by_key(|(name, _)| name.span().start);
        for (name, x) in entries {
            let name: &str = name.get_ref();
            if !known.iter().any(|m| m == name) {
                let names: Vec<String> = known.iter().map(|m| format!("\"{m}\"")).collect();
                return Err(ctx.err(
                    &table.key_span(name),
                    &table.key(name),
                    format!(
                        "unknown material \"{name}\"; defined materials: {}",
                        names.join(", ")
                    ),
                ));
            }
            out.push((name.to_string(), ctx.integer(x, &table.key(name), min)?));
        }
        Ok(Some(out))
    }

    fn symmetric_matrix(&self, k: &str, unit: &str) -> Result<Option<Vec<Vec<f64>>>, SceneError> {
        let Some(v) = self.t.get(k) else {
            return Ok(None);
        };
        let ctx = self.t.ctx;
        let key = self.t.key(k);
        let what = format!("a square symmetric matrix [[a, b], [b, c]] of numbers >= 0 ({unit})");
        let rows = ctx.array(v, &key, &what)?;
        if rows.is_empty() {
            return Err(ctx.err(&v.span(), &key, format!("expected {what}, found []")));
        }
        let n = rows.len();
        let mut m = Vec::with_capacity(n);
        // Each entry's span, for the error at an entry unlike its mirror.
        let mut spans = Vec::with_capacity(n);
        for (i, row) in rows.iter().enumerate() {
            let path = format!("{key}[{i}]");
            let entries = ctx.array(row, &path, &format!("a row of {n} numbers >= 0"))?;
            if entries.len() != n {
                return Err(ctx.err(
                    &row.span(),
                    &path,
                    format!(
                        "expected a row of {n} numbers (the matrix has {n} rows), found {} \
                         element(s)",
                        entries.len()
                    ),
                ));
            }
            let mut r = Vec::with_capacity(n);
            for (j, x) in entries.iter().enumerate() {
                r.push(ctx.non_negative(x, &format!("{path}[{j}]"), unit)?);
            }
            m.push(r);
            spans.push(entries.iter().map(|x| x.span()).collect::<Vec<_>>());
        }
        for i in 0..n {
            for j in 0..i {
                if m[i][j] != m[j][i] {
                    // Point at the entry below the diagonal: its mirror was read first.
                    return Err(ctx.err(
                        &spans[i][j],
                        &format!("{key}[{i}][{j}]"),
                        format!(
                            "the matrix must be symmetric: [{i}][{j}] = {} but [{j}][{i}] = {}",
                            m[i][j], m[j][i]
                        ),
                    ));
                }
            }
        }
        Ok(Some(m))
    }

    fn found(&self, k: &str) -> String {
        self.t
            .get(k)
            .map(|v| self.t.ctx.found(v))
            .unwrap_or_else(|| "nothing".to_string())
    }

    fn missing(&self, k: &str, what: &str) -> SceneError {
        match self.t.req(k, what) {
            Err(e) => e,
            // Present after all: point at it rather than invent a message.
            Ok(v) => self
                .t
                .ctx
                .err(&v.span(), &self.t.key(k), format!("expected {what}")),
        }
    }

    fn error(&self, k: &str, message: String) -> SceneError {
        let span = self
            .t
            .get(k)
            .map(|v| v.span())
            .unwrap_or_else(|| self.t.span.clone());
        self.t.ctx.err(&span, &self.t.key(k), message)
    }

    fn conflict(&self, k1: &str, k2: &str, message: String) -> SceneError {
        let (s1, s2) = (self.t.key_span(k1), self.t.key_span(k2));
        // The later key written is the one to point at; the message names `k1`.
        let span = if s2.start > s1.start { s2 } else { s1 };
        self.t.ctx.err(&span, &self.t.key(k1), message)
    }
}

/// A wall's shape table: the law keys' readers and the vectors and flags walls take.
impl ShapeKeys for SlotKeys<'_, '_, '_> {
    fn vec3(&self, k: &str, what: &str, unit: &str) -> Result<[f64; 3], SceneError> {
        self.t.ctx.vec3(self.t.req(k, what)?, &self.t.key(k), unit)
    }

    fn unit_vector(&self, k: &str, what: &str) -> Result<[f64; 3], SceneError> {
        crate::sections::wall::unit_vector(self.t.ctx, self.t, k, what)
    }

    fn boolean(&self, k: &str) -> Result<Option<bool>, SceneError> {
        self.t
            .get(k)
            .map(|v| self.t.ctx.boolean(v, &self.t.key(k)))
            .transpose()
    }
}
