//! Running a compiled program on the mpi backend from global inputs: every rank calls
//! [`run_mpi`] with the same global arguments and gets the same global results; and
//! [`run_cuda_mpi`], the same on GPUs, one process per GPU.

use crate::on_devices::{Source, sources};
use crate::resident::Resident;
use crate::simulate::{shard_arg_at, shard_args_at, unshard_result, unshard_results};
use crate::{Error, Run};
use shardc_compiler::Compiled;
#[cfg(feature = "cuda")]
use shardc_compiler::lower::gpu::Target;
#[cfg(feature = "cuda")]
use shardc_compiler::lower::gpu_program::PtxCompiler;
use shardc_ir::{DeviceId, Literal, MeshPosition};
#[cfg(feature = "cuda")]
use shardc_runtime::backend::cuda::CudaMpiMesh;
use shardc_runtime::backend::mpi::MpiMesh;
use shardc_runtime::backend::{Executable, RunOptions, RunReport, RuntimeError};
use shardc_runtime::engine::Compute;

/// Runs a compiled program on an MPI mesh, this process being device `mesh.device()`:
/// shards the global `args` for this device as the partitioned program expects, runs
/// (`engine` computing), gathers every device's results and reassembles the global ones,
/// checking that devices holding the same piece agree within `tolerance`. Collective:
/// every rank of the mesh calls it with the same program and arguments. The mesh must have
/// as many ranks as the program's mesh has devices.
pub fn run_mpi(
    mesh: &MpiMesh,
    c: &Compiled,
    args: &[Literal],
    engine: &dyn Compute,
    tolerance: f64,
) -> Result<Run, Error> {
    let (ids, position) = placement(c, mesh.devices(), mesh.device())?;
    // What may fail on one rank only is agreed on before the run's first collective.
    let local = prepare(c, args, position, engine).map_err(|e| RuntimeError::Remote {
        device: mesh.device(),
        message: e.to_string(),
    });
    let (exe, mine) = mesh.agree(local)?;
    let report = mesh.run(&exe, mine)?;
    let by_position: Vec<Vec<Literal>> = ids.iter().map(|&id| report.outputs[id].clone()).collect();
    let outputs = unshard_results(c, by_position, tolerance)?;
    Ok(Run { outputs, report })
}

/// A compiled program prepared once for an MPI mesh, this process being device
/// `mesh.device()`, to run many times with its state kept where it is: the mpi backend's
/// [`crate::CpuProgram`]. [`Resident::put`] shards global values, keeping this device's
/// pieces ([`OnRank`]); [`Resident::call`] runs on them and leaves each device's results
/// on its rank; [`Resident::get`] gathers one result and reassembles it on every rank;
/// [`Resident::next_args`] feeds results back as the next call's arguments. Every method
/// is collective: every rank of the mesh calls it with the same program and values, and
/// every rank gets the same outcome (an error on one rank is every rank's).
pub struct MpiProgram<'m, 'u> {
    mesh: &'m MpiMesh<'u>,
    exe: Executable,
    /// The device id at each position of the program's mesh.
    ids: Vec<usize>,
    /// This device's position in the program's mesh.
    position: MeshPosition,
}

/// This rank's pieces of values held between calls of an [`MpiProgram`], one per value.
#[derive(Clone, Debug)]
pub struct OnRank {
    pieces: Vec<Literal>,
}

impl OnRank {
    /// This device's pieces, one per value.
    pub fn pieces(&self) -> &[Literal] {
        &self.pieces
    }

    /// How many values are held.
    pub fn len(&self) -> usize {
        self.pieces.len()
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.pieces.is_empty()
    }
}

impl<'m, 'u> MpiProgram<'m, 'u> {
    /// Prepares the partitioned program (`engine` computing). Collective.
    pub fn new(
        mesh: &'m MpiMesh<'u>,
        c: &Compiled,
        engine: &dyn Compute,
    ) -> Result<MpiProgram<'m, 'u>, Error> {
        let (ids, position) = placement(c, mesh.devices(), mesh.device())?;
        let local = Executable::new(&c.partitioned.module, c.entry_name(), engine).map_err(|e| {
            RuntimeError::Remote {
                device: mesh.device(),
                message: e.to_string(),
            }
        });
        let exe = mesh.agree(local)?;
        Ok(MpiProgram {
            mesh,
            exe,
            ids,
            position,
        })
    }

    /// The mesh it runs on.
    pub fn mesh(&self) -> &'m MpiMesh<'u> {
        self.mesh
    }
}

/// Every method is collective: every rank calls it with the same program and values.
impl Resident for MpiProgram<'_, '_> {
    type Values = OnRank;

    /// Keeps this device's pieces of global `args` (a refusal on one rank is every
    /// rank's).
    fn put(&self, c: &Compiled, args: &[Literal]) -> Result<OnRank, Error> {
        let local = shard_args_at(c, args, self.position);
        let pieces = self.agreed(local)?;
        Ok(OnRank { pieces })
    }

    /// Runs on this device's pieces; each device's results stay on its rank. The report is
    /// the whole mesh's, without results. Collective.
    fn call(&self, args: OnRank, options: &RunOptions) -> Result<(OnRank, RunReport), Error> {
        let (pieces, report) = self.mesh.run_here(&self.exe, args.pieces, options)?;
        Ok((OnRank { pieces }, report))
    }

    /// Result `k` of a call, gathered from every device and reassembled, on every rank,
    /// checking that devices holding the same piece agree within `tolerance`. Collective.
    fn get(
        &self,
        c: &Compiled,
        results: &OnRank,
        k: usize,
        tolerance: f64,
    ) -> Result<Literal, Error> {
        let count = self.exe.result_count();
        self.agreed(self.check_results(results))?;
        let piece = results.pieces.get(k).ok_or_else(|| {
            Error::Usage(format!(
                "result {k} asked for, but the program has {count} results (0..{count})"
            ))
        })?;
        let pieces = self.gather(k, piece);
        unshard_result(c, k, &pieces, tolerance)
    }

    /// The arguments of the next call from this call's results: `carry` (result,
    /// argument) pairs, `fresh` global values for the other arguments. A carried result
    /// whose layout is its argument's stays as it is; one in another layout is gathered,
    /// reassembled and sharded again. Collective.
    fn next_args(
        &self,
        c: &Compiled,
        results: OnRank,
        carry: &[(usize, usize)],
        fresh: &[(usize, Literal)],
    ) -> Result<OnRank, Error> {
        let p = &c.partitioned;
        let sources = self.agreed(
            self.check_results(&results)
                .and_then(|()| sources(c, carry, fresh.iter().map(|f| f.0))),
        )?;
        let mut results: Vec<Option<Literal>> = results.pieces.into_iter().map(Some).collect();
        let mut pieces = Vec::with_capacity(sources.len());
        for (arg, s) in sources.into_iter().enumerate() {
            let local = match s {
                Source::Result(k) => {
                    let mine = results.get_mut(k).and_then(Option::take).ok_or_else(|| {
                        Error::Usage(format!("next_args: this rank holds no result {k}"))
                    });
                    match self.agreed(mine)? {
                        mine if p.outputs[k] == p.inputs[arg] => Ok(mine),
                        mine => {
                            let all = self.gather(k, &mine);
                            unshard_result(c, k, &all, f64::INFINITY)
                                .and_then(|global| self.piece_of(c, arg, &global))
                        }
                    }
                }
                Source::Fresh(i) => self.piece_of(c, arg, &fresh[i].1),
            };
            pieces.push(self.agreed(local)?);
        }
        Ok(OnRank { pieces })
    }

    fn rank(&self) -> usize {
        self.mesh.device()
    }

    fn broadcast_from_rank0(&self, mine: Vec<u8>) -> Result<Vec<u8>, Error> {
        Ok(self.mesh.broadcast_bytes(0, mine))
    }
}

impl MpiProgram<'_, '_> {
    /// Checks that `results` are this program's: one piece per result, of its type.
    fn check_results(&self, results: &OnRank) -> Result<(), Error> {
        let count = self.exe.result_count();
        let fits = results.pieces.len() == count
            && results
                .pieces
                .iter()
                .enumerate()
                .all(|(k, p)| self.exe.result_type(k) == Some(&p.ty));
        if fits {
            Ok(())
        } else {
            Err(Error::Usage(format!(
                "these values are not this program's results: it gives {count} results, of types {:?}, the values have types {:?}; pass what `call` returned",
                (0..count)
                    .filter_map(|k| self.exe.result_type(k).map(ToString::to_string))
                    .collect::<Vec<_>>(),
                results
                    .pieces
                    .iter()
                    .map(|p| p.ty.to_string())
                    .collect::<Vec<_>>()
            )))
        }
    }

    /// Every device's piece of result `k`, by mesh position.
    fn gather(&self, k: usize, mine: &Literal) -> Vec<Literal> {
        let Some(ty) = self.exe.result_type(k) else {
            return Vec::new();
        };
        let mut by_id: Vec<Option<Literal>> = self
            .mesh
            .gather_piece(ty, mine)
            .into_iter()
            .map(Some)
            .collect();
        self.ids
            .iter()
            .filter_map(|&id| by_id.get_mut(id).and_then(Option::take))
            .collect()
    }

    /// This device's piece of argument `arg`'s global value.
    fn piece_of(&self, c: &Compiled, arg: usize, global: &Literal) -> Result<Literal, Error> {
        shard_arg_at(c, arg, global, self.position)
    }

    /// `local`, if it is `Ok` on every rank; else the error of the lowest rank that failed.
    fn agreed<T>(&self, local: Result<T, Error>) -> Result<T, Error> {
        let local = local.map_err(|e| RuntimeError::Remote {
            device: self.mesh.device(),
            message: e.to_string(),
        });
        Ok(self.mesh.agree(local)?)
    }
}

/// The device id at each position of the program's mesh, checked to be the ranks
/// `0..ranks`, each once.
fn device_ids(c: &Compiled, ranks: usize) -> Result<Vec<usize>, Error> {
    let m = &c.partitioned.mesh;
    let n = m.num_devices();
    if ranks != n {
        return Err(RuntimeError::WorldSize { program: n, ranks }.into());
    }
    // The devices are named by id; the pieces come by mesh position.
    let ids: Vec<usize> = m.devices().into_iter().map(|d| d.0).collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    if sorted != (0..n).collect::<Vec<_>>() {
        return Err(Error::Usage(format!(
            "mesh @{} has device ids {ids:?}; the mpi backend runs devices 0..{n} (ranks), each once",
            m.name
        )));
    }
    Ok(ids)
}

/// [`device_ids`], and the position of rank `me` on the program's mesh.
fn placement(c: &Compiled, ranks: usize, me: usize) -> Result<(Vec<usize>, MeshPosition), Error> {
    let ids = device_ids(c, ranks)?;
    let mesh = &c.partitioned.mesh;
    let position = mesh.position_of(DeviceId(me)).ok_or_else(|| {
        Error::Usage(format!(
            "rank {me} is not a device of mesh @{} (devices 0..{})",
            mesh.name,
            mesh.num_devices()
        ))
    })?;
    Ok((ids, position))
}

/// Runs a compiled program with one MPI process per GPU ([`CudaMpiMesh`]: this process
/// is device `mesh.device()`, on GPU `mesh.gpu()` of its node): shards the global `args`
/// for this device, compiles every segment to PTX for the mesh's GPUs
/// ([`CudaMpiMesh::target`]), runs, gathers every device's results and reassembles the
/// global ones, checking that devices holding the same piece agree within `tolerance`.
/// Collective: every rank of the mesh calls it with the same program and arguments; the
/// mesh has as many ranks as the program's mesh has devices (`mpirun -n <devices>`).
/// Every rank gets the same results, or the same error.
#[cfg(feature = "cuda")]
pub fn run_cuda_mpi(
    mesh: &CudaMpiMesh,
    c: &Compiled,
    args: &[Literal],
    tolerance: f64,
) -> Result<Run, Error> {
    let (ids, position) = placement(c, mesh.devices(), mesh.device())?;
    // Compiling and sharding may fail on one rank only: agreed before the run.
    let local = mesh
        .target()
        .map_err(Error::from)
        .and_then(|(chip, ptx)| {
            let compiler = PtxCompiler::new(Target {
                chip,
                ptx,
                libdevice: None,
            });
            prepare(c, args, position, &compiler)
        })
        .map_err(|e| RuntimeError::Remote {
            device: mesh.device(),
            message: e.to_string(),
        });
    let (exe, mine) = mesh.mpi().agree(local)?;
    let report = mesh.run(&exe, mine)?;
    let by_position: Vec<Vec<Literal>> = ids.iter().map(|&id| report.outputs[id].clone()).collect();
    let outputs = unshard_results(c, by_position, tolerance)?;
    Ok(Run { outputs, report })
}

/// The executable, and this device's pieces of the global arguments.
fn prepare(
    c: &Compiled,
    args: &[Literal],
    position: MeshPosition,
    engine: &dyn Compute,
) -> Result<(Executable, Vec<Literal>), Error> {
    let mine = shard_args_at(c, args, position)?;
    let p = &c.partitioned;
    let exe = Executable::new(&p.module, c.entry_name(), engine)?;
    Ok((exe, mine))
}
