//! Which examples of a data set each data-parallel rank reads, epoch after epoch:
//! PyTorch's `DistributedSampler` with `set_epoch`, with its position kept in checkpoints.
//!
//! Each epoch the indices `0..len` are shuffled by a permutation drawn from `(seed,
//! epoch)` (the same on every rank, a new one each epoch), made a multiple of the number
//! of ranks (by repeating the first indices, or by dropping the last with
//! [`DistributedSampler::drop_last`]), and dealt out: rank `r` of `n` reads positions
//! `r, r + n, r + 2n, ...`. So within an epoch the ranks' shards are disjoint (but for the
//! repeated padding) and together cover the data set.
//!
//! A run that saves its sampler's [`state`](DistributedSampler::state) with its
//! checkpoint ([`crate::session::Session::set_data`]) resumes mid-epoch where it stopped:
//! [`DistributedSampler::restore`].

use shardc::Error;

/// The examples one rank reads, epoch by epoch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DistributedSampler {
    len: usize,
    ranks: usize,
    rank: usize,
    shuffle: bool,
    seed: u64,
    drop_last: bool,
    epoch: u64,
    /// How many of this epoch's indices this rank has handed out.
    position: usize,
}

impl DistributedSampler {
    /// Rank `rank` of `ranks` reading a data set of `len` examples, shuffled with seed 0.
    pub fn new(len: usize, ranks: usize, rank: usize) -> Result<DistributedSampler, Error> {
        if len == 0 || ranks == 0 || rank >= ranks {
            return Err(Error::Usage(format!(
                "a sampler for rank {rank} of {ranks} over {len} examples: the data set must not be empty and the rank must be below the number of ranks"
            )));
        }
        Ok(DistributedSampler {
            len,
            ranks,
            rank,
            shuffle: true,
            seed: 0,
            drop_last: false,
            epoch: 0,
            position: 0,
        })
    }

    /// Shuffles each epoch with permutations drawn from `seed` (every rank must use the
    /// same seed), or keeps the data set's order when `seed` is `None`.
    pub fn shuffle(mut self, seed: Option<u64>) -> DistributedSampler {
        self.shuffle = seed.is_some();
        self.seed = seed.unwrap_or(0);
        self
    }

    /// Drops the last examples that do not fill a round of every rank, instead of
    /// repeating the first ones (PyTorch's `drop_last`).
    pub fn drop_last(mut self, drop: bool) -> DistributedSampler {
        self.drop_last = drop;
        self
    }

    /// Starts epoch `epoch` (from its beginning): the order depends on it.
    pub fn set_epoch(&mut self, epoch: u64) {
        self.epoch = epoch;
        self.position = 0;
    }

    /// The epoch the order is for.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Indices this rank has read of the epoch so far.
    pub fn position(&self) -> usize {
        self.position
    }

    /// Indices each rank reads per epoch.
    pub fn per_rank(&self) -> usize {
        if self.drop_last {
            self.len / self.ranks
        } else {
            self.len.div_ceil(self.ranks)
        }
    }

    /// This rank's indices of the current epoch, in the order it reads them.
    pub fn indices(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.len).collect();
        if self.shuffle {
            // Fisher-Yates with splitmix64 drawn from (seed, epoch): the same on every rank.
            let mut state = self.seed ^ self.epoch.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            for i in (1..order.len()).rev() {
                let j = (splitmix64(&mut state) % (i as u64 + 1)) as usize;
                order.swap(i, j);
            }
        }
        let total = self.per_rank() * self.ranks;
        let padded: Vec<usize> = order.iter().cycle().take(total).copied().collect();
        padded
            .into_iter()
            .skip(self.rank)
            .step_by(self.ranks)
            .collect()
    }

    /// The next `batch` indices of this rank's epoch; `None` when fewer than `batch` are
    /// left (start the next epoch with [`set_epoch`](Self::set_epoch)).
    pub fn next_batch(&mut self, batch: usize) -> Option<Vec<usize>> {
        if batch == 0 || self.position + batch > self.per_rank() {
            return None;
        }
        let out = self.indices()[self.position..self.position + batch].to_vec();
        self.position += batch;
        Some(out)
    }

    /// Where the sampler is, as text to keep with a checkpoint:
    /// `epoch=E position=P len=L ranks=N seed=S shuffle=B drop_last=B`.
    pub fn state(&self) -> String {
        format!(
            "epoch={} position={} len={} ranks={} seed={} shuffle={} drop_last={}",
            self.epoch,
            self.position,
            self.len,
            self.ranks,
            self.seed,
            self.shuffle,
            self.drop_last
        )
    }

    /// Goes back to where [`state`](Self::state) said a sampler of the same data set,
    /// ranks and shuffling was; an error names what differs or cannot be read.
    pub fn restore(&mut self, state: &str) -> Result<(), Error> {
        let field = |key: &str| -> Result<&str, Error> {
            state
                .split_whitespace()
                .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
                .ok_or_else(|| {
                    Error::Usage(format!(
                        "the sampler state `{state}` has no `{key}=`: it was not written by DistributedSampler::state"
                    ))
                })
        };
        let number = |key: &str| -> Result<u64, Error> {
            field(key)?.parse().map_err(|_| {
                Error::Usage(format!(
                    "the sampler state's `{key}` is not a number: `{state}`"
                ))
            })
        };
        let saved = (
            number("len")? as usize,
            number("ranks")? as usize,
            number("seed")?,
            field("shuffle")? == "true",
            field("drop_last")? == "true",
        );
        let ours = (
            self.len,
            self.ranks,
            self.seed,
            self.shuffle,
            self.drop_last,
        );
        if saved != ours {
            return Err(Error::Usage(format!(
                "the sampler state `{state}` is of another sampler (len, ranks, seed, shuffle, drop_last = {saved:?}; this one {ours:?}): resume with the data set and ranks it was saved with"
            )));
        }
        let position = number("position")? as usize;
        if position > self.per_rank() {
            return Err(Error::Usage(format!(
                "the sampler state's position {position} is past the epoch's {} indices per rank",
                self.per_rank()
            )));
        }
        self.epoch = number("epoch")?;
        self.position = position;
        Ok(())
    }
}

/// The next number of the splitmix64 generator (Steele, Lea and Flood 2014).
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn shards(len: usize, ranks: usize, epoch: u64) -> Vec<Vec<usize>> {
        (0..ranks)
            .map(|r| {
                let mut s = DistributedSampler::new(len, ranks, r)
                    .unwrap()
                    .shuffle(Some(7));
                s.set_epoch(epoch);
                s.indices()
            })
            .collect()
    }

    #[test]
    fn shards_are_disjoint_and_cover_the_data_set_each_epoch() {
        for epoch in 0..3 {
            let s = shards(100, 4, epoch);
            let all: Vec<usize> = s.iter().flatten().copied().collect();
            assert_eq!(all.len(), 100);
            assert_eq!(
                all.iter().copied().collect::<HashSet<_>>().len(),
                100,
                "epoch {epoch}"
            );
        }
        // 10 over 4 ranks: 3 each, the first 2 of the epoch's order read twice.
        let s = shards(10, 4, 0);
        let all: Vec<usize> = s.iter().flatten().copied().collect();
        assert_eq!(all.len(), 12);
        assert_eq!(all.iter().copied().collect::<HashSet<_>>().len(), 10);
        // With drop_last: 2 each, 8 distinct.
        let mut d = DistributedSampler::new(10, 4, 1).unwrap().drop_last(true);
        d.set_epoch(0);
        assert_eq!(d.indices().len(), 2);
    }

    #[test]
    fn each_epoch_has_its_own_order_and_seeds_repeat() {
        assert_ne!(shards(100, 4, 0), shards(100, 4, 1));
        assert_eq!(shards(100, 4, 1), shards(100, 4, 1));
        let plain = DistributedSampler::new(8, 2, 1).unwrap().shuffle(None);
        assert_eq!(plain.indices(), vec![1, 3, 5, 7]);
    }

    #[test]
    fn a_sampler_resumes_mid_epoch_from_its_state() {
        let mut a = DistributedSampler::new(50, 2, 1).unwrap().shuffle(Some(3));
        a.set_epoch(4);
        let first = a.next_batch(5).unwrap();
        let saved = a.state();
        let rest: Vec<Vec<usize>> = std::iter::from_fn(|| a.next_batch(5)).collect();
        let mut b = DistributedSampler::new(50, 2, 1).unwrap().shuffle(Some(3));
        b.restore(&saved).unwrap();
        assert_eq!((b.epoch(), b.position()), (4, 5));
        let resumed: Vec<Vec<usize>> = std::iter::from_fn(|| b.next_batch(5)).collect();
        assert_eq!(resumed, rest);
        assert!(!resumed.iter().flatten().any(|i| first.contains(i)));
        let mut other = DistributedSampler::new(50, 4, 1).unwrap();
        let err = other.restore(&saved).unwrap_err().to_string();
        assert!(err.contains("another sampler"), "{err}");
        assert!(DistributedSampler::new(5, 2, 2).is_err());
    }
}
