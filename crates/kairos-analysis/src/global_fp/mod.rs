//! (filled in by the modules of this folder)
