//! Work on several threads with a deterministic result: [`map`] applies a function to every
//! item of a slice on up to `jobs` scoped threads and returns the results in the items' order,
//! so the output never depends on the number of threads (the passes and codegen use it for the
//! functions of a program, which they treat one at a time; tests use it for their corpora).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

/// Stack of each worker: the passes and emitters recurse on deep statements and expressions,
/// as deep as the compilation thread allows (`driver::run_with`).
const STACK: usize = 1 << 30;

/// `items.iter().map(f)` on up to `jobs` threads (this one included), results in item order.
/// Items are taken one at a time, so a few large ones do not leave threads idle. With `jobs`
/// ≤ 1, one item, or when no thread can be started, everything runs on this thread. A panic in
/// a worker is resumed on this thread (the driver reports it as an internal error).
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
    let mut slots: Vec<Option<R>> = std::iter::repeat_with(|| None).take(items.len()).collect();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (1..workers)
            .filter_map(|k| {
                let builder = std::thread::Builder::new().name(format!("ptoc-work-{k}")).stack_size(STACK);
                builder.spawn_scoped(scope, work).ok()
            })
            .collect();
        let mut results = work();
        for h in handles {
            match h.join() {
                Ok(done) => results.extend(done),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        for (i, r) in results {
            slots[i] = Some(r);
        }
    });
    // Every index below `items.len()` was taken by exactly one thread.
    slots.into_iter().flatten().collect()
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
}
