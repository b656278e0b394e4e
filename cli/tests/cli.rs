//! The `shardc` binary, run as a user runs it.

/// `shardc compile --pad` compiles an uneven case; without `--pad` it is refused, with the
/// position in the file and the fix.
#[test]
fn the_command_line_pads_on_request() {
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
    let padded = run(&["compile", case, "--pad", "--explain"]);
    assert!(padded.status.success());
    let out = String::from_utf8_lossy(&padded.stdout);
    assert!(
        out.contains("all_gather {model} on %0: f32[10@model(pad 2),4] -> f32[10,4], 144 B/device"),
        "{out}"
    );
    let refused = run(&["compile", case]);
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("padded_all_gather.mlir:8:"), "{err}");
    assert!(
        err.contains("ask for padding (`shardc compile --pad`"),
        "{err}"
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
    assert!(
        err.contains("attempt 1 failed: rank 1 exited with status 3"),
        "{err}"
    );
    assert!(err.contains("restarting (1 of 1)"), "{err}");
    assert!(
        err.contains("attempt 2 failed: rank 1 exited with status 3"),
        "{err}"
    );
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
