//! `stablehlo.custom_call`: a call into one of XLA's own routines by name. shardc reads
//! the targets whose meaning it has — the placement annotations of memory kinds and host
//! offload, which leave their operands' values as they are, so the call's results *are*
//! its operands — and refuses every other target by name, saying what it is (a GSPMD
//! sharding, a linear-algebra routine, a Python callback, a hand-written kernel) and
//! what to do instead.

use super::lexer::Tok;
use super::parse::{FuncState, PResult, Parser};
use crate::ValueId;

/// What a target does, by its name.
enum Target {
    /// The results are the operands (one each, of the same type): a hint about where a
    /// value lives, not a computation.
    Identity,
    /// Refused, with why and the fix.
    Refused(&'static str),
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
        "lapack_*",
        Target::Refused(
            "a LAPACK routine of XLA's CPU runtime (jnp.linalg, jax.scipy.linalg: a factorization, solve, inverse or eigendecomposition), which shardc does not implement; keep linear algebra outside the jitted step, or write it with matmuls",
        ),
    ),
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
    (
        "xla_python_*",
        Target::Refused(
            "a Python callback (jax.pure_callback, jax.debug.print, io_callback), which cannot run outside the Python process; remove it from the exported function",
        ),
    ),
    (
        "xla_ffi_python_*",
        Target::Refused(
            "a Python callback (jax.pure_callback, jax.debug.print, io_callback), which cannot run outside the Python process; remove it from the exported function",
        ),
    ),
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

fn list(ts: &[crate::TensorType]) -> String {
    ts.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}
