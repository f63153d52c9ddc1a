//! The fast parser against the lalrpop parser: on every file of the test corpora, on their
//! methods read one at a time, and on mutated files, the fast parser must accept exactly the
//! texts lalrpop accepts without any diagnostic, and build the same tree, spans included (the
//! trees are compared through `Debug`, since `Span`'s `PartialEq` ignores positions).

use super::*;

/// Every `.pto` file of the conformance corpus, the examples and the lit tests, as (name, text).
fn corpus() -> Vec<(String, String)> {
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let conformance = std::env::var_os("PTOC_CONFORMANCE_DIR")
        .filter(|d| !d.is_empty())
        .map_or_else(|| manifest.join("../shared/conformance"), std::path::PathBuf::from);
    let mut files = Vec::new();
    let mut dirs = vec![conformance, manifest.join("examples"), manifest.join("lit-tests")];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "pto") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
        .into_iter()
        .filter_map(|p| Some((p.display().to_string(), std::fs::read_to_string(&p).ok()?)))
        .collect()
}

/// Whether both parsers agree on `text`: `Err` with a description when they do not.
fn agree(text: &str) -> Result<bool, String> {
    let fast = parse_fast(Layout::new(text));
    let slow = parse_slow(text);
    match (fast, slow) {
        (Some(mut f), Ok(s)) => {
            f.span = s.span;
            let (f, s) = (format!("{f:#?}"), format!("{s:#?}"));
            if f == s {
                Ok(true)
            } else {
                let at = f.lines().zip(s.lines()).position(|(a, b)| a != b).unwrap_or(0);
                Err(format!("different trees, from line {at} of the dump:\n{}", f.lines().nth(at).unwrap_or("")))
            }
        }
        (None, Err(_)) => Ok(false),
        (Some(_), Err(d)) => Err(format!("fast parser accepted text lalrpop rejects: {:?}", d.first())),
        (None, Ok(_)) => Err("fast parser declined text lalrpop accepts".to_string()),
    }
}

#[test]
fn fast_parser_agrees_with_lalrpop_on_the_corpora() {
    let files = corpus();
    assert!(files.len() > 50, "too few files: {}", files.len());
    let mut accepted = 0;
    let mut failures = Vec::new();
    for (name, text) in &files {
        match agree(text) {
            Ok(ok) => accepted += usize::from(ok),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Most corpus files are valid: the fast parser must actually be exercised.
    assert!(accepted * 2 > files.len(), "only {accepted} of {} files parsed", files.len());
}

#[test]
fn fast_parser_agrees_with_lalrpop_on_methods() {
    let mut methods = 0;
    for (name, text) in corpus() {
        let Some(split) = methods::split(&text) else { continue };
        for &(start, end) in &split.methods {
            let part = &text[..end];
            let fast = parse_fast(Layout::nested(part, start, split.base)).map(|m| format!("{m:#?}"));
            let slow = parse_method_slow(part, start, split.base).ok().map(|m| format!("{m:#?}"));
            assert_eq!(fast, slow, "{name}: method at {start}..{end}");
            methods += 1;
        }
    }
    assert!(methods > 20, "only {methods} methods");
}

/// A small deterministic generator (xorshift).
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// Token-sized edits (insert, delete, replace a piece of text) of corpus files: each mutant is
/// read by both parsers, which must agree.
#[test]
fn fast_parser_agrees_with_lalrpop_on_mutated_files() {
    const PIECES: &[&str] = &[
        ",", "=", ":", "(", ")", "[", "]", "{", "}", ".", ";", "@", "->", "-", "+", "~", "*", "**", "//", "<", "==",
        "<<", "|", "not ", " and ", " or ", " xor ", "if ", "elif ", "else", "for ", " in ", "while ", "with ",
        " as ", "return", "pass", "break", "def ", "class ", "import ", "from ", "x", "y=", "1", "2.5", "'s'",
        "True", "None", "  ", "  # c\n", "\n", "\n    ", "    ", "\n        ", "#", "<unsupported IRNode type>",
    ];
    let files = corpus();
    let seeds: Vec<&str> = files
        .iter()
        .map(|(_, t)| t.as_str())
        .filter(|t| t.len() < 4000 && parse_slow(t).is_ok())
        .step_by(3)
        .collect();
    assert!(!seeds.is_empty());
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let (mut accepted, mut failures) = (0, Vec::new());
    for round in 0..6000 {
        let seed = seeds[round % seeds.len()];
        let mut text = seed.to_string();
        for _ in 0..=rng.below(2) {
            let mut at = rng.below(text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            let len = (1 + rng.below(6)).min(text.len() - at);
            let len = (0..=len).rev().find(|&l| text.is_char_boundary(at + l)).unwrap_or(0);
            match rng.below(3) {
                0 => text.insert_str(at, PIECES[rng.below(PIECES.len())]),
                1 => text.replace_range(at..at + len, ""),
                _ => text.replace_range(at..at + len, PIECES[rng.below(PIECES.len())]),
            }
        }
        match agree(&text) {
            Ok(ok) => accepted += usize::from(ok),
            Err(e) => failures.push(format!("{e}\nin:\n{text}")),
        }
        if failures.len() >= 3 {
            break;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n----\n"));
    // Some mutants stay valid (an extra `+ x`, a renamed variable), so both outcomes are tested.
    assert!(accepted > 300, "only {accepted} mutants parsed");
}

#[test]
fn deep_text_falls_back_to_lalrpop() {
    // Deeper than the fast parser's recursion limit, well within lalrpop's.
    let src = format!("def f():\n    x = {}1{}\n", "(".repeat(500), ")".repeat(500));
    assert!(parse_fast(Layout::new(&src)).is_none());
    assert!(parse(&src).is_ok());
    let src = format!("def f():\n    x = {}1\n", "-".repeat(500));
    assert!(parse_fast(Layout::new(&src)).is_none());
    assert!(parse(&src).is_ok());
}

/// Blanks and comments where the grammar has optional parts: lalrpop places an absent part at
/// the next token, which can move the end of a span.
#[test]
fn spans_around_optional_parts_match_lalrpop() {
    for src in [
        "import a  # c\n",
        "import a.b  # c\n",
        "from a import b  # c\n",
        "import a as b  # c\n",
        "def f(self , a , b: T ) :\n    return  # c\n",
        "def f():\n    x: T  # c\n",
        "def f():\n    x: T = 1  # c\n",
        "def f():\n    x = a, b,  # c\n",
        "def f():\n    return a, b,  # c\n",
        "def f():\n    a, b,  # c\n",
        "def f():\n    x: T = a, b,  # c\n",
        "def f():\n    pass  ;  pass  ;  # c\n",
        "def f():\n    for i , ( a , )  in x :  pass\n",
        "def f():\n    for ( a , )  in x :  pass\n",
        "def f():\n    with a  :  pass\n",
        "def f():\n    x = f( a , ) [ b , ] . c  # c\n",
        "def f():\n    x = (  )  # c\n",
        "def f():\n    x = ( a , )  # c\n",
        "def f():\n    x = [ ]  # c\n",
        "@ d  # c\ndef f( ) -> T  :  # c\n    x = a  # c\n",
        "class C ( ) :  # c\n    x = a  # c\n",
        "class C :  x = a  # c\n",
    ] {
        assert_eq!(agree(src), Ok(true), "{src:?}");
    }
}
