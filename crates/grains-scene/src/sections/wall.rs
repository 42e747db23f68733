//! The `[[wall]]` blocks: analytic walls (plane, box, cylinder, disk, cone), optionally
//! moving, and mesh walls, whose triangles become fixed particles after every other particle.

use std::ops::Range;

use grains_core::kernel_types::{Triangle, Wall};
use grains_core::kernels::walls::WallKind;
use grains_core::material::Material;
use grains_core::mesh_walls::MeshBodies;
use grains_core::servo::Servo;
use grains_core::units::qty;
use grains_core::{Domain, Particles};

use crate::error::SceneError;
use crate::law_keys::SlotKeys;
use crate::sections::domain::box_table;
use crate::sections::insert::InsertBlock;
use crate::sections::material::material_of;
use crate::walk::{Ctx, Table, Value};

/// The walls of a scene as read.
pub(crate) struct Walls {
    /// The analytic walls (a box is six planes).
    pub walls: Vec<Wall>,
    /// Where each of `walls` came from (its block's span and key path), for messages about
    /// particles behind it.
    pub sources: Vec<(Range<usize>, String)>,
    /// The mesh walls' triangles table.
    pub triangles: Vec<Triangle>,
    /// The first triangle particle of the mesh walls: particles from here on are walls.
    pub first_triangle: Option<usize>,
    /// The mesh walls as bodies: their motions, conveyors and tables of poses.
    pub meshes: MeshBodies,
    /// The servo walls.
    pub servos: Vec<Servo>,
    /// Each block's material, with its span and key path.
    pub materials_used: Vec<(usize, Range<usize>, String)>,
}

impl Walls {
    /// The particles before the mesh walls' triangles: those that move.
    pub(crate) fn movable<'p>(&self, particles: &'p Particles) -> &'p [[f32; 4]] {
        &particles.pos[..self.first_triangle.unwrap_or(particles.len())]
    }
}

/// The shape keys of a wall block, which gives exactly one of them: the analytic kinds of the
/// registry ([`WallKind`]), a box (six planes, listed beside the plane) and a mesh.
fn shapes() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for k in WallKind::ALL {
        out.push(k.keyword());
        if *k == WallKind::Plane {
            out.push("box");
        }
    }
    out.push("mesh");
    out
}

/// How a shape is written, for the message of a block with none or two: its keyword and keys.
fn shape_usage(shape: &str) -> String {
    let keys = match shape {
        "box" => "min, max".to_string(),
        "mesh" => "file, scale, translate, rotate".to_string(),
        _ => kind_of(shape).map_or(String::new(), |k| k.keys().join(", ")),
    };
    format!("`{shape} = {{ {keys} }}`")
}

/// The analytic kind of shape key `shape`, if it is one.
fn kind_of(shape: &str) -> Option<WallKind> {
    WallKind::ALL.iter().copied().find(|k| k.keyword() == shape)
}

/// Read every `[[wall]]` block. Mesh walls append their triangles to `particles`, split to the
/// size of the largest particle, dormant ones of `inserts` included.
pub(crate) fn read(
    ctx: &Ctx<'_>,
    root: &Table<'_, '_>,
    materials: &[Material],
    domain: &Domain,
    inserts: &[InsertBlock],
    particles: &mut Particles,
) -> Result<Walls, SceneError> {
    let mut out = Walls {
        walls: Vec::new(),
        sources: Vec::new(),
        triangles: Vec::new(),
        first_triangle: None,
        meshes: MeshBodies::default(),
        servos: Vec::new(),
        materials_used: Vec::new(),
    };
    let Some(v) = root.get("wall") else {
        return Ok(out);
    };
    for w in ctx.tables(v, "wall")? {
        let mut accepted = shapes();
        accepted.extend(["material", "motion", "conveyor", "servo", "scripted"]);
        w.deny_unknown(&accepted)?;
        let mat_v = w.req("material", "a material name")?;
        let mi = material_of(ctx, materials, mat_v, &w.key("material"))?;
        out.materials_used
            .push((mi, mat_v.span(), w.key("material")));
        let (shape, sv) = one_shape(ctx, &w)?;
        let material = mi as u32;
        let mut made: Vec<Wall> = Vec::new();
        match shape {
            "mesh" => {
                mesh_wall(
                    ctx,
                    &w,
                    sv,
                    material,
                    (domain, inserts),
                    particles,
                    &mut out,
                )?;
                continue;
            }
            "box" => made.extend(box_planes(ctx, &w, sv, material)?),
            _ => made.push(analytic(ctx, &w, (shape, sv), material)?),
        }
        if let Some(c) = w.get("conveyor") {
            return Err(ctx.err(
                &c.span(),
                &w.key("conveyor"),
                "a conveyor is a mesh wall's surface velocity; give it to a `mesh` wall",
            ));
        }
        if let Some(sv) = w.get("servo") {
            let mut servo = read_servo(ctx, &w, sv, shape)?;
            servo.wall = out.walls.len();
            for m in &mut made {
                m.velocity = servo.initial_velocity(m);
                m.steered = 1;
            }
            out.servos.push(servo);
        }
        if let Some(sv) = w.get("scripted") {
            if ctx.boolean(sv, &w.key("scripted"))? {
                if let Some(other) = ["motion", "servo"].into_iter().find(|k| w.get(k).is_some()) {
                    return Err(ctx.err(
                        &w.key_span(other),
                        &w.key(other),
                        "a scripted wall is moved by its script alone; give it `motion` or \
                         `servo`, or `scripted = true`, one of them",
                    ));
                }
                // At rest until a script (Python's `set_wall_velocity`) gives it a velocity:
                // the wall's motion passes run for it from the start, as for a servo's wall.
                for m in &mut made {
                    m.steered = 1;
                }
            }
        }
        if let Some(mv) = w.get("motion") {
            let motion = read_motion(ctx, &w, mv, false)?;
            // A box turns as one, about its centre: the mean of its faces' points.
            let mean = [0, 1, 2]
                .map(|k| made.iter().map(|m| m.point[k] as f64).sum::<f64>() / made.len() as f64);
            for m in &mut made {
                motion.apply(m, mean);
            }
        }
        for m in made {
            out.sources.push((w.span.clone(), w.path.clone()));
            out.walls.push(m);
        }
    }
    Ok(out)
}

/// The block's one shape: its key and value.
fn one_shape<'a, 'i>(
    ctx: &Ctx<'_>,
    w: &Table<'a, 'i>,
) -> Result<(&'static str, &'a Value<'i>), SceneError> {
    let all = shapes();
    let shapes: Vec<&'static str> = all.iter().copied().filter(|k| w.get(k).is_some()).collect();
    if shapes.len() != 1 {
        let (span, key) = match shapes.get(1) {
            Some(k) => (w.key_span(k), w.key(k)),
            None => (w.span.clone(), w.key("plane")),
        };
        let usage: Vec<String> = all.iter().map(|s| shape_usage(s)).collect();
        let (last, rest) = usage.split_last().expect("the shape list is never empty");
        return Err(ctx.err(
            &span,
            &key,
            format!(
                "expected exactly one wall shape: {} or {last}; found {}",
                rest.join(", "),
                if shapes.is_empty() {
                    "none".to_string()
                } else {
                    shapes.join(" and ")
                }
            ),
        ));
    }
    let shape = shapes[0];
    match w.get(shape) {
        Some(v) => Ok((shape, v)),
        None => Err(ctx.err(&w.span, &w.key(shape), "missing the wall shape")),
    }
}

/// A non-zero vector at key `k` of `t`, normalised.
pub(crate) fn unit_vector(
    ctx: &Ctx<'_>,
    t: &Table<'_, '_>,
    k: &str,
    what: &str,
) -> Result<[f64; 3], SceneError> {
    let nv = t.req(k, what)?;
    let n = ctx.vec3(nv, &t.key(k), "unit vector")?;
    let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    if len.is_nan() || len <= 1e-12 || !len.is_finite() {
        return Err(ctx.err(
            &nv.span(),
            &t.key(k),
            format!("expected a non-zero vector: {what}"),
        ));
    }
    Ok(n.map(|x| x / len))
}

fn f32s(v: [f64; 3]) -> [f32; 3] {
    v.map(|x| x as f32)
}

/// `mesh = { file, scale, translate, rotate }`: the triangles become fixed particles after
/// every other particle, split to the size of the largest particle, of those placed and those
/// `inserts` will place (grains_core::mesh_walls). A mesh larger than the domain by orders of
/// magnitude is refused as a unit slip. The mesh is one body, which moves with the block's
/// `motion` (about `center`, by default the middle of the mesh's bounding box) and carries
/// particles along its surface with `conveyor`.
fn mesh_wall(
    ctx: &Ctx<'_>,
    w: &Table<'_, '_>,
    mv: &Value<'_>,
    material: u32,
    (domain, inserts): (&Domain, &[InsertBlock]),
    particles: &mut Particles,
    out: &mut Walls,
) -> Result<(), SceneError> {
    let t = ctx.table(
        mv,
        &w.key("mesh"),
        "a table { file = \"floor.stl\", scale, translate = [x, y, z], rotate = [w, x, y, z] }",
    )?;
    t.deny_unknown(&["file", "scale", "translate", "rotate"])?;
    t.req("file", "a path to a .obj or .stl file")?;
    let motion = w
        .get("motion")
        .map(|m| read_motion(ctx, w, m, true))
        .transpose()?;
    let conveyor = w
        .get("conveyor")
        .map(|c| ctx.vec3(c, &w.key("conveyor"), "m/s"))
        .transpose()?;
    let mesh = crate::mesh_file::wall_mesh(ctx, &t, domain)?;
    let first = *out.first_triangle.get_or_insert(particles.len());
    let largest = particles.pos[..first]
        .iter()
        .map(|p| p[3] as f64)
        .chain(
            inserts
                .iter()
                .flat_map(|b| b.insertion.radii.iter().map(|&r| r as f64)),
        )
        .fold(0.0, f64::max);
    let (lo, hi) = mesh.vertices.iter().fold(
        ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]),
        |(lo, hi), v| {
            (
                [0, 1, 2].map(|k| lo[k].min(v[k])),
                [0, 1, 2].map(|k| hi[k].max(v[k])),
            )
        },
    );
    let middle = [0, 1, 2].map(|k| 0.5 * (lo[k] + hi[k]));
    let center = motion.as_ref().and_then(|m| m.center).unwrap_or(middle);
    let meshes = &mut out.meshes;
    let body = meshes.add_body(center, material);
    if let Some(mut m) = motion {
        m.table_start = meshes.poses.len() as u32;
        meshes.poses.extend_from_slice(&m.table);
        m.apply(&mut meshes.bodies[body as usize], center);
    }
    if let Some(c) = conveyor {
        meshes.conveyor[body as usize] = [c[0] as f32, c[1] as f32, c[2] as f32, 0.0];
    }
    grains_core::mesh_walls::add_mesh_wall(
        particles,
        &mut out.triangles,
        meshes,
        body,
        &mesh,
        grains_core::mesh_walls::SIZE_FACTOR * largest,
    )
    .map_err(|e| ctx.err(&mv.span(), &w.key("mesh"), e.to_string()))?;
    Ok(())
}

/// `box = { min, max }`: six planes facing inwards, a pair per axis.
fn box_planes(
    ctx: &Ctx<'_>,
    w: &Table<'_, '_>,
    v: &Value<'_>,
    material: u32,
) -> Result<Vec<Wall>, SceneError> {
    let (lo, hi) = box_table(ctx, v, &w.key("box"))?;
    let mut planes = Vec::with_capacity(6);
    for k in 0..3 {
        let mut n = [0.0; 3];
        n[k] = 1.0;
        planes.push(Wall::plane(f32s(lo), f32s(n), material));
        n[k] = -1.0;
        planes.push(Wall::plane(f32s(hi), f32s(n), material));
    }
    Ok(planes)
}

/// An analytic wall of kind `shape`: its table read by its module ([`WallKind::read`]).
fn analytic(
    ctx: &Ctx<'_>,
    w: &Table<'_, '_>,
    (shape, v): (&str, &Value<'_>),
    material: u32,
) -> Result<Wall, SceneError> {
    let Some(kind) = kind_of(shape) else {
        return Err(ctx.err(&v.span(), &w.key(shape), "not an analytic wall shape"));
    };
    let keys = kind.keys();
    let t = ctx.table(
        v,
        &w.key(shape),
        &format!("a table {{ {} }}", keys.join(", ")),
    )?;
    t.deny_unknown(keys)?;
    kind.read(&SlotKeys { t: &t }, material)
}

/// `servo = { stress, area | force, gain, max_speed, every }` on a plane wall: the wall moves
/// along its normal to hold the load ([`grains_core::servo`]). Its `wall` is set by the caller.
fn read_servo(
    ctx: &Ctx<'_>,
    w: &Table<'_, '_>,
    sv: &Value<'_>,
    shape: &str,
) -> Result<Servo, SceneError> {
    let usage =
        "a table { stress, area, gain, max_speed, every } or { force, gain, max_speed, every }";
    let t = ctx.table(sv, &w.key("servo"), usage)?;
    t.deny_unknown(&["stress", "area", "force", "gain", "max_speed", "every"])?;
    if shape != "plane" {
        return Err(ctx.err(
            &sv.span(),
            &w.key("servo"),
            format!("a servo moves a plane wall along its normal; this wall is a {shape}"),
        ));
    }
    if let Some(m) = w.get("motion") {
        return Err(ctx.err(
            &m.span(),
            &w.key("motion"),
            "a servo wall's motion is its servo's: give `servo` or `motion`, not both",
        ));
    }
    let target =
        match (t.get("stress"), t.get("force")) {
            (Some(s), None) => {
                let stress = ctx.number(
                    s,
                    &t.key("stress"),
                    "a stress (Pa), negative in compression",
                )?;
                let av = t.req("area", "the area the stress acts on (m^2), with `stress`")?;
                stress * ctx.positive(av, &t.key("area"), "m^2")?
            }
            (None, Some(f)) => {
                ctx.number(f, &t.key("force"), "a force (N), negative in compression")?
            }
            (Some(_), Some(f)) => {
                return Err(ctx.err(
                    &f.span(),
                    &t.key("force"),
                    "give `stress` (with `area`) or `force`, not both",
                ))
            }
            (None, None) => return Err(ctx.err(
                &t.span,
                &t.key("stress"),
                "a servo needs `stress` (Pa, with `area`) or `force` (N), negative in compression",
            )),
        };
    let gv = t.req("gain", "the velocity per newton of error (m/s/N)")?;
    let gain = ctx.number(gv, &t.key("gain"), "m/s/N")?;
    if gain.is_nan() || gain <= 0.0 {
        return Err(ctx.err(
            &gv.span(),
            &t.key("gain"),
            format!(
                "expected a positive gain (m/s/N), found {gain}: a servo without gain never moves"
            ),
        ));
    }
    let mv = t.req("max_speed", "the fastest the wall may move (m/s)")?;
    let max_speed = ctx.positive(mv, &t.key("max_speed"), "m/s")?;
    let every = t
        .get("every")
        .map(|v| ctx.integer(v, &t.key("every"), 1))
        .transpose()?
        .unwrap_or(10);
    Ok(Servo {
        wall: 0,
        target,
        gain,
        max_speed,
        every,
    })
}

/// A wall's `motion` as read: velocity and spin about a centre between start and stop, or a
/// table of poses.
struct Motion {
    velocity: [f64; 3],
    omega: [f64; 3],
    center: Option<[f64; 3]>,
    start: f64,
    stop: f64,
    /// The table's rows (`t, dx, dy, dz, rx, ry, rz, 0`), empty for none, and where they go
    /// in the world's table of poses.
    table: Vec<[f32; 8]>,
    table_start: u32,
}

impl Motion {
    /// Give wall (or body) `m` this motion, about `center` unless the motion names one.
    fn apply(&self, m: &mut Wall, center: [f64; 3]) {
        m.velocity = f32s(self.velocity);
        m.omega = f32s(self.omega);
        m.center = f32s(self.center.unwrap_or(center));
        m.start = self.start as f32;
        m.stop = self.stop as f32;
        m.table_start = self.table_start;
        m.table_rows = self.table.len() as u32;
    }
}

/// Read `motion = { velocity, angular_velocity, center, start, stop }`, or, for a mesh wall
/// (`mesh`), `motion = { table = "poses.csv", center }`.
fn read_motion(
    ctx: &Ctx<'_>,
    w: &Table<'_, '_>,
    mv: &Value<'_>,
    mesh: bool,
) -> Result<Motion, SceneError> {
    let t = ctx.table(
        mv,
        &w.key("motion"),
        "a table { velocity, angular_velocity, center, start, stop }",
    )?;
    t.deny_unknown(&[
        "velocity",
        "angular_velocity",
        "center",
        "start",
        "stop",
        "table",
    ])?;
    let center = t
        .get("center")
        .map(|v| ctx.vec3(v, &t.key("center"), "m"))
        .transpose()?;
    if let Some(tv) = t.get("table") {
        if !mesh {
            return Err(ctx.err(
                &tv.span(),
                &t.key("table"),
                "a table of poses moves a mesh wall; give a plane, box, cylinder, disk or cone \
                 `velocity`, `angular_velocity`, `start` and `stop`",
            ));
        }
        for k in ["velocity", "angular_velocity", "start", "stop"] {
            if t.get(k).is_some() {
                return Err(ctx.err(
                    &t.key_span(k),
                    &t.key(k),
                    "a motion by table takes its velocities and times from the table: give \
                     `table` and `center` only",
                ));
            }
        }
        let table = crate::motion_table::read(ctx, tv, &t.key("table"))?;
        return Ok(Motion {
            velocity: [0.0; 3],
            omega: [0.0; 3],
            center,
            start: 0.0,
            stop: f64::INFINITY,
            table,
            table_start: 0,
        });
    }
    if t.get("velocity").is_none() && t.get("angular_velocity").is_none() {
        return Err(ctx.err(&t.span, &t.key("velocity"), "a motion needs `velocity = [vx, vy, vz]` (m/s), `angular_velocity = [wx, wy, wz]` (rad/s), or both"));
    }
    let velocity = t
        .get("velocity")
        .map(|v| ctx.vec3(v, &t.key("velocity"), "m/s"))
        .transpose()?
        .unwrap_or([0.0; 3]);
    let omega = t
        .get("angular_velocity")
        .map(|v| ctx.vec3(v, &t.key("angular_velocity"), "rad/s"))
        .transpose()?
        .unwrap_or([0.0; 3]);
    let start = t
        .get("start")
        .map(|v| ctx.non_negative(v, &t.key("start"), "s"))
        .transpose()?
        .unwrap_or(0.0);
    let stop = t
        .get("stop")
        .map(|v| ctx.positive(v, &t.key("stop"), "s"))
        .transpose()?
        .unwrap_or(f64::INFINITY);
    if stop <= start {
        let sv = t.get("stop").map(|v| v.span()).unwrap_or(t.span.clone());
        return Err(ctx.err(
            &sv,
            &t.key("stop"),
            format!(
                "the motion stops at {} before it starts at {}",
                qty(stop, "s"),
                qty(start, "s")
            ),
        ));
    }
    Ok(Motion {
        velocity,
        omega,
        center,
        start,
        stop,
        table: Vec::new(),
        table_start: 0,
    })
}
