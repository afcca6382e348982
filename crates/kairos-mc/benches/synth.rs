//! Synthesis speed on the MC-DAG framework's example systems (written next).
fn main() {}
