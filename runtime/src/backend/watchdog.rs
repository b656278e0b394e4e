//! The collective watchdog (NCCL's watchdog, for processes): a collective that waits past
//! its timeout for peers that never arrive (a dead, stopped or partitioned rank) ends
//! this process with a message naming the collective and the ranks it waited for, instead
//! of hanging. The process exits with status [`TIMED_OUT`], so `mpirun` ends the job and a
//! launcher (`shardc launch`) can restart it from its newest checkpoint.
//!
//! One thread per process watches the collective in flight: [`guard`] marks a blocking
//! call as in flight for its duration. The timeout comes from
//! `SHARDC_COLLECTIVE_TIMEOUT` (seconds; [`DEFAULT_TIMEOUT`] when unset), or is given.

use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How long a collective may wait by default (NCCL's watchdog waits minutes too).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// The exit status of a process whose collective timed out (as `timeout(1)` uses).
pub const TIMED_OUT: i32 = 124;

/// The environment variable that sets the timeout, in seconds.
pub const TIMEOUT_VAR: &str = "SHARDC_COLLECTIVE_TIMEOUT";

/// The timeout `SHARDC_COLLECTIVE_TIMEOUT` asks for, else [`DEFAULT_TIMEOUT`]; an
/// unreadable value is an error naming it.
pub fn timeout_from_env() -> Result<Duration, String> {
    match std::env::var(TIMEOUT_VAR) {
        Err(_) => Ok(DEFAULT_TIMEOUT),
        Ok(v) => v
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|s| s.is_finite() && *s > 0.0)
            .map(Duration::from_secs_f64)
            .ok_or_else(|| {
                format!("{TIMEOUT_VAR}={v} is not a positive number of seconds; set it like {TIMEOUT_VAR}=300")
            }),
    }
}

struct InFlight {
    since: Instant,
    timeout: Duration,
    what: String,
}

/// The calls in flight, by a number given when each starts (a device thread and the main
/// thread may each be in one).
#[derive(Default)]
struct Watched {
    next: u64,
    calls: Vec<(u64, InFlight)>,
}

fn slot() -> &'static Mutex<Watched> {
    static SLOT: OnceLock<&'static Mutex<Watched>> = OnceLock::new();
    SLOT.get_or_init(|| {
        let slot: &'static Mutex<Watched> = Box::leak(Box::default());
        // The watching thread lives as long as the process.
        let spawned = std::thread::Builder::new()
            .name("shardc-watchdog".into())
            .spawn(move || watch(slot));
        if let Err(e) = spawned {
            eprintln!("shardc: the collective watchdog could not start ({e}); a stuck collective will hang");
        }
        slot
    })
}

fn watch(slot: &'static Mutex<Watched>) {
    loop {
        std::thread::sleep(Duration::from_millis(50));
        let watched = slot.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, w)) = watched
            .calls
            .iter()
            .find(|(_, w)| w.since.elapsed() > w.timeout)
        {
            eprintln!(
                "shardc: {} waited {:.1} s, past the collective timeout ({TIMEOUT_VAR}={}): a peer is dead, stopped or unreachable; ending this process (exit {TIMED_OUT}) so that the job stops instead of hanging",
                w.what,
                w.since.elapsed().as_secs_f64(),
                w.timeout.as_secs_f64()
            );
            end(TIMED_OUT);
        }
    }
}

/// Ends the process at once: no exit handlers (MPI's would wait for the stuck collective).
fn end(code: i32) -> ! {
    // SAFETY: `_exit` takes any status and does not return; skipping the exit handlers is
    // the point (they could block on the collective in flight).
    unsafe { libc::_exit(code) }
}

/// Runs the blocking call `f` as the collective `what` (the text the watchdog prints if it
/// times out), ending the process if it is still in flight after `timeout`.
pub fn guard<T>(timeout: Duration, what: String, f: impl FnOnce() -> T) -> T {
    let slot = slot();
    let id = {
        let mut w = slot.lock().unwrap_or_else(|p| p.into_inner());
        let id = w.next;
        w.next += 1;
        w.calls.push((
            id,
            InFlight {
                since: Instant::now(),
                timeout,
                what,
            },
        ));
        id
    };
    let out = f();
    slot.lock()
        .unwrap_or_else(|p| p.into_inner())
        .calls
        .retain(|(k, _)| *k != id);
    out
}
