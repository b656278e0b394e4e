//! A character-level language-modelling dataset: what the training demo reads.

use shardc_ir::{DType, Literal};
use shardc_runtime::reference::random::bits;

/// A text with its vocabulary (the distinct characters, sorted).
#[derive(Clone, Debug)]
pub struct CharDataset {
    /// The distinct characters, sorted: token `i` is `vocab[i]`.
    pub vocab: Vec<char>,
    /// The text as token ids.
    pub tokens: Vec<u32>,
}

impl CharDataset {
    /// The dataset of `text`, one token per character.
    pub fn new(text: &str) -> CharDataset {
        let mut vocab: Vec<char> = text.chars().collect();
        vocab.sort_unstable();
        vocab.dedup();
        let tokens = text
            .chars()
            .map(|c| {
                vocab
                    .binary_search(&c)
                    .expect("every char is in the vocabulary") as u32
            })
            .collect();
        CharDataset { vocab, tokens }
    }

    /// The text of token ids.
    pub fn decode(&self, ids: &[u32]) -> String {
        ids.iter()
            .map(|&i| self.vocab.get(i as usize).copied().unwrap_or('?'))
            .collect()
    }

    /// The entropy (nats per character) of the text's character frequencies: the loss of
    /// the best model that ignores context. A model whose loss falls below it has learned
    /// something from the preceding characters.
    pub fn unigram_entropy(&self) -> f64 {
        let mut counts = vec![0usize; self.vocab.len()];
        for &t in &self.tokens {
            counts[t as usize] += 1;
        }
        let n = self.tokens.len() as f64;
        counts
            .iter()
            .filter(|&&c| c > 0)
            .map(|&c| {
                let p = c as f64 / n;
                -p * p.ln()
            })
            .sum()
    }

    /// Batch `step`: `batch` windows of `seq` tokens at positions drawn from the step (the
    /// same on every run and every mesh), and the same windows shifted by one as targets.
    pub fn batch(&self, step: u64, batch: usize, seq: usize) -> (Literal, Literal) {
        let span = self.tokens.len().saturating_sub(seq + 1).max(1) as u64;
        let (mut x, mut y) = (
            Vec::with_capacity(batch * seq),
            Vec::with_capacity(batch * seq),
        );
        for b in 0..batch {
            let w = bits(7_919, step * batch as u64 + b as u64);
            let start = ((u64::from(w[0]) << 32 | u64::from(w[1])) % span) as usize;
            for t in 0..seq {
                x.push(f64::from(self.tokens[start + t]));
                y.push(f64::from(self.tokens[start + t + 1]));
            }
        }
        let lit = |v: &[f64]| Literal::from_f64(DType::I32, &[batch, seq], v).expect("sizes match");
        (lit(&x), lit(&y))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_are_shifted_windows() {
        let d = CharDataset::new("abcdefghijklmnopqrstuvwxyz");
        assert_eq!(d.vocab.len(), 26);
        let (x, y) = d.batch(3, 2, 5);
        let (x, y) = (x.to_f64_vec(), y.to_f64_vec());
        for i in 0..10 {
            assert_eq!(y[i], x[i] + 1.0);
        }
        assert_eq!(d.batch(3, 2, 5).0, d.batch(3, 2, 5).0);
        assert_ne!(d.batch(3, 2, 5).0, d.batch(4, 2, 5).0);
    }

    #[test]
    fn unigram_entropy_is_that_of_the_frequencies() {
        // 26 equally likely letters: ln 26.
        let d = CharDataset::new("abcdefghijklmnopqrstuvwxyz");
        assert!((d.unigram_entropy() - 26f64.ln()).abs() < 1e-12);
        // "aab": -(2/3 ln 2/3 + 1/3 ln 1/3).
        let d = CharDataset::new("aab");
        let want = -(2.0 / 3.0 * (2.0f64 / 3.0).ln() + 1.0 / 3.0 * (1.0f64 / 3.0).ln());
        assert!((d.unigram_entropy() - want).abs() < 1e-12);
    }
}
