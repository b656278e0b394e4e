//! A Megatron-style MLP with shardings, traced, printed as
//! StableHLO + Shardy, run on the reference interpreter, then compiled — shardings
//! propagated, the program partitioned over 8 devices, the decisions explained — and run
//! on a simulated mesh of 8 devices against the reference.
//!
//! Run with `cargo run --release --example megatron_mlp`.

use shardc::{DType, Literal, Mesh, Options, P, Stage, Tensor, TensorType, jit, run_simulated};

/// Deterministic inputs, as the JAX fixtures make them: `sin(0.37 * i + k) * 0.5`.
fn det(shape: &[usize], k: usize) -> Literal {
    let n: usize = shape.iter().product();
    let v: Vec<f64> = (0..n)
        .map(|i| ((0.37 * i as f64 + k as f64).sin() * 0.5) as f32 as f64)
        .collect();
    Literal::from_f64(DType::F32, shape, &v).expect("sizes match")
}

/// `relu(x @ w1) @ w2` in plain Rust, to check the interpreter against.
fn mlp_by_hand(x: &[f64], w1: &[f64], w2: &[f64], (b, d, h): (usize, usize, usize)) -> Vec<f64> {
    let mm = |a: &[f64], w: &[f64], n: usize, k: usize, m: usize| {
        let mut out = vec![0.0; n * m];
        for i in 0..n {
            for j in 0..m {
                out[i * m + j] = (0..k).map(|t| a[i * k + t] * w[t * m + j]).sum();
            }
        }
        out
    };
    let hidden: Vec<f64> = mm(x, w1, b, d, h).into_iter().map(|v| v.max(0.0)).collect();
    mm(&hidden, w2, b, h, d)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (batch, d_model, d_ff) = (8, 16, 32);
    let mesh = Mesh::new("mesh", &[("data", 2), ("model", 4)])?;
    println!(
        "mesh {} ({} devices): {mesh}\n",
        mesh.shape_name(),
        mesh.num_devices()
    );

    // Megatron: W1 split by columns over `model`, W2 by rows; the batch over `data`.
    let mlp = jit(|x: Tensor, w1: Tensor, w2: Tensor| x.matmul(&w1).relu().matmul(&w2))
        .name("mlp")
        .mesh(&mesh)
        .in_shardings([P!["data", None], P![None, "model"], P!["model", None]])
        .out_shardings([P!["data", None]]);
    let f32 = |s: &[usize]| TensorType::new(DType::F32, s);
    let lowered = mlp.lower(&[
        f32(&[batch, d_model]),
        f32(&[d_model, d_ff]),
        f32(&[d_ff, d_model]),
    ])?;
    println!("{}", lowered.as_text());

    let args = [
        det(&[batch, d_model], 0),
        det(&[d_model, d_ff], 1),
        det(&[d_ff, d_model], 2),
    ];
    let out = lowered.run_reference(&args)?;
    let got = out[0].to_f64_vec();
    let want = mlp_by_hand(
        &args[0].to_f64_vec(),
        &args[1].to_f64_vec(),
        &args[2].to_f64_vec(),
        (batch, d_model, d_ff),
    );
    let max_err = got
        .iter()
        .zip(&want)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    println!(
        "reference interpreter: result {} , first row {:?}",
        out[0].ty,
        &got[..4]
    );
    println!("max |interpreter - plain Rust f64| = {max_err:.2e}");
    if max_err > 1e-4 {
        return Err(
            format!("the interpreter disagrees with the hand computation by {max_err}").into(),
        );
    }

    let compiled = lowered.compile(&Options::default())?;
    println!(
        "\n--- partitioned: the program each of the {} devices runs ---",
        mesh.num_devices()
    );
    println!("{}", compiled.as_text(Stage::Partitioned));
    println!("--- explain ---\n{}", compiled.explain());
    let simulated = run_simulated(&compiled, &args, 1e-5)?;
    let diff = simulated[0]
        .to_f64_vec()
        .iter()
        .zip(&got)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    println!(
        "simulated mesh of {} devices vs reference: max |difference| = {diff:.2e}",
        mesh.num_devices()
    );
    if diff > 1e-5 {
        return Err(
            format!("the partitioned program disagrees with the reference by {diff}").into(),
        );
    }
    Ok(())
}
