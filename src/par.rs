//! Work on several threads with a deterministic result: [`map`] applies a function to every
//! item of a slice on up to `jobs` threads and returns the results in the items' order, so the
//! output never depends on the number of threads (the passes and codegen use it for the
//! functions of a program, which they treat one at a time; tests use it for their corpora).
//!
//! The helper threads are a pool started once and kept: a compilation calls [`map`] for each
//! stretch of passes, and a thread spawned for each call waited up to 3 ms (a scheduler tick)
//! before the kernel moved it to the idle core, while the caller worked alone; a pool thread
//! woken from its queue starts on the idle core at once.

use std::any::Any;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};

/// Stack of each worker: the passes and emitters recurse on deep statements and expressions,
/// as deep as the compilation thread allows (`driver::run_with`).
const STACK: usize = 1 << 30;

/// `items.iter().map(f)` on up to `jobs` threads (this one included), results in item order.
/// Items are taken one at a time, so a few large ones do not leave threads idle. With `jobs`
/// ≤ 1, one item, or when no thread can be started, everything runs on this thread. A panic in
/// a helper is resumed on this thread (the driver reports it as an internal error).
pub fn map<T: Sync, R: Send>(items: &[T], jobs: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let workers = jobs.min(items.len());
    if workers <= 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else { break };
            done.push((i, f(item)));
        }
        done
    };
    let helped = Mutex::new(Vec::new());
    let help = || {
        let done = work();
        helped.lock().unwrap_or_else(PoisonError::into_inner).extend(done);
    };
    let mut results = with_helpers(&help, workers - 1, work);
    results.append(&mut helped.into_inner().unwrap_or_else(PoisonError::into_inner));
    let mut slots: Vec<Option<R>> = std::iter::repeat_with(|| None).take(items.len()).collect();
    for (i, r) in results {
        slots[i] = Some(r);
    }
    // Every index below `items.len()` was taken by exactly one thread.
    slots.into_iter().flatten().collect()
}

/// Starts the pool threads a later [`map`] on `jobs` threads will use, if they are not running
/// yet. A new thread can wait a scheduler tick (3 ms) before it runs on the idle core; started
/// while the caller still has other work (the driver calls this before parsing), the threads are
/// ready when the first stretch of passes needs them.
pub fn prepare(jobs: usize) {
    pool().start_threads(jobs.saturating_sub(1));
}

/// One call's helpers in the pool: each runs the call's job if it starts while the call is
/// open. The caller closes the call when its own share is done and then waits for the helpers
/// that started ([`Call::finish`], or the drop when the caller unwinds), so the job, which
/// borrows the caller's stack, is never run after the caller returns. A helper that starts
/// later finds the call closed and does nothing, so a call never waits for a queued helper (a
/// `map` inside a pool thread cannot wait for itself).
struct Call {
    control: Arc<Control>,
}

#[derive(Default)]
struct Control {
    state: Mutex<State>,
    idle: Condvar,
}

#[derive(Default)]
struct State {
    closed: bool,
    running: usize,
    panic: Option<Box<dyn Any + Send>>,
}

impl Control {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Runs `own` on this thread while `helpers` pool threads run `job`; returns once no helper
/// runs `job` any more (see [`Call`]), resuming a helper's panic.
fn with_helpers<R>(job: &(dyn Fn() + Sync), helpers: usize, own: impl FnOnce() -> R) -> R {
    // SAFETY: `call` is finished below, or dropped if `own` unwinds, before `job` (borrowed for
    // this whole function) can go away.
    let call = unsafe { Call::start(job, helpers) };
    let out = own();
    call.finish();
    out
}

impl Call {
    /// Hands `job` to `helpers` pool threads.
    ///
    /// # Safety
    /// The returned `Call` must be finished or dropped (never forgotten) while everything `job`
    /// borrows is alive: a helper runs `job` only while the call is open, and closing it waits
    /// until no helper runs it.
    unsafe fn start(job: &(dyn Fn() + Sync), helpers: usize) -> Call {
        // SAFETY: see the function's contract; the lifetime is erased only for the pool's
        // queue, which needs `'static` tasks.
        let job: &'static (dyn Fn() + Sync) = unsafe { std::mem::transmute(job) };
        let control = Arc::new(Control::default());
        for _ in 0..helpers {
            let control = Arc::clone(&control);
            let task = Box::new(move || {
                {
                    let mut state = control.state();
                    if state.closed {
                        return;
                    }
                    state.running += 1;
                }
                let outcome = catch_unwind(AssertUnwindSafe(job));
                let mut state = control.state();
                state.running -= 1;
                if let Err(payload) = outcome {
                    state.panic.get_or_insert(payload);
                }
                control.idle.notify_all();
            });
            if !pool().give(task) {
                break;
            }
        }
        Call { control }
    }

    /// Closes the call, waits for its running helpers and resumes a helper's panic.
    fn finish(self) {
        let panic = self.close();
        if let Some(payload) = panic {
            resume_unwind(payload);
        }
    }

    fn close(&self) -> Option<Box<dyn Any + Send>> {
        let mut state = self.control.state();
        state.closed = true;
        while state.running > 0 {
            state = self.control.idle.wait(state).unwrap_or_else(PoisonError::into_inner);
        }
        state.panic.take()
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        // After `finish` this finds the call closed and idle; when the caller unwinds it is
        // what keeps the borrowed job alive until no helper runs it.
        self.close();
    }
}

/// A task for a pool thread.
type Task = Box<dyn FnOnce() + Send>;

/// The pool: a queue of tasks and the threads taking them, started as tasks need them and kept
/// for the life of the process.
#[derive(Default)]
struct Pool {
    state: Mutex<Queue>,
    ready: Condvar,
}

#[derive(Default)]
struct Queue {
    tasks: std::collections::VecDeque<Task>,
    /// Threads waiting for a task (woken ones included until they take it).
    idle: usize,
    threads: usize,
}

fn pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(Pool::default)
}

impl Pool {
    /// Queues `task` and wakes a waiting thread, or starts one when every thread is busy (the
    /// pool grows to the most tasks ever waiting at once). False when no thread can run it.
    fn give(&'static self, task: Task) -> bool {
        let mut queue = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        queue.tasks.push_back(task);
        if queue.idle >= queue.tasks.len() {
            self.ready.notify_one();
            return true;
        }
        if self.spawn(&mut queue) {
            return true;
        }
        queue.tasks.pop_back();
        false
    }

    /// Starts threads until the pool has `n`.
    fn start_threads(&'static self, n: usize) {
        let mut queue = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        while queue.threads < n && self.spawn(&mut queue) {}
    }

    /// Starts one more thread (`queue` is the locked state). False if it cannot.
    fn spawn(&'static self, queue: &mut Queue) -> bool {
        let name = format!("ptoc-work-{}", queue.threads + 1);
        let started = std::thread::Builder::new().name(name).stack_size(STACK).spawn(move || self.serve());
        queue.threads += usize::from(started.is_ok());
        started.is_ok()
    }

    /// A pool thread: runs tasks as they come (a task catches its own panics).
    fn serve(&self) {
        loop {
            let task = {
                let mut queue = self.state.lock().unwrap_or_else(PoisonError::into_inner);
                loop {
                    if let Some(task) = queue.tasks.pop_front() {
                        break task;
                    }
                    queue.idle += 1;
                    queue = self.ready.wait(queue).unwrap_or_else(PoisonError::into_inner);
                    queue.idle -= 1;
                }
            };
            task();
        }
    }
}

/// [`map`] over owned items: `f` gets each item by value (e.g. a function body a pass rewrites).
pub fn map_into<T: Send, R: Send>(items: Vec<T>, jobs: usize, f: impl Fn(T) -> R + Sync) -> Vec<R> {
    if jobs.min(items.len()) <= 1 {
        return items.into_iter().map(f).collect();
    }
    // Each slot is taken by exactly one worker; the lock is never contended.
    let slots: Vec<Mutex<Option<T>>> = items.into_iter().map(|t| Mutex::new(Some(t))).collect();
    map(&slots, jobs, |slot| {
        let item = slot.lock().unwrap_or_else(PoisonError::into_inner).take();
        item.map(&f)
    })
    .into_iter()
    .flatten()
    .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn results_keep_the_item_order_for_any_number_of_threads() {
        let items: Vec<u64> = (0..100).collect();
        let want: Vec<u64> = items.iter().map(|x| x * x).collect();
        for jobs in [0, 1, 2, 3, 8, 200] {
            assert_eq!(super::map(&items, jobs, |x| x * x), want, "{jobs} jobs");
        }
        assert!(super::map(&[] as &[u64], 4, |x| *x).is_empty());
        for jobs in [1, 2, 3] {
            let owned: Vec<String> = items.iter().map(u64::to_string).collect();
            let lens: Vec<usize> = super::map_into(owned, jobs, |s| s.len());
            assert_eq!(lens, items.iter().map(|x| x.to_string().len()).collect::<Vec<_>>());
        }
    }

    /// A `map` inside a pool thread's task does not wait for helpers queued behind it, and
    /// many callers at once share the pool.
    #[test]
    fn nested_and_concurrent_calls_finish() {
        let outer: Vec<u64> = (0..8).collect();
        let callers: Vec<u64> = (0..4).collect();
        let sums = super::map(&callers, 4, |&c| {
            let rows = super::map(&outer, 3, |&i| super::map(&outer, 2, |&j| i * j + c).iter().sum::<u64>());
            rows.iter().sum::<u64>()
        });
        let want: Vec<u64> = callers.iter().map(|c| 28 * 28 + 64 * c).collect();
        assert_eq!(sums, want);
    }

    /// A helper's panic is resumed on the caller, after which the pool still works.
    #[test]
    fn a_panic_in_a_helper_reaches_the_caller() {
        use std::sync::atomic::{AtomicBool, Ordering};
        let items: Vec<u64> = (0..64).collect();
        let caller = std::thread::current().id();
        let helped = AtomicBool::new(false);
        let outcome = std::panic::catch_unwind(|| {
            super::map(&items, 2, |&x| {
                // The caller holds its first item until a helper has taken one.
                if std::thread::current().id() != caller {
                    helped.store(true, Ordering::SeqCst);
                    panic!("item {x}");
                }
                let start = std::time::Instant::now();
                while !helped.load(Ordering::SeqCst) && start.elapsed().as_secs() < 60 {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
                x
            })
        });
        assert!(helped.load(Ordering::SeqCst), "no helper ran");
        assert!(outcome.is_err());
        assert_eq!(super::map(&items, 2, |x| x + 1), items.iter().map(|x| x + 1).collect::<Vec<_>>());
    }
}
