//! A compiled program prepared once for a backend whose devices all live in this process
//! — the cpu backend's threads ([`CpuProgram`]), the cuda backend's GPUs (`CudaProgram`)
//! — to run many times: one type over the runtime's [`Mesh`], put, call, get and
//! next_args written once ([`Resident`]).

use crate::Error;
use crate::on_devices::{OnDevices, Source, sources, taken};
use crate::resident::Resident;
use crate::simulate::{shard_arg, shard_args, unshard_result, unshard_results};
use shardc_compiler::Compiled;
use shardc_ir::Literal;
use shardc_runtime::backend::cpu::CpuMesh;
use shardc_runtime::backend::{Executable, Mesh, RunOptions, RunReport};
use shardc_runtime::engine::Compute;

/// A run from global inputs: the global results and the run's report (bytes sent per
/// collective, the trace; its per-device `outputs` are empty, reassembled into `outputs`,
/// except on the mpi backend, whose report keeps every device's pieces).
#[derive(Clone, Debug)]
pub struct Run {
    /// The program's results, as global values.
    pub outputs: Vec<Literal>,
    /// What the devices did: bytes, times, peak memory, the trace.
    pub report: RunReport,
}

/// A compiled program prepared for the devices of mesh `M`, its values kept on them
/// between calls ([`Resident`]).
pub struct Program<M> {
    exe: Executable,
    mesh: M,
    place: Placement,
}

/// A program on the cpu backend: one thread per device.
pub type CpuProgram = Program<CpuMesh>;

/// A program on the cuda backend: device `d` on GPU `d % gpus`.
#[cfg(feature = "cuda")]
pub type CudaProgram = Program<shardc_runtime::backend::cuda::CudaMesh>;

/// Shards global `args` as the partitioned program expects, runs it on a cpu mesh of the
/// program's size (one thread per device, `engine` computing), and reassembles the
/// results, checking that devices holding the same piece agree within `tolerance`.
pub fn run_cpu(
    c: &Compiled,
    args: &[Literal],
    engine: &dyn Compute,
    tolerance: f64,
) -> Result<Run, Error> {
    CpuProgram::new(c, engine)?.run(c, args, tolerance)
}

impl Program<CpuMesh> {
    /// Prepares `c` for a cpu mesh of its size, each compute segment made a kernel by
    /// `engine`.
    pub fn new(c: &Compiled, engine: &dyn Compute) -> Result<CpuProgram, Error> {
        let place = Placement::new(c, "cpu")?;
        let mesh = CpuMesh::new(place.devices())?;
        Program::on(c, mesh, place, engine)
    }
}

impl<M: Mesh> Program<M> {
    /// `c` on `mesh`, whose devices `place` names, each segment made a kernel by `engine`.
    pub(crate) fn on(
        c: &Compiled,
        mesh: M,
        place: Placement,
        engine: &dyn Compute,
    ) -> Result<Program<M>, Error> {
        Ok(Program {
            exe: Executable::new(&c.partitioned.module, c.entry_name(), engine)?,
            mesh,
            place,
        })
    }

    /// The mesh it runs on.
    pub fn mesh(&self) -> &M {
        &self.mesh
    }

    /// The prepared program: its steps and kernels.
    pub fn executable(&self) -> &Executable {
        &self.exe
    }

    /// Runs on global arguments; returns the global results and the run's report.
    pub fn run(&self, c: &Compiled, args: &[Literal], tolerance: f64) -> Result<Run, Error> {
        self.run_with(c, args, tolerance, &RunOptions::default())
    }

    /// [`Program::run`] with run options (overlap on or off).
    pub fn run_with(
        &self,
        c: &Compiled,
        args: &[Literal],
        tolerance: f64,
        options: &RunOptions,
    ) -> Result<Run, Error> {
        let (results, report) = self.call(self.put(c, args)?, options)?;
        let outputs = unshard_results(c, results.by_position(&self.place.ids), tolerance)?;
        Ok(Run { outputs, report })
    }
}

/// Values stay on the devices between calls: on the cpu backend in the device threads'
/// memory; on the cuda backend the pieces wait on the host between calls and each call
/// copies them to the GPUs (state resident on the GPUs is issue 18's), the interface
/// the same, so a training loop is the same.
impl<M: Mesh> Resident for Program<M> {
    type Values = OnDevices;

    fn put(&self, c: &Compiled, args: &[Literal]) -> Result<OnDevices, Error> {
        Ok(OnDevices::from_positions(
            &self.place.ids,
            shard_args(c, args)?,
        ))
    }

    fn call(&self, args: OnDevices, options: &RunOptions) -> Result<(OnDevices, RunReport), Error> {
        let mut report = self.exe.run_with(&self.mesh, args.pieces, options)?;
        let pieces = std::mem::take(&mut report.outputs);
        Ok((OnDevices { pieces }, report))
    }

    fn get(
        &self,
        c: &Compiled,
        results: &OnDevices,
        k: usize,
        tolerance: f64,
    ) -> Result<Literal, Error> {
        let count = self.check_results(c, results)?;
        if k >= count {
            return Err(Error::Usage(format!(
                "result {k} asked for, but the program has {count} results (0..{count})"
            )));
        }
        let pieces: Vec<Literal> = self
            .place
            .ids
            .iter()
            .map(|&id| results.pieces[id][k].clone())
            .collect();
        unshard_result(c, k, &pieces, tolerance)
    }

    /// A carried result that leaves in the layout its argument arrives in moves as it is:
    /// no copy, no communication, as JAX feeds a step's sharded outputs to the next step.
    /// One whose layout differs is reassembled from its pieces and sharded again (the
    /// first device holding each piece gives it).
    fn next_args(
        &self,
        c: &Compiled,
        results: OnDevices,
        carry: &[(usize, usize)],
        fresh: &[(usize, Literal)],
    ) -> Result<OnDevices, Error> {
        let p = &c.partitioned;
        let ids = &self.place.ids;
        let sources = sources(c, carry, fresh.iter().map(|f| f.0))?;
        self.check_results(c, &results)?;
        let mut results: Vec<Vec<Option<Literal>>> = results
            .pieces
            .into_iter()
            .map(|d| d.into_iter().map(Some).collect())
            .collect();
        let mut take = |k: usize| -> Result<Vec<Literal>, Error> {
            ids.iter()
                .map(|&id| results[id][k].take().ok_or_else(|| taken(k)))
                .collect()
        };
        let mut pieces: Vec<Vec<Literal>> = vec![Vec::with_capacity(p.inputs.len()); ids.len()];
        for (arg, s) in sources.into_iter().enumerate() {
            let by_position = match s {
                Source::Result(k) if p.outputs[k] == p.inputs[arg] => take(k)?,
                Source::Result(k) => {
                    let old = take(k)?;
                    let global = unshard_result(c, k, &old, f64::INFINITY)?;
                    let new = shard_arg(c, arg, &global)?;
                    // The old pieces are freed only now, after the new ones exist: a new
                    // piece never takes an old one's address, so "moved as it is" (the
                    // same storage) can be told from "copied" by address.
                    drop(old);
                    new
                }
                Source::Fresh(i) => shard_arg(c, arg, &fresh[i].1)?,
            };
            // (argument, position) into (device id, argument).
            for (piece, &id) in by_position.into_iter().zip(ids) {
                pieces[id].push(piece);
            }
        }
        Ok(OnDevices { pieces })
    }
}

impl<M> Program<M> {
    /// The number of results, after checking that `results` has one list per device of
    /// as many values as the program has results (values of another program are refused).
    fn check_results(&self, c: &Compiled, results: &OnDevices) -> Result<usize, Error> {
        let (devices, count) = (self.place.devices(), c.partitioned.outputs.len());
        if results.pieces.len() != devices || results.pieces.iter().any(|d| d.len() != count) {
            return Err(Error::Usage(format!(
                "these values are not this program's results: it runs on {devices} devices and gives {count} results each, the values are {} devices' lists of {:?}; pass what `call` returned",
                results.pieces.len(),
                results.pieces.iter().map(Vec::len).collect::<Vec<_>>()
            )));
        }
        Ok(count)
    }
}

/// Which device holds each position of a program's mesh.
#[derive(Clone, Debug)]
pub(crate) struct Placement {
    /// Device id of each mesh position.
    ids: Vec<usize>,
}

impl Placement {
    /// The placement of `c`'s mesh on devices `0..n` of `backend`, each once.
    pub(crate) fn new(c: &Compiled, backend: &str) -> Result<Placement, Error> {
        let mesh = &c.partitioned.mesh;
        let n = mesh.num_devices();
        // The devices are named by id; the pieces come by mesh position.
        let ids: Vec<usize> = mesh.devices().into_iter().map(|d| d.0).collect();
        let mut seen = vec![false; n];
        for &id in &ids {
            if id >= n || std::mem::replace(&mut seen[id], true) {
                return Err(Error::Usage(format!(
                    "mesh @{} has device ids {ids:?}; the {backend} backend runs devices 0..{n}, each once",
                    mesh.name
                )));
            }
        }
        Ok(Placement { ids })
    }

    /// The devices, `0..n`.
    pub(crate) fn devices(&self) -> usize {
        self.ids.len()
    }
}
