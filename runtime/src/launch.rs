//! The launcher behind `shardc launch`: runs a multi-process job (one rank per device)
//! under `mpirun` or Slurm's `srun`, and when a rank dies, times out in a collective or
//! the job stops making progress, ends the job and starts it again — the training program
//! resumes from its newest good checkpoint — up to `max_restarts` times, saying what
//! failed (rank, signal, exit status or collective, step) and where each attempt resumed.
//! PyTorch users know it as torchrun's elastic agent.
//!
//! The job tells the launcher how far it got through [`report_progress`]: each rank
//! writes `rank-R.json` ([`Progress`]: its process id, the steps done, the step it
//! resumed at) in the directory `SHARDC_PROGRESS_DIR` names, which the launcher sets and
//! exports to every rank (`shardc_train::session::Session` reports after every step).
//! A job whose steps stop advancing for [`Launch::stall_timeout`] is ended as stalled; a
//! rank stuck in a collective ends itself after `SHARDC_COLLECTIVE_TIMEOUT`
//! (`backend::watchdog`), which the launcher also sets and exports.

use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

/// The environment variable naming the directory of the ranks' progress records.
pub const PROGRESS_VAR: &str = "SHARDC_PROGRESS_DIR";

/// What a rank last reported to the launcher.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    /// The rank reporting.
    pub rank: usize,
    /// Its process id.
    pub pid: u32,
    /// Steps completed.
    pub step: usize,
    /// Steps completed when this run started: the checkpoint it resumed from (0: from the
    /// start).
    pub resumed_from: usize,
}

/// Writes `p` where the launcher reads it (`$SHARDC_PROGRESS_DIR/rank-R.json`, replaced
/// atomically); nothing when no launcher asked (the variable unset).
pub fn report_progress(p: &Progress) -> std::io::Result<()> {
    let Some(dir) = std::env::var_os(PROGRESS_VAR) else {
        return Ok(());
    };
    let dir = PathBuf::from(dir);
    let tmp = dir.join(format!(".rank-{}.json.tmp", p.rank));
    let json = serde_json::to_vec(p).map_err(std::io::Error::other)?;
    std::fs::write(&tmp, json)?;
    std::fs::rename(&tmp, dir.join(format!("rank-{}.json", p.rank)))
}

/// The progress records in `dir`, by rank (records that do not parse are skipped: a rank
/// may be writing one).
pub fn read_progress(dir: &Path) -> Vec<Progress> {
    let mut all: Vec<Progress> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.starts_with("rank-") && n.ends_with(".json"))
        })
        .filter_map(|e| std::fs::read(e.path()).ok())
        .filter_map(|b| serde_json::from_slice(&b).ok())
        .collect();
    all.sort_by_key(|p| p.rank);
    all
}

/// What starts the ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via {
    /// Open MPI's `mpirun` (one node, or several with `--hostfile`).
    Mpirun,
    /// Slurm's `srun`, inside an allocation (`salloc`/`sbatch`).
    Srun,
}

/// A job to run and restart.
#[derive(Clone, Debug)]
pub struct Launch {
    /// Processes (one per device).
    pub ranks: usize,
    /// The program and its arguments, as every rank runs them.
    pub command: Vec<String>,
    /// Restarts after a failure before giving up.
    pub max_restarts: usize,
    /// How long a rank waits in a collective before ending itself (exported to the ranks
    /// as `SHARDC_COLLECTIVE_TIMEOUT`).
    pub collective_timeout: Duration,
    /// How long the job may go without a rank completing a step, once one has reported,
    /// before it is ended as stalled.
    pub stall_timeout: Duration,
    /// How the ranks are started (`mpirun` or `srun`).
    pub via: Via,
    /// More arguments for `mpirun`/`srun` (`--hostfile hosts`, `--nodes 2`, ...).
    pub launcher_args: Vec<String>,
    /// Where the ranks write their progress (a fresh directory under the system's
    /// temporary one when `None`).
    pub progress_dir: Option<PathBuf>,
}

/// Why an attempt ended without finishing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// A rank was killed by a signal (`kill -9`, the kernel's OOM killer, a crash).
    Killed {
        /// The rank, when the output names it.
        rank: Option<usize>,
        /// The signal.
        signal: i32,
    },
    /// A rank exited with a failing status.
    Exited {
        /// The rank, when the output names it.
        rank: Option<usize>,
        /// Its exit status.
        code: i32,
    },
    /// Ranks waited past the collective timeout in `collective` (the first one's) for
    /// `waiting_for`: the ranks they waited for that did not time out themselves — the
    /// stopped, dead or unreachable ones — when the output tells them apart.
    TimedOut {
        /// The ranks that timed out.
        ranks: Vec<usize>,
        /// The collective the first of them waited in.
        collective: String,
        /// The ranks they waited for.
        waiting_for: Vec<usize>,
    },
    /// No rank completed a step for this long; the launcher ended the job.
    Stalled {
        /// Seconds without a completed step.
        for_s: u64,
    },
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let who = |rank: &Option<usize>| rank.map_or("a rank".to_string(), |r| format!("rank {r}"));
        match self {
            Failure::Killed { rank, signal } => {
                write!(f, "{} was killed by signal {signal}", who(rank))?;
                if let Some(name) = signal_name(*signal) {
                    write!(f, " ({name})")?;
                }
                Ok(())
            }
            Failure::Exited { rank, code } => write!(f, "{} exited with status {code}", who(rank)),
            Failure::TimedOut {
                ranks,
                collective,
                waiting_for,
            } => write!(
                f,
                "{} timed out in {collective}, waiting for {} (stopped, dead or unreachable)",
                ranks_text(ranks),
                ranks_text(waiting_for)
            ),
            Failure::Stalled { for_s } => write!(
                f,
                "no rank completed a step for {for_s} s (the job was ended as stalled)"
            ),
        }
    }
}

/// `rank 2`, `ranks 0, 1, 3`.
fn ranks_text(ranks: &[usize]) -> String {
    let list = ranks
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    if ranks.len() == 1 {
        format!("rank {list}")
    } else {
        format!("ranks {list}")
    }
}

fn signal_name(signal: i32) -> Option<&'static str> {
    Some(match signal {
        1 => "SIGHUP",
        2 => "SIGINT",
        6 => "SIGABRT",
        7 => "SIGBUS",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        15 => "SIGTERM",
        _ => return None,
    })
}

/// One run of the job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attempt {
    /// The step the job resumed at (0: from the start), as rank 0 reported it; `None` if
    /// no rank reported.
    pub resumed_from: Option<usize>,
    /// The most steps any rank completed.
    pub reached: Option<usize>,
    /// Why it ended, or `None` if it finished.
    pub failure: Option<Failure>,
    /// The launcher's exit status.
    pub status: Option<i32>,
}

/// Every attempt of a job, the last one finished unless restarts ran out.
#[derive(Clone, Debug, Default)]
pub struct LaunchReport {
    /// Each attempt, in order.
    pub attempts: Vec<Attempt>,
}

impl LaunchReport {
    /// Whether the last attempt finished.
    pub fn finished(&self) -> bool {
        self.attempts.last().is_some_and(|a| a.failure.is_none())
    }
}

/// Why the launcher itself could not run a job.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// The launcher (`mpirun`, `srun`) cannot be started.
    #[error("cannot run {launcher} ({source}); {hint}")]
    Spawn {
        /// The launcher's command.
        launcher: String,
        /// What to install or set.
        hint: &'static str,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A file of the progress directory cannot be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A job described wrongly (the message says how).
    #[error("{0}")]
    Usage(String),
}

impl Launch {
    /// The launcher's command line for this job (without the exported variables' values).
    pub fn command_line(&self) -> Command {
        let mut cmd = match self.via {
            Via::Mpirun => {
                let mut c = Command::new("mpirun");
                if is_root() {
                    c.arg("--allow-run-as-root");
                }
                if !self.launcher_args.iter().any(|a| a.contains("hostfile")) {
                    // One node: as many ranks as asked, whatever the core count.
                    c.arg("--oversubscribe");
                }
                c.args(["-n", &self.ranks.to_string()]);
                for var in [PROGRESS_VAR, crate::backend::watchdog::TIMEOUT_VAR] {
                    c.args(["-x", var]);
                }
                c
            }
            Via::Srun => {
                let mut c = Command::new("srun");
                // srun exports the environment; end the step when a task fails.
                c.args(["--kill-on-bad-exit=1", "-n", &self.ranks.to_string()]);
                c
            }
        };
        cmd.args(&self.launcher_args).args(&self.command);
        cmd
    }

    /// Runs the job until it finishes or `max_restarts` restarts have failed, printing
    /// the job's output as it comes and the launcher's own lines (`shardc launch: ...`) on
    /// `log`.
    pub fn run(&self, log: &mut dyn Write) -> Result<LaunchReport, LaunchError> {
        if self.ranks == 0 || self.command.is_empty() {
            return Err(LaunchError::Usage(
                "give a number of ranks (-n 4) and a program after `--`: shardc launch -n 4 -- target/release/examples/mpi_train --checkpoints ckpt".into(),
            ));
        }
        let progress = match &self.progress_dir {
            Some(d) => d.clone(),
            None => std::env::temp_dir().join(format!("shardc-launch-{}", std::process::id())),
        };
        let mut report = LaunchReport::default();
        loop {
            let n = report.attempts.len() + 1;
            clear_progress(&progress)?;
            let attempt = self.attempt(n, &progress, log)?;
            let failed = attempt.failure.clone();
            report.attempts.push(attempt);
            let Some(failure) = failed else {
                let _ = writeln!(
                    log,
                    "shardc launch: attempt {n} finished{}",
                    match report.attempts.len() - 1 {
                        0 => String::new(),
                        r => format!(" after {r} restart{}", if r == 1 { "" } else { "s" }),
                    }
                );
                break;
            };
            let after = report
                .attempts
                .last()
                .and_then(|a| a.reached)
                .map(|s| format!(" after step {s}"))
                .unwrap_or_default();
            let _ = writeln!(log, "shardc launch: attempt {n} failed{after}: {failure}");
            if n > self.max_restarts {
                let _ = writeln!(
                    log,
                    "shardc launch: giving up after {} restart{} (--max-restarts {})",
                    n - 1,
                    if n == 2 { "" } else { "s" },
                    self.max_restarts
                );
                break;
            }
            let _ = writeln!(
                log,
                "shardc launch: restarting ({n} of {}): the job resumes from its newest good checkpoint",
                self.max_restarts
            );
        }
        if self.progress_dir.is_none() {
            let _ = std::fs::remove_dir_all(&progress);
        }
        Ok(report)
    }

    fn attempt(
        &self,
        n: usize,
        progress: &Path,
        log: &mut dyn Write,
    ) -> Result<Attempt, LaunchError> {
        let mut cmd = self.command_line();
        cmd.env(PROGRESS_VAR, progress)
            .env(
                crate::backend::watchdog::TIMEOUT_VAR,
                self.collective_timeout.as_secs_f64().to_string(),
            )
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // Its own process group, so that a stalled job is ended whole.
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let _ = writeln!(log, "shardc launch: attempt {n}: {}", describe(&cmd));
        let mut child = cmd.spawn().map_err(|source| LaunchError::Spawn {
            launcher: format!("{:?}", cmd.get_program()),
            hint: match self.via {
                Via::Mpirun => "the mpi backend needs Open MPI (Debian: openmpi-bin; scripts/setup.sh installs it)",
                Via::Srun => "srun runs inside a Slurm allocation (salloc or sbatch)",
            },
            source,
        })?;
        let (tx, lines) = channel();
        let forwards = [
            child.stdout.take().map(|o| forward(o, tx.clone(), false)),
            child.stderr.take().map(|e| forward(e, tx.clone(), true)),
        ];
        drop(tx);
        let mut seen = Seen::default();
        let mut resumed: Option<usize> = None;
        let mut last_step: Option<(usize, Instant)> = None;
        let mut stalled = None;
        let status = loop {
            drain(&lines, &mut seen);
            let records = read_progress(progress);
            if resumed.is_none()
                && let Some(r0) = records.iter().find(|p| p.rank == 0)
            {
                resumed = Some(r0.resumed_from);
                let _ = writeln!(
                    log,
                    "shardc launch: attempt {n} {}",
                    if r0.resumed_from == 0 {
                        "started at step 0 (no checkpoint)".to_string()
                    } else {
                        format!("resumed at step {} (from its checkpoint)", r0.resumed_from)
                    }
                );
            }
            if let Some(step) = records.iter().map(|p| p.step).max()
                && last_step.is_none_or(|(s, _)| s != step)
            {
                last_step = Some((step, Instant::now()));
            }
            if let Some(status) = child.try_wait().map_err(|source| LaunchError::Io {
                path: PathBuf::from("mpirun"),
                source,
            })? {
                break status;
            }
            if let Some((_, since)) = last_step
                && since.elapsed() > self.stall_timeout
            {
                stalled = Some(since.elapsed());
                break end_job(&mut child);
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        for f in forwards.into_iter().flatten() {
            let _ = f.join();
        }
        drain(&lines, &mut seen);
        // Whatever the launcher left behind (a stopped rank is not always reaped).
        kill_group(&child, 9);
        let reached = read_progress(progress).iter().map(|p| p.step).max();
        let failure = match stalled {
            Some(d) => Some(Failure::Stalled { for_s: d.as_secs() }),
            None if status.success() => None,
            None => Some(seen.failure(status)),
        };
        Ok(Attempt {
            resumed_from: resumed,
            reached,
            failure,
            status: status.code(),
        })
    }
}

fn describe(cmd: &Command) -> String {
    std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(|a| a.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

fn clear_progress(dir: &Path) -> Result<(), LaunchError> {
    let io = |source| LaunchError::Io {
        path: dir.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(io)?;
    for entry in std::fs::read_dir(dir).map_err(io)?.flatten() {
        if entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.starts_with("rank-"))
        {
            std::fs::remove_file(entry.path()).map_err(io)?;
        }
    }
    Ok(())
}

/// Copies the job's output to ours line by line, and sends each line to be read.
fn forward(
    from: impl Read + Send + 'static,
    to: Sender<String>,
    stderr: bool,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut from = BufReader::new(from);
        let mut buf = Vec::new();
        while from.read_until(b'\n', &mut buf).is_ok_and(|n| n > 0) {
            if stderr {
                let _ = std::io::stderr().write_all(&buf);
            } else {
                let _ = std::io::stdout().write_all(&buf);
            }
            let text = String::from_utf8_lossy(&buf).trim_end().to_string();
            let _ = to.send(text);
            buf.clear();
        }
    })
}

/// What the job's output said about a failure.
#[derive(Default)]
struct Seen {
    /// The ranks that ended themselves in a collective, each with the collective and the
    /// ranks it waited for, in the order they said so.
    timed_out: Vec<(usize, String, Vec<usize>)>,
    killed: Option<(Option<usize>, i32)>,
    /// Open MPI names the process of a failing exit status on one line ("Process name:
    /// [[2395,1],2]") and its status on the next.
    exited_rank: Option<usize>,
    exited: Option<(Option<usize>, i32)>,
}

fn drain(lines: &Receiver<String>, seen: &mut Seen) {
    while let Ok(line) = lines.try_recv() {
        seen.read(&line);
    }
}

impl Seen {
    fn read(&mut self, line: &str) {
        let line = line.trim();
        // The collective watchdog: "shardc: rank 1: stablehlo.all_reduce %12, waiting for
        // ranks [0, 2, 3], waited ...".
        if let Some(rest) = line.strip_prefix("shardc: rank ")
            && let Some((rank, rest)) = rest.split_once(": ")
            && let Ok(rank) = rank.parse()
            && let Some((collective, rest)) = rest.split_once(", waiting for ranks ")
            && let Some((peers, _)) = rest.trim_start_matches('[').split_once(']')
        {
            let peers = peers
                .split(',')
                .filter_map(|p| p.trim().parse().ok())
                .collect();
            self.timed_out.push((rank, collective.to_string(), peers));
        }
        // mpirun: "mpirun noticed that process rank 1 with PID 0 on node vm exited on
        // signal 9 (Killed)."
        if let Some(rest) = line.split_once("process rank ").map(|(_, r)| r)
            && let Some((rank, rest)) = rest.split_once(' ')
            && let Some((_, signal)) = rest.split_once("on signal ")
            && self.killed.is_none()
        {
            let signal = signal
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .unwrap_or("");
            if let Ok(signal) = signal.parse() {
                self.killed = Some((rank.parse().ok(), signal));
            }
        }
        if let Some(name) = line.strip_prefix("Process name:") {
            self.exited_rank = name
                .trim()
                .trim_end_matches(']')
                .rsplit(',')
                .next()
                .and_then(|r| r.parse().ok());
        }
        if let Some(code) = line.strip_prefix("Exit code:")
            && let Ok(code) = code.trim().parse()
            && self.exited.is_none()
        {
            self.exited = Some((self.exited_rank, code));
        }
        // srun: "srun: error: node1: task 2: Killed", "... task 1: Exited with exit code 124".
        if let Some((_, rest)) = line.split_once(": task ")
            && let Some((rank, what)) = rest.split_once(": ")
            && let Ok(rank) = rank.parse::<usize>()
        {
            if what.starts_with("Killed") && self.killed.is_none() {
                self.killed = Some((Some(rank), 9));
            } else if let Some(code) = what.strip_prefix("Exited with exit code ")
                && let Ok(code) = code.trim().parse()
                && self.exited.is_none()
            {
                self.exited = Some((Some(rank), code));
            }
        }
    }

    fn failure(&self, status: ExitStatus) -> Failure {
        if let Some((_, collective, first_waited)) = self.timed_out.first() {
            let mut ranks: Vec<usize> = self.timed_out.iter().map(|t| t.0).collect();
            ranks.sort_unstable();
            ranks.dedup();
            let mut silent: Vec<usize> = self
                .timed_out
                .iter()
                .flat_map(|t| t.2.iter().copied())
                .filter(|r| !ranks.contains(r))
                .collect();
            silent.sort_unstable();
            silent.dedup();
            return Failure::TimedOut {
                ranks,
                collective: collective.clone(),
                waiting_for: if silent.is_empty() {
                    first_waited.clone()
                } else {
                    silent
                },
            };
        }
        if let Some((rank, signal)) = self.killed {
            return Failure::Killed { rank, signal };
        }
        if let Some((rank, code)) = self.exited {
            return Failure::Exited { rank, code };
        }
        match (
            status.code(),
            std::os::unix::process::ExitStatusExt::signal(&status),
        ) {
            (_, Some(signal)) => Failure::Killed { rank: None, signal },
            (Some(code), _) if code > 128 => Failure::Killed {
                rank: None,
                signal: code - 128,
            },
            (code, _) => Failure::Exited {
                rank: None,
                code: code.unwrap_or(1),
            },
        }
    }
}

/// Ends a stalled job: SIGTERM to its process group (mpirun passes it to the ranks),
/// SIGKILL if it is still there after a grace period.
fn end_job(child: &mut Child) -> ExitStatus {
    kill_group(child, 15);
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if let Ok(Some(status)) = child.try_wait() {
            return status;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    kill_group(child, 9);
    child
        .wait()
        .unwrap_or_else(|_| std::os::unix::process::ExitStatusExt::from_raw(9))
}

fn kill_group(child: &Child, signal: i32) {
    // The child leads its own process group (`process_group(0)`).
    if let Ok(pid) = i32::try_from(child.id()) {
        // SAFETY: kill(2) with a negative pid signals a process group; no memory is shared.
        unsafe {
            libc::kill(-pid, signal);
        }
    }
}

fn is_root() -> bool {
    // SAFETY: geteuid cannot fail and reads no memory of ours.
    unsafe { libc::geteuid() == 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(lines: &[&str]) -> Seen {
        let mut s = Seen::default();
        for l in lines {
            s.read(l);
        }
        s
    }

    #[test]
    fn open_mpi_and_srun_failures_are_read() {
        let ok = ExitStatus::default();
        let killed = seen(&[
            "mpirun noticed that process rank 1 with PID 0 on node vm exited on signal 9 (Killed).",
        ]);
        assert_eq!(
            killed.failure(ok),
            Failure::Killed {
                rank: Some(1),
                signal: 9
            }
        );
        let exited = seen(&["  Process name: [[2395,1],2]", "  Exit code:    124"]);
        assert_eq!(
            exited.failure(ok),
            Failure::Exited {
                rank: Some(2),
                code: 124
            }
        );
        let timed = seen(&[
            "shardc: rank 3: stablehlo.all_reduce %12, waiting for ranks [0, 1, 2], waited 5.0 s, past the collective timeout",
            "  Process name: [[2395,1],3]",
            "  Exit code:    124",
        ]);
        let first = Failure::TimedOut {
            ranks: vec![3],
            collective: "stablehlo.all_reduce %12".into(),
            waiting_for: vec![0, 1, 2],
        };
        assert_eq!(timed.failure(ok), first);
        // The rank no one heard from is the one every other waited for.
        let timed = seen(&[
            "shardc: rank 3: stablehlo.all_reduce %12, waiting for ranks [0, 1, 2], waited 5.0 s, past",
            "shardc: rank 0: stablehlo.all_reduce %12, waiting for ranks [1, 2, 3], waited 5.0 s, past",
            "shardc: rank 1: stablehlo.all_gather %9, waiting for ranks [0, 2, 3], waited 5.0 s, past",
        ]);
        let failure = timed.failure(ok);
        assert_eq!(
            failure.to_string(),
            "ranks 0, 1, 3 timed out in stablehlo.all_reduce %12, waiting for rank 2 (stopped, dead or unreachable)"
        );
        let srun = seen(&["srun: error: node7: task 5: Killed"]);
        assert_eq!(
            srun.failure(ok),
            Failure::Killed {
                rank: Some(5),
                signal: 9
            }
        );
        let srun = seen(&["srun: error: node7: task 1: Exited with exit code 124"]);
        assert_eq!(
            srun.failure(ok),
            Failure::Exited {
                rank: Some(1),
                code: 124
            }
        );
        assert_eq!(
            Failure::Killed {
                rank: Some(2),
                signal: 9
            }
            .to_string(),
            "rank 2 was killed by signal 9 (SIGKILL)"
        );
    }

    #[test]
    fn progress_records_round_trip() {
        let dir = std::env::temp_dir().join(format!("shardc-progress-test-{}", std::process::id()));
        clear_progress(&dir).unwrap();
        // Written as a rank would, without the environment (tests run in parallel).
        for rank in [1, 0] {
            let p = Progress {
                rank,
                pid: 7,
                step: 3 + rank,
                resumed_from: 2,
            };
            std::fs::write(
                dir.join(format!("rank-{rank}.json")),
                serde_json::to_vec(&p).unwrap(),
            )
            .unwrap();
        }
        std::fs::write(dir.join("rank-2.json"), b"{half").unwrap();
        let read = read_progress(&dir);
        assert_eq!(
            read.iter().map(|p| (p.rank, p.step)).collect::<Vec<_>>(),
            vec![(0, 3), (1, 4)]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
