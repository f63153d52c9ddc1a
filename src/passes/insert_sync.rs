//! InsertSync (`passes-and-codegen.md` §2.10): set/wait flags and barriers between pipes.
//!
//! (Not implemented yet: the registry entry has `run: None`.)
