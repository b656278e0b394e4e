//! A compiled program prepared once for a backend whose devices all live in this process
//! — the cpu backend's threads ([`CpuProgram`]), the cuda backend's GPUs (`CudaProgram`)
//! — to run many times: one type over the runtime's [`Mesh`], put, call, get and
//! next_args written once ([`Resident`]).

use crate::Error;
use crate::on_devices::{Files, OnDevices, Pool, Source, sources, taken};
use crate::resident::Resident;
use crate::simulate::{shard_arg, shard_args, unshard_result, unshard_results};
use shardc_compiler::Compiled;
use shardc_ir::Literal;
use shardc_runtime::backend::cpu::CpuMesh;
use shardc_runtime::backend::{Executable, Mesh, Offload, RunOptions, RunReport};
use shardc_runtime::engine::Compute;
use std::path::PathBuf;
use std::sync::Arc;

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
    offloading: Option<Offloading>,
    /// The files of offloaded values.
    pool: Option<Arc<Pool>>,
}

/// Which arguments and results of a program live in files on disk rather than in its
/// devices' memory, as ZeRO-Infinity keeps optimizer state on NVMe ([`Program::offloaded`]):
/// between calls the values are only in their files; during a call each device reads its
/// piece of an offloaded argument when a step first needs it and writes its piece of an
/// offloaded result once no step reads it any more, so what a device holds at its peak
/// (the forward and backward passes) leaves them out. The cpu backend; the reads and
/// writes are in the run's trace (`SpanKind::Offload`) and its per-device stats.
#[derive(Clone, Debug)]
pub struct Offloading {
    /// The folder of the files: a subfolder per device.
    pub dir: PathBuf,
    /// The offloaded arguments, by position.
    pub args: Vec<usize>,
    /// The offloaded results, by position.
    pub results: Vec<usize>,
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

    /// [`Program::new`], keeping the arguments and results `offloading` names in files
    /// ([`Offloading`]); positions the program does not have are refused.
    pub fn offloaded(
        c: &Compiled,
        engine: &dyn Compute,
        offloading: Offloading,
    ) -> Result<CpuProgram, Error> {
        let (n_args, n_results) = (c.partitioned.inputs.len(), c.partitioned.outputs.len());
        if let Some(&i) = offloading.args.iter().find(|&&i| i >= n_args) {
            return Err(Error::Usage(format!(
                "argument {i} offloaded, but the program takes {n_args} arguments (0..{n_args})"
            )));
        }
        if let Some(&k) = offloading.results.iter().find(|&&k| k >= n_results) {
            return Err(Error::Usage(format!(
                "result {k} offloaded, but the program has {n_results} results (0..{n_results})"
            )));
        }
        std::fs::create_dir_all(&offloading.dir).map_err(|e| {
            Error::Usage(format!(
                "cannot make the offload folder {}: {e}",
                offloading.dir.display()
            ))
        })?;
        let place = Placement::new(c, "cpu")?;
        let pool = Pool::new(offloading.dir.clone(), place.devices());
        Ok(Program {
            exe: Executable::streaming(
                &c.partitioned.module,
                c.entry_name(),
                engine,
                &offloading.args,
            )?,
            mesh: CpuMesh::new(place.devices())?,
            place,
            offloading: Some(offloading),
            pool: Some(pool),
        })
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
            offloading: None,
            pool: None,
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
        let OnDevices { mut pieces, files } = args;
        let offloaded = |i: usize| {
            self.offloading
                .as_ref()
                .is_some_and(|o| o.args.contains(&i))
        };
        // Values in files this program does not offload come back into memory first.
        for (i, f) in files.iter().enumerate() {
            if let Some(f) = f.as_ref().filter(|_| !offloaded(i)) {
                for (id, d) in pieces.iter_mut().enumerate() {
                    d[i] = f.read(id, &d[i].ty)?;
                }
            }
        }
        let (Some(o), Some(pool)) = (&self.offloading, &self.pool) else {
            let mut report = self.exe.run_with(&self.mesh, pieces, options)?;
            let pieces = std::mem::take(&mut report.outputs);
            return Ok((
                OnDevices {
                    pieces,
                    files: Vec::new(),
                },
                report,
            ));
        };
        let mut plan = Offload {
            dir: o.dir.clone(),
            ..Offload::default()
        };
        // The arguments' files live until the run has read them.
        let mut read = Vec::new();
        for &i in &o.args {
            let f = match files.get(i).and_then(Option::as_ref) {
                Some(f) => f.clone(),
                None => {
                    let f = pool.take();
                    for (id, d) in pieces.iter_mut().enumerate() {
                        plan.write(id, &f.stem, &d[i]).map_err(|e| {
                            Error::Usage(format!(
                                "cannot write offloaded argument {i} to {}: {e}",
                                plan.path(id, &f.stem).display()
                            ))
                        })?;
                        d[i] = Offload::placeholder(&d[i].ty);
                    }
                    f
                }
            };
            plan.args.push((i, f.stem.clone()));
            read.push(f);
        }
        drop(files);
        let written: Vec<(usize, Arc<Files>)> =
            o.results.iter().map(|&k| (k, pool.take())).collect();
        plan.results = written.iter().map(|(k, f)| (*k, f.stem.clone())).collect();
        let options = RunOptions {
            offload: Some(plan),
            ..options.clone()
        };
        let mut report = self.exe.run_with(&self.mesh, pieces, &options)?;
        drop(read);
        let pieces = std::mem::take(&mut report.outputs);
        let mut files = vec![None; pieces.first().map_or(0, Vec::len)];
        for (k, f) in written {
            files[k] = Some(f);
        }
        Ok((OnDevices { pieces, files }, report))
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
            .map(|&id| match results.files(k) {
                Some(f) => f.read(id, &results.pieces[id][k].ty),
                None => Ok(results.pieces[id][k].clone()),
            })
            .collect::<Result<_, _>>()?;
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
        let OnDevices {
            pieces: results,
            files: mut result_files,
        } = results;
        let mut results: Vec<Vec<Option<Literal>>> = results
            .into_iter()
            .map(|d| d.into_iter().map(Some).collect())
            .collect();
        let mut take = |k: usize| -> Result<Vec<Literal>, Error> {
            ids.iter()
                .map(|&id| results[id][k].take().ok_or_else(|| taken(k)))
                .collect()
        };
        let mut pieces: Vec<Vec<Literal>> = vec![Vec::with_capacity(p.inputs.len()); ids.len()];
        let mut files = vec![None; p.inputs.len()];
        for (arg, s) in sources.into_iter().enumerate() {
            let by_position = match s {
                Source::Result(k) if p.outputs[k] == p.inputs[arg] => {
                    // An offloaded result moves on in its files.
                    files[arg] = result_files.get_mut(k).and_then(Option::take);
                    take(k)?
                }
                Source::Result(k) => {
                    let mut old = take(k)?;
                    if let Some(f) = result_files.get(k).and_then(Option::as_ref) {
                        for (piece, &id) in old.iter_mut().zip(ids) {
                            *piece = f.read(id, &piece.ty)?;
                        }
                    }
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
        Ok(OnDevices { pieces, files })
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
