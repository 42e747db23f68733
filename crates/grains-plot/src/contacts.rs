//! `contacts.csv`: the number of contacts and their mean and largest normal force at each
//! output step. Bonds (rows with `bond = 1`, which act at any distance) are not contacts and
//! are left out.

use std::collections::BTreeMap;
use std::path::Path;

use crate::figure::{Figure, Panel, Series};
use crate::table::{number, Csv};
use crate::{names, Output, PlotError};

/// What writes `contacts.csv`.
const HINT: &str = "a run writes it with \"contacts\" in `[output] formats`";

/// One output step's contacts: its time, their count, and the sum and largest of their
/// normal forces (N).
#[derive(Clone, Copy)]
struct Step {
    time: f64,
    count: u64,
    sum: f64,
    max: f64,
}

impl Step {
    fn empty(time: f64) -> Step {
        Step {
            time,
            count: 0,
            sum: 0.0,
            max: f64::NEG_INFINITY,
        }
    }

    /// Mean and largest normal force; 0 and 0 at a step without contacts.
    fn forces(&self) -> (f64, f64) {
        if self.count == 0 {
            (0.0, 0.0)
        } else {
            (self.sum / self.count as f64, self.max)
        }
    }
}

/// The file is read a line at a time: a long run's `contacts.csv` can be far larger than
/// memory. A step without contacts has no row, so the output steps are also taken from
/// `energy` (the run's `energy.csv`, one row per output step), where it reads.
pub(crate) fn figures(path: &Path, energy: &Path) -> Result<Vec<Output>, PlotError> {
    let mut csv = Csv::open(path, HINT)?;
    let c = ["step", "time", "fn"]
        .map(|n| csv.column(n))
        .into_iter()
        .collect::<Result<Vec<_>, _>>()?;
    let bond = csv.column("bond").ok();
    let mut steps: BTreeMap<u64, Step> = BTreeMap::new();
    csv.for_each_row(|r| {
        let s = steps
            .entry(r.whole(c[0])?)
            .or_insert(Step::empty(r.num(c[1])?));
        if let Some(b) = bond {
            if r.num(b)? != 0.0 {
                return Ok(());
            }
        }
        let f = r.num(c[2])?;
        s.count += 1;
        s.sum += f;
        s.max = s.max.max(f);
        Ok(())
    })?;
    for (step, time) in output_steps(energy) {
        steps.entry(step).or_insert(Step::empty(time));
    }
    if steps.is_empty() {
        return Err(PlotError::Malformed {
            path: path.to_path_buf(),
            line: 0,
            what: "no rows after the header, and no energy.csv beside it to give the output \
                   steps"
                .into(),
        });
    }
    let line = |f: &dyn Fn(&Step) -> f64| -> Vec<(f64, f64)> {
        steps.values().map(|s| (s.time, f(s))).collect()
    };
    let count = Panel {
        title: "Contacts".into(),
        x_label: "time (s)".into(),
        y_label: "contacts".into(),
        series: vec![Series {
            name: "contacts".into(),
            points: line(&|s| s.count as f64),
        }],
    };
    let force = Panel {
        title: "Normal force".into(),
        x_label: "time (s)".into(),
        y_label: "normal force (N)".into(),
        series: vec![
            Series {
                name: "mean fn".into(),
                points: line(&|s| s.forces().0),
            },
            Series {
                name: "max fn".into(),
                points: line(&|s| s.forces().1),
            },
        ],
    };
    let rows = steps
        .iter()
        .map(|(step, s)| {
            let (mean, max) = s.forces();
            vec![
                step.to_string(),
                number(s.time),
                s.count.to_string(),
                number(mean),
                number(max),
            ]
        })
        .collect();
    Ok(vec![Output {
        figure: Figure {
            stem: "contacts".into(),
            panels: vec![count, force],
        },
        header: names(&["step", "time", "contacts", "mean_fn", "max_fn"]),
        rows,
    }])
}

/// The `(step, time)` of each row of `energy.csv`; none where it is missing or unreadable
/// (it only fills in steps without contacts).
fn output_steps(energy: &Path) -> Vec<(u64, f64)> {
    let read = || -> Result<Vec<(u64, f64)>, PlotError> {
        let mut csv = Csv::open(energy, "")?;
        let (step, time) = (csv.column("step")?, csv.column("time")?);
        let mut out = Vec::new();
        csv.for_each_row(|r| {
            out.push((r.whole(step)?, r.num(time)?));
            Ok(())
        })?;
        Ok(out)
    };
    read().unwrap_or_default()
}
