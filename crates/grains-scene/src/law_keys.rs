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
