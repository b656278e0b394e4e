//! A training run on any backend that keeps values on its devices ([`shardc::Resident`]:
//! the cpu backend's threads, the mpi backend's processes, the cuda backend's GPUs): the loop every training
//! program writes — put the state on the devices, run a step, carry the new parameters and
//! optimizer state to the next step without moving them, read the loss — with
//! checkpoints every N steps and resumption from the newest good one.
//!
//! Checkpoints are global tensors (`docs/checkpoint.md`), so a run can resume on another
//! mesh or strategy. On the mpi backend every rank gathers the state (the same collectives
//! [`shardc::MpiProgram::get`] runs) and **rank 0 writes the file**; when a run resumes,
//! rank 0 reads and checks the newest whole checkpoint and sends its bytes to every rank,
//! so the checkpoint directory need only be on rank 0's node. Rank 0 writes a checkpoint
//! under a temporary name and renames it into place, so a checkpoint exists only once
//! every tensor and the index (the safetensors header, with a checksum per tensor) are
//! written. Gathering to one rank bounds a checkpoint by one process's memory, which suits
//! the models shardc trains today; sharded checkpoints (each rank its pieces) are the way
//! past it.
//!
//! Every step is reported to a launcher that asked (`shardc launch`,
//! [`shardc::runtime::launch::report_progress`]).

use crate::checkpoint::{Checkpoint, Checkpointer};
use crate::precision::{LossScaler, LossScaling};
use crate::step::TrainStep;
use shardc::runtime::backend::{RunOptions, RunReport};
use shardc::runtime::launch::{Progress, report_progress};
use shardc::{Compiled, Error, Resident};
use shardc_ir::Literal;
use std::path::PathBuf;

/// Where the run's state is: as global values before the first step, then on the devices.
enum Held<V> {
    Global(Checkpoint),
    OnDevices(V),
}

/// A training run of `ts` on a prepared program.
pub struct Session<'a, P: Resident> {
    ts: &'a TrainStep,
    compiled: &'a Compiled,
    program: &'a P,
    held: Option<Held<P::Values>>,
    done: usize,
    resumed_from: usize,
    saving: Option<(Checkpointer, usize)>,
    /// Where the data loader is ([`Checkpoint::data`]): from the checkpoint resumed, then
    /// as [`Session::set_data`] says.
    data: Option<String>,
    tolerance: f64,
    /// Whether reporting progress failed already (said once).
    progress_failed: std::cell::Cell<bool>,
    /// A loss-scaled step's scale, and the steps it skipped (before the checkpoint resumed
    /// from, too).
    scaler: Option<LossScaler>,
    /// The loss scaler's state in the checkpoint resumed from, until
    /// [`Session::with_loss_scaling`] takes it up.
    resumed_loss_scale: Option<String>,
}

/// What a step gave.
pub struct Stepped {
    /// The step's number, from 1.
    pub step: usize,
    /// The step's loss.
    pub loss: f64,
    /// What the devices did in it.
    pub report: RunReport,
    /// Whether the update was applied: false for a loss-scaled step whose gradients
    /// overflowed (parameters and optimizer state unchanged; [`Session::with_loss_scaling`]).
    pub applied: bool,
    /// The checkpoint written after it (on rank 0), if one was due.
    pub saved: Option<PathBuf>,
    /// Time spent gathering and saving that checkpoint.
    pub saving: std::time::Duration,
}

/// The first byte of what rank 0 sends the others.
const NOTHING: u8 = 0;
const BYTES: u8 = 1;
const FAILED: u8 = 2;

impl<'a, P: Resident> Session<'a, P> {
    /// A run from `start` (step 0 and the initial parameters with
    /// [`TrainStep::init_state`], or a checkpoint), without checkpoints.
    pub fn new(
        ts: &'a TrainStep,
        compiled: &'a Compiled,
        program: &'a P,
        start: Checkpoint,
    ) -> Self {
        let done = start.step;
        let data = start.data.clone();
        let resumed_loss_scale = start.loss_scale.clone();
        let s = Session {
            ts,
            compiled,
            program,
            held: Some(Held::Global(start)),
            done,
            resumed_from: done,
            saving: None,
            data,
            tolerance: 1e-3,
            progress_failed: std::cell::Cell::new(false),
            scaler: None,
            resumed_loss_scale,
        };
        s.report();
        s
    }

    /// A run from the newest whole checkpoint in `checkpoints` (damaged newer ones
    /// skipped, and said), or from `init()`'s parameters at step 0 if there is none,
    /// saving a checkpoint every `every` steps. Rank 0 removes what interrupted saves
    /// left, reads the checkpoint and sends it to every rank. Collective.
    pub fn resume(
        ts: &'a TrainStep,
        compiled: &'a Compiled,
        program: &'a P,
        checkpoints: Checkpointer,
        every: usize,
        init: impl FnOnce() -> Vec<Literal>,
    ) -> Result<Self, Error> {
        if every == 0 {
            return Err(Error::Usage(
                "checkpoints every 0 steps: give a positive interval (every 100 steps: 100)".into(),
            ));
        }
        let found = if program.rank() == 0 {
            (|| {
                checkpoints.remove_stale()?;
                match checkpoints.load_latest(ts)? {
                    Some(ck) => checkpoints.encode(ts, &ck).map(|b| prefixed(BYTES, b)),
                    None => Ok(vec![NOTHING]),
                }
            })()
            .unwrap_or_else(|e| prefixed(FAILED, e.to_string().into_bytes()))
        } else {
            Vec::new()
        };
        let found = program.broadcast_from_rank0(found)?;
        let start = match found.split_first() {
            Some((&BYTES, file)) => {
                let path = checkpoints.dir().join("(sent by rank 0)");
                checkpoints.decode(ts, &path, file, true)?
            }
            Some((&FAILED, why)) => {
                return Err(Error::Usage(format!(
                    "rank 0 could not resume from {}: {}",
                    checkpoints.dir().display(),
                    String::from_utf8_lossy(why)
                )));
            }
            _ => Checkpoint {
                step: 0,
                params: init(),
                state: ts.init_state(),
                data: None,
                loss_scale: None,
            },
        };
        if start.params.len() != ts.param_types.len() {
            return Err(Error::Usage(format!(
                "{} initial parameters given, but the training step has {}",
                start.params.len(),
                ts.param_types.len()
            )));
        }
        let mut s = Session::new(ts, compiled, program, start);
        s.saving = Some((checkpoints, every));
        Ok(s)
    }

    /// Where the data loader is now (`DistributedSampler::state`), saved with every
    /// checkpoint from here on: set it before each step to where the loader will be once
    /// the step's batch is read, and a resumed run starts its loader there.
    pub fn set_data(&mut self, data: String) {
        self.data = Some(data);
    }

    /// Where the data loader was at the checkpoint the run resumed from (or as last set).
    pub fn data(&self) -> Option<&str> {
        self.data.as_deref()
    }

    /// Checks that devices holding the same piece of a result agree within `tolerance`
    /// when it is read (default 1e-3).
    pub fn tolerance(mut self, tolerance: f64) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// Steps completed.
    pub fn steps_done(&self) -> usize {
        self.done
    }

    /// Steps completed when the run started (the checkpoint it resumed from; 0 from the
    /// start).
    pub fn resumed_from(&self) -> usize {
        self.resumed_from
    }

    /// Drives a loss-scaled step ([`crate::step::train_step_scaled`]) with dynamic loss
    /// scaling: each step gets the scale after its batch, a step whose gradients overflow
    /// is skipped (and said in [`Stepped::applied`]), the scale halves then and grows back
    /// as `settings` say, and the optimizer's step count `t` counts applied steps only.
    /// Checkpoints keep the scaler's state ([`Checkpoint::loss_scale`]): a resumed run
    /// goes on with the scale, the count towards growth and the skipped steps it had.
    pub fn with_loss_scaling(mut self, settings: LossScaling) -> Result<Self, Error> {
        if !self.ts.loss_scaled {
            return Err(Error::Usage(
                "with_loss_scaling: this training step takes no loss scale; build it with step::train_step_scaled".into(),
            ));
        }
        self.scaler = Some(match self.resumed_loss_scale.take() {
            Some(state) => LossScaler::restore(settings, &state).map_err(Error::Usage)?,
            None => LossScaler::new(settings),
        });
        Ok(self)
    }

    /// The loss scaler's state for a checkpoint ([`Checkpoint::loss_scale`]): the
    /// scaler's, or the one resumed from while no scaler took it up.
    fn loss_scale_state(&self) -> Option<String> {
        self.scaler
            .as_ref()
            .map(LossScaler::state)
            .or_else(|| self.resumed_loss_scale.clone())
    }

    /// The loss scale the next step runs with, under [`Session::with_loss_scaling`].
    pub fn loss_scale(&self) -> Option<f64> {
        self.scaler.as_ref().map(LossScaler::scale)
    }

    /// Runs the next step on `batch`; saves a checkpoint after it when one is due.
    /// Collective on the mpi backend.
    pub fn step(&mut self, batch: &[Literal], options: &RunOptions) -> Result<Stepped, Error> {
        let (ts, c) = (self.ts, self.compiled);
        if ts.loss_scaled && self.scaler.is_none() {
            return Err(Error::Usage(
                "this training step is loss-scaled (step::train_step_scaled): start the session with .with_loss_scaling(LossScaling::default())".into(),
            ));
        }
        // The optimizer's step: the applied ones so far, plus this one.
        let skipped = self.scaler.as_ref().map_or(0, LossScaler::skipped);
        let t = self.done + 1 - skipped;
        let scaled: Vec<Literal>;
        let batch = match &self.scaler {
            Some(s) => {
                scaled = batch.iter().cloned().chain([s.arg()]).collect();
                &scaled[..]
            }
            None => batch,
        };
        let args = match self.held.take() {
            None => {
                return Err(Error::Usage(
                    "a step of this session failed earlier; its state is lost: start a new session (from its checkpoint)".into(),
                ));
            }
            Some(Held::Global(ck)) => self
                .program
                .put(c, &ts.args(&ck.params, &ck.state, t, batch))?,
            Some(Held::OnDevices(results)) => {
                self.program
                    .next_args(c, results, &ts.carried(), &ts.fresh(t, batch))?
            }
        };
        let (results, report) = self.program.call(args, options)?;
        let loss = self
            .program
            .get(c, &results, 0, self.tolerance)?
            .to_f64_vec()[0];
        let applied = match (&mut self.scaler, ts.finite_result()) {
            (Some(s), Some(k)) => {
                let flag = self.program.get(c, &results, k, 0.0)?;
                s.update(crate::step::is_finite_flag(&flag))
            }
            _ => true,
        };
        self.held = Some(Held::OnDevices(results));
        self.done += 1;
        let t = self.done;
        let t0 = std::time::Instant::now();
        let saved = match &self.saving {
            Some((checkpoints, every)) if t.is_multiple_of(*every) => self.save(checkpoints)?,
            _ => None,
        };
        let saving = t0.elapsed();
        self.report();
        Ok(Stepped {
            step: t,
            loss,
            report,
            applied,
            saved,
            saving,
        })
    }

    /// The run's state now, as global values on every rank. Collective.
    pub fn checkpoint(&self) -> Result<Checkpoint, Error> {
        match &self.held {
            None => Err(Error::Usage(
                "a step of this session failed; its state is lost".into(),
            )),
            Some(Held::Global(ck)) => Ok(Checkpoint {
                data: self.data.clone(),
                loss_scale: self.loss_scale_state(),
                ..ck.clone()
            }),
            Some(Held::OnDevices(results)) => {
                let (n, held) = (self.ts.param_types.len(), self.ts.carried().len());
                let mut values = (1..=held)
                    .map(|k| self.program.get(self.compiled, results, k, self.tolerance))
                    .collect::<Result<Vec<_>, _>>()?;
                let state = values.split_off(n);
                Ok(Checkpoint {
                    step: self.done,
                    params: values,
                    state,
                    data: self.data.clone(),
                    loss_scale: self.loss_scale_state(),
                })
            }
        }
    }

    /// Saves the state now in `checkpoints`: every rank gathers it, rank 0 writes it
    /// (and gets the file's path); a failure to write is every rank's. Collective.
    pub fn save(&self, checkpoints: &Checkpointer) -> Result<Option<PathBuf>, Error> {
        let ck = self.checkpoint()?;
        let written = if self.program.rank() == 0 {
            Some(checkpoints.save(self.ts, &ck))
        } else {
            None
        };
        let outcome = match &written {
            Some(Err(e)) => prefixed(FAILED, e.to_string().into_bytes()),
            _ => vec![NOTHING],
        };
        match self.program.broadcast_from_rank0(outcome)?.split_first() {
            Some((&FAILED, why)) => match written {
                Some(Err(e)) => Err(e),
                _ => Err(Error::Usage(format!(
                    "rank 0 could not save the checkpoint of step {}: {}",
                    self.done,
                    String::from_utf8_lossy(why)
                ))),
            },
            _ => Ok(written.and_then(Result::ok)),
        }
    }

    /// The results of the last step, on the devices.
    pub fn results(&self) -> Option<&P::Values> {
        match &self.held {
            Some(Held::OnDevices(v)) => Some(v),
            _ => None,
        }
    }

    /// Tells a launcher that asked how far this rank got.
    fn report(&self) {
        let p = Progress {
            rank: self.program.rank(),
            pid: std::process::id(),
            step: self.done,
            resumed_from: self.resumed_from,
        };
        if let Err(e) = report_progress(&p)
            && !self.progress_failed.replace(true)
        {
            eprintln!(
                "shardc: cannot report progress to the launcher ({e}); it cannot tell a stalled job"
            );
        }
    }
}

fn prefixed(tag: u8, bytes: Vec<u8>) -> Vec<u8> {
    let mut v = Vec::with_capacity(bytes.len() + 1);
    v.push(tag);
    v.extend(bytes);
    v
}
