//! `energy.csv`: the ledger's columns against time, and the relative drift of its total.

use std::path::Path;

use crate::figure::{Figure, Panel, Series};
use crate::table::{number, Csv};
use crate::{names, Output, PlotError};

/// What writes `energy.csv`.
const HINT: &str = "a run writes it with `[output] energy = true` (the default)";

/// One row of `energy.csv`: step, time and the ledger's columns.
struct Sample {
    step: u64,
    time: f64,
    values: Vec<f64>,
}

/// The ledger figure and, where the file has a `total` column, the drift figure.
pub(crate) fn figures(path: &Path) -> Result<Vec<Output>, PlotError> {
    let mut csv = Csv::open(path, HINT)?;
    let (step, time) = (csv.column("step")?, csv.column("time")?);
    let ledger: Vec<usize> = (0..csv.header.len())
        .filter(|&c| c != step && c != time)
        .collect();
    if ledger.is_empty() {
        return Err(PlotError::Malformed {
            path: path.to_path_buf(),
            line: 1,
            what: "the header has no column besides `step` and `time`".into(),
        });
    }
    let mut samples = Vec::new();
    csv.for_each_row(|r| {
        let values = ledger.iter().map(|&c| r.num(c)).collect::<Result<_, _>>()?;
        samples.push(Sample {
            step: r.whole(step)?,
            time: r.num(time)?,
            values,
        });
        Ok(())
    })?;
    if samples.is_empty() {
        return Err(PlotError::Malformed {
            path: path.to_path_buf(),
            line: 0,
            what: "no rows after the header: the run logged no energy".into(),
        });
    }
    let names_of: Vec<&str> = ledger.iter().map(|&c| csv.header[c].as_str()).collect();
    let mut out = vec![ledger_figure(&samples, &names_of)];
    let col = |name: &str| names_of.iter().position(|n| *n == name);
    if let Some(total) = col("total") {
        let scales = ["wall_work", "kinematic_work", "inserted"].map(col);
        out.push(drift_figure(&samples, total, scales));
    }
    Ok(out)
}

/// Each ledger column against time. Columns zero at every sample (no walls moved, nothing
/// was inserted) are left out, unless all are.
fn ledger_figure(samples: &[Sample], columns: &[&str]) -> Output {
    let mut shown: Vec<usize> = (0..columns.len())
        .filter(|&k| samples.iter().any(|s| s.values[k] != 0.0))
        .collect();
    if shown.is_empty() {
        shown = (0..columns.len()).collect();
    }
    let series = shown
        .iter()
        .map(|&k| Series {
            name: columns[k].to_string(),
            points: samples.iter().map(|s| (s.time, s.values[k])).collect(),
        })
        .collect();
    let mut header = names(&["step", "time"]);
    header.extend(shown.iter().map(|&k| columns[k].to_string()));
    let rows = samples
        .iter()
        .map(|s| {
            let mut r = vec![s.step.to_string(), number(s.time)];
            r.extend(shown.iter().map(|&k| number(s.values[k])));
            r
        })
        .collect();
    Output {
        figure: Figure {
            stem: "energy".into(),
            panels: vec![Panel {
                title: "Energy ledger".into(),
                x_label: "time (s)".into(),
                y_label: "energy (J)".into(),
                series,
            }],
        },
        header,
        rows,
    }
}

/// `(total - total_0) / scale` against time, `total_0` the first sample's total and `scale`
/// what the run holds: the larger of `|total_0|` and the work moving walls, kinematic
/// particles and inserted particles have brought in by then (the measure of `grains run`'s
/// energy audit). Zero where the scale is.
fn drift_figure(samples: &[Sample], total: usize, scales: [Option<usize>; 3]) -> Output {
    let e0 = samples[0].values[total];
    let drift: Vec<f64> = samples
        .iter()
        .map(|s| {
            let scale = scales
                .iter()
                .flatten()
                .fold(e0.abs(), |m, &k| m.max(s.values[k].abs()));
            if scale == 0.0 {
                0.0
            } else {
                (s.values[total] - e0) / scale
            }
        })
        .collect();
    let rows = samples
        .iter()
        .zip(&drift)
        .map(|(s, d)| vec![s.step.to_string(), number(s.time), number(*d)])
        .collect();
    Output {
        figure: Figure {
            stem: "energy_drift".into(),
            panels: vec![Panel {
                title: "Relative drift of the ledger's total".into(),
                x_label: "time (s)".into(),
                y_label: "(total - total at start) / scale".into(),
                series: vec![Series {
                    name: "drift".into(),
                    points: samples.iter().map(|s| s.time).zip(drift).collect(),
                }],
            }],
        },
        header: names(&["step", "time", "drift"]),
        rows,
    }
}
