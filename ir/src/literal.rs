//! Tensor contents: constants in the IR and values in the reference interpreter.

use crate::dtype::{DType, TensorType};
use crate::error::IrError;
use half::{bf16, f16};
use serde::{Deserialize, Serialize};

/// Elements of one dtype, stored in that dtype (so f32 arithmetic rounds as f32 does).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Elements {
    /// f32 elements.
    F32(Vec<f32>),
    /// f64 elements.
    F64(Vec<f64>),
    /// bf16 elements.
    BF16(Vec<bf16>),
    /// f16 elements.
    F16(Vec<f16>),
    /// i32 elements.
    I32(Vec<i32>),
    /// i64 elements.
    I64(Vec<i64>),
    /// i1 elements (booleans).
    I1(Vec<bool>),
    /// i8 elements.
    I8(Vec<i8>),
    /// i16 elements.
    I16(Vec<i16>),
    /// ui8 elements.
    U8(Vec<u8>),
    /// ui16 elements.
    U16(Vec<u16>),
    /// ui32 elements.
    U32(Vec<u32>),
    /// ui64 elements.
    U64(Vec<u64>),
}

/// Applies `$body` to the vector inside any variant, binding it as `$v`.
#[macro_export]
macro_rules! for_each_elements {
    ($e:expr, $v:ident => $body:expr) => {
        match $e {
            $crate::Elements::F32($v) => $body,
            $crate::Elements::F64($v) => $body,
            $crate::Elements::BF16($v) => $body,
            $crate::Elements::F16($v) => $body,
            $crate::Elements::I32($v) => $body,
            $crate::Elements::I64($v) => $body,
            $crate::Elements::I1($v) => $body,
            $crate::Elements::I8($v) => $body,
            $crate::Elements::I16($v) => $body,
            $crate::Elements::U8($v) => $body,
            $crate::Elements::U16($v) => $body,
            $crate::Elements::U32($v) => $body,
            $crate::Elements::U64($v) => $body,
        }
    };
}

/// Maps the vector inside any variant to a vector of the same type, in the same variant:
/// `map_elements!(e, v => v.iter().rev().copied().collect())`.
#[macro_export]
macro_rules! map_elements {
    ($e:expr, $v:ident => $body:expr) => {
        match $e {
            $crate::Elements::F32($v) => $crate::Elements::F32($body),
            $crate::Elements::F64($v) => $crate::Elements::F64($body),
            $crate::Elements::BF16($v) => $crate::Elements::BF16($body),
            $crate::Elements::F16($v) => $crate::Elements::F16($body),
            $crate::Elements::I32($v) => $crate::Elements::I32($body),
            $crate::Elements::I64($v) => $crate::Elements::I64($body),
            $crate::Elements::I1($v) => $crate::Elements::I1($body),
            $crate::Elements::I8($v) => $crate::Elements::I8($body),
            $crate::Elements::I16($v) => $crate::Elements::I16($body),
            $crate::Elements::U8($v) => $crate::Elements::U8($body),
            $crate::Elements::U16($v) => $crate::Elements::U16($body),
            $crate::Elements::U32($v) => $crate::Elements::U32($body),
            $crate::Elements::U64($v) => $crate::Elements::U64($body),
        }
    };
}

/// The integer variants with their Rust types, for the conversions below.
macro_rules! for_int_variants {
    ($m:ident) => {
        $m!(I32, i32);
        $m!(I64, i64);
        $m!(I8, i8);
        $m!(I16, i16);
        $m!(U8, u8);
        $m!(U16, u16);
        $m!(U32, u32);
        $m!(U64, u64);
    };
}

/// One element as a number: floats as `f64` (exact for every float dtype), integers as `i64`
/// (a `ui64` above `i64::MAX` as its bits: [`Scalar::as_f64`] of it is negative).
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Scalar {
    /// A float of any width, as f64.
    Float(f64),
    /// An integer of any width, as i64 (a `ui64` as its bits).
    Int(i64),
    /// A boolean.
    Bool(bool),
}

impl Scalar {
    /// The value as `f64` (booleans as 0 or 1).
    pub fn as_f64(self) -> f64 {
        match self {
            Scalar::Float(x) => x,
            Scalar::Int(i) => i as f64,
            Scalar::Bool(b) => b as u8 as f64,
        }
    }

    /// The value as `i64` (floats truncated toward zero, as `convert` does).
    pub fn as_i64(self) -> i64 {
        match self {
            Scalar::Float(x) => x as i64,
            Scalar::Int(i) => i,
            Scalar::Bool(b) => b as i64,
        }
    }

    /// Whether it is not zero (a boolean as it is).
    pub fn as_bool(self) -> bool {
        match self {
            Scalar::Float(x) => x != 0.0,
            Scalar::Int(i) => i != 0,
            Scalar::Bool(b) => b,
        }
    }
}

impl Elements {
    /// `n` zeros (or `false`s) of a dtype.
    pub fn zeros(dtype: DType, n: usize) -> Elements {
        match dtype {
            DType::F32 => Elements::F32(vec![0.0; n]),
            DType::F64 => Elements::F64(vec![0.0; n]),
            DType::BF16 => Elements::BF16(vec![bf16::ZERO; n]),
            DType::F16 => Elements::F16(vec![f16::ZERO; n]),
            DType::I32 => Elements::I32(vec![0; n]),
            DType::I64 => Elements::I64(vec![0; n]),
            DType::I1 => Elements::I1(vec![false; n]),
            DType::I8 => Elements::I8(vec![0; n]),
            DType::I16 => Elements::I16(vec![0; n]),
            DType::U8 => Elements::U8(vec![0; n]),
            DType::U16 => Elements::U16(vec![0; n]),
            DType::U32 => Elements::U32(vec![0; n]),
            DType::U64 => Elements::U64(vec![0; n]),
        }
    }

    /// Converts values to a dtype, rounding as `stablehlo.convert` does (floats to
    /// integers truncate toward zero and saturate).
    pub fn from_f64(dtype: DType, v: &[f64]) -> Elements {
        macro_rules! int {
            ($variant:ident, $t:ty) => {
                if dtype == DType::$variant {
                    return Elements::$variant(v.iter().map(|&x| x as $t).collect());
                }
            };
        }
        for_int_variants!(int);
        match dtype {
            DType::F32 => Elements::F32(v.iter().map(|&x| x as f32).collect()),
            DType::F64 => Elements::F64(v.to_vec()),
            DType::BF16 => Elements::BF16(v.iter().map(|&x| bf16::from_f64(x)).collect()),
            DType::F16 => Elements::F16(v.iter().map(|&x| f16::from_f64(x)).collect()),
            _ => Elements::I1(v.iter().map(|&x| x != 0.0).collect()),
        }
    }

    /// Builds elements of a dtype from scalars (converting each; integers wrap).
    pub fn from_scalars(dtype: DType, v: &[Scalar]) -> Elements {
        macro_rules! int {
            ($variant:ident, $t:ty) => {
                if dtype == DType::$variant {
                    return Elements::$variant(v.iter().map(|s| s.as_i64() as $t).collect());
                }
            };
        }
        for_int_variants!(int);
        match dtype {
            DType::I1 => Elements::I1(v.iter().map(|s| s.as_bool()).collect()),
            _ => Elements::from_f64(dtype, &v.iter().map(|s| s.as_f64()).collect::<Vec<_>>()),
        }
    }

    /// Their element type.
    pub fn dtype(&self) -> DType {
        match self {
            Elements::F32(_) => DType::F32,
            Elements::F64(_) => DType::F64,
            Elements::BF16(_) => DType::BF16,
            Elements::F16(_) => DType::F16,
            Elements::I32(_) => DType::I32,
            Elements::I64(_) => DType::I64,
            Elements::I1(_) => DType::I1,
            Elements::I8(_) => DType::I8,
            Elements::I16(_) => DType::I16,
            Elements::U8(_) => DType::U8,
            Elements::U16(_) => DType::U16,
            Elements::U32(_) => DType::U32,
            Elements::U64(_) => DType::U64,
        }
    }

    /// How many elements.
    pub fn len(&self) -> usize {
        for_each_elements!(self, v => v.len())
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i` as a scalar.
    pub fn get(&self, i: usize) -> Scalar {
        match self {
            Elements::F32(v) => Scalar::Float(v[i] as f64),
            Elements::F64(v) => Scalar::Float(v[i]),
            Elements::BF16(v) => Scalar::Float(v[i].to_f64()),
            Elements::F16(v) => Scalar::Float(v[i].to_f64()),
            Elements::I32(v) => Scalar::Int(v[i] as i64),
            Elements::I64(v) => Scalar::Int(v[i]),
            Elements::I1(v) => Scalar::Bool(v[i]),
            Elements::I8(v) => Scalar::Int(v[i] as i64),
            Elements::I16(v) => Scalar::Int(v[i] as i64),
            Elements::U8(v) => Scalar::Int(v[i] as i64),
            Elements::U16(v) => Scalar::Int(v[i] as i64),
            Elements::U32(v) => Scalar::Int(v[i] as i64),
            Elements::U64(v) => Scalar::Int(v[i] as i64),
        }
    }

    /// Every element as `f64`.
    pub fn to_f64_vec(&self) -> Vec<f64> {
        match self {
            Elements::U64(v) => v.iter().map(|&x| x as f64).collect(),
            _ => (0..self.len()).map(|i| self.get(i).as_f64()).collect(),
        }
    }

    /// A new vector of the same dtype holding the elements at `indices`.
    pub fn gather(&self, indices: &[usize]) -> Elements {
        map_elements!(self, v => indices.iter().map(|&i| v[i]).collect())
    }

    /// Elements `range`, as a new vector of the same dtype.
    pub fn slice(&self, range: std::ops::Range<usize>) -> Elements {
        map_elements!(self, v => v[range].to_vec())
    }

    /// The elements of `ranges`, one range after the other.
    pub fn ranges(&self, ranges: &[std::ops::Range<usize>]) -> Elements {
        let len = ranges.iter().map(ExactSizeIterator::len).sum();
        map_elements!(self, v => {
            let mut out = Vec::with_capacity(len);
            for r in ranges {
                out.extend_from_slice(&v[r.clone()]);
            }
            out
        })
    }

    /// Runs of `run` elements taken from each part in turn (the first run of every part,
    /// then the second, ...): blocks of a dimension joined, when each part is a block and
    /// `run` the block's extent times the dimensions after it. `None` when the parts differ
    /// in dtype or length, a part is not a whole number of runs, or there are none.
    pub fn interleave<E: std::borrow::Borrow<Elements>>(
        parts: &[E],
        run: usize,
    ) -> Option<Elements> {
        Elements::interleave_into(parts, run, None)
    }

    /// [`Elements::interleave`] written into `storage` when it has the parts' dtype (its
    /// old elements dropped, its allocation kept: a reused buffer's pages are already
    /// mapped, where a fresh one faults each in).
    pub fn interleave_into<E: std::borrow::Borrow<Elements>>(
        parts: &[E],
        run: usize,
        storage: Option<Elements>,
    ) -> Option<Elements> {
        let first = parts.first()?.borrow();
        let len = first.len();
        if parts.iter().any(|p| p.borrow().len() != len) || (run == 0 && len != 0) {
            return None;
        }
        if run == 0 || len % run != 0 {
            return (len == 0).then(|| Elements::zeros(first.dtype(), 0));
        }
        macro_rules! weave {
            ($variant:ident) => {{
                let slices: Vec<&[_]> = parts
                    .iter()
                    .map(|p| match p.borrow() {
                        Elements::$variant(v) => Some(v.as_slice()),
                        _ => None,
                    })
                    .collect::<Option<_>>()?;
                let mut out = match storage {
                    Some(Elements::$variant(mut v)) => {
                        v.clear();
                        v.reserve(len * parts.len());
                        v
                    }
                    _ => Vec::with_capacity(len * parts.len()),
                };
                for o in 0..len / run {
                    for s in &slices {
                        out.extend_from_slice(&s[o * run..(o + 1) * run]);
                    }
                }
                Elements::$variant(out)
            }};
        }
        Some(match first {
            Elements::F32(_) => weave!(F32),
            Elements::F64(_) => weave!(F64),
            Elements::BF16(_) => weave!(BF16),
            Elements::F16(_) => weave!(F16),
            Elements::I32(_) => weave!(I32),
            Elements::I64(_) => weave!(I64),
            Elements::I1(_) => weave!(I1),
            Elements::I8(_) => weave!(I8),
            Elements::I16(_) => weave!(I16),
            Elements::U8(_) => weave!(U8),
            Elements::U16(_) => weave!(U16),
            Elements::U32(_) => weave!(U32),
            Elements::U64(_) => weave!(U64),
        })
    }

    /// The parts one after the other; `None` when they are not all of one dtype (or there
    /// are none).
    pub fn concat<E: std::borrow::Borrow<Elements>>(parts: &[E]) -> Option<Elements> {
        Elements::concat_into(parts, None)
    }

    /// [`Elements::concat`] written into `storage` when it has the parts' dtype (its
    /// allocation kept, as [`Elements::interleave_into`]).
    pub fn concat_into<E: std::borrow::Borrow<Elements>>(
        parts: &[E],
        storage: Option<Elements>,
    ) -> Option<Elements> {
        let total: usize = parts.iter().map(|p| p.borrow().len()).sum();
        macro_rules! cat {
            ($variant:ident) => {{
                let mut out = match storage {
                    Some(Elements::$variant(mut v)) => {
                        v.clear();
                        v.reserve(total);
                        v
                    }
                    _ => Vec::with_capacity(total),
                };
                for p in parts {
                    let Elements::$variant(v) = p.borrow() else {
                        return None;
                    };
                    out.extend_from_slice(v);
                }
                Elements::$variant(out)
            }};
        }
        Some(match parts.first()?.borrow() {
            Elements::F32(_) => cat!(F32),
            Elements::F64(_) => cat!(F64),
            Elements::BF16(_) => cat!(BF16),
            Elements::F16(_) => cat!(F16),
            Elements::I32(_) => cat!(I32),
            Elements::I64(_) => cat!(I64),
            Elements::I1(_) => cat!(I1),
            Elements::I8(_) => cat!(I8),
            Elements::I16(_) => cat!(I16),
            Elements::U8(_) => cat!(U8),
            Elements::U16(_) => cat!(U16),
            Elements::U32(_) => cat!(U32),
            Elements::U64(_) => cat!(U64),
        })
    }

    /// Sets element `i` to element `j` of `src`; `false` (and nothing set) when `src` has
    /// another dtype.
    pub fn copy_element(&mut self, i: usize, src: &Elements, j: usize) -> bool {
        macro_rules! pairs {
            ($($variant:ident),*) => {
                match (self, src) {
                    $((Elements::$variant(a), Elements::$variant(b)) => {
                        a[i] = b[j];
                        true
                    })*
                    _ => false,
                }
            };
        }
        pairs!(
            F32, F64, BF16, F16, I32, I64, I1, I8, I16, U8, U16, U32, U64
        )
    }

    /// The raw bits of element `i`, zero-extended: what `dense<"0x...">` and bitwise equality use.
    pub fn bits(&self, i: usize) -> u64 {
        match self {
            Elements::F32(v) => v[i].to_bits() as u64,
            Elements::F64(v) => v[i].to_bits(),
            Elements::BF16(v) => v[i].to_bits() as u64,
            Elements::F16(v) => v[i].to_bits() as u64,
            Elements::I32(v) => v[i] as u32 as u64,
            Elements::I64(v) => v[i] as u64,
            Elements::I1(v) => v[i] as u64,
            Elements::I8(v) => v[i] as u8 as u64,
            Elements::I16(v) => v[i] as u16 as u64,
            Elements::U8(v) => v[i] as u64,
            Elements::U16(v) => v[i] as u64,
            Elements::U32(v) => v[i] as u64,
            Elements::U64(v) => v[i],
        }
    }

    /// Builds elements from raw bit patterns (the low `bit_width` bits of each).
    pub fn from_bits(dtype: DType, bits: &[u64]) -> Elements {
        match dtype {
            DType::F32 => Elements::F32(bits.iter().map(|&b| f32::from_bits(b as u32)).collect()),
            DType::F64 => Elements::F64(bits.iter().map(|&b| f64::from_bits(b)).collect()),
            DType::BF16 => {
                Elements::BF16(bits.iter().map(|&b| bf16::from_bits(b as u16)).collect())
            }
            DType::F16 => Elements::F16(bits.iter().map(|&b| f16::from_bits(b as u16)).collect()),
            DType::I32 => Elements::I32(bits.iter().map(|&b| b as u32 as i32).collect()),
            DType::I64 => Elements::I64(bits.iter().map(|&b| b as i64).collect()),
            DType::I1 => Elements::I1(bits.iter().map(|&b| b & 1 != 0).collect()),
            DType::I8 => Elements::I8(bits.iter().map(|&b| b as u8 as i8).collect()),
            DType::I16 => Elements::I16(bits.iter().map(|&b| b as u16 as i16).collect()),
            DType::U8 => Elements::U8(bits.iter().map(|&b| b as u8).collect()),
            DType::U16 => Elements::U16(bits.iter().map(|&b| b as u16).collect()),
            DType::U32 => Elements::U32(bits.iter().map(|&b| b as u32).collect()),
            DType::U64 => Elements::U64(bits.to_vec()),
        }
    }
}

/// Bitwise equality: NaNs with the same bits are equal, `0.0` and `-0.0` are not.
impl PartialEq for Elements {
    fn eq(&self, other: &Elements) -> bool {
        self.dtype() == other.dtype()
            && self.len() == other.len()
            && (0..self.len()).all(|i| self.bits(i) == other.bits(i))
    }
}

/// A tensor value: a type and its elements. A literal whose single element stands for a
/// larger shape is a *splat* (`dense<0.0> : tensor<8x8xf32>`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Literal {
    /// Its type.
    pub ty: TensorType,
    /// Its elements in row-major order (one, for a splat).
    pub elements: Elements,
}

impl Literal {
    /// Makes `self` equal to `src`, reusing `self`'s storage where it has room (a
    /// buffer of a pool written with another value), dense when `src` is a splat.
    pub fn copy_from(&mut self, src: &Literal) {
        macro_rules! reuse {
            ($($v:ident),*) => {
                match (&mut self.elements, &src.elements) {
                    $((Elements::$v(d), Elements::$v(s)) if s.len() == 1 => {
                        d.clear();
                        d.resize(src.ty.num_elements(), s[0]);
                    })*
                    $((Elements::$v(d), Elements::$v(s)) => d.clone_from(s),)*
                    (d, _) => *d = src.to_dense().elements,
                }
            };
        }
        reuse!(
            F32, F64, BF16, F16, I32, I64, I1, I8, I16, U8, U16, U32, U64
        );
        self.ty.clone_from(&src.ty);
    }

    /// A literal with one element per position of `ty`, or a single element (a splat).
    pub fn new(ty: TensorType, elements: Elements) -> Result<Literal, IrError> {
        if elements.dtype() != ty.dtype {
            return Err(IrError::InvalidLiteral(format!(
                "elements are {} but the type is {ty}",
                elements.dtype()
            )));
        }
        if elements.len() != ty.num_elements() && elements.len() != 1 {
            return Err(IrError::InvalidLiteral(format!(
                "{} elements given for {ty}, which holds {}; give exactly that many or one (a splat)",
                elements.len(),
                ty.num_elements()
            )));
        }
        Ok(Literal { ty, elements })
    }

    /// A splat of one value converted to `ty`'s dtype.
    pub fn splat(ty: TensorType, value: Scalar) -> Literal {
        let elements = Elements::from_scalars(ty.dtype, &[value]);
        Literal { ty, elements }
    }

    /// A rank-0 literal.
    pub fn scalar(dtype: DType, value: Scalar) -> Literal {
        Literal::splat(TensorType::scalar(dtype), value)
    }

    /// The deterministic input the tests, benchmarks and JAX fixtures feed argument `k`
    /// of a program: element `i` is `sin(0.37 i + k) / 2` rounded to f32, then converted
    /// to `ty`'s element type (integers round to 0, booleans are false).
    pub fn deterministic(ty: &TensorType, k: usize) -> Result<Literal, IrError> {
        let v: Vec<f64> = (0..ty.num_elements())
            .map(|i| ((0.37 * i as f64 + k as f64).sin() * 0.5) as f32 as f64)
            .collect();
        Literal::from_f64(ty.dtype, &ty.shape, &v)
    }

    /// A dense literal from `f64` values converted to `dtype`.
    pub fn from_f64(dtype: DType, shape: &[usize], values: &[f64]) -> Result<Literal, IrError> {
        Literal::new(
            TensorType::new(dtype, shape),
            Elements::from_f64(dtype, values),
        )
    }

    /// Whether one element stands for all of them.
    pub fn is_splat(&self) -> bool {
        self.elements.len() == 1 && self.ty.num_elements() != 1
    }

    /// The same value with one element per position (a splat expanded).
    pub fn to_dense(&self) -> Literal {
        if !self.is_splat() {
            return self.clone();
        }
        let n = self.ty.num_elements();
        Literal {
            ty: self.ty.clone(),
            elements: self.elements.gather(&vec![0; n]),
        }
    }

    /// Element at a flat row-major index (splats answer every index).
    pub fn get(&self, i: usize) -> Scalar {
        self.elements.get(if self.is_splat() { 0 } else { i })
    }

    /// Every element as `f64`, a splat expanded.
    pub fn to_f64_vec(&self) -> Vec<f64> {
        (0..self.ty.num_elements())
            .map(|i| self.get(i).as_f64())
            .collect()
    }

    /// The elements as they lie in memory (device buffers, checkpoint files): little
    /// endian, row major, `i1` as bytes 0/1, bf16 and f16 as their 16-bit patterns; a
    /// splat expanded. [`Literal::from_le_bytes`] is the inverse.
    pub fn to_le_bytes(&self) -> Vec<u8> {
        let dense = self.to_dense();
        match &dense.elements {
            Elements::I1(v) => v.iter().map(|&b| b as u8).collect(),
            Elements::BF16(v) => v.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect(),
            Elements::F16(v) => v.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect(),
            Elements::F32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Elements::F64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Elements::I32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Elements::I64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Elements::I8(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Elements::I16(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Elements::U8(v) => v.clone(),
            Elements::U16(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Elements::U32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Elements::U64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        }
    }

    /// The literal of type `ty` whose bytes (as [`Literal::to_le_bytes`] lays them out)
    /// are `bytes`; any nonzero byte is `true`. Fails when the length is not the type's.
    pub fn from_le_bytes(ty: &TensorType, bytes: &[u8]) -> Result<Literal, IrError> {
        let width = match ty.dtype {
            DType::I1 => 1,
            d => d.size_bytes(),
        };
        let want = ty.num_elements() * width;
        if bytes.len() != want {
            return Err(IrError::InvalidLiteral(format!(
                "{} bytes given for {ty}, which takes {want}",
                bytes.len()
            )));
        }
        fn words<const N: usize>(b: &[u8]) -> impl Iterator<Item = [u8; N]> + '_ {
            b.chunks_exact(N).map(|c| {
                let mut a = [0u8; N];
                a.copy_from_slice(c);
                a
            })
        }
        let elements = match ty.dtype {
            DType::F32 => Elements::F32(words::<4>(bytes).map(f32::from_le_bytes).collect()),
            DType::F64 => Elements::F64(words::<8>(bytes).map(f64::from_le_bytes).collect()),
            DType::BF16 => Elements::BF16(
                words::<2>(bytes)
                    .map(|w| bf16::from_bits(u16::from_le_bytes(w)))
                    .collect(),
            ),
            DType::F16 => Elements::F16(
                words::<2>(bytes)
                    .map(|w| f16::from_bits(u16::from_le_bytes(w)))
                    .collect(),
            ),
            DType::I32 => Elements::I32(words::<4>(bytes).map(i32::from_le_bytes).collect()),
            DType::I64 => Elements::I64(words::<8>(bytes).map(i64::from_le_bytes).collect()),
            DType::I1 => Elements::I1(bytes.iter().map(|&b| b != 0).collect()),
            DType::I8 => Elements::I8(words::<1>(bytes).map(i8::from_le_bytes).collect()),
            DType::I16 => Elements::I16(words::<2>(bytes).map(i16::from_le_bytes).collect()),
            DType::U8 => Elements::U8(bytes.to_vec()),
            DType::U16 => Elements::U16(words::<2>(bytes).map(u16::from_le_bytes).collect()),
            DType::U32 => Elements::U32(words::<4>(bytes).map(u32::from_le_bytes).collect()),
            DType::U64 => Elements::U64(words::<8>(bytes).map(u64::from_le_bytes).collect()),
        };
        Literal::new(ty.clone(), elements)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_round_trip_every_dtype() {
        for dtype in DType::ALL {
            let l = Literal::from_f64(dtype, &[2, 3], &[0.0, 1.0, -2.5, 3.0, 1e3, -0.0]).unwrap();
            let bytes = l.to_le_bytes();
            let width = if dtype == DType::I1 {
                1
            } else {
                dtype.size_bytes()
            };
            assert_eq!(bytes.len(), 6 * width, "{dtype}");
            let back = Literal::from_le_bytes(&l.ty, &bytes).unwrap();
            assert!(
                (0..6).all(|i| back.elements.bits(i) == l.elements.bits(i)),
                "{dtype}"
            );
            let short = Literal::from_le_bytes(&l.ty, &bytes[1..]).unwrap_err();
            assert!(short.to_string().contains("bytes given for"), "{short}");
        }
        // Little endian, whatever the host.
        let one = Literal::from_f64(DType::F32, &[1], &[1.0]).unwrap();
        assert_eq!(one.to_le_bytes(), vec![0, 0, 0x80, 0x3f]);
    }

    #[test]
    fn joined_into_storage_reuses_its_allocation() {
        let parts = [Elements::F32(vec![1.0, 2.0]), Elements::F32(vec![3.0, 4.0])];
        // Stale contents and a larger capacity: overwritten, kept.
        let storage = Elements::F32(vec![9.0; 6]);
        let Elements::F32(v) = &storage else {
            unreachable!()
        };
        let at = v.as_ptr();
        let out = Elements::interleave_into(&parts, 1, Some(storage)).unwrap();
        assert_eq!(out, Elements::F32(vec![1.0, 3.0, 2.0, 4.0]));
        let Elements::F32(v) = &out else {
            unreachable!()
        };
        assert_eq!(v.as_ptr(), at);
        let out = Elements::concat_into(&parts, Some(out)).unwrap();
        assert_eq!(out, Elements::F32(vec![1.0, 2.0, 3.0, 4.0]));
        let Elements::F32(v) = &out else {
            unreachable!()
        };
        assert_eq!(v.as_ptr(), at);
        // Storage of another dtype is not used.
        let out = Elements::concat_into(&parts, Some(Elements::I32(vec![0; 4]))).unwrap();
        assert_eq!(out, Elements::F32(vec![1.0, 2.0, 3.0, 4.0]));
    }

    #[test]
    fn splat_expands() {
        let l = Literal::splat(TensorType::new(DType::F32, [2, 2]), Scalar::Float(1.5));
        assert!(l.is_splat());
        assert_eq!(l.to_dense().elements, Elements::F32(vec![1.5; 4]));
        assert_eq!(l.get(3), Scalar::Float(1.5));
    }

    #[test]
    fn copy_from_reuses_storage_and_expands_splats() {
        let ty = TensorType::new(DType::F32, vec![2, 2]);
        let mut dest = Literal::new(ty.clone(), Elements::F32(vec![0.0; 4])).unwrap();
        let at = match &dest.elements {
            Elements::F32(v) => v.as_ptr(),
            _ => unreachable!(),
        };
        let src = Literal::new(ty.clone(), Elements::F32(vec![1.0, 2.0, 3.0, 4.0])).unwrap();
        dest.copy_from(&src);
        assert_eq!(dest, src);
        assert!(matches!(&dest.elements, Elements::F32(v) if v.as_ptr() == at));
        dest.copy_from(&Literal::splat(ty.clone(), Scalar::Float(1.5)));
        assert_eq!(dest.elements, Elements::F32(vec![1.5; 4]));
        // Another element type: replaced.
        let ints = Literal::new(
            TensorType::new(DType::I32, vec![3]),
            Elements::I32(vec![7, 8, 9]),
        );
        dest.copy_from(ints.as_ref().unwrap());
        assert_eq!(&dest, ints.as_ref().unwrap());
    }

    #[test]
    fn equality_is_bitwise() {
        assert_eq!(Elements::F32(vec![f32::NAN]), Elements::F32(vec![f32::NAN]));
        assert_ne!(Elements::F32(vec![0.0]), Elements::F32(vec![-0.0]));
    }

    #[test]
    fn rejects_wrong_counts() {
        let ty = TensorType::new(DType::F32, [3]);
        assert!(Literal::new(ty.clone(), Elements::F32(vec![1.0, 2.0])).is_err());
        assert!(Literal::new(ty, Elements::F64(vec![1.0])).is_err());
    }
}
