//! Partitioning: the extracted physical program becomes one per-device (SPMD) program
//! with local shapes and explicit collectives.
//!
//! Every chosen class is emitted once, in program order: an argument (the layout it
//! arrives in), an op — by the first of the `PATTERNS` that applies to it (a shard_map
//! body copied in, an identity, a splat made at its local shape, an op computed whole and
//! sliced, a rotation by whole blocks, a gather of the rows held, the op on local pieces
//! with the attributes that name global sizes localized; none applying is an error naming
//! the op and its layouts) — or a resharding plan whose steps become
//! `stablehlo.all_reduce`, `reduce_scatter`, `all_gather`, `all_to_all` (with the replica
//! groups of their mesh axes) and the local `shardc.shard_slice`. Ops whose elements
//! depend on their position in the whole tensor (constants, iota, random;
//! `localize::computed_whole`) are computed at their global shape and sliced.
//!
//! With padding (`Options::pad_uneven`), a dimension its axes do not divide has pieces of
//! `ceil(n / k)`: a step that cuts a whole dimension pads it first (`stablehlo.pad`), one
//! that gathers it whole trims the padding after (`stablehlo.slice`), as
//! [`Step::pieces`](crate::sharding::reshard::Step::pieces) says; an op reducing over a padded
//! dimension reads its operands masked (`mask.rs`).

use crate::error::CompileError;
use crate::local::localize::{combining_op, computed_whole, is_identity_locally, local_kind};
use crate::local::mask::Masker;
use crate::passes::extract::{Extraction, program_order};
use crate::passes::propagate::Propagated;
use crate::sharding::egraph::PNode;
use crate::sharding::layout::{FactorAxes, Layout, project_with};
use crate::sharding::reshard::{Plan, Step, plan_for};
use egg::Id;
use shardc_ir::rules::TensorRef;
use shardc_ir::{
    AxisRef, Function, FunctionBuilder, Literal, Mesh, Module, Op, OpId, OpKind, ReplicaGroups,
    Scalar, TensorType, Uneven, ValueAttrs, ValueId,
};
use std::collections::HashMap;

/// The per-device program and how its inputs and outputs are laid out.
#[derive(Clone, Debug)]
pub struct Partitioned {
    /// One function, `main`, over local pieces; arguments and results carry the shardings
    /// they arrive and leave in.
    pub module: Module,
    /// The mesh it runs on.
    pub mesh: Mesh,
    /// The layout each argument arrives in.
    pub inputs: Vec<Layout>,
    /// The layout each result leaves in.
    pub outputs: Vec<Layout>,
    /// Whether pieces may be padded (dimensions their axes do not divide): `shard` pads
    /// the inputs and `unshard` strips the outputs accordingly.
    pub uneven: Uneven,
}

struct Emitter<'a> {
    f: &'a Function,
    p: &'a Propagated,
    x: &'a Extraction,
    b: FunctionBuilder,
    inputs: Vec<Layout>,
    emitted: HashMap<Id, ValueId>,
    ops: HashMap<(OpId, Vec<Id>, Vec<Layout>), Vec<ValueId>>,
    /// Classes being emitted (to report a cyclic choice instead of recursing forever).
    pending: std::collections::HashSet<Id>,
    masker: Masker,
    /// The global program's value names, for [`OF`].
    names: Vec<String>,
}

pub use shardc_ir::OF;

fn internal(what: String) -> CompileError {
    CompileError::internal("partitioner", what)
}

/// Partitions the module's entry function as extracted.
pub fn partition(
    global: &Module,
    p: &Propagated,
    x: &Extraction,
) -> Result<Partitioned, CompileError> {
    let f = global
        .entry()
        .ok_or_else(|| internal("no entry function".into()))?;
    let eg = &p.graph.egraph;
    // The layout each argument arrives in: the first chosen argument class, else its
    // annotation (or replicated) when the program never reads it.
    let mut inputs = Vec::new();
    for (i, &v) in f.args().iter().enumerate() {
        let chosen = p.graph.layouts_of(v).iter().find(|&&l| {
            p.graph
                .class(v, l)
                .is_some_and(|c| matches!(x.choice.get(&c), Some(PNode::Arg { .. })))
        });
        let layout = match chosen {
            Some(&l) => p.graph.layout(l).clone(),
            None => f.arg_attrs[i]
                .sharding
                .as_ref()
                .map(Layout::of_sharding)
                .unwrap_or_else(|| Layout::replicated(f.ty(v).rank())),
        };
        inputs.push(layout);
    }
    let local = |l: &Layout, v: ValueId| {
        l.local_type(&p.mesh, f.ty(v))
            .ok_or_else(|| internal(format!("layout {l} does not divide {}", f.ty(v))))
    };
    let arg_types: Vec<TensorType> = f
        .args()
        .iter()
        .zip(&inputs)
        .map(|(&v, l)| local(l, v))
        .collect::<Result<_, _>>()?;
    let mut e = Emitter {
        f,
        p,
        x,
        b: FunctionBuilder::new(&f.name, &arg_types),
        inputs: inputs.clone(),
        emitted: HashMap::new(),
        ops: HashMap::new(),
        pending: std::collections::HashSet::new(),
        masker: Masker::default(),
        names: f.value_names(),
    };
    for v in program_order(f) {
        for &l in p.graph.layouts_of(v) {
            if let Some(c) = p.graph.class(v, l)
                && x.choice.contains_key(&c)
            {
                e.emit(c)?;
            }
        }
    }
    let results: Vec<ValueId> = x
        .roots
        .iter()
        .map(|&r| e.emit(r))
        .collect::<Result<_, _>>()?;
    let outputs: Vec<Layout> = x
        .roots
        .iter()
        .map(|&r| p.graph.layout(eg[eg.find(r)].data.1).clone())
        .collect();
    // Loops whose bodies communicate (a shard_map's ring, a scan of layers gathered one
    // at a time) run as loops of the per-device program, unless asked to be unrolled
    // (`Options::unroll_loops`).
    let mut func =
        shardc_ir::unroll::unroll_communicating_loops(&e.b.finish(&results), p.unroll_loops)?;
    // Pieces have local types; the global layout each argument and result has is recorded
    // as an attribute, as XLA records `sharding` on the parameters of a partitioned module,
    // and for a padded piece the global type too (the pieces alone cannot say it).
    let sharding = |l: &Layout, global: &TensorType| {
        let mut attrs: Vec<(String, String)> = l
            .to_sharding(&p.mesh.name)
            .map(|s| {
                (
                    "shardc.global_sharding".to_string(),
                    format!("#sdy.sharding{s}"),
                )
            })
            .into_iter()
            .collect();
        if !l.divides(&p.mesh, global) {
            attrs.push(("shardc.global_type".to_string(), global.to_string()));
        }
        ValueAttrs {
            sharding: None,
            attrs,
        }
    };
    func.arg_attrs = inputs
        .iter()
        .zip(f.args())
        .map(|(l, &v)| sharding(l, f.ty(v)))
        .collect();
    func.result_attrs = outputs
        .iter()
        .zip(f.results())
        .map(|(l, &v)| sharding(l, f.ty(v)))
        .collect();
    let module = Module {
        name: global.name.clone(),
        attrs: vec![(
            "mhlo.num_partitions".to_string(),
            format!("{} : i32", p.mesh.num_devices()),
        )],
        meshes: vec![p.mesh.clone()],
        functions: vec![func],
    };
    Ok(Partitioned {
        module,
        mesh: p.mesh.clone(),
        inputs,
        outputs,
        uneven: p.uneven,
    })
}

impl<'a> Emitter<'a> {
    fn layout_of(&self, c: Id) -> Layout {
        let eg = &self.p.graph.egraph;
        self.p.graph.layout(eg[eg.find(c)].data.1).clone()
    }

    fn emit(&mut self, c: Id) -> Result<ValueId, CompileError> {
        let eg = &self.p.graph.egraph;
        let c = eg.find(c);
        if let Some(&v) = self.emitted.get(&c) {
            return Ok(v);
        }
        let node = self
            .x
            .choice
            .get(&c)
            .cloned()
            .ok_or_else(|| internal(format!("class {c} was not extracted")))?;
        let (value, _) = eg[c].data;
        let layout = self.layout_of(c);
        if !self.pending.insert(c) {
            return Err(internal(format!(
                "the extracted program obtains class {c} from itself"
            )));
        }
        let out = match node {
            PNode::Arg { index, .. } => {
                let arg = self.b.arg(index as usize);
                let from = self.inputs[index as usize].clone();
                let plans = plan_for(&from, &layout, &self.p.mesh, self.f.ty(value));
                let first = plans
                    .first()
                    .ok_or_else(|| internal(format!("no plan from {from} to {layout}")))?;
                self.emit_plan(first, &from, arg, value)?
            }
            PNode::Local {
                op,
                result,
                children,
                ..
            } => {
                let ins: Vec<ValueId> = children
                    .iter()
                    .map(|&ch| self.emit(ch))
                    .collect::<Result<_, _>>()?;
                let outs = self.emit_op(op, &children, &ins, result as usize, &layout)?;
                outs[result as usize]
            }
            PNode::Reshard { plan, child, .. } => {
                let x = self.emit(child[0])?;
                let from = self.layout_of(child[0]);
                let plan = self.p.graph.plan(plan).clone();
                self.emit_plan(&plan, &from, x, value)?
            }
        };
        self.pending.remove(&c);
        self.emitted.insert(c, out);
        Ok(out)
    }

    /// The layouts of all of an op's results, given its operands' layouts and one result's.
    fn result_layouts(
        &self,
        op: OpId,
        children: &[Id],
        result: usize,
        layout: &Layout,
    ) -> Result<Vec<Layout>, CompileError> {
        let o = self.f.op(op);
        if let Some((_, outs)) = crate::local::manual::fixed_layouts(o) {
            return Ok(outs);
        }
        if o.results.len() == 1 {
            return Ok(vec![layout.clone()]);
        }
        if o.kind == OpKind::While {
            // Each carried value keeps its layout through the loop (`loops.rs`).
            return self
                .p
                .loop_plan(op, children, result, layout)
                .map(|plan| plan.layouts.clone())
                .ok_or_else(|| internal(format!("loop {op} has no plan for its layouts")));
        }
        let rule = self.p.rules[op.index()]
            .as_ref()
            .ok_or_else(|| internal(format!("op {op} has no rule")))?;
        let (mesh, uneven) = (&self.p.mesh, self.p.uneven);
        let mut fa = project_with(rule, TensorRef::Result(result), layout, mesh, uneven)
            .unwrap_or_else(|| FactorAxes::empty(rule));
        for (k, &ch) in children.iter().enumerate() {
            let l = self.layout_of(ch);
            if let Some(other) = project_with(rule, TensorRef::Operand(k), &l, mesh, uneven) {
                fa = fa
                    .merge(&other)
                    .ok_or_else(|| internal(format!("operand layouts of op {op} disagree")))?;
            }
        }
        (0..o.results.len())
            .map(|k| {
                fa.layout_of(rule, TensorRef::Result(k))
                    .ok_or_else(|| internal(format!("no layout for result {k} of op {op}")))
            })
            .collect()
    }

    /// Emits op `op` on its local operands `ins` (whose classes are `children`): the
    /// first of [`PATTERNS`] that applies to it.
    fn emit_op(
        &mut self,
        op: OpId,
        children: &[Id],
        ins: &[ValueId],
        result: usize,
        layout: &Layout,
    ) -> Result<Vec<ValueId>, CompileError> {
        let layouts = self.result_layouts(op, children, result, layout)?;
        let key = (op, children.to_vec(), layouts.clone());
        if let Some(outs) = self.ops.get(&key) {
            return Ok(outs.clone());
        }
        let f = self.f;
        let o = f.op(op);
        let global_in: Vec<TensorType> = o.operands.iter().map(|&v| f.ty(v).clone()).collect();
        let local_in: Vec<TensorType> = ins.iter().map(|&v| self.b.ty(v).clone()).collect();
        let site = Site {
            op,
            o,
            children,
            ins,
            local: std::cell::OnceCell::new(),
            layouts: &layouts,
            global_in,
            local_in,
        };
        let pattern = PATTERNS
            .iter()
            .find(|p| (p.applies)(self, &site))
            .ok_or_else(|| self.no_pattern(&site))?;
        let outs = (pattern.apply)(self, &site)?;
        self.ops.insert(key, outs.clone());
        Ok(outs)
    }

    /// Why no pattern emits `site`: the op, its operands' and results' layouts.
    fn no_pattern(&self, site: &Site) -> CompileError {
        let layouts = |ls: &[Layout]| ls.iter().map(ToString::to_string).collect::<Vec<_>>();
        let operands: Vec<Layout> = site.children.iter().map(|&c| self.layout_of(c)).collect();
        internal(format!(
            "no pattern applies to {} (op {}) with operand layouts {:?} and result layouts {:?}: the patterns are {:?}",
            site.o.kind.name(),
            site.op,
            layouts(&operands),
            layouts(site.layouts),
            PATTERNS.iter().map(|p| p.name).collect::<Vec<_>>()
        ))
    }

    /// The partitioned body of the loop at `s` when it runs on pieces, and its
    /// partitioned condition when that reads split values.
    fn loop_body(&self, s: &Site) -> Option<(&'a Function, Option<&'a Function>)> {
        if s.o.kind != OpKind::While {
            return None;
        }
        let eg = &self.p.graph.egraph;
        let plans = self.p.loops.get(&(
            s.op,
            s.children.iter().map(|&c| eg[eg.find(c)].data.1).collect(),
        ))?;
        let plan = plans.iter().find(|p| p.layouts == s.layouts)?;
        let cond = plan
            .cond
            .as_ref()
            .and_then(|c| c.partitioned.module.entry());
        Some((plan.body.as_ref()?.partitioned.module.entry()?, cond))
    }

    /// Computes the op whole (global annotations dropped), then each device keeps its
    /// piece. Its operands (a random op's seed) are replicated scalars.
    fn emit_whole(&mut self, s: &Site) -> Result<Vec<ValueId>, CompileError> {
        let (f, o) = (self.f, s.o);
        let mut map: HashMap<ValueId, ValueId> = o
            .operands
            .iter()
            .copied()
            .zip(s.ins.iter().copied())
            .collect();
        let whole = self.b.copy_op(f, o, &mut map)?;
        let last = OpId::from_index(self.b.func().ops.len() - 1);
        self.b.op_mut(last).shardings = None;
        let mut outs = Vec::new();
        for (k, (&w, l)) in whole.iter().zip(s.layouts).enumerate() {
            let from = Layout::replicated(l.rank());
            let plans = plan_for(&from, l, &self.p.mesh, f.ty(o.results[k]));
            let first = plans
                .first()
                .ok_or_else(|| internal(format!("no plan to {l}")))?;
            outs.push(self.emit_plan(first, &from, w, o.results[k])?);
        }
        Ok(outs)
    }

    /// A gather split along an indexed dimension (`offset.rs`), its rotations after.
    fn emit_indexed_gather(&mut self, s: &Site) -> Result<Vec<ValueId>, CompileError> {
        let d = crate::local::offset::indexed_split(&s.o.kind, &s.global_in, &s.local_in)
            .ok_or_else(|| internal(format!("op {} is not split along an index", s.op)))?;
        let in_layouts: Vec<Layout> = s.children.iter().map(|&c| self.layout_of(c)).collect();
        let out_type = self.local_types(s)?.remove(0);
        let out = crate::local::offset::gather(
            &mut self.b,
            &self.p.mesh,
            s.o,
            s.local().clone(),
            s.ins,
            &in_layouts,
            &s.global_in,
            &out_type,
            d,
        )?;
        self.rotate_blocks(s.op, vec![out], s.layouts)
    }

    /// The op itself on the local pieces (padding it reduces over masked with the
    /// reduction's identity first; its regions read its operands as the local values),
    /// its rotations after.
    fn emit_local(&mut self, s: &Site) -> Result<Vec<ValueId>, CompileError> {
        let (f, o) = (self.f, s.o);
        let local_out = self.local_types(s)?;
        let masked;
        let ins = if self.p.uneven.pads() {
            let rule = self.p.rules[s.op.index()]
                .as_ref()
                .ok_or_else(|| internal(format!("op {} has no rule", s.op)))?;
            let in_layouts: Vec<Layout> = s.children.iter().map(|&c| self.layout_of(c)).collect();
            masked = self.masker.mask_operands(
                &mut self.b,
                &self.p.mesh,
                o,
                rule,
                s.ins,
                &in_layouts,
                &s.global_in,
            )?;
            &masked
        } else {
            s.ins
        };
        let mut map: HashMap<ValueId, ValueId> = o
            .operands
            .iter()
            .copied()
            .zip(ins.iter().copied())
            .collect();
        let regions = o
            .regions
            .iter()
            .map(|&r| self.b.copy_region(f, r, &mut map))
            .collect::<Result<Vec<_>, _>>()?;
        let id = self
            .b
            .push(s.local().clone(), ins, Some(&local_out), regions)?;
        let outs = self.b.func().op(id).results.clone();
        self.rotate_blocks(s.op, outs, s.layouts)
    }

    /// The local types of the op's results under their layouts.
    fn local_types(&self, s: &Site) -> Result<Vec<TensorType>, CompileError> {
        s.o.results
            .iter()
            .zip(s.layouts)
            .map(|(&r, l)| {
                let global = self.f.ty(r);
                l.local_type(&self.p.mesh, global)
                    .ok_or_else(|| internal(format!("layout {l} does not divide {global}")))
            })
            .collect()
    }

    /// The results of an op run on local pieces, with the blocks of its split rotation
    /// factors moved to the devices that hold them now: one `collective_permute` per
    /// rotation (`rotate.rs`).
    fn rotate_blocks(
        &mut self,
        op: OpId,
        mut outs: Vec<ValueId>,
        layouts: &[Layout],
    ) -> Result<Vec<ValueId>, CompileError> {
        let Some(rule) = self.p.rules[op.index()].as_ref() else {
            return Ok(outs);
        };
        for (k, (out, layout)) in outs.iter_mut().zip(layouts).enumerate() {
            for r in crate::local::rotate::of_result(rule, k, layout, &self.p.mesh, self.p.uneven) {
                let pairs = crate::local::rotate::pairs(&self.p.mesh, &r).ok_or_else(|| {
                    internal(format!(
                        "axes {:?} of a rotation are not all on mesh @{}",
                        r.axes, self.p.mesh.name
                    ))
                })?;
                let ty = self.b.ty(*out).clone();
                *out = self
                    .b
                    .push1_typed(OpKind::CollectivePermute { pairs }, &[*out], ty)?;
                self.mark(*out, self.f.op(op).results[k]);
            }
        }
        Ok(outs)
    }

    /// Names the global value `v` on the op defining `x` ([`OF`]).
    fn mark(&mut self, x: ValueId, v: ValueId) {
        if let Some(op) = self.b.func().defining_op(x) {
            let name = format!("\"{}\"", self.names[v.index()]);
            self.b.op_mut(op).attrs.push((OF.to_string(), name));
        }
    }

    fn groups(&self, axes: &[AxisRef]) -> Result<ReplicaGroups, CompileError> {
        self.p.mesh.replica_groups(axes).ok_or_else(|| {
            internal(format!(
                "axes {axes:?} are not all on mesh @{}",
                self.p.mesh.name
            ))
        })
    }

    /// Emits the steps of a plan on `x` (value `v` of the global program, now in `from`).
    fn emit_plan(
        &mut self,
        plan: &Plan,
        from: &Layout,
        mut x: ValueId,
        v: ValueId,
    ) -> Result<ValueId, CompileError> {
        let global = self.f.ty(v).clone();
        let mut cur = from.clone();
        for step in &plan.steps {
            let next = step
                .apply(&cur)
                .ok_or_else(|| internal(format!("step {step} does not apply to {cur}")))?;
            let pieces = step.pieces(&self.p.mesh, &global, &cur).ok_or_else(|| {
                internal(format!(
                    "step {step} from {cur} moves padded blocks of {global} inexactly"
                ))
            })?;
            if step.moves_nothing(&self.p.mesh, &cur) {
                // Axes of one device: the layout changes on paper only.
                cur = next;
                continue;
            }
            // A whole dimension about to be cut is padded up to its blocks first.
            if pieces.padded != pieces.input {
                x = self.pad_to(x, &pieces.padded)?;
            }
            let ty = TensorType::new(global.dtype, pieces.raw.clone());
            x = match step {
                Step::AllReduce { axes, combiner } | Step::ReduceScatter { axes, combiner, .. } => {
                    let groups = self.groups(axes)?;
                    let op = combining_op(combiner.combiner()).ok_or_else(|| {
                        internal(format!("combiner {combiner:?} has no one-op reducer"))
                    })?;
                    let body = self.b.binary_reducer(global.dtype, op)?;
                    let kind = match step {
                        Step::ReduceScatter { dim, .. } => {
                            OpKind::ReduceScatter { dim: *dim, groups }
                        }
                        _ => OpKind::AllReduce { groups },
                    };
                    let id = self.b.push(kind, &[x], Some(&[ty]), vec![body])?;
                    self.b.func().op(id).results[0]
                }
                Step::AllGather { dim, axes } => {
                    let groups = self.groups(axes)?;
                    self.b
                        .push1_typed(OpKind::AllGather { dim: *dim, groups }, &[x], ty)?
                }
                Step::AllToAll {
                    src_dim,
                    dst_dim,
                    axes,
                } => {
                    let groups = self.groups(axes)?;
                    let kind = OpKind::AllToAll {
                        split_dim: *dst_dim,
                        concat_dim: *src_dim,
                        groups,
                    };
                    self.b.push1_typed(kind, &[x], ty)?
                }
                Step::Slice { dim, axes } => {
                    let groups = self.groups(axes)?;
                    self.b
                        .push1_typed(OpKind::ShardSlice { dim: *dim, groups }, &[x], ty)?
                }
                Step::Permute { dim, axes } => {
                    let pairs =
                        permute_pairs(&self.p.mesh, &cur.dims[*dim], axes).ok_or_else(|| {
                            internal(format!(
                                "axes {axes:?} are not all on mesh @{}",
                                self.p.mesh.name
                            ))
                        })?;
                    self.b
                        .push1_typed(OpKind::CollectivePermute { pairs }, &[x], ty)?
                }
            };
            if !matches!(step, Step::Slice { .. }) {
                self.mark(x, v);
            }
            // A dimension gathered whole drops the padding of its last blocks.
            if pieces.output != pieces.raw {
                let rank = pieces.raw.len();
                let slice = OpKind::Slice {
                    start: vec![0; rank],
                    limit: pieces.output.clone(),
                    strides: vec![1; rank],
                };
                x = self.b.push1(slice, &[x])?;
            }
            cur = next;
        }
        Ok(x)
    }

    /// `x` padded at the high end of each dimension up to `shape` (with zeros: padding is
    /// never read unmasked).
    fn pad_to(&mut self, x: ValueId, shape: &[usize]) -> Result<ValueId, CompileError> {
        let ty = self.b.ty(x).clone();
        let zero = self
            .b
            .constant(Literal::scalar(ty.dtype, Scalar::Float(0.0)));
        let high = shape
            .iter()
            .zip(&ty.shape)
            .map(|(&want, &have)| i64::try_from(want.saturating_sub(have)).unwrap_or(i64::MAX))
            .collect();
        let kind = OpKind::Pad {
            low: vec![0; ty.rank()],
            high,
            interior: vec![0; ty.rank()],
        };
        Ok(self.b.push1(kind, &[x, zero])?)
    }
}

/// An op about to be emitted on local pieces: what every pattern reads.
struct Site<'s> {
    op: OpId,
    o: &'s Op,
    /// Its operands' classes and local values.
    children: &'s [Id],
    ins: &'s [ValueId],
    /// Its kind with the attributes that name global sizes made local (`localize.rs`),
    /// made when a pattern first asks (a constant's would copy its literal).
    local: std::cell::OnceCell<OpKind>,
    /// The layouts of its results.
    layouts: &'s [Layout],
    global_in: Vec<TensorType>,
    local_in: Vec<TensorType>,
}

impl Site<'_> {
    /// The op's kind on local pieces.
    fn local(&self) -> &OpKind {
        self.local
            .get_or_init(|| local_kind(&self.o.kind, &self.global_in, &self.local_in))
    }
}

/// One way to emit an op on local pieces, as MLIR writes its rewrite patterns: whether it
/// applies, and what it emits when it does.
struct Pattern {
    name: &'static str,
    applies: fn(&Emitter, &Site) -> bool,
    apply: fn(&mut Emitter, &Site) -> Result<Vec<ValueId>, CompileError>,
}

/// The ways to emit an op, tried in order; the last applies to every op whose results'
/// layouts give local types.
const PATTERNS: &[Pattern] = &[
    Pattern {
        // A shard_map's body is per-device already: copied in on the pieces.
        name: "manual body",
        applies: |_, s| crate::local::manual::fixed_layouts(s.o).is_some(),
        apply: |e, s| {
            Ok(crate::local::manual::inline_body(
                &mut e.b, e.f, s.o, s.ins, &e.p.mesh,
            )?)
        },
    },
    Pattern {
        // A loop with split carried values runs on the pieces, its body partitioned for
        // their layouts when propagating (`loops.rs`).
        name: "loop on pieces",
        applies: |e, s| e.loop_body(s).is_some(),
        apply: |e, s| {
            let (body, cond) = e
                .loop_body(s)
                .ok_or_else(|| internal(format!("loop {} has no plan", s.op)))?;
            Ok(crate::local::loops::emit(
                &mut e.b, e.f, s.o, s.ins, body, cond,
            )?)
        },
    },
    Pattern {
        // A branch holding shard_maps: its regions compiled per device (`manual.rs`).
        name: "branch holding shard_maps",
        applies: |e, s| s.o.kind == OpKind::Case && crate::local::manual::holds_manual(e.f, s.o),
        apply: |e, s| {
            crate::local::manual::emit_case(&mut e.b, e.f, s.o, s.ins, &e.p.mesh, &e.p.cost)
        },
    },
    Pattern {
        name: "identity",
        applies: |_, s| is_identity_locally(&s.o.kind),
        apply: |_, s| Ok(s.ins.to_vec()),
    },
    Pattern {
        // A splat is the same everywhere: every device makes its piece directly.
        name: "splat",
        applies: |e, s| splat_piece(&s.o.kind, &s.layouts[0], &e.p.mesh).is_some(),
        apply: |e, s| {
            let local = splat_piece(&s.o.kind, &s.layouts[0], &e.p.mesh)
                .ok_or_else(|| internal(format!("op {} is not a splat", s.op)))?;
            Ok(vec![e.b.constant(local)])
        },
    },
    Pattern {
        // Elements that depend on their position in the whole tensor (constants, iota,
        // random): computed whole, then each device keeps its piece.
        name: "computed whole, then sliced",
        applies: |_, s| computed_whole(&s.o.kind),
        apply: |e, s| e.emit_whole(s),
    },
    Pattern {
        // Nothing to compute on the pieces: a rotation by whole blocks, which move.
        name: "rotation by whole blocks",
        applies: |_, s| is_identity_locally(s.local()),
        apply: |e, s| e.rotate_blocks(s.op, s.ins.to_vec(), s.layouts),
    },
    Pattern {
        // A gather split along an indexed dimension looks up the rows it holds
        // (vocabulary-parallel: `offset.rs`).
        name: "gather of the rows held",
        applies: |_, s| {
            crate::local::offset::indexed_split(&s.o.kind, &s.global_in, &s.local_in).is_some()
        },
        apply: |e, s| e.emit_indexed_gather(s),
    },
    Pattern {
        name: "on local pieces",
        applies: |e, s| {
            s.o.results
                .iter()
                .zip(s.layouts)
                .all(|(&r, l)| l.local_type(&e.p.mesh, e.f.ty(r)).is_some())
        },
        apply: |e, s| e.emit_local(s),
    },
];

/// A splat constant's piece under a layout: the same splat at the local shape.
fn splat_piece(kind: &OpKind, layout: &Layout, mesh: &Mesh) -> Option<shardc_ir::Literal> {
    let OpKind::Constant(lit) = kind else {
        return None;
    };
    if !lit.is_splat() {
        return None;
    }
    let ty = layout.local_type(mesh, &lit.ty)?;
    Some(shardc_ir::Literal {
        ty,
        elements: lit.elements.clone(),
    })
}

/// The (source, target) device pairs that reorder a dimension's axes from `from` to `to`:
/// the device holding block `b` under `from` sends it to the device, among those that
/// differ only along these axes, holding block `b` under `to`.
fn permute_pairs(mesh: &Mesh, from: &[AxisRef], to: &[AxisRef]) -> Option<Vec<(usize, usize)>> {
    let groups = mesh.replica_groups(from)?;
    let mut pairs = Vec::new();
    for group in &groups.0 {
        for (b, &src) in group.iter().enumerate() {
            let dst = group.iter().copied().find(|&d| {
                mesh.position_of(shardc_ir::DeviceId(d))
                    .and_then(|p| mesh.group_index(&mesh.coords(p), to))
                    .is_some_and(|(i, _)| i == b)
            })?;
            pairs.push((src, dst));
        }
    }
    Some(pairs)
}
