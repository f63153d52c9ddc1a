//! Analyses shared by lowering, the passes and the verifiers (docs/architecture.md, "Layers"):
//! they read the IR and the operator table and return facts, and import nothing above them.

pub mod buffers;
pub mod cycles;
pub mod effects;
pub mod hazard;
pub mod memref_plan;
pub mod one_path;
pub mod param_roots;
pub mod pto_buffers;
pub mod tensor_aliases;
pub mod visit_order;
pub mod windows;
