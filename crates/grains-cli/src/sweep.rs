//! `grains sweep`: one scene run once per row of a table of overrides, as calibrations and
//! parameter studies do (Yade's and Woo's batch tools). Each column of the table is a key path
//! of the scene (`material.glass.young`, `interaction[0].tangential.friction`), each row a set
//! of `--set PATH=VALUE` overrides ([`grains_scene::overrides`]). Row `k` runs into
//! `OUT/row_<k>`, and `OUT/sweep.csv` gets a summary line per run as it ends. Every row is
//! checked (its scene read with its overrides) before any runs, so a bad table writes nothing.
//! `--slurm` writes a job-array script instead, one task a row, each task `grains sweep ...
//! --row K`.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;
use grains_scene::overrides::Override;

use crate::run::{run, RunArgs, RunReport};
use crate::BackendArg;

/// Arguments of `grains sweep`.
#[derive(Args, Debug, Clone)]
pub struct SweepArgs {
    /// Scene file (TOML).
    pub scene: PathBuf,
    /// The table: a CSV file whose header names key paths of the scene and whose every row
    /// gives their values (TOML values; quote a field holding commas, as CSV does).
    #[arg(long)]
    pub table: PathBuf,
    /// Where the runs go: `OUT/row_<k>` each, `OUT/sweep.csv` the summary (default: the
    /// scene's output directory with `_sweep` appended).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Run row K alone (a job-array task), its summary in `OUT/row_<K>/summary.csv`.
    #[arg(long)]
    pub row: Option<usize>,
    /// Write `OUT/sweep.slurm`, a Slurm job array of one task a row, instead of running.
    #[arg(long)]
    pub slurm: bool,
    /// The backend of every run.
    #[arg(long, value_enum)]
    pub backend: Option<BackendArg>,
    /// No progress bars or summaries of the runs.
    #[arg(long, short)]
    pub quiet: bool,
    /// The GPU adapter every run's GPU backend takes (its number in `grains info`'s list, or a
    /// part of its name).
    #[arg(long, value_name = "N|NAME")]
    pub adapter: Option<grains_gpu::AdapterChoice>,
    /// Spread the rows over the GPU adapters: row k on adapter k mod their count (a node's
    /// GPUs shared by its array tasks, or by the rows run here).
    #[arg(long, conflicts_with = "adapter")]
    pub per_adapter: bool,
    /// Add each run's figure of a `grains post` analysis (with its defaults) to its summary
    /// line, a column `post_<analysis>`; may be given several times.
    #[arg(long = "post", value_enum)]
    pub post: Vec<crate::post::Analysis>,
}

/// The table: its columns' paths and its rows' values, each with its line in the file.
#[derive(Clone, Debug)]
pub struct Table {
    pub paths: Vec<String>,
    pub rows: Vec<(usize, Vec<String>)>,
}

/// One CSV line's fields: commas split fields except inside double quotes, `""` in a quoted
/// field is a quote.
fn fields(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut field)),
            c => field.push(c),
        }
    }
    out.push(field);
    out.into_iter().map(|f| f.trim().to_string()).collect()
}

/// Read the table at `path`: a header of key paths and rows of as many values.
pub fn read_table(path: &Path) -> Result<Table> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the sweep table {}", path.display()))?;
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    let Some((_, header)) = lines.next() else {
        bail!(
            "{}: the sweep table is empty; its first line names the key paths",
            path.display()
        );
    };
    let paths = fields(header);
    if let Some(k) = paths.iter().position(|p| p.is_empty()) {
        bail!("{}:1: column {} has no key path", path.display(), k + 1);
    }
    let mut rows = Vec::new();
    for (n, line) in lines {
        let values = fields(line);
        if values.len() != paths.len() {
            bail!(
                "{}:{n}: {} values for {} columns ({})",
                path.display(),
                values.len(),
                paths.len(),
                paths.join(", ")
            );
        }
        rows.push((n, values));
    }
    if rows.is_empty() {
        bail!(
            "{}: the sweep table has a header and no rows",
            path.display()
        );
    }
    Ok(Table { paths, rows })
}

impl Table {
    /// Row `k`'s overrides.
    pub fn overrides(&self, k: usize) -> Vec<Override> {
        self.paths
            .iter()
            .zip(&self.rows[k].1)
            .map(|(p, v)| Override {
                path: p.clone(),
                value: v.clone(),
            })
            .collect()
    }
}

/// The folder of row `k`.
fn row_dir(out: &Path, k: usize) -> PathBuf {
    out.join(format!("row_{k:04}"))
}

/// The summary header: the row, its values, then what its run reports and its figures of
/// `post`.
fn summary_header(t: &Table, post: &[crate::post::Analysis]) -> String {
    let mut h = vec!["row".to_string()];
    h.extend(t.paths.iter().map(|p| csv_field(p)));
    h.extend(
        [
            "steps",
            "end_time",
            "seconds",
            "particle_steps_per_s",
            "ledger_drift",
            "status",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    h.extend(post.iter().map(|a| format!("post_{}", a.name())));
    h.join(",")
}

/// Row `k`'s figures of the analyses `post` on its run's output (empty where it gives none or
/// the run failed; a failed analysis is said in its field).
fn post_figures(post: &[crate::post::Analysis], dir: &Path, ran: bool) -> Vec<String> {
    post.iter()
        .map(|&a| {
            if !ran {
                return String::new();
            }
            match crate::post::headline(&crate::post::PostArgs::of(a, dir.to_path_buf())) {
                Ok(Some(x)) => format!("{x:e}"),
                Ok(None) => String::new(),
                Err(e) => csv_field(&format!("failed: {e:#}")),
            }
        })
        .collect()
}

/// A CSV field, quoted where it holds a comma or a quote.
fn csv_field(s: &str) -> String {
    if s.contains(',') || s.contains('"') {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Row `k`'s summary line from its run's outcome.
fn summary_line(t: &Table, k: usize, dt: f64, outcome: &Result<RunReport>) -> String {
    let mut f = vec![k.to_string()];
    f.extend(t.rows[k].1.iter().map(|v| csv_field(v)));
    match outcome {
        Ok(r) => f.extend([
            r.steps.to_string(),
            format!("{:e}", r.steps as f64 * dt),
            format!("{:.3}", r.seconds),
            format!(
                "{:e}",
                r.particles as f64 * r.steps as f64 / r.seconds.max(1e-9)
            ),
            r.energy_drift.map(|d| format!("{d:e}")).unwrap_or_default(),
            "ok".into(),
        ]),
        Err(e) => {
            f.extend(std::iter::repeat_n(String::new(), 5));
            f.push(csv_field(&format!("failed: {e:#}")));
        }
    }
    f.join(",")
}

/// Run `grains sweep`.
pub fn sweep(args: &SweepArgs) -> Result<()> {
    let table = read_table(&args.table)?;
    // Every row's scene is read before anything runs or is written.
    let mut dts = Vec::new();
    for k in 0..table.rows.len() {
        let scene = grains_scene::load_scene_with(&args.scene, None, &table.overrides(k))
            .with_context(|| format!("{}:{}: row {k}", args.table.display(), table.rows[k].0))?;
        dts.push(scene.world.dt);
    }
    let out = match &args.out {
        Some(o) => o.clone(),
        None => {
            let scene = grains_scene::load_scene(&args.scene)?;
            let mut dir = scene.output.dir.into_os_string();
            dir.push("_sweep");
            PathBuf::from(dir)
        }
    };
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    if args.slurm {
        return write_slurm(args, &table, &out);
    }
    let rows: Vec<usize> = match args.row {
        Some(k) if k < table.rows.len() => vec![k],
        Some(k) => bail!(
            "--row {k}: the table has {} rows (0 to {})",
            table.rows.len(),
            table.rows.len() - 1
        ),
        None => (0..table.rows.len()).collect(),
    };
    let summary = match args.row {
        Some(k) => row_dir(&out, k).join("summary.csv"),
        None => out.join("sweep.csv"),
    };
    let mut lines = vec![summary_header(&table, &args.post)];
    for k in rows {
        if !args.quiet {
            eprintln!("sweep: row {k} of {}", table.rows.len());
        }
        let outcome = run(&RunArgs {
            scene: args.scene.clone(),
            backend: args.backend,
            out: Some(row_dir(&out, k)),
            quiet: args.quiet,
            sets: table.overrides(k),
            adapter: adapter_of(args, k)?,
            ..Default::default()
        });
        let mut line = summary_line(&table, k, dts[k], &outcome);
        for f in post_figures(&args.post, &row_dir(&out, k), outcome.is_ok()) {
            line.push(',');
            line.push_str(&f);
        }
        lines.push(line);
        // Written after every run, so that the rows done survive a later one's failure.
        std::fs::create_dir_all(summary.parent().unwrap_or(&out))?;
        std::fs::write(&summary, lines.join("\n") + "\n")
            .with_context(|| format!("cannot write {}", summary.display()))?;
    }
    Ok(())
}

/// The adapter of row `k`: `--adapter`'s, or with `--per-adapter` the k-th modulo their count.
fn adapter_of(args: &SweepArgs, k: usize) -> Result<Option<grains_gpu::AdapterChoice>> {
    if !args.per_adapter {
        return Ok(args.adapter.clone());
    }
    let n = grains_gpu::list_adapters().len();
    if n == 0 {
        bail!("--per-adapter: wgpu sees no GPU adapter (`grains info` lists them)");
    }
    Ok(Some(grains_gpu::AdapterChoice::Index(k % n)))
}

/// `OUT/sweep.slurm`: a job array of one task a row, each `grains sweep ... --row K`.
fn write_slurm(args: &SweepArgs, table: &Table, out: &Path) -> Result<()> {
    let abs = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let quote = |p: &Path| format!("'{}'", abs(p).display().to_string().replace('\'', "'\\''"));
    let mut cmd = format!(
        "grains sweep {} --table {} --out {} --row \"$SLURM_ARRAY_TASK_ID\" --quiet",
        quote(&args.scene),
        quote(&args.table),
        quote(out)
    );
    if let Some(b) = args.backend {
        use clap::ValueEnum;
        if let Some(v) = b.to_possible_value() {
            cmd.push_str(&format!(" --backend {}", v.get_name()));
        }
    }
    if let Some(a) = &args.adapter {
        cmd.push_str(&format!(" --adapter '{a}'"));
    }
    if args.per_adapter {
        cmd.push_str(" --per-adapter");
    }
    for a in &args.post {
        cmd.push_str(&format!(" --post {}", a.name()));
    }
    let script = format!(
        "#!/usr/bin/env bash\n\
         # grains sweep of {} over {} ({} rows): one task a row; each writes\n\
         # row_<K>/summary.csv beside its run.\n\
         #SBATCH --job-name=grains-sweep\n\
         #SBATCH --array=0-{}\n\
         #SBATCH --output={}/row_%a.log\n\
         set -euo pipefail\n\
         {cmd}\n",
        args.scene.display(),
        args.table.display(),
        table.rows.len(),
        table.rows.len() - 1,
        abs(out).display(),
    );
    let path = out.join("sweep.slurm");
    std::fs::write(&path, script).with_context(|| format!("cannot write {}", path.display()))?;
    eprintln!(
        "wrote {} ({} tasks); submit it with sbatch",
        path.display(),
        table.rows.len()
    );
    Ok(())
}
