//! `shardc bench step` on a tiny model: one JSON object with the model, and per device
//! count the mesh, step times, throughput, collectives, bytes and compile stage times.

use shardc::Engine;
use shardc_cli::bench::{StepBench, step};
use shardc_train::presets::tiny_config;

#[test]
fn bench_step_prints_the_fields_the_comparison_reads() {
    let dir = std::env::temp_dir().join(format!("shardc-bench-init-{}", std::process::id()));
    let b = StepBench {
        model: tiny_config(),
        devices: vec![1, 2],
        steps: 1,
        warmup: 1,
        engine: Engine::Interpreted,
        profile: true,
        dump_init: Some(dir.clone()),
    };
    let out = step(&b).unwrap();
    // What the CLI prints parses back.
    let v: serde_json::Value = serde_json::from_str(&format!("{out:#}")).unwrap();
    assert_eq!(v["bench"], "step");
    assert_eq!(v["engine"], "interpreted");
    assert_eq!(v["model"]["vocab"], 96);
    assert_eq!(v["model"]["layers"], 1);
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    for (r, (n, data, model)) in results.iter().zip([(1, 1, 1), (2, 2, 1)]) {
        assert_eq!(r["devices"], n);
        assert_eq!(r["mesh"]["data"], data);
        assert_eq!(r["mesh"]["model"], model);
        for k in ["median", "min"] {
            assert!(r["step_ms"][k].as_f64().unwrap() > 0.0, "{r}");
            assert!(r["device_ms"][k].as_f64().unwrap() > 0.0, "{r}");
        }
        assert!(r["tokens_per_s"].as_f64().unwrap() > 0.0);
        let compile = r["compile_ms"].as_object().unwrap();
        for stage in [
            "trace_loss",
            "autodiff",
            "trace_step",
            "verify",
            "inline",
            "constrain",
            "propagate",
            "extract",
            "partition",
            "verify_partitioned",
            "prepare_kernels",
            "total",
        ] {
            assert!(compile[stage].as_f64().unwrap() >= 0.0, "{stage}: {r}");
        }
        // Near ln(96) at initialization, and the same on every mesh.
        let loss = r["loss_step1"].as_f64().unwrap();
        assert!((loss - 96f64.ln()).abs() < 0.1, "{loss}");
        assert!((loss - results[0]["loss_step1"].as_f64().unwrap()).abs() < 1e-5);
        assert!(r["profile"]["by_op"].as_array().unwrap().len() > 5);
    }
    // One device sends nothing; two over `data` all-reduce the gradients every step.
    assert_eq!(results[0]["collectives_per_step"], 0);
    assert_eq!(results[0]["bytes_sent_per_device_per_step"], 0);
    assert!(results[1]["collectives_per_step"].as_u64().unwrap() > 0);
    assert!(
        results[1]["bytes_sent_per_device_per_step"]
            .as_u64()
            .unwrap()
            > 0
    );
    assert_eq!(results[1]["losses"].as_array().unwrap().len(), 2);
    // The initial parameters and first batches, for the JAX script.
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("init.json")).unwrap()).unwrap();
    let params = manifest["params"].as_array().unwrap();
    assert_eq!(params.len(), tiny_config().param_names().len());
    let wte = std::fs::metadata(dir.join(params[0]["file"].as_str().unwrap())).unwrap();
    assert_eq!(wte.len(), 96 * 16 * 4);
    assert_eq!(
        std::fs::metadata(dir.join("tokens2.i32")).unwrap().len(),
        4 * 8 * 4
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bench_step_refuses_zero_steps_and_devices() {
    let mut b = StepBench {
        model: tiny_config(),
        devices: vec![1],
        steps: 0,
        warmup: 0,
        engine: Engine::Interpreted,
        profile: false,
        dump_init: None,
    };
    assert!(step(&b).unwrap_err().to_string().contains("--steps"));
    b.steps = 1;
    b.devices = vec![0];
    assert!(
        step(&b)
            .unwrap_err()
            .to_string()
            .contains("at least one device")
    );
}
