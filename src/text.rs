//! Appending text without `core::fmt`. The code generator and the printer write millions of
//! small pieces (names, keywords, integers); through `write!` each piece costs a formatter
//! dispatch and padding checks, several times the cost of copying it. [`cat!`] appends pieces
//! directly: strings as they are, integers in decimal, exactly as `Display` would write them.

/// Something [`cat!`] can append.
pub trait Piece {
    fn push_to(self, out: &mut String);
}

impl Piece for &str {
    fn push_to(self, out: &mut String) {
        out.push_str(self);
    }
}

impl Piece for &String {
    fn push_to(self, out: &mut String) {
        out.push_str(self);
    }
}

impl Piece for &std::rc::Rc<str> {
    fn push_to(self, out: &mut String) {
        out.push_str(self);
    }
}

impl Piece for char {
    fn push_to(self, out: &mut String) {
        out.push(self);
    }
}

impl Piece for u64 {
    fn push_to(self, out: &mut String) {
        push_u64(out, self);
    }
}

impl Piece for usize {
    fn push_to(self, out: &mut String) {
        push_u64(out, self as u64);
    }
}

impl Piece for u32 {
    fn push_to(self, out: &mut String) {
        push_u64(out, u64::from(self));
    }
}

impl Piece for i64 {
    fn push_to(self, out: &mut String) {
        if self < 0 {
            out.push('-');
        }
        push_u64(out, self.unsigned_abs());
    }
}

/// Lower-case hexadecimal digits, like `{:x}`.
pub struct Hex(pub u64);

impl Piece for Hex {
    fn push_to(self, out: &mut String) {
        let mut buf = [0u8; 16];
        let (mut v, mut i) = (self.0, buf.len());
        loop {
            i -= 1;
            buf[i] = b"0123456789abcdef"[(v & 15) as usize];
            v >>= 4;
            if v == 0 {
                break;
            }
        }
        push_digits(out, &buf[i..]);
    }
}

/// Appends ASCII digits char by char: for the few digits of a number that is cheaper than
/// validating them as UTF-8 and copying the slice.
fn push_digits(out: &mut String, digits: &[u8]) {
    out.extend(digits.iter().map(|&b| char::from(b)));
}

/// Decimal digits of `v`, like `{v}`.
pub(crate) fn push_u64(out: &mut String, mut v: u64) {
    if v < 10 {
        out.push(char::from(b'0' + v as u8));
        return;
    }
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    push_digits(out, &buf[i..]);
}

/// `cat!(out; a, b, …)` appends every piece ([`Piece`]) to the `String` `out`.
macro_rules! cat {
    ($out:expr; $($piece:expr),* $(,)?) => {{
        let out: &mut String = $out;
        $( $crate::text::Piece::push_to($piece, out); )*
    }};
}
pub(crate) use cat;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_print_like_display() {
        for v in [0i64, 7, -7, 10, 4096, -1, i64::MIN, i64::MAX] {
            let mut s = String::new();
            cat!(&mut s; v);
            assert_eq!(s, v.to_string());
        }
        for v in [0u64, 9, 10, u64::MAX] {
            let mut s = String::new();
            cat!(&mut s; v, ' ', v as usize);
            assert_eq!(s, format!("{v} {v}"));
        }
        let mut s = String::new();
        let owned = String::from("b");
        let shared: std::rc::Rc<str> = "c".into();
        cat!(&mut s; "a", &owned, &shared, 'd', 5u32);
        assert_eq!(s, "abcd5");
        for v in [0u64, 9, 10, 0x4000, 0xdead_beef, u64::MAX] {
            let mut s = String::new();
            cat!(&mut s; Hex(v));
            assert_eq!(s, format!("{v:x}"));
        }
    }
}
