//! The busy loop of calibrated work, written in assembly so that its speed does not depend on
//! where the linker puts it.
//!
//! Compiled from Rust, the loop's five instructions fell across a 64-byte line in some builds
//! and not in others, and on the AMD EPYC vCPUs these machines have the split loop ran slower
//! during a run (both cores busy) than while it was calibrated (one core at a time): jobs then
//! executed longer than their drawn work, by an amount that changed from one build to the
//! next. Measured: two test binaries built from the same library code, one with the loop split
//! and one without, agreed with the simulation on 88 % and 93 % of G-/P-RMWP jobs' part ends;
//! the `kairos` binaries of two commits differed the same way. `.p2align 6` starts the loop
//! on a line of its own in every build. The chain of dependent multiply-adds cannot be
//! removed or vectorised, so its cost per iteration stays fixed.

/// The multiply-add chain of `iterations` steps from a fixed seed; returns the last value.
#[cfg(target_arch = "x86_64")]
pub fn multiply_add_chain(iterations: u64) -> u64 {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    if iterations == 0 {
        return x;
    }
    // SAFETY: the block reads and writes the four registers it names and the flags (which
    // `asm!` assumes clobbered unless told otherwise), touches no memory and no stack
    // (`nomem, nostack`), and ends after exactly `iterations` rounds (`iterations` >= 1 here).
    unsafe {
        std::arch::asm!(
            ".p2align 6",
            "2:",
            "imul {x}, {c}",
            "add {x}, {i}",
            "inc {i}",
            "cmp {i}, {n}",
            "jne 2b",
            x = inout(reg) x,
            i = inout(reg) 0u64 => _,
            c = in(reg) 6_364_136_223_846_793_005u64,
            n = in(reg) iterations,
            options(nomem, nostack),
        );
    }
    x
}

/// The same chain in Rust where no assembly is written for the architecture.
#[cfg(not(target_arch = "x86_64"))]
pub fn multiply_add_chain(iterations: u64) -> u64 {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for i in 0..iterations {
        x = std::hint::black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i));
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chain_is_the_multiply_add_recurrence() {
        let expected = |n: u64| {
            (0..n).fold(0x9e37_79b9_7f4a_7c15u64, |x, i| {
                x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i)
            })
        };
        for n in [0, 1, 2, 3, 1_000, 12_345] {
            assert_eq!(multiply_add_chain(n), expected(n), "{n} iterations");
        }
    }
}
