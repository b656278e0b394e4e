//! Collectives through shared memory, for devices that are threads of one process (the cpu
//! backend's mesh): each device of a group publishes its operand on a board (`Board`), waits
//! until every member has, and reads what it needs from its peers' operands in place.
//!
//! - **all-reduce**: two rounds. Device `i` folds chunk `i` (of `n` contiguous runs of the
//!   flat buffer) of every member's operand, starting at member `i+1` as the ring does, and
//!   publishes it; then it copies the `n` reduced chunks into its result.
//! - **reduce-scatter**: one round; device `i` folds block `i` of every member's operand.
//! - **all-gather**: one round; device `i` joins every member's operand.
//! - **all-to-all**: one round; device `i` takes block `i` of every member's operand.
//!
//! A device reads each byte of its peers' operands it needs once and writes its result
//! once: an all-reduce of `S` bytes costs a device `2S` bytes read and `S(1 + 1/n)`
//! written, where the ring ([`super::collective`]) moves each chunk through a message and
//! a fresh buffer at each of its `2(n-1)` steps, and waits on a neighbour at each. A
//! reduction folds in the ring's order, so results equal the ring's bit for bit. A device
//! counts as sent the ring's volumes (`Exchange::ring_bytes`, what `explain` states); what
//! its peers read of its operand and chunks is the same when the chunks are even, and the
//! same summed over the group when they are not.
//!
//! A device that stops (its thread ends, by failure or panic) leaves the board (`Board::leave`): members
//! waiting on it get [`LinkError::PeerLeft`] rather than waiting forever. What was
//! published is reference-counted, so a peer still reading keeps it alive.

use super::DeviceError;
use super::collective::{Blocks, Exchange, Kind, LinkError, runs};
use shardc_ir::{BinaryOp, Elements, Literal, Scalar};
use std::borrow::Cow;
use std::collections::VecDeque;
use std::ops::Range;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// The smallest result, in bytes, the cpu backend moves through shared memory by default
/// (`RunOptions::shared_memory_min_bytes`); smaller collectives would run as rings over
/// channels. Every size goes through the board: a ring's `2(n-1)` dependent messages each
/// wait for a neighbour's thread to be scheduled, which on a host whose cores the devices
/// share costs more than one round waking the group. Measured on 8 devices and 2 cores,
/// two binaries alternated (`shardc bench peer`, 4-7 rounds each): the loop programs whose
/// bodies reduce a few bytes ran faster with everything on the board (median
/// `flax_scan_blocks_adamw_step` 3.65 vs 4.73 ms with rings under 256 KB,
/// `hf_gpt2_greedy_generate` 6.5 vs 7.6, `flax_scan20_tp_fwd` 2.21 vs 2.30), and the
/// peer programs at par (`transformer_stack_16`, 257 all-reduces mostly under 100 KB:
/// 105.9 vs 102.2 ms, within the host's noise; `transformer_stack_4` 24.7 vs 24.9). An
/// earlier board, which woke every waiting thread at each publication, was 6-12% slower
/// on `transformer_stack_16` and ran collectives under 256 KB as rings.
pub const MIN_BYTES: usize = 0;

/// Where the devices of one process meet for their collectives.
#[derive(Debug)]
pub(crate) struct Board {
    state: Mutex<State>,
    /// One per device: woken when its group's round is complete or a device left (so a
    /// publication wakes only the members it completes, not every waiting thread).
    wake: Vec<Condvar>,
}

#[derive(Debug)]
struct State {
    /// Rounds each device has published.
    rounds: Vec<u64>,
    /// The last round each device has read its members' pieces of.
    read: Vec<u64>,
    /// Whether each device has stopped.
    left: Vec<bool>,
    /// Each device's publications not yet read by everyone, oldest first, with their
    /// round. Members of one op's group publish its round together, but a device may run
    /// ahead of a device outside its later groups, so several may be waiting.
    slots: Vec<VecDeque<(u64, Arc<Elements>)>>,
}

impl Board {
    /// A board for devices `0..devices`.
    pub(crate) fn new(devices: usize) -> Board {
        Board {
            state: Mutex::new(State {
                rounds: vec![0; devices],
                read: vec![0; devices],
                left: vec![false; devices],
                slots: (0..devices).map(|_| VecDeque::new()).collect(),
            }),
            wake: (0..devices).map(|_| Condvar::new()).collect(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A thread that panicked holding the lock left the state consistent (every update
        // is one assignment), so a poisoned lock is still usable.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Publishes `piece` as `device`'s next round, waits until every one of `members`
    /// (which includes `device`) has published that round, and returns their pieces in
    /// the members' order.
    pub(crate) fn exchange(
        &self,
        device: usize,
        members: &[usize],
        piece: Arc<Elements>,
    ) -> Result<Vec<Arc<Elements>>, LinkError> {
        let mut state = self.lock();
        let round = state.rounds[device] + 1;
        state.rounds[device] = round;
        state.slots[device].push_back((round, piece));
        if members.iter().all(|&m| state.rounds[m] >= round) {
            // The last of the group to arrive: the others are waiting for it.
            for &m in members {
                self.wake[m].notify_one();
            }
        }
        loop {
            let mut missing = members.iter().filter(|&&m| state.rounds[m] < round);
            match missing.clone().find(|&&m| state.left[m]) {
                Some(&m) => return Err(LinkError::PeerLeft(m)),
                None if missing.next().is_none() => break,
                None => {
                    state = self.wake[device]
                        .wait(state)
                        .unwrap_or_else(|e| e.into_inner())
                }
            }
        }
        let pieces = members
            .iter()
            .map(|&m| {
                state.slots[m]
                    .iter()
                    .find(|(r, _)| *r == round)
                    .map(|(_, piece)| Arc::clone(piece))
                    .ok_or_else(|| {
                        LinkError::Protocol(format!(
                            "device {m}'s piece of round {round} was dropped before device {device} read it"
                        ))
                    })
            })
            .collect();
        state.read[device] = round;
        // What every device still running has read is needed no more.
        let state = &mut *state;
        let everyone = (state.read.iter().zip(&state.left))
            .filter(|(_, left)| !**left)
            .map(|(r, _)| *r)
            .min()
            .unwrap_or(round);
        for slot in &mut state.slots {
            while slot.front().is_some_and(|(r, _)| *r <= everyone) {
                slot.pop_front();
            }
        }
        pieces
    }

    /// Marks `device` stopped: members waiting on a round it never published stop waiting.
    pub(crate) fn leave(&self, device: usize) {
        let mut state = self.lock();
        if let Some(left) = state.left.get_mut(device) {
            *left = true;
        }
        for wake in &self.wake {
            wake.notify_one();
        }
    }
}

impl Blocks {
    /// Block `b` as contiguous runs of the flat buffer, one per index of the dimensions
    /// before the cut one.
    pub(crate) fn segments(&self, b: usize) -> Vec<Range<usize>> {
        let outer: usize = self.shape[..self.dim].iter().product();
        let run = self.run();
        let stride = run * self.n;
        (0..outer)
            .map(|o| o * stride + b * run..o * stride + (b + 1) * run)
            .collect()
    }

    /// The elements of one block per index of the dimensions before the cut one.
    pub(crate) fn run(&self) -> usize {
        let inner: usize = self.shape[self.dim + 1..].iter().product();
        self.shape[self.dim] / self.n * inner
    }
}

impl Exchange {
    /// Runs the op on `device` through `board` with its operand (moved onto the board when
    /// owned, copied when borrowed), an all-gather's or all-reduce's result written into
    /// `storage` when given; returns the result and the bytes the device counts as sent:
    /// the ring's volumes ([`Exchange::ring_bytes`]), what `explain` states.
    pub(crate) fn run_shared(
        &self,
        device: usize,
        input: Option<Cow<'_, Literal>>,
        board: &Board,
        storage: Option<Elements>,
    ) -> Result<(Literal, u64), DeviceError> {
        let x = Arc::new(match input {
            Some(Cow::Owned(l)) if !l.is_splat() => l.elements,
            Some(l) => l.to_dense().elements,
            None => Elements::zeros(self.result_ty.dtype, 0),
        });
        let out = self.on_board(device, x, board, storage)?;
        let result = Literal::new(self.result_ty.clone(), out)
            .map_err(|e| self.error(format!("its result does not fit its type: {e}")))?;
        Ok((result, self.ring_bytes(device)))
    }

    fn on_board(
        &self,
        device: usize,
        x: Arc<Elements>,
        board: &Board,
        storage: Option<Elements>,
    ) -> Result<Elements, DeviceError> {
        let dtype = x.dtype();
        let left = |e: LinkError| match e {
            LinkError::PeerLeft(peer) => DeviceError::PeerLeft {
                op: self.op.clone(),
                at: self.at.clone(),
                peer,
            },
            LinkError::Protocol(problem) => self.error(problem),
        };
        let fold = |op: BinaryOp, pieces: &[Arc<Elements>], me: usize, segs: &[Range<usize>]| {
            // In the ring's order: member me+1 first, me last.
            let n = pieces.len();
            let order: Vec<&Elements> = (1..=n).map(|k| &*pieces[(me + k) % n]).collect();
            crate::reference::fold_segments(op, &order, segs).ok_or_else(|| {
                self.error(format!(
                    "its reducer stablehlo.{} is not defined on {} (or the pieces differ)",
                    op.name(),
                    dtype
                ))
            })
        };
        match &self.kind {
            Kind::AllReduce {
                groups, reducer, ..
            } => {
                let (members, me) = self.role(groups, device)?;
                let chunks = runs(x.len(), members.len());
                let pieces = board.exchange(device, members, x).map_err(left)?;
                let mine = fold(*reducer, &pieces, me, &chunks[me..=me])?;
                let reduced = board
                    .exchange(device, members, Arc::new(mine))
                    .map_err(left)?;
                Elements::concat_into(&reduced, storage)
                    .ok_or_else(|| self.error("its chunks differ in dtype".into()))
            }
            Kind::ReduceScatter {
                groups,
                reducer,
                blocks,
                ..
            } => {
                let (members, me) = self.role(groups, device)?;
                let pieces = board.exchange(device, members, x).map_err(left)?;
                fold(*reducer, &pieces, me, &blocks.segments(me))
            }
            Kind::AllGather { groups, blocks, .. } => {
                let (members, _) = self.role(groups, device)?;
                let pieces = board.exchange(device, members, x).map_err(left)?;
                Elements::interleave_into(&pieces, blocks.run(), storage)
                    .ok_or_else(|| self.error("the gathered pieces do not fit".into()))
            }
            Kind::AllToAll {
                groups,
                split,
                join,
            } => {
                let (members, me) = self.role(groups, device)?;
                let pieces = board.exchange(device, members, x).map_err(left)?;
                let mine = split.segments(me);
                let received: Vec<Elements> = pieces.iter().map(|p| p.ranges(&mine)).collect();
                Elements::interleave(&received, join.run())
                    .ok_or_else(|| self.error("the received blocks do not fit".into()))
            }
            Kind::ShardSlice { groups, blocks } => {
                let (_, me) = self.role(groups, device)?;
                Ok(x.ranges(&blocks.segments(me)))
            }
            Kind::AxisIndex { groups } => {
                let (_, me) = self.role(groups, device)?;
                Ok(Elements::from_scalars(
                    self.result_ty.dtype,
                    &[Scalar::Int(me as i64)],
                ))
            }
            Kind::Permute { .. } => Err(self.error(
                "a collective_permute moves one buffer between two devices: it runs over messages"
                    .into(),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_are_the_blocks_cut() {
        let x = Elements::I64((0..24).collect());
        for (dim, n) in [(0, 2), (1, 4), (2, 3)] {
            let b = Blocks::new(&[2, 4, 3], dim, n);
            for j in 0..n {
                assert_eq!(
                    x.ranges(&b.segments(j)),
                    b.cut(&x, j),
                    "dim {dim} block {j}"
                );
            }
            let parts: Vec<Elements> = (0..n).map(|j| b.cut(&x, j)).collect();
            assert_eq!(
                Elements::interleave(&parts, b.run()),
                Some(x.clone()),
                "dim {dim}"
            );
        }
    }

    #[test]
    fn a_device_that_leaves_releases_its_peers() {
        let board = Arc::new(Board::new(2));
        let waiter = {
            let board = Arc::clone(&board);
            std::thread::spawn(move || board.exchange(0, &[0, 1], Arc::new(Elements::I64(vec![1]))))
        };
        board.leave(1);
        assert!(matches!(
            waiter.join().unwrap(),
            Err(LinkError::PeerLeft(1))
        ));
    }

    #[test]
    fn rounds_pair_up_in_order() {
        let board = Arc::new(Board::new(3));
        let handles: Vec<_> = (0..3)
            .map(|d| {
                let board = Arc::clone(&board);
                std::thread::spawn(move || {
                    (0..50)
                        .map(|r| {
                            let got = board
                                .exchange(
                                    d,
                                    &[0, 1, 2],
                                    Arc::new(Elements::I64(vec![r * 10 + d as i64])),
                                )
                                .unwrap();
                            got.iter().map(|e| e.get(0).as_i64()).collect::<Vec<_>>()
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for h in handles {
            for (r, got) in h.join().unwrap().into_iter().enumerate() {
                let r = r as i64;
                assert_eq!(got, vec![r * 10, r * 10 + 1, r * 10 + 2]);
            }
        }
    }
}
