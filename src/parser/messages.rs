//! Syntax error messages: lalrpop reports the unexpected token and the grammar terminals it
//! expected; this module turns that into one plain sentence ("expected `:` after the function
//! signature, found end of line").

use lalrpop_util::ParseError;

use crate::diag::{codes, Diagnostic, Span};
use crate::lexer::{LexFatal, LineStart, Tok};

/// Terminals (as lalrpop names them) that can start an expression.
const EXPR_START: &[&str] = &[
    "NAME",
    "INT",
    "FLOAT",
    "STRING",
    "UNSUPPORTED",
    "\"True\"",
    "\"False\"",
    "\"None\"",
    "\"(\"",
    "\"[\"",
    "\"-\"",
    "\"+\"",
    "\"~\"",
    "\"not\"",
];

/// Terminals that can continue a complete expression (binary operators and postfix brackets).
const EXPR_CONTINUE: &[&str] = &[
    "\"or\"", "\"xor\"", "\"and\"", "\"==\"", "\"!=\"", "\"<\"", "\"<=\"", "\">\"", "\">=\"", "\"|\"", "\"^\"",
    "\"&\"", "\"<<\"", "\">>\"", "\"+\"", "\"-\"", "\"*\"", "\"/\"", "\"//\"", "\"%\"", "\"**\"", "\"(\"", "\"[\"",
    "\".\"",
];

/// At most this many alternatives are listed; more are elided.
const MAX_LISTED: usize = 5;

/// What the message builder needs to know about the source.
pub struct Context<'a> {
    pub source: &'a str,
    /// First token of each logical line, by offset (from the lexer).
    pub line_starts: &'a [LineStart],
}

impl Context<'_> {
    /// The first token of the logical line containing `offset`.
    fn line_start(&self, offset: usize) -> Option<LineStart> {
        let i = self.line_starts.partition_point(|l| l.lo <= offset);
        i.checked_sub(1).map(|i| self.line_starts[i])
    }

    fn text(&self, lo: usize, hi: usize) -> &str {
        self.source.get(lo..hi).unwrap_or("")
    }
}

/// The diagnostic for a parse error, or `None` when it only repeats a lexical error (the
/// unexpected token is the stand-in for text the lexer already reported) or the lexer stopped.
pub fn syntax_error(err: &ParseError<u32, Tok, LexFatal>, ctx: &Context<'_>) -> Option<Diagnostic> {
    match err {
        ParseError::UnrecognizedToken { token: (lo, tok, hi), expected } => {
            let (lo, hi) = (&(*lo as usize), &(*hi as usize));
            if *tok == Tok::Error {
                return None;
            }
            if *tok == Tok::Indent {
                return unexpected_indent(*lo, *hi, ctx);
            }
            if let Some(d) = augmented_assignment(*lo, *hi, ctx) {
                return Some(d);
            }
            let found = describe_found(*tok, ctx.text(*lo, *hi));
            let message = match describe_expected(expected) {
                Some(exp) => {
                    let context = header_context(expected, ctx.line_start(*lo).map(|l| l.first));
                    format!("expected {exp}{context}, found {found}")
                }
                None => format!("unexpected {found}"),
            };
            Some(
                Diagnostic::error(codes::SYNTAX, Span::new(*lo, *hi), message)
                    .with_label(format!("unexpected {found}")),
            )
        }
        ParseError::UnrecognizedEof { location, expected } => {
            let location = &(*location as usize);
            let message = match describe_expected(expected) {
                Some(exp) => format!("unexpected end of file; expected {exp}"),
                None => "unexpected end of file".to_string(),
            };
            Some(Diagnostic::error(codes::UNEXPECTED_EOF, Span::new(*location, *location), message))
        }
        ParseError::ExtraToken { token: (lo, tok, hi) } => {
            let (lo, hi) = (&(*lo as usize), &(*hi as usize));
            if *tok == Tok::Error {
                return None;
            }
            let found = describe_found(*tok, ctx.text(*lo, *hi));
            Some(Diagnostic::error(codes::SYNTAX, Span::new(*lo, *hi), format!("unexpected {found}")))
        }
        ParseError::InvalidToken { location } => {
            let location = &(*location as usize);
            Some(Diagnostic::error(codes::SYNTAX, Span::new(*location, *location), "invalid token"))
        }
        ParseError::User { .. } => None,
    }
}

/// `x += e` (and `-=`, `*=`, `//=`, …): Python's augmented assignment, which the language does
/// not have; the lexer sees the operator and then a stray `=`.
fn augmented_assignment(lo: usize, hi: usize, ctx: &Context<'_>) -> Option<Diagnostic> {
    if ctx.text(lo, hi) != "=" {
        return None;
    }
    let before = ctx.source.get(..lo)?;
    let op =
        ["**", "//", "<<", ">>", "+", "-", "*", "/", "%", "&", "|", "^"].into_iter().find(|op| before.ends_with(op))?;
    let op_lo = lo - op.len();
    let line_lo = before.rfind('\n').map_or(0, |i| i + 1);
    let target = ctx.text(line_lo, op_lo).trim();
    let help = if !target.is_empty() && target.chars().all(|c| c.is_alphanumeric() || c == '_') {
        format!("help: write `{target} = {target} {op} …`")
    } else {
        format!("help: write `x = x {op} …`")
    };
    Some(
        Diagnostic::error(
            codes::SYNTAX,
            Span::new(op_lo, hi),
            format!("augmented assignment `{op}=` is not part of the language"),
        )
        .with_label("not supported")
        .with_note(help),
    )
}

/// An INDENT where the grammar does not allow one (`lo..hi` are the blanks). Points at the
/// first token of the line. Nothing is reported when the indentation has a tab: the lexer
/// reported the tab, and the width it guessed for it is the likely cause.
fn unexpected_indent(lo: usize, hi: usize, ctx: &Context<'_>) -> Option<Diagnostic> {
    if ctx.text(lo, hi).contains('\t') {
        return None;
    }
    let span = match ctx.line_start(hi) {
        Some(line) if line.lo == hi => Span::new(line.lo, line.hi),
        _ => Span::new(hi, hi),
    };
    Some(
        Diagnostic::error(codes::BAD_INDENT, span, "unexpected indentation")
            .with_label("this line is indented more than the one before")
            .with_note("only the lines after a line ending with `:` are indented one level more"),
    )
}

/// " after the function signature" etc. when a header's `:` is among the expected tokens (and
/// we are not inside brackets, where a `:` would belong to something else).
fn header_context(expected: &[String], line_start: Option<Tok>) -> &'static str {
    let has = |t: &str| expected.iter().any(|e| e == t);
    if !has("\":\"") || has("\")\"") || has("\"]\"") || has("\",\"") {
        return "";
    }
    match line_start {
        Some(Tok::Def) => " after the function signature",
        Some(Tok::Class) => " after the class name",
        Some(Tok::If | Tok::Elif | Tok::While) => " after the condition",
        Some(Tok::For) => " after the loop header",
        Some(Tok::With) => " after the `with` item",
        Some(Tok::Else) => " after `else`",
        _ => "",
    }
}

/// "`:`, `,` or an operator" — terminals in human terms, expression terminals collapsed.
fn describe_expected(expected: &[String]) -> Option<String> {
    let has = |t: &str| expected.iter().any(|e| e == t);
    let expr_start = has("NAME") && has("INT") && has("\"(\"");
    let expr_continue = has("\"+\"") && has("\"*\"") && has("\"==\"");
    let mut parts: Vec<String> = Vec::new();
    // `:` first: when it is expected, it is usually what was forgotten.
    if has("\":\"") {
        parts.push("`:`".to_string());
    }
    for e in expected {
        let e = e.as_str();
        if e == "\":\""
            || (expr_start && EXPR_START.contains(&e))
            || (expr_continue && EXPR_CONTINUE.contains(&e))
            || e == "LEXERROR"
            // Never in a file's text (see `Tok::Parts`).
            || e == "PARTS"
            // `;` is an unusual alternative to the end of a line; don't suggest it.
            || (e == "\";\"" && has("NEWLINE"))
            || e == "NEWLINE"
        {
            continue;
        }
        parts.push(terminal_name(e));
    }
    if has("NEWLINE") {
        parts.push("end of line".to_string());
    }
    if expr_start {
        parts.push("an expression".to_string());
    }
    if expr_continue {
        parts.push("an operator".to_string());
    }
    if parts.len() > MAX_LISTED {
        parts.truncate(MAX_LISTED - 1);
        parts.push("…".to_string());
    }
    match parts.len() {
        0 => None,
        1 => parts.pop(),
        n => Some(format!("{} or {}", parts[..n - 1].join(", "), parts[n - 1])),
    }
}

/// A grammar terminal in human terms: `"\":\""` → "`:`", `NAME` → "a name".
fn terminal_name(terminal: &str) -> String {
    match terminal {
        "NAME" => "a name".to_string(),
        "INT" => "an integer".to_string(),
        "FLOAT" => "a float".to_string(),
        "STRING" => "a string".to_string(),
        "UNSUPPORTED" => "`<unsupported IRNode type>`".to_string(),
        "NEWLINE" => "end of line".to_string(),
        "INDENT" => "an indented block".to_string(),
        "DEDENT" => "end of block".to_string(),
        other => {
            let inner = other.strip_prefix('"').and_then(|s| s.strip_suffix('"')).unwrap_or(other);
            format!("`{inner}`")
        }
    }
}

/// The unexpected token in human terms.
fn describe_found(tok: Tok, text: &str) -> String {
    match tok {
        Tok::Name => format!("name `{text}`"),
        Tok::Int(_) | Tok::Float(_) => format!("number `{text}`"),
        Tok::Str => "a string".to_string(),
        Tok::Newline => "end of line".to_string(),
        Tok::Indent => "an indented line".to_string(),
        Tok::Dedent => "end of block".to_string(),
        _ if tok.keyword_text().is_some() => format!("keyword `{text}`"),
        _ => format!("`{}`", text.escape_debug()),
    }
}
