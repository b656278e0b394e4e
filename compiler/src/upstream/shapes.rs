//! The per-device type a sharding implies, computed independently of upstream, and the
//! judgement of the type upstream produced.

use super::report::{Expected, Grid, ShapeVerdict, Sharding, TensorType};

/// The type every device should hold for a value of type `global` sharded by `sharding` on
/// `grid`. A dimension split over `N` devices has size `size / N` when `N` divides it (plus
/// halos); explicit offsets give each device its own size.
pub fn expected_local(global: &TensorType, sharding: &Sharding, grid: &Grid) -> Expected {
    let rank = global.dims.len();
    if sharding.split_axes.len() > rank {
        return Expected::Unknown {
            reason: format!(
                "the sharding splits {} dimensions of a rank-{rank} tensor",
                sharding.split_axes.len()
            ),
        };
    }
    let mut offsets = sharding.sharded_dims_offsets.as_slice();
    let mut dims = global.dims.clone();
    for (dim, axes) in sharding.split_axes.iter().enumerate() {
        if axes.is_empty() {
            continue;
        }
        let Some(shards) = grid.group_size(axes) else {
            return Expected::Unknown {
                reason: format!("dimension {dim} is split over a dynamic or missing grid axis"),
            };
        };
        let Some(size) = global.dims[dim] else {
            // A dynamic dimension stays dynamic.
            continue;
        };
        if !sharding.sharded_dims_offsets.is_empty() {
            let count = shards as usize + 1;
            if offsets.len() < count {
                return Expected::Unknown {
                    reason: "fewer sharded_dims_offsets than split dimensions need".to_string(),
                };
            }
            let (these, rest) = offsets.split_at(count);
            offsets = rest;
            if these.iter().any(|&o| o < 0) {
                return Expected::Unknown {
                    reason: "dynamic sharded_dims_offsets".to_string(),
                };
            }
            let sizes: Vec<u64> = these.windows(2).map(|w| (w[1] - w[0]) as u64).collect();
            if sizes.iter().any(|&s| s != sizes[0]) {
                return Expected::Uneven { dim, sizes };
            }
            dims[dim] = Some(sizes[0]);
            continue;
        }
        if size % shards != 0 {
            return Expected::NotDivisible { dim, size, shards };
        }
        let mut local = size / shards;
        if !sharding.halo_sizes.is_empty() {
            match (
                sharding.halo_sizes.get(2 * dim),
                sharding.halo_sizes.get(2 * dim + 1),
            ) {
                (Some(&low), Some(&high)) if low >= 0 && high >= 0 => {
                    local += (low + high) as u64;
                }
                _ => {
                    return Expected::Unknown {
                        reason: format!("no static halo sizes for dimension {dim}"),
                    };
                }
            }
        }
        dims[dim] = Some(local);
    }
    Expected::Type(global.with_dims(dims))
}

/// Judges the type upstream produced against the expectation.
pub fn judge(expected: &Expected, actual: Option<&TensorType>) -> ShapeVerdict {
    let Some(actual) = actual else {
        return ShapeVerdict::Unchecked;
    };
    match expected {
        Expected::Type(t) => {
            if t.dims == actual.dims && t.element == actual.element {
                ShapeVerdict::Ok
            } else {
                ShapeVerdict::WrongShape
            }
        }
        Expected::NotDivisible { dim, size, shards } => {
            // Any type is wrong here: the right answer was an error.
            if actual.dims.get(*dim) == Some(&Some(size / shards)) {
                ShapeVerdict::SilentTruncation
            } else {
                ShapeVerdict::WrongShape
            }
        }
        // Only a dynamic size can describe every device.
        Expected::Uneven { dim, .. } => {
            if actual.dims.get(*dim) == Some(&None) {
                ShapeVerdict::Ok
            } else {
                ShapeVerdict::WrongShape
            }
        }
        Expected::Unknown { .. } => ShapeVerdict::Unchecked,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid() -> Grid {
        Grid {
            name: "mesh_data2_model4".to_string(),
            shape: vec![Some(2), Some(4)],
        }
    }

    fn f32_tensor(dims: &[u64]) -> TensorType {
        TensorType {
            text: String::new(),
            dims: vec![],
            element: "f32".to_string(),
            element_bytes: Some(4),
        }
        .with_dims(dims.iter().map(|&d| Some(d)).collect())
    }

    fn sharding(split_axes: Vec<Vec<u16>>) -> Sharding {
        Sharding {
            grid: "mesh_data2_model4".to_string(),
            split_axes,
            halo_sizes: vec![],
            sharded_dims_offsets: vec![],
        }
    }

    #[test]
    fn divisible_dimensions_divide() {
        let expected = expected_local(
            &f32_tensor(&[8, 16]),
            &sharding(vec![vec![0], vec![1]]),
            &grid(),
        );
        assert_eq!(expected, Expected::Type(f32_tensor(&[4, 4])));
        assert_eq!(expected.to_string(), "tensor<4x4xf32>");
        let expected = expected_local(
            &f32_tensor(&[8, 16]),
            &sharding(vec![vec![], vec![0, 1]]),
            &grid(),
        );
        assert_eq!(expected, Expected::Type(f32_tensor(&[8, 2])));
    }

    #[test]
    fn non_divisible_is_an_error_and_floor_is_truncation() {
        let expected = expected_local(&f32_tensor(&[6, 16]), &sharding(vec![vec![1]]), &grid());
        assert_eq!(
            expected,
            Expected::NotDivisible {
                dim: 0,
                size: 6,
                shards: 4
            }
        );
        assert_eq!(
            judge(&expected, Some(&f32_tensor(&[1, 16]))),
            ShapeVerdict::SilentTruncation
        );
        assert_eq!(
            judge(&expected, Some(&f32_tensor(&[2, 16]))),
            ShapeVerdict::WrongShape
        );
    }

    #[test]
    fn offsets_and_halos() {
        let mut uneven = sharding(vec![vec![1]]);
        uneven.sharded_dims_offsets = vec![0, 2, 4, 5, 6];
        let expected = expected_local(&f32_tensor(&[6, 16]), &uneven, &grid());
        assert_eq!(
            expected,
            Expected::Uneven {
                dim: 0,
                sizes: vec![2, 2, 1, 1]
            }
        );
        let mut halo = sharding(vec![vec![1]]);
        halo.halo_sizes = vec![2, 1];
        let expected = expected_local(&f32_tensor(&[8, 16]), &halo, &grid());
        assert_eq!(expected, Expected::Type(f32_tensor(&[5, 16])));
    }

    #[test]
    fn wrong_shape_is_caught() {
        let expected = expected_local(&f32_tensor(&[8, 16]), &sharding(vec![vec![]]), &grid());
        assert_eq!(
            judge(&expected, Some(&f32_tensor(&[8, 4]))),
            ShapeVerdict::WrongShape
        );
        assert_eq!(
            judge(&expected, Some(&f32_tensor(&[8, 16]))),
            ShapeVerdict::Ok
        );
        assert_eq!(judge(&expected, None), ShapeVerdict::Unchecked);
    }
}
