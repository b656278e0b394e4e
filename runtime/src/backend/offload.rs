//! Values kept in files rather than in a device's memory ([`Offload`], the run option
//! `RunOptions::offload`), and the thread of each device that reads and writes them
//! (`Io`) while its compute goes on: ZeRO-Infinity's NVMe tier, for optimizer state.

use super::report::SpanKind;
use super::{DeviceError, Lane, Span};
use shardc_ir::{Literal, TensorType};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, SyncSender, channel, sync_channel};
use std::thread::JoinHandle;
use std::time::Instant;

/// Which arguments and results of a run live in files ([`super::RunOptions::offload`]). Device
/// `d`'s piece of a value named `stem` is the file `dir/device{d}/{stem}.bin`, its
/// elements as [`Literal::to_le_bytes`] lays them out.
///
/// An offloaded argument is given to the run as a placeholder (any literal of its type:
/// one element is enough, [`Offload::placeholder`]); the device reads its file when a step
/// first needs it. An offloaded result is written to its file after the last step that
/// reads it, its memory given back, and the run returns a placeholder in its place.
#[derive(Clone, Debug, Default)]
pub struct Offload {
    /// The folder of the files.
    pub dir: std::path::PathBuf,
    /// (argument position, file stem).
    pub args: Vec<(usize, String)>,
    /// (result position, file stem).
    pub results: Vec<(usize, String)>,
}

impl Offload {
    /// The file of device `device`'s piece of the value `stem`.
    pub fn path(&self, device: usize, stem: &str) -> std::path::PathBuf {
        self.dir
            .join(format!("device{device}"))
            .join(format!("{stem}.bin"))
    }

    /// What a run takes in place of an offloaded argument and gives in place of an
    /// offloaded result: one zero of the type (a splat).
    pub fn placeholder(ty: &TensorType) -> Literal {
        Literal::splat(ty.clone(), shardc_ir::Scalar::Int(0))
    }

    /// Writes `piece` as device `device`'s piece of `stem`.
    pub fn write(&self, device: usize, stem: &str, piece: &Literal) -> std::io::Result<()> {
        let path = self.path(device, stem);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        // Written over in place: a file of the same size keeps its blocks (truncating and
        // growing it again costs the file system more than the bytes do).
        let bytes = piece.to_le_bytes();
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        std::io::Write::write_all(&mut file, &bytes)?;
        file.set_len(bytes.len() as u64)
    }

    /// Reads device `device`'s piece of `stem`, of type `ty`.
    pub fn read(&self, device: usize, stem: &str, ty: &TensorType) -> Result<Literal, String> {
        let path = self.path(device, stem);
        let bytes = std::fs::read(&path)
            .map_err(|e| format!("cannot read offloaded {}: {e}", path.display()))?;
        Literal::from_le_bytes(ty, &bytes).map_err(|e| {
            format!(
                "offloaded {} is not a piece of type {ty}: {e}",
                path.display()
            )
        })
    }
}

/// What a device's I/O thread is asked.
enum Request {
    /// Read the file of `stem` as a value of type `ty`.
    Load {
        stem: String,
        ty: TensorType,
        reply: SyncSender<Result<Literal, String>>,
    },
    /// Write `value` to the file of `stem`.
    Store { stem: String, value: Literal },
    /// Copy the file of `from` to that of `to`.
    Copy { from: String, to: String },
}

/// A device's reads and writes of offloaded values, on a thread of their own, in the order
/// they are asked (a read of a file after its write sees what was written).
pub(crate) struct Io {
    requests: Option<Sender<Request>>,
    thread: Option<JoinHandle<(Vec<Span>, Option<String>)>>,
    /// Bytes handed over to be written and not written yet: still held by the device.
    pub(crate) writing: Arc<AtomicU64>,
}

impl Io {
    /// Starts device `device`'s I/O thread for `offload`, its spans timed on `clock`.
    pub(crate) fn start(
        offload: &Offload,
        device: usize,
        clock: Instant,
    ) -> Result<Io, DeviceError> {
        let (tx, rx) = channel::<Request>();
        let writing = Arc::new(AtomicU64::new(0));
        let (o, w) = (offload.clone(), writing.clone());
        let thread = std::thread::Builder::new()
            .name(format!("shardc-offload-{device}"))
            .spawn(move || serve(&o, device, clock, rx, &w))
            .map_err(|e| DeviceError::Offload(format!("cannot start the offload thread: {e}")))?;
        Ok(Io {
            requests: Some(tx),
            thread: Some(thread),
            writing,
        })
    }

    fn send(&self, r: Request) -> Result<(), DeviceError> {
        self.requests
            .as_ref()
            .and_then(|tx| tx.send(r).ok())
            .ok_or_else(|| DeviceError::Offload("the offload thread stopped".into()))
    }

    /// Asks for the value in the file of `stem`; it arrives on the receiver.
    pub(crate) fn load(
        &self,
        stem: &str,
        ty: &TensorType,
    ) -> Result<Receiver<Result<Literal, String>>, DeviceError> {
        let (reply, rx) = sync_channel(1);
        self.send(Request::Load {
            stem: stem.to_string(),
            ty: ty.clone(),
            reply,
        })?;
        Ok(rx)
    }

    /// Hands `value` over to be written to the file of `stem`.
    pub(crate) fn store(&self, stem: &str, value: Literal) -> Result<(), DeviceError> {
        self.writing
            .fetch_add(value.ty.size_bytes() as u64, Ordering::SeqCst);
        self.send(Request::Store {
            stem: stem.to_string(),
            value,
        })
    }

    /// Copies the file of `from` to that of `to`.
    pub(crate) fn copy(&self, from: &str, to: &str) -> Result<(), DeviceError> {
        self.send(Request::Copy {
            from: from.to_string(),
            to: to.to_string(),
        })
    }

    /// Waits until every write asked for is done: the thread's spans, or its first error.
    pub(crate) fn finish(mut self) -> Result<Vec<Span>, DeviceError> {
        self.requests = None;
        let joined = self.thread.take().map(|t| t.join());
        match joined {
            Some(Ok((spans, None))) => Ok(spans),
            Some(Ok((_, Some(e)))) => Err(DeviceError::Offload(e)),
            Some(Err(_)) => Err(DeviceError::Offload("the offload thread panicked".into())),
            None => Ok(Vec::new()),
        }
    }
}

/// The I/O thread: every request in order; a failed write is kept as the thread's error
/// (a failed read goes back to whoever asked).
fn serve(
    o: &Offload,
    device: usize,
    clock: Instant,
    requests: Receiver<Request>,
    writing: &AtomicU64,
) -> (Vec<Span>, Option<String>) {
    let mut spans = Vec::new();
    let mut error = None;
    let mut span = |name: String, start, bytes| {
        spans.push(Span {
            device,
            lane: Lane::Offload,
            kind: SpanKind::Offload,
            name,
            start,
            duration: clock.elapsed().saturating_sub(start),
            detail: String::new(),
            bytes: Some(bytes),
        });
    };
    for r in requests {
        let start = clock.elapsed();
        match r {
            Request::Load { stem, ty, reply } => {
                let got = o.read(device, &stem, &ty);
                span(format!("load {stem}"), start, ty.size_bytes() as u64);
                // A compute side that stopped waiting has failed; its error is reported.
                let _ = reply.send(got);
            }
            Request::Store { stem, value } => {
                let bytes = value.ty.size_bytes() as u64;
                if let Err(e) = o.write(device, &stem, &value) {
                    error.get_or_insert(format!(
                        "cannot write offloaded {}: {e}",
                        o.path(device, &stem).display()
                    ));
                }
                drop(value);
                writing.fetch_sub(bytes, Ordering::SeqCst);
                span(format!("store {stem}"), start, bytes);
            }
            Request::Copy { from, to } => {
                let (a, b) = (o.path(device, &from), o.path(device, &to));
                match std::fs::copy(&a, &b) {
                    Ok(bytes) => span(format!("copy {from} to {to}"), start, bytes),
                    Err(e) => {
                        error.get_or_insert(format!(
                            "cannot copy offloaded {} to {}: {e}",
                            a.display(),
                            b.display()
                        ));
                    }
                }
            }
        }
    }
    (spans, error)
}
