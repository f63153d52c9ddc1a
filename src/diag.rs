//! Source spans and diagnostics.
//!
//! The library reports every problem as a [`Diagnostic`] value carrying a byte span into the
//! source text; only the CLI renders them (with ariadne, see [`render`]).

use std::fmt;
use std::hash::{Hash, Hasher};

/// A half-open byte range `lo..hi` into the source text of the file being compiled.
///
/// Spans are *ignored fields* of the IR (spec §2): two nodes that differ only in their spans are
/// equal. So `Span`'s `PartialEq` is always true and its `Hash` writes nothing; derived equality
/// and hashing of IR nodes therefore ignore positions. Use [`Span::same_range`] to compare
/// positions themselves.
#[derive(Clone, Copy, Default)]
pub struct Span {
    pub lo: u32,
    pub hi: u32,
}

/// A byte offset as the lexer hands it to the parser ([`crate::lexer::Spanned`]), clamped as a
/// span's offsets are ([`Span::new`]): tokens carry 4-byte locations, which keeps a token, and
/// the token buffers the lexing thread hands to the parsing threads, small.
pub fn location(offset: usize) -> u32 {
    offset.min(MAX_OFFSET as usize) as u32
}

/// The largest byte offset a span or a token holds exactly (`u32::MAX` is [`Span::NONE`]'s).
pub const MAX_OFFSET: u32 = u32::MAX - 1;

impl Span {
    /// The span of nothing in particular (nodes made by passes or the builder).
    pub const NONE: Span = Span { lo: u32::MAX, hi: u32::MAX };

    pub fn new(lo: usize, hi: usize) -> Span {
        Span { lo: location(lo), hi: location(hi) }
    }
    /// The span between two token locations ([`location`]s).
    pub fn at(lo: u32, hi: u32) -> Span {
        Span { lo: lo.min(MAX_OFFSET), hi: hi.min(MAX_OFFSET) }
    }
    pub fn is_none(self) -> bool {
        self.lo == u32::MAX
    }
    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        if self.is_none() {
            return other;
        }
        if other.is_none() {
            return self;
        }
        Span { lo: self.lo.min(other.lo), hi: self.hi.max(other.hi) }
    }
    pub fn same_range(self, other: Span) -> bool {
        self.lo == other.lo && self.hi == other.hi
    }
    pub fn range(self) -> std::ops::Range<usize> {
        self.lo as usize..self.hi as usize
    }
}

impl PartialEq for Span {
    fn eq(&self, _: &Span) -> bool {
        true
    }
}
impl Eq for Span {}
impl Hash for Span {
    fn hash<H: Hasher>(&self, _: &mut H) {}
}
impl fmt::Debug for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_none() {
            write!(f, "<no span>")
        } else {
            write!(f, "{}..{}", self.lo, self.hi)
        }
    }
}

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
    /// A bug of ptoc found by one of its own checks (a pass left IR it promised not to): shown
    /// as an error whose message says so, and the CLI exits with status 101.
    Internal,
}

impl Severity {
    /// The word a rendered diagnostic starts with.
    pub fn word(self) -> &'static str {
        match self {
            Severity::Error | Severity::Internal => "error",
            Severity::Warning => "warning",
        }
    }
}

/// One problem found in the input. `code` is a stable identifier (`E0101` …) listed in
/// `docs/diagnostics.md`; `message` is one plain sentence; `span` marks the offending text.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
    pub span: Span,
    /// Text shown next to the primary span (may be empty).
    pub label: String,
    /// Secondary spans with their own labels.
    pub secondary: Vec<(Span, String)>,
    /// `note:` / `help:` lines shown under the report.
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn error(code: &'static str, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            span,
            label: String::new(),
            secondary: Vec::new(),
            notes: Vec::new(),
        }
    }
    /// An internal error: a bug of ptoc, not of the input (see [`Severity::Internal`]).
    pub fn internal(code: &'static str, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Internal, ..Diagnostic::error(code, span, message) }
    }
    /// The message as printed: an internal error says that it is one.
    pub fn headline(&self) -> std::borrow::Cow<'_, str> {
        match self.severity {
            Severity::Internal => format!("internal compiler error: {}", self.message).into(),
            Severity::Error | Severity::Warning => self.message.as_str().into(),
        }
    }
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }
    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Self {
        self.secondary.push((span, label.into()));
        self
    }
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }
}

/// Diagnostic codes. One constant per kind of problem, grouped by the stage that finds it.
pub mod codes {
    // Reading the file (E00xx).
    pub const FILE_READ: &str = "E0001";
    pub const INVALID_UTF8: &str = "E0002";
    pub const FILE_TOO_LARGE: &str = "E0003";
    pub const FILE_WRITE: &str = "E0004";
    // Lexical and layout (E01xx).
    pub const BAD_CHAR: &str = "E0101";
    pub const TAB_INDENT: &str = "E0102";
    pub const BAD_DEDENT: &str = "E0103";
    pub const BAD_INDENT: &str = "E0104";
    pub const INT_OVERFLOW: &str = "E0105";
    pub const BAD_NUMBER: &str = "E0106";
    pub const UNCLOSED_STRING: &str = "E0107";
    pub const UNCLOSED_BRACKET: &str = "E0108";
    pub const UNMATCHED_BRACKET: &str = "E0109";
    pub const NESTING_TOO_DEEP: &str = "E0110";
    // Syntax (E02xx).
    pub const SYNTAX: &str = "E0201";
    pub const UNEXPECTED_EOF: &str = "E0202";
    pub const BAD_FILE_STRUCTURE: &str = "E0203";
    // Names and structure (E03xx).
    pub const UNDEFINED_NAME: &str = "E0301";
    pub const UNKNOWN_FUNCTION: &str = "E0302";
    pub const DUPLICATE_FUNCTION: &str = "E0303";
    /// A form of the text the IR has no meaning for (a string outside kwargs, `with` other than
    /// `pl.incore()`, …).
    pub const UNSUPPORTED: &str = "E0304";
    pub const BAD_TARGET: &str = "E0305";
    pub const BAD_LOOP: &str = "E0306";
    pub const BAD_YIELD: &str = "E0307";
    pub const BAD_DECORATOR: &str = "E0308";
    pub const BAD_PARAM: &str = "E0309";
    pub const BAD_MEMREF: &str = "E0310";
    /// A function that declares results does not end with a `return`.
    pub const MISSING_RETURN: &str = "E0311";
    /// A `return` whose values disagree with the declared results (count, kind, dtype, shape).
    pub const RETURN_MISMATCH: &str = "E0312";
    /// A call argument whose type disagrees with the callee's parameter.
    pub const CALL_ARG_MISMATCH: &str = "E0313";
    /// A use of a name that an earlier `if` binds on one of its paths only.
    pub const UNBOUND_ON_PATH: &str = "E0314";
    // Types (E04xx).
    pub const UNKNOWN_DTYPE: &str = "E0401";
    pub const UNKNOWN_ENUM: &str = "E0402";
    pub const BAD_TYPE: &str = "E0403";
    pub const BAD_SCALAR_OP: &str = "E0405";
    pub const BAD_TUPLE_INDEX: &str = "E0406";
    pub const ANNOTATION_MISMATCH: &str = "E0407";
    // Operators (E05xx).
    pub const UNKNOWN_OP: &str = "E0501";
    pub const OP_ARG_COUNT: &str = "E0502";
    pub const OP_ARG_TYPE: &str = "E0503";
    pub const OP_KWARG: &str = "E0504";
    pub const OP_CHECK: &str = "E0505";
    /// A tile operand in a memory space the op's unit cannot read (checked before C++ emission).
    pub const OP_MEMORY_SPACE: &str = "E0506";
    // Hardware resources and sync (E06xx).
    pub const EVENT_IDS_EXHAUSTED: &str = "E0601";
    pub const MEMORY_CAPACITY: &str = "E0602";
    pub const SYNC_HAZARD: &str = "E0603";
    pub const UNMATCHED_WAIT: &str = "E0604";
    /// A warning: a sync op whose deletion creates no hazard (`--report-redundant-sync`).
    pub const REDUNDANT_SYNC: &str = "E0605";
    /// insert-sync: loops nested deeper than it analyses (its analysis is exponential in depth).
    pub const LOOP_NEST_TOO_DEEP: &str = "E0606";
    /// `-O1`: an accumulating matmul whose accumulator is used after it, so its result cannot
    /// take the accumulator's buffer, which the NPU's instruction writes into.
    pub const ACCUMULATOR_STILL_USED: &str = "E0607";
    /// `--verify-sync`: a `sync_src` that may still be outstanding when the function ends.
    pub const UNCONSUMED_SET: &str = "E0608";
    // Running a program: the interpreter and `ptoc run` (E07xx).
    /// An operator or construct the interpreter cannot execute (names it).
    pub const RUN_UNSUPPORTED: &str = "E0701";
    /// A load, store, view or read window outside its tensor or tile.
    pub const RUN_OUT_OF_BOUNDS: &str = "E0702";
    /// Shapes or values of the wrong kind at run time (shapes that do not broadcast, a matmul
    /// whose inner dimensions differ, a reshape that changes the element count, …).
    pub const RUN_SHAPE: &str = "E0703";
    /// Arithmetic or resource errors at run time: integer division by zero, a loop step of 0,
    /// calls nested too deep.
    pub const RUN_ERROR: &str = "E0704";
    /// An input of `ptoc run` that does not fit its parameter (dtype or shape of an .npy file,
    /// a malformed number, a missing value).
    pub const RUN_BAD_INPUT: &str = "E0705";
    /// `ptoc run` cannot tell which function to run (none or several candidates, unknown --func).
    pub const RUN_NO_FUNCTION: &str = "E0706";
    /// A run that takes more steps than its budget (`ptoc run --max-steps`): a loop that does
    /// not end, or one that runs longer than the budget allows.
    pub const RUN_STEP_LIMIT: &str = "E0707";
    // Code generation (E08xx).
    /// A construct the C++ (CCE) code generator has no form for.
    pub const NO_CPP_FORM: &str = "E0801";
    /// A construct the PTO-ISA code generator has no form for.
    pub const NO_PTO_FORM: &str = "E0802";
    // Command line / pipeline (E09xx).
    pub const UNKNOWN_PASS: &str = "E0902";
    pub const VERIFY_FAILED: &str = "E0903";
    /// Command-line options that contradict each other (`--emit cpp --backend pto`).
    pub const OPTION_CONFLICT: &str = "E0904";
}

/// Colour choice for rendered diagnostics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Color {
    Always,
    Never,
}

/// Renders diagnostics for one source file into a string, the way the CLI prints them.
pub fn render(diags: &[Diagnostic], file_name: &str, source: &str, color: Color) -> String {
    use ariadne::{CharSet, Config, IndexType, Label, Report, ReportKind, Source};
    let color_of = |sev: Severity| match sev {
        Severity::Error | Severity::Internal => ariadne::Color::Red,
        Severity::Warning => ariadne::Color::Yellow,
    };
    let mut out = Vec::new();
    let len = source.len();
    // ariadne wants spans on char boundaries inside the text.
    let clamp = |s: Span| -> std::ops::Range<usize> {
        if s.is_none() {
            return 0..0;
        }
        let mut lo = (s.lo as usize).min(len);
        let mut hi = (s.hi as usize).min(len).max(lo);
        while lo > 0 && !source.is_char_boundary(lo) {
            lo -= 1;
        }
        while hi < len && !source.is_char_boundary(hi) {
            hi += 1;
        }
        lo..hi
    };
    for d in diags {
        // rustc's header, `error[E0501]: message` (ariadne's own is `[E0501] Error: message`).
        let header = format!("{}[{}]", d.severity.word(), d.code);
        let kind = ReportKind::Custom(&header, color_of(d.severity));
        let config = Config::default()
            .with_index_type(IndexType::Byte)
            .with_color(color == Color::Always)
            .with_char_set(if color == Color::Always { CharSet::Unicode } else { CharSet::Ascii });
        let primary = (file_name, clamp(d.span));
        let mut report = Report::build(kind, primary.clone()).with_config(config).with_message(d.headline());
        // Labels in source order: ariadne starts a new section (headed with the primary
        // location) whenever a label comes before the previous one.
        let order = |r: &std::ops::Range<usize>| i32::try_from(r.start).unwrap_or(i32::MAX);
        let primary_label = Label::new(primary.clone()).with_order(order(&primary.1)).with_color(color_of(d.severity));
        let label = if d.label.is_empty() { default_label(d.code) } else { &d.label };
        report = report.with_label(primary_label.with_message(label));
        for (s, text) in &d.secondary {
            let span = clamp(*s);
            report =
                report.with_label(Label::new((file_name, span.clone())).with_order(order(&span)).with_message(text));
        }
        for n in &d.notes {
            report = match n.strip_prefix("help: ") {
                Some(help) => report.with_help(help),
                None => report.with_note(n),
            };
        }
        let _ = report.finish().write((file_name, Source::from(source)), &mut out);
    }
    let mut text = String::from_utf8_lossy(&out).into_owned();
    if color == Color::Never {
        // ariadne colours a custom report kind (our header) even when colour is off.
        text = strip_ansi(&text);
    }
    // ariadne pads some lines with spaces; trailing blanks only make snapshots brittle.
    text.lines().map(|l| rustc_location(l.trim_end())).collect::<Vec<_>>().join("\n") + "\n"
}

/// rustc's location line, ` --> file:line:col` with the arrow ending at the gutter, in place of
/// ariadne's `,-[ file:line:col ]` (`╭─[ … ]` in Unicode) that opens a report's source section.
fn rustc_location(line: &str) -> std::borrow::Cow<'_, str> {
    let plain = if line.contains('\x1b') { std::borrow::Cow::Owned(strip_ansi(line)) } else { line.into() };
    let body = plain.trim_start();
    let indent = plain.len() - body.len();
    let loc = body
        .strip_prefix(",-[ ")
        .or_else(|| body.strip_prefix("\u{256d}\u{2500}[ "))
        .and_then(|rest| rest.strip_suffix(" ]"));
    match loc {
        Some(loc) if indent > 0 => format!("{}--> {loc}", " ".repeat(indent - 1)).into(),
        _ => line.into(),
    }
}

/// `text` without ANSI SGR sequences (`ESC [ … m`).
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' && chars.peek() == Some(&'[') {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// What the primary span of a diagnostic without a label of its own is, by code: ariadne
/// draws no marker without a label, and the headline already says what is wrong.
fn default_label(code: &str) -> &'static str {
    match code {
        codes::BAD_CHAR => "not a character of the language",
        codes::TAB_INDENT => "a tab in the indentation",
        codes::BAD_DEDENT => "matches no enclosing indentation level",
        codes::BAD_INDENT => "unexpected indentation",
        codes::INT_OVERFLOW => "this literal does not fit",
        codes::BAD_NUMBER => "not a valid number",
        codes::UNCLOSED_STRING => "this string is never closed",
        codes::UNCLOSED_BRACKET => "this bracket is never closed",
        codes::UNMATCHED_BRACKET => "closes nothing that is open",
        codes::NESTING_TOO_DEEP => "nested too deeply here",
        codes::SYNTAX => "unexpected here",
        codes::UNEXPECTED_EOF => "the file ends here",
        codes::BAD_FILE_STRUCTURE => "not allowed here",
        codes::UNDEFINED_NAME => "not found in this scope",
        codes::UNKNOWN_FUNCTION => "not a function of this program",
        codes::DUPLICATE_FUNCTION => "defined again here",
        codes::UNSUPPORTED => "not supported here",
        codes::NO_CPP_FORM => "no C++ form for this",
        codes::NO_PTO_FORM => "no PTO-ISA form for this",
        codes::BAD_TARGET => "cannot be assigned to",
        codes::BAD_LOOP => "this loop",
        codes::BAD_YIELD => "this yield",
        codes::BAD_DECORATOR => "this decorator",
        codes::BAD_PARAM => "this parameter",
        codes::BAD_MEMREF => "this MemRef",
        codes::MISSING_RETURN => "this function",
        codes::RETURN_MISMATCH => "returned here",
        codes::CALL_ARG_MISMATCH => "this argument",
        codes::UNKNOWN_DTYPE => "unknown dtype",
        codes::UNKNOWN_ENUM => "unknown member",
        codes::BAD_TYPE => "not a valid type",
        codes::BAD_SCALAR_OP => "in this expression",
        codes::BAD_TUPLE_INDEX => "index out of range",
        codes::ANNOTATION_MISMATCH => "this annotation",
        codes::UNKNOWN_OP => "unknown operator",
        codes::OP_ARG_COUNT => "in this call",
        codes::OP_ARG_TYPE => "this argument",
        codes::OP_KWARG => "this keyword argument",
        codes::OP_CHECK => "rejected by the operator's rules",
        codes::EVENT_IDS_EXHAUSTED => "needs one more event id",
        codes::MEMORY_CAPACITY => "its buffers do not fit",
        codes::SYNC_HAZARD => "unsynchronized access",
        codes::UNMATCHED_WAIT => "this wait",
        codes::REDUNDANT_SYNC => "removable",
        codes::LOOP_NEST_TOO_DEEP => "nested too deeply",
        codes::ACCUMULATOR_STILL_USED => "accumulates into a buffer of its own",
        codes::UNCONSUMED_SET => "this set",
        codes::RUN_OUT_OF_BOUNDS => "out of bounds",
        codes::VERIFY_FAILED => "the verifier rejects this",
        _ => "here",
    }
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(source: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(source.len());
    let before = &source.as_bytes()[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    let col = String::from_utf8_lossy(&before[line_start..]).chars().count() + 1;
    (line, col)
}

/// A one-line form `file:line:col: error[CODE]: message`, used in tests and by `--error-format=short`.
pub fn short(d: &Diagnostic, file_name: &str, source: &str) -> String {
    let (line, col) = if d.span.is_none() { (0, 0) } else { line_col(source, d.span.lo as usize) };
    format!("{}:{}:{}: {}[{}]: {}", file_name, line, col, d.severity.word(), d.code, d.headline())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_internal_error_is_an_error_that_says_it_is_a_bug() {
        let source = "x = 1\n";
        let d = Diagnostic::internal(codes::VERIFY_FAILED, Span::new(0, 1), "a pass left a hazard");
        assert_eq!(d.severity, Severity::Internal);
        let text = short(&d, "f.pto", source);
        assert_eq!(
            text,
            format!("f.pto:1:1: error[{}]: internal compiler error: a pass left a hazard", codes::VERIFY_FAILED)
        );
        let rendered = render(&[d], "f.pto", source, Color::Never);
        assert!(rendered.contains("internal compiler error: a pass left a hazard"), "{rendered}");
        // An ordinary error's message is printed as it is.
        let plain = Diagnostic::error(codes::VERIFY_FAILED, Span::new(0, 1), "bad input");
        assert!(short(&plain, "f.pto", source).ends_with("]: bad input"));
    }
}
