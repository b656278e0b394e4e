//! FSDP times tensor parallelism (torchtitan's 2-D parallelism, HSDP's inner level): the
//! model's tensor-parallel specs over `model`, and every parameter, its gradient and its
//! optimizer state further split over `data` (ZeRO-3) on a dimension the tensor-parallel
//! spec leaves whole; the batch over `data`. Each device holds `1/(data x model)` of a
//! parameter split both ways; a step gathers each parameter over `data` for its use (and
//! again for the backward pass) and reduce-scatters its gradient over `data`, while the
//! activations' reductions stay on `model`.

use super::{Layouts, Parallelism, axis, batch_over, one_per_parameter};
use shardc::{DimSpec, Error, Mesh, Options, PartitionSpec, TensorType};

/// Parameters with `specs` (over `model`) and split over `data` too; the batch on `data`.
#[derive(Clone, Debug, PartialEq)]
pub struct FsdpTp {
    /// The axis the batch and the parameters' free dimension split over.
    pub data: &'static str,
    /// The parameters' tensor-parallel specs.
    pub specs: Vec<PartitionSpec>,
}

impl FsdpTp {
    /// Over [`axis::DATA`].
    pub fn new(specs: Vec<PartitionSpec>) -> FsdpTp {
        FsdpTp {
            data: axis::DATA,
            specs,
        }
    }
}

/// `spec` with `data` added on the first dimension it leaves whole that `data` divides;
/// else on the first dimension whose size the product of its axes and `data` divides (as
/// a minor axis); else `spec` unchanged (the parameter stays replicated over `data`).
pub fn add_data_axis(
    spec: &PartitionSpec,
    ty: &TensorType,
    data: &str,
    mesh: &Mesh,
) -> PartitionSpec {
    let n = mesh.axis_size(data).unwrap_or(1);
    // Unconstrained dimensions are left to propagation: a spec with one stays as written.
    let Some(mut dims) = (0..ty.rank())
        .map(|d| match spec.0.get(d) {
            Some(DimSpec::Axes(a)) => Some(a.clone()),
            Some(DimSpec::Unconstrained) => None,
            None => Some(Vec::new()),
        })
        .collect::<Option<Vec<Vec<String>>>>()
    else {
        return spec.clone();
    };
    if n <= 1 || dims.iter().flatten().any(|a| a == data) {
        return spec.clone();
    }
    let shards = |axes: &[String]| -> usize {
        axes.iter()
            .map(|a| mesh.axis_size(a).unwrap_or(1))
            .product()
    };
    let whole = (0..ty.rank()).find(|&d| dims[d].is_empty() && ty.shape[d].is_multiple_of(n));
    let minor = || (0..ty.rank()).find(|&d| ty.shape[d].is_multiple_of(shards(&dims[d]) * n));
    match whole.or_else(minor) {
        Some(d) => {
            dims[d].push(data.to_string());
            PartitionSpec::new(dims.into_iter().map(DimSpec::Axes).collect())
        }
        None => spec.clone(),
    }
}

impl Parallelism for FsdpTp {
    fn name(&self) -> String {
        "fsdp_tp".into()
    }

    fn layouts(&self, params: &[TensorType], mesh: &Mesh) -> Result<Layouts, Error> {
        let tp = one_per_parameter("fsdp_tp", &self.specs, params)?;
        let both: Vec<PartitionSpec> = tp
            .params
            .iter()
            .zip(params)
            .map(|(s, t)| add_data_axis(s, t, self.data, mesh))
            .collect();
        Ok(Layouts::same(both))
    }

    fn batch_spec(&self, _: &TensorType, _: &Mesh) -> Result<PartitionSpec, Error> {
        Ok(batch_over(self.data))
    }

    fn options(&self, options: &mut Options) {
        options.regather_gap = Some(4);
        // Each gather issued a layer early (FSDP's prefetch): 4-7% off the demo's step
        // (`docs/training.md`).
        options.prefetch = 1;
    }
}
