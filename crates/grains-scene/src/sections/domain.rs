//! The `[domain]` table: the box particles live in, and which axes wrap around.

use std::ops::Range;

use grains_core::Domain;

use crate::error::SceneError;
use crate::walk::{Ctx, Table, Value};

/// The `[domain]` table as read.
pub(crate) struct DomainSection {
    pub domain: Domain,
    /// The table's span, where errors of the world as a whole point.
    pub span: Range<usize>,
    /// The span of `dimensions = 2` in a planar scene, where its refusals point.
    pub planar: Option<Range<usize>>,
}

/// Read the required `[domain]` table.
pub(crate) fn read(ctx: &Ctx<'_>, root: &Table<'_, '_>) -> Result<DomainSection, SceneError> {
    let dom_value = root.req("domain", "a [domain] table with min and max")?;
    let dom = ctx.table(dom_value, "domain", "a [domain] table")?;
    dom.deny_unknown(&["min", "max", "periodic", "dimensions"])?;
    let dmin = ctx.vec3(dom.req("min", "[x, y, z] (m)")?, "domain.min", "m")?;
    let max_v = dom.req("max", "[x, y, z] (m)")?;
    let dmax = ctx.vec3(max_v, "domain.max", "m")?;
    check_box(ctx, &dmin, &dmax, max_v, "domain.max", "domain.min")?;
    let periodic = match dom.get("periodic") {
        Some(v) => ctx.bool3(v, "domain.periodic")?,
        None => [false; 3],
    };
    let domain = Domain {
        min: dmin,
        max: dmax,
        periodic,
    };
    let planar = match dom.get("dimensions") {
        None => None,
        Some(v) => match ctx.integer(v, "domain.dimensions", 2)? {
            2 => Some(v.span()),
            3 => None,
            _ => {
                return Err(ctx.err(
                    &v.span(),
                    "domain.dimensions",
                    format!(
                        "expected 2 (particles in the plane z = 0) or 3, found {}",
                        ctx.found(v)
                    ),
                ))
            }
        },
    };
    if let (Some(span), true) = (&planar, periodic[2]) {
        return Err(ctx.err(
            span,
            "domain.dimensions",
            "a 2-D scene keeps its particles in the plane z = 0, so z cannot be periodic; \
             expected periodic = [x, y, false]",
        ));
    }
    Ok(DomainSection {
        domain,
        span: dom_value.span(),
        planar,
    })
}

/// A box `{ min = [x, y, z], max = [x, y, z] }` (m) at `key`, with `min < max` on every axis
/// ([`check_box`]).
pub(crate) fn box_table(
    ctx: &Ctx<'_>,
    v: &Value<'_>,
    key: &str,
) -> Result<([f64; 3], [f64; 3]), SceneError> {
    let t = ctx.table(v, key, "a table { min = [x, y, z], max = [x, y, z] }")?;
    t.deny_unknown(&["min", "max"])?;
    let lo = ctx.vec3(t.req("min", "[x, y, z] (m)")?, &t.key("min"), "m")?;
    let hv = t.req("max", "[x, y, z] (m)")?;
    let hi = ctx.vec3(hv, &t.key("max"), "m")?;
    check_box(ctx, &lo, &hi, hv, &t.key("max"), &t.key("min"))?;
    Ok((lo, hi))
}

/// `min < max` on every axis; the error points at `max`.
pub(crate) fn check_box(
    ctx: &Ctx<'_>,
    lo: &[f64; 3],
    hi: &[f64; 3],
    hi_v: &Value<'_>,
    hi_key: &str,
    lo_key: &str,
) -> Result<(), SceneError> {
    for k in 0..3 {
        if hi[k] <= lo[k] {
            return Err(ctx.err(
                &hi_v.span(),
                hi_key,
                format!(
                    "expected {hi_key} > {lo_key} on every axis; on {} it is {} <= {}",
                    ["x", "y", "z"][k],
                    hi[k],
                    lo[k]
                ),
            ));
        }
    }
    Ok(())
}
