//! # kairos-validate
//!
//! An independent checker of mixed-criticality scheduling tables: it shares no code with the
//! synthesizer (`kairos-mc`) beyond the model types, so a table both accept is right twice.
#![forbid(unsafe_code)]
