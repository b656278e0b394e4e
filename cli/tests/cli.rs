//! The `shardc` binary, run as a user runs it.

/// A program whose annotations split a dimension unevenly is padded as JAX pads it, with a
/// note naming the value; `--pad` pads without the note; `--no-pad` refuses it, with the
/// position in the file and the fix.
#[test]
fn the_command_line_pads_as_jax_does_or_on_request() {
    let case = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/partition/padded_all_gather.mlir"
    );
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_shardc"))
            .args(args)
            .output()
            .unwrap()
    };
    let gathered = "all_gather {model} on %0: f32[10@model(pad 2),4] -> f32[10,4], 144 B/device";
    let padded = run(&["compile", case, "--pad", "--explain"]);
    assert!(padded.status.success());
    let out = String::from_utf8_lossy(&padded.stdout);
    assert!(out.contains(gathered), "{out}");
    assert!(padded.stderr.is_empty());
    let auto = run(&["compile", case, "--explain"]);
    assert!(auto.status.success());
    assert!(String::from_utf8_lossy(&auto.stdout).contains(gathered));
    let note = String::from_utf8_lossy(&auto.stderr);
    assert!(
        note.contains("note: dimension 0 of argument 0 (%arg0) of @main has size 10, which \"model\" (4 shards) does not divide: padded as JAX pads it, each shard holding 3"),
        "{note}"
    );
    let refused = run(&["compile", case, "--no-pad"]);
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("padded_all_gather.mlir:8:"), "{err}");
    assert!(err.contains("`--pad` on the command line"), "{err}");
    // An error other than an uneven split is reported as it is, padding or not.
    let dir = std::env::temp_dir().join(format!("shardc-pad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.mlir");
    let text = std::fs::read_to_string(case).unwrap();
    std::fs::write(&bad, text.replace("func.func", "func.fun")).unwrap();
    let bad = run(&["compile", bad.to_str().unwrap()]);
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(!err.contains("note:"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `shardc run` on a JAX export whose `with_sharding_constraint`s split 10 rows and a
/// vocabulary of 50 over 8 devices (`cli/tests/data/uneven.py`): padded as JAX pads them,
/// its outputs match JAX's and the reference's, masked where a reduction crosses padding.
#[test]
fn run_pads_a_jax_programs_uneven_constraints_and_matches_jax() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_shardc"))
        .args([
            "run",
            &format!("{dir}/uneven_constraints_fwd.mlir"),
            "--inputs",
            &format!("{dir}/uneven_constraints_fwd.json"),
            "--check-reference",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("note: dimension 0 of %2 in @main has size 10, which \"data\" (8 shards) does not divide: padded as JAX pads it, each shard holding 2"),
        "{text}"
    );
    assert!(
        text.contains("every result matches the reference interpreter"),
        "{text}"
    );
    assert!(
        text.contains("every result matches the outputs recorded in"),
        "{text}"
    );
}

/// A file that is not UTF-8 is refused at the line and column of its first bad byte.
#[test]
fn a_file_that_is_not_utf8_is_refused_where_it_breaks() {
    let path = std::env::temp_dir().join(format!("shardc-utf8-{}.mlir", std::process::id()));
    std::fs::write(&path, b"func.func @main() {\n  \xff return\n}\n").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_shardc"))
        .args(["compile", path.to_str().unwrap()])
        .output()
        .unwrap();
    std::fs::remove_file(&path).ok();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(":2:3: byte 0xff is not UTF-8"), "{err}");
    // MLIR bytecode (`jax.export`'s serialized module starts so) is named, with the fix,
    // by `compile` and `run` alike.
    let path = std::env::temp_dir().join(format!("shardc-bc-{}.mlirbc", std::process::id()));
    std::fs::write(&path, b"ML\xefR\x01\x0dMLIR22.0.0git\x00").unwrap();
    for command in ["compile", "run"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_shardc"))
            .args([command, path.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("this is MLIR bytecode (as `jax.export`'s `mlir_module_serialized` holds it), and shardc reads MLIR text"),
            "{command}: {err}"
        );
    }
    std::fs::remove_file(&path).ok();
}

/// A reader that stops early (`shardc compile --json | head`) ends the command quietly,
/// not with a panic on the broken pipe.
#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let case = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/peer/transformer_stack_16.mlir"
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_shardc"))
        .args(["compile", case, "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}: {err}", out.status);
    assert!(!err.contains("panicked"), "{err}");
}

/// `--dump-dir` writes every stage: the propagated global program carries each value's
/// chosen sharding (here the Megatron MLP's hidden activation split over data and model),
/// and parses back.
#[test]
fn the_dump_dir_has_every_stage_with_the_propagated_shardings() {
    let case = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/peer/mlp_megatron.mlir"
    );
    let dir = std::env::temp_dir().join(format!("shardc-dump-{}", std::process::id()));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_shardc"))
        .args(["compile", case, "--dump-dir", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "00-input.mlir",
            "01-inlined.mlir",
            "02-propagated.mlir",
            "03-partitioned.mlir",
            "04-explain.txt"
        ]
    );
    let propagated = std::fs::read_to_string(dir.join("02-propagated.mlir")).unwrap();
    let hidden = propagated
        .lines()
        .find(|l| l.contains("stablehlo.dot_general") && l.contains("-> tensor<256x2048xf32>"))
        .unwrap_or_else(|| panic!("{propagated}"));
    assert!(
        hidden.contains(r#"<@mesh, [{"data"}, {"model"}]>"#),
        "the first layer's output is split over data and model: {hidden}"
    );
    shardc::ir::text::parse_module(&propagated).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `shardc compile --decisions` names a JAX export's values by its pytree paths and op
/// paths (exported with debug information); `--json` gives the same as JSON.
#[test]
fn compile_prints_decisions_by_the_programs_names() {
    let case = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/jax/flax_mlp_debug_info_step.mlir"
    );
    let run = |extra: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_shardc"))
            .args(["compile", case, "--decisions"])
            .args(extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    // By default the step's five all-reduces go as one bucket, as XLA combines them.
    let bucketed = run(&[]);
    let all: Vec<&str> = bucketed.lines().filter(|l| l.starts_with("all_")).collect();
    assert_eq!(all.len(), 1, "{bucketed}");
    assert!(
        all[0].contains("5 values flattened into one bucket")
            && all[0].contains("transpose(jvp(Mlp))/Dense_0/dot_general"),
        "{bucketed}"
    );
    let text = run(&["--bucket-bytes", "0"]);
    assert!(
        text.lines()
            .any(|l| l == "argument params['params']['Dense_0']['kernel']: f32[16,64]"),
        "{text}"
    );
    assert!(
        text.lines().any(|l| l.starts_with(
            "all_reduce {data} transpose(jvp(Mlp))/Dense_0/dot_general: f32[16,64]{sum over data} -> f32[16,64], 7168 B/device"
        )),
        "{text}"
    );
    assert!(!text.contains('%'), "{text}");
    let json: serde_json::Value =
        serde_json::from_str(&run(&["--json", "--bucket-bytes", "0"])).unwrap();
    assert_eq!(json["arguments"][4]["name"], "x");
    assert_eq!(
        json["collectives"].as_array().unwrap().len(),
        text.lines().filter(|l| l.starts_with("all_")).count()
    );
}

/// `shardc launch` restarts a failing job up to `--max-restarts` times, says what failed
/// each time, gives up with the job's status, and refuses bad arguments.
#[test]
fn launch_restarts_a_failing_job_and_gives_up() {
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_shardc"))
            .args(args)
            .output()
            .unwrap()
    };
    // A rank that exits with status 3 while the other one works.
    let job = "if [ \"$OMPI_COMM_WORLD_RANK\" = 1 ]; then exit 3; fi; sleep 20";
    let out = run(&[
        "launch",
        "-n",
        "2",
        "--max-restarts",
        "1",
        "--timeout",
        "30",
        "--",
        "sh",
        "-c",
        job,
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    // Open MPI does not always print which process failed (its "Process name" block is
    // sometimes left out when the job is aborted); the launcher then says "a rank".
    for attempt in [1, 2] {
        assert!(
            err.contains(&format!(
                "attempt {attempt} failed: rank 1 exited with status 3"
            )) || err.contains(&format!(
                "attempt {attempt} failed: a rank exited with status 3"
            )),
            "{err}"
        );
    }
    assert!(err.contains("restarting (1 of 1)"), "{err}");
    assert!(
        err.contains("giving up after 1 restart (--max-restarts 1)"),
        "{err}"
    );
    let ok = run(&["launch", "-n", "2", "--", "true"]);
    assert!(ok.status.success());
    assert!(String::from_utf8_lossy(&ok.stderr).contains("attempt 1 finished"));
    let bad = run(&["launch", "-n", "2", "--timeout", "0", "--", "true"]);
    assert!(!bad.status.success());
    assert!(
        String::from_utf8_lossy(&bad.stderr)
            .contains("--timeout 0: give a positive number of seconds"),
        "{}",
        String::from_utf8_lossy(&bad.stderr)
    );
}

/// `shardc run` runs every JAX fixture on the cpu backend from its recorded inputs, and its
/// outputs match JAX's recorded ones and the reference interpreter's.
#[test]
fn run_matches_jax_and_the_reference_on_every_fixture() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/jax");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            name.strip_suffix(".mlir").map(str::to_string)
        })
        .collect();
    names.sort();
    assert!(names.len() >= 50, "{names:?}");
    for name in &names {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_shardc"))
            .args(["run", &format!("{dir}/{name}.mlir"), "--inputs"])
            .arg(format!("{dir}/{name}.json"))
            .args(["--engine", "interpreted", "--check-reference"])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{name}: {text}{err}");
        assert!(
            text.contains("every result matches the reference interpreter")
                && text.contains("every result matches the outputs recorded in"),
            "{name}: {text}"
        );
    }
}

/// A program too large for the host is refused before any of it is allocated (inputs of
/// 4 TB: an allocation that would abort the process), saying how much it needs and why.
#[test]
fn a_run_too_large_for_the_host_is_refused_with_what_it_needs() {
    let tmp = std::env::temp_dir().join(format!("shardc-huge-{}.mlir", std::process::id()));
    let t = "tensor<1000000x1000000xf32>";
    std::fs::write(
        &tmp,
        format!(
            r#"sdy.mesh @mesh = <["data"=8]>
func.func @main(%a: {t} {{sdy.sharding = #sdy.sharding<@mesh, [{{"data"}}, {{}}]>}}) -> {t} {{
  %0 = stablehlo.add %a, %a : {t}
  return %0 : {t}
}}
"#
        ),
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_shardc"))
        .arg("run")
        .arg(&tmp)
        .output()
        .unwrap();
    std::fs::remove_file(&tmp).ok();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("this run needs about 12000.0 GB of memory on this host (4000.0 GB of global inputs, 8 device(s) x 1000.0 GB planned peak each)"),
        "{err}"
    );
}

/// A multi-platform `jax.export` (cpu and cuda) takes the platform index first: inputs
/// recorded without it run as the first platform, compiled for it (its `case`s on the
/// index fold away: the plan is the single-platform program's one bucketed all-reduce,
/// not the branches' gathers); given, the index chooses the platform.
#[test]
fn a_multi_platform_export_runs_for_its_first_platform() {
    let case = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/export/export_multiplatform_step"
    );
    let run = |inputs: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_shardc"))
            .args(["run", &format!("{case}.mlir"), "--inputs", inputs])
            .arg("--check-reference")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            out.status.success(),
            "{text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        text
    };
    let text = run(&format!("{case}.json"));
    assert!(text.contains("compiled for platform 0"), "{text}");
    assert!(
        text.contains("1 per-device ops, 3592 B sent per device"),
        "{text}"
    );
    assert!(
        text.contains("every result matches the outputs recorded in"),
        "{text}"
    );
    // The index given (1: cuda's branch): the same values.
    let mut rec: serde_json::Value =
        serde_json::from_slice(&std::fs::read(format!("{case}.json")).unwrap()).unwrap();
    rec["inputs"].as_array_mut().unwrap().insert(
        0,
        serde_json::json!({"shape": [], "dtype": "int32", "data": [1]}),
    );
    let with_index =
        std::env::temp_dir().join(format!("shardc-platform-{}.json", std::process::id()));
    std::fs::write(&with_index, rec.to_string()).unwrap();
    let text = run(with_index.to_str().unwrap());
    assert!(text.contains("compiled for platform 1"), "{text}");
    assert!(
        text.contains("every result matches the outputs recorded in"),
        "{text}"
    );
    std::fs::remove_file(&with_index).ok();
}

/// `shardc run` with the JIT, a trace with a named track per device and thread, outputs
/// written to safetensors and read back as inputs, deterministic inputs, and bad inputs
/// refused with what and where.
#[test]
fn run_writes_traces_and_outputs_and_refuses_bad_inputs() {
    let case = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/jax/flax_mlp_relu_fwd"
    );
    let tmp = std::env::temp_dir().join(format!("shardc-run-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_shardc"))
            .arg("run")
            .args(args)
            .output()
            .unwrap()
    };
    let (trace, outs) = (tmp.join("trace.json"), tmp.join("out.safetensors"));
    let ok = run(&[
        &format!("{case}.mlir"),
        "--inputs",
        &format!("{case}.json"),
        "--trace",
        trace.to_str().unwrap(),
        "--out",
        outs.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&ok.stdout);
    assert!(
        ok.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    assert!(text.contains("on the cpu backend (8 devices"), "{text}");
    let t: serde_json::Value = serde_json::from_slice(&std::fs::read(&trace).unwrap()).unwrap();
    let names: Vec<String> = t["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "process_name")
        .map(|e| e["args"]["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names.len(), 8, "{names:?}");
    // The outputs written, read back: the first result of the run is the file's `0`.
    let bytes = std::fs::read(&outs).unwrap();
    let st = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    assert!(st.tensor("0").is_ok());
    // Deterministic inputs when none are given: the same outputs twice.
    let a = run(&[&format!("{case}.mlir"), "--engine", "interpreted"]);
    let b = run(&[
        &format!("{case}.mlir"),
        "--engine",
        "interpreted",
        "--backend",
        "simulated",
    ]);
    assert!(a.status.success() && b.status.success());
    let results = |o: &std::process::Output| {
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter(|l| l.starts_with("result "))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(results(&a), results(&b));
    // Inputs of another program: the argument, both types and the file are named.
    let other = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/jax/flax_mlp_sgd_step.json"
    );
    let bad = run(&[&format!("{case}.mlir"), "--inputs", other]);
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(!bad.status.success());
    assert!(
        err.contains("flax_mlp_sgd_step.json:") && err.contains("the program takes"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&tmp);
}

/// `shardc run --backend mpi` under `shardc launch`: one process per device, rank 0
/// prints, the outputs match JAX's; started without a launcher, it says how to start it.
#[test]
fn run_on_the_mpi_backend_under_launch() {
    let case = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/jax/flax_mlp_sgd_step"
    );
    let shardc = env!("CARGO_BIN_EXE_shardc");
    let out = std::process::Command::new(shardc)
        .args([
            "launch",
            "-n",
            "8",
            "--max-restarts",
            "0",
            "--timeout",
            "120",
            "--",
        ])
        .args([shardc, "run", "--backend", "mpi", "--engine", "interpreted"])
        .arg(format!("{case}.mlir"))
        .arg("--inputs")
        .arg(format!("{case}.json"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(text.matches("ran @main").count(), 1, "{text}");
    assert!(text.contains("on the mpi backend (8 devices"), "{text}");
    assert!(
        text.contains("every result matches the outputs recorded in"),
        "{text}"
    );
    let alone = std::process::Command::new(shardc)
        .args(["run", "--backend", "mpi"])
        .arg(format!("{case}.mlir"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&alone.stderr);
    assert!(!alone.status.success());
    assert!(
        err.contains("start it as `shardc launch -n 8 -- shardc run --backend mpi"),
        "{err}"
    );
}

/// `--topology FILE` puts the machines into the cost model: a Flax training step's
/// gradient all-reduces over 8 devices on 2 nodes with slow links between them are routed
/// hierarchically (explain says so, with both predictions), the routed step runs and
/// still matches JAX's recorded outputs; a bad topology file is refused naming the field.
#[test]
fn a_topology_file_routes_gradient_all_reduces_hierarchically() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/jax");
    let case = format!("{dir}/flax_mlp_adamw_step.mlir");
    let inputs = format!("{dir}/flax_mlp_adamw_step.json");
    let topology =
        std::env::temp_dir().join(format!("shardc-topology-{}.json", std::process::id()));
    let write = |inter: &str| {
        std::fs::write(
            &topology,
            format!(
                r#"{{"nodes": 2, "devices_per_node": 4, "intra": {{"bandwidth": 2e9, "latency": 1e-5}}, "inter": {{"bandwidth": {inter}, "latency": 5e-5}}}}"#
            ),
        )
        .unwrap();
    };
    let shardc = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_shardc"))
            .args(args)
            .output()
            .unwrap()
    };
    // Runs a command that must succeed; its standard output.
    let succeeds = |args: &[&str]| {
        let out = shardc(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{args:?}: {err}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    write("1e8");
    let t = topology.to_str().unwrap();
    let text = succeeds(&["compile", &case, "--explain", "--topology", t]);
    assert!(
        text.contains("route:  hierarchical over nodes of 4 devices"),
        "{text}"
    );
    succeeds(&["run", &case, "--inputs", &inputs, "--topology", t]);
    // Compressed gradients: the bucket travels as int8, explain says so; a bad kind is
    // refused with the forms it takes.
    let text = succeeds(&[
        "compile",
        &case,
        "--explain",
        "--bucket-bytes",
        "26214400",
        "--compress",
        "data=int8",
    ]);
    assert!(
        text.contains("compressed: int8:64 (error fed back), 14896 -> 4004 B/device"),
        "{text}"
    );
    let out = shardc(&["compile", &case, "--compress", "data=fp4"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("powersgd:R"));
    // An axis the program's mesh does not have: refused by name, not ignored.
    let out = shardc(&["compile", &case, "--compress", "dta=bf16"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("axis \"dta\"") && err.contains("name one of its axes: \"data\""),
        "{err}"
    );
    write("0");
    let out = shardc(&["compile", &case, "--topology", t]);
    std::fs::remove_file(&topology).ok();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("inter-node link's bandwidth 0"), "{err}");
}

/// `shardc calibrate` writes a profile the compiler loads: contraction rates at five sizes
/// by increasing FLOPs (small dots slower than large ones: per-kernel costs), a latency
/// per group size of the mesh's axes, and the raw figures it fitted them to.
#[test]
fn calibrate_writes_a_profile_of_rates_by_size_and_latencies_by_group() {
    let dir = std::env::temp_dir().join(format!("shardc-calibrate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("profile.json");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_shardc"))
        .args([
            "calibrate",
            "--mesh",
            "data=2,model=2",
            "--repeats",
            "1",
            "--out",
        ])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The raw figures go to stderr, then `wrote PATH`.
    let err = String::from_utf8(out.stderr).unwrap();
    let raw: serde_json::Value = serde_json::from_str(&err[..=err.rfind('}').unwrap()]).unwrap();
    assert_eq!(raw["devices"], 4);
    assert!(
        raw["axes"]["model"]["layers_with_all_reduces_us"]
            .as_f64()
            .unwrap()
            > 0.0
    );
    let m = shardc_compiler::sharding::cost::CostModel::load(&path).unwrap();
    let sizes: Vec<f64> = m.dot_rates.iter().map(|r| r.0).collect();
    assert_eq!(sizes.len(), 7);
    assert!(sizes.windows(2).all(|w| w[0] < w[1]), "{sizes:?}");
    assert!(m.dot_rates.iter().all(|r| r.1 > 0.0));
    assert!(
        m.dot_rates[0].1 < m.dot_rates[5].1,
        "a 16^3 dot (a kernel call's overhead) at least as fast as a 256x512x512 one: {:?}",
        m.dot_rates
    );
    // Both axes hold 2 devices: one latency for groups of 2, and one for groups of 4 over
    // both axes at once, measured as their layers.
    let groups: Vec<usize> = m.group_latency.iter().map(|g| g.0).collect();
    assert_eq!(groups, vec![2, 4]);
    assert!(m.latency_of(2) > 0.0 && m.latency_of(4) > 0.0);
    assert!(
        raw["axes"]["data,model"]["layers_with_all_reduces_us"]
            .as_f64()
            .unwrap()
            > 0.0
    );
    assert_eq!(m.flops, m.dot_rates[5].1);
    // Skinny and batched contractions measured apart, five sizes each; and reductions.
    use shardc_compiler::sharding::cost::DotClass;
    for class in [DotClass::Skinny, DotClass::Batched] {
        let rates = &m.dot_class_rates[&class];
        assert_eq!(rates.len(), 5, "{class:?}: {rates:?}");
        assert!(rates.windows(2).all(|w| w[0].0 < w[1].0), "{rates:?}");
        assert!(rates.iter().all(|r| r.1 > 0.0), "{rates:?}");
    }
    assert!(!m.dot_class_rates.contains_key(&DotClass::Square));
    assert!(m.reduce_flops.is_some_and(|r| r > 0.0));
    // A loop iteration's fixed cost (a scan step), measured.
    assert!(
        m.loop_iteration > 0.0 && m.loop_iteration < 1e-2,
        "{}",
        m.loop_iteration
    );
    // The profile holds seconds, the raw file microseconds: equal up to the rounding of
    // the unit change.
    let raw_us = raw["loop_iteration_us"].as_f64().unwrap();
    assert!(
        (raw_us - m.loop_iteration * 1e6).abs() <= 1e-9 * raw_us,
        "{raw_us} us against {} s",
        m.loop_iteration
    );
    assert!(raw["matmul_ms"]["8x(64x64x64)"].as_f64().unwrap() > 0.0);
    assert!(raw["matmul_ms"]["8x2048x2048"].as_f64().unwrap() > 0.0);
    // Collectives of every size go through shared memory: its rate, measured.
    let sm = m
        .shared_memory
        .expect("the cpu backend's shared-memory collectives");
    assert_eq!(sm.min_bytes, 0);
    assert!(sm.bandwidth > 0.0);
    assert!(raw["axes"]["model"]["shared_memory_GBps"].as_f64().unwrap() > 0.0);
    // ... and apart, the rate of the collectives that only copy (all-gathers).
    assert!(sm.copy_bandwidth.is_some_and(|b| b > 0.0), "{sm:?}");
    assert!(sm.rate(false) == sm.copy_bandwidth.unwrap() && sm.rate(true) == sm.bandwidth);
    assert!(
        raw["axes"]["model"]["one_all_gather_4MiB_us"]
            .as_f64()
            .unwrap()
            > 0.0
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `shardc bench plans --calibrate MESH` measures the host, then optimises and predicts
/// every plan with what it measured: the profile named in the output, the raw figures
/// beside the plans, each plan's measured step split into compute, communication and
/// waiting per device.
#[test]
fn bench_plans_predicts_with_the_host_it_just_measured() {
    let program = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/partition/megatron_mlp_fwd.mlir"
    );
    let plans = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_shardc"))
            .args(["bench", "plans"])
            .args(args)
            .arg(program)
            .output()
            .unwrap()
    };
    let out = plans(&["--calibrate", "data=2,model=4", "--steps", "1"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["cost_model"].as_str().unwrap().starts_with("calibrated"),
        "{}",
        v["cost_model"]
    );
    assert_eq!(v["calibration"]["devices"], 8);
    let plan = &v["programs"][0]["plans"][0];
    assert_eq!(plan["plan"], "chosen");
    assert!(plan["predicted_ms"]["total"].as_f64().unwrap() > 0.0);
    assert!(plan["measured_per_device_ms"]["compute"].as_f64().unwrap() > 0.0);
    // `each`: measured with the program's own mesh, named beside the program.
    let out = plans(&["--calibrate", "each", "--steps", "1"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let program = &v["programs"][0];
    assert_eq!(program["mesh"], "data=2,model=4");
    assert!(
        program["cost_model"]
            .as_str()
            .unwrap()
            .contains("mesh data=2,model=4"),
        "{}",
        program["cost_model"]
    );
    assert_eq!(v["calibration"]["data=2,model=4"]["devices"], 8);
    // Asked for both a profile and a measurement, a mesh axis of no devices, or one
    // without a size: refused, naming what is wrong.
    for (args, want) in [
        (
            &["--calibrate", "data=8", "--cost-profile", "x.json"][..],
            &["--calibrate", "--cost-profile"][..],
        ),
        (
            &["--calibrate", "data=0"],
            &[
                "--calibrate \"data=0\"",
                "\"0\" is not a positive whole number",
            ],
        ),
        (
            &["--calibrate", "data"],
            &["--calibrate \"data\"", "write each axis as NAME=SIZE"],
        ),
    ] {
        let out = plans(args);
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(want.iter().all(|w| err.contains(w)), "{err}");
    }
}

/// `shardc bench peer --trace DIR` writes the last timed step's trace of each case: every
/// device's segments and its per-device ops, the shard_slices that move nothing on the
/// compute thread.
#[test]
fn bench_peer_writes_each_cases_trace() {
    let dir = std::env::temp_dir().join(format!("shardc-peer-trace-{}", std::process::id()));
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/jax");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_shardc"))
        .args([
            "bench",
            "peer",
            "--dir",
            fixtures,
            "--cases",
            "jax_checkpoint_names_grad",
        ])
        .args(["--steps", "1", "--engine", "interpreted", "--trace"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let path = dir.join("jax_checkpoint_names_grad.trace.json");
    let trace: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let events = trace["traceEvents"].as_array().unwrap();
    let on = |name: &str, tid: u64| {
        events
            .iter()
            .filter(|e| e["ph"] == "X" && e["tid"] == tid)
            .filter(|e| e["name"].as_str().unwrap().starts_with(name))
            .map(|e| e["pid"].as_u64().unwrap())
            .collect::<std::collections::BTreeSet<_>>()
    };
    let every: std::collections::BTreeSet<u64> = (0..8).collect();
    assert_eq!(on("segment", 0), every);
    assert_eq!(on("shard_slice", 0), every);
    assert!(on("shard_slice", 1).is_empty());
}

/// `shardc plan` ranks the ways to train the demo on 8 devices and a 1.3 B-parameter GPT's
/// shapes on 1024, within a memory limit, and names what is wrong with a bad request.
#[test]
fn plan_ranks_meshes_and_strategies_and_refuses_bad_requests() {
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_shardc"))
            .args(args)
            .output()
            .unwrap()
    };
    let out = run(&["plan", "demo", "--devices", "8", "--top", "3"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let plans = v["plans"].as_array().unwrap();
    assert_eq!(plans.len(), 3);
    let ms: Vec<f64> = plans
        .iter()
        .map(|p| p["predicted_step_ms"].as_f64().unwrap())
        .collect();
    assert!(ms.windows(2).all(|w| w[0] <= w[1]), "{ms:?}");
    for p in plans {
        let product = ["data", "stages", "context", "model"]
            .iter()
            .map(|k| p[k].as_u64().unwrap())
            .product::<u64>();
        assert_eq!(product, 8, "{p}");
    }
    let limit = (80u64 << 30).to_string();
    let out = run(&[
        "plan",
        "gpt-1b",
        "--devices",
        "1024",
        "--gpu-cluster",
        "--memory-per-device",
        &limit,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["model"]["parameters"].as_u64().unwrap() > 1_200_000_000);
    let best = &v["plans"][0];
    assert!(best["memory_per_device"]["total"].as_u64().unwrap() <= 80 << 30);
    // The mixture of experts: 7 B parameters, planned with its experts split over the
    // data axis.
    let out = run(&[
        "plan",
        "gpt-1b-moe",
        "--devices",
        "64",
        "--gpu-cluster",
        "--memory-per-device",
        &limit,
    ]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["model"]["experts"]["count"], 8);
    assert!(v["model"]["parameters"].as_u64().unwrap() > 6_900_000_000);
    assert!(
        v["plans"][0]["experts_over"].as_u64().unwrap() > 1,
        "{}",
        v["plans"][0]
    );
    let shapes = std::env::temp_dir().join(format!("shardc-moe-{}.json", std::process::id()));
    std::fs::write(
        &shapes,
        r#"{"vocab": 64, "layers": 2, "batch": 8, "seq": 16, "d_model": 32, "heads": 4, "d_ff": 64, "experts": 4, "capacity_factor": -1}"#,
    )
    .unwrap();
    let shapes = shapes.to_str().unwrap();
    for (args, want) in [
        (
            vec!["plan", shapes, "--devices", "8"],
            "`capacity_factor` must be a positive number",
        ),
        (
            vec!["plan", "demo", "--devices", "7"],
            "no way to split 7 devices",
        ),
        (
            vec!["plan", "no-such-model.json", "--devices", "8"],
            "no-such-model.json",
        ),
    ] {
        let out = run(&args);
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

/// A sequence-parallel MLP (Megatron's with the batch split between the blocks): the batch
/// all-gathered into the first matmul, the second's partial sums reduce-scattered back.
const SEQUENCE_PARALLEL_MLP: &str = r#"module @sp_mlp {
  sdy.mesh @mesh = <["model"=4]>
  func.func @main(%x: tensor<64x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>},
                  %w1: tensor<32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>},
                  %w2: tensor<64x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>})
      -> (tensor<64x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}) {
    %h = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : (tensor<64x32xf32>, tensor<32x64xf32>) -> tensor<64x64xf32>
    %t = stablehlo.tanh %h : tensor<64x64xf32>
    %y = stablehlo.dot_general %t, %w2, contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
    return %y : tensor<64x32xf32>
  }
}
"#;

#[test]
fn collective_matmul_runs_the_gather_and_the_scatter_as_ring_steps() {
    let tmp = std::env::temp_dir().join(format!("shardc-ring-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let file = tmp.join("sp_mlp.mlir");
    std::fs::write(&file, SEQUENCE_PARALLEL_MLP).unwrap();
    let shardc = env!("CARGO_BIN_EXE_shardc");
    let out = |args: &[&str]| {
        let o = std::process::Command::new(shardc)
            .args(args)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&o.stdout).to_string();
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        (o.status.success(), text, err)
    };
    let path = file.to_str().unwrap();
    // Whole: one all-gather and one reduce-scatter.
    let (ok, whole, err) = out(&["compile", path, "--explain"]);
    assert!(ok, "{whole}{err}");
    assert!(!whole.contains("ring:"), "{whole}");
    let sent = |text: &str| {
        let line = text.lines().find(|l| l.starts_with("total ")).unwrap();
        line.split(" B/device sent").next().unwrap().to_string()
    };
    // Decomposed: the same collectives described, each with its ring; the same bytes.
    let (ok, ring, err) = out(&[
        "compile",
        path,
        "--explain",
        "--collective-matmul",
        "always",
    ]);
    assert!(ok, "{ring}{err}");
    assert_eq!(
        ring.matches("ring:   decomposed into 4 ring steps").count(),
        2,
        "{ring}"
    );
    assert_eq!(sent(&ring), sent(&whole), "{ring}");
    // `auto` (the flag alone) weighs each ring: this program's products are too small to
    // hide four permutes behind, and explain says so.
    let (ok, auto, err) = out(&["compile", path, "--explain", "--collective-matmul"]);
    assert!(ok, "{auto}{err}");
    assert_eq!(
        auto.matches("ring:   kept whole; as 4 ring steps").count(),
        2,
        "{auto}"
    );
    assert_eq!(sent(&auto), sent(&whole), "{auto}");
    // Run: the permutes move the blocks and the outputs are the reference's, on the cpu
    // backend and on four MPI processes.
    // (`--steps 2`: two more calls timed, each device's exposed communication.)
    let (ok, text, err) = out(&[
        "run",
        path,
        "--collective-matmul",
        "always",
        "--check-reference",
        "--steps",
        "2",
    ]);
    assert!(ok, "{text}{err}");
    assert_eq!(text.matches("collective_permute %").count(), 6, "{text}");
    assert!(!text.contains("all_gather %"), "{text}");
    assert!(text.contains("every result matches"), "{text}");
    assert!(text.contains("2 more calls: median "), "{text}");
    assert_eq!(text.matches(", compute waited ").count(), 4, "{text}");
    let (ok, _, err) = out(&["run", path, "--backend", "simulated", "--steps", "2"]);
    assert!(
        !ok && err.contains("--steps times the cpu and mpi backends"),
        "{err}"
    );
    let (ok, text, err) = out(&[
        "launch",
        "-n",
        "4",
        "--max-restarts",
        "0",
        "--timeout",
        "120",
        "--",
        shardc,
        "run",
        "--backend",
        "mpi",
        path,
        "--collective-matmul",
        "always",
        "--check-reference",
        "--steps",
        "1",
    ]);
    assert!(ok, "{text}{err}");
    assert!(text.contains("on the mpi backend (4 devices"), "{text}");
    assert!(text.contains("1 more call: median "), "{text}");
    assert_eq!(text.matches(", compute waited ").count(), 4, "{text}");
    assert_eq!(text.matches("collective_permute %").count(), 6, "{text}");
    assert!(text.contains("every result matches"), "{text}");
    // JAX's own programs whose collectives decompose (a Megatron GPT-2 forward, an FSDP
    // AdamW step with bf16 moments, a Bart AdamW step under tensor parallelism): JAX's
    // recorded outputs, with every ring.
    for case in [
        "hf_gpt2_megatron_fwd",
        "optax_adamw_bf16_mu_fsdp_step",
        "hf_bart_adamw_tp_step",
    ] {
        let case = format!(
            "{}/../tests/fixtures/jax/{case}",
            env!("CARGO_MANIFEST_DIR")
        );
        let (mlir, json) = (format!("{case}.mlir"), format!("{case}.json"));
        let (ok, text, err) = out(&[
            "compile",
            &mlir,
            "--explain",
            "--collective-matmul",
            "always",
        ]);
        assert!(ok, "{text}{err}");
        assert!(text.contains("ring:   decomposed"), "{case}: {text}");
        let (ok, text, err) = out(&[
            "run",
            &mlir,
            "--inputs",
            &json,
            "--collective-matmul",
            "always",
        ]);
        assert!(ok, "{text}{err}");
        assert!(text.contains("collective_permute %"), "{case}: {text}");
        assert!(
            text.contains("every result matches the outputs recorded"),
            "{case}: {text}"
        );
    }
    // A mode that does not exist is refused, naming the ones that do.
    let (ok, _, err) = out(&["compile", path, "--collective-matmul", "sometimes"]);
    assert!(!ok);
    assert!(err.contains("off, auto") && err.contains("always"), "{err}");
    std::fs::remove_dir_all(&tmp).ok();
}

/// A record written from NumPy holds a Python int as an int64 and floats as float64s: for
/// 32-bit arguments `shardc run` gives them in 32 bits, as JAX with `jax_enable_x64` off
/// runs them, with a note; an integer that does not fit is refused, naming it.
#[test]
fn sixty_four_bit_inputs_run_in_32_bits_as_jax_runs_them() {
    let tmp = std::env::temp_dir().join(format!("shardc-x64-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let program = tmp.join("p.mlir");
    std::fs::write(
        &program,
        r#"func.func @main(%n: tensor<2xi32>, %x: tensor<2xf32>) -> (tensor<2xi32>, tensor<2xf32>) {
  %0 = stablehlo.add %n, %n : tensor<2xi32>
  %1 = stablehlo.add %x, %x : tensor<2xf32>
  return %0, %1 : tensor<2xi32>, tensor<2xf32>
}"#,
    )
    .unwrap();
    let record = |n: &str| {
        format!(
            r#"{{"inputs": [{{"shape": [2], "dtype": "int64", "data": [{n}, -4]}}, {{"shape": [2], "dtype": "float64", "data": [0.1, 1e-50]}}],
  "outputs": [{{"shape": [2], "dtype": "int32", "data": [6, -8]}}, {{"shape": [2], "dtype": "float32", "data": [0.2, 0.0]}}],
  "tolerance": {{"abs": 0.0, "rel": 0.0}}}}"#
        )
    };
    let run = |n: &str| {
        let inputs = tmp.join(format!("in{n}.json"));
        std::fs::write(&inputs, record(n)).unwrap();
        std::process::Command::new(env!("CARGO_BIN_EXE_shardc"))
            .arg("run")
            .arg(&program)
            .arg("--inputs")
            .arg(&inputs)
            .output()
            .unwrap()
    };
    let ok = run("3");
    let text = String::from_utf8_lossy(&ok.stdout);
    assert!(
        ok.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    assert!(
        text.contains("note: input 0 is tensor<2xi64>, given to argument 0 (tensor<2xi32>) in 32 bits, as JAX runs 64-bit arrays with `jax_enable_x64` off")
            && text.contains("note: input 1 is tensor<2xf64>, given to argument 1 (tensor<2xf32>) in 32 bits"),
        "{text}"
    );
    // 0.1 rounded to f32 and doubled is exactly 2 * 0.1f32; 1e-50 is 0 in f32.
    assert!(
        text.contains("every result matches the outputs recorded"),
        "{text}"
    );
    let bad = run("3000000000");
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(!bad.status.success());
    assert!(
        err.contains("input 0: element 0 is 3000000000, which the argument's i32 cannot hold"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&tmp);
}
