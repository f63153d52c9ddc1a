//! Lowering while parsing ([`super::stream`]) against lowering the parsed file whole: on every
//! file of the test corpora and on files made to exercise each way the stream can go (a call of
//! a function defined later, functions outside the class, a printed method in a hand-written
//! file, a file that turns out printed), the program and the diagnostics must be the same, or
//! the stream must decline.

use super::{lower_source, lower_with_jobs, stream};
use crate::diag::Diagnostic;
use crate::ir::Program;

/// The printed program, or the diagnostics.
fn describe(r: Result<Program, Vec<Diagnostic>>) -> String {
    match r {
        Ok(p) => crate::printer::print_program(&p),
        Err(d) => format!("{d:#?}"),
    }
}

/// The file parsed and lowered whole, on one thread.
fn whole(text: &str) -> String {
    describe(crate::parser::parse_with_jobs(text, 1).and_then(|m| lower_with_jobs(m, 1)))
}

/// The stream's result (on two workers), `None` when it declines; what `lower_source` gives
/// must be the whole lowering's either way.
fn streamed(text: &str) -> Option<String> {
    assert_eq!(describe(lower_source(text, 2)), whole(text), "lower_source differs on\n{text}");
    stream::lower(text, 2).map(describe)
}

const HEAD: &str = "# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n";

/// A hand-written kernel `name` (a DSL call without its defaulted keyword arguments).
fn hand_written(name: &str) -> String {
    format!(
        "    @pl.function(type=pl.FunctionType.InCore)\n    def {name}(self, x: pl.Tensor[[64, 16], pl.FP32], out: pl.Out[pl.Tensor[[64, 16], pl.FP32]]) -> pl.Tensor[[64, 16], pl.FP32]:\n        t = pl.load(x, [0, 0], [16, 16])\n        r = pl.store(t, [0, 0], [16, 16], out)\n        return r\n"
    )
}

/// A kernel `name` as the printer writes it, with a loop whose result the yield names `rows`.
fn printed_loop(name: &str) -> String {
    format!(
        "    @pl.function(type=pl.FunctionType.InCore)\n    def {name}(self, x: pl.Tensor[[64, 16], pl.FP32], out: pl.Out[pl.Tensor[[64, 16], pl.FP32]]) -> pl.Tensor[[64, 16], pl.FP32]:\n        for i, (acc,) in pl.range(0, 4, 1, init_values=(out,)):\n            t: pl.Tile[[16, 16], pl.FP32] = pl.block.load(x, [i * 16, 0], [16, 16], target_memory=pl.MemorySpace.Vec)\n            r: pl.Tensor[[64, 16], pl.FP32] = pl.block.store(t, [i * 16, 0], [16, 16], acc)\n            rows: pl.Tensor[[64, 16], pl.FP32] = pl.yield_(r)\n        return rows\n"
    )
}

/// An orchestration function `name` calling the kernel `callee`.
fn orchestration(name: &str, callee: &str) -> String {
    format!(
        "    @pl.function(type=pl.FunctionType.Orchestration)\n    def {name}(self, x: pl.Tensor[[64, 16], pl.FP32]) -> pl.Tensor[[64, 16], pl.FP32]:\n        out: pl.Tensor[[64, 16], pl.FP32] = pl.tensor.create([64, 16], dtype=pl.FP32)\n        r: pl.Tensor[[64, 16], pl.FP32] = self.{callee}(x, out)\n        return r\n"
    )
}

#[test]
fn the_stream_agrees_with_the_whole_lowering_on_the_corpora() {
    let files = crate::parser::split_tests::corpus();
    let (mut streamed_n, mut parsed_n) = (0, 0);
    let mut failures = Vec::new();
    for (name, text) in &files {
        parsed_n += usize::from(crate::parser::parse_with_jobs(text, 1).is_ok());
        match stream::lower(text, 2).map(describe) {
            Some(s) if s != whole(text) => failures.push(name.clone()),
            Some(_) => streamed_n += 1,
            None => {}
        }
    }
    assert!(failures.is_empty(), "the stream differs from the whole lowering on {failures:#?}");
    // Only files with a syntax problem, or the rare shapes the stream declines, go whole.
    assert!(streamed_n * 10 > parsed_n * 9, "only {streamed_n} of {parsed_n} parsed files were streamed");
}

#[test]
fn a_call_of_a_function_defined_later_waits_for_it() {
    let text = format!("{HEAD}{}{}", orchestration("main", "k"), hand_written("k"));
    let out = streamed(&text).expect("streamed");
    assert_eq!(out, whole(&text));
    assert!(out.contains("self.k(x_0, out_0)") || out.contains("self.k("), "{out}");
}

#[test]
fn a_printed_method_in_a_hand_written_file_takes_the_parsers_loop_names() {
    let text = format!("{HEAD}{}{}", printed_loop("p"), hand_written("k"));
    let out = streamed(&text).expect("streamed");
    assert_eq!(out, whole(&text));
    assert!(out.contains("acc_out"), "{out}");
    // Printed alone, the loop keeps the name its yield gives.
    let printed = format!("{HEAD}{}", printed_loop("p"));
    assert!(streamed(&printed).expect("streamed").contains("rows"));
}

#[test]
fn a_memref_header_after_a_hand_written_method_makes_the_file_printed() {
    let memref = "    @pl.function(type=pl.FunctionType.InCore)\n    def m(self, x: pl.Tensor[[32, 32], pl.FP32, pl.MemRef(pl.MemorySpace.DDR, -1, 4096, 0)]) -> pl.Tensor[[32, 32], pl.FP32]:\n        return x\n";
    // If the hand-written method was lowered as such before the header came, the stream
    // declines and `lower_source` lowers the file whole; if the header came first, the method
    // is lowered as printed text. Either way the program is the whole lowering's (`streamed`
    // checks `lower_source`).
    let text = format!("{HEAD}{}{memref}", hand_written("k"));
    assert!(streamed(&text).is_none_or(|s| s == whole(&text)));
    let text = format!("{HEAD}{memref}{}", hand_written("k"));
    assert_eq!(streamed(&text), Some(whole(&text)));
}

#[test]
fn functions_outside_the_class_and_duplicates_are_reported_as_whole() {
    let outside = "def f(x: pl.Tensor[[64, 16], pl.FP32]) -> pl.Tensor[[64, 16], pl.FP32]:\n    return x\n";
    let cases = [
        // Before the class, after it, and called from a method before it is defined.
        format!("import pypto.language as pl\n{outside}@pl.program\nclass P:\n{}", hand_written("k")),
        format!("{HEAD}{}{outside}", orchestration("main", "f")),
        // A name defined twice: the first wins, the second is reported.
        format!("{HEAD}{}{}{}", hand_written("k"), orchestration("main", "k"), hand_written("k")),
        // A second class, a class-level statement, a docstring.
        format!("{HEAD}    \"doc\"\n{}    x = 1\nclass Q:\n    def g(self):\n        pass\n", hand_written("k")),
    ];
    for text in &cases {
        let out = streamed(text).expect("streamed");
        assert_eq!(out, whole(text), "{text}");
        assert!(out.contains("code"), "expected diagnostics for\n{text}\n{out}");
    }
}

#[test]
fn files_the_stream_cannot_read_ahead_go_whole() {
    let cases = [
        // The program's functions are those of the first class; here its body is one line.
        format!("import pypto.language as pl\nclass A: pass\n@pl.program\nclass P:\n{}", hand_written("k")),
        // An import after the class changes the prefix the methods were read with.
        format!("@pl.program\nclass P:\n{}import pypto.language as lang\n", hand_written("k")),
        // A syntax error.
        format!("{HEAD}{}    def broken(self:\n        pass\n", hand_written("k")),
    ];
    for text in &cases {
        assert_eq!(streamed(text), None, "{text}");
    }
}
