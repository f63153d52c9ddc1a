//! parse → lower → print → parse: whatever lowers must print to text that lowers to an equal
//! program and prints the same again.
#![no_main]

use libfuzzer_sys::fuzz_target;

fn compile(source: &str) -> Option<ptoc::ir::Program> {
    let module = ptoc::parser::parse(source).ok()?;
    ptoc::lower::lower(module).ok()
}

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else { return };
    let Some(prog) = compile(source) else { return };
    let text = ptoc::printer::print_program(&prog);
    let again = compile(&text).unwrap_or_else(|| panic!("printed program does not re-read:\n{text}"));
    if let Some(d) = ptoc::ir::equiv::programs_diff(&prog, &again) {
        panic!("parse(print(P)) != P: {d}\n{text}");
    }
    assert_eq!(ptoc::printer::print_program(&again), text, "re-printing changes the text");
});
