//! Checkpoints of a training run: parameters, optimizer state and the step count, saved as
//! one safetensors file per checkpoint (the format PyTorch, JAX and Hugging Face tools
//! read), and loaded back into any training step of the same model and optimizer — on
//! any mesh and strategy, since the tensors are global (`docs/checkpoint.md`).
//!
//! A checkpoint directory holds `step-00000040.safetensors` files. A file is written
//! under a temporary name, flushed to disk and renamed into place, so a crash while
//! saving leaves the previous checkpoints as they were and never a half-written file
//! under a checkpoint's name. The newest `keep` checkpoints are kept.
//!
//! In a file, tensor `param.NAME` is parameter `NAME` and `SLOT.NAME` its optimizer
//! state (`momentum` for SGD; `adam_m`, `adam_v` for AdamW); names are the parameters'
//! indices unless given ([`Checkpointer::param_names`]). The header's metadata records
//! the format, the step, the optimizer, the strategy and mesh that wrote it, and a CRC-32
//! of every tensor's bytes (`crc32.NAME`), checked on load: a damaged file (a flipped
//! byte, tensors' data swapped, a truncated write, garbage metadata) is refused naming
//! the file and the tensor ([`Error::CheckpointDamaged`]), and resuming
//! ([`Checkpointer::resume`]) goes back to the newest checkpoint that is whole.

use crate::step::TrainStep;
use safetensors::tensor::{Dtype, SafeTensors, TensorView};
use shardc::Error;
use shardc_ir::{DType, Literal, TensorType};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The `format` metadata of a shardc checkpoint.
pub const FORMAT: &str = "shardc-checkpoint/2";

/// The metadata entries kept as text, each with its checksum under `KEY.crc32`: the data
/// loader's position and the loss scaler's state, with what each is (for errors).
const TEXT_ENTRIES: [(&str, &str); 2] = [
    ("data", "the data loader's position"),
    ("loss_scale", "the loss scaler's state"),
];

/// The metadata key of the checksum of a text entry.
fn text_checksum_key(key: &str) -> String {
    format!("{key}.crc32")
}

/// The metadata key of a tensor's checksum.
fn checksum_key(name: &str) -> String {
    format!("crc32.{name}")
}

fn checksum(bytes: &[u8]) -> String {
    format!("{:08x}", crc32fast::hash(bytes))
}

/// What [`Checkpointer::resume`] found: the newest whole checkpoint, and the newer ones
/// it skipped because they are damaged (each with why).
#[derive(Debug)]
pub struct Resume {
    /// The newest whole checkpoint, if any.
    pub checkpoint: Option<Checkpoint>,
    /// Newer checkpoints skipped as damaged, and why.
    pub skipped: Vec<(PathBuf, String)>,
}

/// A training run's state after `step` steps.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    /// Steps completed: the next step to run is `step + 1`.
    pub step: usize,
    /// Global parameters, in the training step's order.
    pub params: Vec<Literal>,
    /// Global optimizer state, in the training step's order (slot by slot).
    pub state: Vec<Literal>,
    /// Where the data loader was, as text (`crate::sampler::DistributedSampler::state`),
    /// kept in the file's metadata with its own checksum; `None` if not given.
    pub data: Option<String>,
    /// The dynamic loss scaler's state, as text (`crate::precision::LossScaler::state`:
    /// the scale, the finite steps in a row, the steps skipped), kept in the metadata with
    /// its own checksum; `None` for a run without loss scaling.
    pub loss_scale: Option<String>,
}

/// What a checkpoint file says about the run that wrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckpointInfo {
    /// Steps completed when it was written.
    pub step: usize,
    /// The optimizer whose state it holds (`adamw`, `sgd`).
    pub optimizer: String,
    /// The strategy that wrote it (loading into another is resharding, and allowed).
    pub strategy: String,
    /// The mesh that wrote it, as `name=size` per axis.
    pub mesh: String,
    /// Where the data loader was ([`Checkpoint::data`]).
    pub data: Option<String>,
    /// The loss scaler's state ([`Checkpoint::loss_scale`]).
    pub loss_scale: Option<String>,
}

/// Saves and finds the checkpoints of one run in a directory.
#[derive(Clone, Debug)]
pub struct Checkpointer {
    dir: PathBuf,
    keep: usize,
    names: Option<Vec<String>>,
}

impl Checkpointer {
    /// Checkpoints in `dir` (made when the first one is saved), the newest 3 kept.
    pub fn new(dir: impl Into<PathBuf>) -> Checkpointer {
        Checkpointer {
            dir: dir.into(),
            keep: 3,
            names: None,
        }
    }

    /// Keep the newest `n` checkpoints (at least 1), deleting older ones after a save.
    pub fn keep(mut self, n: usize) -> Checkpointer {
        self.keep = n.max(1);
        self
    }

    /// Names the parameters in the files (`param.wte`, `adam_m.wte`, ...) instead of by
    /// index; one name per parameter, in order (e.g. `GptConfig::param_names`).
    pub fn param_names(mut self, names: Vec<String>) -> Checkpointer {
        self.names = Some(names);
        self
    }

    /// The directory checkpoints are written to.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of the checkpoint after `step` steps.
    pub fn path_of(&self, step: usize) -> PathBuf {
        self.dir.join(format!("step-{step:08}.safetensors"))
    }

    /// Writes `ck` (atomically: a temporary file renamed into place), then deletes all
    /// but the newest `keep` checkpoints. Returns the file written.
    pub fn save(&self, ts: &TrainStep, ck: &Checkpoint) -> Result<PathBuf, Error> {
        let path = self.path_of(ck.step);
        let file = self.encode(ts, ck)?;
        std::fs::create_dir_all(&self.dir).map_err(|source| Error::Io {
            path: self.dir.clone(),
            source,
        })?;
        let tmp = self
            .dir
            .join(format!(".step-{:08}.safetensors.tmp", ck.step));
        write_durably(&tmp, &file)?;
        std::fs::rename(&tmp, &path).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
        // Make the rename itself durable (best effort: not every file system can sync a
        // directory).
        if let Ok(d) = std::fs::File::open(&self.dir) {
            let _ = d.sync_all();
        }
        let all = self.list()?;
        for (_, old) in all.iter().take(all.len().saturating_sub(self.keep)) {
            std::fs::remove_file(old).map_err(|source| Error::Io {
                path: old.clone(),
                source,
            })?;
        }
        Ok(path)
    }

    /// The bytes of `ck`'s file, as [`Checkpointer::save`] writes them (what rank 0 sends
    /// the other ranks when a run resumes: `crate::session::Session::resume`).
    pub fn encode(&self, ts: &TrainStep, ck: &Checkpoint) -> Result<Vec<u8>, Error> {
        let problem = |problem: String| Error::Checkpoint {
            path: self.path_of(ck.step),
            problem,
        };
        let layout = self.layout(ts)?;
        let values: Vec<&Literal> = ck.params.iter().chain(&ck.state).collect();
        if values.len() != layout.len() {
            return Err(problem(format!(
                "{} parameters and {} optimizer-state tensors given, but the training step has {} and {}",
                ck.params.len(),
                ck.state.len(),
                ts.param_types.len(),
                layout.len() - ts.param_types.len()
            )));
        }
        let mut bytes = Vec::with_capacity(values.len());
        for ((name, ty), value) in layout.iter().zip(&values) {
            if &value.ty != ty {
                return Err(problem(format!(
                    "tensor `{name}` is {}, but the training step's is {ty}",
                    value.ty
                )));
            }
            bytes.push(value.to_le_bytes());
        }
        let mut views = Vec::with_capacity(values.len());
        for ((name, ty), data) in layout.iter().zip(&bytes) {
            let view = TensorView::new(dtype_to_st(ty.dtype), ty.shape.clone(), data)
                .map_err(|e| problem(format!("tensor `{name}`: {e}")))?;
            views.push((name.clone(), view));
        }
        let mut metadata = HashMap::from([
            ("format".to_string(), FORMAT.to_string()),
            ("step".to_string(), ck.step.to_string()),
            ("optimizer".to_string(), ts.optimizer.name().to_string()),
            ("strategy".to_string(), ts.strategy.name().to_string()),
            ("mesh".to_string(), mesh_text(ts)),
        ]);
        for ((name, _), data) in layout.iter().zip(&bytes) {
            metadata.insert(checksum_key(name), checksum(data));
        }
        for ((key, _), text) in TEXT_ENTRIES.iter().zip([&ck.data, &ck.loss_scale]) {
            if let Some(text) = text {
                metadata.insert(key.to_string(), text.clone());
                metadata.insert(text_checksum_key(key), checksum(text.as_bytes()));
            }
        }
        safetensors::serialize(views, Some(metadata))
            .map_err(|e| problem(format!("cannot serialize: {e}")))
    }

    /// The directory's entries (none if it does not exist).
    fn entries(&self) -> Result<Vec<std::fs::DirEntry>, Error> {
        let io = |source| Error::Io {
            path: self.dir.clone(),
            source,
        };
        match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries.collect::<Result<_, _>>().map_err(io),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(source) => Err(io(source)),
        }
    }

    /// The checkpoints in the directory, oldest first (none if it does not exist).
    /// Temporary files of interrupted saves are not checkpoints and are skipped.
    pub fn list(&self) -> Result<Vec<(usize, PathBuf)>, Error> {
        let mut found = Vec::new();
        for entry in self.entries()? {
            let name = entry.file_name();
            let Some(step) = name
                .to_str()
                .and_then(|n| n.strip_prefix("step-"))
                .and_then(|n| n.strip_suffix(".safetensors"))
                .and_then(|n| n.parse::<usize>().ok())
            else {
                continue;
            };
            found.push((step, entry.path()));
        }
        found.sort();
        Ok(found)
    }

    /// The newest whole checkpoint, loaded for `ts` ([`Checkpointer::resume`]); each
    /// damaged newer one it skips is said on standard error. `None` if the directory has
    /// none.
    pub fn load_latest(&self, ts: &TrainStep) -> Result<Option<Checkpoint>, Error> {
        let r = self.resume(ts)?;
        for (path, why) in &r.skipped {
            eprintln!(
                "shardc: skipped damaged checkpoint {}: {why}; resuming from the previous one",
                path.display()
            );
        }
        Ok(r.checkpoint)
    }

    /// The newest checkpoint that loads for `ts`, newest first: a damaged one
    /// ([`Error::CheckpointDamaged`]) is skipped and reported, so a crash while saving
    /// or a corrupted file sends the run back to the previous good state; any other
    /// error (another model, another optimizer) is returned, never skipped.
    pub fn resume(&self, ts: &TrainStep) -> Result<Resume, Error> {
        let mut skipped = Vec::new();
        for (_, path) in self.list()?.into_iter().rev() {
            match self.load(ts, &path) {
                Ok(ck) => {
                    return Ok(Resume {
                        checkpoint: Some(ck),
                        skipped,
                    });
                }
                Err(Error::CheckpointDamaged { path, problem }) => skipped.push((path, problem)),
                Err(e) => return Err(e),
            }
        }
        Ok(Resume {
            checkpoint: None,
            skipped,
        })
    }

    /// Removes what interrupted saves left (`.step-*.safetensors.tmp`, up to a
    /// checkpoint's size each); returns the files removed. Training calls it at start.
    pub fn remove_stale(&self) -> Result<Vec<PathBuf>, Error> {
        let mut removed = Vec::new();
        for entry in self.entries()? {
            let name = entry.file_name();
            let stale = name
                .to_str()
                .is_some_and(|n| n.starts_with(".step-") && n.ends_with(".safetensors.tmp"));
            if stale {
                let path = entry.path();
                std::fs::remove_file(&path).map_err(|source| Error::Io {
                    path: path.clone(),
                    source,
                })?;
                removed.push(path);
            }
        }
        Ok(removed)
    }

    /// Loads the checkpoint at `path` for `ts`: every tensor the training step needs must
    /// be there with its type, and nothing else; the optimizer must be the step's. The
    /// strategy and mesh may differ (the tensors are global; the step shards them).
    pub fn load(&self, ts: &TrainStep, path: &Path) -> Result<Checkpoint, Error> {
        self.read(ts, path, true)
    }

    /// The parameters and step of the checkpoint at `path`, with the optimizer state of
    /// `ts` started afresh ([`TrainStep::init_state`]): to go on with another optimizer
    /// (fine-tuning), whichever optimizer wrote the checkpoint.
    pub fn load_params(&self, ts: &TrainStep, path: &Path) -> Result<Checkpoint, Error> {
        self.read(ts, path, false)
    }

    fn read(&self, ts: &TrainStep, path: &Path, with_state: bool) -> Result<Checkpoint, Error> {
        let file = std::fs::read(path).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        self.decode(ts, path, &file, with_state)
    }

    /// The checkpoint in `file`, the bytes of a checkpoint file (`path` names it in
    /// errors), checked as [`Checkpointer::load`] checks a file; with the optimizer state
    /// started afresh unless `with_state`.
    pub fn decode(
        &self,
        ts: &TrainStep,
        path: &Path,
        file: &[u8],
        with_state: bool,
    ) -> Result<Checkpoint, Error> {
        let problem = |problem: String| Error::Checkpoint {
            path: path.to_path_buf(),
            problem,
        };
        let damaged = |problem: String| Error::CheckpointDamaged {
            path: path.to_path_buf(),
            problem,
        };
        let (info, sums) =
            read_header(file).map_err(
                |(e, is_damage)| {
                    if is_damage { damaged(e) } else { problem(e) }
                },
            )?;
        if with_state && info.optimizer != ts.optimizer.name() {
            return Err(problem(format!(
                "written with optimizer {}, but the training step uses {}: the optimizer state does not carry over (to keep the parameters and start {} afresh, use `Checkpointer::load_params`)",
                info.optimizer,
                ts.optimizer.name(),
                ts.optimizer.name()
            )));
        }
        let st = SafeTensors::deserialize(file)
            .map_err(|e| damaged(format!("not a whole safetensors file: {e}")))?;
        let mut layout = self.layout(ts)?;
        if !with_state {
            layout.truncate(ts.param_types.len());
        }
        let mut values = Vec::with_capacity(layout.len());
        for (name, ty) in &layout {
            let view = st.tensor(name).map_err(|_| {
                problem(format!(
                    "has no tensor `{name}` (the training step needs {} tensors: {}, ...); was it written for another model, or with other parameter names?",
                    layout.len(),
                    layout.iter().take(3).map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", ")
                ))
            })?;
            let got = TensorType::new(
                dtype_from_st(view.dtype()).ok_or_else(|| {
                    problem(format!(
                        "tensor `{name}` has dtype {:?}, which shardc does not have",
                        view.dtype()
                    ))
                })?,
                view.shape(),
            );
            if &got != ty {
                return Err(problem(format!(
                    "tensor `{name}` is {got}, but the training step's is {ty}: the checkpoint is of another model"
                )));
            }
            let want = sums.get(name).ok_or_else(|| {
                damaged(format!(
                    "tensor `{name}` has no checksum (`{}`) in the metadata",
                    checksum_key(name)
                ))
            })?;
            let got_sum = checksum(view.data());
            if &got_sum != want {
                return Err(damaged(format!(
                    "tensor `{name}` does not match its checksum (saved {want}, read {got_sum}): its bytes changed after it was written"
                )));
            }
            values.push(
                Literal::from_le_bytes(ty, view.data())
                    .map_err(|e| problem(format!("tensor `{name}`: {e}")))?,
            );
        }
        if with_state && st.len() != layout.len() {
            let wanted: std::collections::HashSet<&str> =
                layout.iter().map(|(n, _)| n.as_str()).collect();
            let mut extra: Vec<&str> = st
                .names()
                .into_iter()
                .filter(|n| !wanted.contains(n))
                .collect();
            extra.sort_unstable();
            return Err(problem(format!(
                "has tensors the training step does not ({}): was it written for a larger model?",
                extra.join(", ")
            )));
        }
        let state = if with_state {
            values.split_off(ts.param_types.len())
        } else {
            ts.init_state()
        };
        Ok(Checkpoint {
            step: info.step,
            params: values,
            state,
            data: info.data,
            loss_scale: info.loss_scale,
        })
    }

    /// The tensors of a checkpoint of `ts`: names and types, parameters then state.
    fn layout(&self, ts: &TrainStep) -> Result<Vec<(String, TensorType)>, Error> {
        let n = ts.param_types.len();
        let names: Vec<String> = match &self.names {
            Some(names) if names.len() != n => {
                return Err(Error::Usage(format!(
                    "{} parameter names given to the checkpointer, but the training step has {n} parameters",
                    names.len()
                )));
            }
            Some(names) => names.clone(),
            None => (0..n).map(|i| i.to_string()).collect(),
        };
        let slots = ts.optimizer.slot_names();
        let mut layout: Vec<(String, TensorType)> = names
            .iter()
            .zip(&ts.param_types)
            .map(|(name, ty)| (format!("param.{name}"), ty.clone()))
            .collect();
        for slot in slots {
            layout.extend(
                names
                    .iter()
                    .zip(&ts.param_types)
                    .map(|(name, ty)| (format!("{slot}.{name}"), ty.clone())),
            );
        }
        Ok(layout)
    }
}

/// Reads only the metadata of a checkpoint file.
pub fn info(path: &Path) -> Result<CheckpointInfo, Error> {
    let file = std::fs::read(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    read_header(&file)
        .map(|(info, _)| info)
        .map_err(|(problem, damage)| {
            let path = path.to_path_buf();
            if damage {
                Error::CheckpointDamaged { path, problem }
            } else {
                Error::Checkpoint { path, problem }
            }
        })
}

/// The metadata of a checkpoint file and its tensors' checksums (by tensor name). An
/// error says whether the file is damaged (`true`: truncated, garbage metadata) or
/// whole but not one this shardc reads (`false`: another format or someone else's file).
fn read_header(file: &[u8]) -> Result<(CheckpointInfo, HashMap<String, String>), (String, bool)> {
    let (_, metadata) = SafeTensors::read_metadata(file)
        .map_err(|e| (format!("not a whole safetensors file: {e}"), true))?;
    let meta = metadata.metadata().clone().unwrap_or_default();
    match meta.get("format") {
        Some(f) if f == FORMAT => {}
        Some(f) => {
            return Err((
                format!(
                    "is format {f}, but this shardc reads {FORMAT}: written by another version"
                ),
                false,
            ));
        }
        None => {
            return Err((
                format!(
                    "is a safetensors file but not a shardc checkpoint (no `format` = {FORMAT} in its metadata)"
                ),
                false,
            ));
        }
    }
    let field = |key: &str| {
        meta.get(key)
            .cloned()
            .ok_or_else(|| (format!("has no `{key}` in its metadata"), true))
    };
    let step = field("step")?;
    let mesh = field("mesh")?;
    let axis_ok = |a: &str| {
        a.split_once('=').is_some_and(|(name, size)| {
            !name.is_empty() && size.parse::<usize>().is_ok_and(|n| n > 0)
        })
    };
    if !mesh.is_empty() && !mesh.split(',').all(axis_ok) {
        return Err((
            format!("has mesh `{mesh}` in its metadata, which is not `axis=size,...`"),
            true,
        ));
    }
    let sums = meta
        .iter()
        .filter_map(|(k, v)| Some((k.strip_prefix("crc32.")?.to_string(), v.clone())))
        .collect();
    let info = CheckpointInfo {
        step: step.parse().map_err(|_| {
            (
                format!("has step `{step}` in its metadata, not a number"),
                true,
            )
        })?,
        optimizer: field("optimizer")?,
        strategy: field("strategy")?,
        mesh,
        data: text_entry(&meta, TEXT_ENTRIES[0])?,
        loss_scale: text_entry(&meta, TEXT_ENTRIES[1])?,
    };
    Ok((info, sums))
}

/// A text entry of the metadata ([`TEXT_ENTRIES`]), checked against its checksum; the
/// error says the file is damaged.
fn text_entry(
    meta: &HashMap<String, String>,
    (key, what): (&str, &str),
) -> Result<Option<String>, (String, bool)> {
    let sum_key = text_checksum_key(key);
    match (meta.get(key), meta.get(&sum_key)) {
        (None, _) => Ok(None),
        (Some(text), Some(sum)) if *sum == checksum(text.as_bytes()) => Ok(Some(text.clone())),
        (Some(_), Some(_)) => Err((
            format!("has a `{key}` entry ({what}) that does not match its checksum"),
            true,
        )),
        (Some(_), None) => Err((
            format!("has a `{key}` entry but no `{sum_key}` in its metadata"),
            true,
        )),
    }
}

fn mesh_text(ts: &TrainStep) -> String {
    ts.mesh
        .axes
        .iter()
        .map(|a| format!("{}={}", a.name, a.size))
        .collect::<Vec<_>>()
        .join(",")
}

/// Writes `bytes` to `path` and flushes them to the disk.
fn write_durably(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    use std::io::Write;
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut f = std::fs::File::create(path).map_err(io)?;
    f.write_all(bytes).map_err(io)?;
    f.sync_all().map_err(io)
}

/// The safetensors dtype of an element type (every shardc type has one).
pub fn dtype_to_st(d: DType) -> Dtype {
    match d {
        DType::F32 => Dtype::F32,
        DType::F64 => Dtype::F64,
        DType::BF16 => Dtype::BF16,
        DType::F16 => Dtype::F16,
        DType::I32 => Dtype::I32,
        DType::I64 => Dtype::I64,
        DType::I1 => Dtype::BOOL,
        DType::I8 => Dtype::I8,
        DType::I16 => Dtype::I16,
        DType::U8 => Dtype::U8,
        DType::U16 => Dtype::U16,
        DType::U32 => Dtype::U32,
        DType::U64 => Dtype::U64,
    }
}

/// The element type of a safetensors dtype, if shardc has it.
pub fn dtype_from_st(d: Dtype) -> Option<DType> {
    Some(match d {
        Dtype::F32 => DType::F32,
        Dtype::F64 => DType::F64,
        Dtype::BF16 => DType::BF16,
        Dtype::F16 => DType::F16,
        Dtype::I32 => DType::I32,
        Dtype::I64 => DType::I64,
        Dtype::BOOL => DType::I1,
        Dtype::I8 => DType::I8,
        Dtype::I16 => DType::I16,
        Dtype::U8 => DType::U8,
        Dtype::U16 => DType::U16,
        Dtype::U32 => DType::U32,
        Dtype::U64 => DType::U64,
        _ => return None,
    })
}
