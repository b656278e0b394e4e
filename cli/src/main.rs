//! The `shardc` command line.
//!
//! ```text
//! shardc compile FILE.mlir [--explain | --decisions] [--json] [--dump-dir DIR] [--bucket-bytes N] [--pad | --no-pad] [--loops-whole] [--unroll-loops N] [--memory-per-device B]
//!                [--cost-profile FILE | --gpu-cluster]
//! shardc calibrate [--mesh data=2,model=4] [--out FILE]
//! shardc plan demo|gpt-1b|gpt-1b-moe|SHAPES.json --devices N [--topology FILE] [--memory-per-device B] [--top K] [--measure K]
//! shardc bench peer [--dir tests/fixtures/peer] [--cases a,b] [--steps 10] [--profile] [--trace DIR] [--prefetch N]
//! shardc bench plans FILE.mlir... [--steps 5] [--cost-profile FILE]
//! shardc bench compile [--blocks 4,16,64,256]
//! shardc bench step [--devices 1,2,4,8] [--steps 5] [--engine interpreted] [--tiny] [--profile]
//! shardc bench kernels [--sizes 512,1024] [--chain-mb 64]
//! ```

use clap::{Parser, Subcommand};
use shardc::Mesh;
use shardc::compiler::{CostModel, Options, Stage, compile};
use shardc_train::models::{TransformerDims, transformer_stack};
use shardc_train::strategy::axis::{DATA, MODEL};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

// The benchmark of the MLIR kernels (binary only).
#[path = "bench_kernels.rs"]
mod kernels;

#[derive(Parser)]
#[command(
    name = "shardc",
    about = "A JAX-style sharding compiler: propagate, partition, explain."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Compile a StableHLO + Shardy module (as JAX prints it) and print the per-device program.
    Compile {
        file: PathBuf,
        /// Print the explanation (layouts, their origins, collectives and the alternatives).
        #[arg(long)]
        explain: bool,
        /// Print the decisions: every argument's and result's layout and every collective,
        /// values named as the program names them (what to snapshot in tests).
        #[arg(long)]
        decisions: bool,
        /// Print the explanation (or, with --decisions, the decisions) as JSON.
        #[arg(long)]
        json: bool,
        /// Write the module after every stage into this folder (`00-input.mlir`,
        /// `01-inlined.mlir`, `02-propagated.mlir`: every value's chosen sharding,
        /// `03-partitioned.mlir`, `04-explain.txt`).
        #[arg(long)]
        dump_dir: Option<PathBuf>,
        /// Let shardings split dimensions their axes do not divide anywhere: each shard
        /// holds ceil(n / shards) elements, the last ones padded (GSPMD's uneven
        /// shardings). Without it, a program whose annotations split a dimension unevenly
        /// is padded as JAX pads it, with a note.
        #[arg(long)]
        pad: bool,
        /// Refuse a program whose annotations split a dimension unevenly.
        #[arg(long, conflicts_with = "pad")]
        no_pad: bool,
        /// Compress the all-reduces of f32 sums over an axis: `data=bf16`, `data=int8`
        /// (64-value blocks, error feedback), `data=int8:128`, `data=powersgd:4`
        /// (`docs/topology.md`). Repeatable.
        #[arg(long, value_parser = parse_compress)]
        compress: Vec<(String, shardc::ir::compress::Compression)>,
        #[command(flatten)]
        plan: PlanArgs,
        #[command(flatten)]
        cost: CostArgs,
    },
    /// Compile a program and run it: print its outputs and the collectives the run made,
    /// check them against the reference interpreter and against recorded outputs.
    Run {
        file: PathBuf,
        /// Inputs: a recorded run (.json, as tests/fixtures/jax/corpus.py writes beside a
        /// JAX export; its outputs are checked too) or a .safetensors file with tensors
        /// named 0, 1, ...; deterministic inputs when absent.
        #[arg(long)]
        inputs: Option<PathBuf>,
        #[arg(long, value_enum, default_value = "cpu")]
        backend: shardc_cli::run::Backend,
        #[arg(long, default_value = "native")]
        engine: shardc::Engine,
        /// Write the run's trace (Chrome's JSON; ui.perfetto.dev).
        #[arg(long)]
        trace: Option<PathBuf>,
        /// Also run the reference interpreter on the global program and compare.
        #[arg(long)]
        check_reference: bool,
        /// Write the outputs to a .safetensors file (tensors named 0, 1, ...).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Call the program this many more times after the first (kernels prepared once
        /// on the cpu backend) and print the median call, and each device's compute,
        /// communication and the time compute waited for it in the last call (the
        /// exposed communication). The cpu and mpi backends.
        #[arg(long, default_value_t = 0)]
        steps: usize,
        /// Let shardings split dimensions their axes do not divide anywhere (padded).
        /// Without it, a program whose annotations split a dimension unevenly is padded as
        /// JAX pads it, with a note.
        #[arg(long)]
        pad: bool,
        /// Refuse a program whose annotations split a dimension unevenly.
        #[arg(long, conflicts_with = "pad")]
        no_pad: bool,
        /// Compress the all-reduces of f32 sums over an axis: `data=bf16`, `data=int8`
        /// (64-value blocks, error feedback), `data=int8:128`, `data=powersgd:4`
        /// (`docs/topology.md`). Repeatable.
        #[arg(long, value_parser = parse_compress)]
        compress: Vec<(String, shardc::ir::compress::Compression)>,
        #[command(flatten)]
        plan: PlanArgs,
        #[command(flatten)]
        cost: CostArgs,
    },
    /// Measure the cpu backend on this host with a mesh (matmul and elementwise rates per
    /// device while all compute, all-reduce latency and bandwidth per axis) and write the
    /// cost profile compilation then optimises (`--cost-profile FILE`, `SHARDC_COST_PROFILE`).
    Calibrate {
        /// Mesh axes, `data=2,model=4` (what the programs' `sdy.mesh` declares).
        #[arg(long, value_delimiter = ',', default_value = "data=8")]
        mesh: Vec<String>,
        /// Write the profile here (JSON); printed when absent.
        #[arg(long)]
        out: Option<PathBuf>,
        #[arg(long, default_value = "native")]
        engine: shardc::Engine,
        /// Timed runs per figure (the median is kept).
        #[arg(long, default_value_t = 5)]
        repeats: usize,
    },
    /// Run a job of N processes (one per device) under mpirun or srun, and when a rank
    /// dies, times out in a collective or the job stops making progress, end it and start
    /// it again (the program resumes from its newest good checkpoint), up to
    /// --max-restarts times: `shardc launch -n 4 -- target/release/examples/mpi_train
    /// --checkpoints ckpt`.
    Launch {
        /// Processes to run.
        #[arg(short = 'n', long = "ranks")]
        ranks: usize,
        /// Restarts after failures before giving up.
        #[arg(long, default_value_t = 3)]
        max_restarts: usize,
        /// Seconds a rank waits in a collective for its peers before ending itself
        /// (exported as SHARDC_COLLECTIVE_TIMEOUT).
        #[arg(long, default_value_t = 600.0)]
        timeout: f64,
        /// Seconds without any rank completing a step (once one has) before the job is
        /// ended as stalled [default: twice --timeout].
        #[arg(long)]
        stall_timeout: Option<f64>,
        /// An Open MPI hostfile: ranks on several nodes (the program at the same path on
        /// each).
        #[arg(long, conflicts_with = "srun")]
        hostfile: Option<PathBuf>,
        /// Start the ranks with Slurm's srun (inside salloc or sbatch) instead of mpirun.
        #[arg(long)]
        srun: bool,
        /// Where ranks report their progress (a temporary folder when absent; give a
        /// folder every node sees when running on several).
        #[arg(long)]
        progress_dir: Option<PathBuf>,
        /// The program and its arguments.
        #[arg(last = true, required = true)]
        command: Vec<String>,
    },
    /// Propose how to train a GPT-shaped model on N devices: mesh shapes (data, pipeline
    /// stages, context, tensor and expert parallelism), the data axis's ZeRO stage, per-layer
    /// recompute and which axes go on which links, ranked by predicted step time within a
    /// memory limit (one JSON object;
    /// `docs/topology.md`, The planner). `--measure K` trains the top K on the cpu
    /// backend and prints the measured ranking beside the predicted one.
    Plan {
        /// `demo` (the demo's GPT), `gpt-1b` (1.3 B parameters' shapes, not run),
        /// `gpt-1b-moe` (its MLPs as 8 experts, 2 per token), or a JSON file of a GPT's
        /// shapes (`vocab`, `layers`, `batch`, `seq`, `d_model`, `heads`, `d_ff`; with
        /// `experts`, and optionally `top_k` and `capacity_factor`, its MLPs as experts).
        model: String,
        /// Devices to plan for.
        #[arg(long)]
        devices: usize,
        /// Bytes a device may hold; plans over it are set apart.
        #[arg(long)]
        memory_per_device: Option<u64>,
        /// Plans printed.
        #[arg(long, default_value_t = 10)]
        top: usize,
        /// Train the top K plans on the cpu backend (a mesh of --devices threads) and time
        /// them.
        #[arg(long, default_value_t = 0)]
        measure: usize,
        /// Timed steps per measured plan, each after an untimed one (the plans stepped in
        /// turn, so that every plan sees the same machine).
        #[arg(long, default_value_t = 5)]
        steps: usize,
        #[arg(long, default_value = "native")]
        engine: shardc::Engine,
        #[command(flatten)]
        cost: CostArgs,
    },
    /// Benchmarks that print JSON.
    Bench {
        #[command(subcommand)]
        which: Bench,
    },
}

/// What the plan must do: how loops run, and the memory a device has.
#[derive(clap::Args)]
struct PlanArgs {
    /// Run every loop whole on every device (what it reads gathered first) instead of
    /// on the pieces of its carried values.
    #[arg(long)]
    loops_whole: bool,
    /// Unroll loops whose bodies communicate and whose trip count is known and at most
    /// this many (their collectives then bucketed and prefetched with the others); by
    /// default every loop runs as a loop, its body's kernels prepared once.
    #[arg(long, default_value_t = 0)]
    unroll_loops: usize,
    /// Bytes one device may hold at once: a plan over it is searched again with memory
    /// weighed against time, and compilation fails naming what is live at the peak when
    /// none fits (`Options::memory_per_device`).
    #[arg(long)]
    memory_per_device: Option<u64>,
    /// Follow the annotations as JAX's own propagation does: values resharded away from
    /// what an annotation implies only where annotations conflict, never to save a
    /// collective (`Options::follow_annotations`).
    #[arg(long)]
    follow_annotations: bool,
    /// Decompose each all-gather feeding a matmul, and each matmul feeding a
    /// reduce-scatter, into ring steps whose permutes move while the products run
    /// (collective matmul): `auto` (the flag alone) where the cost model predicts the
    /// program faster so, `always` wherever it can, `off` (the default).
    #[arg(long, default_value = "off", num_args = 0..=1, default_missing_value = "auto")]
    collective_matmul: shardc::compiler::passes::decompose::CollectiveMatmul,
    /// Fuse all-reduces into buckets of at most this many bytes (default 26214400 =
    /// 25 MiB, as DDP buckets and XLA combines a step's all-reduces; 0: each all-reduce
    /// on its own).
    #[arg(long)]
    bucket_bytes: Option<usize>,
}

/// `--pad` and `--no-pad` as [`shardc_cli::run::read_program`] takes them.
fn pad_choice(pad: bool, no_pad: bool) -> Option<bool> {
    match (pad, no_pad) {
        (true, _) => Some(true),
        (_, true) => Some(false),
        _ => None,
    }
}

impl PlanArgs {
    /// The compile options these flags, `--pad`, `--compress` and the cost flags ask for.
    fn options(
        &self,
        pad: bool,
        compress: Vec<(String, shardc::ir::compress::Compression)>,
        cost: &CostArgs,
    ) -> Result<Options, String> {
        Ok(Options {
            bucket_bytes: shardc_cli::peer::buckets(self.bucket_bytes),
            pad_uneven: pad,
            cost: cost.model()?,
            compress,
            partition_loops: !self.loops_whole,
            unroll_loops: self.unroll_loops,
            memory_per_device: self.memory_per_device,
            follow_annotations: self.follow_annotations,
            collective_matmul: self.collective_matmul,
            ..Options::default()
        })
    }
}

/// Which machine the plan is optimised for.
#[derive(clap::Args)]
struct CostArgs {
    /// A cost profile `shardc calibrate` wrote (also `SHARDC_COST_PROFILE`); without one,
    /// the cpu backend's built-in figures for this host's cores.
    #[arg(long)]
    cost_profile: Option<PathBuf>,
    /// Optimise for a GPU cluster's figures instead (100 TFLOP/s, 100 GB/s links).
    #[arg(long, conflicts_with = "cost_profile")]
    gpu_cluster: bool,
    /// The nodes the devices are on and their links (JSON: `nodes`, `devices_per_node`,
    /// `intra` and `inter` links of `bandwidth` B/s and `latency` s; `docs/topology.md`):
    /// collectives are charged by the links they cross and all-reduces across nodes are
    /// routed hierarchically where that is faster.
    #[arg(long)]
    topology: Option<PathBuf>,
}

impl CostArgs {
    fn model(&self) -> Result<CostModel, String> {
        let model = if self.gpu_cluster {
            CostModel::gpu_cluster()
        } else {
            match &self.cost_profile {
                Some(p) => CostModel::load(p)?,
                None => CostModel::from_env()?.unwrap_or_else(CostModel::host),
            }
        };
        match &self.topology {
            Some(p) => Ok(model.with_topology(shardc::ir::Topology::load(p)?)),
            None => Ok(model),
        }
    }
}

#[derive(Subcommand)]
enum Bench {
    /// Milliseconds per compile stage and e-graph size for stacks of N transformer blocks.
    Compile {
        #[arg(long, value_delimiter = ',', default_values_t = vec![4, 16, 64, 256])]
        blocks: Vec<usize>,
    },
    /// The demo model's training step on 1, 2, 4 and 8 cpu devices, with the time of every
    /// compile stage (one JSON object; `scripts/bench-step.sh` runs it beside JAX).
    Step(StepArgs),
    /// The JAX/XLA peer benchmark's programs (`export_cases.py` output) compiled and
    /// stepped on the cpu backend: time to first step and median step time per program,
    /// bytes sent per device (one JSON object; `scripts/bench-peer.sh` runs it beside XLA).
    Peer {
        /// The folder of `NAME.mlir` programs.
        #[arg(long, default_value = "tests/fixtures/peer")]
        dir: PathBuf,
        /// Cases to run (all of the folder's by default).
        #[arg(long, value_delimiter = ',')]
        cases: Vec<String>,
        /// Timed steps per case, after one untimed.
        #[arg(long, default_value_t = 10)]
        steps: usize,
        #[arg(long, default_value = "native")]
        engine: shardc::Engine,
        #[command(flatten)]
        cost: CostArgs,
        /// Also time every kernel of one more step, by kernel.
        #[arg(long)]
        profile: bool,
        /// Fuse all-reduces into buckets of at most this many bytes (as `compile`: 25 MiB
        /// by default, 0: none).
        #[arg(long)]
        bucket_bytes: Option<usize>,
        /// Also time every step with the ring collectives over channels, alternating with
        /// the shared-memory ones (`ring_collectives_step_ms`).
        #[arg(long)]
        compare_collectives: bool,
        /// Write each case's last timed step's trace (Chrome's JSON) into this folder, as
        /// `NAME.trace.json`.
        #[arg(long)]
        trace: Option<PathBuf>,
        /// Issue each all-gather of a parameter this many gathers early (FSDP's prefetch;
        /// `Options::prefetch`).
        #[arg(long, default_value_t = 0)]
        prefetch: usize,
        /// Decompose all-gathers feeding matmuls and matmuls feeding reduce-scatters into
        /// ring steps (`auto`: where predicted faster; `always`; `off`, the default).
        #[arg(long, default_value = "off", num_args = 0..=1, default_missing_value = "auto")]
        collective_matmul: shardc::compiler::passes::decompose::CollectiveMatmul,
    },
    /// A program's chosen plan beside the best plans of other machines' figures, each
    /// run on the cpu backend: predicted (one formula, the chosen model) vs measured.
    Plans {
        /// Programs (`.mlir`, as JAX prints them), or `demo` / `demo-fsdp-tp` (the demo's
        /// training step under DP x TP / FSDP x TP on data=2 x model=4).
        files: Vec<PathBuf>,
        /// Timed steps per plan, after one untimed.
        #[arg(long, default_value_t = 5)]
        steps: usize,
        #[arg(long, default_value = "native")]
        engine: shardc::Engine,
        #[command(flatten)]
        cost: CostArgs,
        /// Measure the host first (`shardc calibrate --mesh MESH`, as `data=8`) and
        /// optimise and predict with what was measured, in this invocation: on a shared
        /// host, the figures of the moment the plans run in. `each`: measure with each
        /// program's own mesh (once per distinct mesh) and use that for the program.
        #[arg(long, value_delimiter = ',', conflicts_with_all = ["cost_profile", "gpu_cluster"])]
        calibrate: Option<Vec<String>>,
        /// Write each distinct plan's explanation to `DIR/PROGRAM.PLAN.txt`, to read how
        /// the plans differ.
        #[arg(long, value_name = "DIR")]
        explain: Option<PathBuf>,
    },
    /// A gradient-sized all-reduce over emulated nodes (links across them `--slowdown`
    /// times slower than the host's): the flat ring beside the hierarchical algorithm the
    /// compiler routes it as, each predicted and measured, in one JSON object.
    Topology {
        #[arg(long, default_value_t = 2)]
        nodes: usize,
        #[arg(long, default_value_t = 4)]
        devices_per_node: usize,
        /// MiB all-reduced.
        #[arg(long, default_value_t = 32)]
        mib: usize,
        #[arg(long, default_value_t = 16.0)]
        slowdown: f64,
        /// Timed runs of each algorithm (alternating), after one untimed.
        #[arg(long, default_value_t = 3)]
        runs: usize,
        #[arg(long, default_value = "native")]
        engine: shardc::Engine,
    },
    /// The MLIR CPU kernels, single-threaded: f32 matmul GFLOP/s next to the gemm crate
    /// and the core's peak, a fused elementwise chain's GB/s next to memcpy, JIT compile
    /// times. One JSON object.
    Kernels {
        /// Square matmul sizes (n for n x n x n).
        #[arg(long, value_delimiter = ',', default_values_t = vec![512, 1024])]
        sizes: Vec<usize>,
        /// Matmul shapes `M,N,K` (`[m, k] x [k, n]`), each run in every layout of
        /// `--layouts`: `--shapes 128,512,512 --shapes 512,512,128`.
        #[arg(long, value_parser = parse_shape)]
        shapes: Vec<(usize, usize, usize)>,
        /// The operand layouts `--shapes` run in.
        #[arg(long, value_delimiter = ',', default_values_t = vec![kernels::Layout::Nn, kernels::Layout::Nt, kernels::Layout::Tn], value_enum)]
        layouts: Vec<kernels::Layout>,
        /// Size of each of the chain's four f32 tensors (three inputs, one output), MiB.
        #[arg(long, default_value_t = 64)]
        chain_mb: usize,
    },
}

#[derive(clap::Args)]
struct StepArgs {
    /// Device counts (meshes: 1 = 1x1, even n = data 2 x model n/2, odd n = n x 1).
    #[arg(long, value_delimiter = ',', default_values_t = vec![1, 2, 4, 8])]
    devices: Vec<usize>,
    /// Timed steps per device count.
    #[arg(long, default_value_t = 5)]
    steps: usize,
    /// Untimed steps first.
    #[arg(long, default_value_t = 1)]
    warmup: usize,
    /// How each device computes.
    #[arg(long, default_value = "interpreted")]
    engine: shardc::Engine,
    /// A 1-layer model of width 16 (for tests) instead of the demo's.
    #[arg(long)]
    tiny: bool,
    #[arg(long)]
    layers: Option<usize>,
    #[arg(long)]
    d_model: Option<usize>,
    #[arg(long)]
    heads: Option<usize>,
    #[arg(long)]
    d_ff: Option<usize>,
    #[arg(long)]
    seq: Option<usize>,
    #[arg(long)]
    batch: Option<usize>,
    /// Also time every op of one more step (interpreter), by op.
    #[arg(long)]
    profile: bool,
    /// Write the initial parameters and first batch here for `bench/jax_gpt.py --init`.
    #[arg(long)]
    dump_init: Option<PathBuf>,
}

impl StepArgs {
    fn bench(&self) -> shardc_cli::bench::StepBench {
        let mut model = if self.tiny {
            shardc_train::presets::tiny_config()
        } else {
            shardc_train::presets::demo_config()
        };
        let b = &mut model.block;
        model.layers = self.layers.unwrap_or(model.layers);
        b.d_model = self.d_model.unwrap_or(b.d_model);
        b.heads = self.heads.unwrap_or(b.heads);
        b.d_ff = self.d_ff.unwrap_or(b.d_ff);
        b.seq = self.seq.unwrap_or(b.seq);
        b.batch = self.batch.unwrap_or(b.batch);
        shardc_cli::bench::StepBench {
            model,
            devices: self.devices.clone(),
            steps: self.steps,
            warmup: self.warmup,
            engine: self.engine,
            profile: self.profile,
            dump_init: self.dump_init.clone(),
        }
    }
}

/// `AXIS=KIND` of `--compress`.
fn parse_compress(s: &str) -> Result<(String, shardc::ir::compress::Compression), String> {
    let (axis, kind) = s.split_once('=').ok_or_else(|| {
        format!("`{s}`: write AXIS=KIND, e.g. `data=int8` (KIND: bf16, int8[:B], powersgd:R)")
    })?;
    Ok((
        axis.to_string(),
        shardc::ir::compress::Compression::parse(kind)?,
    ))
}

/// Writes a result to standard output; a reader that stopped reading (`shardc ... | head`)
/// ends the command quietly, as Unix tools do, instead of a panic.
fn emit(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let written = writeln!(out, "{text}").and_then(|_| out.flush());
    if let Err(e) = written {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: cannot write the output: {e}");
        std::process::exit(1);
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Command::Launch { .. } = cli.command {
        return launch(cli.command);
    }
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `shardc launch`: exits with the job's status (0 when an attempt finished).
fn launch(command: Command) -> ExitCode {
    let Command::Launch {
        ranks,
        max_restarts,
        timeout,
        stall_timeout,
        hostfile,
        srun,
        progress_dir,
        command,
    } = command
    else {
        return ExitCode::FAILURE;
    };
    let seconds = |s: f64, flag: &str| {
        if s.is_finite() && s > 0.0 {
            Ok(std::time::Duration::from_secs_f64(s))
        } else {
            Err(format!("{flag} {s}: give a positive number of seconds"))
        }
    };
    let job = (|| {
        let collective_timeout = seconds(timeout, "--timeout")?;
        let stall_timeout = seconds(stall_timeout.unwrap_or(2.0 * timeout), "--stall-timeout")?;
        Ok::<_, String>(shardc::runtime::launch::Launch {
            ranks,
            command,
            max_restarts,
            collective_timeout,
            stall_timeout,
            via: if srun {
                shardc::runtime::launch::Via::Srun
            } else {
                shardc::runtime::launch::Via::Mpirun
            },
            launcher_args: hostfile
                .map(|h| vec!["--hostfile".to_string(), h.display().to_string()])
                .unwrap_or_default(),
            progress_dir,
        })
    })();
    let report = job.and_then(|job| job.run(&mut std::io::stderr()).map_err(|e| e.to_string()));
    match report {
        Ok(r) if r.finished() => ExitCode::SUCCESS,
        Ok(r) => {
            let status = r.attempts.last().and_then(|a| a.status).unwrap_or(1);
            ExitCode::from(u8::try_from(status).ok().filter(|&s| s != 0).unwrap_or(1))
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<(), Box<dyn std::error::Error>> {
    match cli.command {
        Command::Launch { .. } => Err("shardc launch runs from main".into()),
        Command::Run {
            file,
            inputs,
            backend,
            engine,
            trace,
            check_reference,
            out,
            steps,
            pad,
            no_pad,
            compress,
            plan,
            cost,
        } => {
            let options = plan.options(pad, compress, &cost)?;
            // Each rank compiles the program: they must reach the same one.
            let options = match backend {
                shardc_cli::run::Backend::Mpi => options.deterministic(),
                _ => options,
            };
            let outcome = shardc_cli::run::run(&shardc_cli::run::Run {
                steps,
                file,
                inputs,
                backend,
                engine,
                trace,
                check_reference,
                out,
                options,
                pad: pad_choice(pad, no_pad),
            })?;
            if outcome.prints {
                emit(outcome.text.trim_end());
            }
            if outcome.passed {
                Ok(())
            } else {
                Err("the outputs do not match (see above)".into())
            }
        }
        Command::Compile {
            file,
            explain,
            decisions,
            json,
            dump_dir,
            pad,
            no_pad,
            compress,
            plan,
            cost,
        } => {
            let text = shardc_cli::run::read_text(&file)?;
            let (m, padded, notes) = shardc_cli::run::read_program(&text, pad_choice(pad, no_pad))
                .map_err(|e| format!("{}:{e}", file.display()))?;
            for note in notes {
                eprintln!("{}: {note}", file.display());
            }
            let c = compile(&m, &plan.options(padded, compress, &cost)?)?;
            if let Some(dir) = dump_dir {
                std::fs::create_dir_all(&dir)?;
                for (i, (stage, name)) in [
                    (Stage::Input, "input"),
                    (Stage::Inlined, "inlined"),
                    (Stage::Propagated, "propagated"),
                    (Stage::Partitioned, "partitioned"),
                ]
                .iter()
                .enumerate()
                {
                    std::fs::write(dir.join(format!("{i:02}-{name}.mlir")), c.as_text(*stage))?;
                }
                std::fs::write(dir.join("04-explain.txt"), c.explain().to_string())?;
            }
            if decisions && json {
                emit(&c.decisions().to_json());
            } else if decisions {
                emit(&c.decisions().to_string());
            } else if json {
                emit(&c.explain().to_json().to_string());
            } else if explain {
                emit(&c.explain().to_string());
            } else {
                emit(&c.as_text(Stage::Partitioned));
            }
            Ok(())
        }
        Command::Calibrate {
            mesh,
            out,
            engine,
            repeats,
        } => {
            let c = shardc_cli::calibrate::Calibrate {
                axes: mesh_axes("--mesh", &mesh)?,
                engine,
                repeats: repeats.max(1),
            };
            let (model, raw) = shardc_cli::calibrate::calibrate(&c)?;
            eprintln!("{raw:#}");
            match out {
                Some(path) => {
                    std::fs::write(&path, model.to_json())
                        .map_err(|e| format!("{}: {e}", path.display()))?;
                    eprintln!("wrote {}", path.display());
                }
                None => emit(&model.to_json()),
            }
            Ok(())
        }
        Command::Plan {
            model,
            devices,
            memory_per_device,
            top,
            measure,
            steps,
            engine,
            cost,
        } => {
            let a = shardc_cli::plan::PlanArgs {
                model,
                devices,
                cost: cost.model()?,
                memory_per_device,
                top,
                measure,
                steps,
                engine,
            };
            emit(&format!("{:#}", shardc_cli::plan::run(&a)?));
            Ok(())
        }
        Command::Bench {
            which: Bench::Compile { blocks },
        } => bench_compile(&blocks),
        Command::Bench {
            which:
                Bench::Topology {
                    nodes,
                    devices_per_node,
                    mib,
                    slowdown,
                    runs,
                    engine,
                },
        } => {
            let b = shardc_cli::bench_topology::TopologyBench {
                nodes,
                devices_per_node,
                mib,
                slowdown,
                runs,
                engine,
            };
            emit(&format!("{:#}", shardc_cli::bench_topology::bench(&b)?));
            Ok(())
        }
        Command::Bench {
            which: Bench::Step(args),
        } => {
            emit(&format!("{:#}", shardc_cli::bench::step(&args.bench())?));
            Ok(())
        }
        Command::Bench {
            which:
                Bench::Peer {
                    dir,
                    cases,
                    steps,
                    engine,
                    cost,
                    profile,
                    bucket_bytes,
                    compare_collectives,
                    trace,
                    prefetch,
                    collective_matmul,
                },
        } => {
            let b = shardc_cli::peer::PeerBench {
                compare_collectives,
                dir,
                cases,
                steps,
                engine,
                cost: Some(cost.model()?),
                profile,
                bucket_bytes,
                trace,
                prefetch,
                collective_matmul,
            };
            emit(&format!("{:#}", shardc_cli::peer::peer(&b)?));
            Ok(())
        }
        Command::Bench {
            which:
                Bench::Plans {
                    files,
                    steps,
                    engine,
                    cost,
                    calibrate,
                    explain,
                },
        } => {
            let mut calibration = None;
            let each = calibrate.as_deref() == Some(&["each".to_string()][..]);
            let model = match calibrate.filter(|_| !each) {
                Some(mesh) => {
                    let c = shardc_cli::calibrate::Calibrate {
                        axes: mesh_axes("--calibrate", &mesh)?,
                        engine,
                        repeats: 5,
                    };
                    let (model, raw) = shardc_cli::calibrate::calibrate(&c)?;
                    calibration = Some(raw);
                    match &cost.topology {
                        Some(p) => model.with_topology(shardc::ir::Topology::load(p)?),
                        None => model,
                    }
                }
                None => cost.model()?,
            };
            let b = shardc_cli::plans::PlansBench {
                files,
                steps,
                engine,
                cost: model,
                calibrate_each_mesh: each,
                explain,
            };
            let mut out = shardc_cli::plans::plans(&b)?;
            if let (Some(raw), Some(o)) = (calibration, out.as_object_mut()) {
                o.insert("calibration".into(), raw);
            }
            emit(&format!("{out:#}"));
            Ok(())
        }
        Command::Bench {
            which:
                Bench::Kernels {
                    sizes,
                    shapes,
                    layouts,
                    chain_mb,
                },
        } => kernels::bench(&sizes, &shapes, &layouts, chain_mb),
    }
}

/// `M,N,K` as three sizes.
fn parse_shape(s: &str) -> Result<(usize, usize, usize), String> {
    let v: Vec<usize> = s
        .split(',')
        .map(|x| x.trim().parse::<usize>().map_err(|e| format!("{x:?}: {e}")))
        .collect::<Result<_, _>>()?;
    match v[..] {
        [m, n, k] if m > 0 && n > 0 && k > 0 => Ok((m, n, k)),
        _ => Err(format!(
            "a matmul shape is three positive sizes M,N,K; got {s:?}"
        )),
    }
}

/// Times each stage on stacks of transformer blocks; prints one JSON object per size.
fn bench_compile(blocks: &[usize]) -> Result<(), Box<dyn std::error::Error>> {
    let mesh = Mesh::new("mesh", &[(DATA, 2), (MODEL, 4)])?;
    let dims = TransformerDims {
        batch: 8,
        seq: 128,
        d_model: 512,
        heads: 8,
        d_ff: 2048,
    };
    for &n in blocks {
        let t0 = Instant::now();
        let lowered = transformer_stack(n, &dims, &mesh)?;
        let trace_ms = t0.elapsed().as_secs_f64() * 1e3;
        let m = lowered.module();
        let t = Instant::now();
        let global = shardc::compiler::passes::constrain::constrain(
            &shardc::compiler::passes::inline::inline(m)?,
        )?;
        let inline_ms = t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now();
        let p = shardc::compiler::passes::propagate::propagate(&global, &Options::default())?;
        let propagate_ms = t.elapsed().as_secs_f64() * 1e3;
        let f = global.entry().ok_or("no entry function")?;
        let t = Instant::now();
        let x = shardc::compiler::passes::extract::extract(&p, f)?;
        let extract_ms = t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now();
        let part = shardc::compiler::passes::partition::partition(&global, &p, &x)?;
        let partition_ms = t.elapsed().as_secs_f64() * 1e3;
        let collectives = part.module.entry().map_or(0, |g| {
            g.ops.iter().filter(|o| o.kind.is_collective()).count()
        });
        let json = serde_json::json!({
            "bench": "compile",
            "blocks": n,
            "ops": f.body().ops.len(),
            "ms": {
                "trace": round(trace_ms),
                "inline": round(inline_ms),
                "propagate": round(propagate_ms),
                "extract": round(extract_ms),
                "partition": round(partition_ms),
                "propagate_extract_partition": round(propagate_ms + extract_ms + partition_ms),
            },
            "egraph": { "classes": p.report.classes, "nodes": p.report.nodes, "visits": p.report.visits, "stop": format!("{:?}", p.report.stop) },
            "collectives": collectives,
        });
        emit(&json.to_string());
    }
    Ok(())
}

fn round(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Mesh axes written `NAME=SIZE` (`data=2`, `model=4`), as `flag` took them.
fn mesh_axes(flag: &str, mesh: &[String]) -> Result<Vec<(String, usize)>, String> {
    mesh.iter()
        .map(|a| {
            let (name, size) = a.split_once('=').ok_or_else(|| {
                format!("{flag} {a:?}: write each axis as NAME=SIZE, e.g. data=2,model=4")
            })?;
            let size: usize = size.parse().ok().filter(|&n| n > 0).ok_or_else(|| {
                format!("{flag} {a:?}: the size {size:?} is not a positive whole number")
            })?;
            Ok((name.to_string(), size))
        })
        .collect()
}
