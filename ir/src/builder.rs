//! Building functions op by op, with every op type-checked as it is added.
//!
//! ```
//! use shardc_ir::{DType, FunctionBuilder, TensorType, BinaryOp};
//! let t = TensorType::new(DType::F32, [4, 8]);
//! let mut b = FunctionBuilder::new("main", &[t.clone(), t]);
//! let (x, y) = (b.arg(0), b.arg(1));
//! let s = b.binary(BinaryOp::Add, x, y).unwrap();
//! let f = b.finish(&[s]);
//! assert_eq!(f.result_types()[0].shape, vec![4, 8]);
//! ```

use crate::dtype::{DType, TensorType};
use crate::error::IrError;
use crate::infer;
use crate::literal::Literal;
use crate::module::{
    Block, BlockId, Function, OP_PATH, OpId, ValueAttrs, ValueData, ValueDef, ValueId, Visibility,
    quoted,
};
use crate::op::{BinaryOp, DotDims, Op, OpKind, UnaryOp};
use crate::sharding::Sharding;

/// Builds one [`Function`]. Nested blocks (regions) are opened with
/// [`begin_block`](Self::begin_block) and closed with [`end_block`](Self::end_block)
/// before the op that owns them is pushed.
pub struct FunctionBuilder {
    func: Function,
    /// Open blocks, innermost last; the body is always at the bottom.
    stack: Vec<BlockId>,
    /// The scope ops are added in ([`set_scope`](Self::set_scope)).
    scope: Option<String>,
    /// Attributes every op added gets ([`set_tags`](Self::set_tags)).
    tags: Vec<(String, String)>,
}

impl FunctionBuilder {
    /// A function `name` of arguments of these types, its body empty.
    pub fn new(name: &str, arg_types: &[TensorType]) -> FunctionBuilder {
        let mut b = FunctionBuilder {
            func: Function {
                name: name.to_string(),
                ..Function::default()
            },
            stack: Vec::new(),
            scope: None,
            tags: Vec::new(),
        };
        b.begin_block(arg_types);
        b.func.arg_attrs = vec![ValueAttrs::default(); arg_types.len()];
        b
    }

    /// Makes the function public or private.
    pub fn set_visibility(&mut self, v: Visibility) {
        self.func.visibility = v;
    }

    /// The `i`-th argument of the function.
    pub fn arg(&self, i: usize) -> ValueId {
        self.func.blocks[0].args[i]
    }

    /// The body's arguments.
    pub fn args(&self) -> Vec<ValueId> {
        self.func.blocks[0].args.clone()
    }

    /// A value's type.
    pub fn ty(&self, v: ValueId) -> &TensorType {
        self.func.ty(v)
    }

    /// The function as built so far.
    pub fn func(&self) -> &Function {
        &self.func
    }

    /// Argument `i`'s attributes, to change.
    pub fn arg_attrs_mut(&mut self, i: usize) -> &mut ValueAttrs {
        &mut self.func.arg_attrs[i]
    }

    /// Annotates argument `i` with a sharding (`sdy.sharding`).
    pub fn set_arg_sharding(&mut self, i: usize, s: Sharding) {
        self.func.arg_attrs[i].sharding = Some(s);
    }

    /// Ops added from now on belong to `scope` (`blocks.0/attn`; none: no scope): each
    /// gets the attribute [`OP_PATH`] = `scope/kind` (`blocks.0/attn/dot_general`), as
    /// JAX's `named_scope` names the ops traced in it, so that explanations and
    /// decisions name values by where the user's program computes them. Ops copied
    /// ([`copy_op`](Self::copy_op)) keep their own.
    pub fn set_scope(&mut self, scope: Option<String>) {
        self.scope = scope;
    }

    /// Attributes (name, value as written) every op added from now on gets, besides its
    /// own: how a traced region marks its ops (`shardc.remat`).
    pub fn set_tags(&mut self, tags: Vec<(String, String)>) {
        self.tags = tags;
    }

    /// An op already added, to change.
    pub fn op_mut(&mut self, id: OpId) -> &mut Op {
        &mut self.func.ops[id.index()]
    }

    /// Gives a value already added another type, unchecked: for a reader that reads a
    /// region in one layout and uses it in another (complex scalars as pairs, then as
    /// the floats each part is); the reader checks the region's ops take the new types.
    pub fn retype(&mut self, v: ValueId, ty: TensorType) {
        self.func.values[v.index()].ty = ty;
    }

    fn new_value(&mut self, ty: TensorType, def: ValueDef) -> ValueId {
        let id = ValueId::from_index(self.func.values.len());
        self.func.values.push(ValueData { ty, def });
        id
    }

    /// Opens a nested block with arguments of the given types and returns them.
    pub fn begin_block(&mut self, arg_types: &[TensorType]) -> Vec<ValueId> {
        let block = BlockId::from_index(self.func.blocks.len());
        self.func.blocks.push(Block::default());
        let args: Vec<ValueId> = arg_types
            .iter()
            .enumerate()
            .map(|(index, t)| self.new_value(t.clone(), ValueDef::BlockArg { block, index }))
            .collect();
        self.func.blocks[block.index()].args = args.clone();
        self.stack.push(block);
        args
    }

    /// Closes the innermost nested block, which returns `results`.
    ///
    /// # Panics
    /// If only the body is open (close the body with [`finish`](Self::finish)).
    pub fn end_block(&mut self, results: &[ValueId]) -> BlockId {
        assert!(
            self.stack.len() > 1,
            "end_block without a matching begin_block"
        );
        let block = self.stack.pop().expect("checked above");
        self.func.blocks[block.index()].results = results.to_vec();
        block
    }

    /// The name the next op's result will print as, for error messages.
    fn next_name(&self) -> String {
        let n = self
            .func
            .ops
            .iter()
            .filter(|o| !o.results.is_empty())
            .count();
        format!("%{n} in @{}", self.func.name)
    }

    /// Adds an op to the innermost open block, checking its typing rule.
    /// `declared` states result types (required for ops whose type is not derivable).
    pub fn push(
        &mut self,
        kind: OpKind,
        operands: &[ValueId],
        declared: Option<&[TensorType]>,
        regions: Vec<BlockId>,
    ) -> Result<OpId, IrError> {
        let operand_types: Vec<TensorType> =
            operands.iter().map(|&v| self.func.ty(v).clone()).collect();
        let types = infer::result_types(&kind, &operand_types, declared).map_err(|v| {
            IrError::InvalidOp {
                at: self.next_name(),
                op: kind.name(),
                rule: v.rule,
                fix: v.fix,
            }
        })?;
        let op = OpId::from_index(self.func.ops.len());
        let mut attrs = match &self.scope {
            Some(scope) => {
                let kind_name = kind.name();
                let short = kind_name.rsplit('.').next().unwrap_or(&kind_name);
                vec![(OP_PATH.to_string(), quoted(&format!("{scope}/{short}")))]
            }
            None => Vec::new(),
        };
        attrs.extend(self.tags.iter().cloned());
        let results = types
            .into_iter()
            .enumerate()
            .map(|(index, t)| self.new_value(t, ValueDef::OpResult { op, index }))
            .collect();
        self.func.ops.push(Op {
            kind,
            operands: operands.to_vec(),
            results,
            regions,
            shardings: None,
            attrs,
        });
        let block = *self.stack.last().expect("the body block is always open");
        self.func.blocks[block.index()].ops.push(op);
        Ok(op)
    }

    /// Adds a region op whose regions may read values from outside them (`while`,
    /// `case`): those values are appended to `operands` as its captured operands (see
    /// [`Op::written_operands`](crate::Op::written_operands)); any other op as [`push`](Self::push).
    pub fn push_region_op(
        &mut self,
        kind: OpKind,
        operands: &[ValueId],
        declared: Option<&[TensorType]>,
        regions: Vec<BlockId>,
    ) -> Result<OpId, IrError> {
        let mut all = operands.to_vec();
        if matches!(kind, OpKind::While | OpKind::Case) {
            all.extend(self.func.captures(&regions));
        }
        self.push(kind, &all, declared, regions)
    }

    /// Takes back the op added last, if `op` is it: for a reader that computed a value
    /// and adds its op again under the names the text gives it (`None` otherwise; nothing
    /// can use the op's results yet, since nothing was added after it).
    pub fn take_last_op(&mut self, op: OpId) -> Option<Op> {
        let block = *self.stack.last()?;
        if op.index() + 1 != self.func.ops.len()
            || self.func.blocks[block.index()].ops.last() != Some(&op)
        {
            return None;
        }
        let taken = self.func.ops.pop()?;
        let first = self.func.values.len() - taken.results.len();
        if taken
            .results
            .iter()
            .enumerate()
            .any(|(i, r)| r.index() != first + i)
        {
            self.func.ops.push(taken);
            return None;
        }
        self.func.blocks[block.index()].ops.pop();
        self.func.values.truncate(first);
        Some(taken)
    }

    /// Takes back the block added last with its ops and values, if `block` is it, closed,
    /// and nothing was added after its ops (`false`, and nothing taken, otherwise): for a
    /// reader that read a region in one form and builds it again in another. The ids of
    /// its values are given out again.
    pub fn take_last_region(&mut self, block: BlockId) -> bool {
        if block.index() + 1 != self.func.blocks.len() || self.stack.contains(&block) {
            return false;
        }
        let b = &self.func.blocks[block.index()];
        let first_op = self.func.ops.len() - b.ops.len();
        let contiguous = b
            .ops
            .iter()
            .enumerate()
            .all(|(i, op)| op.index() == first_op + i);
        let ops = &self.func.ops[first_op..];
        let values = b.args.len() + ops.iter().map(|o| o.results.len()).sum::<usize>();
        let first_value = self.func.values.len() - values;
        let owned = b.args.iter().chain(ops.iter().flat_map(|o| &o.results));
        let tail = owned.enumerate().all(|(i, v)| v.index() == first_value + i);
        if !contiguous || !tail || ops.iter().any(|o| !o.regions.is_empty()) {
            return false;
        }
        self.func.blocks.pop();
        self.func.ops.truncate(first_op);
        self.func.values.truncate(first_value);
        true
    }

    /// Adds a one-result op whose type is derived from its operands.
    pub fn push1(&mut self, kind: OpKind, operands: &[ValueId]) -> Result<ValueId, IrError> {
        let op = self.push(kind, operands, None, Vec::new())?;
        Ok(self.func.ops[op.index()].results[0])
    }

    /// Adds a one-result op with a stated result type.
    pub fn push1_typed(
        &mut self,
        kind: OpKind,
        operands: &[ValueId],
        ty: TensorType,
    ) -> Result<ValueId, IrError> {
        let op = self.push(kind, operands, Some(&[ty]), Vec::new())?;
        Ok(self.func.ops[op.index()].results[0])
    }

    /// `stablehlo.constant` of the literal.
    pub fn constant(&mut self, lit: Literal) -> ValueId {
        self.push1(OpKind::Constant(lit), &[])
            .expect("a constant has no operands and always type-checks")
    }

    /// An elementwise op of one operand (the error: the op does not take its type).
    pub fn unary(&mut self, op: UnaryOp, x: ValueId) -> Result<ValueId, IrError> {
        self.push1(OpKind::Unary(op), &[x])
    }

    /// An elementwise op of two operands of one type.
    pub fn binary(&mut self, op: BinaryOp, x: ValueId, y: ValueId) -> Result<ValueId, IrError> {
        self.push1(OpKind::Binary(op), &[x, y])
    }

    /// `stablehlo.dot_general` with these dimension numbers.
    pub fn dot_general(
        &mut self,
        lhs: ValueId,
        rhs: ValueId,
        dims: DotDims,
    ) -> Result<ValueId, IrError> {
        self.push1(OpKind::DotGeneral(dims), &[lhs, rhs])
    }

    /// A reducer region `(a, b) -> op(a, b)` on scalars of `dtype` (of a `reduce`, a
    /// `reduce_window`, a `scatter` or a reducing collective), closed.
    pub fn binary_reducer(&mut self, dtype: DType, op: BinaryOp) -> Result<BlockId, IrError> {
        let scalar = TensorType::scalar(dtype);
        let acc = self.begin_block(&[scalar.clone(), scalar]);
        match self.binary(op, acc[0], acc[1]) {
            Ok(r) => Ok(self.end_block(&[r])),
            Err(e) => {
                self.end_block(&[]);
                Err(e)
            }
        }
    }

    /// `stablehlo.reduce_window` of `x` from `init` with one binary reducer.
    pub fn reduce_window(
        &mut self,
        x: ValueId,
        init: ValueId,
        window: crate::op::WindowDims,
        reducer: BinaryOp,
    ) -> Result<ValueId, IrError> {
        let body = self.binary_reducer(self.ty(x).dtype, reducer)?;
        let op = self.push(OpKind::ReduceWindow(window), &[x, init], None, vec![body])?;
        Ok(self.func.ops[op.index()].results[0])
    }

    /// `stablehlo.reduce` of `x` over `dims` from `init`, the reducer one binary op.
    pub fn reduce(
        &mut self,
        x: ValueId,
        init: ValueId,
        dims: &[usize],
        reducer: BinaryOp,
    ) -> Result<ValueId, IrError> {
        let body = self.binary_reducer(self.ty(x).dtype, reducer)?;
        let op = self.push(
            OpKind::Reduce {
                dimensions: dims.to_vec(),
            },
            &[x, init],
            None,
            vec![body],
        )?;
        Ok(self.func.ops[op.index()].results[0])
    }

    /// Copies a block of another function into a new nested block of this one (for an
    /// op's region), mapping the values it reads from outside through `map`.
    pub fn copy_region(
        &mut self,
        src: &Function,
        block: BlockId,
        map: &mut std::collections::HashMap<ValueId, ValueId>,
    ) -> Result<BlockId, IrError> {
        let b = src.block(block);
        let types: Vec<TensorType> = b.args.iter().map(|&a| src.ty(a).clone()).collect();
        let args = self.begin_block(&types);
        map.extend(b.args.iter().copied().zip(args));
        let mut body = || -> Result<Vec<ValueId>, IrError> {
            for &id in &b.ops {
                self.copy_op(src, src.op(id), map)?;
            }
            Ok(b.results.iter().map(|r| map[r]).collect())
        };
        match body() {
            Ok(results) => Ok(self.end_block(&results)),
            Err(e) => {
                self.end_block(&[]);
                Err(e)
            }
        }
    }

    /// Copies one op of another function (with its regions, shardings and attributes),
    /// its operands mapped through `map`; records its results in `map` and returns them.
    pub fn copy_op(
        &mut self,
        src: &Function,
        op: &Op,
        map: &mut std::collections::HashMap<ValueId, ValueId>,
    ) -> Result<Vec<ValueId>, IrError> {
        let regions = op
            .regions
            .iter()
            .map(|&r| self.copy_region(src, r, map))
            .collect::<Result<Vec<_>, _>>()?;
        let operands: Vec<ValueId> = op.operands.iter().map(|v| map[v]).collect();
        let types: Vec<TensorType> = op.results.iter().map(|&r| src.ty(r).clone()).collect();
        let id = self.push(op.kind.clone(), &operands, Some(&types), regions)?;
        let new = self.func.ops[id.index()].results.clone();
        self.func.ops[id.index()].shardings = op.shardings.clone();
        self.func.ops[id.index()].attrs = op.attrs.clone();
        map.extend(op.results.iter().copied().zip(new.iter().copied()));
        Ok(new)
    }

    /// Closes the body, which returns `results`, and gives the function.
    pub fn finish(mut self, results: &[ValueId]) -> Function {
        while self.stack.len() > 1 {
            self.end_block(&[]);
        }
        self.func.blocks[0].results = results.to_vec();
        self.func.result_attrs = vec![ValueAttrs::default(); results.len()];
        self.func
    }
}
