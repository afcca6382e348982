//! # kairos-rt
//!
//! Runs workloads for real on this machine's cores (issue 5): real threads with explicit
//! policy and affinity, calibrated busy work, table-driven global dispatch (G-RES) and lock-free
//! mode changes (G-MCRES, seed `000_5feb7fca5a4f9943.txt`, Algorithms 1 and 2).
