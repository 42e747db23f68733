//! How grains prints a physical quantity in messages: four significant digits and the SI unit,
//! so that `2.095e-2 m` reads where `2.09525043260804e-2` would not.

/// `x` with four significant digits: plain decimals for magnitudes in [0.01, 10000), scientific
/// notation (`1.235e-5`) otherwise; `0` for zero, and `NaN` / `inf` as they are.
pub fn sig4(x: f64) -> String {
    if !x.is_finite() {
        return format!("{x}");
    }
    if x == 0.0 {
        return "0".into();
    }
    let a = x.abs();
    if (1e-2..1e4).contains(&a) {
        let decimals = (3 - a.log10().floor() as i32).clamp(0, 5) as usize;
        let s = format!("{x:.decimals$}");
        // 9999.96 rounds up to five digits: say it in scientific notation instead.
        if s.trim_start_matches('-')
            .replace('.', "")
            .trim_start_matches('0')
            .len()
            > 4
        {
            return format!("{x:.3e}");
        }
        s
    } else {
        format!("{x:.3e}")
    }
}

/// `x` with four significant digits ([`sig4`]) followed by its unit: `qty(0.0209525, "m")` is
/// `"0.02095 m"`, `qty(2.09525e-3, "m")` is `"2.095e-3 m"`.
pub fn qty(x: f64, unit: &str) -> String {
    if unit.is_empty() {
        sig4(x)
    } else {
        format!("{} {unit}", sig4(x))
    }
}

/// [`sig4`] of an f32, read at its shortest decimal form: `0.01f32` is `0.01000`, not the
/// `1.000e-2` its f64 widening (0.009999999776...) would give.
pub fn sig4_f32(x: f32) -> String {
    sig4(format!("{x}").parse::<f64>().unwrap_or(x as f64))
}

/// [`qty`] of an f32 ([`sig4_f32`]).
pub fn qty_f32(x: f32, unit: &str) -> String {
    let v = format!("{x}").parse::<f64>().unwrap_or(x as f64);
    qty(v, unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_significant_digits() {
        assert_eq!(sig4(0.0209525043260804), "0.02095");
        assert_eq!(sig4(2.09525043260804e-3), "2.095e-3");
        assert_eq!(sig4(9.81), "9.810");
        assert_eq!(sig4(-250.0), "-250.0");
        assert_eq!(sig4(1234.56), "1235");
        assert_eq!(sig4(9999.96), "1.000e4");
        assert_eq!(sig4(123456.0), "1.235e5");
        assert_eq!(sig4(0.0), "0");
        assert_eq!(sig4(f64::NAN), "NaN");
        assert_eq!(qty(5e-3, "m"), "5.000e-3 m");
        assert_eq!(qty(63.0, "m/s"), "63.00 m/s");
        assert_eq!(sig4_f32(0.01), "0.01000");
        assert_eq!(qty_f32(0.015000001, "m"), "0.01500 m");
    }
}
