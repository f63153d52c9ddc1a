//! InitMemRef (`passes-and-codegen.md` §2.8): memory space per op, MemRefs, `block.alloc` statements.
//!
//! (Not implemented yet: the registry entry has `run: None`.)
