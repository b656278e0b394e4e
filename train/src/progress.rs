//! A training loop's progress as a person reads it: a bar when standard error is a
//! terminal, plain lines otherwise (CI logs, files, pipes: a bar there is either nothing or
//! a line per redraw), and nothing at all from ranks other than 0, so that `mpirun -n 64`
//! prints one log, not 64.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::time::Instant;

/// Where the progress goes.
enum Sink {
    /// Not rank 0: nothing.
    Silent,
    Bar(ProgressBar),
    Lines(Box<dyn Write + Send>),
}

/// The progress of `total` steps.
pub struct Progress {
    sink: Sink,
    total: usize,
    every: usize,
    start: Instant,
}

impl Progress {
    /// Progress of `total` steps for rank `rank` (0 in a single-process run): a bar on a
    /// terminal, else a line every `total / 10` steps and at the last.
    pub fn new(total: usize, rank: usize) -> Progress {
        let sink = if rank != 0 {
            Sink::Silent
        } else if std::io::stderr().is_terminal() {
            let bar = ProgressBar::new(total as u64);
            if let Ok(style) = ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} {msg}")
            {
                bar.set_style(style.progress_chars("=> "));
            }
            Sink::Bar(bar)
        } else {
            Sink::Lines(Box::new(std::io::stderr()))
        };
        Progress::with_sink(total, sink)
    }

    /// Plain lines to `out` (for rank 0), whatever the terminal: what a test reads.
    pub fn to_writer(total: usize, rank: usize, out: Box<dyn Write + Send>) -> Progress {
        let sink = if rank == 0 {
            Sink::Lines(out)
        } else {
            Sink::Silent
        };
        Progress::with_sink(total, sink)
    }

    fn with_sink(total: usize, sink: Sink) -> Progress {
        Progress {
            sink,
            total,
            every: (total / 10).max(1),
            start: Instant::now(),
        }
    }

    /// A plain line every `every` steps (and at the last) instead of every tenth.
    pub fn every(mut self, every: usize) -> Progress {
        self.every = every.max(1);
        self
    }

    /// What the bar shows before the count (`8 devices`).
    pub fn prefix(self, prefix: &str) -> Progress {
        if let Sink::Bar(bar) = &self.sink {
            bar.set_prefix(prefix.to_string());
        }
        self
    }

    /// Step `step` (from 1) is done; `message` says how it went (`loss 2.31`).
    pub fn step(&mut self, step: usize, message: &str) {
        let (total, every, elapsed) = (self.total, self.every, self.start.elapsed());
        match &mut self.sink {
            Sink::Silent => {}
            Sink::Bar(bar) => {
                bar.set_message(message.to_string());
                bar.set_position(step as u64);
            }
            Sink::Lines(out) => {
                if step.is_multiple_of(every) || step == total {
                    let _ = writeln!(
                        out,
                        "step {step}/{total} | {message} | {:.1} s",
                        elapsed.as_secs_f64()
                    );
                }
            }
        }
    }

    /// A line of the log (rank 0 only), printed above the bar when there is one.
    pub fn println(&mut self, line: &str) {
        match &mut self.sink {
            Sink::Silent => {}
            Sink::Bar(bar) => bar.println(line),
            Sink::Lines(out) => {
                let _ = writeln!(out, "{line}");
            }
        }
    }

    /// The loop is over: the bar stays at its last state.
    pub fn finish(&mut self) {
        if let Sink::Bar(bar) = &self.sink {
            bar.finish();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// A writer whose bytes a test reads back.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn lines(rank: usize, total: usize, every: Option<usize>) -> Vec<String> {
        let out = Shared::default();
        let mut p = Progress::to_writer(total, rank, Box::new(out.clone()));
        if let Some(n) = every {
            p = p.every(n);
        }
        p.println("starting");
        for t in 1..=total {
            p.step(t, &format!("loss {}", 30 - t));
        }
        p.finish();
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        text.lines()
            .map(|l| l.split(" | ").take(2).collect::<Vec<_>>().join(" | "))
            .collect()
    }

    #[test]
    fn plain_lines_every_tenth_step_and_at_the_last_from_rank_0_only() {
        assert_eq!(
            lines(0, 25, None),
            [
                "starting",
                "step 2/25 | loss 28",
                "step 4/25 | loss 26",
                "step 6/25 | loss 24",
                "step 8/25 | loss 22",
                "step 10/25 | loss 20",
                "step 12/25 | loss 18",
                "step 14/25 | loss 16",
                "step 16/25 | loss 14",
                "step 18/25 | loss 12",
                "step 20/25 | loss 10",
                "step 22/25 | loss 8",
                "step 24/25 | loss 6",
                "step 25/25 | loss 5",
            ]
        );
        assert_eq!(
            lines(0, 7, Some(5)),
            ["starting", "step 5/7 | loss 25", "step 7/7 | loss 23"]
        );
        assert!(lines(1, 25, None).is_empty(), "rank 1 prints nothing");
    }
}
