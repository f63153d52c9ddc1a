//! The printer's documents: the `pretty` crate's arena documents and the few shapes the
//! canonical text is made of (texts, numbers, bracketed lists).
//!
//! A bracketed list is the only place a line may break (the language joins lines inside
//! brackets). At [`NO_WRAP`] its separators are plain `", "` texts and it has no group, so the
//! renderer never measures anything: the default print pays only for building and walking the
//! documents.

use super::NO_WRAP;
use pretty::{DocAllocator, DocBuilder, SmallText};

pub use pretty::Arena;

/// A document under construction, allocated in the arena of one statement (or one call).
pub type Doc<'a> = DocBuilder<'a, Arena<'a>>;

/// Indentation of one block level, and of the contents of a wrapped bracket.
pub const INDENT: usize = 4;

/// Renders `doc` into a new string.
pub fn render(doc: Doc<'_>, width: usize) -> String {
    let mut out = String::new();
    render_into(doc, width, &mut out);
    out
}

/// Appends the rendering of `doc` to `out`.
pub fn render_into(doc: Doc<'_>, width: usize, out: &mut String) {
    // Writing into a `String` cannot fail, so there is no error to pass on.
    let _ = doc.render_fmt(width, out);
}

/// An integer in decimal, as `Display` writes it, kept inline in the document (no heap string).
pub fn int<'a>(a: &'a Arena<'a>, v: i64) -> Doc<'a> {
    digits(a, v < 0, v.unsigned_abs())
}

/// An unsigned integer in decimal (see [`int`]).
pub fn uint<'a>(a: &'a Arena<'a>, v: u64) -> Doc<'a> {
    digits(a, false, v)
}

fn digits<'a>(a: &'a Arena<'a>, negative: bool, mut n: u64) -> Doc<'a> {
    // u64::MAX has 20 digits; with the sign 21 bytes, within SmallText's 22.
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let mut t = SmallText::new();
    if negative {
        let _ = t.try_push('-');
    }
    for &d in &buf[i..] {
        let _ = t.try_push(char::from(d));
    }
    DocBuilder(a, pretty::Doc::SmallText(t).into())
}

/// `open item, item, … tail close`. When it does not fit in the width it breaks after `open`
/// and after each comma, with the items one level deeper and `close` on a line of its own:
///
/// ```text
/// x = pl.block.add(
///     a,
///     b
/// )
/// ```
///
/// `tail` follows the last item (the `,` of a one-element tuple).
pub fn bracketed<'a>(
    a: &'a Arena<'a>,
    width: usize,
    open: &'a str,
    items: impl IntoIterator<Item = Doc<'a>>,
    tail: &'a str,
    close: &'a str,
) -> Doc<'a> {
    let wrap = width != NO_WRAP;
    let mut body = a.nil();
    let mut empty = true;
    for item in items {
        if !std::mem::take(&mut empty) {
            body = if wrap { body.append(",").append(a.line()) } else { body.append(", ") };
        }
        body = body.append(item);
    }
    body = body.append(tail);
    if !wrap || empty {
        return a.text(open).append(body).append(close);
    }
    a.text(open).append(a.line_().append(body).nest(INDENT as isize)).append(a.line_()).append(close).group()
}
