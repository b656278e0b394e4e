//! A harness around upstream MLIR's shard dialect, for the cross-check against shardc.
//!
//! It runs `sharding-propagation` and then `shard-partition` (through melior) on a module
//! written with `shard.grid`, `shard.sharding` and `shard.shard`, and reports what came
//! out as data ([`Report`]): the outcome and every diagnostic, the IR after each stage, the
//! collectives with their grid axes, types and ring bytes per device, and whether each
//! function argument and result got the per-device type its sharding implies.
//!
//! Upstream aborts the whole process on some inputs (a null value dereferenced after
//! resharding uneven shards, for one). [`run_isolated`] runs a module in a child process and
//! turns such a death into [`Outcome::Crashed`] (and a hang into [`Outcome::TimedOut`]);
//! [`run_in_process`] is the same measurement
//! without the safety net. The child is any program that calls [`serve_child`] (the
//! cross-check test re-executes itself).
//!
//! The two stages are, for `mlir-opt`, the single pipeline [`MLIR_OPT_PIPELINE`]: running
//! them as two pass managers only lets the report keep the IR in between.

mod inspect;
mod report;
mod shapes;
mod volume;

use std::cell::RefCell;
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::rc::Rc;
use std::time::{Duration, Instant};

use melior::Context;
use melior::diagnostic::DiagnosticSeverity;
use melior::dialect::DialectRegistry;
use melior::ir::Module;
use melior::pass::PassManager;
use melior::utility::{parse_pass_pipeline, register_all_dialects, register_all_passes};
use serde::{Deserialize, Serialize};
use thiserror::Error;

pub use self::inspect::{parse_dense_array, parse_split_axes};
pub use self::report::{
    Collective, CollectiveKind, Diagnostic, Expected, Grid, Outcome, Port, Report, ShapeCheck,
    ShapeVerdict, Sharding, Stage, TensorType, Verdict, Volume, format_bytes,
};
pub use self::shapes::{expected_local, judge};
pub use self::volume::ring_volume;

/// Stage 1: propagate the annotations to every op (and fold the duplicates it creates).
pub const PROPAGATION_PIPELINE: &str = "builtin.module(func.func(sharding-propagation,cse))";
/// Stage 2: partition every function into its per-device program, then tidy it.
pub const PARTITION_PIPELINE: &str = "builtin.module(func.func(shard-partition,canonicalize,cse))";
/// Both stages as one `mlir-opt --pass-pipeline`.
pub const MLIR_OPT_PIPELINE: &str =
    "builtin.module(func.func(sharding-propagation,cse,shard-partition,canonicalize,cse))";

/// The environment variable that tells a program to act as the child of [`run_isolated`].
pub const CHILD_ENV: &str = "SHARDC_UPSTREAM_CHILD";

/// The prefix of each message line the child writes on stdout.
const MESSAGE_PREFIX: &str = "shardc-upstream-message: ";

/// How many trailing stderr lines a crash report keeps.
const STDERR_LINES: usize = 20;

/// Failures of the harness itself. What upstream does (pass failures, crashes) is not an
/// error: it is the measurement, in the [`Report`].
#[derive(Clone, Debug, PartialEq, Eq, Error, Serialize, Deserialize)]
pub enum UpstreamError {
    /// The input is not a module MLIR can parse; the diagnostics say where.
    #[error("the input does not parse as MLIR:\n{}", diagnostics.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("\n"))]
    Parse {
        /// What MLIR's parser reported.
        diagnostics: Vec<Diagnostic>,
    },

    /// The input holds a NUL byte, which MLIR's C API cannot take.
    #[error("the input contains a NUL byte, which MLIR's parser cannot take; remove it")]
    NulInSource,

    /// A pipeline string MLIR rejects: a bug in this module.
    #[error("MLIR rejects the pass pipeline `{pipeline}`: {message}")]
    Pipeline {
        /// The pipeline string.
        pipeline: String,
        /// What MLIR said of it.
        message: String,
    },

    /// The IR did not have the structure the inspection relies on.
    #[error("cannot read the IR: {0}")]
    Inspect(String),

    /// Starting or talking to the child process failed.
    #[error("child process: {0}")]
    Child(String),
}

/// The command line that reproduces a run with `mlir-opt`.
pub fn mlir_opt_command(path: &str) -> String {
    format!("mlir-opt --pass-pipeline='{MLIR_OPT_PIPELINE}' {path}")
}

fn new_context() -> Context {
    let registry = DialectRegistry::new();
    register_all_dialects(&registry);
    register_all_passes();
    // Single-threaded: the diagnostic handler below is not `Send`, and the order of the
    // diagnostics must not depend on scheduling.
    let context = Context::new_with_registry(&registry, false);
    context.load_all_available_dialects();
    context
}

fn severity_name(severity: DiagnosticSeverity) -> &'static str {
    match severity {
        DiagnosticSeverity::Error => "error",
        DiagnosticSeverity::Note => "note",
        DiagnosticSeverity::Remark => "remark",
        DiagnosticSeverity::Warning => "warning",
    }
}

/// `loc("-":19:12)` becomes `19:12`; other locations stay as MLIR prints them.
fn short_location(location: &str) -> String {
    location
        .strip_prefix("loc(\"-\":")
        .and_then(|rest| rest.strip_suffix(')'))
        .map_or_else(|| location.to_string(), str::to_string)
}

fn pass_manager<'c>(
    context: &'c Context,
    pipeline: &str,
) -> Result<PassManager<'c>, UpstreamError> {
    let manager = PassManager::new(context);
    parse_pass_pipeline(manager.as_operation_pass_manager(), pipeline).map_err(|e| {
        UpstreamError::Pipeline {
            pipeline: pipeline.to_string(),
            message: e.to_string(),
        }
    })?;
    Ok(manager)
}

/// Runs both stages in this process and reports what upstream did.
///
/// Upstream can abort the process on some inputs; use [`run_isolated`] when that matters.
pub fn run_in_process(source: &str) -> Result<Report, UpstreamError> {
    run_staged(source, &mut |_, _| {})
}

/// Runs both stages, calling `progress` with the report so far as each stage starts.
fn run_staged(
    source: &str,
    progress: &mut dyn FnMut(Stage, &Report),
) -> Result<Report, UpstreamError> {
    if source.contains('\0') {
        return Err(UpstreamError::NulInSource);
    }
    let context = new_context();
    let diagnostics: Rc<RefCell<Vec<Diagnostic>>> = Rc::default();
    let sink = Rc::clone(&diagnostics);
    let handler = context.attach_diagnostic_handler(move |diagnostic| {
        let notes = (0..diagnostic.note_count())
            .filter_map(|i| diagnostic.note(i).ok())
            .map(|note| note.to_string())
            .collect();
        sink.borrow_mut().push(Diagnostic {
            severity: severity_name(diagnostic.severity()).to_string(),
            location: short_location(&diagnostic.location().to_string()),
            message: diagnostic.to_string(),
            notes,
        });
        // Handled: nothing reaches stderr.
        true
    });
    let result = run_stages(&context, source, &diagnostics, progress);
    context.detach_diagnostic_handler(handler);
    result
}

fn run_stages(
    context: &Context,
    source: &str,
    diagnostics: &Rc<RefCell<Vec<Diagnostic>>>,
    progress: &mut dyn FnMut(Stage, &Report),
) -> Result<Report, UpstreamError> {
    let take = || diagnostics.borrow_mut().drain(..).collect::<Vec<_>>();
    let Some(mut module) = Module::parse(context, source) else {
        return Err(UpstreamError::Parse {
            diagnostics: take(),
        });
    };
    let propagate = pass_manager(context, PROPAGATION_PIPELINE)?;
    let partition = pass_manager(context, PARTITION_PIPELINE)?;

    let mut report = Report::new(inspect::grids(&module)?);
    progress(Stage::Propagation, &report);
    if propagate.run(&mut module).is_err() {
        report.diagnostics = take();
        report.outcome = Outcome::Failed {
            stage: Stage::Propagation,
        };
        return Ok(report);
    }
    report.propagated_ir = Some(module.as_operation().to_string());
    let before = inspect::functions(&module)?;
    report.shapes = shape_checks(&before, None, &report.grids);
    report.diagnostics = take();
    progress(Stage::Partition, &report);

    if partition.run(&mut module).is_err() {
        report.diagnostics.extend(take());
        report.outcome = Outcome::Failed {
            stage: Stage::Partition,
        };
        return Ok(report);
    }
    report.diagnostics.extend(take());
    report.partitioned_ir = Some(module.as_operation().to_string());
    let after = inspect::functions(&module)?;
    report.shapes = shape_checks(&before, Some(&after), &report.grids);
    report.collectives = inspect::collectives(&module, &report.grids);
    report.ops = inspect::op_counts(&module);
    report.outcome = Outcome::Partitioned;
    Ok(report)
}

/// Compares, per function argument and result, the type upstream partitioned it to with
/// the type its (propagated) sharding implies.
fn shape_checks(
    before: &[inspect::FunctionInfo],
    after: Option<&[inspect::FunctionInfo]>,
    grids: &[Grid],
) -> Vec<ShapeCheck> {
    let mut checks = Vec::new();
    for function in before {
        let partitioned = after.and_then(|a| a.iter().find(|f| f.name == function.name));
        let ports = function
            .inputs
            .iter()
            .zip(&function.arg_shardings)
            .enumerate()
            .map(|(i, (t, s))| (Port::Arg(i), t, s))
            .chain(
                function
                    .results
                    .iter()
                    .zip(&function.result_shardings)
                    .enumerate()
                    .map(|(i, (t, s))| (Port::Result(i), t, s)),
            );
        for (port, global, sharding) in ports {
            // Values that are not ranked tensors are not partitioned.
            let Some(global) = global else { continue };
            let actual = partitioned.and_then(|f| match port {
                Port::Arg(i) => f.inputs.get(i).cloned().flatten(),
                Port::Result(i) => f.results.get(i).cloned().flatten(),
            });
            let expected = match sharding {
                Ok(sharding) => match grids.iter().find(|g| g.name == sharding.grid) {
                    Some(grid) => expected_local(global, sharding, grid),
                    None => Expected::Unknown {
                        reason: format!("no shard.grid @{}", sharding.grid),
                    },
                },
                Err(reason) => Expected::Unknown {
                    reason: reason.clone(),
                },
            };
            let verdict = judge(&expected, actual.as_ref());
            checks.push(ShapeCheck {
                function: function.name.clone(),
                port,
                global: global.clone(),
                sharding: sharding.as_ref().ok().cloned(),
                expected,
                actual,
                verdict,
            });
        }
    }
    checks
}

/// One line of the child's stdout.
#[derive(Serialize, Deserialize)]
enum ChildMessage {
    /// The stage about to run, and the report so far.
    Reached(Stage, Box<Report>),
    Done(Box<Report>),
    Error(UpstreamError),
}

/// True when this process was started by [`run_isolated`] through [`child_command`].
pub fn is_child() -> bool {
    std::env::var_os(CHILD_ENV).is_some()
}

/// A command that re-executes the current program as a child (with [`CHILD_ENV`] set).
/// The program must call [`serve_child`] when [`is_child`] is true.
pub fn child_command() -> Result<Command, UpstreamError> {
    let exe = std::env::current_exe()
        .map_err(|e| UpstreamError::Child(format!("cannot find the current executable: {e}")))?;
    let mut command = Command::new(exe);
    command.env(CHILD_ENV, "1");
    Ok(command)
}

/// The child's side of [`run_isolated`]: reads a module from stdin, runs both stages, and
/// writes its progress and report on stdout.
pub fn serve_child() -> Result<(), UpstreamError> {
    let io = |e: std::io::Error| UpstreamError::Child(e.to_string());
    let mut source = String::new();
    std::io::stdin().read_to_string(&mut source).map_err(io)?;
    let stdout = std::io::stdout();
    let send = |message: &ChildMessage| -> Result<(), UpstreamError> {
        let json =
            serde_json::to_string(message).map_err(|e| UpstreamError::Child(e.to_string()))?;
        let mut out = stdout.lock();
        writeln!(out, "{MESSAGE_PREFIX}{json}").map_err(io)?;
        // Flushed before the next stage runs, so a crash in it cannot lose this line.
        out.flush().map_err(io)
    };
    let mut send_error = None;
    let result = run_staged(&source, &mut |stage, report| {
        if let Err(e) = send(&ChildMessage::Reached(stage, Box::new(report.clone()))) {
            send_error.get_or_insert(e);
        }
    });
    if let Some(e) = send_error {
        return Err(e);
    }
    match result {
        Ok(report) => send(&ChildMessage::Done(Box::new(report))),
        Err(error) => send(&ChildMessage::Error(error)),
    }
}

/// Runs both stages in a child process started from `command` (which must end up in
/// [`serve_child`]; see [`child_command`]), so that an abort inside MLIR becomes
/// [`Outcome::Crashed`] with the stage it happened in and the report up to that stage. A
/// child still running after [`DEFAULT_TIMEOUT`] is killed ([`Outcome::TimedOut`]).
pub fn run_isolated(command: Command, source: &str) -> Result<Report, UpstreamError> {
    run_isolated_with_timeout(command, source, DEFAULT_TIMEOUT)
}

/// How long [`run_isolated`] lets a child run; the canonical cases take well under a second.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// [`run_isolated`] with a time limit of one's own.
pub fn run_isolated_with_timeout(
    mut command: Command,
    source: &str,
    timeout: Duration,
) -> Result<Report, UpstreamError> {
    let child_error = |what: &str, e: std::io::Error| UpstreamError::Child(format!("{what}: {e}"));
    let started = Instant::now();
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| child_error("cannot start", e))?;
    let (Some(mut stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(UpstreamError::Child("the child has no pipes".to_string()));
    };
    // Drained on their own threads, so a chatty child never blocks on a full pipe.
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            pipe.read_to_end(&mut bytes).map(|_| bytes)
        })
    };
    let stdout = drain(Box::new(stdout));
    let stderr = drain(Box::new(stderr));
    // The child reads all of stdin before it writes; closing it (drop) ends the input.
    let written = stdin.write_all(source.as_bytes());
    drop(stdin);
    let mut timed_out = false;
    let status = loop {
        match child
            .try_wait()
            .map_err(|e| child_error("cannot wait", e))?
        {
            Some(status) => break status,
            None if started.elapsed() > timeout => {
                timed_out = true;
                // It may have exited in between; either way `wait` reaps it.
                let _ = child.kill();
                break child.wait().map_err(|e| child_error("cannot wait", e))?;
            }
            None => std::thread::sleep(Duration::from_millis(5)),
        }
    };
    let join = |handle: std::thread::JoinHandle<std::io::Result<Vec<u8>>>| {
        handle
            .join()
            .map_err(|_| UpstreamError::Child("a pipe reader panicked".to_string()))?
            .map_err(|e| child_error("cannot read", e))
    };
    let stdout = join(stdout)?;
    let stderr = join(stderr)?;
    if let Err(e) = written
        && !timed_out
        && status.success()
    {
        return Err(child_error("cannot write the module", e));
    }

    let stdout = String::from_utf8_lossy(&stdout);
    let mut reached: Option<(Stage, Report)> = None;
    for line in stdout.lines() {
        let Some(json) = line.strip_prefix(MESSAGE_PREFIX) else {
            continue;
        };
        let message: ChildMessage = serde_json::from_str(json)
            .map_err(|e| UpstreamError::Child(format!("unreadable message ({e}): {json}")))?;
        match message {
            // A finished report stands even if the process dies afterwards (in teardown).
            ChildMessage::Done(report) => return Ok(*report),
            ChildMessage::Error(error) => return Err(error),
            ChildMessage::Reached(stage, report) => reached = Some((stage, *report)),
        }
    }

    let stderr = String::from_utf8_lossy(&stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    let tail = lines[lines.len().saturating_sub(STDERR_LINES)..].join("\n");
    #[cfg(unix)]
    let signal = std::os::unix::process::ExitStatusExt::signal(&status);
    #[cfg(not(unix))]
    let signal = None;
    let Some((stage, mut report)) = reached else {
        let how = if timed_out {
            format!("was killed after {timeout:?}")
        } else {
            format!("exited ({status})")
        };
        return Err(UpstreamError::Child(format!(
            "the child {how} before reporting anything; stderr:\n{tail}"
        )));
    };
    report.outcome = if timed_out {
        Outcome::TimedOut {
            stage,
            seconds: timeout.as_secs_f64(),
        }
    } else {
        Outcome::Crashed {
            stage,
            signal,
            exit_code: status.code(),
            stderr: tail,
        }
    };
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    const RESHARD: &str = r#"
shard.grid @mesh_data2_model4(shape = 2x4)
func.func @reshard(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s0 = shard.sharding @mesh_data2_model4 split_axes = [[1]] : !shard.sharding
  %s1 = shard.sharding @mesh_data2_model4 split_axes = [[]] : !shard.sharding
  %0 = shard.shard %x to %s0 : tensor<8x16xf32>
  %1 = shard.shard %0 to %s1 annotate_for_users : tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}
"#;

    #[test]
    fn unsharding_one_axis_is_one_all_gather() {
        let report = run_in_process(RESHARD).unwrap();
        assert_eq!(report.outcome, Outcome::Partitioned);
        assert_eq!(report.verdict(), Verdict::Ok);
        assert_eq!(report.collectives.len(), 1);
        let gather = &report.collectives[0];
        assert_eq!(gather.kind, CollectiveKind::AllGather);
        assert_eq!(gather.grid_axes, vec![1]);
        assert_eq!(gather.group_size, Some(4));
        assert_eq!(gather.operand.as_ref().unwrap().text, "tensor<2x16xf32>");
        assert_eq!(gather.result.as_ref().unwrap().text, "tensor<8x16xf32>");
        // 3/4 of the gathered 512 B.
        assert_eq!(report.bytes_per_device(), Some(384.0));
        assert_eq!(report.shapes.len(), 2);
    }

    #[test]
    fn parse_errors_are_errors_with_locations() {
        let error = run_in_process("func.func @f( {").unwrap_err();
        let UpstreamError::Parse { diagnostics } = error else {
            panic!("expected a parse error, got {error:?}");
        };
        assert_eq!(diagnostics[0].severity, "error");
        assert!(diagnostics[0].location.starts_with("1:"), "{diagnostics:?}");
        assert_eq!(run_in_process("\0"), Err(UpstreamError::NulInSource));
    }

    #[cfg(unix)]
    #[test]
    fn a_child_that_never_reports_is_an_error() {
        let mut command = Command::new("sh");
        command.args(["-c", "cat > /dev/null; echo oops >&2; exit 3"]);
        let error = run_isolated(command, RESHARD).unwrap_err();
        assert!(
            matches!(&error, UpstreamError::Child(m) if m.contains("before reporting") && m.contains("oops")),
            "{error}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_child_that_dies_after_a_stage_is_a_crash_in_that_stage() {
        let report = Report::new(vec![]);
        let line =
            serde_json::to_string(&ChildMessage::Reached(Stage::Partition, Box::new(report)))
                .unwrap();
        let mut command = Command::new("sh");
        command.args([
            "-c",
            &format!("cat > /dev/null; echo '{MESSAGE_PREFIX}{line}'; kill -SEGV $$"),
        ]);
        let report = run_isolated(command, RESHARD).unwrap();
        assert_eq!(
            report.outcome,
            Outcome::Crashed {
                stage: Stage::Partition,
                signal: Some(11),
                exit_code: None,
                stderr: String::new()
            }
        );
        assert_eq!(
            report.outcome.to_string(),
            "crashed in shard-partition (signal 11, SIGSEGV)"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_child_that_hangs_is_killed() {
        let report = Report::new(vec![]);
        let line =
            serde_json::to_string(&ChildMessage::Reached(Stage::Propagation, Box::new(report)))
                .unwrap();
        let mut command = Command::new("sh");
        command.args([
            "-c",
            &format!("cat > /dev/null; echo '{MESSAGE_PREFIX}{line}'; exec sleep 30"),
        ]);
        let started = Instant::now();
        let report =
            run_isolated_with_timeout(command, RESHARD, Duration::from_millis(300)).unwrap();
        assert!(started.elapsed() < Duration::from_secs(10));
        assert!(matches!(
            report.outcome,
            Outcome::TimedOut {
                stage: Stage::Propagation,
                ..
            }
        ));
    }

    #[test]
    fn locations_are_shortened() {
        assert_eq!(short_location("loc(\"-\":19:12)"), "19:12");
        assert_eq!(short_location("loc(unknown)"), "loc(unknown)");
    }

    #[test]
    fn command_line_names_the_pipeline() {
        assert_eq!(
            mlir_opt_command("x.mlir"),
            "mlir-opt --pass-pipeline='builtin.module(func.func(sharding-propagation,cse,shard-partition,canonicalize,cse))' x.mlir"
        );
        // The two stages concatenated are the one mlir-opt pipeline.
        let inner = |p: &str| {
            p.trim_start_matches("builtin.module(func.func(")
                .trim_end_matches("))")
                .to_string()
        };
        assert_eq!(
            format!(
                "builtin.module(func.func({},{}))",
                inner(PROPAGATION_PIPELINE),
                inner(PARTITION_PIPELINE)
            ),
            MLIR_OPT_PIPELINE
        );
    }
}
