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
//! without reporting a second error). The only fatal errors are a bracket nesting deeper than
//! [`MAX_NESTING`] and more indentation levels than [`MAX_INDENT_LEVELS`], which end the stream
//! with `Err(LexFatal)` so that no later, recursive stage sees such input.

use std::collections::VecDeque;

use logos::Logos;

use crate::ast::Ident;
use crate::diag::{codes, Diagnostic, Span};

/// Deepest bracket nesting accepted; deeper input is rejected with `NESTING_TOO_DEEP` (later
/// stages walk expressions recursively).
pub const MAX_NESTING: usize = 100_000;

/// Most indentation levels accepted (the class body and function bodies count), as in CPython's
/// tokenizer (`MAXINDENT`, "too many levels of indentation"): the reference reads `.pto` text with
/// Python, so no program it accepts is deeper. Deeper input is rejected with `NESTING_TOO_DEEP`;
/// the limit also keeps every later stage's work on nested blocks small (some passes walk a
/// loop body more than once per enclosing loop).
pub const MAX_INDENT_LEVELS: usize = 100;

/// Columns a tab advances to (only used to keep going after reporting `TAB_INDENT`).
const TAB_WIDTH: usize = 8;

/// A token with its byte span `start..end`, as the lalrpop parser consumes it.
pub type Spanned = (u32, Tok, u32);

// A token is copied into a part's buffer by the lexing thread and out of it by a parsing
// thread, 1.4 million times for the 50k-line benchmark: it carries no text (a name's or a
// string's is its span of the source) and 4-byte locations, so that it stays this small.
const _: () = assert!(std::mem::size_of::<Spanned>() == 24);

/// The token `tok` at `lo..hi` (byte offsets) as the parser takes it.
fn spanned(lo: usize, tok: Tok, hi: usize) -> Spanned {
    (crate::diag::location(lo), tok, crate::diag::location(hi))
}

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
pub enum Tok {
    /// A name that is not a keyword (see [`KEYWORDS`]); its text is the token's span of the
    /// source (the tokens carry no text, which keeps them small: see [`Spanned`]).
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*")]
    Name,
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
    /// A string literal; its contents are [`string_contents`] of its span of the source (no
    /// escapes are interpreted).
    #[regex(r"'[^'\n]*'")]
    #[regex(r#""[^"\n]*""#)]
    #[regex(r"'[^'\n]*", unclosed_string)]
    #[regex(r#""[^"\n]*"#, unclosed_string)]
    #[token("'''", |lex| triple_quoted(lex, "'''"))]
    #[token(r#"""""#, |lex| triple_quoted(lex, r#"""""#))]
    Str,
    /// `<unsupported IRNode type>`, the old printer's text for a null expression.
    #[token("<unsupported IRNode type>")]
    Unsupported,

    // Keywords: a `Name` whose text is in [`KEYWORDS`] becomes the keyword's token (the layout
    // step does this, so that the list of reserved words exists once).
    And,
    Or,
    Not,
    Xor,
    If,
    Elif,
    Else,
    For,
    In,
    While,
    With,
    As,
    Def,
    Class,
    Return,
    Pass,
    Break,
    Continue,
    Import,
    From,
    True,
    False,
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
    LineBreak,
    /// Raw only: a `#` comment up to the end of the line.
    #[regex(r"#[^\n]*", allow_greedy = true)]
    Comment,

    /// End of a logical line (layout).
    Newline,
    /// The next line is indented one level more (layout).
    Indent,
    /// One indentation level ends (layout; zero-width span).
    Dedent,
    /// Text that is no token; its diagnostic was already reported.
    Error,
    /// Never lexed: stands for the methods of a class body in the token stream of a file whose
    /// methods the parser reads separately (`parser::split`).
    Parts,
}

/// The reserved words and their tokens, sorted by text (looked up through [`KEYWORD_SLOTS`]).
/// The lexer reads them from this table; the grammar accepts each after `.` as a name
/// (`pl.MemorySpace.None`) through [`Tok::keyword_text`].
pub const KEYWORDS: &[(&str, Tok)] = &[
    ("False", Tok::False),
    ("None", Tok::None),
    ("True", Tok::True),
    ("and", Tok::And),
    ("as", Tok::As),
    ("break", Tok::Break),
    ("class", Tok::Class),
    ("continue", Tok::Continue),
    ("def", Tok::Def),
    ("elif", Tok::Elif),
    ("else", Tok::Else),
    ("for", Tok::For),
    ("from", Tok::From),
    ("if", Tok::If),
    ("import", Tok::Import),
    ("in", Tok::In),
    ("not", Tok::Not),
    ("or", Tok::Or),
    ("pass", Tok::Pass),
    ("return", Tok::Return),
    ("while", Tok::While),
    ("with", Tok::With),
    ("xor", Tok::Xor),
];

/// Where a name would lie in [`KEYWORD_SLOTS`]: a hash of its length and its first and last
/// bytes, without collisions among the keywords (checked when [`KEYWORD_SLOTS`] is built).
const fn keyword_slot(name: &[u8]) -> usize {
    (name.len() * 4 + name[0] as usize + name[name.len() - 1] as usize) % KEYWORD_SLOT_COUNT
}

const KEYWORD_SLOT_COUNT: usize = 64;

/// The index in [`KEYWORDS`] of the keyword in each slot of [`keyword_slot`] (`u8::MAX`: none),
/// computed from [`KEYWORDS`]: the lexer asks for every name, and almost every name (`pl`,
/// `t5`, `block`, `Tile`) is no keyword, which a slot tells with one comparison (the binary
/// search of [`KEYWORDS`] that `block` and `Tile` went to was a tenth of the lexer's time).
const KEYWORD_SLOTS: [u8; KEYWORD_SLOT_COUNT] = {
    let mut slots = [u8::MAX; KEYWORD_SLOT_COUNT];
    let mut i = 0;
    while i < KEYWORDS.len() {
        let slot = keyword_slot(KEYWORDS[i].0.as_bytes());
        // Two keywords in one slot fail to compile: the hash must change with the list.
        assert!(slots[slot] == u8::MAX, "two keywords hash to one slot of KEYWORD_SLOTS");
        slots[slot] = i as u8;
        i += 1;
    }
    slots
};

/// The keyword token spelled `name`, if it is one.
#[inline]
fn keyword(name: &str) -> Option<Tok> {
    if name.is_empty() {
        return None;
    }
    let (k, tok) = KEYWORDS.get(usize::from(KEYWORD_SLOTS[keyword_slot(name.as_bytes())]))?;
    (*k == name).then_some(*tok)
}

/// An error diagnostic at `lo..hi` (labels are added with the `Diagnostic` builders).
fn error_at(code: &'static str, lo: usize, hi: usize, message: String) -> Diagnostic {
    Diagnostic::error(code, Span::new(lo, hi), message)
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

fn bad_number(_: &mut logos::Lexer<'_, Tok>) -> Result<u64, LexError> {
    Err(LexError::BadNumber)
}

fn unclosed_string(_: &mut logos::Lexer<'_, Tok>) -> Result<(), LexError> {
    Err(LexError::UnclosedString)
}

fn parse_float(lex: &mut logos::Lexer<'_, Tok>) -> Result<f64, LexError> {
    let text = lex.slice();
    let parsed = if text.contains('_') { text.replace('_', "").parse() } else { text.parse() };
    parsed.map_err(|_| LexError::BadNumber)
}

/// The contents of a string literal whose source text (quotes included) is `literal`: what
/// lies between its one or three quotes on each side.
pub fn string_contents(literal: &str) -> &str {
    let triple = literal.starts_with("'''") || literal.starts_with(r#"""""#);
    unquote(literal, if triple { 3 } else { 1 })
}

/// The contents of a quoted literal (`quote_len` quote bytes on each side).
fn unquote(text: &str, quote_len: usize) -> &str {
    text.get(quote_len..text.len().saturating_sub(quote_len)).unwrap_or("")
}

/// Finishes a `'''…'''` / `"""…"""` literal (which may span lines) after its opening quotes.
fn triple_quoted(lex: &mut logos::Lexer<'_, Tok>, quotes: &str) -> Result<(), LexError> {
    let rest = lex.remainder();
    match rest.find(quotes) {
        Some(end) => {
            lex.bump(end + quotes.len());
            Ok(())
        }
        None => {
            lex.bump(rest.len());
            Err(LexError::UnclosedString)
        }
    }
}

impl Tok {
    /// The text of a keyword token ([`KEYWORDS`]); `None` for any other token.
    pub fn keyword_text(self) -> Option<&'static str> {
        KEYWORDS.iter().find(|(_, t)| *t == self).map(|(k, _)| *k)
    }

    /// A raw `Name` spelled `text` that is a keyword becomes the keyword's token.
    #[inline]
    fn resolve_keyword(self, text: &str) -> Self {
        match self {
            Tok::Name => keyword(text).unwrap_or(self),
            _ => self,
        }
    }

    /// The closing bracket matching an opening one.
    fn closer(self) -> Option<Tok> {
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
    raw: logos::Lexer<'s, Tok>,
    queue: VecDeque<Spanned>,
    indents: Vec<Level>,
    /// Open brackets with their offsets.
    brackets: Vec<(Tok, usize)>,
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
    /// First token of every logical line, in order (for error messages).
    line_starts: Vec<LineStart>,
}

/// The first token of a logical line and its span.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LineStart {
    pub lo: usize,
    pub hi: usize,
    pub first: Tok,
}

/// What the lexer found besides tokens.
#[derive(Debug, Default)]
pub struct LexOutcome {
    /// The `# pypto.program: NAME` header's NAME.
    pub header: Option<Ident>,
    /// Lexical and layout errors, in source order.
    pub diags: Vec<Diagnostic>,
    /// The first token of each logical line, sorted by offset.
    pub line_starts: Vec<LineStart>,
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

    /// The text being read (spans are offsets in it).
    pub fn source(&self) -> &'s str {
        self.source
    }

    /// Everything besides the tokens; call after the stream is exhausted.
    pub fn finish(self) -> LexOutcome {
        LexOutcome {
            header: self.header,
            diags: self.diags,
            line_starts: self.line_starts,
            unclosed: self.brackets.iter().map(|&(_, at)| at).collect(),
        }
    }

    fn report(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    /// Turns a raw lexing error into a diagnostic and the token that stands in for the text.
    fn lex_error(&mut self, err: LexError, lo: usize, hi: usize) -> Option<Tok> {
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
                self.report(error_at(codes::BAD_CHAR, lo, hi, msg).with_label("not part of any token"));
                self.bad_char_run = Some(self.diags.len() - 1);
                Some(Tok::Error)
            }
            LexError::IntOverflow => {
                let msg = format!("integer literal `{text}` is too large (the maximum is {})", u64::MAX);
                self.report(error_at(codes::INT_OVERFLOW, lo, hi, msg));
                Some(Tok::Int(0))
            }
            LexError::BadNumber => {
                let msg = format!("invalid number literal `{}`", text.escape_debug());
                self.report(error_at(codes::BAD_NUMBER, lo, hi, msg));
                Some(Tok::Int(0))
            }
            LexError::UnclosedString => {
                // Point at the opening quote(s) only: the rest may run to the end of the file.
                let quote_len = if text.starts_with("'''") || text.starts_with("\"\"\"") { 3 } else { 1 };
                let msg = "unterminated string literal".to_string();
                let quote_end = lo + quote_len.min(hi - lo);
                self.report(
                    error_at(codes::UNCLOSED_STRING, lo, quote_end, msg).with_label("this string is never closed"),
                );
                // The string ran to the end of its line, taking the closing brackets of that line
                // with it: consider the brackets opened on the line closed, so that the next lines
                // are read normally instead of as the inside of a bracket.
                let line_start = self.source[..lo].rfind('\n').map_or(0, |i| i + 1);
                while self.brackets.last().is_some_and(|&(_, at)| at >= line_start) {
                    self.brackets.pop();
                }
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
        let Some(after) = rest_trimmed.strip_prefix("pypto.program:") else {
            return;
        };
        let name = after.trim();
        let is_ident = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if is_ident {
            // `name` is a sub-slice of `text`, so its offset is a pointer difference.
            let name_lo = lo + (name.as_ptr() as usize - text.as_ptr() as usize);
            self.header = Some(Ident { name: name.into(), span: Span::new(name_lo, name_lo + name.len()) });
        }
    }

    /// Emits the layout tokens due before a token at `lo..hi` that starts a new line; `Err` when
    /// the line opens an indentation level beyond [`MAX_INDENT_LEVELS`].
    fn start_line(&mut self, brk: LineBreak<'s>, tok: Tok, lo: usize, hi: usize) -> Result<(), LexFatal> {
        if self.line_has_tokens {
            let nl = brk.newline.unwrap_or(lo);
            self.queue.push_back(spanned(nl, Tok::Newline, nl + 1));
        }
        self.line_has_tokens = false;
        self.line_starts.push(LineStart { lo, hi, first: tok });
        let width = self.indent_width(brk);
        let top = self.indents.last().map_or(0, |l| l.width);
        if width > top {
            // Whether an indent is allowed here is the grammar's business (it reports an
            // unexpected one and skips the indented block).
            if self.indents.len() >= MAX_INDENT_LEVELS {
                let msg = format!("too many levels of indentation (more than {MAX_INDENT_LEVELS})");
                let line_end = self.source[lo..].find('\n').map_or(self.source.len(), |i| lo + i);
                self.report(
                    error_at(codes::NESTING_TOO_DEEP, lo, line_end, msg)
                        .with_label("this line opens a block too deep")
                        .with_note("move the inner part into a function of its own"),
                );
                return Err(LexFatal);
            }
            self.indents.push(Level { width, phantom: false });
            self.queue.push_back(spanned(brk.blanks_start, Tok::Indent, lo));
        } else if width < top {
            while self.indents.len() > 1 && self.indents.last().is_some_and(|l| l.width > width) {
                if let Some(level) = self.indents.pop() {
                    if !level.phantom {
                        self.queue.push_back(spanned(lo, Tok::Dedent, lo));
                    }
                }
            }
            let top = self.indents.last().map_or(0, |l| l.width);
            // With a tab in the indentation the width is a guess; the tab was reported.
            if top != width && !brk.blanks.contains('\t') {
                let msg = "unindent does not match any outer indentation level".to_string();
                self.report(
                    error_at(codes::BAD_DEDENT, lo, hi, msg).with_label(format!("indented by {width} columns")),
                );
                self.indents.push(Level { width, phantom: true });
            }
        }
        Ok(())
    }

    /// Width of a line's indentation; reports the first tab used for indentation in the file.
    fn indent_width(&mut self, brk: LineBreak<'s>) -> usize {
        let mut width = 0;
        for (i, b) in brk.blanks.bytes().enumerate() {
            if b == b'\t' {
                if !self.tab_reported {
                    self.tab_reported = true;
                    let at = brk.blanks_start + i;
                    let msg = "tab used for indentation".to_string();
                    self.report(
                        error_at(codes::TAB_INDENT, at, at + 1, msg).with_note("indent with spaces (4 per level)"),
                    );
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
    fn bracket(&mut self, tok: Tok, lo: usize, hi: usize) -> Result<Tok, LexFatal> {
        if self.bracket_fits(tok, lo) {
            return Ok(tok);
        }
        if tok.closer().is_some() {
            let msg = format!("brackets nested more than {MAX_NESTING} deep");
            self.report(error_at(codes::NESTING_TOO_DEEP, lo, hi, msg));
            return Err(LexFatal);
        }
        // A closer that does not close the innermost open bracket.
        let text = self.source.get(lo..hi).unwrap_or("");
        match self.brackets.pop() {
            None => {
                let msg = format!("unmatched `{text}`");
                self.report(error_at(codes::UNMATCHED_BRACKET, lo, hi, msg).with_label("no bracket is open here"));
                Ok(Tok::Error)
            }
            Some((_, open_lo)) => {
                let open_text = self.source.get(open_lo..open_lo + 1).unwrap_or("");
                let msg = format!("closing `{text}` does not match the open `{open_text}`");
                let open = Span::new(open_lo, open_lo + 1);
                self.report(
                    error_at(codes::UNMATCHED_BRACKET, lo, hi, msg).with_secondary(open, "the bracket open here"),
                );
                Ok(Tok::Error)
            }
        }
    }

    /// The bracket bookkeeping of a token in the usual case, which [`Iterator::next`] handles
    /// inline: `false`, with nothing recorded, for an opener beyond [`MAX_NESTING`] and for a
    /// closer that does not close the innermost open bracket ([`Layout::bracket`] reports those).
    #[inline]
    fn bracket_fits(&mut self, tok: Tok, lo: usize) -> bool {
        if tok.closer().is_some() {
            if self.brackets.len() >= MAX_NESTING {
                return false;
            }
            self.brackets.push((tok, lo));
        } else if tok.is_closer() {
            if self.brackets.last().is_none_or(|&(open, _)| open.closer() != Some(tok)) {
                return false;
            }
            self.brackets.pop();
        }
        true
    }

    /// Flushes the end of input: NEWLINE if the last line has tokens, then all DEDENTs.
    fn end_of_input(&mut self) {
        let len = self.source.len();
        if let Some(&(_, lo)) = self.brackets.last() {
            let text = self.source.get(lo..lo + 1).unwrap_or("");
            let msg = format!("`{text}` was never closed");
            self.report(error_at(codes::UNCLOSED_BRACKET, lo, lo + 1, msg).with_label("this bracket is never closed"));
        }
        if self.line_has_tokens {
            let nl = self.pending_break.and_then(|b| b.newline).unwrap_or(len);
            self.queue.push_back(spanned(nl, Tok::Newline, (nl + 1).min(len)));
            self.line_has_tokens = false;
        }
        while self.indents.len() > 1 {
            if let Some(level) = self.indents.pop() {
                if !level.phantom {
                    self.queue.push_back(spanned(len, Tok::Dedent, len));
                }
            }
        }
    }
}

impl<'s> Iterator for Layout<'s> {
    type Item = Result<Spanned, LexFatal>;

    /// The usual token (inside a line, nothing queued, a bracket that fits) is handled here,
    /// inlined into the parser's loop; everything else in [`Layout::next_slow`]. (Plain
    /// `#[inline]` leaves it a call of its own, with the token returned through memory.)
    // Forced only when optimising: unoptimised code gives every inlined local its own slot in
    // each caller's frame, which only makes debug builds slower.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next(&mut self) -> Option<Self::Item> {
        let mut read = None;
        if self.queue.is_empty() && !self.done && self.pending_break.is_none() {
            let result = self.raw.next();
            if let Some(Ok(tok)) = result {
                let tok = tok.resolve_keyword(self.raw.slice());
                let plain = !matches!(tok, Tok::LineBreak | Tok::Comment);
                let span = self.raw.span();
                if plain && self.bracket_fits(tok, span.start) {
                    self.bad_char_run = None;
                    self.at_file_start = false;
                    self.line_has_tokens = true;
                    return Some(Ok(spanned(span.start, tok, span.end)));
                }
            }
            read = Some(result);
        }
        self.next_slow(read)
    }
}

impl<'s> Layout<'s> {
    /// [`Iterator::next`] in general; `read` is a raw token [`Iterator::next`] already took.
    #[inline(never)]
    fn next_slow(&mut self, mut read: Option<Option<Result<Tok, LexError>>>) -> Option<Result<Spanned, LexFatal>> {
        loop {
            if let Some(t) = self.queue.pop_front() {
                return Some(Ok(t));
            }
            if self.done {
                return None;
            }
            let raw = match read.take() {
                Some(raw) => raw,
                None => self.raw.next(),
            };
            let Some(result) = raw else {
                self.done = true;
                self.end_of_input();
                continue;
            };
            let span = self.raw.span();
            let (lo, hi) = (span.start, span.end);
            let tok = match result {
                Ok(Tok::LineBreak) => {
                    let text = self.raw.slice();
                    if self.brackets.is_empty() {
                        // After blank or comment-only lines, NEWLINE still marks the end of the
                        // line that had tokens.
                        let newline = self.pending_break.and_then(|b| b.newline).or(Some(lo));
                        self.pending_break = Some(LineBreak { newline, blanks_start: lo + 1, blanks: &text[1..] });
                    }
                    continue;
                }
                Ok(Tok::Comment) => {
                    self.comment(self.raw.slice(), lo);
                    continue;
                }
                Ok(tok) => {
                    self.bad_char_run = None;
                    tok.resolve_keyword(self.raw.slice())
                }
                Err(err) => match self.lex_error(err, lo, hi) {
                    Some(tok) => tok,
                    None => continue,
                },
            };
            let started = match self.pending_break.take() {
                Some(brk) => self.start_line(brk, tok, lo, hi),
                None => Ok(()),
            };
            self.at_file_start = false;
            let tok = match started.and_then(|()| self.bracket(tok, lo, hi)) {
                Ok(tok) => tok,
                Err(fatal) => {
                    self.done = true;
                    self.queue.clear();
                    return Some(Err(fatal));
                }
            };
            self.line_has_tokens = true;
            if self.queue.is_empty() {
                return Some(Ok(spanned(lo, tok, hi)));
            }
            self.queue.push_back(spanned(lo, tok, hi));
        }
    }
}

/// All tokens of `source` (layout tokens included), or the lexical errors. For tests and tools.
pub fn tokens(source: &str) -> Result<Vec<Spanned>, Vec<Diagnostic>> {
    let mut layout = Layout::new(source);
    let toks: Vec<Spanned> = layout.by_ref().map_while(Result::ok).collect();
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
    use Tok::*;

    /// A token as the tests spell it: a name or a string with its text.
    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Lexeme<'s> {
        Name(&'s str),
        Str(&'s str),
        Tok(Tok),
    }

    fn lexeme(src: &str, (lo, tok, hi): Spanned) -> Lexeme<'_> {
        let text = &src[lo as usize..hi as usize];
        match tok {
            Name => Lexeme::Name(text),
            Str => Lexeme::Str(string_contents(text)),
            tok => Lexeme::Tok(tok),
        }
    }

    /// The expected lexemes of a test: `Name("x")` and `Str("x")` with their text, any other
    /// item a token.
    macro_rules! toks {
        (@ [$($out:expr),*]) => {{
            let v: Vec<Lexeme> = vec![$($out),*];
            v
        }};
        (@ [$($out:expr),*] Name($s:expr) $(, $($rest:tt)*)?) => { toks!(@ [$($out,)* Lexeme::Name($s)] $($($rest)*)?) };
        (@ [$($out:expr),*] Str($s:expr) $(, $($rest:tt)*)?) => { toks!(@ [$($out,)* Lexeme::Str($s)] $($($rest)*)?) };
        (@ [$($out:expr),*] $t:expr $(, $($rest:tt)*)?) => { toks!(@ [$($out,)* Lexeme::Tok($t)] $($($rest)*)?) };
        ($($items:tt)*) => { toks!(@ [] $($items)*) };
    }

    fn kinds(src: &str) -> Vec<Lexeme<'_>> {
        match tokens(src) {
            Ok(t) => t.into_iter().map(|t| lexeme(src, t)).collect(),
            Err(d) => panic!("{src:?}: {d:?}"),
        }
    }

    /// The tokens of a source with errors.
    fn kinds_lossy(src: &str) -> Vec<Lexeme<'_>> {
        Layout::new(src).map_while(Result::ok).map(|t| lexeme(src, t)).collect()
    }

    /// The diagnostics of a source with errors, as `(code, lo..hi)`.
    fn lex_errors(src: &str) -> Vec<(&'static str, std::ops::Range<usize>)> {
        match tokens(src) {
            Ok(t) => panic!("{src:?} lexed without errors: {t:?}"),
            Err(d) => d.iter().map(|d| (d.code, d.span.range())).collect(),
        }
    }

    #[test]
    fn indentation_produces_indent_and_several_dedents() {
        assert_eq!(
            kinds("a:\n    b:\n        c\nd\n"),
            toks![
                Name("a"),
                Colon,
                Newline,
                Indent,
                Name("b"),
                Colon,
                Newline,
                Indent,
                Name("c"),
                Newline,
                Dedent,
                Dedent,
                Name("d"),
                Newline
            ]
        );
        // Any consistent width works, and one line can close three levels.
        assert_eq!(
            kinds("a:\n b:\n   c:\n      d\ne"),
            toks![
                Name("a"),
                Colon,
                Newline,
                Indent,
                Name("b"),
                Colon,
                Newline,
                Indent,
                Name("c"),
                Colon,
                Newline,
                Indent,
                Name("d"),
                Newline,
                Dedent,
                Dedent,
                Dedent,
                Name("e"),
                Newline
            ]
        );
    }

    #[test]
    fn end_of_input_flushes_newline_and_dedents() {
        let src = "a:\n    b";
        let toks = tokens(src).unwrap();
        assert_eq!(toks[4..], [(7, Name, 8), (8, Newline, 8), (8, Dedent, 8)]);
        // INDENT covers the blanks; NEWLINE is the `\n` itself.
        assert_eq!(toks[2..4], [(2, Newline, 3), (3, Indent, 7)]);
        assert_eq!(kinds(""), toks![]);
        assert_eq!(kinds("\n\n  \n"), toks![]);
    }

    #[test]
    fn dedent_is_zero_width_at_the_next_token() {
        let toks = tokens("a:\n    b\nc\n").unwrap();
        assert!(toks.contains(&(9, Dedent, 9)), "{toks:?}");
    }

    #[test]
    fn brackets_join_lines() {
        assert_eq!(
            kinds("x = f(a,\n      b,\n  [c,\n d])\ny\n"),
            toks![
                Name("x"),
                Assign,
                Name("f"),
                LParen,
                Name("a"),
                Comma,
                Name("b"),
                Comma,
                LBracket,
                Name("c"),
                Comma,
                Name("d"),
                RBracket,
                RParen,
                Newline,
                Name("y"),
                Newline
            ]
        );
        assert_eq!(kinds("{\n}"), toks![LBrace, RBrace, Newline]);
    }

    #[test]
    fn blank_and_comment_lines_are_skipped() {
        assert_eq!(kinds("a\n\n   # c\n\n  \nb  # t\n# end"), toks![Name("a"), Newline, Name("b"), Newline]);
        // A comment line at another indentation inside a block changes nothing.
        assert_eq!(
            kinds("a:\n    b\n# c\n        # d\n    e\n"),
            toks![Name("a"), Colon, Newline, Indent, Name("b"), Newline, Name("e"), Newline, Dedent]
        );
        // NEWLINE marks the end of the line with tokens, not a later blank line.
        let toks = tokens("a  # c\n\n\nb").unwrap();
        assert_eq!(toks[1], (6, Newline, 7));
    }

    #[test]
    fn line_endings_and_continuations() {
        assert_eq!(kinds("a:\r\n    b\r\n"), toks![Name("a"), Colon, Newline, Indent, Name("b"), Newline, Dedent]);
        assert_eq!(kinds("x = a + \\\n    b\n"), toks![Name("x"), Assign, Name("a"), Plus, Name("b"), Newline]);
    }

    #[test]
    fn header_comment_is_captured() {
        let src = "# pypto.program: Foo_1\nimport x\n";
        let mut layout = Layout::new(src);
        let toks: Vec<_> = layout.by_ref().collect();
        assert_eq!(toks.len(), 3);
        let header = layout.finish().header.unwrap();
        assert_eq!((header.name.as_str(), header.span.range()), ("Foo_1", 17..22));
        for src in ["x\n# pypto.program: Late\n", "# pypto.program: two words\n", "# pypto.program:\n", "# other\n"] {
            let mut layout = Layout::new(src);
            layout.by_ref().for_each(drop);
            assert!(layout.finish().header.is_none(), "{src:?}");
        }
        let mut layout = Layout::new("# comment\n#pypto.program:P\n");
        layout.by_ref().for_each(drop);
        assert_eq!(layout.finish().header.map(|h| h.name), Some("P".into()));
    }

    #[test]
    fn tabs_in_indentation_are_reported_once_at_the_tab() {
        assert_eq!(lex_errors("a:\n  \tb\n  \tc\n"), [(codes::TAB_INDENT, 5..6)]);
        // Tabs elsewhere are ordinary blanks.
        assert_eq!(kinds("a\t=\tb"), toks![Name("a"), Assign, Name("b"), Newline]);
    }

    #[test]
    fn empty_blocks_have_no_indent() {
        assert_eq!(
            kinds("def e(self):\nx"),
            toks![Def, Name("e"), LParen, Name("self"), RParen, Colon, Newline, Name("x"), Newline]
        );
        assert_eq!(kinds("a:\n    else:\n"), toks![Name("a"), Colon, Newline, Indent, Else, Colon, Newline, Dedent]);
    }

    #[test]
    fn bad_dedent_is_reported_and_recovered() {
        assert_eq!(lex_errors("a:\n    b:\n        c\n      d\n"), [(codes::BAD_DEDENT, 26..27)]);
        // After a bad dedent, lines at that width stay in the enclosing block and the
        // INDENT/DEDENT tokens stay balanced.
        let mut layout = Layout::new("a:\n    b:\n        c\n      d\n      e\nf\n");
        let toks: Vec<_> = layout.by_ref().map(|t| t.unwrap().1).collect();
        let count = |k: Tok| toks.iter().filter(|t| **t == k).count();
        assert_eq!((count(Indent), count(Dedent)), (2, 2));
        assert_eq!(layout.finish().diags.len(), 1);
    }

    #[test]
    fn keywords_and_names() {
        assert_eq!(
            kinds("pl.block.and(x)"),
            toks![Name("pl"), Dot, Name("block"), Dot, And, LParen, Name("x"), RParen, Newline]
        );
        assert_eq!(kinds("a xor b"), toks![Name("a"), Xor, Name("b"), Newline]);
        assert_eq!(kinds("inf nan defx _a1"), toks![Name("inf"), Name("nan"), Name("defx"), Name("_a1"), Newline]);
        assert_eq!(kinds("True False None"), toks![True, False, None, Newline]);
    }

    #[test]
    fn keywords_come_from_one_sorted_table() {
        assert!(KEYWORDS.windows(2).all(|w| w[0].0 < w[1].0), "KEYWORDS must stay sorted");
        for &(text, tok) in KEYWORDS {
            assert_eq!(kinds(text), toks![tok, Newline], "{text}");
            assert_eq!(tok.keyword_text(), Some(text));
        }
        assert_eq!(Name.keyword_text(), Option::None);
        // Names that merely start or end like a keyword stay names.
        assert_eq!(kinds("iff nota Nonex an"), toks![Name("iff"), Name("nota"), Name("Nonex"), Name("an"), Newline]);
        // Same length and first byte as a keyword (`break`, `True`, `and`), or the same first two.
        assert_eq!(kinds("block Tile add brk"), toks![Name("block"), Name("Tile"), Name("add"), Name("brk"), Newline]);
        // The length and the first and last bytes of a keyword (`and`, `else`, `True`): the
        // keyword's slot, which holds another spelling.
        assert_eq!(kinds("axd exxe Trie"), toks![Name("axd"), Name("exxe"), Name("Trie"), Newline]);
    }

    #[test]
    fn operators() {
        assert_eq!(
            kinds("a<b<=c<<d>>e>=f>g==h!=i**j//k->l"),
            toks![
                Name("a"),
                Lt,
                Name("b"),
                Le,
                Name("c"),
                Shl,
                Name("d"),
                Shr,
                Name("e"),
                Ge,
                Name("f"),
                Gt,
                Name("g"),
                EqEq,
                Name("h"),
                NotEq,
                Name("i"),
                DoubleStar,
                Name("j"),
                DoubleSlash,
                Name("k"),
                Arrow,
                Name("l"),
                Newline
            ]
        );
        assert_eq!(
            kinds("start_offset=<unsupported IRNode type>, a <unsupported"),
            toks![Name("start_offset"), Assign, Unsupported, Comma, Name("a"), Lt, Name("unsupported"), Newline]
        );
    }

    #[test]
    fn numbers() {
        assert_eq!(
            kinds("0 42 1_000 0x1F 0X_ff 0b101 0o17 18446744073709551615"),
            toks![Int(0), Int(42), Int(1000), Int(31), Int(255), Int(5), Int(15), Int(u64::MAX), Newline]
        );
        assert_eq!(
            kinds("1.0 .5 1e-07 1.5E+3 1. 2e5 1_0.5"),
            toks![Float(1.0), Float(0.5), Float(1e-7), Float(1500.0), Float(1.0), Float(2e5), Float(10.5), Newline]
        );
        assert_eq!(kinds("t[0].x"), toks![Name("t"), LBracket, Int(0), RBracket, Dot, Name("x"), Newline]);
        assert_eq!(lex_errors("x = 18446744073709551616"), [(codes::INT_OVERFLOW, 4..24)]);
        assert_eq!(
            lex_errors("12abc 0x 1__0 1e"),
            [
                (codes::BAD_NUMBER, 0..5),
                (codes::BAD_NUMBER, 6..8),
                (codes::BAD_NUMBER, 9..13),
                (codes::BAD_NUMBER, 14..16)
            ]
        );
    }

    #[test]
    fn strings() {
        assert_eq!(kinds(r#"'round' "x" '' 'a"b'"#), toks![Str("round"), Str("x"), Str(""), Str("a\"b"), Newline]);
        // Triple-quoted strings may span lines without producing layout tokens.
        assert_eq!(
            kinds("x = \"\"\"doc\n  more\"\"\"\ny"),
            toks![Name("x"), Assign, Str("doc\n  more"), Newline, Name("y"), Newline]
        );
        assert_eq!(lex_errors("x = 'abc\ny = 1"), [(codes::UNCLOSED_STRING, 4..5)]);
        assert_eq!(lex_errors("x = '''abc\ny = 1"), [(codes::UNCLOSED_STRING, 4..7)]);
        // Brackets opened on the line of an unterminated string count as closed.
        assert_eq!(lex_errors("f(a, g('x)\ny = 1\n"), [(codes::UNCLOSED_STRING, 7..8)]);
        assert_eq!(
            kinds_lossy("f(a, g('x)\ny"),
            toks![Name("f"), LParen, Name("a"), Comma, Name("g"), LParen, Error, Newline, Name("y"), Newline]
        );
    }

    #[test]
    fn bad_characters_are_reported_with_their_span() {
        assert_eq!(lex_errors("a $ b"), [(codes::BAD_CHAR, 2..3)]);
        // A run of bad characters is one error; a non-ASCII character's span is the whole char.
        assert_eq!(lex_errors("a $?! b é"), [(codes::BAD_CHAR, 2..5), (codes::BAD_CHAR, 8..10)]);
        let mut layout = Layout::new("a ?? b");
        let toks: Vec<_> = layout.by_ref().map(|t| lexeme("a ?? b", t.unwrap())).collect();
        assert_eq!(toks, toks![Name("a"), Error, Name("b"), Newline]);
        assert_eq!(layout.finish().diags[0].message, "unexpected characters `??`");
    }

    #[test]
    fn bracket_errors() {
        assert_eq!(lex_errors("a)\n"), [(codes::UNMATCHED_BRACKET, 1..2)]);
        let d = tokens("f(a]\n").unwrap_err();
        assert_eq!((d[0].code, d[0].span.range()), (codes::UNMATCHED_BRACKET, 3..4));
        assert_eq!(d[0].secondary[0].0.range(), 1..2);
        // The innermost bracket still open at the end is reported.
        assert_eq!(lex_errors("f(a, [1,\n  2\n"), [(codes::UNCLOSED_BRACKET, 5..6)]);
        let mut layout = Layout::new("f(a, [1,\n  2\n");
        layout.by_ref().for_each(drop);
        assert_eq!(layout.finish().unclosed, [1, 5]);
    }

    #[test]
    fn nesting_depth_is_limited() {
        let ok = "(".repeat(MAX_NESTING);
        let mut layout = Layout::new(&ok);
        assert!(layout.by_ref().all(|t| t.is_ok()));
        let codes_found: Vec<_> = layout.finish().diags.iter().map(|d| d.code).collect();
        assert_eq!(codes_found, [codes::UNCLOSED_BRACKET]);

        let deep = "(".repeat(MAX_NESTING + 1);
        let mut layout = Layout::new(&deep);
        assert_eq!(layout.by_ref().last(), Some(Err(LexFatal)));
        let d = layout.finish().diags;
        assert_eq!(d.len(), 1);
        assert_eq!((d[0].code, d[0].span.range()), (codes::NESTING_TOO_DEEP, MAX_NESTING..MAX_NESTING + 1));
    }

    /// `depth` blocks, each line indented one column more than the one before.
    fn nested_blocks(depth: usize) -> String {
        (0..depth).map(|d| format!("{}if x:\n", " ".repeat(d))).collect::<String>() + &" ".repeat(depth) + "y\n"
    }

    #[test]
    fn indentation_levels_are_limited() {
        // `depth` nested blocks are depth + 1 levels with the top level.
        let ok = nested_blocks(MAX_INDENT_LEVELS - 1);
        let mut layout = Layout::new(&ok);
        assert!(layout.by_ref().all(|t| t.is_ok()));
        assert!(layout.finish().diags.is_empty());

        let deep = nested_blocks(MAX_INDENT_LEVELS);
        let mut layout = Layout::new(&deep);
        assert_eq!(layout.by_ref().last(), Some(Err(LexFatal)));
        let d = layout.finish().diags;
        assert_eq!(d.len(), 1, "{d:?}");
        let line = deep.lines().last().unwrap_or_default();
        let lo = deep.len() - line.len() - 1 + MAX_INDENT_LEVELS;
        assert_eq!((d[0].code, d[0].span.range()), (codes::NESTING_TOO_DEEP, lo..lo + 1));
    }
}
