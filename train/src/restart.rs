//! Training that checkpoints itself and restarts from its last checkpoint when a device
//! fails, as torchrun's elastic agent does for PyTorch (`docs/checkpoint.md`).
//!
//! [`Supervisor::train`] runs steps `1..=steps` of a [`TrainStep`]: it resumes from the
//! newest checkpoint in its directory if there is one, saves a checkpoint every `every`
//! steps and after the last, and when a step fails because a device failed
//! ([`Error::is_device_failure`]: a kernel, a device thread, a peer, an MPI rank) it drops
//! the runner, launches a fresh one (a new mesh, new threads), reloads the newest
//! checkpoint — or the initial state if none was saved yet — and carries on from there.
//! Other errors (a wrong program, wrong inputs) would fail again and end the run at once.
//!
//! A step is a pure function of its arguments — the state, the step number and the batch
//! closure's `batch(t)` (random ops are counter-based: no hidden generator state) — so a
//! run that restarts computes exactly the steps an uninterrupted run computes: on the cpu backend the results are the same bit for bit
//! (its collectives reduce in a fixed order).
//!
//! [`FailOnce`] wraps a compute engine and fails one kernel call, to test all this.

use crate::checkpoint::{Checkpoint, Checkpointer};
use crate::step::TrainStep;
use shardc::Error;
use shardc_ir::{Function, Literal, Module};
use shardc_runtime::engine::{Buffers, Compute, EngineError, Kernel, Segment};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Runs training steps with checkpoints and automatic restarts.
#[derive(Clone, Debug)]
pub struct Supervisor {
    pub checkpoints: Checkpointer,
    /// Save a checkpoint after every `every` steps (and after the last step).
    pub every: usize,
    /// Restarts allowed before giving up ([`Error::GaveUp`]).
    pub max_restarts: usize,
}

/// One restart: the step that failed, the checkpoint resumed from, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Restart {
    pub failed_at: usize,
    pub resumed_from: usize,
    pub error: String,
}

/// What a supervised run did.
#[derive(Clone, Debug)]
pub struct TrainLog {
    /// The step the run started from (a checkpoint's, or 0).
    pub started_from: usize,
    /// The loss of every step of the final trajectory, `(step, loss)`, from
    /// `started_from + 1` (steps redone after a restart appear once, as redone).
    pub losses: Vec<(usize, f64)>,
    pub restarts: Vec<Restart>,
    /// Checkpoints written.
    pub saved: usize,
    /// Time spent saving and loading checkpoints.
    pub checkpoint_time: Duration,
    /// The state after the last step.
    pub last: Checkpoint,
}

impl TrainLog {
    /// The loss of the last step run (NaN if none ran).
    pub fn last_loss(&self) -> f64 {
        self.losses.last().map_or(f64::NAN, |l| l.1)
    }
}

impl Supervisor {
    pub fn new(checkpoints: Checkpointer, every: usize) -> Supervisor {
        Supervisor {
            checkpoints,
            every: every.max(1),
            max_restarts: 3,
        }
    }

    pub fn max_restarts(mut self, n: usize) -> Supervisor {
        self.max_restarts = n;
        self
    }

    /// Trains `ts` up to step `steps`: `init` gives the initial parameters (used when the
    /// directory has no checkpoint), `batch(t)` the batch of step `t`, and `launch` a
    /// runner — a function from a step's global arguments to its global results (e.g. a
    /// [`crate::CpuProgram`] running the compiled step) — made again after each failure.
    pub fn train<R>(
        &self,
        ts: &TrainStep,
        steps: usize,
        init: impl FnOnce() -> Vec<Literal>,
        mut batch: impl FnMut(usize) -> Vec<Literal>,
        mut launch: impl FnMut() -> Result<R, Error>,
    ) -> Result<TrainLog, Error>
    where
        R: FnMut(&[Literal]) -> Result<Vec<Literal>, Error>,
    {
        let mut checkpoint_time = Duration::ZERO;
        let t0 = Instant::now();
        self.checkpoints.remove_stale()?;
        let start = match self.checkpoints.load_latest(ts)? {
            Some(ck) => ck,
            None => Checkpoint {
                step: 0,
                params: init(),
                state: ts.init_state(),
            },
        };
        checkpoint_time += t0.elapsed();
        if start.params.len() != ts.param_types.len() {
            return Err(Error::Usage(format!(
                "{} initial parameters given, but the training step has {}",
                start.params.len(),
                ts.param_types.len()
            )));
        }
        let mut log = TrainLog {
            started_from: start.step,
            losses: Vec::new(),
            restarts: Vec::new(),
            saved: 0,
            checkpoint_time,
            last: start.clone(),
        };
        // The state to go back to after a failure when no checkpoint is saved yet.
        let initial = start.clone();
        let mut current = start;
        let mut runner = launch()?;
        while current.step < steps {
            let t = current.step + 1;
            let args = ts.args(&current.params, &current.state, t, &batch(t));
            match runner(&args) {
                Ok(results) => {
                    let (loss, params, state) = ts.split(results);
                    log.losses.push((t, loss));
                    current = Checkpoint {
                        step: t,
                        params,
                        state,
                    };
                    if t % self.every == 0 || t == steps {
                        let t0 = Instant::now();
                        self.checkpoints.save(ts, &current)?;
                        log.checkpoint_time += t0.elapsed();
                        log.saved += 1;
                    }
                }
                Err(e) if e.is_device_failure() => {
                    if log.restarts.len() == self.max_restarts {
                        return Err(Error::GaveUp {
                            restarts: log.restarts.len(),
                            step: t,
                            last: Box::new(e),
                        });
                    }
                    drop(runner);
                    runner = launch()?;
                    // From the disk, as a relaunched process would: the checkpoint must
                    // be loadable, not only in memory.
                    let t0 = Instant::now();
                    current = self
                        .checkpoints
                        .load_latest(ts)?
                        .unwrap_or_else(|| initial.clone());
                    log.checkpoint_time += t0.elapsed();
                    log.restarts.push(Restart {
                        failed_at: t,
                        resumed_from: current.step,
                        error: e.to_string(),
                    });
                    log.losses.retain(|&(s, _)| s <= current.step);
                }
                Err(e) => return Err(e),
            }
        }
        log.last = current;
        Ok(log)
    }
}

/// A compute engine that fails the `at`-th kernel call (counted from 1 over every kernel
/// it prepared, on every device and in every run) once, and otherwise computes with
/// `inner`: a device failure on demand, for testing restarts.
pub struct FailOnce<E> {
    inner: E,
    state: Arc<FailState>,
}

struct FailState {
    at: usize,
    calls: AtomicUsize,
}

impl<E: Compute> FailOnce<E> {
    pub fn new(inner: E, at: usize) -> FailOnce<E> {
        FailOnce {
            inner,
            state: Arc::new(FailState {
                at,
                calls: AtomicUsize::new(0),
            }),
        }
    }

    /// Kernel calls so far (a count of the work done, with `at` = `usize::MAX`).
    pub fn calls(&self) -> usize {
        self.state.calls.load(Ordering::SeqCst)
    }

    /// Whether the failure has happened.
    pub fn fired(&self) -> bool {
        self.state.calls.load(Ordering::SeqCst) >= self.state.at
    }
}

impl<E: Compute> Compute for FailOnce<E> {
    fn prepare(
        &self,
        module: &Module,
        f: &Function,
        segment: &Segment,
    ) -> Result<Box<dyn Kernel>, EngineError> {
        Ok(Box::new(FailingKernel {
            inner: self.inner.prepare(module, f, segment)?,
            state: Arc::clone(&self.state),
        }))
    }
}

struct FailingKernel {
    inner: Box<dyn Kernel>,
    state: Arc<FailState>,
}

impl Kernel for FailingKernel {
    fn run_with(
        &self,
        inputs: &[&Literal],
        buffers: &mut Buffers,
    ) -> Result<Vec<Literal>, EngineError> {
        let call = self.state.calls.fetch_add(1, Ordering::SeqCst) + 1;
        if call == self.state.at {
            return Err(format!("injected failure at kernel call {call}").into());
        }
        self.inner.run_with(inputs, buffers)
    }
}
