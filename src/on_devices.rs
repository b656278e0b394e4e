//! Values held on the devices of one process between calls ([`OnDevices`]), and where
//! each argument of a next call comes from ([`sources`], which the mpi backend shares).

use crate::Error;
use shardc_compiler::Compiled;
use shardc_ir::Literal;

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

pub(crate) fn taken(k: usize) -> Error {
    Error::Usage(format!(
        "next_args: result {k} is carried into two arguments; carry each result once (pass a copy fresh for the other)"
    ))
}

/// Values held on the devices between runs, each device holding its piece of
/// each value, as JAX keeps a sharded `jax.Array` on its devices: [`Resident::put`](crate::Resident::put)
/// shards global values onto them, [`Resident::call`](crate::Resident::call) runs on them and leaves its
/// results there, [`Resident::get`](crate::Resident::get) reassembles one value, and
/// [`Resident::next_args`](crate::Resident::next_args) feeds results back as the next call's arguments.
#[derive(Clone, Debug)]
pub struct OnDevices {
    /// By device id, then by value.
    pub(crate) pieces: Vec<Vec<Literal>>,
}

impl OnDevices {
    pub(crate) fn from_positions(ids: &[usize], by_position: Vec<Vec<Literal>>) -> OnDevices {
        let mut pieces = vec![Vec::new(); ids.len()];
        for (values, &id) in by_position.into_iter().zip(ids) {
            pieces[id] = values;
        }
        OnDevices { pieces }
    }

    pub(crate) fn by_position(self, ids: &[usize]) -> Vec<Vec<Literal>> {
        let mut by_id: Vec<Option<Vec<Literal>>> = self.pieces.into_iter().map(Some).collect();
        ids.iter()
            .map(|&id| by_id[id].take().unwrap_or_default())
            .collect()
    }

    /// How many values the devices hold.
    pub fn len(&self) -> usize {
        self.pieces.first().map_or(0, Vec::len)
    }

    /// Whether there are no devices' values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Device `id`'s pieces, one per value.
    pub fn device(&self, id: usize) -> Option<&[Literal]> {
        self.pieces.get(id).map(Vec::as_slice)
    }
}
