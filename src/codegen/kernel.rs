//! (to be written: spec passes-and-codegen.md §4)
