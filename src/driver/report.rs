//! Turning diagnostics into the text the CLI prints on stderr, in the chosen format and colour.

use crate::diag::{self, Color, Diagnostic, Severity};

use super::cli::ErrorFormat;
use super::input::SourceFile;

/// How diagnostics are printed.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    pub format: ErrorFormat,
    pub color: Color,
}

/// Renders `diags` in order. `file` is the input they point into (`None` for problems with the
/// command line itself). Diagnostics without a span are printed without a source excerpt.
pub fn render(diags: &[Diagnostic], file: Option<&SourceFile>, style: Style) -> String {
    let mut out = String::new();
    for d in diags {
        match (style.format, file) {
            (ErrorFormat::Short, Some(f)) if !d.span.is_none() => {
                out.push_str(&diag::short(d, &f.name, &f.text));
                out.push('\n');
            }
            (ErrorFormat::Short, _) => {
                out.push_str(&headline(d, Color::Never));
                out.push('\n');
            }
            (ErrorFormat::Human, Some(f)) if !d.span.is_none() => {
                out.push_str(&diag::render(std::slice::from_ref(d), &f.name, &f.text, style.color));
            }
            (ErrorFormat::Human, _) => out.push_str(&spanless(d, style.color)),
        }
    }
    out
}

/// `error[CODE]: message`, the first line of a diagnostic that has no source position.
fn headline(d: &Diagnostic, color: Color) -> String {
    let sev = d.severity.word();
    match color {
        Color::Never => format!("{sev}[{}]: {}", d.code, d.headline()),
        Color::Always => {
            let paint = if d.severity != Severity::Warning { "\x1b[1;31m" } else { "\x1b[1;33m" };
            format!("{paint}{sev}[{}]\x1b[0m\x1b[1m: {}\x1b[0m", d.code, d.headline())
        }
    }
}

/// The human form of a diagnostic without a span: the headline, then its notes.
fn spanless(d: &Diagnostic, color: Color) -> String {
    let mut s = headline(d, color);
    s.push('\n');
    for n in &d.notes {
        s.push_str("  = ");
        s.push_str(n);
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{codes, Span};

    fn file() -> SourceFile {
        SourceFile { name: "f.pto".into(), text: "a\nbc d\n".into() }
    }
    const NEVER: Color = Color::Never;

    #[test]
    fn short_format_is_one_line_per_diagnostic() {
        let d = [
            Diagnostic::error(codes::SYNTAX, Span::new(5, 6), "bad").with_note("ignored in short form"),
            Diagnostic::error(codes::UNKNOWN_PASS, Span::NONE, "nope"),
        ];
        let s = render(&d, Some(&file()), Style { format: ErrorFormat::Short, color: NEVER });
        assert_eq!(s, "f.pto:2:4: error[E0201]: bad\nerror[E0902]: nope\n");
    }

    #[test]
    fn human_spanless_shows_notes() {
        let d = [Diagnostic::error(codes::UNKNOWN_PASS, Span::NONE, "unknown pass `x`").with_note("known: a, b")];
        let s = render(&d, None, Style { format: ErrorFormat::Human, color: NEVER });
        assert_eq!(s, "error[E0902]: unknown pass `x`\n  = known: a, b\n");
    }

    #[test]
    fn human_spanned_uses_source_excerpt() {
        let d = [Diagnostic::error(codes::SYNTAX, Span::new(2, 4), "bad thing").with_label("here")];
        let s = render(&d, Some(&file()), Style { format: ErrorFormat::Human, color: NEVER });
        assert!(s.contains("E0201"), "{s}");
        assert!(s.contains("bad thing"), "{s}");
        assert!(s.contains("bc d"), "{s}");
        assert!(!s.contains('\x1b'), "{s}");
    }

    #[test]
    fn colour_only_when_asked() {
        let d = [Diagnostic::error(codes::UNKNOWN_PASS, Span::NONE, "x")];
        let s = render(&d, None, Style { format: ErrorFormat::Human, color: Color::Always });
        assert!(s.contains('\x1b'));
    }
}
