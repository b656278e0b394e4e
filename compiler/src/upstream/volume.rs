//! Bytes one device sends for one collective, by the ring algorithms (the volume model of
//! NCCL's and XLA's cost models). N is the group size, S a per-device buffer in bytes.
//!
//! | collective     | bytes per device  |
//! |----------------|-------------------|
//! | all_reduce     | 2(N-1)/N * S_in   |
//! | all_gather     | (N-1)/N * S_out   |
//! | reduce_scatter | (N-1)/N * S_in    |
//! | all_to_all     | (N-1)/N * S_in    |
//! | all_slice      | 0 (a local slice) |
//!
//! The other shard collectives (broadcast, gather, scatter, reduce, send, recv, shift,
//! update_halo) get no number: none of the canonical cases produces them, and a number
//! without a stated algorithm would be a guess.

use super::report::{CollectiveKind, TensorType, Volume};

/// The volume of one collective over a group of `group_size` devices.
pub fn ring_volume(
    kind: CollectiveKind,
    group_size: Option<u64>,
    operand: Option<&TensorType>,
    result: Option<&TensorType>,
) -> Volume {
    let (numerator, buffer, buffer_name) = match kind {
        // 2(N-1)/N * S_in.
        CollectiveKind::AllReduce => (2, operand, "S_in"),
        // (N-1)/N * S_out.
        CollectiveKind::AllGather => (1, result, "S_out"),
        // (N-1)/N * S_in.
        CollectiveKind::ReduceScatter | CollectiveKind::AllToAll => (1, operand, "S_in"),
        // Each device keeps its own slice of a tensor it already holds.
        CollectiveKind::AllSlice => {
            return Volume {
                bytes: Some(0.0),
                formula: "0 (local slice)".to_string(),
            };
        }
        _ => {
            return Volume {
                bytes: None,
                formula: "no ring formula".to_string(),
            };
        }
    };
    let factor = if numerator == 2 {
        "2(N-1)/N"
    } else {
        "(N-1)/N"
    };
    let size = buffer.and_then(TensorType::bytes);
    match (group_size, size) {
        (Some(n), Some(s)) if n > 0 => {
            let shown_factor = if numerator == 2 {
                format!("2*{}/{n}", n - 1)
            } else {
                format!("{}/{n}", n - 1)
            };
            Volume {
                // Exact for every size below 2^53 bytes.
                bytes: Some(numerator as f64 * (n - 1) as f64 * s as f64 / n as f64),
                formula: format!("{factor}*{buffer_name} = {shown_factor}*{s}"),
            }
        }
        _ => Volume {
            bytes: None,
            formula: format!("{factor}*{buffer_name} with a dynamic N or {buffer_name}"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32_tensor(dims: &[u64]) -> TensorType {
        TensorType {
            text: String::new(),
            dims: dims.iter().map(|&d| Some(d)).collect(),
            element: "f32".to_string(),
            element_bytes: Some(4),
        }
    }

    #[test]
    fn ring_formulas() {
        let small = f32_tensor(&[4, 16]); // 256 B
        let big = f32_tensor(&[16, 16]); // 1024 B
        let bytes = |kind, n, operand: &TensorType, result: &TensorType| {
            ring_volume(kind, Some(n), Some(operand), Some(result))
                .bytes
                .unwrap()
        };
        assert_eq!(bytes(CollectiveKind::AllReduce, 4, &small, &small), 384.0);
        assert_eq!(bytes(CollectiveKind::AllGather, 4, &small, &big), 768.0);
        assert_eq!(bytes(CollectiveKind::ReduceScatter, 4, &big, &small), 768.0);
        assert_eq!(bytes(CollectiveKind::AllToAll, 2, &small, &small), 128.0);
        assert_eq!(bytes(CollectiveKind::AllSlice, 4, &big, &small), 0.0);
        assert_eq!(bytes(CollectiveKind::AllReduce, 1, &small, &small), 0.0);
    }

    #[test]
    fn unknown_sizes_have_no_number() {
        let dynamic = TensorType {
            dims: vec![None, Some(4)],
            ..f32_tensor(&[])
        };
        let volume = ring_volume(
            CollectiveKind::AllGather,
            Some(2),
            Some(&dynamic),
            Some(&dynamic),
        );
        assert_eq!(volume.bytes, None);
        let volume = ring_volume(CollectiveKind::Broadcast, Some(2), None, None);
        assert_eq!(volume.bytes, None);
    }
}
