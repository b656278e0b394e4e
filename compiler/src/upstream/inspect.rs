//! Reads grids, functions, shardings and collectives out of a module through melior.
//!
//! Attributes melior has no typed view of (the shard dialect's `split_axes`, `i16` arrays)
//! are read from their printed form, which MLIR keeps stable: `[[0], [1]]`,
//! `array<i16: 0, 1>`.

use std::collections::BTreeMap;

use melior::ir::attribute::{
    DenseI64ArrayAttribute, FlatSymbolRefAttribute, StringAttribute, TypeAttribute,
};
use melior::ir::block::BlockArgument;
use melior::ir::operation::{OperationLike, OperationResult, WalkOrder, WalkResult};
use melior::ir::r#type::{DimSize, FunctionType, IntegerType, RankedTensorType};
use melior::ir::{
    BlockLike, BlockRef, Module, OperationRef, RegionLike, ShapedTypeLike, Type, TypeLike, Value,
    ValueLike,
};

use super::UpstreamError;
use super::report::{Collective, CollectiveKind, Grid, Sharding, TensorType};
use super::volume::ring_volume;

/// A function's signature and the shardings of its arguments and results.
pub struct FunctionInfo {
    pub name: String,
    /// `None` for a type that is not a ranked tensor.
    pub inputs: Vec<Option<TensorType>>,
    pub results: Vec<Option<TensorType>>,
    /// Per argument, the sharding of its `shard.shard` user (or why there is none).
    pub arg_shardings: Vec<Result<Sharding, String>>,
    /// Per result, the sharding of the `shard.shard` that defines the returned value.
    pub result_shardings: Vec<Result<Sharding, String>>,
}

fn op_name(op: &OperationRef) -> String {
    op.name()
        .as_string_ref()
        .as_str()
        .map_or_else(|_| "<non-utf8 op name>".to_string(), str::to_string)
}

/// The ops directly in a block, in order.
fn ops_of<'c, 'a>(block: BlockRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let mut ops = Vec::new();
    let mut next = block.first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        ops.push(op);
    }
    ops
}

/// A ranked tensor type as data; `None` for any other type.
pub fn tensor_type(ty: Type) -> Option<TensorType> {
    let ranked = RankedTensorType::try_from(ty).ok()?;
    let dims = (0..ranked.rank())
        .map(|i| match ranked.dim_size(i) {
            Ok(DimSize::Static(size)) => Some(size),
            Ok(DimSize::Dynamic) | Err(_) => None,
        })
        .collect();
    let element = ranked.element();
    let bits = if let Ok(int) = IntegerType::try_from(element) {
        Some(int.width())
    } else if element.is_float() {
        Some(element.float_width())
    } else if element.is_index() {
        Some(64)
    } else {
        None
    };
    Some(TensorType {
        text: ty.to_string(),
        dims,
        element: element.to_string(),
        element_bytes: bits.map(|b| u64::from(b).div_ceil(8)),
    })
}

/// Parses a printed dense array attribute, `array<i16: 0, 1>` or `array<i16>`.
pub fn parse_dense_array(text: &str) -> Option<Vec<i64>> {
    let inner = text.trim().strip_prefix("array<")?.strip_suffix('>')?;
    match inner.split_once(':') {
        None => Some(Vec::new()),
        Some((_, values)) => values.split(',').map(|v| v.trim().parse().ok()).collect(),
    }
}

/// Parses a printed `split_axes` attribute, `#shard<axisarray[[0], [], [1, 0]]>` (the
/// generic form) or `[[0], [], [1, 0]]` (as the op prints it).
pub fn parse_split_axes(text: &str) -> Option<Vec<Vec<u16>>> {
    let text = text.trim();
    let text = match text.strip_prefix("#shard<axisarray") {
        Some(rest) => rest.strip_suffix('>')?,
        None => text,
    };
    let inner = text.trim().strip_prefix('[')?.strip_suffix(']')?.trim();
    let mut result = Vec::new();
    let mut rest = inner;
    while !rest.is_empty() {
        let open = rest.strip_prefix('[')?;
        let close = open.find(']')?;
        let axes = open[..close].trim();
        result.push(if axes.is_empty() {
            Vec::new()
        } else {
            axes.split(',')
                .map(|a| a.trim().parse().ok())
                .collect::<Option<Vec<u16>>>()?
        });
        rest = open[close + 1..].trim_start();
        rest = rest.strip_prefix(',').unwrap_or(rest).trim_start();
    }
    Some(result)
}

/// An integer attribute without its type: `0 : index` becomes `0`.
fn short_attribute(text: &str) -> String {
    match text.split_once(" : ") {
        Some((value, _)) if value.parse::<i64>().is_ok() => value.to_string(),
        _ => text.to_string(),
    }
}

fn dense_i64(op: &OperationRef, name: &str) -> Result<Vec<i64>, String> {
    if !op.has_attribute(name) {
        return Ok(Vec::new());
    }
    let attribute = op.attribute(name).map_err(|e| e.to_string())?;
    let array = DenseI64ArrayAttribute::try_from(attribute).map_err(|e| e.to_string())?;
    (0..array.len())
        .map(|i| array.element(i).map_err(|e| e.to_string()))
        .collect()
}

fn symbol(op: &OperationRef, name: &str) -> Result<String, String> {
    let attribute = op.attribute(name).map_err(|e| e.to_string())?;
    FlatSymbolRefAttribute::try_from(attribute)
        .map(|s| s.value().to_string())
        .map_err(|e| e.to_string())
}

/// The sharding a `shard.sharding` op defines, when `value` is its result.
fn sharding_of(value: Value) -> Result<Sharding, String> {
    let result = OperationResult::try_from(value)
        .map_err(|_| "the sharding is a block argument".to_string())?;
    let op = result.owner();
    let name = op_name(&op);
    if name != "shard.sharding" {
        return Err(format!(
            "the sharding comes from {name}, not shard.sharding"
        ));
    }
    if op.operand_count() > 0 {
        return Err("the sharding has dynamic halo sizes or offsets".to_string());
    }
    let split_text = op
        .attribute("split_axes")
        .map_err(|e| e.to_string())?
        .to_string();
    let split_axes = parse_split_axes(&split_text)
        .ok_or_else(|| format!("cannot read split_axes {split_text}"))?;
    Ok(Sharding {
        grid: symbol(&op, "grid")?,
        split_axes,
        halo_sizes: dense_i64(&op, "static_halo_sizes")?,
        sharded_dims_offsets: dense_i64(&op, "static_sharded_dims_offsets")?,
    })
}

/// The sharding of a `shard.shard` op (its second operand).
fn shard_op_sharding(op: &OperationRef) -> Result<Sharding, String> {
    sharding_of(op.operand(1).map_err(|e| e.to_string())?)
}

/// Every `shard.grid` of the module.
pub fn grids(module: &Module) -> Result<Vec<Grid>, UpstreamError> {
    let mut grids = Vec::new();
    for op in ops_of(module.body()) {
        if op_name(&op) != "shard.grid" {
            continue;
        }
        let invalid = |what: String| UpstreamError::Inspect(format!("shard.grid: {what}"));
        let name = op
            .attribute("sym_name")
            .map_err(|e| invalid(e.to_string()))
            .and_then(|a| StringAttribute::try_from(a).map_err(|e| invalid(e.to_string())))?
            .value()
            .to_string();
        let shape = dense_i64(&op, "shape")
            .map_err(invalid)?
            .into_iter()
            .map(|d| u64::try_from(d).ok())
            .collect();
        grids.push(Grid { name, shape });
    }
    Ok(grids)
}

/// Every top-level `func.func` with a body: its signature and the shardings of its
/// arguments and results.
pub fn functions(module: &Module) -> Result<Vec<FunctionInfo>, UpstreamError> {
    let mut functions = Vec::new();
    for op in ops_of(module.body()) {
        if op_name(&op) != "func.func" {
            continue;
        }
        let invalid = |what: String| UpstreamError::Inspect(format!("func.func: {what}"));
        let name = op
            .attribute("sym_name")
            .map_err(|e| invalid(e.to_string()))
            .and_then(|a| StringAttribute::try_from(a).map_err(|e| invalid(e.to_string())))?
            .value()
            .to_string();
        let function_type = op
            .attribute("function_type")
            .map_err(|e| invalid(e.to_string()))
            .and_then(|a| TypeAttribute::try_from(a).map_err(|e| invalid(e.to_string())))?
            .value();
        let function_type =
            FunctionType::try_from(function_type).map_err(|e| invalid(e.to_string()))?;
        let inputs: Vec<Option<TensorType>> = (0..function_type.input_count())
            .map(|i| function_type.input(i).ok().and_then(tensor_type))
            .collect();
        let results: Vec<Option<TensorType>> = (0..function_type.result_count())
            .map(|i| function_type.result(i).ok().and_then(tensor_type))
            .collect();

        let missing = |what: &str| Err::<Sharding, String>(what.to_string());
        let mut arg_shardings: Vec<Result<Sharding, String>> =
            vec![missing("no shard.shard uses the argument"); inputs.len()];
        let mut result_shardings = vec![missing("no return"); results.len()];
        let entry = op.region(0).ok().and_then(|r| r.first_block());
        if let Some(entry) = entry {
            let mut uses = vec![0usize; inputs.len()];
            for inner in ops_of(entry) {
                let inner_name = op_name(&inner);
                if inner_name == "shard.shard" {
                    let Ok(source) = inner.operand(0) else {
                        continue;
                    };
                    let Ok(arg) = BlockArgument::try_from(source) else {
                        continue;
                    };
                    if arg.owner() != entry || arg.argument_number() >= inputs.len() {
                        continue;
                    }
                    let number = arg.argument_number();
                    uses[number] += 1;
                    arg_shardings[number] = if uses[number] == 1 {
                        shard_op_sharding(&inner)
                    } else {
                        missing("the argument has several shard.shard users")
                    };
                } else if inner_name == "func.return" {
                    for (i, operand) in inner.operands().enumerate().take(results.len()) {
                        result_shardings[i] = match OperationResult::try_from(operand) {
                            Ok(result) if op_name(&result.owner()) == "shard.shard" => {
                                shard_op_sharding(&result.owner())
                            }
                            _ => missing("the returned value is not defined by shard.shard"),
                        };
                    }
                }
            }
        }
        functions.push(FunctionInfo {
            name,
            inputs,
            results,
            arg_shardings,
            result_shardings,
        });
    }
    Ok(functions)
}

/// Every shard collective of the module, in walk order, with its ring volume.
pub fn collectives(module: &Module, grids: &[Grid]) -> Vec<Collective> {
    let mut found = Vec::new();
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        let name = op_name(&op);
        let Some(kind) = CollectiveKind::from_op_name(&name) else {
            return WalkResult::Advance;
        };
        let function = enclosing_function(&op);
        let grid = symbol(&op, "grid").unwrap_or_else(|e| format!("<{e}>"));
        let grid_axes = if op.has_attribute("grid_axes") {
            op.attribute("grid_axes")
                .ok()
                .and_then(|a| parse_dense_array(&a.to_string()))
                .map(|axes| {
                    axes.into_iter()
                        .filter_map(|a| u16::try_from(a).ok())
                        .collect()
                })
                .unwrap_or_default()
        } else {
            Vec::new()
        };
        let group_size = grids
            .iter()
            .find(|g| g.name == grid)
            .and_then(|g| g.group_size(&grid_axes));
        let operand = op.operand(0).ok().and_then(|v| tensor_type(v.r#type()));
        let result = op.result(0).ok().and_then(|v| tensor_type(v.r#type()));
        let attributes = op
            .attributes()
            .filter_map(|(name, value)| {
                let name = name.as_string_ref().as_str().ok()?.to_string();
                (name != "grid" && name != "grid_axes")
                    .then(|| (name, short_attribute(&value.to_string())))
            })
            .collect();
        let volume = ring_volume(kind, group_size, operand.as_ref(), result.as_ref());
        found.push(Collective {
            kind,
            function,
            grid,
            grid_axes,
            group_size,
            operand,
            result,
            attributes,
            volume,
        });
        WalkResult::Advance
    });
    found
}

fn enclosing_function(op: &OperationRef) -> String {
    let mut parent = op.parent_operation();
    while let Some(p) = parent {
        if op_name(&p) == "func.func" {
            return p
                .attribute("sym_name")
                .ok()
                .and_then(|a| StringAttribute::try_from(a).ok())
                .map_or_else(|| "?".to_string(), |s| s.value().to_string());
        }
        parent = p.parent_operation();
    }
    "?".to_string()
}

/// How many of each op the module holds; the module, functions and the scalar bodies of
/// linalg ops left out.
pub fn op_counts(module: &Module) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        let name = op_name(&op);
        if name == "builtin.module" || name == "func.func" {
            return WalkResult::Advance;
        }
        let linalg = name.starts_with("linalg.");
        *counts.entry(name).or_insert(0) += 1;
        if linalg {
            WalkResult::Skip
        } else {
            WalkResult::Advance
        }
    });
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printed_attributes_parse() {
        assert_eq!(parse_dense_array("array<i16: 0, 1>"), Some(vec![0, 1]));
        assert_eq!(parse_dense_array("array<i16>"), Some(vec![]));
        assert_eq!(parse_dense_array("[0, 1]"), None);
        assert_eq!(
            parse_split_axes("[[0], [], [1, 0]]"),
            Some(vec![vec![0], vec![], vec![1, 0]])
        );
        assert_eq!(parse_split_axes("[[]]"), Some(vec![vec![]]));
        assert_eq!(
            parse_split_axes("#shard<axisarray[[0], [1]]>"),
            Some(vec![vec![0], vec![1]])
        );
        assert_eq!(
            parse_split_axes("#shard<axisarray[[]]>"),
            Some(vec![vec![]])
        );
        assert_eq!(short_attribute("0 : index"), "0");
        assert_eq!(short_attribute("-3 : i64"), "-3");
        assert_eq!(
            short_attribute("#shard<partial sum>"),
            "#shard<partial sum>"
        );
        assert_eq!(parse_split_axes("[]"), Some(vec![]));
        assert_eq!(parse_split_axes("[[x]]"), None);
    }
}
