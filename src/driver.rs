//! The command-line driver behind `ptoc` (kept in the library so tests can run it in-process).
