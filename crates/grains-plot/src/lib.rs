//! grains-plot: figures of a run's output folder, as PNG and SVG, each with the CSV table of
//! exactly what it plots so it can be drawn again with another tool (docs/architecture.md).
//!
//! - [`Kind::Energy`]: `energy.csv`'s ledger columns against time (`energy.png`), and the
//!   relative drift of its total (`energy_drift.png`).
//! - [`Kind::Walls`]: `walls.csv`'s force on each wall, its components and magnitude, against
//!   time (`walls.png`).
//! - [`Kind::Contacts`]: from `contacts.csv`, the number of contacts and their mean and
//!   largest normal force at each output step (`contacts.png`).
//! - [`Kind::Post`]: a table `grains post` wrote (`post/<analysis>.csv`), its first column on
//!   x and every other numeric column a line (`post_<analysis>.png`).
//!
//! Each figure `<stem>.png` comes with `<stem>.svg` and `<stem>_plot.csv`. The PNG is drawn
//! into an RGB buffer and encoded by the `png` crate; text uses a font embedded in the crate.

mod contacts;
mod energy;
mod error;
mod figure;
mod post;
mod table;
mod walls;

use std::path::{Path, PathBuf};

pub use error::PlotError;
pub use figure::{figure_size, PANEL_HEIGHT, SINGLE_HEIGHT, WIDTH};

/// The energy log a run writes in its output folder.
pub const ENERGY_CSV: &str = "energy.csv";
/// The wall load log a run writes in its output folder.
pub const WALLS_CSV: &str = "walls.csv";
/// The contact table a run writes in its output folder.
pub const CONTACTS_CSV: &str = "contacts.csv";
/// The folder of an output folder where `grains post` writes its tables.
pub const POST_DIR: &str = "post";

/// What to plot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The energy ledger (`energy.csv`).
    Energy,
    /// The loads on the walls (`walls.csv`).
    Walls,
    /// The contacts' count and normal forces (`contacts.csv`).
    Contacts,
    /// Tables of `grains post` (`post/*.csv`).
    Post,
}

/// Plots `kind` from the run's output folder `outdir` into the folder `dest` (created if
/// missing). `file` replaces the input file the kind reads in `outdir` (for
/// [`Kind::Post`], the one table to plot instead of every `post/*.csv`). Returns the files
/// written: for each figure its PNG, its SVG and its table.
pub fn plot(
    kind: Kind,
    outdir: &Path,
    dest: &Path,
    file: Option<&Path>,
) -> Result<Vec<PathBuf>, PlotError> {
    let input = |name: &str| file.map_or_else(|| outdir.join(name), Path::to_path_buf);
    // Inputs are read (and any error in them reported) before the destination is made.
    let outputs = match kind {
        Kind::Energy => energy::figures(&input(ENERGY_CSV))?,
        Kind::Walls => walls::figures(&input(WALLS_CSV))?,
        Kind::Contacts => contacts::figures(&input(CONTACTS_CSV), &outdir.join(ENERGY_CSV))?,
        Kind::Post => match file {
            Some(f) => vec![post::figure(f)?],
            None => post::tables(&outdir.join(POST_DIR))?
                .iter()
                .map(|f| post::figure(f))
                .collect::<Result<_, _>>()?,
        },
    };
    std::fs::create_dir_all(dest).map_err(|err| PlotError::CreateDir {
        path: dest.to_path_buf(),
        err,
    })?;
    let mut written = Vec::new();
    for o in outputs {
        written.extend(o.figure.write(dest)?);
        let path = dest.join(format!("{}_plot.csv", o.figure.stem));
        table::write_table(&path, &o.header, &o.rows)?;
        written.push(path);
    }
    Ok(written)
}

/// A figure and the table of what it plots: its header and rows, cells written as text.
pub(crate) struct Output {
    pub figure: figure::Figure,
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// Header names as owned strings.
pub(crate) fn names(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

#[cfg(test)]
mod tests;
