//! # kairos-mc
//!
//! Offline part of GMH-MC-DAG (seed `000_5feb7fca5a4f9943.txt`, section 4.2): one
//! time-triggered table per criticality level, built with G-EDZL (or G-EDF / G-LLF) slot
//! priorities and the safe-transition constraint between every pair of consecutive levels.
#![forbid(unsafe_code)]
