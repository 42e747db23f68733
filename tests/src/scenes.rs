//! Scene text for tests, written block by block instead of as a literal each time.
//!
//! The text comes out as a compact hand-written scene has it: each block's header line, then
//! its keys one per line, and no blank line between blocks; numbers are written as Rust prints
//! them (`2500.0`, `0.001`, `[0.0, 0.0, 0.0]`), moduli in exponent form (`5.0e6`). Tests that
//! assert a line or column count on that layout, so it stays as it is.

/// A scene's TOML, built block by block:
///
/// ```
/// let text = grains_tests::scenes::SceneText::new()
///     .simulation(&["steps = 10"])
///     .domain([0.0; 3], [0.02; 3])
///     .material("glass", 2500.0, 5.0e6, 0.3)
///     .particles("glass", 0.001, &["positions = [[0.01, 0.01, 0.01]]"])
///     .hertz("glass", "glass", &[])
///     .build();
/// assert_eq!(
///     text,
///     "[simulation]\nsteps = 10\n[domain]\nmin = [0.0, 0.0, 0.0]\nmax = [0.02, 0.02, 0.02]\n\
///      [[material]]\nname = \"glass\"\ndensity = 2500.0\nyoung = 5.0e6\npoisson = 0.3\n\
///      [[particles]]\nmaterial = \"glass\"\nradius = 0.001\npositions = [[0.01, 0.01, 0.01]]\n\
///      [[interaction]]\nbetween = [\"glass\", \"glass\"]\nnormal = { law = \"hertz\" }\n"
/// );
/// ```
#[derive(Clone, Debug, Default)]
pub struct SceneText {
    text: String,
}

impl SceneText {
    /// An empty scene.
    pub fn new() -> Self {
        Self::default()
    }

    /// `[simulation]` with `lines` as written (`steps = 10`, `dt = "auto"`).
    pub fn simulation(self, lines: &[&str]) -> Self {
        self.line("[simulation]").lines(lines)
    }

    /// `[domain]` from `min` to `max`; other keys (`periodic`) follow with [`Self::lines`].
    pub fn domain(self, min: [f64; 3], max: [f64; 3]) -> Self {
        self.line("[domain]")
            .line(&format!("min = {min:?}"))
            .line(&format!("max = {max:?}"))
    }

    /// `[[material]]` `name` with its density (kg/m^3), Young's modulus (Pa) and Poisson's
    /// ratio.
    pub fn material(self, name: &str, density: f64, young: f64, poisson: f64) -> Self {
        self.line("[[material]]")
            .line(&format!("name = \"{name}\""))
            .line(&format!("density = {density:?}"))
            .line(&format!("young = {}", exponent(young)))
            .line(&format!("poisson = {poisson:?}"))
    }

    /// `[[particles]]` of `material` with `radius` (m), then `lines` as written: the particle
    /// source (`positions`, `lattice`) and the rest (`velocities`).
    pub fn particles(self, material: &str, radius: f64, lines: &[&str]) -> Self {
        self.line("[[particles]]")
            .line(&format!("material = \"{material}\""))
            .line(&format!("radius = {radius:?}"))
            .lines(lines)
    }

    /// `[[wall]]` of `material` with its `shape` as written (`box = { min = ..., max = ... }`);
    /// other keys (`motion`) follow with [`Self::lines`].
    pub fn wall(self, material: &str, shape: &str) -> Self {
        self.line("[[wall]]")
            .line(&format!("material = \"{material}\""))
            .line(shape)
    }

    /// `[[interaction]]` between materials `a` and `b` with Hertz's normal law, then `lines` as
    /// written (the other slots' laws).
    pub fn hertz(self, a: &str, b: &str, lines: &[&str]) -> Self {
        self.line("[[interaction]]")
            .line(&format!("between = [\"{a}\", \"{b}\"]"))
            .line("normal = { law = \"hertz\" }")
            .lines(lines)
    }

    /// One line as written: a key of the block above, or the header of a block of its own.
    pub fn line(mut self, line: &str) -> Self {
        self.text.push_str(line);
        self.text.push('\n');
        self
    }

    /// Lines as written, each as [`Self::line`].
    pub fn lines(self, lines: &[&str]) -> Self {
        lines.iter().fold(self, |s, l| s.line(l))
    }

    /// Text as written, with its own line ends (a block a test keeps in a constant).
    pub fn block(mut self, text: &str) -> Self {
        self.text.push_str(text);
        self
    }

    /// The scene's text.
    pub fn build(self) -> String {
        self.text
    }
}

/// `x` in exponent form with a decimal point in its mantissa, as moduli are written
/// (`5.0e6`, `2.5e10`); the shortest form that reads back as `x`.
fn exponent(x: f64) -> String {
    let s = format!("{x:e}");
    match s.split_once('e') {
        Some((mantissa, power)) if !mantissa.contains('.') => format!("{mantissa}.0e{power}"),
        _ => s,
    }
}
