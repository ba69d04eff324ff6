//! The memory budget: a count of the bytes the process holds, kept by an
//! allocator that wraps the system's, and the default budget.
//!
//! Every structure that grows with the input (fact stores, join buffers,
//! the term table, the model memo, `or` expansion, grounding) allocates
//! through the global allocator, so one count charges them all. The stages
//! compare it with [`crate::Limits::max_memory`] where they grow and stop
//! with a limit error naming what they were computing, before the system
//! refuses an allocation (which aborts the process). The count exists only
//! when a program installs [`CountingAllocator`] as its global allocator
//! (the `gdl` command does); without it the budget is not enforced.
//!
//! What is counted is what the system's allocator takes for a block, not
//! only the bytes asked for: a block of 10 bytes takes 32 (glibc's chunk
//! header, its 16-byte alignment, its least chunk), so a record or a trace
//! of millions of short strings counts at the size its resident set grows
//! by ([`footprint`]).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering};

/// Bytes held through [`CountingAllocator`], as far as the threads have
/// reported them (each keeps up to [`BATCH`] bytes of change to itself).
/// Signed: one thread may report freeing what another has not yet
/// reported allocating.
static HELD: AtomicIsize = AtomicIsize::new(0);

/// Whether [`CountingAllocator`] is the global allocator (set when a thread
/// first reports to [`HELD`]: the runtime's own allocations before `main`
/// stay below [`BATCH`], so a program reads `None` from [`heap_bytes`] until
/// it has allocated a little).
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// How many bytes of change a thread gathers before it adds them to
/// [`HELD`]: an atomic add on every allocation would cost the playouts a
/// tenth of their speed; this keeps the count within `BATCH` bytes a
/// thread, which is nothing beside a budget of megabytes.
const BATCH: isize = 256 << 10;

thread_local! {
    /// This thread's change to the heap not yet added to [`HELD`].
    static PENDING: Cell<isize> = const { Cell::new(0) };
}

/// The system allocator, counting the bytes it holds so that
/// [`crate::Limits::max_memory`] can be enforced. Install it in a program
/// with `#[global_allocator]`:
///
/// ```
/// #[global_allocator]
/// static ALLOCATOR: gdl::CountingAllocator = gdl::CountingAllocator;
/// ```
pub struct CountingAllocator;

// SAFETY: every method forwards to `System` with the caller's arguments
// unchanged, so `System`'s guarantees hold; the counting only reads the
// layout's size and touches a const-initialised thread-local cell (no
// destructor, no allocation) and atomics, which neither allocates nor
// unwinds.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc` is `System`'s.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            charge(footprint(layout.size()));
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc_zeroed` is `System`'s.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            charge(footprint(layout.size()));
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` (through this allocator)
        // with `layout`, as the caller promises.
        unsafe { System.dealloc(ptr, layout) };
        charge(-footprint(layout.size()));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract for `realloc` is `System`'s.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            charge(footprint(new_size) - footprint(layout.size()));
        }
        p
    }
}

/// The bytes a block of `size` takes from the system's allocator: the
/// size with an 8-byte header, rounded up to 16, and at least 32 (glibc's
/// malloc on 64-bit systems; others are alike). Counting the size alone
/// undercounted a trace of 90,000 short facts a state by half.
#[inline]
fn footprint(size: usize) -> isize {
    (size.saturating_add(8 + 15) & !15).max(32) as isize
}

/// Counts `delta` bytes more (or fewer) on the heap: in this thread's
/// pending change, added to [`HELD`] once it reaches [`BATCH`] either way
/// (or at once, while the thread is being torn down).
#[inline]
fn charge(delta: isize) {
    let full = PENDING.try_with(|pending| {
        let now = pending.get() + delta;
        if now.abs() < BATCH {
            pending.set(now);
            0
        } else {
            pending.set(0);
            now
        }
    });
    match full {
        Ok(0) => {}
        Ok(now) => report(now),
        Err(_) => report(delta),
    }
}

#[cold]
fn report(bytes: isize) {
    HELD.fetch_add(bytes, Ordering::Relaxed);
    if !INSTALLED.load(Ordering::Relaxed) {
        INSTALLED.store(true, Ordering::Relaxed);
    }
}

/// The bytes the process holds on its heap (to within a quarter of a
/// megabyte a thread), when [`CountingAllocator`] is its global allocator
/// (`None` otherwise).
pub fn heap_bytes() -> Option<usize> {
    INSTALLED
        .load(Ordering::Relaxed)
        .then(|| HELD.load(Ordering::Relaxed).max(0) as usize)
}

/// Whether the heap holds more than `budget` bytes (never, when the count
/// is not kept). Cheap enough for the loops that grow: one atomic load.
#[inline]
pub(crate) fn over(budget: usize) -> bool {
    HELD.load(Ordering::Relaxed).max(0) as usize > budget
}

/// The most the default budget grants: 4 GiB.
const DEFAULT_CEILING: usize = 4 << 30;

/// The default of [`crate::Limits::max_memory`]: half of what the machine
/// may give the process (its physical memory, or an address-space or data
/// limit set on it, whichever is less), and at most 4 GiB. A vector that
/// doubles past the budget then still fits in what is left.
pub fn default_max_memory() -> usize {
    let mut room = physical_memory().unwrap_or(usize::MAX);
    for limit in ["Max address space", "Max data size"] {
        if let Some(bytes) = process_limit(limit) {
            room = room.min(bytes);
        }
    }
    (room / 2).min(DEFAULT_CEILING)
}

/// The machine's memory in bytes, from `/proc/meminfo` (Linux).
fn physical_memory() -> Option<usize> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// A soft limit of the process in bytes, from `/proc/self/limits` (Linux),
/// when one is set.
fn process_limit(name: &str) -> Option<usize> {
    let text = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = text.lines().find(|l| l.starts_with(name))?;
    line[name.len()..].split_whitespace().next()?.parse().ok()
}

/// A byte count for people: `512 MiB`, `4 GiB`, `1.5 GiB`.
pub fn human_bytes(bytes: usize) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if value.fract() == 0.0 {
        format!("{value} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_read_as_people_write_them() {
        assert_eq!(human_bytes(100), "100 bytes");
        assert_eq!(human_bytes(512 << 20), "512 MiB");
        assert_eq!(human_bytes(4 << 30), "4 GiB");
        assert_eq!(human_bytes(3 << 29), "1.5 GiB");
    }

    #[test]
    fn a_block_counts_as_what_the_allocator_takes_for_it() {
        assert_eq!(footprint(0), 32);
        assert_eq!(footprint(10), 32);
        assert_eq!(footprint(24), 32);
        assert_eq!(footprint(25), 48);
        assert_eq!(footprint(1000), 1008);
    }

    #[test]
    fn the_default_budget_is_within_the_ceiling() {
        let budget = default_max_memory();
        assert!(budget > 0 && budget <= DEFAULT_CEILING, "{budget}");
    }
}
