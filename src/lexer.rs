//! Lexer (logos) plus the layout step that emits NEWLINE / INDENT / DEDENT.
//!
//! Two layers, following RustPython's design (engineering.md §3):
//! - [`Tok`] is a logos lexer over the raw text. Besides the tokens the grammar sees, it has two
//!   raw-only kinds, [`Tok::LineBreak`] (a `\n` plus the next line's leading blanks) and
//!   [`Tok::Comment`], which never leave this module.
//! - [`Layout`] wraps it and turns line breaks into `NEWLINE`, `INDENT` and `DEDENT` tokens: an
//!   indentation stack, a bracket stack (line breaks inside `(`, `[`, `{` are ignored), blank and
//!   comment-only lines skipped, a queue so one position can yield several tokens, and at end of
//!   input a final `NEWLINE` (if the last line has tokens) followed by all pending `DEDENT`s.
//!
//! Lexical errors never stop the lexer: each one is recorded as a [`Diagnostic`] and the token
//! stream goes on (with [`Tok::Error`] in place of text that is no token, which the parser skips
//! without reporting a second error). The only fatal error is a bracket nesting deeper than
//! [`MAX_NESTING`], which ends the stream with `Err(LexFatal)` so that no later, recursive stage
//! sees such input.

use std::collections::VecDeque;

use logos::Logos;

use crate::ast::Ident;
use crate::diag::{codes, Diagnostic, Span};

/// Deepest bracket nesting accepted; deeper input is rejected with `NESTING_TOO_DEEP` (later
/// stages walk expressions recursively).
pub const MAX_NESTING: usize = 100_000;

/// Columns a tab advances to (only used to keep going after reporting `TAB_INDENT`).
const TAB_WIDTH: usize = 8;

/// A token with its byte span `start..end`, as the lalrpop parser consumes it.
pub type Spanned<'s> = (usize, Tok<'s>, usize);

/// The error type of the token stream: lexing stopped (the reason is in [`Layout::finish`]'s
/// diagnostics).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LexFatal;

/// What went wrong in a single raw token (the logos error type).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LexError {
    /// A character that starts no token.
    #[default]
    BadChar,
    IntOverflow,
    BadNumber,
    UnclosedString,
}

/// Tokens. Keywords are Python's, restricted to those the grammar uses; `xor` is a word operator
/// (so `xor` can still be a name, except in infix position — see the grammar).
#[derive(Logos, Clone, Copy, Debug, PartialEq)]
#[logos(error = LexError)]
#[logos(skip r"[ \t\r\x0C]+")]
#[logos(skip r"\\[ \t]*\r?\n")]
pub enum Tok<'s> {
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*")]
    Name(&'s str),
    #[regex(r"[0-9](_?[0-9])*", |lex| parse_int(lex.slice(), 10), priority = 10)]
    #[regex(r"0[xX](_?[0-9a-fA-F])+", |lex| parse_int(&lex.slice()[2..], 16), priority = 10)]
    #[regex(r"0[bB](_?[01])+", |lex| parse_int(&lex.slice()[2..], 2), priority = 10)]
    #[regex(r"0[oO](_?[0-7])+", |lex| parse_int(&lex.slice()[2..], 8), priority = 10)]
    // Anything else that starts with a digit and runs on with letters/digits is a malformed
    // number (`12abc`, `0x`, `1__0`, `1e`), reported as one piece rather than as two tokens.
    #[regex(r"[0-9][0-9A-Za-z_]*", bad_number, priority = 2)]
    Int(u64),
    #[regex(r"[0-9](_?[0-9])*\.([0-9](_?[0-9])*)?([eE][+-]?[0-9](_?[0-9])*)?", parse_float, priority = 10)]
    #[regex(r"\.[0-9](_?[0-9])*([eE][+-]?[0-9](_?[0-9])*)?", parse_float, priority = 10)]
    #[regex(r"[0-9](_?[0-9])*[eE][+-]?[0-9](_?[0-9])*", parse_float, priority = 10)]
    Float(f64),
    /// A string literal's contents, without the quotes (no escapes are interpreted).
    #[regex(r"'[^'\n]*'", |lex| unquote(lex.slice(), 1))]
    #[regex(r#""[^"\n]*""#, |lex| unquote(lex.slice(), 1))]
    #[regex(r"'[^'\n]*", unclosed_string)]
    #[regex(r#""[^"\n]*"#, unclosed_string)]
    #[token("'''", |lex| triple_quoted(lex, "'''"))]
    #[token(r#"""""#, |lex| triple_quoted(lex, r#"""""#))]
    Str(&'s str),
    /// `<unsupported IRNode type>`, the old printer's text for a null expression.
    #[token("<unsupported IRNode type>")]
    Unsupported,

    #[token("and")]
    And,
    #[token("or")]
    Or,
    #[token("not")]
    Not,
    #[token("xor")]
    Xor,
    #[token("if")]
    If,
    #[token("elif")]
    Elif,
    #[token("else")]
    Else,
    #[token("for")]
    For,
    #[token("in")]
    In,
    #[token("while")]
    While,
    #[token("with")]
    With,
    #[token("as")]
    As,
    #[token("def")]
    Def,
    #[token("class")]
    Class,
    #[token("return")]
    Return,
    #[token("pass")]
    Pass,
    #[token("break")]
    Break,
    #[token("continue")]
    Continue,
    #[token("import")]
    Import,
    #[token("from")]
    From,
    #[token("True")]
    True,
    #[token("False")]
    False,
    #[token("None")]
    None,

    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token(",")]
    Comma,
    #[token(":")]
    Colon,
    #[token(";")]
    Semi,
    #[token(".")]
    Dot,
    #[token("@")]
    At,
    #[token("=")]
    Assign,
    #[token("->")]
    Arrow,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("//")]
    DoubleSlash,
    #[token("%")]
    Percent,
    #[token("**")]
    DoubleStar,
    #[token("<<")]
    Shl,
    #[token(">>")]
    Shr,
    #[token("&")]
    Amp,
    #[token("|")]
    Pipe,
    #[token("^")]
    Caret,
    #[token("~")]
    Tilde,
    #[token("==")]
    EqEq,
    #[token("!=")]
    NotEq,
    #[token("<")]
    Lt,
    #[token("<=")]
    Le,
    #[token(">")]
    Gt,
    #[token(">=")]
    Ge,

    /// Raw only: a line break plus the next line's leading blanks (the slice starts at `\n`).
    #[regex(r"\n[ \t]*")]
    LineBreak(&'s str),
    /// Raw only: a `#` comment up to the end of the line.
    #[regex(r"#[^\n]*", allow_greedy = true)]
    Comment(&'s str),

    /// End of a logical line (layout).
    Newline,
    /// The next line is indented one level more (layout).
    Indent,
    /// One indentation level ends (layout; zero-width span).
    Dedent,
    /// Text that is no token; its diagnostic was already reported.
    Error,
}

fn parse_int(digits: &str, radix: u32) -> Result<u64, LexError> {
    let mut value: u64 = 0;
    for c in digits.chars().filter(|&c| c != '_') {
        let d = c.to_digit(radix).ok_or(LexError::BadNumber)?;
        value = value
            .checked_mul(u64::from(radix))
            .and_then(|v| v.checked_add(u64::from(d)))
            .ok_or(LexError::IntOverflow)?;
    }
    Ok(value)
}

fn bad_number<'s>(_: &mut logos::Lexer<'s, Tok<'s>>) -> Result<u64, LexError> {
    Err(LexError::BadNumber)
}

fn unclosed_string<'s>(_: &mut logos::Lexer<'s, Tok<'s>>) -> Result<&'s str, LexError> {
    Err(LexError::UnclosedString)
}

fn parse_float<'s>(lex: &mut logos::Lexer<'s, Tok<'s>>) -> Result<f64, LexError> {
    let text = lex.slice();
    let parsed = if text.contains('_') { text.replace('_', "").parse() } else { text.parse() };
    parsed.map_err(|_| LexError::BadNumber)
}

/// The contents of a quoted literal (`quote_len` quote bytes on each side).
fn unquote(text: &str, quote_len: usize) -> &str {
    text.get(quote_len..text.len().saturating_sub(quote_len)).unwrap_or("")
}

/// Finishes a `'''…'''` / `"""…"""` literal (which may span lines) after its opening quotes.
fn triple_quoted<'s>(lex: &mut logos::Lexer<'s, Tok<'s>>, quotes: &str) -> Result<&'s str, LexError> {
    let rest = lex.remainder();
    match rest.find(quotes) {
        Some(end) => {
            lex.bump(end + quotes.len());
            Ok(&rest[..end])
        }
        None => {
            lex.bump(rest.len());
            Err(LexError::UnclosedString)
        }
    }
}

impl Tok<'_> {
    /// The closing bracket matching an opening one.
    fn closer(self) -> Option<Tok<'static>> {
        match self {
            Tok::LParen => Some(Tok::RParen),
            Tok::LBracket => Some(Tok::RBracket),
            Tok::LBrace => Some(Tok::RBrace),
            _ => None,
        }
    }
    fn is_closer(self) -> bool {
        matches!(self, Tok::RParen | Tok::RBracket | Tok::RBrace)
    }
}

/// One level of the indentation stack.
#[derive(Clone, Copy, Debug)]
struct Level {
    width: usize,
    /// Pushed only to recover from a dedent to a width that matches no level: no INDENT was
    /// emitted for it, so no DEDENT is emitted when it is popped.
    phantom: bool,
}

/// The last line break seen outside brackets, not yet turned into layout tokens.
#[derive(Clone, Copy, Debug)]
struct LineBreak<'s> {
    /// Offset of the `\n` (None for the start of the file).
    newline: Option<usize>,
    /// Offset of the first blank after it, and the blanks.
    blanks_start: usize,
    blanks: &'s str,
}

/// The token stream the parser reads: raw tokens plus layout tokens. Iterate it (by `&mut`, so
/// that [`Layout::finish`] can be called afterwards).
pub struct Layout<'s> {
    source: &'s str,
    raw: logos::Lexer<'s, Tok<'s>>,
    queue: VecDeque<Spanned<'s>>,
    indents: Vec<Level>,
    /// Open brackets with their offsets.
    brackets: Vec<(Tok<'s>, usize)>,
    pending_break: Option<LineBreak<'s>>,
    /// The current logical line has produced a token (so a NEWLINE is due at its end).
    line_has_tokens: bool,
    /// Index in `diags` of a BAD_CHAR diagnostic that an adjacent bad character extends.
    bad_char_run: Option<usize>,
    tab_reported: bool,
    /// No token has been produced yet (the header comment is only recognised before the first).
    at_file_start: bool,
    done: bool,
    header: Option<Ident>,
    diags: Vec<Diagnostic>,
    /// First token of every logical line with its offset, in order (for error messages).
    line_starts: Vec<(usize, Tok<'s>)>,
}

/// What the lexer found besides tokens.
#[derive(Debug, Default)]
pub struct LexOutcome<'s> {
    /// The `# pypto.program: NAME` header's NAME.
    pub header: Option<Ident>,
    /// Lexical and layout errors, in source order.
    pub diags: Vec<Diagnostic>,
    /// Offsets and first tokens of the logical lines (sorted by offset).
    pub line_starts: Vec<(usize, Tok<'s>)>,
    /// Offsets of brackets still open at the end of the input (outermost first).
    pub unclosed: Vec<usize>,
}

impl<'s> Layout<'s> {
    pub fn new(source: &'s str) -> Layout<'s> {
        let blanks_len = source.bytes().take_while(|&b| b == b' ' || b == b'\t').count();
        Layout {
            source,
            raw: Tok::lexer(source),
            queue: VecDeque::new(),
            indents: vec![Level { width: 0, phantom: false }],
            brackets: Vec::new(),
            pending_break: Some(LineBreak { newline: None, blanks_start: 0, blanks: &source[..blanks_len] }),
            line_has_tokens: false,
            bad_char_run: None,
            tab_reported: false,
            at_file_start: true,
            done: false,
            header: None,
            diags: Vec::new(),
            line_starts: Vec::new(),
        }
    }

    /// Everything besides the tokens; call after the stream is exhausted.
    pub fn finish(self) -> LexOutcome<'s> {
        LexOutcome {
            header: self.header,
            diags: self.diags,
            line_starts: self.line_starts,
            unclosed: self.brackets.iter().map(|&(_, at)| at).collect(),
        }
    }

    fn error(&mut self, code: &'static str, lo: usize, hi: usize, message: String) -> &mut Diagnostic {
        self.diags.push(Diagnostic::error(code, Span::new(lo, hi), message));
        let last = self.diags.len() - 1;
        &mut self.diags[last]
    }

    /// Turns a raw lexing error into a diagnostic and the token that stands in for the text.
    fn lex_error(&mut self, err: LexError, lo: usize, hi: usize) -> Option<Tok<'s>> {
        let text = self.source.get(lo..hi).unwrap_or("");
        match err {
            LexError::BadChar => {
                if let Some(i) = self.bad_char_run.filter(|&i| self.diags[i].span.hi as usize == lo) {
                    // Extend the previous diagnostic over a run of bad characters.
                    let run_lo = self.diags[i].span.lo as usize;
                    let run = self.source.get(run_lo..hi).unwrap_or("");
                    self.diags[i].span = Span::new(run_lo, hi);
                    self.diags[i].message = format!("unexpected characters `{}`", run.escape_debug());
                    return None;
                }
                let msg = format!("unexpected character `{}`", text.escape_debug());
                self.error(codes::BAD_CHAR, lo, hi, msg).label = "not part of any token".into();
                self.bad_char_run = Some(self.diags.len() - 1);
                Some(Tok::Error)
            }
            LexError::IntOverflow => {
                let msg = format!("integer literal `{text}` is too large (the maximum is {})", u64::MAX);
                self.error(codes::INT_OVERFLOW, lo, hi, msg);
                Some(Tok::Int(0))
            }
            LexError::BadNumber => {
                let msg = format!("invalid number literal `{}`", text.escape_debug());
                self.error(codes::BAD_NUMBER, lo, hi, msg);
                Some(Tok::Int(0))
            }
            LexError::UnclosedString => {
                // Point at the opening quote(s) only: the rest may run to the end of the file.
                let quote_len = if text.starts_with("'''") || text.starts_with("\"\"\"") { 3 } else { 1 };
                let msg = "unterminated string literal".to_string();
                self.error(codes::UNCLOSED_STRING, lo, lo + quote_len.min(hi - lo), msg).label =
                    "this string is never closed".into();
                Some(Tok::Error)
            }
        }
    }

    /// Records `# pypto.program: NAME` if it is the first such comment before any token.
    fn comment(&mut self, text: &'s str, lo: usize) {
        if !self.at_file_start || self.header.is_some() {
            return;
        }
        let Some(rest) = text.strip_prefix('#') else { return };
        let rest_trimmed = rest.trim_start();
        let Some(after) = rest_trimmed.strip_prefix("pypto.program:") else { return };
        let name = after.trim();
        let is_ident = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if is_ident {
            // `name` is a sub-slice of `text`, so its offset is a pointer difference.
            let name_lo = lo + (name.as_ptr() as usize - text.as_ptr() as usize);
            self.header = Some(Ident { name: name.to_string(), span: Span::new(name_lo, name_lo + name.len()) });
        }
    }

    /// Emits the layout tokens due before a token at `lo..hi` that starts a new line.
    fn start_line(&mut self, brk: LineBreak<'s>, tok: Tok<'s>, lo: usize, hi: usize) {
        if self.line_has_tokens {
            let nl = brk.newline.unwrap_or(lo);
            self.queue.push_back((nl, Tok::Newline, nl + 1));
        }
        self.line_has_tokens = false;
        self.line_starts.push((lo, tok));
        let width = self.indent_width(brk);
        let top = self.indents.last().map_or(0, |l| l.width);
        if width > top {
            // Whether an indent is allowed here is the grammar's business (it reports an
            // unexpected one and skips the indented block).
            self.indents.push(Level { width, phantom: false });
            self.queue.push_back((brk.blanks_start, Tok::Indent, lo));
        } else if width < top {
            while self.indents.len() > 1 && self.indents.last().is_some_and(|l| l.width > width) {
                if let Some(level) = self.indents.pop() {
                    if !level.phantom {
                        self.queue.push_back((lo, Tok::Dedent, lo));
                    }
                }
            }
            let top = self.indents.last().map_or(0, |l| l.width);
            if top != width {
                self.error(codes::BAD_DEDENT, lo, hi, "unindent does not match any outer indentation level".into())
                    .label = format!("indented by {width} columns");
                self.indents.push(Level { width, phantom: true });
            }
        }
    }

    /// Width of a line's indentation; reports the first tab used for indentation in the file.
    fn indent_width(&mut self, brk: LineBreak<'s>) -> usize {
        let mut width = 0;
        for (i, b) in brk.blanks.bytes().enumerate() {
            if b == b'\t' {
                if !self.tab_reported {
                    self.tab_reported = true;
                    let at = brk.blanks_start + i;
                    self.error(codes::TAB_INDENT, at, at + 1, "tab used for indentation".into())
                        .notes
                        .push("indent with spaces (4 per level)".into());
                }
                width = (width / TAB_WIDTH + 1) * TAB_WIDTH;
            } else {
                width += 1;
            }
        }
        width
    }

    /// Bracket bookkeeping for one token; returns the token to emit, or `Err` when nesting is too
    /// deep.
    fn bracket(&mut self, tok: Tok<'s>, lo: usize, hi: usize) -> Result<Tok<'s>, LexFatal> {
        if tok.closer().is_some() {
            if self.brackets.len() >= MAX_NESTING {
                let msg = format!("brackets nested more than {MAX_NESTING} deep");
                self.error(codes::NESTING_TOO_DEEP, lo, hi, msg);
                return Err(LexFatal);
            }
            self.brackets.push((tok, lo));
            return Ok(tok);
        }
        if !tok.is_closer() {
            return Ok(tok);
        }
        let text = self.source.get(lo..hi).unwrap_or("");
        match self.brackets.pop() {
            None => {
                self.error(codes::UNMATCHED_BRACKET, lo, hi, format!("unmatched `{text}`")).label =
                    "no bracket is open here".into();
                Ok(Tok::Error)
            }
            Some((open, _)) if open.closer() == Some(tok) => Ok(tok),
            Some((_, open_lo)) => {
                let open_text = self.source.get(open_lo..open_lo + 1).unwrap_or("");
                let msg = format!("closing `{text}` does not match the open `{open_text}`");
                let d = self.error(codes::UNMATCHED_BRACKET, lo, hi, msg);
                d.secondary.push((Span::new(open_lo, open_lo + 1), "the bracket open here".into()));
                Ok(Tok::Error)
            }
        }
    }

    /// Flushes the end of input: NEWLINE if the last line has tokens, then all DEDENTs.
    fn end_of_input(&mut self) {
        let len = self.source.len();
        if let Some(&(_, lo)) = self.brackets.last() {
            let text = self.source.get(lo..lo + 1).unwrap_or("");
            self.error(codes::UNCLOSED_BRACKET, lo, lo + 1, format!("`{text}` was never closed")).label =
                "this bracket is never closed".into();
        }
        if self.line_has_tokens {
            let nl = self.pending_break.and_then(|b| b.newline).unwrap_or(len);
            self.queue.push_back((nl, Tok::Newline, (nl + 1).min(len)));
            self.line_has_tokens = false;
        }
        while self.indents.len() > 1 {
            if let Some(level) = self.indents.pop() {
                if !level.phantom {
                    self.queue.push_back((len, Tok::Dedent, len));
                }
            }
        }
    }
}

impl<'s> Iterator for Layout<'s> {
    type Item = Result<Spanned<'s>, LexFatal>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(t) = self.queue.pop_front() {
                return Some(Ok(t));
            }
            if self.done {
                return None;
            }
            let Some(result) = self.raw.next() else {
                self.done = true;
                self.end_of_input();
                continue;
            };
            let span = self.raw.span();
            let (lo, hi) = (span.start, span.end);
            let tok = match result {
                Ok(Tok::LineBreak(text)) => {
                    if self.brackets.is_empty() {
                        // After blank or comment-only lines, NEWLINE still marks the end of the
                        // line that had tokens.
                        let newline = self.pending_break.and_then(|b| b.newline).or(Some(lo));
                        self.pending_break = Some(LineBreak { newline, blanks_start: lo + 1, blanks: &text[1..] });
                    }
                    continue;
                }
                Ok(Tok::Comment(text)) => {
                    self.comment(text, lo);
                    continue;
                }
                Ok(tok) => {
                    self.bad_char_run = None;
                    tok
                }
                Err(err) => match self.lex_error(err, lo, hi) {
                    Some(tok) => tok,
                    None => continue,
                },
            };
            if let Some(brk) = self.pending_break.take() {
                self.start_line(brk, tok, lo, hi);
            }
            self.at_file_start = false;
            let tok = match self.bracket(tok, lo, hi) {
                Ok(tok) => tok,
                Err(fatal) => {
                    self.done = true;
                    self.queue.clear();
                    return Some(Err(fatal));
                }
            };
            self.line_has_tokens = true;
            if self.queue.is_empty() {
                return Some(Ok((lo, tok, hi)));
            }
            self.queue.push_back((lo, tok, hi));
        }
    }
}

/// All tokens of `source` (layout tokens included), or the lexical errors. For tests and tools.
pub fn tokens(source: &str) -> Result<Vec<Spanned<'_>>, Vec<Diagnostic>> {
    let mut layout = Layout::new(source);
    let toks: Vec<Spanned<'_>> = layout.by_ref().map_while(Result::ok).collect();
    let outcome = layout.finish();
    if outcome.diags.is_empty() {
        Ok(toks)
    } else {
        Err(outcome.diags)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dbg_scratch() {
        for src in [
            "a<b <= <unsupported IRNode type> <unsup",
            "1. .5 1e-07 1.5E+3 0x1F 1_000 12abc 1__0 0x 99999999999999999999",
            "x = '''a\nb''' 'c' \"d\" 'e",
            "pl.block.and(a) $$ é",
            "if x:\n    y\n\n  # c\n        z\n  w\n",
        ] {
            let mut l = Layout::new(src);
            let t: Vec<_> = l.by_ref().collect();
            eprintln!("{src:?}\n  {t:?}\n  {:?}", l.finish());
        }
    }
}
