//! G-EDZL test (to be written).
