//! Finding the methods of a file's program class without parsing the file, so that each method
//! can be parsed, and compiled, on its own (function-at-a-time compilation, see
//! `driver::by_function`).
//!
//! The split is a guess from indentation alone; it never needs to be right, only to be caught
//! when it is wrong. A method is taken to start at a line indented like the class body that
//! begins with `@` or `def ` (a decorator's first line, or an undecorated `def`). If such a line
//! is really inside a bracket or a triple-quoted string that an earlier line opened, the part
//! before it ends with that bracket or string unclosed and fails to parse; the caller then reads
//! the file whole, as it does for any error. Shapes the guess does not handle (code at column 0
//! after the class, tabs, backslash continuations, anything indented less than the class body)
//! make [`split`] give up.

/// Where the parts of a file are: the head, and the methods.
#[derive(Debug, PartialEq, Eq)]
pub struct Split {
    /// End of the head: everything before the first method (the header comment, imports, the
    /// class line and its decorators). [`Split::head`] makes a file of it.
    pub head_end: usize,
    /// The methods as byte ranges, each from its first decorator to the next method.
    pub methods: Vec<(usize, usize)>,
    /// Indentation of the class body, in columns.
    pub base: usize,
}

impl Split {
    /// The head as a file of its own: its text, with `pass` as the class body so that it
    /// parses. Offsets into it are offsets into the whole file.
    pub fn head(&self, source: &str) -> String {
        format!("{}{:base$}pass\n", &source[..self.head_end], "", base = self.base)
    }
}

/// Splits a file made of a program class whose body holds methods. `None` for anything else.
pub fn split(source: &str) -> Option<Split> {
    let mut starts: Vec<usize> = Vec::new();
    let mut in_class = false;
    let mut base: Option<usize> = None;
    // Whether the previous code line was a decorator at the class body's indentation (the
    // method started there, not at the `def`).
    let mut after_decorator = false;
    let mut pos = 0;
    while pos < source.len() {
        let end = source[pos..].find('\n').map_or(source.len(), |i| pos + i);
        let line = source[pos..end].strip_suffix('\r').unwrap_or(&source[pos..end]);
        let start = pos;
        pos = end + 1;
        if line.ends_with('\\') {
            return None;
        }
        let indent = line.bytes().take_while(|&b| b == b' ').count();
        let rest = &line[indent..];
        if rest.starts_with('\t') {
            return None;
        }
        if rest.is_empty() || rest.starts_with('#') {
            continue;
        }
        if !in_class {
            in_class = indent == 0 && rest.starts_with("class ");
            continue;
        }
        if indent == 0 {
            return None;
        }
        let base = *base.get_or_insert(indent);
        if indent < base {
            return None;
        }
        if indent > base {
            after_decorator = false;
            continue;
        }
        let opens = rest.starts_with('@') || rest.starts_with("def ");
        if opens && !after_decorator {
            starts.push(start);
        }
        after_decorator = rest.starts_with('@');
    }
    let base = base?;
    let head_end = *starts.first()?;
    let ends = starts.iter().skip(1).copied().chain(std::iter::once(source.len()));
    let methods = starts.iter().copied().zip(ends).collect();
    Some(Split { head_end, methods, base })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function\n    def a(self):\n        return\n\n    @pl.function(type=pl.FunctionType.InCore)\n    # a comment\n    def b(self):\n        x = (1,\n    @ 2)\n    def c(self):\n        return\n";

    #[test]
    fn methods_start_at_their_first_decorator() {
        let s = split(FILE).unwrap();
        let a = FILE.find("    @pl.function\n").unwrap();
        let b = FILE.find("    @pl.function(type").unwrap();
        let at = FILE.find("    @ 2)").unwrap();
        assert_eq!(s.base, 4);
        assert_eq!(s.head_end, a);
        assert_eq!(s.head(FILE), format!("{}    pass\n", &FILE[..a]));
        // The line inside the bracket is (wrongly) taken for the start of a method, decorated
        // by `@ 2)`, so `def c` belongs to it.
        assert_eq!(s.methods, vec![(a, b), (b, at), (at, FILE.len())]);
    }

    #[test]
    fn a_wrong_guess_fails_to_parse() {
        let s = split(FILE).unwrap();
        for &(lo, hi) in &s.methods[1..] {
            assert!(crate::parser::parse_method(FILE, lo, hi, s.base).is_err(), "{:?}", &FILE[lo..hi]);
        }
        let right = FILE.replace("x = (1,\n    @ 2)", "x = 1");
        let s = split(&right).unwrap();
        assert_eq!(s.methods.len(), 3);
        for &(lo, hi) in &s.methods {
            let f = crate::parser::parse_method(&right, lo, hi, s.base).unwrap();
            assert!(lo <= f.span.lo as usize && f.span.hi as usize <= hi);
        }
        assert!(crate::parser::parse(&s.head(&right)).is_ok());
    }

    #[test]
    fn other_shapes_are_not_split() {
        assert_eq!(split("x = 1\n"), None);
        assert_eq!(split("class P:\n    def a(self):\n        return\nx = 1\n"), None);
        assert_eq!(split("class P:\n    def a(self):\n        return \\\n            1\n"), None);
        assert_eq!(split("class P:\n\tdef a(self):\n\t\treturn\n"), None);
        assert_eq!(split("class P:\n        def a(self):\n            return\n    def b(self):\n        return\n"), None);
        let text = "class P:\n    def a(self):\n        return\n";
        let one = split(text).unwrap();
        assert_eq!((one.head_end, one.methods.len()), (9, 1));
        assert_eq!(split("class P:\n    \"doc\"\n"), None);
    }
}
