//! Feeds arbitrary bytes to `kairos check`, seeded with the examples of the managed kind
//! (`scripts/fuzz` says which): it must never panic, and its report must keep the rules of
//! [`kairos_fuzz::invariants`].
#![no_main]

use kairos_fuzz::invariants::{check_bytes, file_name};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| check_bytes(file_name("check_managed"), data));
