//! Faults under `shardc launch` (`runtime::launch`): a 4-rank training run on the mpi
//! backend whose ranks are killed with `kill -9` three times at random steps and frozen
//! once with `kill -STOP` finishes with parameters and optimizer state bit-identical to an
//! uninterrupted run's, the launcher naming each failure and where each attempt resumed;
//! and a frozen rank ends the job within the collective timeout, with a message naming
//! the collective and the rank that never arrived.
//!
//! A test binary without the libtest harness. Run plainly (as `cargo test` does), it is
//! the driver: it launches itself as the job (`mpirun -n 4 <this binary> train ...`
//! through the launcher) and injects the faults, reading the ranks' progress records for
//! their process ids and steps. The fault steps come from `SHARDC_FAULT_SEED` (printed;
//! fixed by default so that a run is reproducible).

use shardc::ir::{DType, Literal, TensorType};
use shardc::runtime::backend::RunOptions;
use shardc::runtime::backend::mpi::{MpiMesh, abort_on_panic, initialize, launched};
use shardc::runtime::engine::Interpreted;
use shardc::runtime::launch::{Failure, Launch, LaunchReport, Via, read_progress};
use shardc::{Mesh, MpiProgram, P, Tensor};
use shardc_train::checkpoint::Checkpointer;
use shardc_train::session::Session;
use shardc_train::step::{Optimizer, TrainStep, train_step};
use shardc_train::strategy::Strategy;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

const RANKS: usize = 4;
const STEPS: usize = 16;
const EVERY: usize = 3;
/// Milliseconds each rank waits after a step: time for the driver to aim its faults.
const PACE_MS: u64 = 60;

fn f32(s: &[usize]) -> TensorType {
    TensorType::new(DType::F32, s)
}

fn det(shape: &[usize], k: usize, scale: f64) -> Literal {
    let n: usize = shape.iter().product();
    let v: Vec<f64> = (0..n)
        .map(|i| ((0.37 * i as f64 + k as f64).sin() * scale) as f32 as f64)
        .collect();
    Literal::from_f64(DType::F32, shape, &v).expect("sizes match")
}

fn loss(params: &[Tensor], batch: &[Tensor]) -> Tensor {
    let h = batch[0].matmul(&params[0]).gelu().matmul(&params[1]);
    let e = &h - &batch[1];
    (&e * &e).mean(&[0, 1])
}

/// A rank of the job: a data x tensor parallel MLP trained with momentum SGD, resumed
/// from and checkpointed to `dir`, the final state saved at the last step.
fn train(dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let universe = initialize()?;
    abort_on_panic();
    let mpi = MpiMesh::world(&universe)?;
    let mesh = Mesh::new("mesh", &[("data", 2), ("model", mpi.devices() / 2)])?;
    let (b, d, h) = (8, 8, 16);
    let types = vec![f32(&[d, h]), f32(&[h, d])];
    let ts: TrainStep = train_step(
        "mlp",
        loss,
        &types,
        &[f32(&[b, d]), f32(&[b, d])],
        &mesh,
        Strategy::dp_tp(vec![P![None, "model"], P!["model", None]]),
        Optimizer::Sgd {
            lr: 0.05,
            momentum: 0.9,
        },
    )?;
    let compiled = ts.program.compile(&ts.options())?;
    let program = MpiProgram::new(&mpi, &compiled, &Interpreted)?;
    let init = || {
        types
            .iter()
            .enumerate()
            .map(|(k, t)| det(&t.shape, k, 0.3))
            .collect()
    };
    let mut session = Session::resume(
        &ts,
        &compiled,
        &program,
        Checkpointer::new(dir),
        EVERY,
        init,
    )?;
    while session.steps_done() < STEPS {
        let t = session.steps_done() + 1;
        let batch = [det(&[b, d], 10 + t, 1.0), det(&[b, d], 20 + t, 0.5)];
        session.step(&batch, &RunOptions::default())?;
        std::thread::sleep(Duration::from_millis(PACE_MS));
    }
    if !STEPS.is_multiple_of(EVERY) {
        session.save(&Checkpointer::new(dir))?;
    }
    Ok(())
}

fn launch(dir: &Path, progress: &Path, max_restarts: usize, timeout_s: f64) -> Launch {
    let me = std::env::current_exe().expect("this test's path");
    Launch {
        ranks: RANKS,
        command: vec![
            me.display().to_string(),
            "train".into(),
            dir.display().to_string(),
        ],
        max_restarts,
        collective_timeout: Duration::from_secs_f64(timeout_s),
        stall_timeout: Duration::from_secs(60),
        via: Via::Mpirun,
        launcher_args: vec![],
        progress_dir: Some(progress.to_path_buf()),
    }
}

/// Runs `job` on a thread, printing the launcher's lines as they come and keeping them.
fn start(job: Launch) -> std::thread::JoinHandle<(LaunchReport, String)> {
    std::thread::spawn(move || {
        let mut log = Tee(Vec::new());
        let report = job.run(&mut log).expect("the launcher runs mpirun");
        (report, String::from_utf8_lossy(&log.0).into_owned())
    })
}

struct Tee(Vec<u8>);

impl std::io::Write for Tee {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        eprint!("{}", String::from_utf8_lossy(buf));
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Draws numbers from a seed (SplitMix64).
struct Draw(u64);

impl Draw {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9e3779b97f4a7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
        (z ^ (z >> 31)) % n
    }
}

/// Waits until a rank of a run not seen before (no process id in `seen`) has completed
/// step `step`, and a step past where that run resumed; gives its records. `None` if `job`
/// ended.
fn wait_for_progress(
    progress: &Path,
    seen: &[u32],
    step: usize,
    job: &std::thread::JoinHandle<(LaunchReport, String)>,
) -> Option<Vec<shardc::runtime::launch::Progress>> {
    let deadline = Instant::now() + Duration::from_secs(240);
    while Instant::now() < deadline && !job.is_finished() {
        let records = read_progress(progress);
        let fresh = records.len() == RANKS && records.iter().all(|p| !seen.contains(&p.pid));
        if fresh
            && records
                .iter()
                .any(|p| p.step >= step.max(p.resumed_from + 1))
        {
            return Some(records);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    None
}

fn signal(pid: u32, sig: &str) {
    let ok = std::process::Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "kill {sig} {pid} failed");
}

/// The tensors of the newest checkpoint in `dir` (which must be the last step's), by
/// name: their dtypes, shapes and bytes.
fn final_state(dir: &Path) -> Vec<(String, String, Vec<u8>)> {
    let last = Checkpointer::new(dir)
        .list()
        .expect("the checkpoint folder reads")
        .pop()
        .expect("a checkpoint was saved");
    assert_eq!(last.0, STEPS, "the newest checkpoint is the last step's");
    let file = std::fs::read(&last.1).expect("the final checkpoint reads");
    let st = safetensors::SafeTensors::deserialize(&file).expect("a safetensors file");
    let mut tensors: Vec<(String, String, Vec<u8>)> = st
        .tensors()
        .into_iter()
        .map(|(name, view)| {
            let ty = format!("{:?}{:?}", view.dtype(), view.shape());
            (name, ty, view.data().to_vec())
        })
        .collect();
    tensors.sort();
    tensors
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("shardc-launch-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn kills_and_a_freeze_resume_bit_identically() {
    let seed: u64 = std::env::var("SHARDC_FAULT_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20261202);
    println!("launch: faults drawn with SHARDC_FAULT_SEED={seed}");
    let mut draw = Draw(seed);

    let (clean, clean_progress) = (scratch("clean"), scratch("clean-progress"));
    let (report, _) = start(launch(&clean, &clean_progress, 0, 30.0))
        .join()
        .expect("the launcher thread");
    assert!(
        report.finished(),
        "the uninterrupted run failed: {report:?}"
    );
    let want = final_state(&clean);

    let (faulty, progress) = (scratch("faulty"), scratch("faulty-progress"));
    // Long enough that a rank slowed by a busy machine is not taken for a frozen one.
    let timeout_s = 5.0;
    let job = start(launch(&faulty, &progress, 4, timeout_s));
    let mut seen: Vec<u32> = Vec::new();
    let mut injected = Vec::new();
    // Fault k strikes at a step of 3k+1..=3k+3, so that the run moves on between faults
    // and resumes from different checkpoints.
    for (k, fault) in ["-9", "-9", "-9", "-STOP"].into_iter().enumerate() {
        let step = 3 * k + 1 + draw.below(3) as usize;
        let rank = draw.below(RANKS as u64) as usize;
        let records = wait_for_progress(&progress, &seen, step, &job)
            .unwrap_or_else(|| panic!("the run ended or stalled before fault {fault}"));
        let victim = &records[rank];
        println!(
            "launch: kill {fault} rank {rank} (pid {}) at step {}",
            victim.pid, victim.step
        );
        signal(victim.pid, fault);
        injected.push((fault, rank));
        seen.extend(records.iter().map(|p| p.pid));
    }
    let (report, log) = job.join().expect("the launcher thread");
    assert!(report.finished(), "the run did not finish: {report:?}");
    assert_eq!(report.attempts.len(), 5, "{report:?}");
    for (attempt, (fault, rank)) in report.attempts.iter().zip(&injected) {
        match (&attempt.failure, *fault) {
            (Some(Failure::Killed { rank: r, signal: 9 }), "-9") => assert_eq!(*r, Some(*rank)),
            (Some(Failure::TimedOut { waiting_for, .. }), "-STOP") => {
                assert!(waiting_for.contains(rank), "{attempt:?}")
            }
            (f, fault) => panic!("kill {fault} of rank {rank} was reported as {f:?}"),
        }
    }
    for (k, attempt) in report.attempts.iter().enumerate().skip(1) {
        let resumed = attempt.resumed_from.expect("every attempt reported");
        let before = report.attempts[k - 1].reached.unwrap_or(0);
        assert!(
            resumed <= before && resumed % EVERY == 0 && before - resumed < 2 * EVERY,
            "attempt {} resumed at step {resumed}, the one before reached {before}",
            k + 1
        );
        assert!(
            log.contains(&format!("attempt {} resumed at step {resumed}", k + 1))
                || (resumed == 0 && log.contains(&format!("attempt {} started at step 0", k + 1))),
            "the launcher does not say where attempt {} resumed:\n{log}",
            k + 1
        );
    }
    for needle in [
        "was killed by signal 9 (SIGKILL)",
        "timed out in",
        "(stopped, dead or unreachable)",
        "finished after 4 restarts",
    ] {
        assert!(
            log.contains(needle),
            "the launcher's output lacks {needle:?}:\n{log}"
        );
    }
    let got = final_state(&faulty);
    assert_eq!(got.len(), want.len());
    for ((name, ty, bytes), (_, want_ty, want_bytes)) in got.iter().zip(&want) {
        assert_eq!(ty, want_ty, "tensor {name}");
        assert!(
            bytes == want_bytes,
            "tensor {name} after the faults differs from the uninterrupted run's (bit for bit)"
        );
    }
    println!("launch: 3 kills and a freeze, final state bit-identical to the uninterrupted run's");
    for d in [clean, clean_progress, faulty, progress] {
        let _ = std::fs::remove_dir_all(d);
    }
}

fn a_frozen_rank_ends_the_job_within_the_timeout() {
    let (dir, progress) = (scratch("frozen"), scratch("frozen-progress"));
    let timeout_s = 4.0;
    let job = start(launch(&dir, &progress, 0, timeout_s));
    let records = wait_for_progress(&progress, &[], 2, &job).expect("the run makes progress");
    signal(records[1].pid, "-STOP");
    let stopped = Instant::now();
    let (report, log) = job.join().expect("the launcher thread");
    let took = stopped.elapsed().as_secs_f64();
    println!(
        "launch: the job ended {took:.1} s after rank 1 froze (collective timeout {timeout_s} s)"
    );
    assert!(
        took < timeout_s + 8.0,
        "the job took {took:.1} s to end after a rank froze (timeout {timeout_s} s)"
    );
    match &report.attempts[..] {
        [a] => match &a.failure {
            Some(Failure::TimedOut {
                waiting_for,
                collective,
                ..
            }) => {
                assert!(waiting_for.contains(&1), "{a:?}");
                assert!(!collective.is_empty());
            }
            f => panic!("a frozen rank was reported as {f:?}:\n{log}"),
        },
        more => panic!("no restart was allowed, yet {} attempts ran", more.len()),
    }
    assert!(log.contains("giving up after 0 restarts"), "{log}");
    for d in [dir, progress] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// Whether libtest-style arguments select test `name` (`cargo test launch`, `--skip`).
fn selected(name: &str) -> bool {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut filters = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--list" => {
                println!("{name}: test");
                return false;
            }
            "--skip" if it.next().is_some_and(|s| name.contains(s.as_str())) => return false,
            "--test-threads" | "--format" | "--color" | "--logfile" | "-Z" => {
                it.next();
            }
            f if !f.starts_with('-') => filters.push(f),
            _ => {}
        }
    }
    filters.is_empty() || filters.iter().any(|f| name.contains(f))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if launched() {
        return match (args.get(1).map(String::as_str), args.get(2)) {
            (Some("train"), Some(dir)) => match train(Path::new(dir)) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("launch test rank: {e}");
                    ExitCode::FAILURE
                }
            },
            _ => {
                eprintln!("launch test: under mpirun, run as `<this binary> train DIR`");
                ExitCode::FAILURE
            }
        };
    }
    let tests: [(&str, fn()); 2] = [
        (
            "kills_and_a_freeze_resume_bit_identically",
            kills_and_a_freeze_resume_bit_identically,
        ),
        (
            "a_frozen_rank_ends_the_job_within_the_timeout",
            a_frozen_rank_ends_the_job_within_the_timeout,
        ),
    ];
    for (name, test) in tests {
        if selected(name) {
            println!("launch: {name}");
            test();
            println!("launch: {name} ok");
        }
    }
    ExitCode::SUCCESS
}
