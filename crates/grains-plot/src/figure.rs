//! A figure (panels of line series against one x each) drawn by plotters into an SVG string
//! and into an RGB buffer encoded as PNG.
//!
//! Text is drawn with the font embedded in the crate, registered with plotters' `ab_glyph`
//! backend under the family `sans-serif`: no system font library is needed, and an SVG viewer
//! maps the same family name to a sans-serif font of its own.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::PlotError;

/// DejaVu Sans cut down to ASCII and a few symbols (`fonts/README.md`).
static FONT: &[u8] = include_bytes!("../fonts/DejaVuSans-subset.ttf");

/// The family the figures' text asks for.
const FAMILY: &str = "sans-serif";

/// A figure's width in pixels.
pub const WIDTH: u32 = 1000;
/// The height of a figure of one panel, in pixels.
pub const SINGLE_HEIGHT: u32 = 560;
/// The height of each panel of a figure of several, stacked, in pixels.
pub const PANEL_HEIGHT: u32 = 400;

/// A series with at most this many points also gets a marker at each point, so a table of a
/// few rows (or of one) is seen.
const MARKED_POINTS: usize = 30;

/// Distinct line colours, taken in turn.
const COLOURS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// A line of a panel: its legend name and its points (non-finite ones are left out).
pub(crate) struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// One chart: a title, axis labels and its series.
pub(crate) struct Panel {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
}

/// Panels stacked in one column, written as `<stem>.png` and `<stem>.svg`.
pub(crate) struct Figure {
    pub stem: String,
    pub panels: Vec<Panel>,
}

/// The size in pixels of a figure of `panels` panels.
pub fn figure_size(panels: usize) -> (u32, u32) {
    if panels <= 1 {
        (WIDTH, SINGLE_HEIGHT)
    } else {
        let h = (panels as u64 * u64::from(PANEL_HEIGHT)).min(u64::from(u32::MAX / WIDTH / 3));
        (WIDTH, h as u32)
    }
}

impl Figure {
    /// Draws the figure into `dir` as PNG and SVG; the two files written.
    pub fn write(&self, dir: &Path) -> Result<Vec<PathBuf>, PlotError> {
        register_font()?;
        let (w, h) = figure_size(self.panels.len());
        let png_path = dir.join(format!("{}.png", self.stem));
        let svg_path = dir.join(format!("{}.svg", self.stem));
        let draw_error = |path: &Path, what: String| PlotError::Draw {
            path: path.to_path_buf(),
            what,
        };

        let mut rgb = vec![0u8; w as usize * h as usize * 3];
        {
            let root = BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area();
            self.draw(&root).map_err(|e| draw_error(&png_path, e))?;
        }
        let png = encode_png(&rgb, (w, h)).map_err(|e| draw_error(&png_path, e))?;
        write_file(&png_path, &png)?;

        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
            self.draw(&root).map_err(|e| draw_error(&svg_path, e))?;
        }
        write_file(&svg_path, svg.as_bytes())?;
        Ok(vec![png_path, svg_path])
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let areas = root.split_evenly((self.panels.len().max(1), 1));
        for (area, panel) in areas.iter().zip(&self.panels) {
            panel.draw(area).map_err(|e| e.to_string())?;
        }
        root.present().map_err(|e| e.to_string())
    }
}

impl Panel {
    fn draw<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        let points = || self.series.iter().flat_map(|s| s.points.iter()).copied();
        let x = Axis::of(points().map(|p| p.0), false);
        let y = Axis::of(points().map(|p| p.1), true);
        let mut chart = ChartBuilder::on(area)
            .caption(&self.title, (FAMILY, 20))
            .margin(12)
            // Room for the last x tick's label, centred on the plot's right edge.
            .margin_right(36)
            .x_label_area_size(45)
            .y_label_area_size(80)
            .build_cartesian_2d(x.lo..x.hi, y.lo..y.hi)?;
        let x_ticks = |v: &f64| x.tick(*v);
        let y_ticks = |v: &f64| y.tick(*v);
        chart
            .configure_mesh()
            .x_desc(x.describe(&self.x_label))
            .y_desc(y.describe(&self.y_label))
            .x_label_formatter(&x_ticks)
            .y_label_formatter(&y_ticks)
            .label_style((FAMILY, 13))
            .axis_desc_style((FAMILY, 15))
            .light_line_style(RGBColor(235, 235, 235))
            .draw()?;
        for (k, s) in self.series.iter().enumerate() {
            let colour = COLOURS[k % COLOURS.len()];
            let drawn: Vec<(f64, f64)> = s
                .points
                .iter()
                .filter(|p| p.0.is_finite() && p.1.is_finite())
                .map(|p| (x.scaled(p.0), y.scaled(p.1)))
                .collect();
            if drawn.len() <= MARKED_POINTS {
                chart.draw_series(drawn.iter().map(|p| Circle::new(*p, 3, colour.filled())))?;
            }
            chart
                .draw_series(LineSeries::new(drawn, colour.stroke_width(2)))?
                .label(s.name.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(160, 160, 160))
            .label_font((FAMILY, 13))
            .draw()
    }
}

/// An axis's drawn range. Values are drawn as `v * 10^-exp`, so that plotters' tick search
/// (which treats spans below `f64::EPSILON` as a single value) sees numbers near 1 whatever
/// the unit: energies of micrometre grains are around 1e-15 J.
struct Axis {
    lo: f64,
    hi: f64,
    exp: i32,
}

impl Axis {
    /// The axis over `values` (non-finite ones left out); `pad` adds 5% on either side.
    fn of(values: impl Iterator<Item = f64>, pad: bool) -> Axis {
        let (mut lo, mut hi) = values
            .filter(|v| v.is_finite())
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                (lo.min(v), hi.max(v))
            });
        if lo > hi {
            return Axis {
                lo: 0.0,
                hi: 1.0,
                exp: 0,
            };
        }
        let largest = lo.abs().max(hi.abs());
        let mut exp = if largest > 0.0 {
            largest.log10().floor() as i32
        } else {
            0
        };
        if (-3..=4).contains(&exp) {
            exp = 0;
        }
        // Beyond this, 10^-exp is not a finite f64.
        exp = exp.clamp(-300, 300);
        let f = 10f64.powi(-exp);
        (lo, hi) = (lo * f, hi * f);
        // A span lost in rounding is a constant: a flat line in the middle of the panel rather
        // than ticks that differ in their twelfth digit.
        let span = hi - lo;
        if span <= 1e-9 * lo.abs().max(hi.abs()) || !span.is_finite() {
            let c = 0.5 * lo + 0.5 * hi;
            let half = if c == 0.0 { 1.0 } else { 0.05 * c.abs() };
            (lo, hi) = (c - half, c + half);
        } else if pad {
            (lo, hi) = (lo - 0.05 * span, hi + 0.05 * span);
        }
        Axis { lo, hi, exp }
    }

    fn scaled(&self, v: f64) -> f64 {
        v * 10f64.powi(-self.exp)
    }

    /// The axis's label, with the power of ten its ticks are in.
    fn describe(&self, label: &str) -> String {
        if self.exp == 0 {
            label.to_string()
        } else {
            format!("{label}, \u{d7}1e{}", self.exp)
        }
    }

    /// A tick's label: as many decimals as the ticks' spacing needs (ticks are about a tenth
    /// of the span apart), trailing zeros dropped.
    fn tick(&self, v: f64) -> String {
        let step = (self.hi - self.lo) / 10.0;
        let decimals = (1 - step.log10().floor() as i32).clamp(0, 15) as usize;
        let mut s = format!("{v:.decimals$}");
        if s.contains('.') {
            s = s.trim_end_matches('0').trim_end_matches('.').to_string();
        }
        if s == "-0" {
            s = "0".into();
        }
        s
    }
}

/// Registers the embedded font once per process.
fn register_font() -> Result<(), PlotError> {
    static DONE: OnceLock<bool> = OnceLock::new();
    let ok = *DONE
        .get_or_init(|| plotters::style::register_font(FAMILY, FontStyle::Normal, FONT).is_ok());
    if ok {
        Ok(())
    } else {
        Err(PlotError::Draw {
            path: PathBuf::from("fonts/DejaVuSans-subset.ttf"),
            what: "the embedded font does not load".into(),
        })
    }
}

/// `rgb` (8-bit RGB rows, top first) as a PNG file's bytes.
fn encode_png(rgb: &[u8], (w, h): (u32, u32)) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, w, h);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(|e| e.to_string())?;
    writer.write_image_data(rgb).map_err(|e| e.to_string())?;
    writer.finish().map_err(|e| e.to_string())?;
    Ok(out)
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), PlotError> {
    std::fs::write(path, bytes).map_err(|err| PlotError::Write {
        path: path.to_path_buf(),
        err,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_scale_tiny_values_and_widen_constants() {
        let a = Axis::of([1e-15, 3e-15].into_iter(), false);
        assert_eq!(a.exp, -15);
        assert!((a.lo - 1.0).abs() < 1e-12 && (a.hi - 3.0).abs() < 1e-12);
        assert_eq!(a.describe("E (J)"), "E (J), \u{d7}1e-15");
        let c = Axis::of([2.0, 2.0].into_iter(), true);
        assert!(c.lo < 2.0 && c.hi > 2.0);
        let z = Axis::of([0.0].into_iter(), true);
        assert_eq!((z.lo, z.hi), (-1.0, 1.0));
        let none = Axis::of([f64::NAN, f64::INFINITY].into_iter(), true);
        assert_eq!((none.lo, none.hi), (0.0, 1.0));
        let wide = Axis::of([-1e308, 1e308].into_iter(), true);
        assert!(wide.lo.is_finite() && wide.hi.is_finite() && wide.lo < wide.hi);
    }

    #[test]
    fn ticks_have_the_decimals_their_spacing_needs() {
        let a = Axis::of([0.0, 1.0].into_iter(), false);
        assert_eq!(a.tick(0.30000000000000004), "0.3");
        assert_eq!(a.tick(-0.0), "0");
        let b = Axis::of([0.0, 100.0].into_iter(), false);
        assert_eq!(b.tick(40.0), "40");
    }
}
