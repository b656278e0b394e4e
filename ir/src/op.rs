//! Operations: StableHLO semantics and names, plus shardc's counter-based random op and
//! Shardy's sharding constraint.
//!
//! An [`Op`] is a kind (with the op's static attributes), operands, results and regions.
//! Per-op knowledge beyond names (result types, sharding rules, interpretation) lives in
//! the tables of `infer`, `rules` and the reference interpreter, keyed by [`OpKind`].

use crate::literal::Literal;
use crate::module::{BlockId, ValueId};
use crate::sharding::Sharding;
use serde::{Deserialize, Serialize};

macro_rules! named_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $variant:ident => $text:literal),* $(,)? }) => {
        $(#[$m])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum $name { $($(#[$vm])* #[doc = concat!("`", $text, "` in the text format.")] $variant),* }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            /// The name as the text format writes it.
            pub fn name(self) -> &'static str {
                match self { $($name::$variant => $text),* }
            }

            /// Parses the text-format name.
            pub fn from_name(s: &str) -> Option<$name> {
                match s { $($text => Some($name::$variant),)* _ => None }
            }
        }
    };
}

named_enum! {
    /// Elementwise ops with one operand (`stablehlo.<name>`).
    UnaryOp {
        Negate => "negate",
        Exponential => "exponential",
        ExponentialMinusOne => "exponential_minus_one",
        Log => "log",
        LogPlusOne => "log_plus_one",
        Tanh => "tanh",
        Sqrt => "sqrt",
        Rsqrt => "rsqrt",
        Cbrt => "cbrt",
        Abs => "abs",
        Logistic => "logistic",
        Not => "not",
        Sine => "sine",
        Cosine => "cosine",
        Tan => "tan",
        Floor => "floor",
        Ceil => "ceil",
        Sign => "sign",
        RoundNearestEven => "round_nearest_even",
        RoundNearestAfz => "round_nearest_afz",
        IsFinite => "is_finite",
        /// The number of set bits of an integer.
        Popcnt => "popcnt",
        /// The number of zero bits above an integer's highest set bit.
        CountLeadingZeros => "count_leading_zeros",
    }
}

named_enum! {
    /// Elementwise ops with two operands of one type (`stablehlo.<name>`).
    BinaryOp {
        Add => "add",
        Subtract => "subtract",
        Multiply => "multiply",
        Divide => "divide",
        Remainder => "remainder",
        Maximum => "maximum",
        Minimum => "minimum",
        Power => "power",
        Atan2 => "atan2",
        And => "and",
        Or => "or",
        Xor => "xor",
        ShiftLeft => "shift_left",
        ShiftRightLogical => "shift_right_logical",
        ShiftRightArithmetic => "shift_right_arithmetic",
    }
}

named_enum! {
    /// What `stablehlo.triangular_solve` applies to its matrix before solving.
    SolveTranspose {
        NoTranspose => "NO_TRANSPOSE",
        Transpose => "TRANSPOSE",
        /// The conjugate transpose (the transpose for real matrices).
        Adjoint => "ADJOINT",
    }
}

named_enum! {
    /// What `shardc.fft` computes (StableHLO's `fft_type`).
    FftType {
        /// The forward transform of complex values.
        Fft => "FFT",
        /// The inverse transform of complex values, scaled by `1/n`.
        Ifft => "IFFT",
        /// The forward transform of real values: the `n/2 + 1` non-negative frequencies
        /// of the last transformed dimension.
        Rfft => "RFFT",
        /// The inverse of `RFFT`: real values from the non-negative frequencies, scaled
        /// by `1/n`.
        Irfft => "IRFFT",
    }
}

named_enum! {
    /// `stablehlo.compare` directions.
    ComparisonDirection {
        Eq => "EQ",
        Ne => "NE",
        Ge => "GE",
        Gt => "GT",
        Le => "LE",
        Lt => "LT",
    }
}

named_enum! {
    /// `stablehlo.compare` comparison types.
    ComparisonType {
        Float => "FLOAT",
        TotalOrder => "TOTALORDER",
        Signed => "SIGNED",
        Unsigned => "UNSIGNED",
    }
}

named_enum! {
    /// `dot_general` precision config entries.
    Precision {
        Default => "DEFAULT",
        High => "HIGH",
        Highest => "HIGHEST",
    }
}

named_enum! {
    /// `stablehlo.rng_bit_generator` algorithms (XLA's CPU and GPU backends run DEFAULT
    /// as PHILOX).
    RngAlgorithm {
        Default => "DEFAULT",
        ThreeFry => "THREE_FRY",
        Philox => "PHILOX",
    }
}

named_enum! {
    /// Distributions of shardc's counter-based random op.
    Distribution {
        /// Uniform on `[0, 1)`.
        Uniform => "UNIFORM",
        /// Standard normal.
        Normal => "NORMAL",
    }
}

/// Dimension numbers of `stablehlo.dot_general`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct DotDims {
    /// The left operand's batch dimensions (paired with `rhs_batch`, in order).
    pub lhs_batch: Vec<usize>,
    /// The right operand's batch dimensions.
    pub rhs_batch: Vec<usize>,
    /// The left operand's contracting dimensions (paired with `rhs_contracting`).
    pub lhs_contracting: Vec<usize>,
    /// The right operand's contracting dimensions.
    pub rhs_contracting: Vec<usize>,
    /// The precision config as written (empty when absent).
    pub precision: Vec<Precision>,
    /// The algorithm, when the program names one.
    pub algorithm: Option<DotAlgorithm>,
}

/// A dot's `algorithm` (StableHLO's `#stablehlo.dot_algorithm`, what JAX writes for a
/// `jax.lax.DotAlgorithmPreset`): the precisions the operands may be rounded to and the
/// type products accumulate in. Like the precision config it is a request that the
/// backend may exceed: shardc computes a dot in its operand and result types, as XLA's
/// CPU backend does with the algorithms it accepts (`BF16_BF16_F32` on f32 operands gives
/// f32 products there), and keeps the algorithm so that the program prints as written.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct DotAlgorithm {
    /// `lhs_precision_type` (`bf16`, `tf32`, ...).
    pub lhs_precision: String,
    /// `rhs_precision_type`.
    pub rhs_precision: String,
    /// `accumulation_type`.
    pub accumulation: String,
    /// `num_primitive_operations` (3, 6 or 9: f32 emulated by bf16 passes).
    pub primitive_operations: i64,
    /// `allow_imprecise_accumulation`.
    pub allow_imprecise_accumulation: bool,
}

impl DotAlgorithm {
    /// The fields, in the order StableHLO prints them.
    pub const FIELDS: [&'static str; 7] = [
        "lhs_precision_type",
        "rhs_precision_type",
        "accumulation_type",
        "lhs_component_count",
        "rhs_component_count",
        "num_primitive_operations",
        "allow_imprecise_accumulation",
    ];

    /// The precision and accumulation types read.
    pub const TYPES: [&'static str; 5] = ["tf32", "bf16", "f16", "f32", "f64"];

    /// The fields as StableHLO prints them, between the angle brackets.
    pub fn fields(&self) -> String {
        format!(
            "lhs_precision_type = {}, rhs_precision_type = {}, accumulation_type = {}, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = {}, allow_imprecise_accumulation = {}",
            self.lhs_precision,
            self.rhs_precision,
            self.accumulation,
            self.primitive_operations,
            self.allow_imprecise_accumulation
        )
    }

    /// The algorithm of the dot with its operands exchanged.
    pub fn swapped(&self) -> DotAlgorithm {
        DotAlgorithm {
            lhs_precision: self.rhs_precision.clone(),
            rhs_precision: self.lhs_precision.clone(),
            ..self.clone()
        }
    }
}

impl DotDims {
    /// The left operand's free dimensions (neither batch nor contracting), in order, of
    /// an operand of `rank` dimensions: the result's dimensions after the batch ones.
    pub fn lhs_free(&self, rank: usize) -> Vec<usize> {
        free_dims(rank, &self.lhs_batch, &self.lhs_contracting)
    }

    /// The right operand's free dimensions, in order: the result's last dimensions.
    pub fn rhs_free(&self, rank: usize) -> Vec<usize> {
        free_dims(rank, &self.rhs_batch, &self.rhs_contracting)
    }
}

fn free_dims(rank: usize, batch: &[usize], contracting: &[usize]) -> Vec<usize> {
    (0..rank)
        .filter(|i| !batch.contains(i) && !contracting.contains(i))
        .collect()
}

/// The window of `stablehlo.reduce_window`, one entry per operand dimension.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct WindowDims {
    /// The window's size per dimension.
    pub window: Vec<usize>,
    /// The step between windows per dimension.
    pub strides: Vec<usize>,
    /// The operand's dilation per dimension (1: none).
    pub base_dilations: Vec<usize>,
    /// The window's dilation per dimension (1: none).
    pub window_dilations: Vec<usize>,
    /// `(low, high)` padding per dimension.
    pub padding: Vec<(i64, i64)>,
}

impl WindowDims {
    /// Whether dimension `d` is untouched: a window of 1, stride 1, no dilation or padding
    /// (every element is its own window: the dimension passes through).
    pub fn passes_through(&self, d: usize) -> bool {
        self.window[d] == 1
            && self.strides[d] == 1
            && self.base_dilations[d] == 1
            && self.window_dilations[d] == 1
            && self.padding[d] == (0, 0)
    }
}

/// Dimension numbers and slice sizes of `stablehlo.gather`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct GatherDims {
    /// Dimensions of the result that hold a slice's (uncollapsed) dimensions.
    pub offset_dims: Vec<usize>,
    /// Operand dimensions the slices have size 1 in and the result leaves out.
    pub collapsed_slice_dims: Vec<usize>,
    /// Operand dimensions batched with `start_indices_batching_dims`, in order.
    pub operand_batching_dims: Vec<usize>,
    /// Index dimensions batched with the operand's.
    pub start_indices_batching_dims: Vec<usize>,
    /// For each component of an index vector, the operand dimension it starts.
    pub start_index_map: Vec<usize>,
    /// The dimension of the indices that holds index vectors.
    pub index_vector_dim: usize,
    /// The size of the slice taken per operand dimension.
    pub slice_sizes: Vec<usize>,
    /// The indices are sorted (a promise the program makes).
    pub indices_are_sorted: bool,
}

/// The dimension numbers, window and groups of `stablehlo.convolution`: which dimension of
/// the input (`lhs`), kernel (`rhs`) and output is the batch, the feature and each spatial
/// dimension, and the window's strides, padding, dilations and reversal per spatial
/// dimension.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct ConvDims {
    /// The input's batch dimension.
    pub input_batch: usize,
    /// The input's feature dimension.
    pub input_feature: usize,
    /// The input's spatial dimensions, in order.
    pub input_spatial: Vec<usize>,
    /// The kernel's input-feature dimension.
    pub kernel_input_feature: usize,
    /// The kernel's output-feature dimension.
    pub kernel_output_feature: usize,
    /// The kernel's spatial dimensions, in order.
    pub kernel_spatial: Vec<usize>,
    /// The output's batch dimension.
    pub output_batch: usize,
    /// The output's feature dimension.
    pub output_feature: usize,
    /// The output's spatial dimensions, in order.
    pub output_spatial: Vec<usize>,
    /// The step between windows per spatial dimension.
    pub window_strides: Vec<usize>,
    /// `(low, high)` per spatial dimension (may be negative).
    pub padding: Vec<(i64, i64)>,
    /// The input's dilation per spatial dimension (a transposed convolution's stride).
    pub lhs_dilation: Vec<usize>,
    /// The kernel's dilation per spatial dimension (atrous convolution).
    pub rhs_dilation: Vec<usize>,
    /// Whether the kernel is reversed per spatial dimension.
    pub window_reversal: Vec<bool>,
    /// Groups the features are split into (depthwise: the feature count).
    pub feature_group_count: usize,
    /// Groups the batch is split into (kernel gradients of grouped convolutions).
    pub batch_group_count: usize,
    /// The precision config as written (empty when absent).
    pub precision: Vec<Precision>,
}

/// Dimension numbers of `stablehlo.scatter`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct ScatterDims {
    /// Dimensions of the updates that lie along the window written into the operand.
    pub update_window_dims: Vec<usize>,
    /// Operand dimensions the window has size 1 in and the updates leave out.
    pub inserted_window_dims: Vec<usize>,
    /// Operand dimensions batched with `scatter_indices_batching_dims`, in order.
    pub input_batching_dims: Vec<usize>,
    /// Index dimensions batched with the operand's.
    pub scatter_indices_batching_dims: Vec<usize>,
    /// For each component of an index vector, the operand dimension it starts.
    pub scatter_dims_to_operand_dims: Vec<usize>,
    /// The dimension of the indices that holds index vectors.
    pub index_vector_dim: usize,
    /// The indices are sorted (a promise the program makes).
    pub indices_are_sorted: bool,
    /// No two indices are equal (a promise the program makes).
    pub unique_indices: bool,
}

/// Replica groups of a collective: each inner list is one group of device ids (mesh
/// positions), in the order the group's pieces are concatenated or indexed. Every device
/// is in exactly one group; all groups have one size.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct ReplicaGroups(pub Vec<Vec<usize>>);

impl ReplicaGroups {
    /// The number of devices in each group (0 when there are no groups).
    pub fn group_size(&self) -> usize {
        self.0.first().map_or(0, Vec::len)
    }

    /// The group holding `device`, and the device's index in it.
    pub fn find(&self, device: usize) -> Option<(&[usize], usize)> {
        self.0.iter().find_map(|g| {
            g.iter()
                .position(|&d| d == device)
                .map(|i| (g.as_slice(), i))
        })
    }

    /// Checks the groups: non-empty, one size, no device twice.
    pub fn validate(&self) -> Result<(), String> {
        let n = self.group_size();
        if n == 0 {
            return Err("replica groups must be non-empty".into());
        }
        let mut seen = std::collections::HashSet::new();
        for g in &self.0 {
            if g.len() != n {
                return Err(format!(
                    "replica groups have sizes {n} and {}; all groups must have one size",
                    g.len()
                ));
            }
            for &d in g {
                if !seen.insert(d) {
                    return Err(format!("device {d} is in two replica groups"));
                }
            }
        }
        Ok(())
    }
}

/// What an op does, with its static attributes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum OpKind {
    /// An elementwise function of one operand.
    Unary(UnaryOp),
    /// An elementwise function of two operands of one type.
    Binary(BinaryOp),
    /// `stablehlo.compare`: elementwise, to `i1`.
    Compare {
        /// `EQ`, `LT`, ...
        direction: ComparisonDirection,
        /// How floats and integers are compared (`TOTALORDER` orders NaNs); absent: by the
        /// element type.
        compare_type: Option<ComparisonType>,
    },
    /// `select(pred, on_true, on_false)`; `pred` is `i1`, of the operands' shape or a scalar.
    Select,
    /// `clamp(min, x, max)`.
    Clamp,
    /// `stablehlo.constant`: the literal.
    Constant(Literal),
    /// `stablehlo.iota`: each element's index along `dimension`.
    Iota {
        /// The dimension counted along.
        dimension: usize,
    },
    /// `stablehlo.convert`: each element converted to the result's element type.
    Convert,
    /// `stablehlo.bitcast_convert`: the operand's bits read as another element type. Of
    /// equal widths the shape is kept; a wider result takes the operand's last dimension
    /// (of size `result width / operand width`, least significant part first); a narrower
    /// one adds a last dimension of that ratio.
    BitcastConvert,
    /// `stablehlo.broadcast_in_dim`: operand dimension `i` becomes result dimension
    /// `dims[i]` (size 1 or equal), the others repeat it.
    BroadcastInDim {
        /// The result dimension of each operand dimension.
        dims: Vec<usize>,
    },
    /// `stablehlo.reshape`: the elements in row-major order, in the result's shape.
    Reshape,
    /// `stablehlo.transpose`: result dimension `i` is operand dimension `permutation[i]`.
    Transpose {
        /// The operand dimension of each result dimension.
        permutation: Vec<usize>,
    },
    /// `stablehlo.reverse`: the operand with the order of `dimensions` reversed.
    Reverse {
        /// The dimensions reversed.
        dimensions: Vec<usize>,
    },
    /// `stablehlo.slice`: per dimension, the elements from `start` (included) to `limit`
    /// (excluded), every `strides`-th.
    Slice {
        /// The first index per dimension.
        start: Vec<usize>,
        /// The end per dimension (excluded).
        limit: Vec<usize>,
        /// The step per dimension.
        strides: Vec<usize>,
    },
    /// `stablehlo.concatenate`: the operands one after another along `dimension`.
    Concatenate {
        /// The dimension joined along.
        dimension: usize,
    },
    /// Edge padding (`low`, `high`, may be negative) and interior padding; operands `x, pad_value`.
    Pad {
        /// Elements added before each dimension (negative: removed).
        low: Vec<i64>,
        /// Elements added after each dimension (negative: removed).
        high: Vec<i64>,
        /// Elements added between two neighbours of each dimension.
        interior: Vec<i64>,
    },
    /// `stablehlo.dot_general`: a contraction with batch dimensions; the result is batch,
    /// then the left operand's free dimensions, then the right's.
    DotGeneral(DotDims),
    /// Reduces `N` operands with `N` scalar inits over `dimensions`; the one region is the
    /// reducer `(acc_1..acc_N, x_1..x_N) -> (acc_1..acc_N)`.
    Reduce {
        /// The dimensions reduced away.
        dimensions: Vec<usize>,
    },
    /// Operands `(operand, start_indices)`.
    Gather(GatherDims),
    /// `stablehlo.scatter`: operands `(inputs..., scatter_indices, updates...)`, `N` inputs
    /// and `N` updates; region 0 is the update computation `(old_1..old_N, upd_1..upd_N) ->
    /// (new_1..new_N)` on scalars. Each update element is combined into the result element
    /// its index and window position name; a window out of bounds is skipped whole (as
    /// XLA does). The results have the inputs' types.
    Scatter(ScatterDims),
    /// `stablehlo.convolution`: operands `(input, kernel)`. Each output element sums, over
    /// its group's input features and the window, the input (dilated by `lhs_dilation`,
    /// padded with zeros) times the kernel (dilated by `rhs_dilation`, reversed where
    /// asked), the window moving by `window_strides`.
    Convolution(ConvDims),
    /// `stablehlo.select_and_scatter`: operands `(operand, source, init)`; region 0
    /// selects (`(a, b) -> i1`, true to keep `a`), region 1 scatters (`(a, b) -> c`).
    /// Every window of the (padded) operand selects one element, and the source element of
    /// that window is combined into the result there, starting from the init.
    SelectAndScatter(WindowDims),
    /// `stablehlo.sort`: `N` operands of one shape sorted together along `dimension`; the
    /// region is the comparator `(lhs_1, rhs_1, ..., lhs_N, rhs_N) -> i1` on scalars,
    /// true when lhs goes before rhs. The results have the operands' types.
    Sort {
        /// The dimension sorted along.
        dimension: usize,
        /// Whether equal elements keep their order.
        is_stable: bool,
    },
    /// `stablehlo.reduce_window`: one operand and its scalar init; the one region is the
    /// reducer `(acc, x) -> acc`. Each result element reduces a window of the operand
    /// (dilated by `base_dilations`, padded by `padding` with the init value): the
    /// window's shape is `window`, spread by `window_dilations`, moved by `strides`.
    /// `jnp.cumsum` is a window over the whole dimension padded below by its size - 1.
    ReduceWindow(WindowDims),
    /// `stablehlo.dynamic_slice`: operands `(x, start_0, ..., start_{r-1})`, the starts
    /// integer scalars, each clamped into `[0, dim - size]`; the result is the block of
    /// `sizes` at the starts.
    DynamicSlice {
        /// The block's size per dimension.
        sizes: Vec<usize>,
    },
    /// `stablehlo.dynamic_update_slice`: operands `(x, update, start_0, ...)`; `x` with the
    /// block at the (clamped) starts replaced by `update`.
    DynamicUpdateSlice,
    /// shardc's counter-based random op (`shardc.random`): operand is a scalar `i64` seed;
    /// element `i` (flat row-major global index) is a pure function of `(seed, i)`, so the
    /// global tensor is the same however it is sharded.
    Random {
        /// Uniform in `[0, 1)` or standard normal.
        distribution: Distribution,
    },
    /// `stablehlo.while`: operands are the carried values' initial values, then the values
    /// its regions read from outside (captured: made operands when the op is built, so
    /// that every pass sees what the loop reads; the text prints only the carried ones).
    /// Region 0 (`cond`) and region 1 (`body`) take the carried values as arguments; cond
    /// returns a scalar `i1`, body the next carried values. The results are the carried
    /// values once cond is false.
    While,
    /// `stablehlo.case`: operand 0 is the branch index (a scalar `i32`; one out of range
    /// runs the last branch), then the values its branches read from outside (captured,
    /// as for [`OpKind::While`]). One region per branch, without arguments, each
    /// returning the results.
    Case,
    /// `stablehlo.rng_bit_generator`: from a `ui64` state (`[key, counter]`, or `[key,
    /// counter low, counter high]` for PHILOX), the next state and a tensor of random
    /// bits, bit for bit as XLA's CPU backend computes them (`jax.random` with the
    /// `rbg`/`unsafe_rbg` implementations).
    RngBitGenerator {
        /// `THREE_FRY`, `PHILOX` or `DEFAULT` (XLA's: Philox).
        algorithm: RngAlgorithm,
    },
    /// `stablehlo.cholesky`: the Cholesky factor of each symmetric positive-definite matrix
    /// in the last two dimensions (the others are batch dimensions): `L` with `a = L Lᵀ`
    /// (`lower`) or `U` with `a = Uᵀ U`, read from that triangle of `a`; the other triangle
    /// of the result is zero. A matrix that is not positive definite gives NaN from its
    /// failing column on (StableHLO leaves it to the implementation; JAX's CPU lowering
    /// makes such a matrix all NaN from LAPACK's status).
    Cholesky {
        /// `L` from the lower triangle (else `U` from the upper).
        lower: bool,
    },
    /// `stablehlo.triangular_solve`: `x` with `op(a) x = b` (`left_side`) or `x op(a) = b`,
    /// per matrix of the last two dimensions (the others are batch dimensions); `a` is
    /// triangular (its `lower` or upper triangle read, its diagonal taken as ones when
    /// `unit_diagonal`), `op` as `transpose_a` says.
    TriangularSolve {
        /// `op(a) x = b` (else `x op(a) = b`).
        left_side: bool,
        /// `a`'s lower triangle is read (else its upper).
        lower: bool,
        /// `a`'s diagonal is taken as ones.
        unit_diagonal: bool,
        /// `op(a)`: `a`, its transpose or its adjoint.
        transpose_a: SolveTranspose,
    },
    /// `shardc.lu`: LAPACK's `getrf`, what JAX's `lax.linalg.lu` is on CPU (under
    /// `jnp.linalg.solve`, `inv`, `det`, `slogdet`): `P a = L U` with partial pivoting, per
    /// `m x n` matrix of the last two dimensions. Results: `L` (below the diagonal; its
    /// unit diagonal not stored) and `U` in one matrix; the pivots (`i32`, `min(m, n)` per
    /// matrix, 1-based: row `i` was swapped with row `ipiv[i]` at step `i`); the status
    /// (`i32` per matrix: 0, or the 1-based index of the first zero on `U`'s diagonal).
    Lu,
    /// `shardc.tridiagonal_solve`: LAPACK's `gtsv`, what JAX's
    /// `lax.linalg.tridiagonal_solve` is on CPU: solves `A x = b` per system of the leading
    /// (batch) dimensions, `A` tridiagonal of order `n`, by Gaussian elimination with
    /// partial pivoting (an interchange of adjacent rows where the subdiagonal entry is
    /// the larger). Operands `(dl, d, du, b)`: `dl`, `d`, `du` of `[batch..., n]` (the
    /// sub-, main and superdiagonal; `dl[0]` and `du[n-1]` unused), `b` of `[batch..., n,
    /// nrhs]`. Results as LAPACK leaves its arrays: `dl` (from `dl[1]` on, `U`'s second
    /// superdiagonal), `d` and `du` (`U`'s diagonal and first superdiagonal), the solution,
    /// and the status (`i32` per system: 0, or the 1-based index of the first zero pivot,
    /// where elimination stopped).
    TridiagonalSolve,
    /// `shardc.fft`: `stablehlo.fft` over complex values held as pairs. shardc reads
    /// `complex<f32>` and `complex<f64>` as their float type with one more, innermost,
    /// dimension of 2 (real part, imaginary part), so a complex `[b, n]` is a float
    /// `[b, n, 2]`. The transform runs over the last `lengths.len()` dimensions of the
    /// complex values (the pair dimension aside): `FFT`, `IFFT` map `[..., n..., 2]` to
    /// itself; `RFFT` maps a real `[..., n...]` to `[..., n..., n_last/2 + 1, 2]`;
    /// `IRFFT` maps `[..., n..., n_last/2 + 1, 2]` back to a real `[..., n...]`.
    Fft {
        /// Which transform.
        fft_type: FftType,
        /// The transformed dimensions' lengths (of the real values for `RFFT`, `IRFFT`).
        lengths: Vec<usize>,
    },
    /// `shardc.geqrf`: LAPACK's `geqrf` (JAX's `lax.linalg.geqrf`, under `jnp.linalg.qr` and
    /// the orthogonal initializer): each `m x n` matrix of the last two dimensions as
    /// Householder reflections `H_i = I - tau_i v_i v_iᵀ`. Results: `R` on and above the
    /// diagonal with each `v_i` below it (its leading 1 not stored), and the `tau`
    /// (`min(m, n)` per matrix), by LAPACK's convention (`v_i` makes `R`'s diagonal
    /// element `-sign(alpha) |column|`).
    Geqrf,
    /// `shardc.householder_product`: LAPACK's `orgqr` (`lax.linalg.householder_product`):
    /// from `geqrf`'s `(a, tau)`, `a` being `m x n` (`n <= m`) with `k <= n` reflectors, the
    /// first `n` columns of `H_1 ... H_k`.
    HouseholderProduct,
    /// `shardc.eigh`: LAPACK's `syevd` (`jnp.linalg.eigh` and `eigvalsh` on CPU): each
    /// symmetric `n x n` matrix of the last two dimensions, read from its `lower` (or
    /// upper) triangle, as `a = V diag(w) Vᵀ`. Results: `V`, the eigenvectors as columns
    /// of unit length (their signs are not fixed, as LAPACK's are not), and `w`, `n` per
    /// matrix, ascending.
    Eigh {
        /// The lower triangle is read (else the upper).
        lower: bool,
    },
    /// `shardc.svd`: LAPACK's `gesdd` (`jnp.linalg.svd` on CPU): each `m x n` matrix of the
    /// last two dimensions as `a = U diag(s) Vᵀ`. Results: `s` (`k = min(m, n)` per
    /// matrix, descending), `U` (`m x m` with `full_matrices`, else `m x k`) and `Vᵀ`
    /// (`n x n`, else `k x n`); the singular vectors' signs are not fixed.
    Svd {
        /// `U` and `Vᵀ` square (else thin).
        full_matrices: bool,
    },
    /// `stablehlo.partition_id`: the id of the device running the program, a scalar
    /// `ui32` (JAX's `axis_index` in a `shard_map` body computes from it). Only a
    /// manual computation's body, which runs per device, may hold it.
    PartitionId,
    /// `stablehlo.optimization_barrier`: its operands, unchanged (`jax.checkpoint` keeps
    /// the recomputation of its region from being merged with the original).
    OptimizationBarrier,
    /// `sdy.manual_computation` (JAX's `shard_map`): operand `k` is laid out by
    /// `in_shardings[k]`, and region 0 runs on every device on its pieces (its arguments
    /// have the local types; it may communicate over the manual axes: its collectives name
    /// device ids) and returns (`sdy.return`) pieces that make result `k` under
    /// `out_shardings[k]`. The region reads nothing from outside.
    ManualComputation {
        /// The layout of each operand.
        in_shardings: Vec<Sharding>,
        /// The layout each result is made in.
        out_shardings: Vec<Sharding>,
        /// The axes the body runs per device over (the others: whole).
        manual_axes: Vec<String>,
    },
    /// `func.call` of a function of the module.
    Call {
        /// The function called.
        callee: String,
    },
    /// `sdy.sharding_constraint`: the value, laid out as given.
    ShardingConstraint(Sharding),
    /// `shardc.rotate` (`jnp.roll` along one dimension): element `i` of the result along
    /// `dimension` is element `(i - shift) mod n` of the operand (`n` its size there), so
    /// `shift = 1` moves every element one position up and the last one to the front. The
    /// global op a pipeline's shift between stages is: sharded along `dimension` by whole
    /// blocks, it partitions as a `collective_permute` (`docs/pipeline.md`).
    Rotate {
        /// The dimension rotated along.
        dimension: usize,
        /// Positions each element moves up (negative: down).
        shift: i64,
    },

    // Ops of partitioned (per-device) programs. Each names its device groups.
    /// `stablehlo.all_gather`: the pieces of a group concatenated along `dim`, in group order.
    AllGather {
        /// The dimension concatenated along.
        dim: usize,
        /// The device groups.
        groups: ReplicaGroups,
    },
    /// `stablehlo.all_reduce`: the group's pieces combined elementwise by the reducer (region 0).
    AllReduce {
        /// The device groups.
        groups: ReplicaGroups,
    },
    /// `stablehlo.reduce_scatter`: combined like `all_reduce`, then block `i` of `dim` kept by
    /// the group's `i`-th device.
    ReduceScatter {
        /// The dimension scattered along.
        dim: usize,
        /// The device groups.
        groups: ReplicaGroups,
    },
    /// `stablehlo.all_to_all`: `split_dim` cut into group-size blocks, block `j` sent to the
    /// group's `j`-th device, the received blocks concatenated along `concat_dim`.
    AllToAll {
        /// The dimension cut and sent.
        split_dim: usize,
        /// The dimension received blocks are joined along.
        concat_dim: usize,
        /// The device groups.
        groups: ReplicaGroups,
    },
    /// `shardc.shard_slice`: local, no communication: block `i` of `dim` cut into group-size
    /// blocks, where `i` is this device's index in its group.
    ShardSlice {
        /// The dimension cut.
        dim: usize,
        /// The device groups.
        groups: ReplicaGroups,
    },
    /// `shardc.axis_index`: this device's index in its group, as a scalar integer.
    AxisIndex {
        /// The device groups.
        groups: ReplicaGroups,
    },
    /// `stablehlo.collective_permute`: each `(source, target)` pair sends the source
    /// device's piece to the target device; a device no pair targets gets zeros.
    CollectivePermute {
        /// `(source, target)` device pairs.
        pairs: Vec<(usize, usize)>,
    },
}

impl OpKind {
    /// The op's full name: `stablehlo.add`, `func.call`, `sdy.sharding_constraint`, ...
    pub fn name(&self) -> String {
        match self {
            OpKind::Unary(u) => format!("stablehlo.{}", u.name()),
            OpKind::Binary(b) => format!("stablehlo.{}", b.name()),
            other => other.fixed_name().to_string(),
        }
    }

    /// The name of every kind but the unary and binary families.
    fn fixed_name(&self) -> &'static str {
        match self {
            OpKind::Unary(_) | OpKind::Binary(_) => "stablehlo.<elementwise>",
            OpKind::Compare { .. } => "stablehlo.compare",
            OpKind::Select => "stablehlo.select",
            OpKind::Clamp => "stablehlo.clamp",
            OpKind::Constant(_) => "stablehlo.constant",
            OpKind::Iota { .. } => "stablehlo.iota",
            OpKind::Convert => "stablehlo.convert",
            OpKind::BitcastConvert => "stablehlo.bitcast_convert",
            OpKind::BroadcastInDim { .. } => "stablehlo.broadcast_in_dim",
            OpKind::Reshape => "stablehlo.reshape",
            OpKind::Transpose { .. } => "stablehlo.transpose",
            OpKind::Slice { .. } => "stablehlo.slice",
            OpKind::Reverse { .. } => "stablehlo.reverse",
            OpKind::Concatenate { .. } => "stablehlo.concatenate",
            OpKind::Pad { .. } => "stablehlo.pad",
            OpKind::DotGeneral(_) => "stablehlo.dot_general",
            OpKind::Reduce { .. } => "stablehlo.reduce",
            OpKind::Gather(_) => "stablehlo.gather",
            OpKind::Scatter(_) => "stablehlo.scatter",
            OpKind::Sort { .. } => "stablehlo.sort",
            OpKind::Convolution(_) => "stablehlo.convolution",
            OpKind::SelectAndScatter(_) => "stablehlo.select_and_scatter",
            OpKind::ReduceWindow(_) => "stablehlo.reduce_window",
            OpKind::DynamicSlice { .. } => "stablehlo.dynamic_slice",
            OpKind::DynamicUpdateSlice => "stablehlo.dynamic_update_slice",
            OpKind::Random { .. } => "shardc.random",
            OpKind::While => "stablehlo.while",
            OpKind::Case => "stablehlo.case",
            OpKind::OptimizationBarrier => "stablehlo.optimization_barrier",
            OpKind::PartitionId => "stablehlo.partition_id",
            OpKind::RngBitGenerator { .. } => "stablehlo.rng_bit_generator",
            OpKind::Cholesky { .. } => "stablehlo.cholesky",
            OpKind::TriangularSolve { .. } => "stablehlo.triangular_solve",
            OpKind::Lu => "shardc.lu",
            OpKind::TridiagonalSolve => "shardc.tridiagonal_solve",
            OpKind::Fft { .. } => "shardc.fft",
            OpKind::Geqrf => "shardc.geqrf",
            OpKind::HouseholderProduct => "shardc.householder_product",
            OpKind::Eigh { .. } => "shardc.eigh",
            OpKind::Svd { .. } => "shardc.svd",
            OpKind::ManualComputation { .. } => "sdy.manual_computation",
            OpKind::Call { .. } => "func.call",
            OpKind::ShardingConstraint(_) => "sdy.sharding_constraint",
            OpKind::Rotate { .. } => "shardc.rotate",
            OpKind::AllGather { .. } => "stablehlo.all_gather",
            OpKind::AllReduce { .. } => "stablehlo.all_reduce",
            OpKind::ReduceScatter { .. } => "stablehlo.reduce_scatter",
            OpKind::AllToAll { .. } => "stablehlo.all_to_all",
            OpKind::ShardSlice { .. } => "shardc.shard_slice",
            OpKind::AxisIndex { .. } => "shardc.axis_index",
            OpKind::CollectivePermute { .. } => "stablehlo.collective_permute",
        }
    }

    /// The device groups of a per-device op (collectives, shard slices, axis indices).
    pub fn replica_groups(&self) -> Option<&ReplicaGroups> {
        match self {
            OpKind::AllGather { groups, .. }
            | OpKind::AllReduce { groups }
            | OpKind::ReduceScatter { groups, .. }
            | OpKind::AllToAll { groups, .. }
            | OpKind::ShardSlice { groups, .. }
            | OpKind::AxisIndex { groups } => Some(groups),
            _ => None,
        }
    }

    /// `true` for ops that communicate between devices.
    pub fn is_collective(&self) -> bool {
        matches!(
            self,
            OpKind::AllGather { .. }
                | OpKind::AllReduce { .. }
                | OpKind::ReduceScatter { .. }
                | OpKind::AllToAll { .. }
                | OpKind::CollectivePermute { .. }
        )
    }

    /// `true` for ops whose value depends on which device runs them: the ops of
    /// partitioned programs (collectives, shard slices, axis indices) and `partition_id`.
    pub fn is_per_device(&self) -> bool {
        self.replica_groups().is_some()
            || matches!(self, OpKind::CollectivePermute { .. } | OpKind::PartitionId)
    }

    /// `true` for ops that apply a scalar function at each position of same-shaped operands.
    pub fn is_elementwise(&self) -> bool {
        matches!(
            self,
            OpKind::Unary(_)
                | OpKind::Binary(_)
                | OpKind::Compare { .. }
                | OpKind::Select
                | OpKind::Clamp
                | OpKind::Convert
        )
    }
}

impl Op {
    /// The global values a collective of a per-device program moves, as the partitioner
    /// named them ([`OF`](crate::module::OF): `["%4"]`; a bucket's members); none for
    /// other ops.
    pub fn of(&self) -> Vec<String> {
        self.attrs
            .iter()
            .find(|(k, _)| k == crate::module::OF)
            .map(|(_, v)| {
                crate::module::unquoted(v)
                    .split(',')
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// How a collective moves its data ([`ROUTE`](crate::topology::ROUTE)): a ring
    /// without the attribute; an error naming the attribute when its value is not a route.
    pub fn route(&self) -> Result<crate::topology::Algorithm, String> {
        use crate::topology::{Algorithm, ROUTE};
        match self.attrs.iter().find(|(k, _)| k == ROUTE) {
            Some((_, v)) => Algorithm::parse(&crate::module::unquoted(v))
                .map_err(|e| format!("its {ROUTE} attribute: {e}")),
            None => Ok(Algorithm::Ring),
        }
    }

    /// How an all-reduce's pieces travel ([`COMPRESS`](crate::compress::COMPRESS)): as
    /// they are without the attribute; an error naming the attribute when its value is not
    /// a compression.
    pub fn compression(&self) -> Result<Option<crate::compress::Compression>, String> {
        use crate::compress::{COMPRESS, Compression};
        match self.attrs.iter().find(|(k, _)| k == COMPRESS) {
            Some((_, v)) => Compression::parse(&crate::module::unquoted(v))
                .map(Some)
                .map_err(|e| format!("its {COMPRESS} attribute: {e}")),
            None => Ok(None),
        }
    }

    /// The op's path ([`OP_PATH`](crate::module::OP_PATH): `blocks.0/attn/dot_general`,
    /// `jit(step)/jvp(Mlp)/Dense_0/dot_general`), when it has one.
    pub fn path(&self) -> Option<String> {
        let (_, v) = self
            .attrs
            .iter()
            .find(|(k, _)| k == crate::module::OP_PATH)?;
        Some(crate::module::unquoted(v))
    }

    /// The operands the text writes: all of them, but for the region ops that read values
    /// from outside their regions ([`OpKind::While`]: the carried values, one per result;
    /// [`OpKind::Case`]: the branch index), whose captured operands follow.
    pub fn written_operands(&self) -> &[ValueId] {
        let n = match self.kind {
            OpKind::While => self.results.len(),
            OpKind::Case => 1,
            _ => self.operands.len(),
        };
        &self.operands[..n.min(self.operands.len())]
    }

    /// The op that ends its regions: `sdy.return` in a manual computation,
    /// `stablehlo.return` in every other region.
    pub fn region_terminator(&self) -> &'static str {
        match self.kind {
            OpKind::ManualComputation { .. } => "sdy.return",
            _ => "stablehlo.return",
        }
    }

    /// The operands a region op reads from outside its regions (see
    /// [`Op::written_operands`]); empty for every other op.
    pub fn captured_operands(&self) -> &[ValueId] {
        &self.operands[self.written_operands().len()..]
    }
}

/// One operation inside a function body or region.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Op {
    /// What it does, with its static attributes.
    pub kind: OpKind,
    /// The values it reads, in order.
    pub operands: Vec<ValueId>,
    /// The values it defines, in order.
    pub results: Vec<ValueId>,
    /// Nested blocks (the reducer of `stablehlo.reduce`).
    pub regions: Vec<BlockId>,
    /// `sdy.sharding` on the op: one sharding per result, when annotated.
    pub shardings: Option<Vec<Sharding>>,
    /// Other attributes, kept as written (`name`, raw attribute text) so they print back.
    pub attrs: Vec<(String, String)>,
}
