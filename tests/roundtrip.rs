//! Round trips over the project's own `.pto` files (lit-test inputs and examples): printing is
//! a fixpoint after one parse (`print(parse(print(parse(x)))) == print(parse(x))`) and reading
//! printed text back gives a structurally equal program. The first parse of a hand-written file
//! is not compared structurally with the later ones: the canonical text rounds floats to 6
//! significant digits (spec §3.7), so `3.14159265` legitimately becomes `3.14159`. (The golden
//! corpus has its own byte-for-byte round-trip check in `tests/conformance.rs`.)

use std::path::{Path, PathBuf};

fn pto_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            pto_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "pto") {
            out.push(p);
        }
    }
}

fn compile(source: &str) -> Result<ptoc::ir::Program, String> {
    let module = ptoc::parser::parse(source).map_err(|d| format!("{d:?}"))?;
    ptoc::lower::lower(module).map_err(|d| format!("{d:?}"))
}

#[test]
fn project_pto_files_round_trip() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    pto_files(&root.join("lit-tests"), &mut files);
    pto_files(&root.join("examples"), &mut files);
    assert!(!files.is_empty());
    let mut checked = 0;
    let mut failures = Vec::new();
    for f in &files {
        // Files that are meant to fail (lit-tests/errors, invalid UTF-8 in lit-tests/cli) have
        // nothing to round-trip.
        let Ok(source) = std::fs::read_to_string(f) else { continue };
        let Ok(p1) = compile(&source) else { continue };
        let text1 = ptoc::printer::print_program(&p1);
        let p2 = match compile(&text1) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{}: printed text does not re-parse: {e}\n{text1}", f.display()));
                continue;
            }
        };
        let text2 = ptoc::printer::print_program(&p2);
        if text1 != text2 {
            failures
                .push(format!("{}: printing is not a fixpoint:\n--- first\n{text1}\n--- second\n{text2}", f.display()));
            continue;
        }
        let p3 = compile(&text2).expect("the same text parsed before");
        if let Some(diff) = ptoc::ir::equiv::programs_diff(&p2, &p3) {
            failures.push(format!("{}: re-parsed program is not structurally equal: {diff}", f.display()));
        }
        checked += 1;
    }
    assert!(failures.is_empty(), "{} of {} files failed:\n{}", failures.len(), checked, failures.join("\n\n"));
    assert!(checked >= 20, "only {checked} files were checked");
}

/// `--print-width`: text printed at a narrow width (brackets wrapped over several lines) reads
/// back as the same program, so printing it again at the default width gives exactly the
/// direct default print; and a line is longer than the width only where nothing could break.
#[test]
fn narrow_width_text_round_trips() {
    const WIDTH: usize = 60;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    pto_files(&root.join("lit-tests"), &mut files);
    pto_files(&root.join("examples"), &mut files);
    let (mut checked, mut wrapped) = (0, 0);
    let mut failures = Vec::new();
    for f in &files {
        let Ok(source) = std::fs::read_to_string(f) else { continue };
        let Ok(p1) = compile(&source) else { continue };
        let default = ptoc::printer::print_program(&p1);
        let narrow = ptoc::printer::print_program_width(&p1, WIDTH);
        if narrow.lines().count() > default.lines().count() {
            wrapped += 1;
        }
        match compile(&narrow) {
            Ok(p2) => {
                let again = ptoc::printer::print_program(&p2);
                if again != default {
                    failures
                        .push(format!("{}: differs after the narrow round trip:\n{narrow}\n---\n{again}", f.display()));
                }
            }
            Err(e) => failures.push(format!("{}: narrow text does not re-parse: {e}\n{narrow}", f.display())),
        }
        // A wrapped line ends at an opening bracket or a comma, or is a closing bracket.
        for line in narrow.lines().filter(|l| l.len() > WIDTH) {
            if !line.trim_end().ends_with(['(', '[', ',']) && !default.contains(line.trim_start()) {
                failures.push(format!("{}: line longer than {WIDTH} that could have broken: {line}", f.display()));
            }
        }
        checked += 1;
    }
    assert!(failures.is_empty(), "{} of {} files failed:\n{}", failures.len(), checked, failures.join("\n\n"));
    assert!(checked >= 20 && wrapped >= 10, "only {checked} files checked, {wrapped} wrapped");
}
