//! ptoc: a compiler for the PyPTO tile IR.
//!
//! Data flow (see `../shared/spec/README.md` §1):
//! `.pto` text → [`lexer`] (tokens + layout) → [`parser`] (syntax tree, [`ast`]) → [`lower`]
//! (IR, [`ir`], checked against the operator table [`ops`]) → [`verify`] → passes → [`printer`]
//! or C++ codegen. Every error is a [`diag::Diagnostic`] with a source span.

// Errors are `Diagnostic` values (about 128 bytes, several owned strings): returning them by
// value is deliberate — they are rare, and boxing every one would cost an allocation for nothing.
#![allow(clippy::result_large_err)]

pub mod analysis;
pub mod ast;
pub mod backend;
pub mod builder;
pub mod codegen;
pub mod diag;
pub mod driver;
pub mod interp;
pub mod ir;
pub mod lexer;
pub mod lower;
pub mod ops;
pub mod par;
pub mod parser;
pub mod passes;
pub mod printer;
#[cfg(feature = "python")]
pub mod python;
pub mod suggest;
pub(crate) mod text;
pub mod verify;
