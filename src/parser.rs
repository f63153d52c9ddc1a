//! Parser: tokens from [`crate::lexer`] → [`crate::ast::Module`] via the lalrpop grammar
//! (`grammar/pto.lalrpop`, generated into OUT_DIR by `build.rs`).
//!
//! All problems in a file are reported together: lexical errors (the lexer keeps going), syntax
//! errors (the grammar skips a bad line and goes on), and invalid assignment targets. Errors
//! that merely follow from an earlier one are dropped: a syntax error at text the lexer already
//! rejected, and syntax errors after a bracket that is never closed (the rest of the file was
//! read as being inside it).

mod build;
mod fast;
#[cfg(test)]
mod fast_tests;
mod messages;
pub mod methods;
#[cfg(test)]
mod tests;

use lalrpop_util::ParseError;

use crate::ast::{Expr, FuncDef, Item, Module};
use crate::diag::{codes, Diagnostic, Span};
use crate::lexer::{Layout, LexOutcome};

pub use crate::lexer::{tokens, Spanned, Tok};

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

/// Parses a whole `.pto` file. All syntax errors the parser can recover from are reported.
///
/// Text without errors is read by the fast parser ([`fast`]); anything it declines is read
/// again by the lalrpop parser, which defines the language and reports every error.
pub fn parse(source: &str) -> Result<Module, Vec<Diagnostic>> {
    if let Some(mut module) = parse_fast(Layout::new(source)) {
        module.span = Span::new(0, source.len());
        return Ok(module);
    }
    parse_slow(source)
}

/// [`parse`] by the lalrpop parser alone.
fn parse_slow(source: &str) -> Result<Module, Vec<Diagnostic>> {
    let mut layout = Layout::new(source);
    let mut problems = Vec::new();
    let result = grammar::ModuleParser::new().parse(&mut problems, &mut layout);
    let lexed = layout.finish();
    let mut module = outcome(source, &lexed, problems, result)?;
    module.header = lexed.header;
    module.span = Span::new(0, source.len());
    Ok(module)
}

/// Parses one method of a program class on its own: `source[start..end]` holds exactly one
/// (decorated) function definition whose lines are indented by at least `base` columns (the
/// class body's indentation). Spans are offsets in `source`. `Err` when the text is not exactly
/// one function: a syntax error, or anything else at the outermost level (the caller then
/// reads the file whole, which reports it properly).
pub fn parse_method(source: &str, start: usize, end: usize, base: usize) -> Result<FuncDef, Vec<Diagnostic>> {
    let text = &source[..end];
    let module = match parse_fast(Layout::nested(text, start, base)) {
        Some(module) => module,
        None => parse_method_slow(text, start, base)?,
    };
    match (module.imports.is_empty(), <[Item; 1]>::try_from(module.items)) {
        (true, Ok([Item::Function(f)])) => Ok(f),
        _ => {
            let msg = "expected exactly one function definition";
            Err(vec![Diagnostic::error(codes::SYNTAX, Span::new(start, end), msg)])
        }
    }
}

/// The module `layout` reads, from the fast parser, with the header from the lexer; `None` when
/// the text has any problem (the lalrpop parser then reports it) or a shape the fast parser
/// leaves to lalrpop.
fn parse_fast(mut layout: Layout<'_>) -> Option<Module> {
    let module = fast::module(&mut layout);
    let lexed = layout.finish();
    let mut module = module.ok().filter(|_| lexed.diags.is_empty())?;
    module.header = lexed.header;
    Some(module)
}

/// [`parse_method`]'s text read by the lalrpop parser.
fn parse_method_slow(text: &str, start: usize, base: usize) -> Result<Module, Vec<Diagnostic>> {
    let mut layout = Layout::nested(text, start, base);
    let mut problems = Vec::new();
    let result = grammar::ModuleParser::new().parse(&mut problems, &mut layout);
    let lexed = layout.finish();
    outcome(text, &lexed, problems, result)
}

/// Parses a single expression (for tests and tools). Layout tokens are ignored.
pub fn parse_expr(source: &str) -> Result<Expr, Vec<Diagnostic>> {
    let mut layout = Layout::new(source);
    let mut problems = Vec::new();
    let toks = layout
        .by_ref()
        .filter(|t| !matches!(t, Ok((_, Tok::Newline | Tok::Indent | Tok::Dedent, _))));
    let result = grammar::ExprParser::new().parse(&mut problems, toks);
    let lexed = layout.finish();
    outcome(source, &lexed, problems, result)
}

/// The parse result, or all diagnostics if there is any.
fn outcome<'s, T>(
    source: &str,
    lexed: &LexOutcome<'s>,
    problems: Vec<Problem<'s>>,
    result: Result<T, GrammarError<'s>>,
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

type GrammarError<'s> = ParseError<usize, Tok<'s>, crate::lexer::LexFatal>;

/// Lexical diagnostics, then every syntax problem, minus the consequential ones; in source order.
fn collect_diagnostics<'s>(
    source: &str,
    lexed: &LexOutcome<'s>,
    problems: Vec<Problem<'s>>,
    final_error: Option<&GrammarError<'s>>,
) -> Vec<Diagnostic> {
    let ctx = messages::Context {
        source,
        line_starts: &lexed.line_starts,
    };
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
