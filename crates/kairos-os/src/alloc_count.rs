//! A global allocator that counts the allocations each thread makes, for a test binary that
//! checks a code path allocates nothing: install it with `#[global_allocator] static A:
//! CountingAllocator = CountingAllocator;` and compare [`allocations`] before and after. It
//! forwards every call to the system allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    // A const-initialised Cell: reading it never allocates (which would recurse).
    static COUNT: Cell<u64> = const { Cell::new(0) };
}

/// The system allocator, counting each thread's allocations and reallocations.
pub struct CountingAllocator;

fn count() {
    // During a thread's teardown the slot may be gone: those allocations are not counted.
    let _ = COUNT.try_with(|c| c.set(c.get() + 1));
}

/// Allocations and reallocations this thread has made so far through [`CountingAllocator`]
/// (0 if it is not the global allocator).
pub fn allocations() -> u64 {
    COUNT.try_with(Cell::get).unwrap_or(0)
}

// SAFETY: every method forwards its arguments unchanged to `System`, which upholds
// `GlobalAlloc`'s contract; counting touches only a thread-local integer.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller's guarantees for `alloc` are passed on as they are.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: `ptr` was allocated by this allocator, that is by `System`, with `layout`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by this allocator, that is by `System`, with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
}
