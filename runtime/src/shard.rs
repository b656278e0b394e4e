//! Moving between a global tensor and its per-device pieces under a sharding.
//!
//! Pieces are named by the [`MeshPosition`] that holds them (a slice of pieces is in
//! position order); `Mesh::device_at` says which device is at a position, where a backend
//! needs its id.
//!
//! A dimension split over axes `[a, b]` (major to minor) is cut into `|a| * |b|` equal
//! blocks, and the device at mesh coordinates `c` holds block `c[a] * |b| + c[b]`.
//! A value *unreduced* over some axes is the sum (or max, min) of the pieces the devices
//! along those axes hold.
//!
//! A dimension its axes do not divide is an error, unless padding is asked for
//! ([`Uneven::Pad`], the `_with` functions): then each of its `k` blocks holds
//! `ceil(n / k)` elements, the ones past `n` are padding, [`shard_with`] fills them with
//! [`poison`] (NaN for floats) and [`unshard_with`] ignores them. A compiled program never
//! reads padding unmasked, so the poison shows in the results only if it did.

use shardc_ir::{
    AxisRef, Elements, Literal, Mesh, MeshPosition, Reduction, Sharding, TensorType, Uneven,
};
use thiserror::Error;

/// Why a tensor cannot be split into, or put together from, per-device pieces.
#[derive(Debug, Error, PartialEq)]
pub enum ShardError {
    /// A sharding names an axis the mesh does not have.
    #[error("axis \"{axis}\" of the sharding is not an axis of mesh @{mesh}")]
    UnknownAxis {
        /// The axis named.
        axis: String,
        /// The mesh's name.
        mesh: String,
    },
    /// A dimension its axes do not divide (and no padding was asked for).
    #[error("dimension {dim} of {ty} (size {size}) is not divisible into {shards} shards")]
    NotDivisible {
        /// The global type.
        ty: TensorType,
        /// The dimension, from 0.
        dim: usize,
        /// Its size.
        size: usize,
        /// The shards its axes make.
        shards: usize,
    },
    /// A sharding of another rank than the tensor's.
    #[error("sharding of rank {sharding} applied to {ty}")]
    Rank {
        /// The tensor's type.
        ty: TensorType,
        /// The sharding's rank.
        sharding: usize,
    },
    /// Pieces given for another number of devices than the mesh has.
    #[error("expected {want} per-device pieces (one per device of the mesh), got {got}")]
    PieceCount {
        /// The mesh's devices.
        want: usize,
        /// The pieces given.
        got: usize,
    },
    /// A piece whose type is not the one the sharding gives its position.
    #[error("the piece at {position} is {got}, but the sharding makes it {want}")]
    PieceType {
        /// The piece's mesh position.
        position: MeshPosition,
        /// Its type.
        got: TensorType,
        /// The type its position's block has.
        want: TensorType,
    },
    /// Two pieces that hold the same global elements disagree beyond the tolerance.
    #[error(
        "replicas disagree at global index {index:?}: the piece at {first} holds {a} and the one at {other} holds {b} (tolerance {tol})"
    )]
    ReplicasDisagree {
        /// The global index of the element.
        index: Vec<usize>,
        /// The first piece holding it.
        first: MeshPosition,
        /// The piece that disagrees.
        other: MeshPosition,
        /// The first piece's value.
        a: f64,
        /// The other piece's value.
        b: f64,
        /// The tolerance (absolute and relative).
        tol: f64,
    },
}

/// The size of an axis or sub-axis.
pub fn axis_size(mesh: &Mesh, axis: &AxisRef) -> Result<usize, ShardError> {
    axis.size(mesh).ok_or_else(|| unknown(mesh, axis))
}

fn unknown(mesh: &Mesh, axis: &AxisRef) -> ShardError {
    ShardError::UnknownAxis {
        axis: axis.name.clone(),
        mesh: mesh.name.clone(),
    }
}

/// The linear index of a device within a list of axes (major to minor), and the group size.
pub fn group_index(
    mesh: &Mesh,
    coords: &[usize],
    axes: &[AxisRef],
) -> Result<(usize, usize), ShardError> {
    mesh.group_index(coords, axes).ok_or_else(|| {
        let bad = axes
            .iter()
            .find(|a| a.size(mesh).is_none())
            .unwrap_or(&axes[0]);
        unknown(mesh, bad)
    })
}

/// The global offset and size of the block of each dimension a device holds.
pub fn local_block(
    mesh: &Mesh,
    sharding: &Sharding,
    global: &[usize],
    position: MeshPosition,
) -> Result<Vec<(usize, usize)>, ShardError> {
    local_block_with(mesh, sharding, global, position, Uneven::Refuse)
}

/// [`local_block`] under an `uneven` policy: with [`Uneven::Pad`], a dimension its axes do
/// not divide has blocks of `ceil(n / k)`, whose elements past `n` are padding (so a block
/// may reach past the end of the dimension, or start there).
pub fn local_block_with(
    mesh: &Mesh,
    sharding: &Sharding,
    global: &[usize],
    position: MeshPosition,
    uneven: Uneven,
) -> Result<Vec<(usize, usize)>, ShardError> {
    let coords = mesh.coords(position);
    sharding
        .dims
        .iter()
        .zip(global)
        .enumerate()
        .map(|(d, (dim, &size))| {
            let (index, shards) = group_index(mesh, &coords, &dim.axes)?;
            if uneven.pads() {
                let block = size.div_ceil(shards);
                return Ok((index * block, block));
            }
            if size % shards != 0 {
                let ty = TensorType::new(shardc_ir::DType::F32, global);
                return Err(ShardError::NotDivisible {
                    ty,
                    dim: d,
                    size,
                    shards,
                });
            }
            let block = size / shards;
            Ok((index * block, block))
        })
        .collect()
}

fn check_rank(ty: &TensorType, sharding: &Sharding) -> Result<(), ShardError> {
    if sharding.rank() != ty.rank() {
        return Err(ShardError::Rank {
            ty: ty.clone(),
            sharding: sharding.rank(),
        });
    }
    Ok(())
}

/// Flat indices of a block of a row-major tensor, in row-major order of the block; `None`
/// for the block's padding (positions past the end of a dimension).
fn block_indices(shape: &[usize], block: &[(usize, usize)]) -> Vec<Option<usize>> {
    let strides = shardc_ir::dtype::row_major_strides(shape);
    let mut out = vec![Some(0usize)];
    for (d, &(off, len)) in block.iter().enumerate() {
        let mut next = Vec::with_capacity(out.len() * len);
        for base in &out {
            for i in 0..len {
                let inside = off + i < shape[d];
                next.push(base.filter(|_| inside).map(|b| b + (off + i) * strides[d]));
            }
        }
        out = next;
    }
    out
}

/// The piece of `global` the device at `position` holds under `sharding`.
///
/// For a value unreduced over some axes, the device at index 0 along them holds the
/// value and the others hold the reduction's identity (0 for a sum); for max and min every
/// device holds the value.
pub fn shard(
    global: &Literal,
    sharding: &Sharding,
    mesh: &Mesh,
    position: MeshPosition,
) -> Result<Literal, ShardError> {
    shard_with(global, sharding, mesh, position, Uneven::Refuse)
}

/// [`shard`] under an `uneven` policy: with [`Uneven::Pad`], the padding of a block
/// (positions past the end of a dimension its axes do not divide) holds zeros.
pub fn shard_with(
    global: &Literal,
    sharding: &Sharding,
    mesh: &Mesh,
    position: MeshPosition,
    uneven: Uneven,
) -> Result<Literal, ShardError> {
    check_rank(&global.ty, sharding)?;
    let dense = if global.is_splat() {
        std::borrow::Cow::Owned(global.to_dense())
    } else {
        std::borrow::Cow::Borrowed(global)
    };
    let block = local_block_with(mesh, sharding, &global.ty.shape, position, uneven)?;
    let shape: Vec<usize> = block.iter().map(|b| b.1).collect();
    let indices = block_indices(&global.ty.shape, &block);
    let mut elements = if indices.iter().all(Option::is_some) {
        dense
            .elements
            .gather(&indices.into_iter().flatten().collect::<Vec<_>>())
    } else {
        let pad = poison(global.ty.dtype);
        let bits: Vec<u64> = indices
            .iter()
            .map(|i| i.map_or(pad, |i| dense.elements.bits(i)))
            .collect();
        Elements::from_bits(global.ty.dtype, &bits)
    };
    let (unreduced_index, _) = group_index(mesh, &mesh.coords(position), &sharding.unreduced)?;
    // One device of each unreduced group holds the value; the others hold the identity
    // of a sum or a product (a max, min, and or or may hold the value everywhere).
    if unreduced_index != 0 {
        match sharding.reduction {
            Reduction::Sum => elements = Elements::zeros(global.ty.dtype, elements.len()),
            Reduction::Product => {
                elements = Elements::from_f64(global.ty.dtype, &vec![1.0; elements.len()])
            }
            _ => {}
        }
    }
    Ok(Literal {
        ty: TensorType::new(global.ty.dtype, shape),
        elements,
    })
}

/// The bits padding holds in the pieces [`shard_with`] makes: a quiet NaN for floats,
/// `0x5A5A...` for integers, `true` for `i1`. Never a value a masked read depends on.
pub fn poison(dtype: shardc_ir::DType) -> u64 {
    if dtype.is_float() {
        Elements::from_f64(dtype, &[f64::NAN]).bits(0)
    } else if dtype == shardc_ir::DType::I1 {
        1
    } else {
        0x5A5A_5A5A_5A5A_5A5A
    }
}

/// Every device's piece of `global`, by position.
pub fn shard_all(
    global: &Literal,
    sharding: &Sharding,
    mesh: &Mesh,
) -> Result<Vec<Literal>, ShardError> {
    shard_all_with(global, sharding, mesh, Uneven::Refuse)
}

/// [`shard_all`] under an `uneven` policy (see [`shard_with`]).
pub fn shard_all_with(
    global: &Literal,
    sharding: &Sharding,
    mesh: &Mesh,
    uneven: Uneven,
) -> Result<Vec<Literal>, ShardError> {
    mesh.positions()
        .map(|p| shard_with(global, sharding, mesh, p, uneven))
        .collect()
}

/// Reassembles a global value from every device's piece: reduces over the unreduced axes,
/// places each block, and checks that devices holding the same block agree within `tol`
/// (absolute, plus `tol` relative to the magnitude).
pub fn unshard(
    pieces: &[Literal],
    sharding: &Sharding,
    mesh: &Mesh,
    global: &TensorType,
    tol: f64,
) -> Result<Literal, ShardError> {
    unshard_with(pieces, sharding, mesh, global, tol, Uneven::Refuse)
}

/// [`unshard`] under an `uneven` policy: with [`Uneven::Pad`], pieces have padded blocks
/// (see [`local_block_with`]) and their padding is ignored (it may hold anything).
pub fn unshard_with(
    pieces: &[Literal],
    sharding: &Sharding,
    mesh: &Mesh,
    global: &TensorType,
    tol: f64,
    uneven: Uneven,
) -> Result<Literal, ShardError> {
    check_rank(global, sharding)?;
    let n = mesh.num_devices();
    if pieces.len() != n {
        return Err(ShardError::PieceCount {
            want: n,
            got: pieces.len(),
        });
    }
    if let Some(exact) = unshard_exact(pieces, sharding, mesh, global, uneven)? {
        return Ok(exact);
    }
    let mut values: Vec<Option<(f64, usize)>> = vec![None; global.num_elements()];
    // Partial sums: first reduce each unreduced group into the piece at index 0.
    let mut reduced: Vec<Option<Vec<f64>>> = vec![None; n];
    for at in mesh.positions() {
        let p = at.0;
        let block = local_block_with(mesh, sharding, &global.shape, at, uneven)?;
        let want = TensorType::new(global.dtype, block.iter().map(|b| b.1).collect::<Vec<_>>());
        if pieces[p].ty != want {
            return Err(ShardError::PieceType {
                position: at,
                got: pieces[p].ty.clone(),
                want,
            });
        }
        let coords = mesh.coords(at);
        let (u, _) = group_index(mesh, &coords, &sharding.unreduced)?;
        if u != 0 {
            continue;
        }
        // Sum (or max/min) the pieces of every device in this device's unreduced group.
        let mut acc = pieces[p].to_f64_vec();
        for (q, piece) in pieces.iter().enumerate() {
            if q == p {
                continue;
            }
            let cq = mesh.coords(MeshPosition(q));
            let same_group = (0..coords.len()).all(|i| {
                let axis = &mesh.axes[i].name;
                sharding.unreduced.iter().any(|a| &a.name == axis) || cq[i] == coords[i]
            });
            if !same_group {
                continue;
            }
            for (a, b) in acc.iter_mut().zip(piece.to_f64_vec()) {
                *a = sharding.reduction.combine(*a, b);
            }
        }
        reduced[p] = Some(acc);
    }
    for (p, acc) in reduced.iter().enumerate() {
        let Some(acc) = acc else { continue };
        let block = local_block_with(mesh, sharding, &global.shape, MeshPosition(p), uneven)?;
        for (k, flat) in block_indices(&global.shape, &block).into_iter().enumerate() {
            let Some(flat) = flat else { continue };
            let v = acc[k];
            match values[flat] {
                None => values[flat] = Some((v, p)),
                Some((w, first)) => {
                    // Equal values (infinities of one sign included: inf - inf is NaN),
                    // both NaN, or within the tolerance.
                    let same = v == w
                        || (v.is_nan() && w.is_nan())
                        || (v - w).abs() <= tol * (1.0 + w.abs());
                    if !same {
                        let index = unflatten(flat, &global.shape);
                        return Err(ShardError::ReplicasDisagree {
                            index,
                            first: MeshPosition(first),
                            other: MeshPosition(p),
                            a: w,
                            b: v,
                            tol,
                        });
                    }
                }
            }
        }
    }
    let flat: Vec<f64> = values
        .into_iter()
        .map(|v| v.map(|(x, _)| x).unwrap_or(0.0))
        .collect();
    Ok(Literal {
        ty: global.clone(),
        elements: Elements::from_f64(global.dtype, &flat),
    })
}

/// [`unshard_with`]'s common case, in the pieces' own dtype: no unreduced axes, and every
/// replica of an element equal to the first (`==`: NaNs and anything else go the general
/// way, which applies the tolerance and names a disagreement). `None` where the general
/// way must decide (it also reports wrong piece types).
fn unshard_exact(
    pieces: &[Literal],
    sharding: &Sharding,
    mesh: &Mesh,
    global: &TensorType,
    uneven: Uneven,
) -> Result<Option<Literal>, ShardError> {
    fn place<T: Copy + PartialEq>(
        out: &mut [T],
        piece: &[T],
        indices: &[Option<usize>],
        filled: &mut [bool],
    ) -> bool {
        for (&v, i) in piece.iter().zip(indices) {
            let Some(i) = *i else { continue };
            if filled[i] {
                if out[i] != v {
                    return false;
                }
            } else {
                out[i] = v;
                filled[i] = true;
            }
        }
        true
    }
    if !sharding.unreduced.is_empty() {
        return Ok(None);
    }
    let mut out = Elements::zeros(global.dtype, global.num_elements());
    let mut filled = vec![false; global.num_elements()];
    for (p, piece) in pieces.iter().enumerate() {
        let block = local_block_with(mesh, sharding, &global.shape, MeshPosition(p), uneven)?;
        if piece.ty.dtype != global.dtype || piece.ty.shape.iter().ne(block.iter().map(|b| &b.1)) {
            return Ok(None);
        }
        let indices = block_indices(&global.shape, &block);
        let dense = if piece.is_splat() {
            std::borrow::Cow::Owned(piece.to_dense())
        } else {
            std::borrow::Cow::Borrowed(piece)
        };
        let ok = match (&mut out, &dense.elements) {
            (Elements::F32(o), Elements::F32(v)) => place(o, v, &indices, &mut filled),
            (Elements::F64(o), Elements::F64(v)) => place(o, v, &indices, &mut filled),
            (Elements::BF16(o), Elements::BF16(v)) => place(o, v, &indices, &mut filled),
            (Elements::F16(o), Elements::F16(v)) => place(o, v, &indices, &mut filled),
            (Elements::I32(o), Elements::I32(v)) => place(o, v, &indices, &mut filled),
            (Elements::I64(o), Elements::I64(v)) => place(o, v, &indices, &mut filled),
            (Elements::I1(o), Elements::I1(v)) => place(o, v, &indices, &mut filled),
            (Elements::I8(o), Elements::I8(v)) => place(o, v, &indices, &mut filled),
            (Elements::I16(o), Elements::I16(v)) => place(o, v, &indices, &mut filled),
            (Elements::U8(o), Elements::U8(v)) => place(o, v, &indices, &mut filled),
            (Elements::U16(o), Elements::U16(v)) => place(o, v, &indices, &mut filled),
            (Elements::U32(o), Elements::U32(v)) => place(o, v, &indices, &mut filled),
            (Elements::U64(o), Elements::U64(v)) => place(o, v, &indices, &mut filled),
            // The dtypes were checked equal above; a mismatch of variants cannot occur.
            _ => false,
        };
        if !ok {
            return Ok(None);
        }
    }
    Ok(Some(Literal {
        ty: global.clone(),
        elements: out,
    }))
}

fn unflatten(mut flat: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        idx[d] = flat % shape[d];
        flat /= shape[d];
    }
    idx
}

#[cfg(test)]
mod tests {
    use super::*;
    use shardc_ir::DType;

    fn mesh24() -> Mesh {
        Mesh::new("mesh", &[("data", 2), ("model", 4)]).unwrap()
    }

    fn iota(shape: &[usize]) -> Literal {
        let n: usize = shape.iter().product();
        Literal::from_f64(
            DType::F32,
            shape,
            &(0..n).map(|i| i as f64).collect::<Vec<_>>(),
        )
        .unwrap()
    }

    #[test]
    fn blocks_follow_axis_order() {
        let m = mesh24();
        let x = iota(&[8, 2]);
        // rows over (data, model): device (d, m) holds row block d*4 + m.
        let s = Sharding::split("mesh", &[&["data", "model"], &[]]);
        // position 6 = coords (1, 2) -> block 6 -> row 6.
        assert_eq!(
            shard(&x, &s, &m, MeshPosition(6)).unwrap().to_f64_vec(),
            vec![12.0, 13.0]
        );
        // rows over (model, data): block = m*2 + d = 5 -> row 5.
        let s2 = Sharding::split("mesh", &[&["model", "data"], &[]]);
        assert_eq!(
            shard(&x, &s2, &m, MeshPosition(6)).unwrap().to_f64_vec(),
            vec![10.0, 11.0]
        );
    }

    #[test]
    fn replicas_reassemble_exactly_or_within_the_tolerance() {
        let mesh = mesh24();
        let s = Sharding::split("mesh", &[&["data"], &[]]);
        let ty = TensorType::new(DType::I64, [4, 2]);
        // Integers beyond f64's 53 bits come back exactly (the pieces' own dtype).
        let big: Vec<i64> = (0..8).map(|i| (1i64 << 60) + i).collect();
        let global = Literal::new(ty.clone(), Elements::I64(big.clone())).unwrap();
        let pieces: Vec<Literal> = (0..8)
            .map(|p| shard(&global, &s, &mesh, MeshPosition(p)).unwrap())
            .collect();
        let back = unshard(&pieces, &s, &mesh, &ty, 0.0).unwrap();
        assert_eq!(back.elements.bits(7), big[7] as u64);
        // Float replicas that differ in the last bits are accepted within the tolerance
        // and refused beyond it.
        let fty = TensorType::new(DType::F32, [4, 2]);
        let g = Literal::from_f64(DType::F32, &[4, 2], &[1.0; 8]).unwrap();
        let mut pieces: Vec<Literal> = (0..8)
            .map(|p| shard(&g, &s, &mesh, MeshPosition(p)).unwrap())
            .collect();
        pieces[1] = Literal::from_f64(DType::F32, &[2, 2], &[1.000001; 4]).unwrap();
        assert!(unshard(&pieces, &s, &mesh, &fty, 1e-5).is_ok());
        let err = unshard(&pieces, &s, &mesh, &fty, 1e-9).unwrap_err();
        assert!(matches!(err, ShardError::ReplicasDisagree { .. }), "{err}");
    }

    /// Replicas holding infinities next to NaNs agree: inf - inf is NaN, which must not
    /// make two equal infinities "disagree".
    #[test]
    fn replicas_of_infinities_and_nans_agree() {
        let mesh = mesh24();
        let s = Sharding::split("mesh", &[&["data"], &[]]);
        let ty = TensorType::new(DType::F32, [4, 2]);
        let v = [
            f64::INFINITY,
            f64::NAN,
            f64::NEG_INFINITY,
            1.0,
            2.0,
            f64::INFINITY,
            0.0,
            f64::NAN,
        ];
        let g = Literal::from_f64(DType::F32, &[4, 2], &v).unwrap();
        let pieces: Vec<Literal> = (0..8)
            .map(|p| shard(&g, &s, &mesh, MeshPosition(p)).unwrap())
            .collect();
        let back = unshard(&pieces, &s, &mesh, &ty, 1e-5).unwrap().to_f64_vec();
        for (b, w) in back.iter().zip(v) {
            assert!(b == &w || (b.is_nan() && w.is_nan()), "{back:?}");
        }
        // An infinity against a finite value still disagrees.
        let mut other = pieces.clone();
        other[1] = Literal::from_f64(DType::F32, &[2, 2], &[1.0, 1.0, 1.0, 1.0]).unwrap();
        assert!(unshard(&other, &s, &mesh, &ty, 1e-5).is_err());
    }

    #[test]
    fn unshard_inverts_shard_and_checks_replicas() {
        let m = mesh24();
        let x = iota(&[4, 8]);
        for s in [
            Sharding::split("mesh", &[&["data"], &["model"]]),
            Sharding::split("mesh", &[&[], &["data", "model"]]),
            Sharding::split("mesh", &[&["model"], &[]]),
            Sharding::replicated("mesh", 2),
        ] {
            let pieces = shard_all(&x, &s, &m).unwrap();
            assert_eq!(unshard(&pieces, &s, &m, &x.ty, 0.0).unwrap(), x, "{s}");
        }
        let s = Sharding::split("mesh", &[&["data"], &[]]);
        let mut pieces = shard_all(&x, &s, &m).unwrap();
        pieces[5] = Literal::from_f64(DType::F32, &[2, 8], &[0.0; 16]).unwrap();
        let err = unshard(&pieces, &s, &m, &x.ty, 1e-6).unwrap_err();
        assert!(
            matches!(
                err,
                ShardError::ReplicasDisagree {
                    other: MeshPosition(5),
                    ..
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn partial_sums_reduce() {
        let m = mesh24();
        let x = iota(&[2, 2]);
        let mut s = Sharding::split("mesh", &[&["data"], &[]]);
        s.unreduced.push(AxisRef::new("model"));
        let pieces = shard_all(&x, &s, &m).unwrap();
        // Only model-index 0 holds the value; the rest hold zeros.
        assert_eq!(pieces[1].to_f64_vec(), vec![0.0, 0.0]);
        assert_eq!(unshard(&pieces, &s, &m, &x.ty, 0.0).unwrap(), x);
        // Spread the value over the group: each device holds a quarter.
        let quarter: Vec<Literal> = (0..8)
            .map(|p| {
                let row = if p < 4 { [0.0, 1.0] } else { [2.0, 3.0] };
                Literal::from_f64(DType::F32, &[1, 2], &row.map(|v| v / 4.0)).unwrap()
            })
            .collect();
        assert_eq!(unshard(&quarter, &s, &m, &x.ty, 0.0).unwrap(), x);
    }

    /// Partial products: the devices past index 0 of the group hold ones, and the pieces
    /// multiply back; partial ands: every device may hold the value, and a single `false`
    /// anywhere in the group makes the element false.
    #[test]
    fn partial_products_and_ands_reduce() {
        let m = mesh24();
        let x = Literal::from_f64(DType::F32, &[2, 2], &[2.0, 3.0, 0.5, -4.0]).unwrap();
        let mut s = Sharding::split("mesh", &[&["data"], &[]]);
        s.unreduced.push(AxisRef::new("model"));
        s.reduction = Reduction::Product;
        let pieces = shard_all(&x, &s, &m).unwrap();
        assert_eq!(pieces[1].to_f64_vec(), vec![1.0, 1.0]);
        assert_eq!(unshard(&pieces, &s, &m, &x.ty, 0.0).unwrap(), x);
        // Each of the 4 devices of a group holding a factor: 2 = 2^(1/4)^4, etc.
        let factors: Vec<Literal> = (0..8)
            .map(|p| {
                let row = if p < 4 { [2.0f64, 3.0] } else { [0.5, -4.0] };
                let mine = if p % 4 == 0 { row } else { [1.0, 1.0] };
                Literal::from_f64(DType::F32, &[1, 2], &mine).unwrap()
            })
            .collect();
        assert_eq!(unshard(&factors, &s, &m, &x.ty, 0.0).unwrap(), x);

        let t = TensorType::new(DType::I1, [2, 2]);
        let truth = Literal::new(t.clone(), Elements::I1(vec![true, false, true, true])).unwrap();
        s.reduction = Reduction::And;
        let pieces = shard_all(&truth, &s, &m).unwrap();
        assert_eq!(pieces[1].elements, pieces[0].elements, "and is idempotent");
        assert_eq!(unshard(&pieces, &s, &m, &t, 0.0).unwrap(), truth);
        let mut one_false = pieces.clone();
        one_false[6] = Literal::new(
            TensorType::new(DType::I1, [1, 2]),
            Elements::I1(vec![false, true]),
        )
        .unwrap();
        let want = Literal::new(t.clone(), Elements::I1(vec![true, false, false, true])).unwrap();
        assert_eq!(unshard(&one_false, &s, &m, &t, 0.0).unwrap(), want);
    }

    #[test]
    fn padded_blocks_hold_zeros_past_the_end_and_unshard_ignores_them() {
        let m = mesh24();
        let x = iota(&[5, 2]);
        let s = Sharding::split("mesh", &[&["model"], &[]]);
        // 5 rows over 4 devices: not without padding...
        assert!(matches!(
            shard(&x, &s, &m, MeshPosition(0)),
            Err(ShardError::NotDivisible { dim: 0, .. })
        ));
        // ...with it, blocks of 2: rows 0-1, 2-3, 4 and a padding row, then padding only
        // (NaN: poison).
        let pieces = shard_all_with(&x, &s, &m, Uneven::Pad).unwrap();
        let v = pieces[2].to_f64_vec();
        assert_eq!(v[..2], [8.0, 9.0]);
        assert!(v[2..].iter().all(|x| x.is_nan()));
        assert!(pieces[3].to_f64_vec().iter().all(|x| x.is_nan()));
        assert_eq!(pieces[3].ty.shape, vec![2, 2]);
        let ints = Literal::from_f64(DType::I32, &[5], &[1.0; 5]).unwrap();
        let s1 = Sharding::split("mesh", &[&["model"]]);
        let last = shard_with(&ints, &s1, &m, MeshPosition(3), Uneven::Pad).unwrap();
        assert_eq!(
            last.to_f64_vec(),
            vec![f64::from(0x5A5A_5A5A_u32 as i32); 2]
        );
        // Garbage in the padding does not matter.
        let mut garbage = pieces.clone();
        garbage[3] = Literal::from_f64(DType::F32, &[2, 2], &[f64::NAN; 4]).unwrap();
        garbage[7] = Literal::from_f64(DType::F32, &[2, 2], &[7.0; 4]).unwrap();
        assert_eq!(
            unshard_with(&garbage, &s, &m, &x.ty, 0.0, Uneven::Pad).unwrap(),
            x
        );
    }

    #[test]
    fn sub_axes_index_digits() {
        let m = Mesh::new("mesh", &[("x", 8)]).unwrap();
        let hi = AxisRef {
            name: "x".into(),
            sub: Some(shardc_ir::SubAxis {
                pre_size: 1,
                size: 2,
            }),
        };
        let lo = AxisRef {
            name: "x".into(),
            sub: Some(shardc_ir::SubAxis {
                pre_size: 2,
                size: 4,
            }),
        };
        // x = 6 = 1*4 + 2: major digit 1 (size 2), minor digit 2 (size 4).
        assert_eq!(m.axis_coord(&[6], &hi).unwrap(), 1);
        assert_eq!(m.axis_coord(&[6], &lo).unwrap(), 2);
    }
}
