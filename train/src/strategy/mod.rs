//! Parallelism strategies as extensions: each strategy is a type implementing
//! [`Parallelism`] in a file of its own — what it lays out where (parameters, gradients,
//! optimizer state, batch), the compile options it implies, and its name — and a
//! [`Strategy`] is a cheap handle to one. A strategy of one's own is a new type
//! implementing the trait, outside this crate as well (`examples/custom_strategy.rs`).
//!
//! | strategy | batch | parameters | gradients | optimizer state |
//! | --- | --- | --- | --- | --- |
//! | [`Ddp`] | `data` | replicated | replicated (all-reduced, bucketed; compressed if asked) | replicated |
//! | [`Zero1`] | `data` | replicated | replicated (all-reduced) | split over `data` |
//! | [`Zero2`] | `data` | replicated | split over `data` (reduce-scattered) | split over `data` |
//! | [`Zero3`] (FSDP) | `data` | split over `data` (gathered for use) | split over `data` | split over `data` |
//! | [`Megatron`] | replicated | the model's tensor-parallel specs | as parameters | as parameters |
//! | [`DpTp`] | `data` | the model's specs over `model` | as parameters | as parameters |
//! | [`Expert`] (MoE) | `data` | experts split over `data` (the given specs) | as parameters | as parameters |
//! | [`Context`] | `data` x sequence over `context` | the given specs | as parameters | as parameters |
//! | pipeline (`crate::pipelining`) | `data` (if the mesh has it) | stacked `[S, ...]`, split over `pipe` | as parameters | as parameters |
//!
//! The axis names are each strategy's configuration (its fields), defaulting to the
//! names in [`axis`]. "Split over `data`" puts the axis on the first dimension of a
//! parameter it divides (replicated if none): [`split_over`].

mod context;
mod ddp;
mod dp_tp;
mod expert;
mod fsdp_tp;
mod megatron;
mod zero1;
mod zero2;
mod zero3;

pub use context::Context;
pub use ddp::Ddp;
pub use dp_tp::DpTp;
pub use expert::Expert;
pub use fsdp_tp::FsdpTp;
pub use megatron::Megatron;
pub use zero1::Zero1;
pub use zero2::Zero2;
pub use zero3::Zero3;

use shardc::{DimSpec, Error, Mesh, Options, P, PartitionSpec, TensorType};
use std::fmt;
use std::sync::Arc;

/// The mesh axis names the built-in strategies use unless configured otherwise (the
/// names JAX, MaxText and torchtitan users write).
pub mod axis {
    /// The data-parallel axis: the batch, and ZeRO's shards.
    pub const DATA: &str = "data";
    /// The tensor-parallel axis of the model presets' specs.
    pub const MODEL: &str = "model";
    /// The sequence axis of context parallelism.
    pub const CONTEXT: &str = "context";
    /// The pipeline's stage axis.
    pub const PIPE: &str = "pipe";
}

/// Where a strategy puts each parameter, its gradient and its optimizer state (one spec
/// per parameter each; every optimizer slot of a parameter shares the state spec).
#[derive(Clone, Debug, PartialEq)]
pub struct Layouts {
    /// Each parameter's layout.
    pub params: Vec<PartitionSpec>,
    /// Each gradient's layout.
    pub grads: Vec<PartitionSpec>,
    /// Each parameter's optimizer-state layout.
    pub state: Vec<PartitionSpec>,
}

impl Layouts {
    /// Parameters, gradients and state all laid out as `specs`.
    pub fn same(specs: Vec<PartitionSpec>) -> Layouts {
        Layouts {
            params: specs.clone(),
            grads: specs.clone(),
            state: specs,
        }
    }
}

/// A parallelism strategy: annotations on a training step's parameters, gradients,
/// optimizer state and batch, and the compile options it implies. The collectives follow
/// from propagation.
pub trait Parallelism: fmt::Debug + Send + Sync {
    /// The strategy's name, as program names, checkpoints and benchmarks show it.
    fn name(&self) -> String;

    /// The layouts of the parameters (of types `params`) on `mesh`.
    fn layouts(&self, params: &[TensorType], mesh: &Mesh) -> Result<Layouts, Error>;

    /// The layout of one batch tensor.
    fn batch_spec(&self, batch: &TensorType, mesh: &Mesh) -> Result<PartitionSpec, Error>;

    /// Changes to the compile options the strategy implies (none by default).
    fn options(&self, options: &mut Options) {
        let _ = options;
    }
}

/// A handle to a strategy: cheap to clone, printed and named as the strategy is.
#[derive(Clone, Debug)]
pub struct Strategy(Arc<dyn Parallelism>);

impl Strategy {
    /// A handle to a strategy of one's own.
    pub fn new(strategy: impl Parallelism + 'static) -> Strategy {
        Strategy(Arc::new(strategy))
    }

    /// [`Ddp`] over [`axis::DATA`].
    pub fn ddp() -> Strategy {
        Strategy::new(Ddp::default())
    }

    /// [`Ddp`] over [`axis::DATA`] with its gradient buckets compressed as `compression`
    /// says (bf16, int8 blocks with error feedback, or PowerSGD).
    pub fn ddp_compressed(compression: shardc::ir::compress::Compression) -> Strategy {
        Strategy::new(Ddp {
            compression: Some(compression),
            ..Ddp::default()
        })
    }

    /// [`Zero1`] over [`axis::DATA`].
    pub fn zero1() -> Strategy {
        Strategy::new(Zero1::default())
    }

    /// [`Zero2`] over [`axis::DATA`].
    pub fn zero2() -> Strategy {
        Strategy::new(Zero2::default())
    }

    /// [`Zero3`] (FSDP) over [`axis::DATA`].
    pub fn zero3() -> Strategy {
        Strategy::new(Zero3::default())
    }

    /// [`Megatron`] tensor parallelism with these parameter specs.
    pub fn megatron(specs: Vec<PartitionSpec>) -> Strategy {
        Strategy::new(Megatron { specs })
    }

    /// [`DpTp`]: the batch over [`axis::DATA`], parameters with these specs.
    pub fn dp_tp(specs: Vec<PartitionSpec>) -> Strategy {
        Strategy::new(DpTp::new(specs))
    }

    /// [`Expert`] parallelism with these parameter specs.
    /// FSDP over `data` times tensor parallelism with `specs` over `model` ([`FsdpTp`]).
    pub fn fsdp_tp(specs: Vec<PartitionSpec>) -> Strategy {
        Strategy::new(FsdpTp::new(specs))
    }

    /// Expert parallelism: the experts' parameters by `specs` over `data`, tokens to them by all-to-all ([`Expert`]).
    pub fn expert(specs: Vec<PartitionSpec>) -> Strategy {
        Strategy::new(Expert::new(specs))
    }

    /// [`Context`] parallelism with these parameter specs.
    pub fn context(specs: Vec<PartitionSpec>) -> Strategy {
        Strategy::new(Context::new(specs))
    }
}

impl std::ops::Deref for Strategy {
    type Target = dyn Parallelism;
    fn deref(&self) -> &(dyn Parallelism + 'static) {
        self.0.as_ref()
    }
}

/// `axis` on the first dimension of `ty` it divides, else replicated (ZeRO's shards).
pub fn split_over(ty: &TensorType, axis: &str, mesh: &Mesh) -> PartitionSpec {
    let n = mesh.axis_size(axis).unwrap_or(1);
    match ty.shape.iter().position(|&d| d % n == 0 && d >= n) {
        Some(d) => {
            let mut dims = vec![DimSpec::replicated(); d];
            dims.push(DimSpec::axes(&[axis]));
            PartitionSpec::new(dims)
        }
        None => P![],
    }
}

/// The given specs, checked to be one per parameter.
pub(crate) fn one_per_parameter(
    strategy: &str,
    specs: &[PartitionSpec],
    params: &[TensorType],
) -> Result<Layouts, Error> {
    if specs.len() != params.len() {
        return Err(Error::Usage(format!(
            "{strategy} strategy has {} parameter specs for {} parameters: give one per parameter (P![] for a replicated one)",
            specs.len(),
            params.len()
        )));
    }
    Ok(Layouts::same(specs.to_vec()))
}

/// ZeRO's layouts at `stage` (1, 2 or 3): the optimizer state split over `data` (on the
/// first dimension it divides, [`split_over`]) from stage 1, the gradients from stage 2,
/// the parameters at stage 3; the rest replicated.
pub(crate) fn zero_layouts(stage: u8, data: &str, params: &[TensorType], mesh: &Mesh) -> Layouts {
    let shards: Vec<PartitionSpec> = params.iter().map(|t| split_over(t, data, mesh)).collect();
    let whole = vec![P![]; params.len()];
    Layouts {
        params: if stage >= 3 {
            shards.clone()
        } else {
            whole.clone()
        },
        grads: if stage >= 2 { shards.clone() } else { whole },
        state: shards,
    }
}

/// Every batch tensor split over `data` on its first dimension.
pub(crate) fn batch_over(data: &str) -> PartitionSpec {
    PartitionSpec::new(vec![DimSpec::axes(&[data])])
}
