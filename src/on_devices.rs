//! Values held on the devices of one process between calls ([`OnDevices`]), and where
//! each argument of a next call comes from ([`sources`], which the mpi backend shares).

use crate::Error;
use shardc_compiler::Compiled;
use shardc_ir::{Literal, TensorType};
use shardc_runtime::backend::Offload;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

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
///
/// A value a program offloads ([`crate::Offloading`]) is in files instead, one per device,
/// and its pieces here are placeholders (one zero each); `get` reads the files. The files
/// are written over by later values, and go with the program and the last of its values.
#[derive(Clone, Debug)]
pub struct OnDevices {
    /// By device id, then by value.
    pub(crate) pieces: Vec<Vec<Literal>>,
    /// By value: the files an offloaded value is in (empty: none is).
    pub(crate) files: Vec<Option<Arc<Files>>>,
}

/// The files of one offloaded value, one per device: `offload.path(d, stem)`. When the
/// last copy of the values naming them goes, their name goes back to the pool, to be
/// written over by a later value (making and deleting files costs a file system more than
/// writing over them).
#[derive(Debug)]
pub(crate) struct Files {
    pub(crate) stem: String,
    pub(crate) pool: Arc<Pool>,
}

/// The files of a program's offloaded values ([`crate::Offloading`]): the names not in use,
/// and how many there are. The files go with the pool.
#[derive(Debug)]
pub(crate) struct Pool {
    pub(crate) dir: PathBuf,
    pub(crate) devices: usize,
    free: Mutex<Vec<String>>,
    made: AtomicU64,
}

impl Pool {
    pub(crate) fn new(dir: PathBuf, devices: usize) -> Arc<Pool> {
        Arc::new(Pool {
            dir,
            devices,
            free: Mutex::new(Vec::new()),
            made: AtomicU64::new(0),
        })
    }

    /// Files for one value: a free name, or a new one.
    pub(crate) fn take(self: &Arc<Pool>) -> Arc<Files> {
        let free = self.free.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let stem = free.unwrap_or_else(|| {
            let n = self.made.fetch_add(1, Ordering::Relaxed);
            format!("p{}-v{n}", std::process::id())
        });
        Arc::new(Files {
            stem,
            pool: self.clone(),
        })
    }

    /// The runtime's description of where the files are.
    pub(crate) fn offload(&self) -> Offload {
        Offload {
            dir: self.dir.clone(),
            ..Offload::default()
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        let o = self.offload();
        let free = self.free.get_mut().unwrap_or_else(|e| e.into_inner());
        for stem in free.iter() {
            for d in 0..self.devices {
                // A file never written (a run that failed first) is no loss.
                let _ = std::fs::remove_file(o.path(d, stem));
            }
        }
    }
}

impl Files {
    /// Device `id`'s piece, of type `ty`.
    pub(crate) fn read(&self, id: usize, ty: &TensorType) -> Result<Literal, Error> {
        self.pool
            .offload()
            .read(id, &self.stem, ty)
            .map_err(|e| Error::Usage(format!("an offloaded value: {e}")))
    }
}

impl Drop for Files {
    fn drop(&mut self) {
        let stem = std::mem::take(&mut self.stem);
        self.pool
            .free
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(stem);
    }
}

impl OnDevices {
    pub(crate) fn from_positions(ids: &[usize], by_position: Vec<Vec<Literal>>) -> OnDevices {
        let mut pieces = vec![Vec::new(); ids.len()];
        for (values, &id) in by_position.into_iter().zip(ids) {
            pieces[id] = values;
        }
        OnDevices {
            pieces,
            files: Vec::new(),
        }
    }

    /// The files value `k` is in, if it is offloaded.
    pub(crate) fn files(&self, k: usize) -> Option<&Arc<Files>> {
        self.files.get(k).and_then(Option::as_ref)
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

    /// Device `id`'s pieces, one per value (an offloaded value's: a placeholder).
    pub fn device(&self, id: usize) -> Option<&[Literal]> {
        self.pieces.get(id).map(Vec::as_slice)
    }
}
