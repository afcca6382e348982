//! Other tools' formats: rt-app workloads written from kairos's.

pub mod rt_app;
