//! AllocateMemoryAddr (`passes-and-codegen.md` §2.11): addresses of on-chip MemRefs.
//!
//! (Not implemented yet: the registry entry has `run: None`.)
