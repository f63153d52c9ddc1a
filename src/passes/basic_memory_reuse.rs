//! BasicMemoryReuse (`passes-and-codegen.md` §2.9): lifetimes and buffer reuse.
//!
//! (Not implemented yet: the registry entry has `run: None`.)
