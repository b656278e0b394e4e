//! shardc's counter-based random numbers (`shardc.random`), bit-exact by definition, so
//! that every backend (and every shard of a sharded tensor) can reproduce them.
//!
//! Element `i` (its flat row-major index in the *global* tensor) of a tensor drawn with
//! seed `s` is a pure function of `(s, i)`:
//!
//! 1. Philox-4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as easy as
//!    1, 2, 3", SC 2011) with key `(s mod 2^32, s >> 32)` (the seed's bits as `u64`) and
//!    counter `(i mod 2^32, i >> 32, 0, 0)` gives four words `w0..w3` ([`bits`]).
//! 2. The words become a value of the dtype:
//!    - UNIFORM on `[0, 1)`: f32 is `(w0 >> 8) * 2^-24`; f64 is `((w0 << 32 | w1) >> 11) *
//!      2^-53`; bf16 and f16 take the f32 value rounded *toward zero* into the dtype, so
//!      they never reach 1.0 (rounding to nearest would turn values near 1 into 1.0).
//!    - NORMAL: Box–Muller in f64 from `u1 = (((w0 << 32 | w1) >> 11) + 1) * 2^-53` in
//!      `(0, 1]` and `u2 = ((w2 << 32 | w3) >> 11) * 2^-53`: `z = sqrt(-2 ln u1) *
//!      cos(2π u2)`, rounded once to the dtype (to nearest, ties to even). `ln` and `cos`
//!      are Rust's `f64` functions (the platform libm): a kernel that must match bit for
//!      bit has to use correctly rounded or identical implementations of those two.

use super::native::{FloatStorage, slice_of};
use super::{InterpError, Site};
use half::{bf16, f16};
use shardc_ir::{DType, Distribution, Elements, Literal, TensorType};

/// Philox-4x32's first round multiplier.
pub const M0: u32 = 0xD251_1F53;
/// Philox-4x32's second round multiplier.
pub const M1: u32 = 0xCD9E_8D57;
/// Philox-4x32's first key schedule increment (the golden ratio as a 32-bit fraction).
pub const W0: u32 = 0x9E37_79B9;
/// Philox-4x32's second key schedule increment (sqrt(3) - 1 as a 32-bit fraction).
pub const W1: u32 = 0xBB67_AE85;

const TWO_POW_M24: f32 = 1.0 / 16_777_216.0;
const TWO_POW_M53: f64 = 1.0 / 9_007_199_254_740_992.0;

fn mulhilo(a: u32, b: u32) -> (u32, u32) {
    let p = a as u64 * b as u64;
    ((p >> 32) as u32, p as u32)
}

fn round(ctr: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let (hi0, lo0) = mulhilo(M0, ctr[0]);
    let (hi1, lo1) = mulhilo(M1, ctr[2]);
    [hi1 ^ ctr[1] ^ key[0], lo1, hi0 ^ ctr[3] ^ key[1], lo0]
}

/// Philox-4x32 with 10 rounds, in Random123's word order (`philox4x32_R(10, ctr, key)`).
pub fn philox4x32_10(key: [u32; 2], counter: [u32; 4]) -> [u32; 4] {
    let (mut ctr, mut key) = (counter, key);
    ctr = round(ctr, key);
    for _ in 1..10 {
        key = [key[0].wrapping_add(W0), key[1].wrapping_add(W1)];
        ctr = round(ctr, key);
    }
    ctr
}

/// The four words for element `index` of a tensor drawn with `seed`.
pub fn bits(seed: i64, index: u64) -> [u32; 4] {
    let s = seed as u64;
    philox4x32_10(
        [s as u32, (s >> 32) as u32],
        [index as u32, (index >> 32) as u32, 0, 0],
    )
}

/// UNIFORM f32: `(w0 >> 8) * 2^-24`, on `[0, 1 - 2^-24]`.
pub fn uniform_f32(w: [u32; 4]) -> f32 {
    (w[0] >> 8) as f32 * TWO_POW_M24
}

/// UNIFORM f64: `((w0 << 32 | w1) >> 11) * 2^-53`, on `[0, 1 - 2^-53]`.
pub fn uniform_f64(w: [u32; 4]) -> f64 {
    ((((w[0] as u64) << 32) | w[1] as u64) >> 11) as f64 * TWO_POW_M53
}

/// UNIFORM bf16: the f32 value rounded toward zero.
pub fn uniform_bf16(w: [u32; 4]) -> bf16 {
    let x = uniform_f32(w);
    let h = bf16::from_f32(x);
    if h.to_f32() > x {
        bf16::from_bits(h.to_bits() - 1)
    } else {
        h
    }
}

/// UNIFORM f16: the f32 value rounded toward zero.
pub fn uniform_f16(w: [u32; 4]) -> f16 {
    let x = uniform_f32(w);
    let h = f16::from_f32(x);
    if h.to_f32() > x {
        f16::from_bits(h.to_bits() - 1)
    } else {
        h
    }
}

/// NORMAL, in f64: Box–Muller from the four words (see the module docs).
pub fn normal_f64(w: [u32; 4]) -> f64 {
    let a = ((w[0] as u64) << 32) | w[1] as u64;
    let b = ((w[2] as u64) << 32) | w[3] as u64;
    let u1 = ((a >> 11) + 1) as f64 * TWO_POW_M53;
    let u2 = (b >> 11) as f64 * TWO_POW_M53;
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// The elements at the given global flat indices of a tensor of `dtype` drawn with
/// `seed`; `None` if `dtype` is not a float type. A shard of a sharded tensor passes the
/// global indices of its own elements and gets exactly the global tensor's values.
pub fn elements_at(
    distribution: Distribution,
    dtype: DType,
    seed: i64,
    indices: impl IntoIterator<Item = u64>,
) -> Option<Elements> {
    let words = indices.into_iter().map(|i| bits(seed, i));
    Some(match (distribution, dtype) {
        (Distribution::Uniform, DType::F32) => Elements::F32(words.map(uniform_f32).collect()),
        (Distribution::Uniform, DType::F64) => Elements::F64(words.map(uniform_f64).collect()),
        (Distribution::Uniform, DType::BF16) => Elements::BF16(words.map(uniform_bf16).collect()),
        (Distribution::Uniform, DType::F16) => Elements::F16(words.map(uniform_f16).collect()),
        (Distribution::Normal, DType::F32) => {
            Elements::F32(words.map(|w| normal_f64(w) as f32).collect())
        }
        (Distribution::Normal, DType::F64) => Elements::F64(words.map(normal_f64).collect()),
        (Distribution::Normal, DType::BF16) => Elements::BF16(
            words
                .map(|w| <bf16 as FloatStorage>::from_f64(normal_f64(w)))
                .collect(),
        ),
        (Distribution::Normal, DType::F16) => Elements::F16(
            words
                .map(|w| <f16 as FloatStorage>::from_f64(normal_f64(w)))
                .collect(),
        ),
        _ => return None,
    })
}

/// `shardc.random`: the whole global tensor.
pub(crate) fn random_op(
    site: &Site,
    distribution: Distribution,
    seed: &Literal,
    out: &TensorType,
) -> Result<Literal, InterpError> {
    let seed = slice_of::<i64>(&seed.elements)[0];
    let elements = elements_at(distribution, out.dtype, seed, 0..out.num_elements() as u64)
        .ok_or_else(|| site.unsupported(out.dtype, " as a result".to_string()))?;
    Ok(Literal {
        ty: out.clone(),
        elements,
    })
}

// ---------------------------------------------------------------------------------------
// `stablehlo.rng_bit_generator`, as XLA's CPU backend computes it (its
// `RngBitGeneratorExpander` with DEFAULT as PHILOX, and the bit generators of XLA's
// `prng` library): JAX's `rbg` and `unsafe_rbg` keys draw through it.

/// Threefry-2x32 with 20 rounds (Random123's), on one counter pair.
fn threefry2x32(key: [u32; 2], x: [u32; 2]) -> [u32; 2] {
    const ROTATIONS: [u32; 8] = [13, 15, 26, 6, 17, 29, 16, 24];
    let ks = [key[0], key[1], 0x1BD1_1BDA ^ key[0] ^ key[1]];
    let mut x = [x[0].wrapping_add(ks[0]), x[1].wrapping_add(ks[1])];
    for injection in 1..=5u32 {
        let rotations = if injection % 2 == 1 {
            &ROTATIONS[..4]
        } else {
            &ROTATIONS[4..]
        };
        for &r in rotations {
            x[0] = x[0].wrapping_add(x[1]);
            x[1] = x[1].rotate_left(r) ^ x[0];
        }
        let i = injection as usize;
        x[0] = x[0].wrapping_add(ks[i % 3]);
        x[1] = x[1].wrapping_add(ks[(i + 1) % 3]).wrapping_add(injection);
    }
    x
}

fn split(u: u64) -> [u32; 2] {
    [u as u32, (u >> 32) as u32]
}

/// `shape` split on its first even dimension (else its largest) into two halves: the
/// dimension and the halves' shape.
fn halves(shape: &[usize]) -> (usize, Vec<usize>) {
    if shape.is_empty() {
        return (0, vec![1]);
    }
    let d = shape.iter().position(|&n| n % 2 == 0).unwrap_or_else(|| {
        // The first of the largest.
        (0..shape.len()).fold(0, |best, i| if shape[i] > shape[best] { i } else { best })
    });
    let mut half = shape.to_vec();
    half[d] = shape[d].div_ceil(2);
    (d, half)
}

/// THREE_FRY: 32-bit words for `shape` (the shape halved, each half position's counter
/// `state + its index`, the two output words interleaved along the halved dimension),
/// and how far the counter moved.
fn threefry_words(key: u64, counter: u64, shape: &[usize]) -> (Vec<u64>, u64) {
    let (d, half) = halves(shape);
    let n_half: usize = half.iter().product();
    let pairs: Vec<[u32; 2]> = (0..n_half as u64)
        .map(|i| threefry2x32(split(key), split(counter.wrapping_add(i))))
        .collect();
    if shape.is_empty() {
        return (vec![pairs[0][0] as u64], n_half as u64);
    }
    let strides = shardc_ir::dtype::row_major_strides(&half);
    let n: usize = shape.iter().product();
    let out_strides = shardc_ir::dtype::row_major_strides(shape);
    let words = (0..n)
        .map(|flat| {
            let (mut rem, mut at) = (flat, 0);
            let mut which = 0;
            for (k, &s) in out_strides.iter().enumerate() {
                let mut c = rem / s;
                rem %= s;
                if k == d {
                    which = c % 2;
                    c /= 2;
                }
                at += c * strides[k];
            }
            pairs[at][which] as u64
        })
        .collect();
    (words, n_half as u64)
}

/// PHILOX: `n` 32-bit words, four per 128-bit counter value `counter + j` (in order), and
/// how far the counter moved.
fn philox_words(key: u64, counter: u128, n: usize) -> (Vec<u32>, u64) {
    let blocks = n.div_ceil(4) as u64;
    let mut words = Vec::with_capacity(blocks as usize * 4);
    for j in 0..blocks {
        let c = counter.wrapping_add(j as u128);
        let (lo, hi) = (c as u64, (c >> 64) as u64);
        words.extend(philox4x32_10(
            split(key),
            [lo as u32, (lo >> 32) as u32, hi as u32, (hi >> 32) as u32],
        ));
    }
    words.truncate(n);
    (words, blocks)
}

/// `stablehlo.rng_bit_generator`: the next state and the bits of type `out`.
pub(crate) fn rng_bit_generator(
    site: &Site,
    algorithm: shardc_ir::RngAlgorithm,
    state: &Literal,
    out: &TensorType,
) -> Result<Vec<Literal>, InterpError> {
    use shardc_ir::RngAlgorithm;
    let Elements::U64(s) = &state.to_dense().elements else {
        return Err(site.invalid("its state is not ui64", "pass a ui64 state"));
    };
    let (key, n) = (s[0], out.num_elements());
    let wide = out.dtype.bit_width() == 64;
    let (bits, next): (Vec<u64>, Vec<u64>) = match algorithm {
        RngAlgorithm::ThreeFry => {
            let (bits, moved) = if wide {
                let words: Vec<u64> = (0..n as u64)
                    .map(|i| {
                        let [a, b] = threefry2x32(split(key), split(s[1].wrapping_add(i)));
                        a as u64 | (b as u64) << 32
                    })
                    .collect();
                (words, n as u64)
            } else {
                threefry_words(key, s[1], &out.shape)
            };
            (bits, vec![key, s[1].wrapping_add(moved)])
        }
        RngAlgorithm::Default | RngAlgorithm::Philox => {
            // A two-word state is [key, counter low] with the key as the counter's
            // high word; a three-word one [key, counter low, counter high].
            let high = if s.len() >= 3 { s[2] } else { s[0] };
            let counter = (high as u128) << 64 | s[1] as u128;
            let (bits, moved) = if wide {
                let (w, moved) = philox_words(key, counter, 2 * n);
                let bits = w
                    .chunks(2)
                    .map(|p| p[0] as u64 | (p[1] as u64) << 32)
                    .collect();
                (bits, moved)
            } else {
                let (w, moved) = philox_words(key, counter, n);
                (w.into_iter().map(u64::from).collect(), moved)
            };
            let c = counter.wrapping_add(moved as u128);
            let mut next = vec![key, c as u64];
            if s.len() >= 3 {
                next.push((c >> 64) as u64);
            }
            (bits, next)
        }
    };
    // Narrower types keep each 32-bit word's low bits.
    Ok(vec![
        Literal {
            ty: state.ty.clone(),
            elements: Elements::U64(next),
        },
        Literal {
            ty: out.clone(),
            elements: Elements::from_bits(out.dtype, &bits),
        },
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random123's kat_vectors for philox4x32_10.
    #[test]
    fn philox_known_answers() {
        assert_eq!(
            philox4x32_10([0, 0], [0, 0, 0, 0]),
            [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
        );
        assert_eq!(
            philox4x32_10([0xffffffff, 0xffffffff], [0xffffffff; 4]),
            [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]
        );
        assert_eq!(
            philox4x32_10(
                [0xa4093822, 0x299f31d0],
                [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344]
            ),
            [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]
        );
    }

    #[test]
    fn seed_and_index_map_to_key_and_counter() {
        let seed = 0x0123_4567_89ab_cdef_i64;
        let index = 0x0000_0007_0000_0005_u64;
        assert_eq!(
            bits(seed, index),
            philox4x32_10([0x89ab_cdef, 0x0123_4567], [5, 7, 0, 0])
        );
        // A negative seed is its two's-complement bits.
        assert_eq!(
            bits(-1, 0),
            philox4x32_10([0xffff_ffff, 0xffff_ffff], [0, 0, 0, 0])
        );
    }

    #[test]
    fn uniform_edges() {
        assert_eq!(uniform_f32([0, 0, 0, 0]), 0.0);
        assert_eq!(uniform_f32([u32::MAX, 0, 0, 0]), 1.0 - 2f32.powi(-24));
        assert_eq!(
            uniform_f64([u32::MAX, u32::MAX, 0, 0]),
            1.0 - 2f64.powi(-53)
        );
        // Just below 1 in f32 rounds to 1.0 in bf16 and f16 to nearest; toward zero it stays below.
        assert_eq!(
            uniform_bf16([u32::MAX, 0, 0, 0]).to_f32(),
            1.0 - 2f32.powi(-8)
        );
        assert_eq!(
            uniform_f16([u32::MAX, 0, 0, 0]).to_f32(),
            1.0 - 2f32.powi(-11)
        );
        assert_eq!(
            uniform_f16([0x100, 0, 0, 0]).to_f32(),
            2f32.powi(-24),
            "the smallest f16 subnormal"
        );
    }

    #[test]
    fn normal_edges() {
        // u1 = 1 (the largest) gives ln 1 = 0, so z = ±0.
        assert_eq!(normal_f64([u32::MAX, u32::MAX, 0, 0]).abs(), 0.0);
        // u1 = 2^-53 (the smallest), u2 = 0: z = sqrt(2 * 53 ln 2).
        let z = normal_f64([0, 0, 0, 0]);
        assert!(
            (z - (106.0 * std::f64::consts::LN_2).sqrt()).abs() < 1e-12,
            "{z}"
        );
    }
}
