//! The implicit solve's passes (shaders/passes/solve_*.wgsl) against their CPU twins
//! (grains-core's kernels/passes/solve_*.rs) on seeded random inputs: the list, the pairs'
//! blocks and the forces of a seeded random overdamped bed as the GPU backend holds them after
//! some steps, and vectors and scalars drawn at random over four decades.

use super::*;
use grains_core::kernel_types::{MatBlock, SolveParams, StepParams, SymBlock};
use grains_core::kernels::passes::solve_assemble::AssembleView;
use grains_core::kernels::passes::{
    solve_apply, solve_assemble, solve_book, solve_direction, solve_finish, solve_start,
    solve_update,
};
use grains_core::kernels::solve::{workgroup_partials, SolveView};
use grains_core::parity::SplitMix;

/// A bed of jittered spheres on a floor, beside a wall moving into it, some of them bonded
/// with a resistance and one held, in dynamics `mode`.
fn bed(mode: &str) -> World {
    let text = format!(
        "[simulation]\nsteps = 1\ngravity = [0.0, 0.0, -9.81]\ndynamics = \"{mode}\"\n\n\
         [domain]\nmin = [-0.1, -0.1, -0.1]\nmax = [0.1, 0.1, 0.1]\n\n\
         [[material]]\nname = \"cell\"\ndensity = 1000.0\nyoung = 1.0e4\npoisson = 0.3\n\
         substrate_friction = 2.0e-4\nsubstrate_rotational_friction = 1.0e-6\n\n\
         [[particles]]\nmaterial = \"cell\"\nradius = 0.001\n\
         lattice = {{ origin = [-0.004, -0.004, 0.0011], spacing = 0.00195, count = [5, 5, 3], jitter = 0.05, seed = 11 }}\n\n\
         [[particles]]\nmaterial = \"cell\"\nradius = 0.001\npositions = [[0.0, 0.0, 0.009]]\nfixed = [true]\n\n\
         [[wall]]\nmaterial = \"cell\"\nplane = {{ point = [0.0, 0.0, 0.0], normal = [0.0, 0.0, 1.0] }}\n\n\
         [[wall]]\nmaterial = \"cell\"\nplane = {{ point = [0.0049, 0.0, 0.0], normal = [-1.0, 0.0, 0.0] }}\n\
         motion = {{ velocity = [-1.0e-3, 0.0, 0.0] }}\n\n\
         [[interaction]]\nbetween = [\"cell\", \"cell\"]\nnormal = {{ law = \"hertz\" }}\n\
         resistance = {{ law = \"constant_resistance\", normal = 1e-4, tangential = 5e-5 }}\n\n\
         [[bond]]\npairs = [[0, 1], [1, 2], [5, 6], [30, 31]]\n\
         normal = {{ law = \"spring\", stiffness = 0.5 }}\n\
         resistance = {{ law = \"constant_resistance\", normal = 2e-4 }}\n"
    );
    grains_tests::test_world(&text)
}

/// What the backend holds, read back.
struct Held {
    n: usize,
    step: StepParams,
    params: SolveParams,
    u32s: BTreeMap<&'static str, Vec<u32>>,
    vec4s: BTreeMap<&'static str, Vec<[f32; 4]>>,
    f32s: BTreeMap<&'static str, Vec<f32>>,
    walls: Vec<grains_core::kernel_types::Wall>,
    fixed_pairs: Vec<[u32; 2]>,
    edge_nodes: Vec<[u32; 4]>,
    shell_viscosity: Vec<f32>,
    mat_block: Vec<MatBlock>,
    mat_fixed: Vec<MatBlock>,
}

fn held(g: &GpuBackend, world: &World) -> Held {
    let n = world.particles.len();
    let nf = world.fixed_pairs.len().max(1);
    let read_u32 = |name: &str, count: usize| -> Vec<u32> {
        g.read_buffer(name, count)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    let pair_start = read_u32("pair_start", n + 1);
    let records = pair_start[n] as usize;
    let nbr_start = read_u32("nbr_start", n + 1);
    let heads = nbr_start[n] as usize - records;
    let mut u32s = BTreeMap::new();
    let nm = world.materials.len();
    let nw = world.walls.len();
    for (name, count) in [
        ("pair_j", records.max(1)),
        ("nbr_slot", records.max(1)),
        ("head_pair", heads.max(1)),
        ("material", n),
        ("fixed_start", n + 1),
        ("fixed_entry", 2 * nf),
        ("sphere_chain", nm * nm),
        ("wall_chain", 8 * nm * nm),
        ("fixed_chain", nm * nm),
        ("matrix_offset", world.table.chains.len()),
        ("shell_start", n + 1),
        ("shell_entry", 1),
    ] {
        u32s.insert(name, read_u32(name, count));
    }
    u32s.insert("pair_start", pair_start);
    u32s.insert("nbr_start", nbr_start);
    let mut vec4s = BTreeMap::new();
    for name in ["pos", "vel", "omega", "force", "torque", "dissipated"] {
        vec4s.insert(name, g.read_buffer(name, n).expect(name));
    }
    vec4s.insert(
        "material_drag",
        g.read_buffer("material_drag", nm).expect("drag"),
    );
    let mut f32s = BTreeMap::new();
    let words = world.table.nbr_history_words;
    f32s.insert(
        "history",
        g.read_buffer("history", g.slot_capacity() as usize * words)
            .expect("history"),
    );
    let fstride = world.table.fixed_history_stride;
    f32s.insert(
        "fixed_history",
        g.read_buffer("fixed_history", nf * fstride).expect("fixed"),
    );
    Held {
        n,
        step: g.read_buffer::<StepParams>("step", 1).expect("step")[0],
        params: g
            .read_buffer::<SolveParams>("solve_params", 1)
            .expect("params")[0],
        u32s,
        vec4s,
        f32s,
        walls: g.read_buffer("walls", nw).expect("walls"),
        fixed_pairs: g.read_buffer("fixed_pairs", nf).expect("fixed pairs"),
        edge_nodes: g.read_buffer("edge_nodes", 1).expect("edges"),
        shell_viscosity: g.read_buffer("shell_viscosity", 1).expect("viscosity"),
        mat_block: g
            .read_buffer("mat_block", records.max(1))
            .expect("mat_block"),
        mat_fixed: g.read_buffer("mat_fixed", nf).expect("mat_fixed"),
    }
}

/// Run pass `stem` over `items` invocations with every array of `bufs` it binds; read back
/// `outs`.
fn run_pass(
    ctx: &GpuContext,
    stem: &str,
    bufs: &BTreeMap<&str, Vec<u8>>,
    outs: &[&str],
    items: usize,
) -> Vec<Vec<u8>> {
    let src = grains_shaders::compose_pass(stem).unwrap_or_else(|e| panic!("{e}"));
    let list: Vec<(&str, &[u8])> = bufs.iter().map(|(k, v)| (*k, v.as_slice())).collect();
    grains_gpu::kernel::run_once(
        ctx,
        stem,
        &src,
        stem,
        &list,
        outs,
        items.div_ceil(64) as u32,
    )
    .unwrap_or_else(|e| panic!("{stem}: {e}"))
}

fn bytes<T: bytemuck::Pod>(v: &[T]) -> Vec<u8> {
    bytemuck::cast_slice(v).to_vec()
}

fn pod<T: bytemuck::Pod>(b: &[u8]) -> Vec<T> {
    bytemuck::pod_collect_to_vec(b)
}

/// `|gpu - twin| <= tol` of the largest magnitude in `twin`, component by component: a row of
/// the operator sums up to a few dozen f32 products, which a driver may reorder or fuse, each
/// moving it by an ulp of its largest term; 1e-5 of the array's largest entry bounds that.
fn close(what: &str, gpu: &[[f32; 4]], twin: &[[f32; 4]], tol: f32) {
    assert_eq!(gpu.len(), twin.len(), "{what}: lengths");
    let scale = twin
        .iter()
        .flat_map(|v| v.iter())
        .fold(0.0f32, |m, x| m.max(x.abs()));
    for (i, (g, t)) in gpu.iter().zip(twin).enumerate() {
        for k in 0..4 {
            assert!(
                (g[k] - t[k]).abs() <= tol * scale,
                "{what} #{i}: gpu {g:?} twin {t:?} (scale {scale:e})"
            );
        }
    }
}

/// Random vectors over four decades, one per particle.
fn random_vec4s(rng: &mut SplitMix, n: usize) -> Vec<[f32; 4]> {
    (0..n)
        .map(|_| {
            let s = 10f64.powf(rng.range(-2.0, 2.0));
            let mut c = || (rng.range(-1.0, 1.0) * s) as f32;
            [c(), c(), c(), 0.0]
        })
        .collect()
}

/// Every pass of the GPU solve against its twin, in each implicit mode, on the arrays of a bed
/// the GPU backend has stepped and on random vectors: the assembly exactly (it copies), the
/// others to 1e-5 of each array's largest entry ([`close`]).
#[test]
fn the_solve_passes_match_their_twins() {
    let Some(ctx) = gpu_context() else { return };
    // The static mode's matrix is the springs' stiffness alone: the shipped spring network,
    // every node held by its springs, rather than the bed's loose spheres.
    let network = grains_tests::workspace_root().join("scenes/spring_network.toml");
    let network = grains_scene::load_scene(&network)
        .unwrap_or_else(|e| panic!("{e}"))
        .world;
    let worlds = [
        ("overdamped", bed("overdamped"), 40),
        ("underdamped", bed("underdamped"), 40),
        ("static", network, 2),
    ];
    for (mode, world, steps) in worlds {
        let mut g = gpu(world.clone(), &ctx);
        g.run(steps);
        let h = held(&g, &world);
        let blocks = (h.mat_block.iter().chain(&h.mat_fixed))
            .filter(|b| b.partner != u32::MAX)
            .count();
        assert!(blocks > 10, "{mode}: {blocks} blocks only");
        solve_passes_against_twins(&ctx, &h, mode);
    }
}

fn solve_passes_against_twins(ctx: &GpuContext, h: &Held, mode: &str) {
    let mut rng = SplitMix(0x501E ^ mode.len() as u64);
    let mut bufs = pass_buffers(h);
    assembly_matches(ctx, h, &mut bufs, mode);
    // The start, on the backend's blocks and this step's forces, from random velocities (the
    // backend's are this step's solution, whose residual is all rounding).
    let vel: Vec<[f32; 4]> = random_vec4s(&mut rng, h.n)
        .into_iter()
        .zip(&h.vec4s["vel"])
        .map(|(r, v)| [r[0], r[1], r[2], v[3]])
        .collect();
    bufs.insert("vel", bytes(&vel));
    bufs.insert("mat_block", bytes(&h.mat_block));
    bufs.insert("mat_fixed", bytes(&h.mat_fixed));
    let base = solve_view(h, &vel);
    let pre = start_matches(ctx, h, &base, &mut bufs, mode);
    bufs.insert("solve_pre", bytes(&pre));
    let s = Stage {
        ctx,
        h,
        base: &base,
        mode,
    };
    s.iteration_matches(&mut rng, &pre, &mut bufs);
}

/// Every array the solve's passes bind, from what the backend held, the solve's own zeroed.
fn pass_buffers(h: &Held) -> BTreeMap<&'static str, Vec<u8>> {
    let n = h.n;
    let mut bufs: BTreeMap<&'static str, Vec<u8>> = BTreeMap::new();
    bufs.insert("step", bytes(std::slice::from_ref(&h.step)));
    bufs.insert("solve_params", bytes(std::slice::from_ref(&h.params)));
    for (k, v) in &h.u32s {
        bufs.insert(k, bytes(v));
    }
    for (k, v) in &h.vec4s {
        bufs.insert(k, bytes(v));
    }
    for (k, v) in &h.f32s {
        bufs.insert(k, bytes(v));
    }
    // An empty table still binds one element, as the backend's buffers do.
    let one_wall = [grains_core::kernel_types::Wall::default()];
    let walls = if h.walls.is_empty() {
        &one_wall[..]
    } else {
        &h.walls
    };
    bufs.insert("walls", bytes(walls));
    bufs.insert("fixed_pairs", bytes(&h.fixed_pairs));
    bufs.insert("edge_nodes", bytes(&h.edge_nodes));
    bufs.insert("shell_viscosity", bytes(&h.shell_viscosity));
    // What a pass declares but does not read is still bound: every array from the start.
    bufs.insert("solve", bytes(&[0.0f32; 4]));
    let zeros = vec![[0.0f32; 4]; n];
    for k in ["solve_x", "solve_r", "solve_p", "solve_q"] {
        bufs.insert(k, bytes(&zeros));
    }
    bufs.insert("solve_pre", bytes(&vec![SymBlock::default(); n]));
    bufs.insert("solve_partials", bytes(&vec![[0.0f32; 4]; n.div_ceil(64)]));
    bufs
}

/// The assembly, from a cleared block array, against its twin and the backend's own blocks:
/// a copy, so bit for bit.
fn assembly_matches(
    ctx: &GpuContext,
    h: &Held,
    bufs: &mut BTreeMap<&'static str, Vec<u8>>,
    mode: &str,
) {
    let (n, nf) = (h.n, h.step.n_fixed as usize);
    let u = |k: &str| h.u32s[k].as_slice();
    let blank = MatBlock {
        partner: 7,
        ..Default::default()
    };
    bufs.insert("mat_block", bytes(&vec![blank; h.mat_block.len()]));
    bufs.insert("mat_fixed", bytes(&vec![blank; h.mat_fixed.len()]));
    let outs = ["mat_block", "mat_fixed"];
    let out = run_pass(ctx, "solve_assemble", bufs, &outs, n.max(nf));
    let view = AssembleView {
        step: &h.step,
        params: &h.params,
        pair_start: u("pair_start"),
        pair_j: u("pair_j"),
        nbr_slot: u("nbr_slot"),
        history: &h.f32s["history"],
        material: u("material"),
        walls: &h.walls,
        sphere_chain: u("sphere_chain"),
        wall_chain: u("wall_chain"),
        fixed_chain: u("fixed_chain"),
        fixed_pairs: &h.fixed_pairs,
        fixed_history: &h.f32s["fixed_history"],
        matrix_offset: u("matrix_offset"),
    };
    let mut mat_block = vec![blank; h.mat_block.len()];
    let mut mat_fixed = vec![blank; h.mat_fixed.len()];
    for gid in 0..n.max(nf) {
        solve_assemble(gid, &view, &mut mat_block, &mut mat_fixed);
    }
    let records = u("pair_start")[n] as usize;
    let got: Vec<MatBlock> = pod(&out[0]);
    assert_eq!(got[..records], mat_block[..records], "{mode}: blocks");
    let got: Vec<MatBlock> = pod(&out[1]);
    assert_eq!(got[..nf], mat_fixed[..nf], "{mode}: fixed blocks");
    assert_eq!(
        mat_block[..records],
        h.mat_block[..records],
        "{mode}: backend's"
    );
    assert_eq!(
        mat_fixed[..nf],
        h.mat_fixed[..nf],
        "{mode}: backend's fixed"
    );
}

/// The walk's arrays as the backend held them, with velocities `vel`.
fn solve_view<'a>(h: &'a Held, vel: &'a [[f32; 4]]) -> SolveView<'a> {
    let u = |k: &str| h.u32s[k].as_slice();
    SolveView {
        step: &h.step,
        params: &h.params,
        pair_start: u("pair_start"),
        pair_j: u("pair_j"),
        nbr_start: u("nbr_start"),
        head_pair: u("head_pair"),
        mat_block: &h.mat_block,
        fixed_start: u("fixed_start"),
        fixed_entry: u("fixed_entry"),
        fixed_pairs: &h.fixed_pairs,
        mat_fixed: &h.mat_fixed,
        walls: &h.walls,
        pos: &h.vec4s["pos"],
        vel,
        solve_p: &[],
        solve_x: &[],
        shell_start: u("shell_start"),
        shell_entry: u("shell_entry"),
        edge_nodes: &h.edge_nodes,
        shell_viscosity: &h.shell_viscosity,
    }
}

/// `solve_start` against its twin; returns the twin's preconditioner.
fn start_matches(
    ctx: &GpuContext,
    h: &Held,
    base: &SolveView<'_>,
    bufs: &mut BTreeMap<&'static str, Vec<u8>>,
    mode: &str,
) -> Vec<SymBlock> {
    let n = h.n;
    let (material, drag) = (h.u32s["material"].as_slice(), &h.vec4s["material_drag"]);
    let outs = [
        "solve_x",
        "solve_r",
        "solve_p",
        "solve_pre",
        "solve_partials",
    ];
    let got = run_pass(ctx, "solve_start", bufs, &outs, n);
    let twin: Vec<_> = (0..n)
        .map(|i| solve_start(i, base, &h.vec4s["force"], material, drag))
        .collect();
    let pick = |f: fn(&solve_start::Started) -> [f32; 4]| twin.iter().map(f).collect::<Vec<_>>();
    let named = |what: &str| format!("{mode}: start {what}");
    close(&named("x"), &pod(&got[0]), &pick(|s| s.x), 1e-5);
    close(&named("r"), &pod(&got[1]), &pick(|s| s.r), 1e-5);
    close(&named("p"), &pod(&got[2]), &pick(|s| s.p), 1e-5);
    let pre: Vec<[f32; 4]> = twin.iter().flat_map(|s| [s.pre.p0, s.pre.p1]).collect();
    close(&named("P"), &pod(&got[3]), &pre, 1e-5);
    let sums: Vec<[f32; 4]> = twin.iter().map(|s| s.sums).collect();
    close(
        &named("sums"),
        &pod(&got[4]),
        &workgroup_partials(&sums),
        1e-5,
    );
    twin.iter().map(|s| s.pre).collect()
}

/// What the iteration's and the end's checks share.
struct Stage<'a> {
    ctx: &'a GpuContext,
    h: &'a Held,
    base: &'a SolveView<'a>,
    mode: &'a str,
}

impl Stage<'_> {
    fn close(&self, what: &str, gpu: &[u8], twin: &[[f32; 4]]) {
        close(&format!("{}: {what}", self.mode), &pod(gpu), twin, 1e-5);
    }

    /// An iteration's passes on random vectors and scalars, then the step's end from random
    /// solutions.
    fn iteration_matches(
        &self,
        rng: &mut SplitMix,
        pre: &[SymBlock],
        bufs: &mut BTreeMap<&'static str, Vec<u8>>,
    ) {
        let (h, n, ctx) = (self.h, self.h.n, self.ctx);
        let (material, drag) = (h.u32s["material"].as_slice(), &h.vec4s["material_drag"]);
        let p = random_vec4s(rng, n);
        bufs.insert("solve_p", bytes(&p));
        let got = run_pass(ctx, "solve_apply", bufs, &["solve_q", "solve_partials"], n);
        let with_p = SolveView {
            solve_p: &p,
            ..*self.base
        };
        let (q, sums): (Vec<_>, Vec<_>) = (0..n)
            .map(|i| solve_apply(i, &with_p, material, drag))
            .unzip();
        self.close("apply q", &got[0], &q);
        self.close("apply p.q", &got[1], &workgroup_partials(&sums));
        let (x, r, q) = (
            random_vec4s(rng, n),
            random_vec4s(rng, n),
            random_vec4s(rng, n),
        );
        let (alpha, beta) = (rng.range(0.1, 2.0) as f32, rng.range(0.1, 2.0) as f32);
        bufs.insert("solve_x", bytes(&x));
        bufs.insert("solve_r", bytes(&r));
        bufs.insert("solve_q", bytes(&q));
        bufs.insert("solve", bytes(&[alpha, beta, 0.0, 0.0]));
        let outs = ["solve_x", "solve_r", "solve_partials"];
        let got = run_pass(ctx, "solve_update", bufs, &outs, n);
        let (mut tx, mut tr) = (x.clone(), r.clone());
        let sums: Vec<[f32; 4]> = (0..n)
            .map(|i| solve_update(alpha, &mut tx[i], &mut tr[i], &p[i], &q[i], &pre[i]))
            .collect();
        self.close("update x", &got[0], &tx);
        self.close("update r", &got[1], &tr);
        self.close("update sums", &got[2], &workgroup_partials(&sums));
        let got = run_pass(ctx, "solve_direction", bufs, &["solve_p"], n);
        let mut tp = p.clone();
        for i in 0..n {
            solve_direction(beta, &r[i], &mut tp[i], &pre[i]);
        }
        self.close("direction", &got[0], &tp);
        self.end_matches(&x, &p, bufs);
    }

    /// `solve_book` and `solve_finish` from the solutions `x` (direction `p` bound beside).
    fn end_matches(&self, x: &[[f32; 4]], p: &[[f32; 4]], bufs: &BTreeMap<&'static str, Vec<u8>>) {
        let (h, n, ctx) = (self.h, self.h.n, self.ctx);
        let (material, drag) = (h.u32s["material"].as_slice(), &h.vec4s["material_drag"]);
        let v4 = |k: &str| h.vec4s[k].as_slice();
        let got = run_pass(ctx, "solve_book", bufs, &["dissipated"], n);
        let with_x = SolveView {
            solve_x: x,
            solve_p: p,
            ..*self.base
        };
        let mut dis = v4("dissipated").to_vec();
        for (i, d) in dis.iter_mut().enumerate() {
            solve_book(i, &with_x, v4("torque"), material, drag, d);
        }
        self.close("booked", &got[0], &dis);
        let got = run_pass(ctx, "solve_finish", bufs, &["vel", "omega"], n);
        let (mut vel, mut omega) = (self.base.vel.to_vec(), v4("omega").to_vec());
        for i in 0..n {
            let rot = drag[material[i] as usize][1];
            let (pos, t) = (&v4("pos")[i], &v4("torque")[i]);
            let (v, o) = (&mut vel[i], &mut omega[i]);
            solve_finish(&h.step, &h.params, v, o, pos, t, rot, &x[i]);
        }
        self.close("finish vel", &got[0], &vel);
        self.close("finish omega", &got[1], &omega);
    }
}

/// The overdamped bed (contacts with the floor and a moving wall, resistances, bonds, a held
/// sphere) on both backends, 1500 steps: the GPU's f32 solve against the CPU's f64 one. Each
/// stops at 1e-8 of its right-hand side, and the GPU's rounding leaves each step's velocities
/// about 1e-7 off relative to the CPU's; over the run that keeps the positions within 1e-4 of
/// a radius and the dissipated energy within 1e-4 of itself, and the iterations a solve takes
/// within a quarter.
#[test]
fn an_overdamped_bed_runs_alike_on_both_backends() {
    let Some(ctx) = gpu_context() else { return };
    let world = bed("overdamped");
    let (mut c, mut g) = (cpu(world.clone()), gpu(world, &ctx));
    c.run(1500);
    g.run(1500);
    let (sc, sg) = (c.snapshot().into_owned(), g.snapshot().into_owned());
    let (dpos, _) = max_diff4(&sc.pos, &sg.pos);
    assert!(dpos <= 1e-4 * 1e-3, "positions differ by {dpos:e} m");
    let (ec, eg) = (c.energy(), g.energy());
    assert!(ec.damping_dissipated > 0.0, "{ec:?}");
    let d = (ec.damping_dissipated - eg.damping_dissipated).abs();
    assert!(
        d <= 1e-4 * ec.damping_dissipated,
        "dissipated {:e} J on the CPU, {:e} J on the GPU",
        ec.damping_dissipated,
        eg.damping_dissipated
    );
    let (kc, kg) = (c.counters(), g.counters());
    assert_eq!((kc.solves, kg.solves), (1501, 1501));
    let (ic, ig) = (kc.solve_iterations as f64, kg.solve_iterations as f64);
    assert!(
        (ic - ig).abs() <= 0.25 * ic,
        "{ic} iterations on the CPU, {ig} on the GPU"
    );
    assert!(
        g.contacts().walls > 0 && g.contacts().pairs > 0,
        "{:?}",
        g.contacts()
    );
}

/// The GPU's overdamped bed gives the same bits run to run (its sums run in a fixed order, its
/// scalars are reduced by one workgroup), and resumed from its state halfway as in one go.
#[test]
fn an_overdamped_gpu_run_is_bitwise_repeatable_and_resumable() {
    let Some(ctx) = gpu_context() else { return };
    let world = bed("overdamped");
    let straight = || {
        let mut g = gpu(world.clone(), &ctx);
        g.run(600);
        g.snapshot().into_owned()
    };
    let (a, b) = (straight(), straight());
    assert_eq!(a.pos, b.pos, "positions of two runs");
    assert_eq!(a.vel, b.vel, "velocities of two runs");
    let mut first = gpu(world.clone(), &ctx);
    first.run(300);
    assert!(first.contacts().pairs > 0, "nothing touched yet");
    let state = first.state();
    let mut resumed = GpuBackend::from_state(world, &ctx, &state).unwrap_or_else(|e| panic!("{e}"));
    resumed.run(300);
    let r = resumed.snapshot().into_owned();
    assert_eq!(r.pos, a.pos, "positions after resuming");
    assert_eq!(r.vel, a.vel, "velocities after resuming");
}
