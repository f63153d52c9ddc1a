//! Unit tests of the test machinery itself (RUN-line parsing, the FileCheck wrapper, the
//! pending-list bookkeeping, the JSON reader): the `#[cfg(test)]` modules inside
//! `tests/common/`, compiled here with the standard harness.

mod common;
