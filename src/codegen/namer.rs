//! C++ identifiers for IR variables (spec `passes-and-codegen.md` §4.3, §4.6).
//!
//! One [`Namer`] per generated file hands out every identifier, so that two IR variables with
//! the same name (non-SSA input, or names that sanitize to the same text), an IR name that is
//! a C++ keyword or a pto-isa name, and the derived identifiers of a variable (`xGlobal`,
//! `x_tensor`, `xType`, …) never collide. Modelled on naga's `proc::Namer`: the sanitized name
//! is used when free, otherwise `_1`, `_2`, … is appended. Without collisions the result is
//! the reference's `S(v)`, so reference-exact output is preserved.

use std::borrow::Cow;
use std::rc::Rc;

use compact_str::CompactString;
use rustc_hash::FxHashSet;

use crate::text::cat;

/// Hands out unique C++ identifiers.
#[derive(Debug)]
pub struct Namer {
    /// The identifiers that are not free: the reserved words and those handed out in this
    /// file. Stored inline (`CompactString` keeps up to 24 bytes without a heap block), so
    /// taking a name allocates nothing and dropping the set frees one table.
    taken: FxHashSet<CompactString>,
    /// Scratch buffer for the `base + suffix` probes, so a probe allocates nothing.
    probe: String,
}

impl Namer {
    /// A namer that never hands out a word of `reserved` (the target language's keywords and
    /// the names the generated file uses itself; naga's `Namer::reset` takes them the same way).
    pub fn new(reserved: &FxHashSet<CompactString>) -> Namer {
        Namer { taken: reserved.clone(), probe: String::new() }
    }

    /// A fresh base name for IR name `ir_name` such that `base + s` is unused for every suffix
    /// in `suffixes` (`""` is the base itself); all of them are then taken.
    pub fn claim(&mut self, ir_name: &str, suffixes: &[&str]) -> Rc<str> {
        let base = sanitize(ir_name);
        if self.take(&base, suffixes) {
            return Rc::from(&*base);
        }
        // Numbered variants `base_k`. When every one of them has a reserved form (`__x`,
        // `_X`, `PIPE_x` for base `_`, `__x`, `_X`, `PIPE`, `PIPE_x`, `EVENT_IDx`), numbering
        // would never end: start from `vbase` (itself, then numbered) instead.
        let (stem, mut k): (Cow<str>, u64) =
            if is_reserved_form(&format!("{base}_")) { (format!("v{base}").into(), 0) } else { (base, 1) };
        let mut candidate = String::with_capacity(stem.len() + 4);
        loop {
            candidate.clear();
            candidate.push_str(&stem);
            if k > 0 {
                candidate.push('_');
                cat!(&mut candidate; k);
            }
            if self.take(&candidate, suffixes) {
                return Rc::from(candidate.as_str());
            }
            k += 1;
        }
    }

    /// Room for `n` more identifiers.
    pub fn reserve(&mut self, n: usize) {
        self.taken.reserve(n);
    }

    /// Takes `base + s` for every suffix `s`, or takes nothing and returns `false` when one of
    /// them is reserved or already taken. Each name is hashed into the set once: the insert
    /// itself is the "free" test (a clash, which is rare, undoes the inserts made before it).
    fn take(&mut self, base: &str, suffixes: &[&str]) -> bool {
        for (i, s) in suffixes.iter().enumerate() {
            self.probe.clear();
            self.probe.push_str(base);
            self.probe.push_str(s);
            let free = !is_reserved_form(&self.probe) && self.taken.insert(CompactString::from(self.probe.as_str()));
            // A suffix listed twice is already ours.
            if !free && !suffixes[..i].contains(s) {
                for earlier in &suffixes[..i] {
                    self.probe.clear();
                    self.probe.push_str(base);
                    self.probe.push_str(earlier);
                    self.taken.remove(self.probe.as_str());
                }
                return false;
            }
        }
        true
    }
}

/// The reference's `S(v)`: the first character kept if a letter or `_`, later ones if
/// alphanumeric or `_`, everything else replaced by `_`; empty → `var`.
/// Borrowed when `name` is already a valid identifier (the usual case), so that nothing is
/// allocated for it.
pub fn sanitize(name: &str) -> Cow<'_, str> {
    let ok = |i: usize, c: char| {
        if i == 0 {
            c.is_ascii_alphabetic() || c == '_'
        } else {
            c.is_ascii_alphanumeric() || c == '_'
        }
    };
    // Every kept character is ASCII, so the check for the usual case can go byte by byte
    // (no UTF-8 decoding): a non-ASCII byte fails it, as its character would.
    let first = name.as_bytes().first().copied();
    if first.is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && name.as_bytes()[1..].iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
    {
        return Cow::Borrowed(name);
    }
    let mut out = String::with_capacity(name.len());
    for (i, c) in name.chars().enumerate() {
        out.push(if ok(i, c) { c } else { '_' });
    }
    if out.is_empty() {
        out.push_str("var");
    }
    Cow::Owned(out)
}

/// Identifiers the C++ implementation reserves: `__x`, `_X`, and the `PIPE_*` / `EVENT_ID*`
/// macros of the CCE headers.
fn is_reserved_form(s: &str) -> bool {
    let reserved_underscore = match s.as_bytes() {
        [b'_', c, ..] => *c == b'_' || c.is_ascii_uppercase(),
        _ => false,
    };
    reserved_underscore || s.starts_with("PIPE_") || s.starts_with("EVENT_ID")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reserved(words: &[&'static str]) -> FxHashSet<CompactString> {
        words.iter().copied().map(CompactString::const_new).collect()
    }

    #[test]
    fn sanitizes_like_the_reference() {
        assert_eq!(sanitize("a.b"), "a_b");
        assert!(matches!(sanitize("t_1"), Cow::Borrowed("t_1")), "a valid name is not copied");
        assert_eq!(sanitize("1x"), "_x");
        assert_eq!(sanitize(""), "var");
    }

    #[test]
    fn free_names_are_kept_and_collisions_numbered() {
        let mut n = Namer::new(&reserved(&["int", "TADD"]));
        assert_eq!(&*n.claim("x_0", &[""]), "x_0");
        assert_eq!(&*n.claim("x_0", &[""]), "x_0_1");
        assert_eq!(&*n.claim("int", &[""]), "int_1");
        assert_eq!(&*n.claim("TADD", &[""]), "TADD_1");
    }

    /// Names whose numbered variants would all be reserved forms get a `v` prefix (numbering
    /// alone would never find a free one); those whose base is free keep it.
    #[test]
    fn reserved_forms_terminate() {
        let mut n = Namer::new(&reserved(&["int", "TADD"]));
        assert_eq!(&*n.claim("PIPE", &[""]), "PIPE");
        assert_eq!(&*n.claim("PIPE", &[""]), "vPIPE");
        assert_eq!(&*n.claim("PIPE_a", &[""]), "vPIPE_a");
        assert_eq!(&*n.claim("__x", &["", "Type"]), "v__x");
        assert_eq!(&*n.claim("__x", &["", "Type"]), "v__x_1");
        assert_eq!(&*n.claim("_", &["", "Type"]), "v_");
        assert_eq!(&*n.claim("_X", &[""]), "v_X");
        assert_eq!(&*n.claim("EVENT_ID0", &["_tensor", ""]), "vEVENT_ID0");
        assert_eq!(&*n.claim("EVENT", &[""]), "EVENT");
        assert_eq!(&*n.claim("EVENT", &[""]), "EVENT_1");
    }

    /// A clash on a later suffix gives back the names taken for the earlier ones.
    #[test]
    fn a_clash_takes_nothing() {
        let mut n = Namer::new(&reserved(&["int", "TADD"]));
        assert_eq!(&*n.claim("tType", &[""]), "tType");
        assert_eq!(&*n.claim("t", &["", "Type"]), "t_1");
        assert_eq!(&*n.claim("t", &[""]), "t", "`t` was not kept by the failed claim");
        assert_eq!(&*n.claim("u", &["", "", "Type"]), "u", "a repeated suffix is not a clash");
    }

    #[test]
    fn derived_names_are_reserved_together() {
        let mut n = Namer::new(&reserved(&["int", "TADD"]));
        assert_eq!(&*n.claim("a", &["_tensor", "", "Global"]), "a");
        assert_eq!(&*n.claim("aGlobal", &[""]), "aGlobal_1");
        assert_eq!(&*n.claim("a_tensor", &[""]), "a_tensor_1");
        assert_eq!(&*n.claim("t", &["", "Type"]), "t");
        // `a` is taken, and so would be `a_tensor` for a new tensor `a`.
        assert_eq!(&*n.claim("a", &["_tensor", ""]), "a_1");
    }
}
