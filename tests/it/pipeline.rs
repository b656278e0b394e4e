//! Pipeline parallelism (`docs/pipeline.md`): the rotate op a pipeline shifts its stages
//! with (`shardc.rotate`: values, text, partitioning into collective permutes), then GPipe
//! and 1F1B training steps against the single-device reference and a plain sequential
//! model, their collectives, and their peak memory.

use shardc::ir::text::{parse_module, print_module};
use shardc::ir::{DType, Literal, Mesh, OpKind, TensorType};
use shardc::{Options, P, PartitionSpec, Tensor, jit};

fn f32(s: &[usize]) -> TensorType {
    TensorType::new(DType::F32, s)
}

fn iota(shape: &[usize]) -> Literal {
    let n: usize = shape.iter().product();
    Literal::from_f64(
        DType::F32,
        shape,
        &(0..n).map(|i| i as f64).collect::<Vec<_>>(),
    )
    .unwrap()
}

fn mesh(axes: &[(&str, usize)]) -> Mesh {
    Mesh::new("mesh", axes).unwrap()
}

/// (kind, axes, bytes per device) of every collective `explain` lists.
fn collectives(c: &shardc::Compiled) -> Vec<(String, String, u64)> {
    c.explain()
        .collectives
        .iter()
        .map(|c| (c.kind.clone(), c.axes.join(","), c.bytes_per_device))
        .collect()
}

/// The per-device ops of the partitioned program, by name.
fn per_device_ops(c: &shardc::Compiled) -> Vec<String> {
    c.partitioned
        .module
        .entry()
        .unwrap()
        .ops
        .iter()
        .filter(|o| o.kind.is_per_device())
        .map(|o| o.kind.name())
        .collect()
}

mod rotate {
    use super::*;

    #[test]
    fn rolls_like_numpy() {
        // [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]]: rows move down by one, the last
        // to the front; columns left by one (shift -1 = 2 of 3).
        let f = jit(|x: Tensor| (x.roll(1, 0), x.roll(-1, 1), x.roll(9, 0)))
            .lower(&[f32(&[4, 3])])
            .unwrap();
        let out = f.run_reference(&[iota(&[4, 3])]).unwrap();
        assert_eq!(
            out[0].to_f64_vec(),
            [9., 10., 11., 0., 1., 2., 3., 4., 5., 6., 7., 8.]
        );
        assert_eq!(
            out[1].to_f64_vec(),
            [1., 2., 0., 4., 5., 3., 7., 8., 6., 10., 11., 9.]
        );
        // 9 = 1 (mod 4).
        assert_eq!(out[2].to_f64_vec(), out[0].to_f64_vec());
    }

    #[test]
    fn text_round_trips_in_both_forms() {
        let text = r#"module @m {
  func.func public @main(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
    %0 = shardc.rotate %x, dim = 0, shift = -1 : tensor<4x3xf32>
    %1 = "shardc.rotate"(%0) <{dimension = 1 : i64, shift = 2 : i64}> : (tensor<4x3xf32>) -> tensor<4x3xf32>
    return %1 : tensor<4x3xf32>
  }
}
"#;
        let m = parse_module(text).unwrap();
        let printed = print_module(&m);
        assert!(
            printed.contains("shardc.rotate %arg0, dim = 0, shift = -1 : tensor<4x3xf32>"),
            "{printed}"
        );
        assert!(
            printed.contains("shardc.rotate %0, dim = 1, shift = 2 : tensor<4x3xf32>"),
            "{printed}"
        );
        assert_eq!(parse_module(&printed).unwrap(), m);
        let generic = shardc::ir::text::print_module_generic(&m);
        assert!(
            generic.contains(r#""shardc.rotate"(%arg0) <{dimension = 0 : i64, shift = -1 : i64}>"#),
            "{generic}"
        );
        assert_eq!(parse_module(&generic).unwrap(), m);
        // The rule says the op breaks when the dimension is out of range.
        let bad = text.replace("dim = 0", "dim = 2");
        let err = parse_module(&bad).unwrap_err().to_string();
        assert!(
            err.contains("rotates dimension 2, which is out of range for rank 2"),
            "{err}"
        );
    }

    /// `roll(x, shift) * 2` with `x` split over `pipe` along the rolled dimension: a shift
    /// by whole blocks is one collective permute of each device's block; any other shift
    /// gathers the dimension first. Both equal the reference, on every mesh shape.
    fn roll_on(mesh: &Mesh, spec: PartitionSpec, shape: &[usize], shift: i64) -> shardc::Compiled {
        let f = jit(move |x: Tensor| &x.roll(shift, 0) * 2.0)
            .mesh(mesh)
            .in_shardings([spec.clone()])
            .out_shardings([spec])
            .lower(&[f32(shape)])
            .unwrap();
        let c = f.compile(&Options::default()).unwrap();
        let x = iota(shape);
        let want = f.run_reference(std::slice::from_ref(&x)).unwrap();
        let got = shardc::run_simulated(&c, std::slice::from_ref(&x), 0.0).unwrap();
        assert_eq!(got[0].to_f64_vec(), want[0].to_f64_vec(), "shift {shift}");
        let cpu = shardc::run_cpu(
            &c,
            std::slice::from_ref(&x),
            &shardc::runtime::engine::Interpreted,
            0.0,
        )
        .unwrap();
        assert_eq!(cpu.outputs[0].to_f64_vec(), want[0].to_f64_vec());
        c
    }

    #[test]
    fn whole_blocks_move_by_collective_permute() {
        let m = mesh(&[("pipe", 4)]);
        // 8 rows over 4 devices: blocks of 2 rows of 3 f32 = 24 B.
        for shift in [2, 4, -2, 6, 10] {
            let c = roll_on(&m, P!["pipe"], &[8, 3], shift);
            assert_eq!(
                collectives(&c),
                [("collective_permute".to_string(), "pipe".to_string(), 24)],
                "shift {shift}"
            );
            assert_eq!(per_device_ops(&c), ["stablehlo.collective_permute"]);
        }
        // The pairs: device j sends to j + shift / block.
        let c = roll_on(&m, P!["pipe"], &[8, 3], 2);
        let f = c.partitioned.module.entry().unwrap();
        let pairs = f.ops.iter().find_map(|o| match &o.kind {
            OpKind::CollectivePermute { pairs } => Some(pairs.clone()),
            _ => None,
        });
        assert_eq!(pairs.unwrap(), [(0, 1), (1, 2), (2, 3), (3, 0)]);
        // A shift of 8 rows moves nothing.
        let c = roll_on(&m, P!["pipe"], &[8, 3], 8);
        assert!(collectives(&c).is_empty());
    }

    #[test]
    fn shifts_inside_a_block_gather_first() {
        let m = mesh(&[("pipe", 4)]);
        for shift in [1, -1, 3] {
            let c = roll_on(&m, P!["pipe"], &[8, 3], shift);
            let kinds: Vec<String> = collectives(&c).into_iter().map(|c| c.0).collect();
            assert!(
                kinds.contains(&"all_gather".to_string())
                    && !kinds.contains(&"collective_permute".to_string()),
                "shift {shift}: {kinds:?}"
            );
        }
    }

    #[test]
    fn with_data_parallelism_each_data_group_rotates_alone() {
        let m = mesh(&[("data", 2), ("pipe", 4)]);
        let c = roll_on(&m, P!["pipe", "data"], &[4, 6], 1);
        // One row of 3 f32 per device.
        assert_eq!(
            collectives(&c),
            [("collective_permute".to_string(), "pipe".to_string(), 12)]
        );
        let f = c.partitioned.module.entry().unwrap();
        let pairs = f.ops.iter().find_map(|o| match &o.kind {
            OpKind::CollectivePermute { pairs } => Some(pairs.clone()),
            _ => None,
        });
        // Devices are row-major over (data, pipe): the data groups are 0..4 and 4..8.
        assert_eq!(
            pairs.unwrap(),
            [
                (0, 1),
                (1, 2),
                (2, 3),
                (3, 0),
                (4, 5),
                (5, 6),
                (6, 7),
                (7, 4)
            ]
        );
        // Split over both axes along the rolled dimension (8 blocks of 1 row): a shift of
        // 2 rows moves each block two devices along (pipe, data) order.
        let c = roll_on(&m, P![("pipe", "data")], &[8, 3], 2);
        assert_eq!(
            collectives(&c),
            [(
                "collective_permute".to_string(),
                "pipe,data".to_string(),
                12
            )]
        );
    }

    #[test]
    fn the_gradient_rolls_back_by_collective_permute() {
        let m = mesh(&[("pipe", 4)]);
        let f = jit(|x: Tensor, w: Tensor| {
            let y = &x.roll(1, 0) * &w;
            (&y * &y).sum(&[0, 1])
        })
        .mesh(&m)
        .in_shardings([P!["pipe"], P!["pipe"]])
        .lower(&[f32(&[4, 3]), f32(&[4, 3])])
        .unwrap();
        let g = f.grad(&[0]).unwrap();
        let c = g.compile(&Options::default()).unwrap();
        let kinds: Vec<(String, String, u64)> = collectives(&c);
        // Forward: x's rows to the next device; backward: the cotangent back (a rotation
        // by -1 = 3 blocks); the loss is not a result of `grad`.
        assert_eq!(
            kinds,
            [
                ("collective_permute".to_string(), "pipe".to_string(), 12),
                ("collective_permute".to_string(), "pipe".to_string(), 12),
            ]
        );
        let args = [iota(&[4, 3]), iota(&[4, 3])];
        let want = g.run_reference(&args).unwrap();
        let got = shardc::run_simulated(&c, &args, 1e-6).unwrap();
        assert_eq!(got[0].to_f64_vec(), want[0].to_f64_vec());
    }
}
