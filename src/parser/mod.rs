//! Parser: tokens from [`crate::lexer`] → [`crate::ast::Module`] via the lalrpop grammar
//! (`grammar/pto.lalrpop`, generated into OUT_DIR by `build.rs`).
//!
//! All problems in a file are reported together: lexical errors (the lexer keeps going), syntax
//! errors (the grammar skips a bad line and goes on), and invalid assignment targets. Errors
//! that merely follow from an earlier one are dropped: a syntax error at text the lexer already
//! rejected, and syntax errors after a bracket that is never closed (the rest of the file was
//! read as being inside it).

mod build;
mod messages;
mod split;
#[cfg(test)]
pub(crate) mod split_tests;
#[cfg(test)]
mod tests;

use lalrpop_util::ParseError;

use crate::ast::{Expr, Module};
use crate::diag::{codes, Diagnostic, Span};
use crate::lexer::{Layout, LexOutcome};

pub use crate::lexer::{tokens, Spanned, Tok};
pub use split::{parse_in_parts, Listener, Parts};

/// Deepest expression tree accepted (a name or literal is 1; `-x` and `x + y` are 2; a sum of
/// n terms is n). Deeper expressions are rejected with `NESTING_TOO_DEEP`, because every stage
/// after the parser walks expressions recursively. The reference walks the Python AST
/// recursively (Python's default recursion limit is 1,000), so it accepts less; the compilation
/// thread's 1 GiB stack holds ten times this depth through the whole pipeline even in a debug
/// build (measured: 100,000 works, 200,000 overflows).
pub const MAX_EXPR_DEPTH: u32 = 10_000;

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, unused_parens, unused_imports, dead_code)]
    grammar,
    "/pto.rs"
);

use build::Problem;

/// Parses a whole `.pto` file, on as many threads as there are CPUs (see [`parse_with_jobs`]).
/// All syntax errors the parser can recover from are reported.
pub fn parse(source: &str) -> Result<Module, Vec<Diagnostic>> {
    parse_with_jobs(source, default_jobs())
}

/// Threads [`parse`] uses: the CPUs, at most 8 (parsing is a small part of a compilation).
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
}

/// Parses a whole `.pto` file. With `jobs` > 1 the file is lexed once and the methods of its
/// program class are parsed on `jobs` threads ([`split`]); text with any problem, and any text
/// with `jobs` ≤ 1, is parsed in one piece. Both run the one grammar (`grammar/pto.lalrpop`)
/// and give the same tree.
pub fn parse_with_jobs(source: &str, jobs: usize) -> Result<Module, Vec<Diagnostic>> {
    if jobs > 1 {
        if let Some(module) = split::parse(source, jobs) {
            return Ok(module);
        }
    }
    parse_whole(source)
}

/// [`parse`] in one piece, on this thread: what reports the problems of a file.
fn parse_whole(source: &str) -> Result<Module, Vec<Diagnostic>> {
    let mut layout = Layout::new(source);
    let mut problems = Vec::new();
    let result = grammar::ModuleParser::new().parse(&mut problems, source, &mut layout);
    let lexed = layout.finish();
    let mut module = outcome(source, &lexed, problems, result)?;
    module.header = lexed.header;
    module.span = Span::new(0, source.len());
    Ok(module)
}

/// Parses a single expression (for tests and tools). Layout tokens are ignored.
pub fn parse_expr(source: &str) -> Result<Expr, Vec<Diagnostic>> {
    let mut layout = Layout::new(source);
    let mut problems = Vec::new();
    let toks = layout.by_ref().filter(|t| !matches!(t, Ok((_, Tok::Newline | Tok::Indent | Tok::Dedent, _))));
    let result = grammar::ExprParser::new().parse(&mut problems, source, toks);
    let lexed = layout.finish();
    outcome(source, &lexed, problems, result)
}

/// The parse result, or all diagnostics if there is any.
fn outcome<T>(
    source: &str,
    lexed: &LexOutcome,
    problems: Vec<Problem>,
    result: Result<T, GrammarError>,
) -> Result<T, Vec<Diagnostic>> {
    let mut diags = collect_diagnostics(source, lexed, problems, result.as_ref().err());
    match result {
        Ok(value) if diags.is_empty() => Ok(value),
        _ => {
            if diags.is_empty() {
                // Every failure path reports something; this guards against an unforeseen one.
                let end = Span::new(source.len(), source.len());
                diags.push(Diagnostic::error(codes::SYNTAX, end, "the file could not be parsed"));
            }
            Err(diags)
        }
    }
}

type GrammarError = ParseError<u32, Tok, crate::lexer::LexFatal>;

/// Lexical diagnostics, then every syntax problem, minus the consequential ones; in source order.
fn collect_diagnostics(
    source: &str,
    lexed: &LexOutcome,
    problems: Vec<Problem>,
    final_error: Option<&GrammarError>,
) -> Vec<Diagnostic> {
    let ctx = messages::Context { source, line_starts: &lexed.line_starts };
    let mut syntax = Vec::new();
    let recovered = problems.iter().any(|p| matches!(p, Problem::Recovered(_)));
    for p in problems {
        match p {
            Problem::Recovered(r) => syntax.extend(messages::syntax_error(&r.error, &ctx)),
            Problem::Diag(d) => syntax.push(d),
        }
    }
    match final_error {
        // Running out of input after a skipped line is most likely a consequence of it (a
        // skipped line can take an INDENT or DEDENT with it).
        Some(ParseError::UnrecognizedEof { .. }) if recovered => {}
        Some(e) => syntax.extend(messages::syntax_error(e, &ctx)),
        None => {}
    }
    // After a bracket that is never closed, the parser saw the rest of the file as one line.
    if let Some(&outermost) = lexed.unclosed.first() {
        syntax.retain(|d| (d.span.lo as usize) < outermost);
    }
    let mut diags = lexed.diags.clone();
    diags.extend(syntax);
    diags.sort_by_key(|d| (d.span.lo, d.span.hi));
    diags.dedup_by(|a, b| a.span.same_range(b.span) && a.code == b.code && a.message == b.message);
    diags
}
