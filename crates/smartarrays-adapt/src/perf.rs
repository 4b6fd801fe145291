//! Per-worker performance counters for workload profiles: hardware instructions and cycles from
//! `perf_event_open` when the kernel provides them, else the kernel's software task clock
//! (`perf_event_open` software event), else each thread's CPU clock (`clock_gettime`). Every
//! figure is returned with the source it came from. All `unsafe` of the crate lives here.

use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use smartarrays::Runtime;

/// Where a counter figure came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CounterSource {
    /// `perf_event_open` hardware counters.
    HardwareCounters,
    /// `perf_event_open` software event (task clock).
    PerfSoftwareEvent,
    /// `clock_gettime(CLOCK_THREAD_CPUTIME_ID)` on each worker.
    ThreadCpuClock,
}

/// Counters summed over a runtime's workers between [`WorkerCounters::start`] and
/// [`WorkerCounters::stop`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CounterReading {
    /// User-space instructions retired (hardware counters only).
    pub instructions: Option<u64>,
    /// User-space cycles (hardware counters only).
    pub cycles: Option<u64>,
    /// Where `instructions`/`cycles` came from, or why they are absent.
    pub hardware_note: String,
    /// CPU time of the workers in seconds.
    pub cpu_seconds: f64,
    /// Where `cpu_seconds` came from.
    pub cpu_source: CounterSource,
}

const PERF_TYPE_HARDWARE: u32 = 0;
const PERF_TYPE_SOFTWARE: u32 = 1;
const PERF_COUNT_HW_CPU_CYCLES: u64 = 0;
const PERF_COUNT_HW_INSTRUCTIONS: u64 = 1;
const PERF_COUNT_SW_TASK_CLOCK: u64 = 1;
const FLAG_DISABLED: u64 = 1 << 0;
const FLAG_EXCLUDE_KERNEL: u64 = 1 << 5;
const FLAG_EXCLUDE_HV: u64 = 1 << 6;
const IOC_ENABLE: libc::c_ulong = 0x2400;
const IOC_DISABLE: libc::c_ulong = 0x2401;
const IOC_RESET: libc::c_ulong = 0x2403;

/// The first 64 bytes of `struct perf_event_attr` (`PERF_ATTR_SIZE_VER0`), which every kernel
/// since 2.6.31 accepts.
#[repr(C)]
#[derive(Default)]
struct PerfEventAttr {
    kind: u32,
    size: u32,
    config: u64,
    sample_period: u64,
    sample_type: u64,
    read_format: u64,
    flags: u64,
    wakeup_events: u32,
    bp_type: u32,
    bp_addr: u64,
}

/// An open counter of the thread that opened it; closed on drop.
struct Counter {
    fd: libc::c_int,
}

impl Counter {
    /// Opens a user-space counter for the calling thread, disabled and reset.
    fn open(kind: u32, config: u64) -> std::io::Result<Counter> {
        let attr = PerfEventAttr {
            kind,
            size: std::mem::size_of::<PerfEventAttr>() as u32,
            config,
            flags: FLAG_DISABLED | FLAG_EXCLUDE_KERNEL | FLAG_EXCLUDE_HV,
            ..PerfEventAttr::default()
        };
        // SAFETY: `attr` is a properly initialised, live PerfEventAttr whose `size` field states its
        // length; pid 0 / cpu -1 means "the calling thread on any CPU"; no group; the call does
        // not retain the pointer.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_perf_event_open,
                &attr as *const PerfEventAttr,
                0 as libc::pid_t,
                -1 as libc::c_int,
                -1 as libc::c_int,
                0,
            )
        };
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let counter = Counter {
            fd: fd as libc::c_int,
        };
        counter.control(IOC_RESET)?;
        Ok(counter)
    }

    fn control(&self, request: libc::c_ulong) -> std::io::Result<()> {
        // SAFETY: `self.fd` is an open perf event descriptor owned by this Counter; these ioctls
        // take no pointer argument.
        let result = unsafe { libc::ioctl(self.fd, request as _, 0) };
        if result < 0 {
            Err(std::io::Error::last_os_error())
        } else {
            Ok(())
        }
    }

    fn read(&self) -> std::io::Result<u64> {
        let mut value = 0u64;
        // SAFETY: reads at most 8 bytes into `value`, a live, aligned u64 on this stack frame;
        // `self.fd` is open.
        let read = unsafe { libc::read(self.fd, (&mut value as *mut u64).cast(), 8) };
        if read != 8 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(value)
    }
}

impl Drop for Counter {
    fn drop(&mut self) {
        // SAFETY: the descriptor is owned by this Counter and closed exactly once, here.
        unsafe { libc::close(self.fd) };
    }
}

/// CPU time of the calling thread in nanoseconds.
fn thread_cpu_ns() -> u64 {
    let mut time = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `time` is a live timespec the call fills in; the clock id is a constant.
    let result = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut time) };
    if result != 0 {
        return 0;
    }
    time.tv_sec as u64 * 1_000_000_000 + time.tv_nsec as u64
}

enum WorkerState {
    Hardware {
        instructions: Counter,
        cycles: Counter,
        clock: Option<Counter>,
    },
    Software {
        clock: Counter,
        note: String,
    },
    CpuClock {
        started_ns: u64,
        note: String,
    },
}

/// Counters opened on every worker of a runtime.
pub struct WorkerCounters {
    states: Vec<Mutex<Option<WorkerState>>>,
}

impl WorkerCounters {
    /// Opens and starts counters on every worker (each counts its own thread).
    pub fn start(runtime: &Runtime) -> WorkerCounters {
        let states: Vec<Mutex<Option<WorkerState>>> =
            (0..runtime.threads()).map(|_| Mutex::new(None)).collect();
        runtime.on_each_worker(|worker| {
            let state = open_worker_state();
            match &state {
                WorkerState::Hardware {
                    instructions,
                    cycles,
                    clock,
                } => {
                    let _ = instructions.control(IOC_ENABLE);
                    let _ = cycles.control(IOC_ENABLE);
                    if let Some(clock) = clock {
                        let _ = clock.control(IOC_ENABLE);
                    }
                }
                WorkerState::Software { clock, .. } => {
                    let _ = clock.control(IOC_ENABLE);
                }
                WorkerState::CpuClock { .. } => {}
            }
            if let Ok(mut slot) = states[worker.index].lock() {
                *slot = Some(state);
            }
        });
        WorkerCounters { states }
    }

    /// Stops the counters and sums them over the workers.
    pub fn stop(self, runtime: &Runtime) -> CounterReading {
        let per_worker = runtime.on_each_worker(|worker| {
            let state = self
                .states
                .get(worker.index)
                .and_then(|slot| slot.lock().ok().and_then(|mut s| s.take()));
            match state {
                Some(WorkerState::Hardware {
                    instructions,
                    cycles,
                    clock,
                }) => {
                    let _ = instructions.control(IOC_DISABLE);
                    let _ = cycles.control(IOC_DISABLE);
                    let cpu = clock.as_ref().and_then(|c| {
                        let _ = c.control(IOC_DISABLE);
                        c.read().ok()
                    });
                    let (cpu_ns, source) = match cpu {
                        Some(ns) => (ns, CounterSource::PerfSoftwareEvent),
                        None => (0, CounterSource::ThreadCpuClock),
                    };
                    (
                        instructions.read().ok(),
                        cycles.read().ok(),
                        cpu_ns,
                        source,
                        "perf_event_open hardware counters".to_string(),
                    )
                }
                Some(WorkerState::Software { clock, note }) => {
                    let _ = clock.control(IOC_DISABLE);
                    (
                        None,
                        None,
                        clock.read().unwrap_or(0),
                        CounterSource::PerfSoftwareEvent,
                        note,
                    )
                }
                Some(WorkerState::CpuClock { started_ns, note }) => (
                    None,
                    None,
                    thread_cpu_ns().saturating_sub(started_ns),
                    CounterSource::ThreadCpuClock,
                    note,
                ),
                None => (
                    None,
                    None,
                    0,
                    CounterSource::ThreadCpuClock,
                    "worker had no counter".to_string(),
                ),
            }
        });
        let sum_option = |values: Vec<Option<u64>>| -> Option<u64> { values.into_iter().sum() };
        let instructions = sum_option(per_worker.iter().map(|w| w.0).collect());
        let cycles = sum_option(per_worker.iter().map(|w| w.1).collect());
        let cpu_seconds = per_worker.iter().map(|w| w.2).sum::<u64>() as f64 / 1e9;
        let cpu_source = per_worker
            .first()
            .map_or(CounterSource::ThreadCpuClock, |w| w.3);
        let hardware_note = per_worker.first().map_or_else(String::new, |w| w.4.clone());
        CounterReading {
            instructions,
            cycles,
            hardware_note,
            cpu_seconds,
            cpu_source,
        }
    }
}

fn open_worker_state() -> WorkerState {
    let hardware =
        Counter::open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS).and_then(|instructions| {
            Counter::open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES)
                .map(|cycles| (instructions, cycles))
        });
    match hardware {
        Ok((instructions, cycles)) => WorkerState::Hardware {
            instructions,
            cycles,
            clock: Counter::open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK).ok(),
        },
        Err(hardware_error) => {
            let note = format!("no hardware counters (perf_event_open: {hardware_error})");
            match Counter::open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK) {
                Ok(clock) => WorkerState::Software { clock, note },
                Err(software_error) => WorkerState::CpuClock {
                    started_ns: thread_cpu_ns(),
                    note: format!("{note}; no software events either ({software_error})"),
                },
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hint::black_box;

    #[test]
    fn counters_report_cpu_time_and_say_where_it_came_from() {
        let runtime = Runtime::with_threads(2).unwrap();
        let counters = WorkerCounters::start(&runtime);
        runtime.on_each_worker(|w| {
            let mut x = w.index as u64 + 1;
            for _ in 0..5_000_000 {
                x = black_box(x.wrapping_mul(3).wrapping_add(1));
            }
            x
        });
        let reading = counters.stop(&runtime);
        assert!(reading.cpu_seconds > 0.0, "{reading:?}");
        assert!(reading.cpu_seconds < 60.0);
        match (reading.instructions, reading.cycles) {
            (Some(instructions), Some(cycles)) => assert!(instructions > 5_000_000 && cycles > 0),
            (None, None) => assert!(
                reading.hardware_note.contains("no hardware counters"),
                "{}",
                reading.hardware_note
            ),
            other => panic!("instructions and cycles come together: {other:?}"),
        }
        assert_eq!(std::mem::size_of::<PerfEventAttr>(), 64);
    }
}
