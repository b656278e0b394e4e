//! Numbers in the text format, both ways, bit-exact for every dtype.
//!
//! Floats print the way MLIR prints them when that reads back to the same bits
//! (`1.000000e+00`), else with the shortest digits that do (`9.99999974e-06`), and NaN and
//! infinities as hexadecimal bit patterns (`0x7FC00000`). Reading a decimal float rounds
//! it to the element type once (through `f64` for `bf16`/`f16`, with a correct
//! round-to-nearest-even of our own: `half`'s conversions truncate before rounding).

use crate::dtype::DType;

/// The number of hex digits of a dtype's bit pattern.
fn hex_digits(dtype: DType) -> usize {
    dtype.bit_width().div_ceil(4)
}

/// `0x7FC00000`: a bit pattern padded to the dtype's width.
pub(super) fn hex_bits(dtype: DType, bits: u64) -> String {
    format!("0x{:0width$X}", bits, width = hex_digits(dtype))
}

/// Rewrites Rust's `{:e}` output (`1.5e-5`, `1e0`) as MLIR writes floats (`1.5e-05`, `1.0e+00`).
fn mlir_exponent(rust: &str) -> String {
    let (mantissa, exp) = rust.split_once('e').unwrap_or((rust, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let dot = if mantissa.contains('.') { "" } else { ".0" };
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}{dot}e{sign}{:02}", exp.unsigned_abs())
}

/// Rounds a finite or infinite `f64` to the nearest value of a binary format with
/// `exp_bits` exponent bits and `man_bits` mantissa bits (ties to even), giving its bits.
/// Used for `f16` (5, 10) and `bf16` (8, 7).
pub(super) fn round_f64_to_small_float(x: f64, exp_bits: u32, man_bits: u32) -> u64 {
    let sign = u64::from(x.is_sign_negative()) << (exp_bits + man_bits);
    let inf = ((1u64 << exp_bits) - 1) << man_bits;
    if x.is_nan() {
        return sign | inf | (1 << (man_bits - 1));
    }
    let a = x.abs();
    if a == 0.0 {
        return sign;
    }
    if a.is_infinite() {
        return sign | inf;
    }
    let bias = (1i64 << (exp_bits - 1)) - 1;
    let emin = 1 - bias;
    let raw = a.to_bits();
    let raw_exp = ((raw >> 52) & 0x7FF) as i64;
    // a = m * 2^e with m an integer below 2^53.
    let (m, e) = if raw_exp == 0 {
        (raw & ((1 << 52) - 1), -1074i64)
    } else {
        ((raw & ((1 << 52) - 1)) | (1 << 52), raw_exp - 1075)
    };
    let top = 63 - i64::from(m.leading_zeros()) + e; // floor(log2 a)
    let quantum = top.max(emin) - i64::from(man_bits);
    let shift = quantum - e;
    let n = if shift <= 0 {
        // Exact: only possible for values far above these formats' range, handled below.
        m.checked_shl(shift.unsigned_abs() as u32)
            .unwrap_or(u64::MAX)
    } else if shift >= 64 {
        0
    } else {
        let kept = m >> shift;
        let rem = m & ((1u64 << shift) - 1);
        let half = 1u64 << (shift - 1);
        if rem > half || (rem == half && kept & 1 == 1) {
            kept + 1
        } else {
            kept
        }
    };
    // n is the value in units of 2^quantum; normal numbers have n in [2^man_bits, 2^(man_bits+1)].
    let mut biased = quantum + i64::from(man_bits) + bias;
    let mut n = n;
    if n >= 1 << (man_bits + 1) {
        n >>= 1;
        biased += 1;
    }
    if n < 1 << man_bits {
        // Subnormal (or rounded to zero): the exponent field is 0, and a carry into
        // 2^man_bits makes it the smallest normal number, as the encoding wants.
        return sign | n;
    }
    if biased >= (1 << exp_bits) - 1 {
        return sign | inf;
    }
    sign | ((biased as u64) << man_bits) | (n - (1 << man_bits))
}

/// Reads a decimal float literal (with an optional leading `-`) as a dtype's bits.
pub(super) fn parse_float_bits(dtype: DType, text: &str) -> Option<u64> {
    match dtype {
        DType::F32 => text.parse::<f32>().ok().map(|v| u64::from(v.to_bits())),
        DType::F64 => text.parse::<f64>().ok().map(f64::to_bits),
        DType::F16 => text
            .parse::<f64>()
            .ok()
            .map(|v| round_f64_to_small_float(v, 5, 10)),
        DType::BF16 => text
            .parse::<f64>()
            .ok()
            .map(|v| round_f64_to_small_float(v, 8, 7)),
        _ => None,
    }
}

/// The value of a float dtype's bits as `f64` (exact).
fn float_value(dtype: DType, bits: u64) -> f64 {
    match dtype {
        DType::F32 => f64::from(f32::from_bits(bits as u32)),
        DType::F16 => half::f16::from_bits(bits as u16).to_f64(),
        DType::BF16 => half::bf16::from_bits(bits as u16).to_f64(),
        _ => f64::from_bits(bits),
    }
}

/// A float element as text that reads back to exactly `bits`.
pub(super) fn float_text(dtype: DType, bits: u64) -> String {
    let v = float_value(dtype, bits);
    if !v.is_finite() {
        return hex_bits(dtype, bits);
    }
    let candidates = match dtype {
        DType::F64 => [format!("{v:.6e}"), format!("{v:e}")],
        // f32, f16 and bf16 values are all exact f32 values.
        _ => {
            let v = v as f32;
            [format!("{v:.6e}"), format!("{v:e}")]
        }
    };
    candidates
        .iter()
        .map(|c| mlir_exponent(c))
        .find(|t| parse_float_bits(dtype, t) == Some(bits))
        .unwrap_or_else(|| hex_bits(dtype, bits))
}

/// An element of any dtype as text: floats as [`float_text`], integers in decimal,
/// booleans as `true`/`false`.
pub(super) fn element_text(dtype: DType, bits: u64) -> String {
    match dtype {
        DType::I1 => (if bits & 1 == 1 { "true" } else { "false" }).to_string(),
        d if d.is_unsigned() => bits.to_string(),
        d if d.is_signed_int() => {
            // Sign-extend the low `width` bits.
            let shift = 64 - d.bit_width();
            (((bits << shift) as i64) >> shift).to_string()
        }
        _ => float_text(dtype, bits),
    }
}

/// Reads an integer literal (decimal or `0x` hex, with an optional leading `-`) as an
/// `i128`, or `None` if it does not fit.
pub(super) fn parse_int(negative: bool, text: &str) -> Option<i128> {
    let magnitude = match text.strip_prefix("0x") {
        Some(hex) => u128::from_str_radix(hex, 16).ok()?,
        None => text.parse::<u128>().ok()?,
    };
    let m = i128::try_from(magnitude).ok()?;
    Some(if negative { -m } else { m })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_like_mlir_and_reads_back() {
        assert_eq!(
            float_text(DType::F32, 1.0f32.to_bits().into()),
            "1.000000e+00"
        );
        assert_eq!(
            float_text(DType::F32, 32.0f32.to_bits().into()),
            "3.200000e+01"
        );
        assert_eq!(
            float_text(DType::F32, 1e-5f32.to_bits().into()),
            "1.000000e-05"
        );
        assert_eq!(
            float_text(DType::F32, 1.0000001f32.to_bits().into()),
            "1.0000001e+00"
        );
        assert_eq!(
            float_text(DType::F32, (-0.0f32).to_bits().into()),
            "-0.000000e+00"
        );
        assert_eq!(
            float_text(DType::F32, f32::NEG_INFINITY.to_bits().into()),
            "0xFF800000"
        );
        assert_eq!(
            float_text(DType::F32, f32::NAN.to_bits().into()),
            "0x7FC00000"
        );
        assert_eq!(float_text(DType::BF16, 0x7FC0), "0x7FC0");
        assert_eq!(float_text(DType::F64, 0.1f64.to_bits()), "1.000000e-01");
        assert_eq!(
            parse_float_bits(DType::F32, "9.99999974E-6"),
            Some(1e-5f32.to_bits().into())
        );
    }

    #[test]
    fn every_half_and_bfloat_value_round_trips() {
        for bits in 0..=u16::MAX as u64 {
            for dtype in [DType::F16, DType::BF16] {
                let t = float_text(dtype, bits);
                let back = match t.strip_prefix("0x") {
                    Some(h) => u64::from_str_radix(h, 16).ok(),
                    None => parse_float_bits(dtype, &t),
                };
                let v = float_value(dtype, bits);
                if v.is_nan() {
                    assert!(t.starts_with("0x"), "{dtype} {bits:#x} -> {t}");
                }
                assert_eq!(back, Some(bits), "{dtype} {bits:#x} printed as {t}");
            }
        }
    }

    #[test]
    fn rounds_to_nearest_even() {
        // 1 + 2^-11 is the midpoint between 1 and the next f16; ties go to the even 1.0.
        assert_eq!(
            round_f64_to_small_float(1.0 + 2f64.powi(-11), 5, 10),
            0x3C00
        );
        // Just above the midpoint rounds up (half's truncating conversion gets this wrong).
        assert_eq!(
            round_f64_to_small_float(1.0 + 2f64.powi(-11) + 2f64.powi(-40), 5, 10),
            0x3C01
        );
        assert_eq!(round_f64_to_small_float(65520.0, 5, 10), 0x7C00); // overflows to inf
        assert_eq!(round_f64_to_small_float(2f64.powi(-25), 5, 10), 0); // tie to even zero
        assert_eq!(round_f64_to_small_float(2f64.powi(-25) * 1.5, 5, 10), 1); // smallest subnormal
        assert_eq!(round_f64_to_small_float(-3.0e38, 8, 7), 0xFF62);
        assert_eq!(round_f64_to_small_float(1e-300, 8, 7), 0);
    }

    #[test]
    fn reads_integers() {
        assert_eq!(parse_int(true, "12"), Some(-12));
        assert_eq!(parse_int(false, "0xFF"), Some(255));
        assert_eq!(
            parse_int(false, "99999999999999999999999999999999999999999"),
            None
        );
    }
}
