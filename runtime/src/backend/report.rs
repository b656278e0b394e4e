//! What a run gives back: every device's results, the bytes each device sent per
//! collective, and a trace of every device's compute and communication, which
//! [`RunReport::trace_json`] writes in Chrome's trace format (open it in Perfetto or
//! `chrome://tracing`): one process per device, thread 0 its compute, thread 1 its
//! communication.

use serde::{Deserialize, Serialize};
use serde_json::json;
use shardc_ir::Literal;
use std::time::Duration;

/// The results of a run.
#[derive(Clone, Debug)]
pub struct RunReport {
    /// Each device's results, by device id.
    pub outputs: Vec<Vec<Literal>>,
    /// Times and bytes, per device and overall.
    pub stats: Stats,
    /// Every device's spans, by device, each in time order.
    pub spans: Vec<Span>,
}

/// Bytes and times of a run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Stats {
    /// One entry per per-device op, in program order.
    pub ops: Vec<OpStats>,
    /// One entry per device, by device id.
    pub devices: Vec<DeviceStats>,
    /// From starting the devices to the last one finishing.
    pub wall: Duration,
}

/// One per-device op of a run.
#[derive(Clone, Debug, Serialize)]
pub struct OpStats {
    /// `all_reduce`, `all_gather`, `reduce_scatter`, `all_to_all`, `collective_permute`,
    /// `shard_slice`, `axis_index`.
    pub kind: String,
    /// The value it defines, `%3`.
    pub value: String,
    /// The values of the global program it moves, as `explain` names them (`["%4"]`; a
    /// bucket's members): the same collective in `explain`'s list.
    pub of: Vec<String>,
    /// Devices per group (2 for a permute: source and target).
    pub group_size: usize,
    /// The bytes each device sent, by device id, over all its runs.
    pub bytes_sent: Vec<u64>,
    /// How many times it ran: once, or once per iteration of the loop holding it (a loop
    /// whose body communicates, `engine::Control`).
    pub runs: usize,
}

impl OpStats {
    /// The most bytes any device sent.
    pub fn max_bytes(&self) -> u64 {
        self.bytes_sent.iter().copied().max().unwrap_or(0)
    }

    /// The bytes a device sent on average, rounded down: what the compiler's `explain`
    /// states per device for every collective but a permute (whose figure is what each
    /// device that moves its block sends). Every device sends exactly this much when the
    /// buffer divides into equal chunks; an all-reduce of a buffer that does not (fewer
    /// elements than devices, say) has chunks one element apart, and its devices send
    /// slightly different amounts.
    pub fn mean_bytes(&self) -> u64 {
        let n = self.bytes_sent.len().max(1) as u64;
        self.bytes_sent.iter().sum::<u64>() / n
    }
}

/// One device of a run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct DeviceStats {
    /// Bytes sent, over all per-device ops.
    pub bytes_sent: u64,
    /// Time in compute segments.
    pub compute: Duration,
    /// Time in per-device ops (communication), which may overlap compute.
    pub communication: Duration,
    /// Time compute waited for a per-device op's result.
    pub waiting: Duration,
    /// The most bytes of values the device held at once (arguments, kernel outputs and
    /// the results of per-device ops, from when each is ready to its last read): what the
    /// compiler's `peak_bytes_per_device` predicts. A collective whose result compute
    /// waits for counts its operand (moved or copied to the communication side) and its
    /// result from the hand-off until the result arrives, as the plan counts both at the
    /// op. 0 on the cuda backend, which does not measure it (yet).
    pub peak_bytes: u64,
    /// Time reading offloaded values from their files and writing them back
    /// ([`super::Offload`]).
    pub offload: Duration,
    /// Bytes of offloaded values read and written.
    pub offloaded_bytes: u64,
}

/// Which timeline of a device a span is on (the Chrome trace's thread id).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Lane {
    /// Compute segments, and waits for results (thread 0).
    Compute = 0,
    /// Per-device ops (thread 1).
    Communication = 1,
    /// Reads and writes of offloaded values (thread 2; `super::offload`).
    Offload = 2,
}

/// What a span is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SpanKind {
    /// A compute segment ran.
    Segment,
    /// Compute waited for a per-device op's result.
    Wait,
    /// A per-device op ran.
    Collective,
    /// An offloaded value was read from its file, or written to it
    /// ([`super::Offload`]).
    Offload,
}

/// A stretch of one device's time.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Span {
    /// The device.
    pub device: usize,
    /// Its thread: compute or communication.
    pub lane: Lane,
    /// What it spent the time on.
    pub kind: SpanKind,
    /// `segment 2`, `all_reduce %5`, `wait %5`.
    pub name: String,
    /// Since the run started.
    pub start: Duration,
    /// How long it took.
    pub duration: Duration,
    /// The ops of a segment; the group size of a per-device op.
    pub detail: String,
    /// Bytes this device sent (per-device ops).
    pub bytes: Option<u64>,
}

impl Span {
    /// When it ended, since the run started.
    pub fn end(&self) -> Duration {
        self.start + self.duration
    }

    /// Whether the two spans share some time.
    pub fn overlaps(&self, other: &Span) -> bool {
        self.start < other.end() && other.start < self.end()
    }
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

impl RunReport {
    /// The trace in Chrome's trace-event format: `{"traceEvents": [...]}` with one complete
    /// event (`"ph": "X"`) per span, timestamps in microseconds, `pid` the device, `tid` 0
    /// for compute and 1 for communication, plus metadata naming them.
    pub fn trace_json(&self) -> String {
        let mut events = Vec::new();
        // Every device of the run, whether or not its results are in the report (a call
        // that leaves them on the devices reports none).
        let devices = self.stats.devices.len().max(self.outputs.len());
        for d in 0..devices {
            events.push(json!({"name": "process_name", "ph": "M", "pid": d,
                "args": {"name": format!("device {d}")}}));
            events.push(json!({"name": "process_sort_index", "ph": "M", "pid": d,
                "args": {"sort_index": d}}));
            // The offload thread's track only where it ran.
            let offloads = self
                .spans
                .iter()
                .any(|s| s.device == d && s.lane == Lane::Offload);
            let tracks: &[(u8, &str)] = if offloads {
                &[(0, "compute"), (1, "communication"), (2, "offload")]
            } else {
                &[(0, "compute"), (1, "communication")]
            };
            for &(tid, name) in tracks {
                events.push(
                    json!({"name": "thread_name", "ph": "M", "pid": d, "tid": tid,
                    "args": {"name": name}}),
                );
            }
        }
        for s in &self.spans {
            let cat = match s.kind {
                SpanKind::Segment => "compute",
                SpanKind::Wait => "wait",
                SpanKind::Collective => "collective",
                SpanKind::Offload => "offload",
            };
            let mut args = json!({"detail": s.detail});
            if let Some(b) = s.bytes {
                args["bytes"] = json!(b);
            }
            events.push(json!({
                "name": s.name,
                "cat": cat,
                "ph": "X",
                "ts": micros(s.start),
                "dur": micros(s.duration),
                "pid": s.device,
                "tid": s.lane as u8,
                "args": args,
            }));
        }
        json!({"traceEvents": events, "displayTimeUnit": "ms"}).to_string()
    }

    /// Writes [`RunReport::trace_json`] to a file.
    pub fn write_trace(&self, path: impl AsRef<std::path::Path>) -> std::io::Result<()> {
        std::fs::write(path, self.trace_json())
    }
}
