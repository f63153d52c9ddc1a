//! `tests/execution-expected-failures.txt`: the programs known to fail, one per line:
//! `<program id> <class> <short reason>` (`#` starts a comment line). A trial fails when its
//! program fails and is not listed with that class, and when a listed program passes (the
//! list only shrinks). `PTOC_UPDATE_EXEC_FAILURES=1` rewrites the file from the run.

use std::collections::BTreeMap;

pub const FILE: &str = "tests/execution-expected-failures.txt";

/// Why a program fails, from the first step that went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// ptoc rejected the program with `--emit cpp` (exit status 1).
    Refused,
    /// ptoc crashed (exit status 101).
    Ice,
    /// The C++ (kernel, orchestration or host main) does not compile or link.
    CompileFail,
    /// The executable crashed, asserted, timed out or wrote outside a tensor.
    RunFail,
    /// `ptoc run` failed on the program.
    InterpFail,
    /// The C++ results differ from the interpreter's, or the interpreter's results before and
    /// after the passes differ.
    Mismatch,
}

pub const CLASSES: [Class; 6] =
    [Class::Refused, Class::Ice, Class::CompileFail, Class::RunFail, Class::InterpFail, Class::Mismatch];

impl Class {
    pub fn name(self) -> &'static str {
        match self {
            Class::Refused => "refused",
            Class::Ice => "ice",
            Class::CompileFail => "compile-fail",
            Class::RunFail => "run-fail",
            Class::InterpFail => "interp-fail",
            Class::Mismatch => "mismatch",
        }
    }
    pub fn from_name(s: &str) -> Option<Class> {
        CLASSES.into_iter().find(|c| c.name() == s)
    }
    /// Classes that need the interpreter to be observed.
    pub fn needs_interpreter(self) -> bool {
        matches!(self, Class::InterpFail | Class::Mismatch)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub class: Class,
    pub reason: String,
}

/// Parses the file; `Err` lists malformed and duplicate lines.
pub fn parse(text: &str) -> Result<BTreeMap<String, Entry>, String> {
    let mut map = BTreeMap::new();
    let mut errors = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.splitn(3, char::is_whitespace);
        let (id, class, reason) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        match Class::from_name(class) {
            Some(class) => {
                if map.insert(id.to_string(), Entry { class, reason: reason.trim().to_string() }).is_some() {
                    errors.push(format!("line {}: `{id}` is listed twice", n + 1));
                }
            }
            None => errors.push(format!(
                "line {}: unknown class `{class}` (one of refused, ice, compile-fail, run-fail, interp-fail, mismatch)",
                n + 1
            )),
        }
    }
    if errors.is_empty() {
        Ok(map)
    } else {
        Err(errors.join("\n"))
    }
}

/// The judgement of one program: `Err` when the outcome disagrees with the list.
/// `failure` is `None` for a pass; `interpreter` says whether comparisons could run.
pub fn judge(
    id: &str,
    failure: Option<(Class, &str)>,
    listed: Option<&Entry>,
    interpreter: bool,
) -> Result<(), String> {
    let hint = "fix it, or update the list (PTOC_UPDATE_EXEC_FAILURES=1)";
    match (failure, listed) {
        (None, None) => Ok(()),
        (None, Some(e)) if e.class.needs_interpreter() && !interpreter => Ok(()),
        (None, Some(e)) => Err(format!("`{id}` passes now but {FILE} lists it as {}: remove the line", e.class.name())),
        (Some((c, _)), Some(e)) if c == e.class => Ok(()),
        (Some((c, why)), Some(e)) => Err(format!(
            "`{id}` fails as {} but is listed as {} ({}); {hint}:\n{why}",
            c.name(),
            e.class.name(),
            e.reason
        )),
        (Some((c, why)), None) => Err(format!("`{id}` fails ({}), not listed in {FILE}; {hint}:\n{why}", c.name())),
    }
}

/// A one-line reason of at most 200 characters.
pub fn short_reason(why: &str) -> String {
    let line = why.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    match line.char_indices().nth(200) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_string(),
    }
}

pub const HEADER: &str = "\
# Execution tests (tests/execution.rs): programs whose C++ is known to fail, one per line:
#   <program id> <class> <short reason>
# class: refused | ice | compile-fail | run-fail | interp-fail | mismatch (see docs/execution-tests.md).
# The test fails on an unlisted failure, on a failure of another class, and on a listed program
# that passes: the list only shrinks. PTOC_UPDATE_EXEC_FAILURES=1 cargo test --test execution
# rewrites it (entries of programs not run, e.g. filtered out, are kept).
";

/// The file listing `failing` (id → entry) after the header.
pub fn render(failing: &BTreeMap<String, Entry>) -> String {
    let mut out = HEADER.to_string();
    for (id, e) in failing {
        out.push_str(&format!("{id} {} {}\n", e.class.name(), e.reason).replace(" \n", "\n"));
    }
    out
}

#[cfg(test)]
#[allow(unused_imports)] // harness = false targets drop #[test] functions (see common/mod.rs)
mod tests {
    use super::*;

    #[test]
    fn parse_render_round_trip() {
        let text = "# c\n\nexec/a/x compile-fail no TFOO\nexec/b run-fail  guard zone\n";
        let map = parse(text).unwrap();
        assert_eq!(map["exec/b"], Entry { class: Class::RunFail, reason: "guard zone".into() });
        assert_eq!(parse(&render(&map)).unwrap(), map);
        assert!(parse("x bogus y\n").unwrap_err().contains("unknown class"));
        assert!(parse("x refused a\nx refused b\n").unwrap_err().contains("twice"));
    }

    #[test]
    fn judgement() {
        let e = Entry { class: Class::Mismatch, reason: "r".into() };
        assert!(judge("p", None, None, true).is_ok());
        assert!(judge("p", None, Some(&e), true).unwrap_err().contains("passes now"));
        assert!(judge("p", None, Some(&e), false).is_ok());
        assert!(judge("p", Some((Class::Mismatch, "d")), Some(&e), true).is_ok());
        assert!(judge("p", Some((Class::RunFail, "d")), Some(&e), true).unwrap_err().contains("listed as mismatch"));
        assert!(judge("p", Some((Class::RunFail, "d")), None, true).unwrap_err().contains("not listed"));
        assert_eq!(short_reason("\n  first line  \nsecond"), "first line");
    }
}
