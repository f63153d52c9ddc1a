//! Every DSL program shown in the README and `docs/` (a ```python block holding `@pl.program`)
//! compiles, and compiles to the same IR as its canonical printed form: the program as
//! written and the text ptoc prints for it (`--pipeline none`) give the same IR after the default
//! pipeline, and the printed form prints back to itself.

mod common;

fn ptoc(args: &[&str], source: &str) -> (i32, String, String) {
    let argv: Vec<String> = std::iter::once("ptoc").chain(args.iter().copied()).map(String::from).collect();
    let out = ptoc::driver::run(&argv, source.as_bytes());
    (out.code, String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// (document, line of the block, program text) of every program block.
fn examples() -> Vec<(String, usize, String)> {
    let docs = common::markdown_documents();
    let mut out = Vec::new();
    for doc in docs {
        let text = std::fs::read_to_string(&doc).expect("readable document");
        let name = doc.file_name().unwrap().to_string_lossy().into_owned();
        let mut block: Option<(usize, String)> = None;
        for (n, line) in text.lines().enumerate() {
            match &mut block {
                None if line.trim_start() == "```python" => block = Some((n + 1, String::new())),
                Some((start, body)) if line.trim_start() == "```" => {
                    if body.contains("@pl.program") {
                        out.push((name.clone(), *start, std::mem::take(body)));
                    }
                    block = None;
                }
                Some((_, body)) => {
                    body.push_str(line);
                    body.push('\n');
                }
                None => {}
            }
        }
    }
    out
}

#[test]
fn doc_programs_compile_to_the_ir_of_their_printed_form() {
    let examples = examples();
    assert!(examples.len() >= 5, "only {} program blocks found in the docs", examples.len());
    let mut problems = Vec::new();
    for (doc, line, program) in examples {
        let at = format!("{doc}:{line}");
        let (code, printed, err) = ptoc(&["--pipeline", "none", "--emit", "ir", "-"], &program);
        if code != 0 {
            problems.push(format!("{at}: ptoc refuses the example:\n{err}"));
            continue;
        }
        let (_, reprinted, _) = ptoc(&["--pipeline", "none", "--emit", "ir", "-"], &printed);
        if reprinted != printed {
            problems.push(format!("{at}: the printed form does not print back to itself"));
        }
        let (c1, ir_written, e1) = ptoc(&["--emit", "ir", "-"], &program);
        let (c2, ir_printed, e2) = ptoc(&["--emit", "ir", "-"], &printed);
        if (c1, &ir_written, &e1) != (c2, &ir_printed, &e2) {
            problems.push(format!("{at}: the example and its printed form give different IR after the pipeline"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
