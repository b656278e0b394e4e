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
use crate::session::Session;
use crate::step::TrainStep;
use shardc::runtime::backend::RunOptions;
use shardc::{Compiled, Error, Resident};
use shardc_ir::{Function, Literal, Module};
use shardc_runtime::engine::{Buffers, Compute, EngineError, Input, Kernel, Ran, Segment};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Runs training steps with checkpoints and automatic restarts.
#[derive(Clone, Debug)]
pub struct Supervisor {
    /// Where checkpoints are written and read.
    pub checkpoints: Checkpointer,
    /// Save a checkpoint after every `every` steps (and after the last step).
    pub every: usize,
    /// Restarts allowed before giving up ([`Error::GaveUp`]).
    pub max_restarts: usize,
}

/// One restart: the step that failed, the checkpoint resumed from, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Restart {
    /// The step that failed.
    pub failed_at: usize,
    /// The step training resumed from.
    pub resumed_from: usize,
    /// What failed.
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
    /// Each restart, in order.
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
    /// A supervisor saving a checkpoint every `every` steps into `checkpoints`.
    pub fn new(checkpoints: Checkpointer, every: usize) -> Supervisor {
        Supervisor {
            checkpoints,
            every: every.max(1),
            max_restarts: 3,
        }
    }

    /// Gives up after `n` restarts.
    pub fn max_restarts(mut self, n: usize) -> Supervisor {
        self.max_restarts = n;
        self
    }

    /// Trains `ts`, compiled as `compiled`, up to step `steps`: `init` gives the initial
    /// parameters (used when the directory has no checkpoint), `batch(t)` the batch of
    /// step `t`, and `launch` the backend's prepared program (a [`shardc::CpuProgram`] of
    /// `compiled`, say), made again after each failure. The state stays on the devices
    /// between steps ([`Session`]); a restart reloads it from the newest checkpoint on the
    /// disk, as a relaunched process would.
    pub fn train<P: Resident>(
        &self,
        ts: &TrainStep,
        compiled: &Compiled,
        steps: usize,
        init: impl Fn() -> Vec<Literal>,
        mut batch: impl FnMut(usize) -> Vec<Literal>,
        mut launch: impl FnMut() -> Result<P, Error>,
    ) -> Result<TrainLog, Error> {
        let mut log = TrainLog {
            started_from: 0,
            losses: Vec::new(),
            restarts: Vec::new(),
            saved: 0,
            checkpoint_time: Duration::ZERO,
            last: Checkpoint {
                step: 0,
                params: Vec::new(),
                state: Vec::new(),
                data: None,
                loss_scale: None,
            },
        };
        let mut failed: Option<(usize, Error)> = None;
        loop {
            let program = launch()?;
            let t0 = Instant::now();
            let mut session = Session::resume(
                ts,
                compiled,
                &program,
                self.checkpoints.clone(),
                self.every,
                &init,
            )?;
            log.checkpoint_time += t0.elapsed();
            let from = session.resumed_from();
            match failed.take() {
                None => log.started_from = from,
                Some((t, e)) => {
                    log.restarts.push(Restart {
                        failed_at: t,
                        resumed_from: from,
                        error: e.to_string(),
                    });
                    log.losses.retain(|&(s, _)| s <= from);
                }
            }
            let outcome = loop {
                let t = session.steps_done() + 1;
                if t > steps {
                    break Ok(());
                }
                match session.step(&batch(t), &RunOptions::default()) {
                    Ok(stepped) => {
                        log.losses.push((t, stepped.loss));
                        if stepped.saved.is_some() {
                            log.saved += 1;
                            log.checkpoint_time += stepped.saving;
                        }
                    }
                    Err(e) => break Err((t, e)),
                }
            };
            match outcome {
                Ok(()) => {
                    // The last step's state is saved too.
                    let done = session.steps_done();
                    if done > from && !done.is_multiple_of(self.every) {
                        let t0 = Instant::now();
                        session.save(&self.checkpoints)?;
                        log.checkpoint_time += t0.elapsed();
                        log.saved += 1;
                    }
                    log.last = session.checkpoint()?;
                    return Ok(log);
                }
                Err((t, e)) if e.is_device_failure() => {
                    if log.restarts.len() == self.max_restarts {
                        return Err(Error::GaveUp {
                            restarts: log.restarts.len(),
                            step: t,
                            last: Box::new(e),
                        });
                    }
                    failed = Some((t, e));
                }
                Err((_, e)) => return Err(e),
            }
        }
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
    /// `inner`, failing its `at`-th kernel call once.
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

impl FailingKernel {
    /// Counts a call, failing the chosen one.
    fn call(&self) -> Result<(), EngineError> {
        let call = self.state.calls.fetch_add(1, Ordering::SeqCst) + 1;
        if call == self.state.at {
            return Err(format!("injected failure at kernel call {call}").into());
        }
        Ok(())
    }
}

impl Kernel for FailingKernel {
    fn run_reusing(
        &self,
        inputs: &[&Literal],
        buffers: &mut Buffers,
    ) -> Result<Vec<Literal>, EngineError> {
        self.call()?;
        self.inner.run_reusing(inputs, buffers)
    }

    fn run_owning(
        &self,
        inputs: Vec<Input<'_>>,
        buffers: &mut Buffers,
    ) -> Result<Ran, EngineError> {
        self.call()?;
        self.inner.run_owning(inputs, buffers)
    }
}
