//! Reductions vectorized in the reference's order (CPU): each reduction `linalg.generic`
//! of a fused module is tagged `shardc.red = i` and tiled by the transform script so that
//! a vector's lanes are independent results (a kept dimension) and each lane folds its
//! elements one after another, in the order the reference folds them.
//!
//! As loops (`convert-linalg-to-loops`) a row sum keeps its accumulator in memory: one
//! load and one store per element, a chain through the store buffer, because LLVM cannot
//! tell that the kernel's output does not alias its input. Tiled, the accumulator is a
//! vector carried by the reduction loops in registers:
//!
//! ```text
//!  sum over k of x[r, k]   tile [r: lanes, k: 8], interchange: kept loops outside
//!  for r0 in 0..R step lanes:                       acc = out[r0 .. r0+lanes]
//!    for k0 in 0..K step 8:
//!      block = x[r0 .. r0+lanes, k0 .. k0+8]          (lanes rows of 8, transposed)
//!      acc = (((acc + block[0]) + block[1]) + ...) + block[7]
//!    out[r0 .. r0+lanes] = acc
//! ```
//!
//! No sum is reassociated: every output element is folded over its reduced elements in
//! ascending row-major order, as `linalg-to-loops` and the reference fold them, so the
//! results are the same bits (`both_tiers_compute_the_same_bits` and the bit-exact module
//! tests run with reductions vectorized).
//!
//! What is tiled: single-result generics whose innermost loop is reduced (see [`tiling`]
//! for why the others are not), static shapes, indexing
//! maps that are projected permutations, no `i1` operand (stored one byte per element,
//! which a vector of `i1` is not) and a body the vectorizer recognises: the yielded value
//! one of [`COMBINERS`] of the accumulator, which nothing else reads. Anything else stays
//! loops; a module whose script fails anyway is compiled again without this step
//! (`cpu.rs`).

use super::cpu::divisor;
use melior::Context;
use melior::ir::BlockLike;
use melior::ir::attribute::AttributeLike;
use melior::ir::operation::{OperationLike, OperationMutLike};
use melior::ir::r#type::TypeLike;
use melior::ir::{Attribute, Module, RegionLike, ValueLike};

/// Ops the vectorizer folds as a reduction's combiner (its `getCombinerOpKind`).
pub(crate) const COMBINERS: &[&str] = &[
    "arith.addf",
    "arith.mulf",
    "arith.maximumf",
    "arith.minimumf",
    "arith.maxnumf",
    "arith.minnumf",
    "arith.addi",
    "arith.muli",
    "arith.maxsi",
    "arith.minsi",
    "arith.maxui",
    "arith.minui",
    "arith.andi",
    "arith.ori",
    "arith.xori",
];

/// Reduced elements folded per step of the innermost reduction loop.
const STEP: usize = 8;

/// One tagged reduction and its tiling.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Reduction {
    /// Its `shardc.red` tag.
    pub tag: usize,
    /// Tile size per loop (0: not tiled).
    pub tiles: Vec<usize>,
    /// The tiled loops' order, outermost first: kept loops, then reduced ones in order.
    pub interchange: Vec<usize>,
}

/// The tiling of a generic with these loops (`(reduced, size)` each) whose result has
/// `lanes` elements per vector: the innermost kept loop by `lanes`, the innermost reduced
/// loop by [`STEP`], the others by 1; kept loops outside reduced ones, each group in its
/// order.
///
/// `None` unless the innermost loop is reduced. When it is kept (a column sum, a bias
/// gradient), the loops already run along memory with independent accumulators that
/// LLVM's loop vectorizer takes; tiled, they would walk the input by columns: 2048 x 768
/// summed over rows took 0.18 ms tiled against 0.06 ms as loops (`shardc bench kernels`).
pub(crate) fn tiling(loops: &[(bool, usize)], lanes: usize) -> Option<(Vec<usize>, Vec<usize>)> {
    let reduced = loops.len().checked_sub(1).filter(|&d| loops[d].0)?;
    let kept = loops.iter().rposition(|&(r, _)| !r);
    let tiles = loops
        .iter()
        .enumerate()
        .map(|(d, &(_, size))| {
            let t = if Some(d) == kept {
                divisor(size, lanes)
            } else if d == reduced {
                divisor(size, STEP)
            } else {
                1
            };
            // A tile as large as the loop is no loop.
            if t >= size { 0 } else { t }
        })
        .collect();
    let interchange = (0..loops.len())
        .filter(|&d| !loops[d].0)
        .chain((0..loops.len()).filter(|&d| loops[d].0))
        .collect();
    Some((tiles, interchange))
}

/// Tags the reduction generics of `module`'s functions that can be vectorized in order
/// and returns their tilings (`wide`: 64-byte vectors, else 32).
pub(crate) fn tag(ctx: &Context, module: &mut Module, wide: bool) -> Vec<Reduction> {
    let vector_bytes = if wide { 64 } else { 32 };
    let mut found = Vec::new();
    let body = module.body();
    let mut func = body.first_operation();
    while let Some(f) = func {
        func = f.next_in_block();
        let Some(block) = f.first_region().and_then(|r| r.first_block()) else {
            continue;
        };
        let mut op = block.first_operation_mut();
        while let Some(mut o) = op {
            op = o.next_in_block_mut();
            if o.name().as_string_ref().as_str() != Ok("linalg.generic") {
                continue;
            }
            let Some((loops, bits)) = reduction_loops(&o) else {
                continue;
            };
            let lanes = (vector_bytes * 8 / bits.max(8)).max(1);
            let Some((tiles, interchange)) = tiling(&loops, lanes) else {
                continue;
            };
            let tag = found.len();
            let attr = Attribute::parse(ctx, &format!("{tag} : i64"))
                .expect("an integer attribute parses");
            o.set_attribute("shardc.red", attr);
            found.push(Reduction {
                tag,
                tiles,
                interchange,
            });
        }
    }
    found
}

/// A generic's loops (`(reduced, size)`) and its result's element width in bits, when
/// it is a reduction this step vectorizes (see the module's docs).
fn reduction_loops<'c: 'a, 'a>(
    op: &impl OperationLike<'c, 'a>,
) -> Option<(Vec<(bool, usize)>, usize)> {
    if op.result_count() != 1 {
        return None;
    }
    let iterators = array(op.attribute("iterator_types").ok()?)?;
    let reduced: Vec<bool> = iterators
        .iter()
        .map(|a| a.to_string().contains("reduction"))
        .collect();
    if !reduced.contains(&true) {
        return None;
    }
    let maps = array(op.attribute("indexing_maps").ok()?)?;
    if maps.len() != op.operand_count() {
        return None;
    }
    let mut sizes: Vec<Option<usize>> = vec![None; reduced.len()];
    let mut bits = 0;
    for (i, map) in maps.iter().enumerate() {
        let ty = op.operand(i).ok()?.r#type().to_raw();
        // SAFETY: `ty` is a live type of this context; each call reads it only.
        let (rank, element) = unsafe {
            if !mlir_sys::mlirTypeIsAShaped(ty) || !mlir_sys::mlirShapedTypeHasStaticShape(ty) {
                return None;
            }
            (
                mlir_sys::mlirShapedTypeGetRank(ty) as usize,
                mlir_sys::mlirShapedTypeGetElementType(ty),
            )
        };
        let width = element_bits(element)?;
        if width == 1 {
            return None;
        }
        if i + 1 == maps.len() {
            bits = width;
        }
        // SAFETY: an `indexing_maps` element is an affine map attribute (the op verified).
        let map = unsafe { mlir_sys::mlirAffineMapAttrGetValue(map.to_raw()) };
        // SAFETY: reading a live affine map.
        let results = unsafe { mlir_sys::mlirAffineMapGetNumResults(map) } as usize;
        if results != rank {
            return None;
        }
        for j in 0..rank {
            // SAFETY: `j` is below the map's result count.
            let e = unsafe { mlir_sys::mlirAffineMapGetResult(map, j as isize) };
            // SAFETY: reading a live affine expression.
            if !unsafe { mlir_sys::mlirAffineExprIsADim(e) } {
                return None;
            }
            // SAFETY: a dimension expression, checked above.
            let d = unsafe { mlir_sys::mlirAffineDimExprGetPosition(e) } as usize;
            // SAFETY: `j` is below the static type's rank.
            let size = unsafe { mlir_sys::mlirShapedTypeGetDimSize(ty, j as isize) } as usize;
            match sizes.get_mut(d)? {
                Some(s) if *s != size => return None,
                slot => *slot = Some(size),
            }
        }
    }
    let loops = reduced
        .iter()
        .zip(&sizes)
        .map(|(&r, s)| s.map(|s| (r, s)))
        .collect::<Option<Vec<_>>>()?;
    folds_in_order(op).then_some((loops, bits))
}

/// Whether the body yields one of [`COMBINERS`] of the accumulator (the last block
/// argument) and nothing else reads the accumulator: what the vectorizer folds.
fn folds_in_order<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>) -> bool {
    let Some(block) = op.first_region().and_then(|r| r.first_block()) else {
        return false;
    };
    let Some(acc) = block
        .argument_count()
        .checked_sub(1)
        .and_then(|i| block.argument(i).ok())
    else {
        return false;
    };
    let acc = acc.to_raw();
    let Some(combiner) = block
        .terminator()
        .and_then(|t| t.operand(0).ok())
        .and_then(|v| {
            // SAFETY: reading a live value; an op result's owner is its defining op.
            unsafe {
                if mlir_sys::mlirValueIsAOpResult(v.to_raw()) {
                    Some(mlir_sys::mlirOpResultGetOwner(v.to_raw()))
                } else {
                    None
                }
            }
        })
    else {
        return false;
    };
    let mut readers = 0;
    let mut combines = false;
    let mut o = block.first_operation();
    while let Some(x) = o {
        o = x.next_in_block();
        let reads = x.operands().any(|v| {
            // SAFETY: comparing two live values.
            unsafe { mlir_sys::mlirValueEqual(v.to_raw(), acc) }
        });
        if reads {
            readers += 1;
            // SAFETY: comparing two live ops.
            let is_combiner = unsafe { mlir_sys::mlirOperationEqual(x.to_raw(), combiner) };
            let name = x.name();
            combines = is_combiner
                && name
                    .as_string_ref()
                    .as_str()
                    .is_ok_and(|n| COMBINERS.contains(&n));
        }
    }
    readers == 1 && combines
}

/// An array attribute's elements.
fn array(a: Attribute) -> Option<Vec<Attribute>> {
    // SAFETY: reading a live attribute; elements are in range.
    unsafe {
        if !mlir_sys::mlirAttributeIsAArray(a.to_raw()) {
            return None;
        }
        let n = mlir_sys::mlirArrayAttrGetNumElements(a.to_raw());
        Some(
            (0..n)
                .map(|i| Attribute::from_raw(mlir_sys::mlirArrayAttrGetElement(a.to_raw(), i)))
                .collect(),
        )
    }
}

/// The width of an integer or float element type, `None` for others (index, complex).
fn element_bits(t: mlir_sys::MlirType) -> Option<usize> {
    // SAFETY: reading a live type.
    unsafe {
        if mlir_sys::mlirTypeIsAInteger(t) {
            Some(mlir_sys::mlirIntegerTypeGetWidth(t) as usize)
        } else if mlir_sys::mlirTypeIsAFloat(t) {
            Some(mlir_sys::mlirFloatTypeGetWidth(t) as usize)
        } else {
            None
        }
    }
}

/// The transform-script lines that tile and vectorize `reductions` in `%root` (whose
/// functions are matched as `%fr`), hoist their accumulators into registers and lower
/// the folds to elementwise vector ops.
pub(crate) fn script(reductions: &[Reduction]) -> Vec<String> {
    let any = "!transform.any_op";
    let mut lines = Vec::new();
    for r in reductions {
        let t = r.tag;
        lines.push(format!(
            "%red{t} = transform.structured.match ops{{[\"linalg.generic\"]}} attributes {{shardc.red = {t} : i64}} in %root : ({any}) -> {any}"
        ));
        let loops = r.tiles.iter().filter(|&&s| s > 0).count();
        let handle = if loops == 0 {
            format!("%red{t}")
        } else {
            let results = vec![any; loops + 1].join(", ");
            let names = if loops == 1 {
                format!("%redl{t}")
            } else {
                format!("%redl{t}:{loops}")
            };
            lines.push(format!(
                "%redt{t}, {names} = transform.structured.tile_using_for %red{t} tile_sizes [{}] interchange = [{}] : ({any}) -> ({results})",
                join(&r.tiles),
                join(&r.interchange)
            ));
            format!("%redt{t}")
        };
        lines.push(format!("transform.structured.vectorize {handle} : {any}"));
    }
    lines.push(format!(
        "%fr = transform.structured.match ops{{[\"func.func\"]}} in %root : ({any}) -> {any}"
    ));
    lines.push(format!(
        "transform.apply_patterns to %fr {{ transform.apply_patterns.linalg.tiling_canonicalization transform.apply_patterns.vector.transfer_permutation_patterns transform.apply_patterns.tensor.fold_tensor_subset_ops_into_vector_transfers transform.apply_patterns.canonicalization }} : {any}"
    ));
    // Inner loops first: an accumulator leaves the outer reduction loops once it has
    // left the inner one, so the loops are matched and hoisted twice.
    for pass in 0..2 {
        lines.push(format!(
            "%redloops{pass} = transform.structured.match ops{{[\"scf.for\"]}} in %root : ({any}) -> {any}"
        ));
        lines.push(format!(
            "transform.loop.hoist_loop_invariant_subsets %redloops{pass} : {any}"
        ));
    }
    lines.push(format!(
        "transform.apply_patterns to %fr {{ transform.apply_patterns.vector.lower_multi_reduction lowering_strategy = \"innerparallel\" transform.apply_patterns.canonicalization }} : {any}"
    ));
    lines
}

fn join(v: &[usize]) -> String {
    v.iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_sum_puts_rows_in_lanes_and_folds_eight_columns_per_step() {
        // sum over k of x[r, k], 64 x 32, 16 lanes.
        let (tiles, inter) = tiling(&[(false, 64), (true, 32)], 16).unwrap();
        assert_eq!(tiles, vec![16, 8]);
        assert_eq!(inter, vec![0, 1]);
    }

    #[test]
    fn reductions_over_outer_dimensions_keep_the_loops_along_memory() {
        // A bias gradient: sum over [b, s] of g[b, s, d] (LLVM vectorizes along d).
        assert_eq!(tiling(&[(true, 4), (true, 16), (false, 64)], 16), None);
        // Reduced over [0, 2] of [b, s, d]: kept loops outside, reduced ones in order.
        let (tiles, inter) = tiling(&[(true, 4), (false, 32), (true, 64)], 16).unwrap();
        assert_eq!(tiles, vec![1, 16, 8]);
        assert_eq!(inter, vec![1, 0, 2]);
    }

    #[test]
    fn sizes_that_do_not_divide_get_the_largest_power_of_two_that_does() {
        let (tiles, _) = tiling(&[(false, 12), (true, 20)], 16).unwrap();
        assert_eq!(tiles, vec![4, 4]);
        // A loop no larger than its tile is not tiled; a full reduction has no lanes.
        let (tiles, inter) = tiling(&[(false, 8), (true, 5)], 16).unwrap();
        assert_eq!(tiles, vec![0, 1]);
        assert_eq!(inter, vec![0, 1]);
        let (tiles, _) = tiling(&[(true, 3), (true, 64)], 16).unwrap();
        assert_eq!(tiles, vec![1, 8]);
        assert_eq!(tiling(&[(false, 8), (false, 8)], 16), None);
    }
}
