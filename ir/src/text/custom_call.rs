//! `stablehlo.custom_call`: a call into one of XLA's own routines by name. shardc reads
//! the targets whose meaning it has — the placement annotations of memory kinds and host
//! offload, which leave their operands' values as they are, so the call's results *are*
//! its operands; and the LAPACK routines JAX's CPU lowering calls for Cholesky, LU, QR,
//! triangular solves, symmetric eigendecompositions and SVDs, read as `stablehlo.cholesky`,
//! `shardc.lu`, `shardc.geqrf` with `shardc.householder_product` (and `ormqr` as that
//! product and a `dot_general`),
//! `stablehlo.triangular_solve`, `shardc.eigh` and `shardc.svd`; and `ApproxTopK`, read as
//! the exact top k (a sort and a slice) — and refuses every
//! other target by name, saying what it is (a GSPMD sharding, another linear-algebra
//! routine, a Python callback, a hand-written kernel) and what to do instead.

use super::lexer::Tok;
use super::parse::{FuncState, Notice, PResult, Parser};
use crate::dtype::{DType, TensorType};
use crate::literal::{Literal, Scalar};
use crate::op::{BinaryOp, ComparisonDirection, ComparisonType, OpKind, SolveTranspose, UnaryOp};
use crate::{IrError, ValueId};

/// What a target does, by its name.
enum Target {
    /// The results are the operands (one each, of the same type): a hint about where a
    /// value lives, not a computation.
    Identity,
    /// A LAPACK routine shardc implements.
    Lapack(Routine),
    /// `jax.lax.approx_max_k` / `approx_min_k`: read as the exact top k, which is what
    /// XLA's CPU and GPU backends compute for it (`is_fallback`: a sort and a slice) and an
    /// answer of perfect recall on any backend.
    ApproxTopK,
    /// A Python callback (`jax.pure_callback`, `jax.debug.print`, `io_callback`), whose
    /// function lives in the process that exported the program: left out when it has no
    /// results, read as `EQX_ON_ERROR=nan` reads it inside equinox's runtime check, and
    /// refused elsewhere.
    PythonCallback,
    /// Refused, with why and the fix.
    Refused(&'static str),
}

/// The functions in which JAX lowers equinox's runtime check (`eqx.error_if` and
/// `eqx.branched_error_if`, which diffrax, optimistix and lineax use): `jax.jit` of
/// `branched_error_if_impl`, numbered.
const EQUINOX_CHECK: &str = "branched_error_if_impl";

/// The LAPACK routines read (`s`: f32, `d`: f64).
#[derive(Copy, Clone)]
enum Routine {
    /// Cholesky (`jnp.linalg.cholesky`, `jax.scipy.linalg.cho_factor`): `(a) -> (factor,
    /// status)`; `uplo` says which triangle.
    Potrf,
    /// Triangular solve with one right-hand side matrix: `(a, b) -> x`; `side`, `uplo`,
    /// `trans_x`, `diag` as in BLAS.
    Trsm,
    /// LU with partial pivoting: `(a) -> (lu, pivots, status)`.
    Getrf,
    /// QR as Householder reflections: `(a) -> (reflectors, taus)`.
    Geqrf,
    /// The product of `geqrf`'s reflections: `(reflectors, taus) -> q`.
    Orgqr,
    /// A matrix multiplied by the orthogonal `q` of `geqrf`'s reflections
    /// (`jax.lax.linalg.ormqr`: lineax's QR solves, optimistix's least squares):
    /// `(reflectors, taus, c) -> q c`, `qᵀ c`, `c q` or `c qᵀ` by `left` and `transpose`;
    /// read as the full `q` (`shardc.householder_product` of the reflectors padded to a
    /// square) and a `dot_general`.
    Ormqr,
    /// Symmetric eigendecomposition: `(a) -> (vectors, values, status)`; `uplo` says which
    /// triangle is read; `mode` `N` (values only) still gives vectors, which JAX ignores.
    Syevd,
    /// Tridiagonal solve (`lax.linalg.tridiagonal_solve`): `(dl, d, du, b) -> (dl', d',
    /// du', x, status)`, the primed being what LAPACK leaves in its arrays.
    Gtsv,
    /// Singular value decomposition: `(a) -> (a', s, u, vt, status)`, `a'` being what
    /// LAPACK leaves in `a` (unspecified: shardc gives `a`); `mode` `S` gives the thin `u`
    /// and `vt`, `A` the full ones, `N` (values only: JAX ignores the vectors) those its
    /// type says.
    Gesdd,
}

/// The targets, matched exactly or by prefix (a trailing `*`).
const TARGETS: &[(&str, Target)] = &[
    // jax.device_put(x, memory_kind=...) inside jit, and host offload of remat policies.
    ("annotate_device_placement", Target::Identity),
    ("MoveToHost", Target::Identity),
    ("MoveToDevice", Target::Identity),
    (
        "Sharding",
        Target::Refused(
            "a GSPMD sharding annotation (JAX with Shardy off); export with Shardy, JAX's default since 0.7 (`jax.config.update('jax_use_shardy_partitioner', True)`), which writes `sdy.sharding_constraint`",
        ),
    ),
    (
        "SPMDFullToShardShape",
        Target::Refused(
            "GSPMD's entry into a manual region (shard_map with Shardy off); export with Shardy, which writes `sdy.manual_computation`",
        ),
    ),
    (
        "SPMDShardToFullShape",
        Target::Refused(
            "GSPMD's exit from a manual region (shard_map with Shardy off); export with Shardy, which writes `sdy.manual_computation`",
        ),
    ),
    (
        "CustomSPMDPartitioning",
        Target::Refused(
            "jax.experimental.custom_partitioning: the body and its partitioning rule are Python functions held by the process that exported it (`backend_config` is their address, not their code); export the function without the `@custom_partitioning` decorator (shardc partitions its ops itself), or write its per-device body with `jax.shard_map`",
        ),
    ),
    (
        "ragged_all_to_all",
        Target::Refused(
            "jax.lax.ragged_all_to_all: an all-to-all whose blocks each device sizes at run time (dropless mixtures of experts), while shardc's all-to-all moves equal blocks; give each expert a fixed capacity (pad or drop tokens to it) and exchange with `jax.lax.all_to_all`",
        ),
    ),
    ("lapack_spotrf_ffi", Target::Lapack(Routine::Potrf)),
    ("lapack_dpotrf_ffi", Target::Lapack(Routine::Potrf)),
    ("lapack_strsm_ffi", Target::Lapack(Routine::Trsm)),
    ("lapack_dtrsm_ffi", Target::Lapack(Routine::Trsm)),
    ("lapack_sgetrf_ffi", Target::Lapack(Routine::Getrf)),
    ("lapack_dgetrf_ffi", Target::Lapack(Routine::Getrf)),
    ("lapack_sgeqrf_ffi", Target::Lapack(Routine::Geqrf)),
    ("lapack_dgeqrf_ffi", Target::Lapack(Routine::Geqrf)),
    ("lapack_sorgqr_ffi", Target::Lapack(Routine::Orgqr)),
    ("lapack_dorgqr_ffi", Target::Lapack(Routine::Orgqr)),
    ("lapack_sormqr_ffi", Target::Lapack(Routine::Ormqr)),
    ("lapack_dormqr_ffi", Target::Lapack(Routine::Ormqr)),
    ("lapack_ssyevd_ffi", Target::Lapack(Routine::Syevd)),
    ("lapack_dsyevd_ffi", Target::Lapack(Routine::Syevd)),
    ("lapack_sgesdd_ffi", Target::Lapack(Routine::Gesdd)),
    ("lapack_dgesdd_ffi", Target::Lapack(Routine::Gesdd)),
    ("lapack_sgtsv_ffi", Target::Lapack(Routine::Gtsv)),
    ("lapack_dgtsv_ffi", Target::Lapack(Routine::Gtsv)),
    (
        "lapack_*",
        Target::Refused(
            "a LAPACK routine of XLA's CPU runtime that shardc does not implement (it reads real Cholesky `potrf`, LU `getrf`, QR `geqrf` + `orgqr` or `ormqr`, triangular solves `trsm`, symmetric eigendecomposition `syevd`, SVD `gesdd` and tridiagonal solves `gtsv`: jnp.linalg.cholesky, qr, solve, inv, det, slogdet, eigh, eigvalsh, svd, pinv, norm(ord=2), jax.scipy.linalg.solve_triangular, cho_solve, jax.lax.linalg.tridiagonal_solve, the orthogonal initializer; not general eigenproblems `geev`, the QR-iteration SVD `gesvd`, Schur forms, or complex matrices); keep that linear algebra outside the jitted step, or write it with these",
        ),
    ),
    ("ApproxTopK", Target::ApproxTopK),
    (
        "cusolver_*",
        Target::Refused(
            "a cuSOLVER routine of XLA's GPU runtime (jnp.linalg), which shardc does not implement; keep linear algebra outside the jitted step",
        ),
    ),
    (
        "cu_*",
        Target::Refused(
            "a CUDA routine of XLA's GPU runtime (jax.random on GPU, jnp.linalg), which shardc does not implement; export on the CPU platform, whose lowering is plain StableHLO",
        ),
    ),
    ("xla_python_*", Target::PythonCallback),
    ("xla_ffi_python_*", Target::PythonCallback),
    (
        "tpu_custom_call",
        Target::Refused(
            "a Pallas kernel for TPU, whose body is opaque to shardc; export the reference implementation instead of the kernel",
        ),
    ),
    (
        "__gpu$xla.gpu.triton",
        Target::Refused(
            "a Pallas/Triton kernel for GPU, whose body is opaque to shardc; export the reference implementation instead of the kernel",
        ),
    ),
];

fn lookup(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find_map(|(pattern, t)| {
        let hit = match pattern.strip_suffix('*') {
            Some(prefix) => name.starts_with(prefix),
            None => name == *pattern,
        };
        hit.then_some(t)
    })
}

/// Reads a `stablehlo.custom_call` (its name already read) in pretty
/// (`stablehlo.custom_call @target(%x) {...} : (t) -> t`) or generic
/// (`"stablehlo.custom_call"(%x) <{call_target_name = "target", ...}> : (t) -> t`) form
/// and gives its results for the parser to name.
pub(super) fn parse(
    p: &mut Parser<'_>,
    f: &mut FuncState,
    name: &str,
    offset: usize,
    generic: bool,
) -> PResult<Vec<ValueId>> {
    let (target, target_offset, operands) = if generic {
        let operands = p.operand_parens(f)?;
        let at = p.tok.start;
        let mut target = None;
        if p.eat(Tok::Less)? {
            for e in p.dict_entries()? {
                if e.name == "call_target_name"
                    && let Some(span) = e.span
                {
                    target = Some(p.reparse(span, |p| p.string_attr("call_target_name"))?);
                }
            }
            p.expect(Tok::Greater, "to close the properties `<{...}>`")?;
        }
        let target = target.ok_or_else(|| {
            p.error_at(
                at,
                format!(
                    "{name} names its target in its properties: `<{{call_target_name = \"...\"}}>`"
                ),
            )
        })?;
        (target, at, operands)
    } else {
        let at = p.tok.start;
        let target = p.symbol_name(&format!("(the routine {name} calls: `{name} @target(%x)`)"))?;
        (target, at, p.operand_parens(f)?)
    };
    match lookup(&target) {
        Some(Target::Identity) => {}
        Some(Target::Lapack(routine)) => {
            return lapack(p, f, name, &target, target_offset, *routine, &operands);
        }
        Some(Target::ApproxTopK) => {
            let ids: Vec<ValueId> = operands.iter().map(|u| u.id).collect();
            return approx_top_k(p, f, name, target_offset, &ids);
        }
        Some(Target::PythonCallback) => {
            return python_callback(p, f, name, &target, target_offset, &operands);
        }
        Some(Target::Refused(why)) => {
            return p.err_at(
                target_offset,
                format!("{name} @{target} is not supported: it is {why}"),
            );
        }
        None => {
            return p.err_at(
                target_offset,
                format!(
                    "{name} @{target} is not supported: a custom call runs a routine of XLA's own by name, and shardc knows only the placement annotations ({}); export the computation as StableHLO ops",
                    TARGETS
                        .iter()
                        .filter(|(_, t)| matches!(t, Target::Identity))
                        .map(|(n, _)| format!("@{n}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
        }
    }
    if p.is(&Tok::LBrace) {
        p.op_attrs()?;
    }
    p.expect(Tok::Colon, &format!("before the type of {name}"))?;
    let (ins, outs) = p.function_type("(the op's type)")?;
    let given: Vec<_> = operands.iter().map(|u| f.b.ty(u.id).clone()).collect();
    if ins != given || outs != given {
        return p.err_at(
            offset,
            format!(
                "{name} @{target} leaves its operands as they are, so its type is ({}) -> ({}); it is written ({}) -> ({})",
                list(&given),
                list(&given),
                list(&ins),
                list(&outs)
            ),
        );
    }
    Ok(operands.into_iter().map(|u| u.id).collect())
}

/// Reads the rest of a Python callback: left out when it has no results (its operands
/// are read, nothing is computed); inside equinox's runtime check, each result is what
/// equinox's `EQX_ON_ERROR=nan` gives in its place (NaN, an integer type's largest value,
/// true), since the check's branch that calls it runs only when the check fails; refused
/// elsewhere. Both readings are noted for the user.
fn python_callback(
    p: &mut Parser<'_>,
    f: &mut FuncState,
    name: &str,
    target: &str,
    at: usize,
    operands: &[super::parse::Use],
) -> PResult<Vec<ValueId>> {
    if p.is(&Tok::LBrace) {
        p.op_attrs()?;
    }
    p.expect(Tok::Colon, &format!("before the type of {name}"))?;
    let (ins, outs) = p.function_type("(the op's type)")?;
    let given: Vec<TensorType> = operands.iter().map(|u| f.b.ty(u.id).clone()).collect();
    if ins != given {
        return p.err_at(
            at,
            format!(
                "{name} @{target}: its operands are ({}) but its type says ({})",
                list(&given),
                list(&ins)
            ),
        );
    }
    if outs.is_empty() {
        p.notice(Notice::CallbackDropped, at);
        return Ok(Vec::new());
    }
    if !f.name.starts_with(EQUINOX_CHECK) {
        return p.err_at(
            at,
            format!(
                "{name} @{target} is not supported: it is a Python callback with results (jax.pure_callback, io_callback), whose function lives in the process that exported the program; compute its results with JAX ops inside the function, or call it outside the jitted function and pass its results in as arguments"
            ),
        );
    }
    p.notice(Notice::ErrorCheckAsNan, at);
    Ok(outs
        .into_iter()
        .map(|ty| {
            let value = match ty.dtype {
                d if d.is_float() => Scalar::Float(f64::NAN),
                DType::I1 => Scalar::Bool(true),
                // The largest value, as bits (a `ui64`'s is all ones: -1 as i64).
                d if d.is_unsigned() => Scalar::Int((u64::MAX >> (64 - d.bit_width())) as i64),
                d => Scalar::Int(i64::MAX >> (64 - d.bit_width())),
            };
            f.b.constant(Literal::splat(ty, value))
        })
        .collect())
}

/// Reads the rest of an `ApproxTopK` call — operands `(x, positions, init value, init
/// position)`, `called_computations = [@top_k_gt_*_comparator]` (approx_max_k) or
/// `top_k_lt_*` (approx_min_k), `mhlo.backend_config` with `top_k`, `reduction_dim` and
/// `aggregate_to_topk` — and adds a stable sort of `(x, positions)` along the reduction
/// dimension by the comparator's compare, and the first `top_k` of each.
fn approx_top_k(
    p: &mut Parser<'_>,
    f: &mut FuncState,
    name: &str,
    at: usize,
    operands: &[ValueId],
) -> PResult<Vec<ValueId>> {
    let mut config: Vec<(String, String)> = Vec::new();
    let mut comparator = String::new();
    if p.is(&Tok::LBrace) {
        for e in p.dict_entries()? {
            let Some(span) = e.span else { continue };
            let text = p.text(span).to_string();
            match e.name.as_str() {
                "mhlo.backend_config" => {
                    for entry in text.trim_matches(|c| c == '{' || c == '}').split(',') {
                        if let Some((k, v)) = entry.split_once('=') {
                            let v = v.split(':').next().unwrap_or_default();
                            config.push((k.trim().to_string(), v.trim().to_string()));
                        }
                    }
                }
                "called_computations" => {
                    comparator = text
                        .trim_matches(|c| c == '[' || c == ']')
                        .trim()
                        .trim_start_matches('@')
                        .to_string();
                }
                _ => {}
            }
        }
    }
    let get = |key: &str| {
        config
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    };
    p.expect(Tok::Colon, &format!("before the type of {name}"))?;
    let (ins, outs) = p.function_type("(the op's type)")?;
    let given: Vec<TensorType> = operands.iter().map(|&v| f.b.ty(v).clone()).collect();
    let fail = |p: &Parser<'_>, rule: String| -> PResult<Vec<ValueId>> {
        p.err_at(
            at,
            format!("{name} @ApproxTopK (jax.lax.approx_max_k / approx_min_k): {rule}"),
        )
    };
    if ins != given || given.len() != 4 {
        return fail(
            p,
            format!(
                "takes (operand, its positions, the initial value, the initial position); its operands are ({}) but its type says ({})",
                list(&given),
                list(&ins)
            ),
        );
    }
    let (x, positions) = (&given[0], &given[1]);
    let k = get("top_k").and_then(|v| v.parse::<usize>().ok());
    let dim = get("reduction_dim").and_then(|v| v.parse::<usize>().ok());
    let (Some(k), Some(dim)) = (k, dim) else {
        return fail(
            p,
            "its mhlo.backend_config must give top_k and reduction_dim (as JAX writes them)".into(),
        );
    };
    if dim >= x.rank()
        || k > x.shape[dim]
        || positions.shape != x.shape
        || positions.dtype != DType::I32
    {
        return fail(
            p,
            format!(
                "reduction_dim {dim} and top_k {k} must fit the operand {x}, and the positions be i32 of its shape (they are {positions})"
            ),
        );
    }
    if get("aggregate_to_topk") == Some("false") {
        return fail(
            p,
            "aggregate_to_topk = false asks for the partial, unaggregated candidates of a TPU's approximate search, which shardc does not compute; call approx_max_k with aggregate_to_topk=True (the default)".into(),
        );
    }
    let direction = if comparator.starts_with("top_k_gt") {
        ComparisonDirection::Gt
    } else if comparator.starts_with("top_k_lt") {
        ComparisonDirection::Lt
    } else {
        return fail(
            p,
            format!(
                "its comparator @{comparator} is not one JAX writes (top_k_gt_* for approx_max_k, top_k_lt_* for approx_min_k)"
            ),
        );
    };
    let mut limit = x.shape.clone();
    limit[dim] = k;
    let want = vec![
        TensorType::new(x.dtype, limit.clone()),
        TensorType::new(DType::I32, limit.clone()),
    ];
    if outs != want {
        return fail(
            p,
            format!(
                "the top {k} along dimension {dim} of {x} are ({}), but its type says ({})",
                list(&want),
                list(&outs)
            ),
        );
    }
    let b = &mut f.b;
    let s = TensorType::scalar(x.dtype);
    let i = TensorType::scalar(DType::I32);
    let args = b.begin_block(&[s.clone(), s, i.clone(), i]);
    let before = b.push1(
        OpKind::Compare {
            direction,
            compare_type: None,
        },
        &[args[0], args[1]],
    );
    let before = match before {
        Ok(v) => v,
        Err(e) => {
            b.end_block(&[]);
            return Err(p.error_at(at, format!("{name} @ApproxTopK: {e}")));
        }
    };
    let region = b.end_block(&[before]);
    let built = b
        .push(
            OpKind::Sort {
                dimension: dim,
                is_stable: true,
            },
            &operands[..2],
            None,
            vec![region],
        )
        .and_then(|sort| {
            let sorted = b.func().op(sort).results.clone();
            let slice = OpKind::Slice {
                start: vec![0; x.rank()],
                limit,
                strides: vec![1; x.rank()],
            };
            Ok(vec![
                b.push1(slice.clone(), &[sorted[0]])?,
                b.push1(slice, &[sorted[1]])?,
            ])
        });
    built.map_err(|e| p.error_at(at, format!("{name} @ApproxTopK: {e}")))
}

/// Reads the rest of a LAPACK custom call (attributes and type) and adds its ops.
fn lapack(
    p: &mut Parser<'_>,
    f: &mut FuncState,
    name: &str,
    target: &str,
    at: usize,
    routine: Routine,
    operands: &[super::parse::Use],
) -> PResult<Vec<ValueId>> {
    // BLAS's one-letter options, from `mhlo.backend_config = {uplo = 76 : ui8, ...}`, and
    // flags (`left = true`) as 1 or 0.
    let mut options: Vec<(String, u8)> = Vec::new();
    if p.is(&Tok::LBrace) {
        for e in p.dict_entries()? {
            if e.name != "mhlo.backend_config" {
                continue;
            }
            let Some(span) = e.span else { continue };
            let text = p.text(span).to_string();
            for entry in text.trim_matches(|c| c == '{' || c == '}').split(',') {
                let Some((k, v)) = entry.split_once('=') else {
                    continue;
                };
                let v = v.trim();
                let digits: String = v.chars().take_while(char::is_ascii_digit).collect();
                let flag = [("true", 1), ("false", 0)]
                    .into_iter()
                    .find_map(|(word, c)| v.starts_with(word).then_some(c));
                if let Some(c) = digits.parse::<u8>().ok().or(flag) {
                    options.push((k.trim().to_string(), c));
                }
            }
        }
    }
    let option = |key: &str, default: u8| {
        options
            .iter()
            .find(|(k, _)| k == key)
            .map_or(default, |&(_, c)| c)
    };
    p.expect(Tok::Colon, &format!("before the type of {name}"))?;
    let (ins, outs) = p.function_type("(the op's type)")?;
    let given: Vec<TensorType> = operands.iter().map(|u| f.b.ty(u.id).clone()).collect();
    let arity = match routine {
        Routine::Trsm | Routine::Orgqr => 2,
        Routine::Ormqr => 3,
        Routine::Gtsv => 4,
        _ => 1,
    };
    if ins != given || given.len() != arity {
        return p.err_at(
            at,
            format!(
                "{name} @{target} takes {arity} operand{}; its operands are ({}) but its type says ({})",
                if arity == 1 { "" } else { "s" },
                list(&given),
                list(&ins)
            ),
        );
    }
    let want_dtype = if target.starts_with("lapack_s") {
        DType::F32
    } else {
        DType::F64
    };
    if given.iter().any(|t| t.dtype != want_dtype) {
        return p.err_at(
            at,
            format!(
                "@{target} works on {want_dtype} matrices, but its operands are ({})",
                list(&given)
            ),
        );
    }
    let ids: Vec<ValueId> = operands.iter().map(|u| u.id).collect();
    let built = match routine {
        Routine::Potrf => potrf(&mut f.b, ids[0], option("uplo", b'L') == b'L'),
        Routine::Trsm => {
            let kind = OpKind::TriangularSolve {
                left_side: option("side", b'L') == b'L',
                lower: option("uplo", b'L') == b'L',
                unit_diagonal: option("diag", b'N') == b'U',
                transpose_a: match option("trans_x", b'N') {
                    b'T' => SolveTranspose::Transpose,
                    b'C' => SolveTranspose::Adjoint,
                    _ => SolveTranspose::NoTranspose,
                },
            };
            f.b.push1(kind, &ids).map(|x| vec![x])
        }
        Routine::Getrf | Routine::Geqrf => {
            let kind = if matches!(routine, Routine::Getrf) {
                OpKind::Lu
            } else {
                OpKind::Geqrf
            };
            f.b.push(kind, &ids, None, Vec::new())
                .map(|op| f.b.func().op(op).results.clone())
        }
        Routine::Orgqr => f.b.push1(OpKind::HouseholderProduct, &ids).map(|x| vec![x]),
        Routine::Ormqr => ormqr(
            &mut f.b,
            &ids,
            option("left", 1) == 1,
            option("transpose", 0) == 1,
        )
        .map(|x| vec![x]),
        Routine::Gtsv => {
            f.b.push(OpKind::TridiagonalSolve, &ids, None, Vec::new())
                .map(|op| f.b.func().op(op).results.clone())
        }
        Routine::Syevd => {
            let lower = option("uplo", b'L') == b'L';
            decomposition(&mut f.b, OpKind::Eigh { lower }, ids[0])
        }
        Routine::Gesdd => {
            let square = |t: Option<&TensorType>| {
                t.is_some_and(|t| t.rank() >= 2 && t.shape[t.rank() - 1] == t.shape[t.rank() - 2])
            };
            let full_matrices = match option("mode", b'A') {
                b'S' => false,
                b'A' => true,
                // Values only (`N`): JAX ignores the vectors, whose type says which shapes
                // (both square: full).
                _ => square(outs.get(2)) && square(outs.get(3)),
            };
            decomposition(&mut f.b, OpKind::Svd { full_matrices }, ids[0])
        }
    };
    let values = built.map_err(|e| p.error_at(at, format!("{name} @{target}: {e}")))?;
    let got: Vec<TensorType> = values.iter().map(|&v| f.b.ty(v).clone()).collect();
    if got != outs {
        return p.err_at(
            at,
            format!(
                "{name} @{target} on ({}) gives ({}), but its type says ({})",
                list(&given),
                list(&got),
                list(&outs)
            ),
        );
    }
    Ok(values)
}

/// LAPACK's `potrf` from `stablehlo.cholesky`: the factor in the `lower` (or upper)
/// triangle, `a`'s own values in the other (LAPACK leaves them), and the status per
/// matrix: 0, or 1 where the factor is not finite (`a` not positive definite: LAPACK gives
/// the failing column, JAX only tests for 0).
/// `ormqr(reflectors, taus, c)`: the full `q` of the reflectors (an `m x m` product of
/// the reflectors padded or cut to `m` columns, the missing ones scaled by no tau: the
/// identity), then `q c`, `qᵀ c`, `c q` or `c qᵀ`.
fn ormqr(
    b: &mut crate::builder::FunctionBuilder,
    ids: &[ValueId],
    left: bool,
    transpose: bool,
) -> Result<ValueId, IrError> {
    let (a, taus, c) = (ids[0], ids[1], ids[2]);
    let ty = b.ty(a).clone();
    let r = ty.rank();
    if r < 2 {
        // Not reflectors: the product's typing rule says what it takes.
        return b.push1(OpKind::HouseholderProduct, &[a, taus]);
    }
    let (m, cols) = (ty.shape[r - 2], ty.shape[r - 1]);
    let mut high = vec![0i64; r];
    high[r - 1] = m as i64 - cols as i64;
    let zero = b.constant(Literal::scalar(ty.dtype, Scalar::Float(0.0)));
    let square = b.push1(
        OpKind::Pad {
            low: vec![0; r],
            high,
            interior: vec![0; r],
        },
        &[a, zero],
    )?;
    let q = b.push1(OpKind::HouseholderProduct, &[square, taus])?;
    let batch: Vec<usize> = (0..r - 2).collect();
    // The dimension of q contracted: its rows for qᵀ c and c q, its columns otherwise.
    let q_dim = if left == transpose { r - 2 } else { r - 1 };
    let (lhs, rhs, lhs_contracting, rhs_contracting) = if left {
        (q, c, q_dim, r - 2)
    } else {
        (c, q, r - 1, q_dim)
    };
    b.push1(
        OpKind::DotGeneral(crate::op::DotDims {
            lhs_batch: batch.clone(),
            rhs_batch: batch,
            lhs_contracting: vec![lhs_contracting],
            rhs_contracting: vec![rhs_contracting],
            precision: Vec::new(),
            algorithm: None,
        }),
        &[lhs, rhs],
    )
}

fn potrf(
    b: &mut crate::builder::FunctionBuilder,
    a: ValueId,
    lower: bool,
) -> Result<Vec<ValueId>, IrError> {
    let ty = b.ty(a).clone();
    let r = ty.rank();
    let factor = b.push1(OpKind::Cholesky { lower }, &[a])?;
    let index = TensorType::new(DType::I32, ty.shape.clone());
    let rows = b.push1_typed(OpKind::Iota { dimension: r - 2 }, &[], index.clone())?;
    let cols = b.push1_typed(OpKind::Iota { dimension: r - 1 }, &[], index)?;
    let in_factor = b.push1(
        OpKind::Compare {
            direction: if lower {
                ComparisonDirection::Ge
            } else {
                ComparisonDirection::Le
            },
            compare_type: Some(ComparisonType::Signed),
        },
        &[rows, cols],
    )?;
    let out = b.push1(OpKind::Select, &[in_factor, factor, a])?;
    let finite = b.unary(UnaryOp::IsFinite, factor)?;
    let yes = b.constant(Literal::splat(
        TensorType::scalar(DType::I1),
        Scalar::Bool(true),
    ));
    let all_finite = b.reduce(finite, yes, &[r - 2, r - 1], BinaryOp::And)?;
    let failed = b.unary(UnaryOp::Not, all_finite)?;
    let batch = TensorType::new(DType::I32, ty.shape[..r - 2].to_vec());
    let status = b.push1_typed(OpKind::Convert, &[failed], batch)?;
    Ok(vec![out, status])
}

/// `syevd` or `gesdd` from `shardc.eigh` or `shardc.svd`: the op's results as LAPACK
/// gives them (`gesdd` first hands back its operand's storage: `a`), then the status per
/// matrix: 0, or 1 where the eigen- or singular values are not finite (LAPACK's failure
/// to converge, or a NaN or infinity in `a`; JAX only tests for 0).
fn decomposition(
    b: &mut crate::builder::FunctionBuilder,
    kind: OpKind,
    a: ValueId,
) -> Result<Vec<ValueId>, IrError> {
    let ty = b.ty(a).clone();
    let r = ty.rank();
    let svd = matches!(kind, OpKind::Svd { .. });
    let op = b.push(kind, &[a], None, Vec::new())?;
    let results = b.func().op(op).results.clone();
    let values = results[if svd { 0 } else { 1 }];
    let finite = b.unary(UnaryOp::IsFinite, values)?;
    let yes = b.constant(Literal::splat(
        TensorType::scalar(DType::I1),
        Scalar::Bool(true),
    ));
    let all_finite = b.reduce(finite, yes, &[r - 2], BinaryOp::And)?;
    let failed = b.unary(UnaryOp::Not, all_finite)?;
    let batch = TensorType::new(DType::I32, ty.shape[..r - 2].to_vec());
    let status = b.push1_typed(OpKind::Convert, &[failed], batch)?;
    Ok(if svd {
        vec![a, results[0], results[1], results[2], status]
    } else {
        vec![results[0], results[1], status]
    })
}

fn list(ts: &[crate::TensorType]) -> String {
    ts.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}
