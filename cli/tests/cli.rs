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
