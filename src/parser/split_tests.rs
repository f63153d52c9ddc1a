//! The parallel parse against the parse in one piece: on every file of the test corpora and
//! on mutated files, reading the file in parts ([`super::split`]) must give exactly the tree
//! one parse gives — spans included (the trees are compared through `Debug`, since `Span`'s
//! `PartialEq` ignores positions) — or decline, and it must decline exactly the texts with
//! problems.

use super::*;

/// Every `.pto` file of the conformance corpus, the examples and the lit tests, as (name, text).
pub(crate) fn corpus() -> Vec<(String, String)> {
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
    files.into_iter().filter_map(|p| Some((p.display().to_string(), std::fs::read_to_string(&p).ok()?))).collect()
}

/// Whether the two ways agree on `text`: `Ok(parsed)`, or `Err` with a description.
fn agree(text: &str) -> Result<bool, String> {
    let split = split::parse(text, 2);
    let whole = parse_whole(text);
    match (split, whole) {
        (Some(p), Ok(w)) => {
            let (p, w) = (format!("{p:#?}"), format!("{w:#?}"));
            if p == w {
                Ok(true)
            } else {
                let at = p.lines().zip(w.lines()).position(|(a, b)| a != b).unwrap_or(0);
                Err(format!("different trees, from line {at} of the dump:\n{}", p.lines().nth(at).unwrap_or("")))
            }
        }
        (None, Err(_)) => Ok(false),
        (Some(_), Err(d)) => Err(format!("the parts parsed text the whole parse rejects: {:?}", d.first())),
        (None, Ok(_)) => Err("the parts declined text the whole parse accepts".to_string()),
    }
}

#[test]
fn parts_agree_with_the_whole_parse_on_the_corpora() {
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
    // Most corpus files are valid: the parallel parse must actually be exercised.
    assert!(accepted * 2 > files.len(), "only {accepted} of {} files parsed", files.len());
}

#[test]
fn a_program_is_cut_at_its_methods() {
    let src = "# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n    \"doc\"\n    @pl.function\n    @pl.function\n    def f(self):\n        if x:\n            pass\n        else:\n            pass\n    def g(self): pass\n    @pl.function\n    def h(self):\n        return 1\nclass Q:\n    def k(self):\n        pass\n";
    assert_eq!(agree(src), Ok(true));
    /// What the lexing thread reports: the head's items, then each header's lines.
    #[derive(Default)]
    struct Record(Vec<String>);
    impl split::Listener for Record {
        type Ticket = usize;
        fn head(&mut self, head: &Module) {
            self.0.push(format!("head: {} items", head.items.len()));
        }
        fn header(&mut self, k: usize, lines: Vec<crate::ast::ClassStmt>) -> usize {
            let shown: Vec<String> = lines
                .iter()
                .map(|l| match l {
                    crate::ast::ClassStmt::Function(f) => format!("def {} ({} lines)", f.name.name, f.body.len()),
                    crate::ast::ClassStmt::Other(_) => "other".to_string(),
                })
                .collect();
            self.0.push(format!("{k}: {}", shown.join(", ")));
            k
        }
        fn tail(&mut self, _: &Module) {}
    }
    let (tx, rx) = std::sync::mpsc::sync_channel(16);
    let failed = std::sync::atomic::AtomicBool::new(false);
    let mut record = Record::default();
    let (_, spare) = std::sync::mpsc::channel();
    let mut help = |_| panic!("the queue holds every part");
    let mut cut = split::Cut::new(src, tx, spare, &mut record, &failed, &mut help);
    Layout::new(src).map_while(Result::ok).for_each(|t| cut.push(t));
    let (_, class, sent, _) = cut.finish();
    assert_eq!(class, src.find("P:\n").map(crate::diag::location));
    assert!(!failed.load(std::sync::atomic::Ordering::Relaxed));
    // The headers: a function's decorators and `def` line, with an empty body; a part without
    // an indented block whole.
    assert_eq!(
        record.0,
        ["head: 1 items", "0: other", "1: def f (0 lines)", "2: def g (1 lines)", "3: def h (0 lines)"]
    );
    // The docstring, then `f` with its two decorators, `g`, and `h` with its decorator; each
    // with the ticket of its header.
    // Each part's first two tokens, with their text.
    let parts: Vec<Vec<(Tok, &str)>> = rx
        .iter()
        .map(|(k, toks, ticket)| {
            assert_eq!(k, ticket);
            toks.into_iter().map(|(lo, tok, hi)| (tok, &src[lo as usize..hi as usize])).take(2).collect()
        })
        .collect();
    assert_eq!(sent, 4);
    assert_eq!(
        parts,
        [
            vec![(Tok::Str, "\"doc\""), (Tok::Newline, "\n")],
            vec![(Tok::At, "@"), (Tok::Name, "pl")],
            vec![(Tok::Def, "def"), (Tok::Name, "g")],
            vec![(Tok::At, "@"), (Tok::Name, "pl")]
        ]
    );
}

#[test]
fn files_with_problems_are_declined_and_parsed_whole() {
    for src in [
        "class P:\n    def f(self):\n        x = = 1\n",
        "class P:\n    def f(self):\n        x = 1\n      y = 2\n",
        "class P:\n    def f(self):\n        x = (1\n",
        "class P:\n    def f(self):\n        f(x) = 1\n",
        "class P:\n    def f(self):\n        x = 1 $\n",
        "class P:\n    def f(self:\n        pass\n",
        "import\nclass P:\n    def f(self):\n        pass\n",
    ] {
        assert!(split::parse(src, 2).is_none(), "{src:?}");
        assert!(parse(src).is_err(), "{src:?}");
        assert_eq!(agree(src), Ok(false), "{src:?}");
    }
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
/// read both ways, which must agree.
#[test]
fn parts_agree_with_the_whole_parse_on_mutated_files() {
    const PIECES: &[&str] = &[
        ",",
        "=",
        ":",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        ".",
        ";",
        "@",
        "->",
        "-",
        "+",
        "~",
        "*",
        "**",
        "//",
        "<",
        "==",
        "<<",
        "|",
        "not ",
        " and ",
        " or ",
        " xor ",
        "if ",
        "elif ",
        "else",
        "for ",
        " in ",
        "while ",
        "with ",
        " as ",
        "return",
        "pass",
        "break",
        "def ",
        "class ",
        "import ",
        "from ",
        "x",
        "y=",
        "1",
        "2.5",
        "'s'",
        "True",
        "None",
        "  ",
        "  # c\n",
        "\n",
        "\n    ",
        "    ",
        "\n        ",
        "#",
        "<unsupported IRNode type>",
    ];
    let files = corpus();
    let seeds: Vec<&str> =
        files.iter().map(|(_, t)| t.as_str()).filter(|t| t.len() < 4000 && parse_whole(t).is_ok()).step_by(3).collect();
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

/// Blanks and comments where the grammar has optional parts: lalrpop places an absent part at
/// the next token, which can move the end of a span (also across the end of a part).
#[test]
fn spans_around_optional_parts_are_the_same_in_parts() {
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
        let method = src.starts_with("def ") || src.starts_with("@");
        if method {
            let nested: String = src.lines().map(|l| format!("    {l}\n")).collect();
            let class = format!("class C:\n{nested}{nested}");
            assert_eq!(agree(&class), Ok(true), "{class:?}");
        }
    }
}

/// A reader that panics (an internal error) makes the whole read panic, with its payload, once
/// the lexer is done: the workers go on draining the queue, so the lexing thread, which waits
/// on a full queue, is never left waiting (20 parts, one worker, a queue of two).
#[test]
fn a_panicking_reader_panics_the_read_without_a_hang() {
    struct Nothing;
    impl split::Listener for Nothing {
        type Ticket = ();
        fn head(&mut self, _: &Module) {}
        fn header(&mut self, _: usize, _: Vec<crate::ast::ClassStmt>) {}
        fn tail(&mut self, _: &Module) {}
    }
    let methods: String = (0..20).map(|k| format!("    def f{k}(self):\n        pass\n")).collect();
    let src = format!("class P:\n{methods}");
    let read = std::panic::catch_unwind(|| {
        split::parse_in_parts(&src, 1, &mut Nothing, &|k, _, ()| -> usize { panic!("reader failed at part {k}") })
    });
    let payload = read.err().expect("the read panics");
    // Which part's panic depends on which thread read what first (the lexing thread reads a
    // part itself when the queue is full); it is the first part that panicked.
    let message = payload.downcast_ref::<String>().map(String::as_str).unwrap_or_default();
    assert!(message.starts_with("reader failed at part "), "{message}");
}
