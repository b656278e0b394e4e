//! Trimming: a mesh axis of size 1 splits nothing, so it is dropped from every sharding of
//! the module before propagation. JAX programs name such axes often (a `(1, 8)` mesh of
//! `("model", "data")` with tensor parallelism off, a batch split over
//! `("data", "model")`): kept, a batch split over `("x", "data")` with `x` of size 1 and
//! the same batch split over `"data"` were two layouts to propagation, and the plan
//! gathered the batch and sliced it again between them (`mesh_axis_size_one_fwd`: a
//! 224 B/device all-gather that moved nothing anyone needed).
//!
//! Argument and result shardings, op shardings, sharding constraints and `shard_map`'s
//! in and out shardings are trimmed; the mesh keeps its axes (a `shard_map` may still name
//! one as manual).
//!
//! ```text
//! sdy.mesh @mesh = <["x"=1, "data"=8]>
//! %arg0: tensor<16x8xf32> {sdy.sharding = <@mesh, [{"x", "data"}, {}]>}
//!   =>  {sdy.sharding = <@mesh, [{"data"}, {}]>}
//! ```

use shardc_ir::{Module, OpKind, Sharding};

/// The module with the axes of size 1 dropped from its shardings; gives how many
/// shardings changed.
pub fn trim(m: &Module) -> (Module, usize) {
    let mut out = m.clone();
    let meshes = m.meshes.clone();
    let mut changed = 0;
    let mut trim_one = |s: &mut Sharding| {
        let Some(mesh) = meshes.iter().find(|x| x.name == s.mesh) else {
            return;
        };
        let unit = |a: &shardc_ir::AxisRef| a.size(mesh) == Some(1);
        let before = s.clone();
        for d in &mut s.dims {
            d.axes.retain(|a| !unit(a));
        }
        s.replicated.retain(|a| !unit(a));
        s.unreduced.retain(|a| !unit(a));
        changed += usize::from(*s != before);
    };
    for f in &mut out.functions {
        for a in f.arg_attrs.iter_mut().chain(f.result_attrs.iter_mut()) {
            if let Some(s) = &mut a.sharding {
                trim_one(s);
            }
        }
        for op in &mut f.ops {
            for s in op.shardings.iter_mut().flatten() {
                trim_one(s);
            }
            match &mut op.kind {
                OpKind::ShardingConstraint(s) => trim_one(s),
                OpKind::ManualComputation {
                    in_shardings,
                    out_shardings,
                    ..
                } => {
                    for s in in_shardings.iter_mut().chain(out_shardings.iter_mut()) {
                        trim_one(s);
                    }
                }
                _ => {}
            }
        }
    }
    (out, changed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shardc_ir::text::{parse_module, print_module};

    #[test]
    fn axes_of_size_one_leave_every_sharding() {
        let m = parse_module(
            r#"module {
  sdy.mesh @mesh = <["x"=1, "data"=8]>
  func.func @main(%a: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x", "data"}, {}]>}, %w: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}]>}) -> (tensor<16x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) {
    %0 = stablehlo.dot_general %a, %w, contracting_dims = [1] x [0] : (tensor<16x8xf32>, tensor<8x4xf32>) -> tensor<16x4xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{"data", "x"}, {}]> : tensor<16x4xf32>
    return %1 : tensor<16x4xf32>
  }
}"#,
        )
        .unwrap();
        let (t, n) = trim(&m);
        assert_eq!(n, 3);
        let text = print_module(&t);
        assert!(
            !text.contains("\"x\", ") && !text.contains(", \"x\""),
            "{text}"
        );
        assert!(text.contains("[{\"data\"}, {}]"), "{text}");
        assert!(text.contains("[{}, {}]"), "{text}");
        assert!(
            text.contains("<[\"x\"=1, \"data\"=8]>"),
            "the mesh keeps it: {text}"
        );
        // Nothing to trim: the same module.
        let (again, none) = trim(&t);
        assert_eq!((none, print_module(&again)), (0, text));
    }
}
