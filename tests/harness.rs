//! Unit tests of the test machinery itself (RUN-line parsing, the FileCheck wrapper, the
//! pending-list bookkeeping, the JSON reader, the execution tests' `.npy`, comparison and
//! expected-failures helpers): the `#[cfg(test)]` modules inside `tests/common/` and
//! `tests/execution/`, compiled here with the standard harness.

mod common;

/// The self-contained helpers of the execution tests (`.npy` files, result comparison, the
/// expected-failures list), whose unit tests run here: only the tests use them in this target,
/// hence the `dead_code` allowance.
#[allow(dead_code)]
mod execution {
    pub mod compare;
    pub mod expected;
    pub mod invalid;
    pub mod npy;
}
