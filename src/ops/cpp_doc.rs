//! `docs/ops-cpp.md`, generated from the operator table: each operator's pipes and the C++
//! form of its `cce` column ([`super::cce::CceEmit`]).

/// `docs/ops-cpp.md`: every operator of the table with its pipes and the C++ the CCE code
/// generator emits for it (pto-isa instructions, tile layouts they need). Generated from the
/// operator table; `cargo test` checks the file (`PTOC_UPDATE_DOCS=1` rewrites it).
pub fn ops_cpp_markdown() -> String {
    use super::table::{entries, Category};
    let pipe = |p: Option<crate::ir::PipeType>| p.map_or("—".to_string(), |p| p.name().to_string());
    let mut out = String::from(
        "# Operators as pto-isa C++\n\n\
         Generated from the operator table (`src/ops/table.rs`, the `pipe_cce`, `pipe_pto` and `cce`\n\
         columns; `src/ops/cce.rs`, `src/ops/cpp_doc.rs`); do not edit: `PTOC_UPDATE_DOCS=1 cargo test --lib ops_cpp_doc`\n\
         rewrites it, and `cargo test` fails when it is stale.\n\n\
         For each operator: the pipe that runs it on the 910B with the CCE and the PTO backend (the\n\
         column insert-sync and `--verify-sync` read; `S` is the scalar unit), the pto-isa\n\
         instructions of its kernel C++ (`ptoc --emit cpp`), and the tile layouts those instructions\n\
         need. The code generator provides the layouts: tiles of Left, Right and Acc always get the\n\
         fractal layout `TMATMUL` takes, and where an instruction wants another shape or layout of a\n\
         tile it uses a view of the same memory (`TASSIGN` to the tile's address) or a scratch tile\n\
         placed after the function's tiles in Vec memory (fenced with `pipe_barrier(PIPE_V)`).\n\
         Every operator that runs an instruction on the device has a pipe for both backends\n\
         (checked by `ops::cce::tests::every_device_op_has_a_pipe_for_every_backend`).\n\n\
         Layout names: `BLayout` (RowMajor / ColMajor) is the order of the elements or fractal\n\
         boxes, `SLayout` the order inside a fractal box (`NoneBox` for a plain tile); `Nz` is\n\
         ColMajor boxes of RowMajor fractals, `Zn` RowMajor boxes of ColMajor fractals, `Zz`\n\
         RowMajor boxes of RowMajor fractals. A `[N, 1]` tile is column-major (a row-major one would\n\
         need its column padded to 32 bytes), a 1-D tile `[N]` is the row `[1, N]`.\n\n",
    );
    for (title, cat) in [
        ("Block operators", Category::Block),
        ("System (synchronization) operators", Category::Sync),
        ("Tensor operators", Category::Tensor),
    ] {
        out.push_str(&format!("## {title}\n\n| operator | CCE pipe | PTO pipe | pto-isa C++ | tile layouts required |\n|---|---|---|---|---|\n"));
        for (_, d) in entries().filter(|(_, d)| d.category == cat) {
            let (instrs, layouts) = match d.cce {
                Some(e) => (e.instructions(), e.layouts().to_string()),
                None if cat == Category::Tensor => {
                    ("— (InCore: the block form; Orchestration: runtime calls)".to_string(), "—".to_string())
                }
                None => ("— (no CCE form: `No codegen registered for operation`)".to_string(), "—".to_string()),
            };
            out.push_str(&format!(
                "| `{}` | {} | {} | {} | {} |\n",
                d.name,
                pipe(d.pipe_cce),
                pipe(d.pipe_pto),
                instrs,
                layouts
            ));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    /// `docs/ops-cpp.md` is what [`super::ops_cpp_markdown`] generates; `PTOC_UPDATE_DOCS=1`
    /// rewrites it.
    #[test]
    fn ops_cpp_doc_is_up_to_date() {
        crate::ops::check_generated_doc("ops-cpp.md", &super::ops_cpp_markdown(), "ops_cpp_doc");
    }
}
