//! `walls.csv`: the force the particles put on each wall, its components and magnitude,
//! against time.

use std::collections::BTreeMap;
use std::path::Path;

use crate::figure::{Figure, Panel, Series};
use crate::table::{number, Csv};
use crate::{names, Output, PlotError};

/// What writes `walls.csv`.
const HINT: &str = "a run writes it when its scene has a moving wall or a mesh wall";

/// Up to this many walls get a panel each; more share one panel of the force's magnitude, a
/// line per wall, so the figure stays a readable size.
const PANELS: usize = 12;

/// One row: step, time, and the force's components (N).
struct Load {
    step: u64,
    time: f64,
    force: [f64; 3],
}

impl Load {
    fn magnitude(&self) -> f64 {
        self.force.iter().map(|f| f * f).sum::<f64>().sqrt()
    }
}

pub(crate) fn figures(path: &Path) -> Result<Vec<Output>, PlotError> {
    let mut csv = Csv::open(path, HINT)?;
    let c = ["step", "time", "wall", "fx", "fy", "fz"]
        .map(|n| csv.column(n))
        .into_iter()
        .collect::<Result<Vec<_>, _>>()?;
    // Rows in the file's order, and each wall's rows in order.
    let mut rows = Vec::new();
    let mut walls: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    csv.for_each_row(|r| {
        let load = Load {
            step: r.whole(c[0])?,
            time: r.num(c[1])?,
            force: [r.num(c[3])?, r.num(c[4])?, r.num(c[5])?],
        };
        walls.entry(r.whole(c[2])?).or_default().push(rows.len());
        rows.push((r.whole(c[2])?, load));
        Ok(())
    })?;
    if rows.is_empty() {
        return Err(PlotError::Malformed {
            path: path.to_path_buf(),
            line: 0,
            what: "no rows after the header: the run logged no wall load".into(),
        });
    }
    let line = |w: &[usize], f: &dyn Fn(&Load) -> f64| -> Vec<(f64, f64)> {
        w.iter().map(|&i| (rows[i].1.time, f(&rows[i].1))).collect()
    };
    let panels = if walls.len() <= PANELS {
        walls
            .iter()
            .map(|(w, idx)| Panel {
                title: format!("Force on wall {w}"),
                x_label: "time (s)".into(),
                y_label: "force (N)".into(),
                series: ["fx", "fy", "fz", "|F|"]
                    .iter()
                    .enumerate()
                    .map(|(k, name)| Series {
                        name: name.to_string(),
                        points: match k {
                            3 => line(idx, &Load::magnitude),
                            _ => line(idx, &|l: &Load| l.force[k]),
                        },
                    })
                    .collect(),
            })
            .collect()
    } else {
        vec![Panel {
            title: "Magnitude of the force on each wall".into(),
            x_label: "time (s)".into(),
            y_label: "|F| (N)".into(),
            series: walls
                .iter()
                .map(|(w, idx)| Series {
                    name: format!("wall {w}"),
                    points: line(idx, &Load::magnitude),
                })
                .collect(),
        }]
    };
    let table = rows
        .iter()
        .map(|(w, l)| {
            let mut r = vec![l.step.to_string(), number(l.time), w.to_string()];
            r.extend(l.force.iter().map(|f| number(*f)));
            r.push(number(l.magnitude()));
            r
        })
        .collect();
    Ok(vec![Output {
        figure: Figure {
            stem: "walls".into(),
            panels,
        },
        header: names(&["step", "time", "wall", "fx", "fy", "fz", "magnitude"]),
        rows: table,
    }])
}
