//! What one run of upstream's passes did, as data: the outcome, the diagnostics, the IR
//! after each stage, the collectives with their bytes, and the shape checks.
//!
//! Everything here is `serde` (the child process sends it to the parent as JSON) and has a
//! `Display` (the snapshot tests compare the text).

use std::collections::BTreeMap;
use std::fmt::{self, Display, Formatter};

use serde::{Deserialize, Serialize};

/// The stage of the pipeline a run reached.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Stage {
    /// `func.func(sharding-propagation,cse)`.
    Propagation,
    /// `func.func(shard-partition,canonicalize,cse)`.
    Partition,
}

impl Display for Stage {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Stage::Propagation => "sharding-propagation",
            Stage::Partition => "shard-partition",
        })
    }
}

/// How the pipeline ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Outcome {
    /// Both stages succeeded (the verifier included); the partitioned IR is in the report.
    Partitioned,
    /// A pass (or the verifier after it) signalled failure; the diagnostics say why.
    Failed {
        /// The stage that failed.
        stage: Stage,
    },
    /// The process running the stage died: a signal (11 is SIGSEGV, 6 is SIGABRT) or an
    /// exit without a report. Only [`run_isolated`](super::run_isolated) can observe this.
    Crashed {
        /// The stage the process was running.
        stage: Stage,
        /// The signal that ended it, if one did.
        signal: Option<i32>,
        /// Its exit code, if it exited.
        exit_code: Option<i32>,
        /// The last lines the process wrote to stderr.
        stderr: String,
    },
    /// The process running the stage was killed after `seconds`.
    TimedOut {
        /// The stage the process was running.
        stage: Stage,
        /// How long it ran before it was killed.
        seconds: f64,
    },
}

impl Display for Outcome {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Partitioned => f.write_str("partitioned"),
            Outcome::Failed { stage } => write!(f, "failed in {stage}"),
            Outcome::Crashed {
                stage,
                signal,
                exit_code,
                ..
            } => {
                write!(f, "crashed in {stage}")?;
                match (signal, exit_code) {
                    (Some(signal), _) => write!(f, " (signal {signal}{})", signal_name(*signal)),
                    (None, Some(code)) => write!(f, " (exit code {code}, no report)"),
                    (None, None) => Ok(()),
                }
            }
            Outcome::TimedOut { stage, seconds } => {
                write!(f, "timed out in {stage} after {seconds} s")
            }
        }
    }
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        4 => ", SIGILL",
        6 => ", SIGABRT",
        7 => ", SIGBUS",
        8 => ", SIGFPE",
        9 => ", SIGKILL",
        11 => ", SIGSEGV",
        _ => "",
    }
}

/// One diagnostic MLIR emitted, captured by the context's handler.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// `error`, `warning`, `note` or `remark`.
    pub severity: String,
    /// `line:col` in the input text, or MLIR's printed location when it is not one.
    pub location: String,
    /// The message.
    pub message: String,
    /// The notes attached to it.
    pub notes: Vec<String>,
}

impl Display for Diagnostic {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at {}: {}",
            self.severity, self.location, self.message
        )?;
        for note in &self.notes {
            write!(f, "\n    note: {note}")?;
        }
        Ok(())
    }
}

/// A `shard.grid`: its symbol and shape (`None` for a dynamic axis).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grid {
    /// The grid's symbol.
    pub name: String,
    /// Its axes' sizes.
    pub shape: Vec<Option<u64>>,
}

impl Grid {
    /// The number of devices in the group spanned by `axes`, if every axis is static and
    /// exists.
    pub fn group_size(&self, axes: &[u16]) -> Option<u64> {
        axes.iter()
            .map(|&axis| self.shape.get(usize::from(axis)).copied().flatten())
            .product()
    }
}

impl Display for Grid {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "@{}(shape = ", self.name)?;
        for (i, dim) in self.shape.iter().enumerate() {
            if i > 0 {
                f.write_str("x")?;
            }
            match dim {
                Some(size) => write!(f, "{size}")?,
                None => f.write_str("?")?,
            }
        }
        f.write_str(")")
    }
}

/// A ranked tensor type: its printed form, its dimensions (`None` when dynamic) and the size
/// of one element in bytes (`None` when the element type has no fixed byte size here).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TensorType {
    /// The type as MLIR prints it.
    pub text: String,
    /// Its dimensions.
    pub dims: Vec<Option<u64>>,
    /// Its element type as printed (`f32`).
    pub element: String,
    /// Bytes of one element.
    pub element_bytes: Option<u64>,
}

impl TensorType {
    /// The size of the tensor in bytes, when its shape and element size are static.
    pub fn bytes(&self) -> Option<u64> {
        self.dims
            .iter()
            .try_fold(self.element_bytes?, |acc, dim| Some(acc * (*dim)?))
    }

    /// The same element type with other dimensions, printed like MLIR prints it.
    pub fn with_dims(&self, dims: Vec<Option<u64>>) -> TensorType {
        let mut text = String::from("tensor<");
        for dim in &dims {
            match dim {
                Some(size) => text.push_str(&size.to_string()),
                None => text.push('?'),
            }
            text.push('x');
        }
        text.push_str(&self.element);
        text.push('>');
        TensorType {
            text,
            dims,
            element: self.element.clone(),
            element_bytes: self.element_bytes,
        }
    }
}

impl Display for TensorType {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// A `shard.sharding` read back from the IR.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sharding {
    /// The grid it shards over.
    pub grid: String,
    /// Per tensor dimension, the grid axes splitting it, major to minor.
    pub split_axes: Vec<Vec<u16>>,
    /// Per split tensor dimension, a (low, high) pair; empty when absent.
    pub halo_sizes: Vec<i64>,
    /// Per split tensor dimension, shards + 1 offsets; empty when absent.
    pub sharded_dims_offsets: Vec<i64>,
}

impl Display for Sharding {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "@{} split_axes = [", self.grid)?;
        for (i, axes) in self.split_axes.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str("[")?;
            write_list(f, axes)?;
            f.write_str("]")?;
        }
        f.write_str("]")?;
        if !self.halo_sizes.is_empty() {
            f.write_str(" halo_sizes = [")?;
            write_list(f, &self.halo_sizes)?;
            f.write_str("]")?;
        }
        if !self.sharded_dims_offsets.is_empty() {
            f.write_str(" sharded_dims_offsets = [")?;
            write_list(f, &self.sharded_dims_offsets)?;
            f.write_str("]")?;
        }
        Ok(())
    }
}

fn write_list<T: Display>(f: &mut Formatter<'_>, items: &[T]) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{item}")?;
    }
    Ok(())
}

/// The collective ops of the shard dialect.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum CollectiveKind {
    /// `shard.all_gather`.
    AllGather,
    /// `shard.all_reduce`.
    AllReduce,
    /// `shard.all_slice`.
    AllSlice,
    /// `shard.all_to_all`.
    AllToAll,
    /// `shard.broadcast`.
    Broadcast,
    /// `shard.gather`.
    Gather,
    /// `shard.recv`.
    Recv,
    /// `shard.reduce`.
    Reduce,
    /// `shard.reduce_scatter`.
    ReduceScatter,
    /// `shard.scatter`.
    Scatter,
    /// `shard.send`.
    Send,
    /// `shard.shift`.
    Shift,
    /// `shard.update_halo`.
    UpdateHalo,
}

impl CollectiveKind {
    /// Every kind.
    pub const ALL: [CollectiveKind; 13] = [
        CollectiveKind::AllGather,
        CollectiveKind::AllReduce,
        CollectiveKind::AllSlice,
        CollectiveKind::AllToAll,
        CollectiveKind::Broadcast,
        CollectiveKind::Gather,
        CollectiveKind::Recv,
        CollectiveKind::Reduce,
        CollectiveKind::ReduceScatter,
        CollectiveKind::Scatter,
        CollectiveKind::Send,
        CollectiveKind::Shift,
        CollectiveKind::UpdateHalo,
    ];

    /// The MLIR op name, `shard.all_reduce` and so on.
    pub fn op_name(self) -> &'static str {
        match self {
            CollectiveKind::AllGather => "shard.all_gather",
            CollectiveKind::AllReduce => "shard.all_reduce",
            CollectiveKind::AllSlice => "shard.all_slice",
            CollectiveKind::AllToAll => "shard.all_to_all",
            CollectiveKind::Broadcast => "shard.broadcast",
            CollectiveKind::Gather => "shard.gather",
            CollectiveKind::Recv => "shard.recv",
            CollectiveKind::Reduce => "shard.reduce",
            CollectiveKind::ReduceScatter => "shard.reduce_scatter",
            CollectiveKind::Scatter => "shard.scatter",
            CollectiveKind::Send => "shard.send",
            CollectiveKind::Shift => "shard.shift",
            CollectiveKind::UpdateHalo => "shard.update_halo",
        }
    }

    /// The kind of the op named `name` (`shard.all_reduce`).
    pub fn from_op_name(name: &str) -> Option<CollectiveKind> {
        CollectiveKind::ALL
            .into_iter()
            .find(|kind| kind.op_name() == name)
    }

    /// The short name, `all_reduce` and so on.
    pub fn short_name(self) -> &'static str {
        let name = self.op_name();
        name.strip_prefix("shard.").unwrap_or(name)
    }
}

impl Display for CollectiveKind {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(self.op_name())
    }
}

/// The bytes one device sends for one collective, by the ring formula, and how they were
/// computed. `bytes` is `None` when a size is dynamic or the op has no formula here.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Volume {
    /// Bytes one device sends.
    pub bytes: Option<f64>,
    /// The formula with its numbers: `2(N-1)/N*S_in = 2*3/4*256`.
    pub formula: String,
}

/// One collective found in the partitioned IR.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Collective {
    /// Which collective.
    pub kind: CollectiveKind,
    /// The function it is in.
    pub function: String,
    /// The grid it runs on.
    pub grid: String,
    /// The grid axes it runs over.
    pub grid_axes: Vec<u16>,
    /// Devices in each group (the product of the grid axes' sizes).
    pub group_size: Option<u64>,
    /// Its operand's type.
    pub operand: Option<TensorType>,
    /// Its result's type.
    pub result: Option<TensorType>,
    /// The op's other attributes (`gather_axis`, `split_axis`, `reduction`, ...), printed.
    pub attributes: BTreeMap<String, String>,
    /// The bytes it moves.
    pub volume: Volume,
}

impl Display for Collective {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{} on @{} grid_axes = [", self.kind, self.grid)?;
        write_list(f, &self.grid_axes)?;
        f.write_str("]")?;
        match self.group_size {
            Some(n) => write!(f, " (N={n})")?,
            None => f.write_str(" (N=?)")?,
        }
        for (name, value) in &self.attributes {
            write!(f, " {name} = {value}")?;
        }
        let show = |t: &Option<TensorType>| t.as_ref().map_or("-".to_string(), |t| t.to_string());
        write!(
            f,
            " : {} -> {}: {}",
            show(&self.operand),
            show(&self.result),
            self.volume.formula
        )?;
        if let Some(bytes) = self.volume.bytes {
            write!(f, " = {} B", format_bytes(bytes))?;
        }
        write!(f, " (in @{})", self.function)
    }
}

/// A byte count: as an integer when it is one, else with two decimals.
pub fn format_bytes(bytes: f64) -> String {
    if bytes.fract() == 0.0 {
        format!("{bytes:.0}")
    } else {
        format!("{bytes:.2}")
    }
}

/// A function argument or result.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Port {
    /// Argument `i`.
    Arg(usize),
    /// Result `i`.
    Result(usize),
}

impl Display for Port {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Port::Arg(i) => write!(f, "arg {i}"),
            Port::Result(i) => write!(f, "result {i}"),
        }
    }
}

/// What a sharding implies for the per-device type of a value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Expected {
    /// Every device holds this type.
    Type(TensorType),
    /// The dimension's size is not a multiple of the number of shards: a correct partitioner
    /// reports an error (or pads, when asked to).
    NotDivisible {
        /// The dimension.
        dim: usize,
        /// Its size.
        size: u64,
        /// The number of shards it is split into.
        shards: u64,
    },
    /// Explicit offsets give devices different sizes along `dim`: no one static type fits
    /// every device.
    Uneven {
        /// The dimension.
        dim: usize,
        /// The size of each device's piece along it.
        sizes: Vec<u64>,
    },
    /// The expectation could not be computed (dynamic sizes, no annotation, ...).
    Unknown {
        /// Why.
        reason: String,
    },
}

impl Display for Expected {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Expected::Type(t) => write!(f, "{t}"),
            Expected::NotDivisible { dim, size, shards } => write!(
                f,
                "an error: dimension {dim} of size {size} does not split into {shards} shards"
            ),
            Expected::Uneven { dim, sizes } => {
                write!(f, "per-device sizes [")?;
                write_list(f, sizes)?;
                write!(f, "] along dimension {dim}")
            }
            Expected::Unknown { reason } => write!(f, "unknown ({reason})"),
        }
    }
}

/// The judgement on one partitioned type.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ShapeVerdict {
    /// The partitioned type is what the sharding implies.
    Ok,
    /// The partitioned type differs from what the sharding implies, and no error was given.
    WrongShape,
    /// A non-divisible dimension was floor-divided: elements are dropped with no error.
    SilentTruncation,
    /// There was nothing to compare (no partitioned IR, or no expectation).
    Unchecked,
}

impl Display for ShapeVerdict {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ShapeVerdict::Ok => "ok",
            ShapeVerdict::WrongShape => "WRONG SHAPE",
            ShapeVerdict::SilentTruncation => "SILENT TRUNCATION",
            ShapeVerdict::Unchecked => "unchecked",
        })
    }
}

/// The per-device type upstream gave a function argument or result, against the type its
/// sharding implies.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShapeCheck {
    /// The function.
    pub function: String,
    /// The argument or result.
    pub port: Port,
    /// The global type (before partitioning).
    pub global: TensorType,
    /// The sharding after propagation; `None` when the value has no `shard.shard`.
    pub sharding: Option<Sharding>,
    /// The per-device type its sharding implies.
    pub expected: Expected,
    /// The partitioned type; `None` when partitioning did not finish.
    pub actual: Option<TensorType>,
    /// Whether they agree.
    pub verdict: ShapeVerdict,
}

impl Display for ShapeCheck {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "@{} {} {}", self.function, self.port, self.global)?;
        match &self.sharding {
            Some(sharding) => write!(f, " sharded {sharding}")?,
            None => f.write_str(" (no sharding)")?,
        }
        write!(f, ": expected {}", self.expected)?;
        match &self.actual {
            Some(actual) => write!(f, ", got {actual}")?,
            None => f.write_str(", got nothing")?,
        }
        write!(f, ": {}", self.verdict)
    }
}

/// What one run of upstream's `sharding-propagation` + `shard-partition` did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// How the pipeline ended.
    pub outcome: Outcome,
    /// Everything MLIR reported, in order.
    pub diagnostics: Vec<Diagnostic>,
    /// The grids of the module.
    pub grids: Vec<Grid>,
    /// The module after `sharding-propagation` (and `cse`).
    pub propagated_ir: Option<String>,
    /// The module after `shard-partition` (and `canonicalize`, `cse`).
    pub partitioned_ir: Option<String>,
    /// The collectives of the partitioned IR, in walk order.
    pub collectives: Vec<Collective>,
    /// How many of each op the partitioned IR holds (collectives, `scf.if` guards, casts),
    /// not counting the ops inside linalg bodies.
    pub ops: BTreeMap<String, usize>,
    /// Each argument's and result's per-device type against its sharding's.
    pub shapes: Vec<ShapeCheck>,
}

/// The one-line judgement of a report, for tables.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    /// Partitioned, every checked shape right.
    Ok,
    /// Partitioned without an error, but some per-device types are wrong.
    WrongShape {
        /// Each wrong value.
        details: Vec<String>,
    },
    /// Partitioned without an error, dropping elements of non-divisible dimensions.
    SilentTruncation {
        /// Each truncated value.
        details: Vec<String>,
    },
    /// Partitioned, but some per-device types could not be checked (no expectation).
    Unchecked {
        /// Each unchecked value.
        details: Vec<String>,
    },
    /// A pass or the verifier failed; the first error.
    Error {
        /// The stage.
        stage: Stage,
        /// The first error.
        message: String,
    },
    /// The process running a stage died or timed out.
    Crash {
        /// How it ended.
        outcome: String,
    },
}

impl Display for Verdict {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Ok => f.write_str("ok"),
            Verdict::WrongShape { details } => {
                write!(f, "wrong shape, no error: {}", details.join("; "))
            }
            Verdict::SilentTruncation { details } => {
                write!(f, "silent truncation: {}", details.join("; "))
            }
            Verdict::Unchecked { details } => {
                write!(f, "partitioned, shapes unchecked: {}", details.join("; "))
            }
            Verdict::Error { stage, message } => write!(f, "error in {stage}: {message}"),
            Verdict::Crash { outcome } => f.write_str(outcome),
        }
    }
}

impl Report {
    /// A report for a run that has not reached any stage yet.
    pub fn new(grids: Vec<Grid>) -> Report {
        Report {
            outcome: Outcome::Failed {
                stage: Stage::Propagation,
            },
            diagnostics: Vec::new(),
            grids,
            propagated_ir: None,
            partitioned_ir: None,
            collectives: Vec::new(),
            ops: BTreeMap::new(),
            shapes: Vec::new(),
        }
    }

    /// The bytes one device sends over all collectives; `None` when the run did not
    /// partition or a collective's volume is unknown.
    pub fn bytes_per_device(&self) -> Option<f64> {
        if self.outcome != Outcome::Partitioned {
            return None;
        }
        self.collectives
            .iter()
            .try_fold(0.0, |sum, c| Some(sum + c.volume.bytes?))
    }

    /// The collectives in one line: `all_reduce[1] 384 B, all_gather[0] 1024 B`.
    pub fn collective_summary(&self) -> String {
        if self.collectives.is_empty() {
            return "none".to_string();
        }
        let parts: Vec<String> = self
            .collectives
            .iter()
            .map(|c| {
                let axes: Vec<String> = c.grid_axes.iter().map(u16::to_string).collect();
                let bytes = c
                    .volume
                    .bytes
                    .map_or("? B".to_string(), |b| format!("{} B", format_bytes(b)));
                format!("{}[{}] {}", c.kind.short_name(), axes.join(","), bytes)
            })
            .collect();
        parts.join(", ")
    }

    /// The one-line judgement: crash, error, silent truncation, wrong shape, unchecked
    /// shapes or ok.
    pub fn verdict(&self) -> Verdict {
        match &self.outcome {
            Outcome::Crashed { .. } | Outcome::TimedOut { .. } => Verdict::Crash {
                outcome: self.outcome.to_string(),
            },
            Outcome::Failed { stage } => Verdict::Error {
                stage: *stage,
                message: self
                    .diagnostics
                    .iter()
                    .find(|d| d.severity == "error")
                    .map_or("no diagnostic".to_string(), |d| d.message.clone()),
            },
            Outcome::Partitioned => {
                let details = |verdict: ShapeVerdict| -> Vec<String> {
                    self.shapes
                        .iter()
                        .filter(|s| s.verdict == verdict)
                        .map(|s| {
                            let actual =
                                s.actual.as_ref().map_or("-".to_string(), |t| t.to_string());
                            format!(
                                "@{} {} is {}, expected {}",
                                s.function, s.port, actual, s.expected
                            )
                        })
                        .collect()
                };
                let wrong = details(ShapeVerdict::WrongShape);
                let truncated = details(ShapeVerdict::SilentTruncation);
                let unchecked = details(ShapeVerdict::Unchecked);
                if !truncated.is_empty() {
                    Verdict::SilentTruncation { details: truncated }
                } else if !wrong.is_empty() {
                    Verdict::WrongShape { details: wrong }
                } else if !unchecked.is_empty() {
                    Verdict::Unchecked { details: unchecked }
                } else {
                    Verdict::Ok
                }
            }
        }
    }
}

impl Display for Report {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        writeln!(f, "outcome: {}", self.outcome)?;
        writeln!(f, "verdict: {}", self.verdict())?;
        match (self.bytes_per_device(), &self.outcome) {
            (Some(bytes), _) => writeln!(f, "bytes per device: {}", format_bytes(bytes))?,
            (None, Outcome::Partitioned) => writeln!(f, "bytes per device: unknown")?,
            (None, _) => writeln!(f, "bytes per device: - (not partitioned)")?,
        }
        for grid in &self.grids {
            writeln!(f, "grid: {grid}")?;
        }
        writeln!(f, "collectives:")?;
        for collective in &self.collectives {
            writeln!(f, "  {collective}")?;
        }
        writeln!(f, "shapes:")?;
        for shape in &self.shapes {
            writeln!(f, "  {shape}")?;
        }
        writeln!(f, "diagnostics:")?;
        for diagnostic in &self.diagnostics {
            writeln!(f, "  {diagnostic}")?;
        }
        if let Outcome::Crashed { stderr, .. } = &self.outcome
            && !stderr.is_empty()
        {
            writeln!(f, "stderr:")?;
            for line in stderr.lines() {
                writeln!(f, "  {line}")?;
            }
        }
        writeln!(f, "ops after partitioning:")?;
        for (name, count) in &self.ops {
            writeln!(f, "  {name}: {count}")?;
        }
        writeln!(f, "--- after sharding-propagation")?;
        match &self.propagated_ir {
            Some(ir) => f.write_str(ir.trim_end())?,
            None => f.write_str("(not reached)")?,
        }
        writeln!(f)?;
        writeln!(f, "--- after shard-partition")?;
        match &self.partitioned_ir {
            Some(ir) => f.write_str(ir.trim_end())?,
            None => f.write_str("(not reached)")?,
        }
        writeln!(f)
    }
}
