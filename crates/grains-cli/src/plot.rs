//! `grains plot KIND OUTDIR`: figures of a run's output folder, drawn by [`grains_plot`].

use std::path::PathBuf;

use anyhow::Result;
use clap::{Args, ValueEnum};
use grains_plot::Kind;

/// What `grains plot` draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum KindArg {
    /// The energy ledger's columns against time, and its total's relative drift
    /// (`energy.csv`).
    Energy,
    /// The force on each wall, components and magnitude, against time (`walls.csv`).
    Walls,
    /// The number of contacts and their mean and largest normal force per output step
    /// (`contacts.csv`).
    Contacts,
    /// Tables of `grains post` (`post/*.csv`): the first column on x, the others as lines.
    Post,
}

impl From<KindArg> for Kind {
    fn from(k: KindArg) -> Kind {
        match k {
            KindArg::Energy => Kind::Energy,
            KindArg::Walls => Kind::Walls,
            KindArg::Contacts => Kind::Contacts,
            KindArg::Post => Kind::Post,
        }
    }
}

/// Arguments of `grains plot`.
#[derive(Args, Debug, Clone)]
pub struct PlotArgs {
    /// What to plot.
    #[arg(value_enum)]
    pub kind: KindArg,
    /// The run's output folder.
    #[arg(value_name = "OUTDIR")]
    pub outdir: PathBuf,
    /// Folder the figures and their tables go to (default: OUTDIR).
    #[arg(long = "out", value_name = "DIR")]
    pub dest: Option<PathBuf>,
    /// The CSV to read instead of the kind's file in OUTDIR (for `post`, one table instead of
    /// every `post/*.csv`).
    #[arg(long, value_name = "CSV")]
    pub file: Option<PathBuf>,
}

/// Draw the figures; the files written.
pub fn plot(args: &PlotArgs) -> Result<Vec<PathBuf>> {
    let dest = args.dest.as_ref().unwrap_or(&args.outdir);
    Ok(grains_plot::plot(
        args.kind.into(),
        &args.outdir,
        dest,
        args.file.as_deref(),
    )?)
}
