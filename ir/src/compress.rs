//! Compressed all-reduces, as DDP's communication hooks compress gradients: an f32 sum
//! whose pieces travel as bf16, or as int8 in blocks with one f32 scale each and the
//! quantization error fed back into the next call (`docs/topology.md`, "Compressed
//! all-reduces"). The compiler marks an all-reduce with [`COMPRESS`]; the cpu backend
//! runs it so.
//!
//! ```
//! use shardc_ir::compress::Compression;
//! let int8 = Compression::Int8 { block: 64 };
//! assert_eq!(int8.attribute(), "int8:64");
//! assert_eq!(Compression::parse("int8:64").unwrap(), int8);
//! // 1024 f32 (4096 B) travel as 1024 int8 and 16 f32 scales.
//! assert_eq!(int8.bytes(1024), 1024 + 16 * 4);
//! assert_eq!(Compression::Bf16.bytes(1024), 2048);
//! ```

use half::bf16;
use serde::{Deserialize, Serialize};

/// The op attribute of a compressed all-reduce: `shardc.compress = "int8:64"`.
pub const COMPRESS: &str = "shardc.compress";

/// How the pieces of a compressed all-reduce travel.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Compression {
    /// As bfloat16 (PyTorch's `bf16_compress_hook`): half the bytes, no error feedback;
    /// partial sums are added in f32.
    Bf16,
    /// As int8 in blocks of `block` elements with one f32 scale each (`max |x| / 127`),
    /// the quantization error of each device's contribution kept and added to its next
    /// contribution (error feedback): about a quarter of the bytes.
    Int8 {
        /// Elements per scale.
        block: usize,
    },
    /// PowerSGD (Vogels et al. 2019; PyTorch's `powerSGD_hook`): the buffer, viewed as a
    /// matrix `M` of [`Compression::matrix`]'s shape, travels as its rank-`rank` factors
    /// — `P = M Q` all-reduced and orthogonalized, then `Q = Mᵀ P` all-reduced, the sum
    /// approximated by `P Qᵀ` — with `Q` kept from call to call (one power iteration per
    /// call) and each device's error fed back.
    PowerSgd {
        /// Columns of the factors.
        rank: usize,
    },
}

impl Compression {
    /// The int8 compression with 64-element blocks.
    pub const INT8: Compression = Compression::Int8 { block: 64 };

    /// The [`COMPRESS`] attribute's value: `bf16`, `int8:64`, `powersgd:4`.
    pub fn attribute(&self) -> String {
        match self {
            Compression::Bf16 => "bf16".into(),
            Compression::Int8 { block } => format!("int8:{block}"),
            Compression::PowerSgd { rank } => format!("powersgd:{rank}"),
        }
    }

    /// The matrix PowerSGD views `len` values as: `(rows, cols)`, `cols = ceil(sqrt(len))`,
    /// `rows = ceil(len / cols)`, row-major, zero-padded.
    pub fn matrix(len: usize) -> (usize, usize) {
        let cols = (len as f64).sqrt().ceil().max(1.0) as usize;
        (len.div_ceil(cols), cols)
    }

    /// Reads a [`COMPRESS`] attribute's (unquoted) value.
    pub fn parse(value: &str) -> Result<Compression, String> {
        let bad = || {
            format!(
                "`{value}` is not a compression: write `bf16`, `int8:B` (B elements per scale, B >= 1) or `powersgd:R` (rank R >= 1)"
            )
        };
        match value.split_once(':') {
            None if value == "bf16" => Ok(Compression::Bf16),
            None if value == "int8" => Ok(Compression::INT8),
            Some(("int8", b)) => match b.trim().parse::<usize>() {
                Ok(block) if block >= 1 => Ok(Compression::Int8 { block }),
                _ => Err(bad()),
            },
            Some(("powersgd", r)) => match r.trim().parse::<usize>() {
                Ok(rank) if rank >= 1 => Ok(Compression::PowerSgd { rank }),
                _ => Err(bad()),
            },
            _ => Err(bad()),
        }
    }

    /// Whether the error of each contribution is fed back into the next.
    pub fn feeds_back(&self) -> bool {
        matches!(
            self,
            Compression::Int8 { .. } | Compression::PowerSgd { .. }
        )
    }

    /// Bytes `len` f32 elements travel as, encoded one by one (bf16, int8); PowerSGD
    /// sends factors, not encoded pieces: the values of `P` and `Q` ([`Compression::matrix`]).
    pub fn bytes(&self, len: usize) -> u64 {
        match self {
            Compression::Bf16 => 2 * len as u64,
            Compression::Int8 { block } => (len + 4 * len.div_ceil(*block)) as u64,
            Compression::PowerSgd { rank } => {
                let (rows, cols) = Compression::matrix(len);
                4 * (rank * (rows + cols)) as u64
            }
        }
    }

    /// `x` encoded, and what the receiver decodes it to (PowerSGD, which does not encode
    /// pieces one by one, sends them as they are).
    pub fn encode(&self, x: &[f32]) -> (Encoded, Vec<f32>) {
        match self {
            Compression::PowerSgd { .. } => (Encoded::F32(x.to_vec()), x.to_vec()),
            Compression::Bf16 => {
                let h: Vec<bf16> = x.iter().map(|&v| bf16::from_f32(v)).collect();
                let decoded = h.iter().map(|v| v.to_f32()).collect();
                (Encoded::Bf16(h), decoded)
            }
            Compression::Int8 { block } => {
                let mut q = Vec::with_capacity(x.len());
                let mut scales = Vec::with_capacity(x.len().div_ceil(*block));
                let mut decoded = Vec::with_capacity(x.len());
                for b in x.chunks(*block) {
                    let max = b.iter().fold(0.0f32, |m, v| m.max(v.abs()));
                    let scale = if max > 0.0 && max.is_finite() {
                        max / 127.0
                    } else {
                        1.0
                    };
                    scales.push(scale);
                    for &v in b {
                        let k = (v / scale).round().clamp(-127.0, 127.0) as i8;
                        q.push(k);
                        decoded.push(f32::from(k) * scale);
                    }
                }
                (Encoded::Int8 { q, scales }, decoded)
            }
        }
    }
}

/// A piece as it travels.
#[derive(Clone, Debug, PartialEq)]
pub enum Encoded {
    /// Uncompressed.
    F32(Vec<f32>),
    /// Rounded to bf16.
    Bf16(Vec<bf16>),
    /// Blockwise int8: the quantized values and one scale per block.
    Int8 {
        /// The values, each `round(x / scale)` of its block.
        q: Vec<i8>,
        /// Each block's scale (its largest magnitude / 127).
        scales: Vec<f32>,
    },
}

impl Encoded {
    /// The f32 values it stands for, with `block` elements per scale for int8.
    pub fn decode(&self, block: usize) -> Vec<f32> {
        match self {
            Encoded::F32(v) => v.clone(),
            Encoded::Bf16(h) => h.iter().map(|v| v.to_f32()).collect(),
            Encoded::Int8 { q, scales } => q
                .iter()
                .enumerate()
                .map(|(i, &k)| f32::from(k) * scales.get(i / block.max(1)).copied().unwrap_or(0.0))
                .collect(),
        }
    }

    /// Elements it stands for.
    pub fn len(&self) -> usize {
        match self {
            Encoded::F32(v) => v.len(),
            Encoded::Bf16(h) => h.len(),
            Encoded::Int8 { q, .. } => q.len(),
        }
    }

    /// Whether it stands for no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int8_blocks_keep_each_blocks_largest_value_and_bound_the_rest() {
        let x: Vec<f32> = (0..200)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) * 0.013)
            .collect();
        let c = Compression::Int8 { block: 64 };
        let (e, decoded) = c.encode(&x);
        assert_eq!(e.decode(64), decoded);
        for (b, (xs, ds)) in x.chunks(64).zip(decoded.chunks(64)).enumerate() {
            let max = xs.iter().fold(0.0f32, |m, v| m.max(v.abs()));
            for (v, d) in xs.iter().zip(ds) {
                assert!(
                    (v - d).abs() <= max / 254.0 * 1.0001,
                    "block {b}: {v} -> {d}"
                );
            }
        }
        let Encoded::Int8 { q, scales } = &e else {
            panic!("int8 encodes as int8")
        };
        assert_eq!((q.len(), scales.len()), (200, 4));
        assert_eq!(c.bytes(200), 200 + 16);
        // A block of zeros stays zeros.
        assert_eq!(c.encode(&[0.0; 8]).1, vec![0.0; 8]);
    }

    #[test]
    fn compressions_read_back_and_bad_ones_are_refused() {
        for c in [
            Compression::Bf16,
            Compression::Int8 { block: 128 },
            Compression::PowerSgd { rank: 4 },
        ] {
            assert_eq!(Compression::parse(&c.attribute()).unwrap(), c);
        }
        assert_eq!(Compression::parse("int8").unwrap(), Compression::INT8);
        assert_eq!(Compression::matrix(2049), (45, 46));
        assert_eq!(
            Compression::PowerSgd { rank: 4 }.bytes(2049),
            4 * 4 * (45 + 46)
        );
        for bad in [
            "fp8",
            "int8:0",
            "int8:x",
            "bf16:2",
            "powersgd:0",
            "powersgd",
        ] {
            let e = Compression::parse(bad).unwrap_err();
            assert!(e.contains("int8:B"), "{e}");
        }
    }
}
