//! Element types and static tensor types.

use serde::{Deserialize, Serialize};
use std::fmt;

/// An element type, named as MLIR names it (`f32`, `bf16`, `ui32`, `i1`, ...).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum DType {
    /// IEEE single precision (`f32`).
    F32,
    /// IEEE double precision (`f64`).
    F64,
    /// bfloat16 (`bf16`): f32's exponent, 8 bits of significand.
    BF16,
    /// IEEE half precision (`f16`).
    F16,
    /// 32-bit signed integer (`i32`).
    I32,
    /// 64-bit signed integer (`i64`).
    I64,
    /// A boolean, as StableHLO's `i1`.
    I1,
    /// 8-bit signed integer (`i8`).
    I8,
    /// 16-bit signed integer (`i16`).
    I16,
    /// Unsigned integers (`ui8` .. `ui64`): what `jax.random`'s threefry computes in.
    U8,
    /// 16-bit unsigned integer (`ui16`).
    U16,
    /// 32-bit unsigned integer (`ui32`).
    U32,
    /// 64-bit unsigned integer (`ui64`).
    U64,
}

impl DType {
    /// Every element type, in a fixed order.
    pub const ALL: [DType; 13] = [
        DType::F32,
        DType::F64,
        DType::BF16,
        DType::F16,
        DType::I32,
        DType::I64,
        DType::I1,
        DType::I8,
        DType::I16,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
    ];

    /// The MLIR spelling: `f32`, `i1`, `ui32`, ...
    pub fn name(self) -> &'static str {
        match self {
            DType::F32 => "f32",
            DType::F64 => "f64",
            DType::BF16 => "bf16",
            DType::F16 => "f16",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::I1 => "i1",
            DType::I8 => "i8",
            DType::I16 => "i16",
            DType::U8 => "ui8",
            DType::U16 => "ui16",
            DType::U32 => "ui32",
            DType::U64 => "ui64",
        }
    }

    /// Parses the MLIR spelling; `None` for anything else.
    pub fn from_name(s: &str) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.name() == s)
    }

    /// f32, f64, bf16 or f16.
    pub fn is_float(self) -> bool {
        matches!(self, DType::F32 | DType::F64 | DType::BF16 | DType::F16)
    }

    /// The distance from 1.0 to the next float of this type (`None` for integers):
    /// `2^-7` for bf16, `2^-10` for f16, `2^-23` for f32, `2^-52` for f64.
    pub fn epsilon(self) -> Option<f64> {
        let mantissa = match self {
            DType::BF16 => 7,
            DType::F16 => 10,
            DType::F32 => 23,
            DType::F64 => 52,
            _ => return None,
        };
        Some((-(mantissa as f64)).exp2())
    }

    /// Integers, signed or unsigned; `i1` is a boolean, not counted here.
    pub fn is_int(self) -> bool {
        self.is_signed_int() || self.is_unsigned()
    }

    /// Signed integers (`i8` .. `i64`).
    pub fn is_signed_int(self) -> bool {
        matches!(self, DType::I8 | DType::I16 | DType::I32 | DType::I64)
    }

    /// Unsigned integers (`ui8` .. `ui64`).
    /// ui8 .. ui64.
    pub fn is_unsigned(self) -> bool {
        matches!(self, DType::U8 | DType::U16 | DType::U32 | DType::U64)
    }

    /// i1.
    pub fn is_bool(self) -> bool {
        self == DType::I1
    }

    /// Bits of one element (1 for i1).
    pub fn bit_width(self) -> usize {
        match self {
            DType::F64 | DType::I64 | DType::U64 => 64,
            DType::F32 | DType::I32 | DType::U32 => 32,
            DType::BF16 | DType::F16 | DType::I16 | DType::U16 => 16,
            DType::I8 | DType::U8 => 8,
            DType::I1 => 1,
        }
    }

    /// Bytes one element takes in memory and on the wire (`i1` takes a byte).
    pub fn size_bytes(self) -> usize {
        self.bit_width().div_ceil(8)
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A ranked tensor type with a static shape: `tensor<8x16xf32>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TensorType {
    /// The element type.
    pub dtype: DType,
    /// The size of each dimension.
    pub shape: Vec<usize>,
}

impl TensorType {
    /// The type of `shape` of `dtype`.
    pub fn new(dtype: DType, shape: impl Into<Vec<usize>>) -> TensorType {
        TensorType {
            dtype,
            shape: shape.into(),
        }
    }

    /// A rank-0 tensor.
    pub fn scalar(dtype: DType) -> TensorType {
        TensorType::new(dtype, Vec::new())
    }

    /// Its number of dimensions.
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// Its number of elements (1 for a scalar).
    pub fn num_elements(&self) -> usize {
        self.shape.iter().product()
    }

    /// Its bytes in memory (an i1 takes a byte).
    pub fn size_bytes(&self) -> usize {
        self.num_elements() * self.dtype.size_bytes()
    }

    /// The same shape with another element type.
    pub fn with_dtype(&self, dtype: DType) -> TensorType {
        TensorType::new(dtype, self.shape.clone())
    }

    /// Row-major strides, in elements.
    pub fn strides(&self) -> Vec<usize> {
        row_major_strides(&self.shape)
    }
}

/// Row-major strides of a shape, in elements.
pub fn row_major_strides(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1];
    }
    strides
}

/// Steps a multi-index over `shape` to the next position in row-major order, wrapping to
/// all zeros after the last.
///
/// ```
/// let mut i = [0, 2];
/// shardc_ir::dtype::advance_row_major(&mut i, &[2, 3]);
/// assert_eq!(i, [1, 0]);
/// ```
pub fn advance_row_major(index: &mut [usize], shape: &[usize]) {
    for d in (0..index.len()).rev() {
        index[d] += 1;
        if index[d] < shape[d] {
            return;
        }
        index[d] = 0;
    }
}

impl fmt::Display for TensorType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("tensor<")?;
        for d in &self.shape {
            write!(f, "{d}x")?;
        }
        write!(f, "{}>", self.dtype)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_like_mlir() {
        assert_eq!(
            TensorType::new(DType::F32, [8, 16]).to_string(),
            "tensor<8x16xf32>"
        );
        assert_eq!(TensorType::scalar(DType::I1).to_string(), "tensor<i1>");
    }

    #[test]
    fn strides_are_row_major() {
        assert_eq!(row_major_strides(&[2, 3, 4]), vec![12, 4, 1]);
        assert_eq!(row_major_strides(&[]), Vec::<usize>::new());
    }
}
