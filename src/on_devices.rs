//! Values held on the devices of one process between calls ([`OnDevices`]), and how a
//! prepared program's arguments and results map to them ([`Placement`]): shared by the
//! backends whose devices all live in this process (the cpu backend's threads, the cuda
//! backend's GPUs).

use crate::Error;
use crate::simulate::{shard_arg, shard_args, unshard_result};
use shardc_compiler::Compiled;
use shardc_ir::Literal;

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
        let ids: Vec<usize> = (0..n).map(|pos| mesh.device_at(pos)).collect();
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

    /// Shards global `args` onto the devices, as the partitioned program takes them.
    pub(crate) fn put(&self, c: &Compiled, args: &[Literal]) -> Result<OnDevices, Error> {
        Ok(OnDevices::from_positions(&self.ids, shard_args(c, args)?))
    }

    /// The pieces of `values` by mesh position.
    pub(crate) fn by_position(&self, values: OnDevices) -> Vec<Vec<Literal>> {
        values.by_position(&self.ids)
    }

    /// The global value of result `k` of a call, checking that devices
    /// holding the same piece agree within `tolerance`.
    pub(crate) fn get(
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
            .ids
            .iter()
            .map(|&id| results.pieces[id][k].clone())
            .collect();
        unshard_result(c, k, &pieces, tolerance)
    }

    /// The arguments of the next call from the results of this one: `carry` lists
    /// (result, argument) pairs — a training step's new parameters and optimizer state
    /// become the next step's — and `fresh` the other arguments as global values (the
    /// step number, the batch), which are sharded.
    ///
    /// A carried result that leaves in the layout its argument arrives in moves as it is:
    /// no copy, no communication, as JAX feeds a step's sharded outputs to the next step.
    /// One whose layout differs is reassembled from its pieces and sharded again (the
    /// first device holding each piece gives it).
    pub(crate) fn next_args(
        &self,
        c: &Compiled,
        results: OnDevices,
        carry: &[(usize, usize)],
        fresh: &[(usize, Literal)],
    ) -> Result<OnDevices, Error> {
        let p = &c.partitioned;
        let n_args = p.inputs.len();
        let sources = sources(c, carry, fresh.iter().map(|f| f.0))?;
        self.check_results(c, &results)?;
        let mut results: Vec<Vec<Option<Literal>>> = results
            .pieces
            .into_iter()
            .map(|d| d.into_iter().map(Some).collect())
            .collect();
        let mut by_arg: Vec<Vec<Literal>> = Vec::with_capacity(n_args);
        for (arg, s) in sources.into_iter().enumerate() {
            let by_position = match s {
                Source::Result(k) if p.outputs[k] == p.inputs[arg] => self
                    .ids
                    .iter()
                    .map(|&id| results[id][k].take().ok_or_else(|| taken(k)))
                    .collect::<Result<Vec<_>, _>>()?,
                Source::Result(k) => {
                    let pieces = self
                        .ids
                        .iter()
                        .map(|&id| results[id][k].take().ok_or_else(|| taken(k)))
                        .collect::<Result<Vec<_>, _>>()?;
                    let global = unshard_result(c, k, &pieces, f64::INFINITY)?;
                    shard_arg(c, arg, &global)?
                }
                Source::Fresh(i) => shard_arg(c, arg, &fresh[i].1)?,
            };
            by_arg.push(by_position);
        }
        // Transpose (argument, position) into (device id, argument).
        let mut pieces: Vec<Vec<Literal>> = vec![Vec::with_capacity(n_args); self.ids.len()];
        for by_position in by_arg {
            for (piece, &id) in by_position.into_iter().zip(&self.ids) {
                pieces[id].push(piece);
            }
        }
        Ok(OnDevices { pieces })
    }
    /// The number of results, after checking that `results` has one list per device of
    /// as many values as the program has results (values of another program are refused).
    fn check_results(&self, c: &Compiled, results: &OnDevices) -> Result<usize, Error> {
        let (devices, count) = (self.ids.len(), c.partitioned.outputs.len());
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

/// Where `next_args` takes an argument from.
#[derive(Clone, Copy)]
pub(crate) enum Source {
    /// Result `k` of the call before.
    Result(usize),
    /// The `i`th fresh value.
    Fresh(usize),
}

/// Where each argument of the next call comes from, given `carry` (result, argument) pairs
/// and the arguments given fresh, in order: every argument exactly once, every result at
/// most once, each one the program has.
pub(crate) fn sources(
    c: &Compiled,
    carry: &[(usize, usize)],
    fresh: impl Iterator<Item = usize>,
) -> Result<Vec<Source>, Error> {
    let p = &c.partitioned;
    let (n_args, n_results) = (p.inputs.len(), p.outputs.len());
    let mut source: Vec<Option<Source>> = vec![None; n_args];
    let mut carried = vec![false; n_results];
    let mut give = |arg: usize, s: Source| -> Result<(), Error> {
        match source.get_mut(arg) {
            None => Err(Error::Usage(format!(
                "next_args: argument {arg} named, but the program takes {n_args} arguments (0..{n_args})"
            ))),
            Some(Some(_)) => Err(Error::Usage(format!(
                "next_args: argument {arg} is given twice (in `carry` or `fresh`); give each argument once"
            ))),
            Some(slot) => {
                *slot = Some(s);
                Ok(())
            }
        }
    };
    for &(k, arg) in carry {
        match carried.get_mut(k) {
            None => {
                return Err(Error::Usage(format!(
                    "next_args: result {k} carried, but the program has {n_results} results (0..{n_results})"
                )));
            }
            Some(true) => return Err(taken(k)),
            Some(c) => *c = true,
        }
        give(arg, Source::Result(k))?;
    }
    for (i, arg) in fresh.enumerate() {
        give(arg, Source::Fresh(i))?;
    }
    source
        .into_iter()
        .enumerate()
        .map(|(arg, s)| {
            s.ok_or_else(|| {
                Error::Usage(format!(
                    "next_args: argument {arg} is neither carried from a result nor given fresh"
                ))
            })
        })
        .collect()
}

fn taken(k: usize) -> Error {
    Error::Usage(format!(
        "next_args: result {k} is carried into two arguments; carry each result once (pass a copy fresh for the other)"
    ))
}

/// Values held on the devices between runs, each device holding its piece of
/// each value, as JAX keeps a sharded `jax.Array` on its devices: [`crate::CpuProgram::put`]
/// shards global values onto them, [`crate::CpuProgram::call`] runs on them and leaves its
/// results there, [`crate::CpuProgram::get`] reassembles one value, and
/// [`crate::CpuProgram::next_args`] feeds results back as the next call's arguments.
#[derive(Clone, Debug)]
pub struct OnDevices {
    /// By device id, then by value.
    pieces: Vec<Vec<Literal>>,
}

impl OnDevices {
    pub(crate) fn from_pieces(pieces: Vec<Vec<Literal>>) -> OnDevices {
        OnDevices { pieces }
    }

    /// The pieces, by device id.
    pub(crate) fn into_pieces(self) -> Vec<Vec<Literal>> {
        self.pieces
    }

    fn from_positions(ids: &[usize], by_position: Vec<Vec<Literal>>) -> OnDevices {
        let mut pieces = vec![Vec::new(); ids.len()];
        for (values, &id) in by_position.into_iter().zip(ids) {
            pieces[id] = values;
        }
        OnDevices { pieces }
    }

    fn by_position(self, ids: &[usize]) -> Vec<Vec<Literal>> {
        let mut by_id: Vec<Option<Vec<Literal>>> = self.pieces.into_iter().map(Some).collect();
        ids.iter()
            .map(|&id| by_id[id].take().unwrap_or_default())
            .collect()
    }

    /// How many values the devices hold.
    pub fn len(&self) -> usize {
        self.pieces.first().map_or(0, Vec::len)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Device `id`'s pieces, one per value.
    pub fn device(&self, id: usize) -> Option<&[Literal]> {
        self.pieces.get(id).map(Vec::as_slice)
    }
}
