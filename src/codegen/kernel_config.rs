//! `kernel_config.py` (spec `passes-and-codegen.md` §4.9): the runtime configuration, the
//! orchestration source and one `KERNELS` entry per kernel called by the orchestration function
//! (func ids as in the orchestration file, entries sorted by function name).

use std::fmt::Write;

use super::CoreTypes;
use crate::diag::Diagnostic;
use crate::ir::{Function, FunctionType, Program};

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

/// The text of `kernel_config.py` with `orch` as its `ORCHESTRATION` (the program's first
/// orchestration function).
pub fn emit(prog: &Program, orch: &Function) -> Result<String, Vec<Diagnostic>> {
    emit_with(prog, orch, &CoreTypes::default())
}

/// [`emit`] with the core types known so far.
///
/// A program with several orchestration functions (§6.1 Q25: an Opaque function with a
/// `with pl.incore():` scope next to a declared Orchestration function) gets one orchestration
/// file per function and one `kernel_config.py`: `ORCHESTRATION` names the first (by name), an
/// extra `ORCHESTRATIONS` list names them all, and the `KERNELS` table (func ids numbered over
/// all of them) serves every one. A program with one orchestration function gets the
/// reference's file.
pub fn emit_with<'p>(prog: &'p Program, orch: &Function, cores: &CoreTypes<'p>) -> Result<String, Vec<Diagnostic>> {
    let kernels = super::orchestration::kernels(prog, cores)?;
    let mut s = String::from(PREFIX);
    // `write!` into a String cannot fail.
    let _ = write!(
        s,
        "ORCHESTRATION = {{\n\t\"source\": str(_ROOT_DIR / \"orchestration\" / \"{}.cpp\"),\n\t\"function_name\": \"aicpu_orchestration_entry\"\n}}\n\n",
        orch.name
    );
    let orchs: Vec<&Function> = prog.functions.iter().filter(|f| f.kind == FunctionType::Orchestration).collect();
    if orchs.len() > 1 {
        s.push_str("# Every orchestration function of the program (each its own entry point; one KERNELS table)\nORCHESTRATIONS = [\n");
        for f in orchs {
            let _ = writeln!(
                s,
                "\t{{\"source\": str(_ROOT_DIR / \"orchestration\" / \"{}.cpp\"), \"function_name\": \"aicpu_orchestration_entry\"}},",
                f.name
            );
        }
        s.push_str("]\n\n");
    }
    s.push_str("KERNELS = [\n");
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
