//! `kernel_config.py` (spec `passes-and-codegen.md` §4.9): the runtime configuration, the
//! orchestration source and one `KERNELS` entry per kernel called by the orchestration function
//! (func ids as in the orchestration file, entries sorted by function name).

use std::fmt::Write;

use super::CoreTypes;
use crate::diag::Diagnostic;
use crate::ir::{Function, Program};

const PREFIX: &str = r#"# Kernel and Orchestration Configuration

from pathlib import Path

_ROOT_DIR = Path(__file__).parent

# Runtime configuration for tensormap_and_ringbuffer
# This runtime requires 4 AICPU threads (3 schedulers + 1 orchestrator on thread 3)
RUNTIME_CONFIG = {
	"runtime": "tensormap_and_ringbuffer",
	"aicpu_thread_num": 4,
	"block_dim": 24,
}

"#;

/// The text of `kernel_config.py` for the orchestration function `orch`.
pub fn emit(prog: &Program, orch: &Function) -> Result<String, Vec<Diagnostic>> {
    emit_with(prog, orch, &CoreTypes::default())
}

/// [`emit`] with the core types known so far.
pub fn emit_with<'p>(prog: &'p Program, orch: &Function, cores: &CoreTypes<'p>) -> Result<String, Vec<Diagnostic>> {
    let kernels = super::orchestration::kernels(prog, orch, cores)?;
    let mut s = String::from(PREFIX);
    // `write!` into a String cannot fail.
    let _ = write!(
        s,
        "ORCHESTRATION = {{\n\t\"source\": str(_ROOT_DIR / \"orchestration\" / \"{}.cpp\"),\n\t\"function_name\": \"aicpu_orchestration_entry\"\n}}\n\nKERNELS = [\n",
        orch.name
    );
    for (name, id, core) in kernels {
        let dir = core.dir();
        let _ = writeln!(
            s,
            "\t{{\"func_id\": {id}, \"source\": str(_ROOT_DIR / \"kernels\" / \"{dir}\" / \"{name}.cpp\"), \"core_type\": \"{dir}\"}},"
        );
    }
    s.push_str("]\n");
    Ok(s)
}
