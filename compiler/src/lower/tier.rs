//! Tiered compilation of the JIT's kernels: every kernel is first compiled quickly, without
//! LLVM's optimisations, so that the first step starts soon; a kernel that has run for as
//! long as that compile took is compiled again at the full level on a background thread
//! and swapped in between two of its runs (as JVMs and V8 tier up hot code).
//!
//! ```text
//!  NativeCompute::compile          the full level from the disk cache when an earlier process
//!     |                         stored it; else `first_level` (O0: ~4x cheaper to compile)
//!  Tiered::run                  times the run; once the kernel's runs add up to its
//!     |                         compile time it is queued (once)
//!  Optimizer (threads)          compiles it at the full level (stored in the disk cache),
//!                               replaces the kernel; its next run uses the new code
//! ```
//!
//! Both levels compute the same bits: the lowering emits no fast-math flags (no
//! reassociation, no contraction of `a * b + c`) and FMAs explicitly, so LLVM's
//! optimisations change speed, never results (asserted by
//! `compiler/tests/kernels/programs.rs::both_tiers_compute_the_same_bits`). A run stays
//! reproducible whichever tier each of its kernels happened to run at.

use super::Lowered;
use super::cpu::{CpuKernel, CpuOptions, compile_lowered};
use shardc_ir::{Literal, TensorType};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::thread::JoinHandle;
use std::time::Instant;

/// When kernels are compiled at which level.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Tiering {
    /// LLVM's optimisation level of a kernel's first compile (0 to 3; default 0).
    pub first_level: usize,
}

/// A kernel whose code may be replaced by a faster compile of the same module.
pub(crate) struct Tiered {
    current: RwLock<Arc<CpuKernel>>,
    outputs: Vec<TensorType>,
    /// The module to compile at the full level; `None` once it is (or was loaded so).
    lowered: Mutex<Option<Lowered>>,
    /// Nanoseconds run at the first level, and what that compile took.
    ran_ns: AtomicU64,
    compile_ns: u64,
    queued: AtomicBool,
    optimizer: Weak<Optimizer>,
}

impl Tiered {
    /// A kernel already at its full level.
    pub(crate) fn done(kernel: CpuKernel) -> Tiered {
        Tiered {
            outputs: kernel.outputs().to_vec(),
            compile_ns: 0,
            current: RwLock::new(Arc::new(kernel)),
            lowered: Mutex::new(None),
            ran_ns: AtomicU64::new(0),
            queued: AtomicBool::new(true),
            optimizer: Weak::new(),
        }
    }

    /// A kernel at its first level, to be compiled from `lowered` again by `optimizer`
    /// once it is hot.
    pub(crate) fn first(kernel: CpuKernel, lowered: Lowered, optimizer: &Arc<Optimizer>) -> Tiered {
        Tiered {
            outputs: kernel.outputs().to_vec(),
            compile_ns: kernel.compile_time().as_nanos() as u64,
            current: RwLock::new(Arc::new(kernel)),
            lowered: Mutex::new(Some(lowered)),
            ran_ns: AtomicU64::new(0),
            queued: AtomicBool::new(false),
            optimizer: Arc::downgrade(optimizer),
        }
    }

    pub(crate) fn outputs(&self) -> &[TensorType] {
        &self.outputs
    }

    /// The code the next run uses.
    pub(crate) fn current(&self) -> Arc<CpuKernel> {
        Arc::clone(&self.current.read().unwrap_or_else(|p| p.into_inner()))
    }

    pub(crate) fn run_refs_into(
        self: &Arc<Tiered>,
        inputs: &[&Literal],
        outputs: &mut [Literal],
    ) -> Result<(), super::LowerError> {
        let kernel = self.current();
        if self.queued.load(Ordering::Relaxed) {
            return kernel.run_refs_into(inputs, outputs);
        }
        let start = Instant::now();
        kernel.run_refs_into(inputs, outputs)?;
        let ran = self
            .ran_ns
            .fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
        if ran >= self.compile_ns
            && !self.queued.swap(true, Ordering::Relaxed)
            && let Some(o) = self.optimizer.upgrade()
        {
            o.push(Arc::clone(self));
        }
        Ok(())
    }

    /// Compiles the kernel at the full level and swaps it in (once; later calls return).
    fn optimize(&self, options: &CpuOptions) -> Option<Result<(), super::LowerError>> {
        let lowered = self
            .lowered
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()?;
        Some(
            compile_lowered(&lowered, options, None, Instant::now()).map(|k| {
                *self.current.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(k);
            }),
        )
    }

    /// Whether the kernel still runs its first-level code.
    pub(crate) fn is_first(&self) -> bool {
        self.lowered
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some()
    }
}

/// The background compiles: a queue of hot kernels and up to `threads` threads draining it.
pub(crate) struct Optimizer {
    options: CpuOptions,
    threads: usize,
    queue: Mutex<VecDeque<Arc<Tiered>>>,
    workers: Mutex<Vec<JoinHandle<()>>>,
    active: AtomicUsize,
    stop: AtomicBool,
    /// Kernels compiled at the full level (one whose compile fails keeps its first-level
    /// code, which computes the same).
    pub(crate) optimized: AtomicUsize,
}

impl Optimizer {
    pub(crate) fn new(options: CpuOptions, threads: usize) -> Arc<Optimizer> {
        Arc::new(Optimizer {
            options,
            threads: threads.max(1),
            queue: Mutex::default(),
            workers: Mutex::default(),
            active: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            optimized: AtomicUsize::new(0),
        })
    }

    /// Queues a kernel and starts a thread for it unless `threads` are already working.
    pub(crate) fn push(self: &Arc<Optimizer>, kernel: Arc<Tiered>) {
        if self.stop.load(Ordering::Relaxed) {
            return;
        }
        self.queue
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push_back(kernel);
        let active = self.active.load(Ordering::Relaxed);
        if active < self.threads
            && self
                .active
                .compare_exchange(active, active + 1, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        {
            let me = Arc::clone(self);
            let spawned = std::thread::Builder::new()
                .name("shardc-optimize".into())
                .spawn(move || me.work());
            let mut workers = self.workers.lock().unwrap_or_else(|p| p.into_inner());
            match spawned {
                Ok(h) => workers.push(h),
                // No thread: the kernels stay at their first level (same results).
                Err(_) => {
                    self.active.fetch_sub(1, Ordering::AcqRel);
                }
            }
        }
    }

    fn work(&self) {
        loop {
            let next = {
                let mut q = self.queue.lock().unwrap_or_else(|p| p.into_inner());
                match q.pop_front() {
                    Some(k) if !self.stop.load(Ordering::Relaxed) => Some(k),
                    _ => {
                        // Decided under the queue's lock: a push after this sees the
                        // count already lowered and starts a thread.
                        self.active.fetch_sub(1, Ordering::AcqRel);
                        None
                    }
                }
            };
            let Some(kernel) = next else { return };
            if let Some(Ok(())) = kernel.optimize(&self.options) {
                self.optimized.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// Queues every kernel of `kernels` still at its first level and waits until the
    /// queue is drained.
    pub(crate) fn finish(self: &Arc<Optimizer>, kernels: impl IntoIterator<Item = Arc<Tiered>>) {
        for k in kernels {
            if k.is_first() {
                k.queued.store(true, Ordering::Relaxed);
                self.push(k);
            }
        }
        self.join();
    }

    /// Waits for the threads at work (they end when the queue is empty).
    fn join(&self) {
        loop {
            let handles: Vec<JoinHandle<()>> =
                std::mem::take(&mut *self.workers.lock().unwrap_or_else(|p| p.into_inner()));
            if handles.is_empty() {
                return;
            }
            for h in handles {
                // A panicking compile leaves its kernel at the first level.
                let _ = h.join();
            }
        }
    }

    /// Drops what is queued and waits for the compiles under way (called before the
    /// kernels' owner goes: no LLVM work outlives it).
    pub(crate) fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
        self.queue.lock().unwrap_or_else(|p| p.into_inner()).clear();
        self.join();
    }
}
