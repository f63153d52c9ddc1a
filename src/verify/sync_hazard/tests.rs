//! Unit tests of the sync hazard checker.
