//! `tests/execution-invalid-programs.txt`: corpus programs (mostly generated ones) that are not
//! valid programs, each with the diagnostic code ptoc must refuse it with and why it is invalid.
//! Such a program passes when ptoc refuses it with that code at a location in the source
//! (`file:line:col: error[CODE]`); accepting it, or refusing it otherwise, fails. Unlike the
//! expected failures, this list records correct behaviour: it is reviewed, not regenerated.

use std::collections::{BTreeMap, BTreeSet};

pub const FILE: &str = "tests/execution-invalid-programs.txt";

#[derive(Clone, Debug, PartialEq)]
pub struct Invalid {
    pub code: String,
    pub reason: String,
}

/// How a program's refusal is judged.
#[derive(Clone, Copy, Debug)]
pub enum Judge<'a> {
    /// Listed in [`FILE`]: it must be refused with this code.
    Listed(&'a Invalid),
    /// A held-out program, which no one has reviewed: a refusal with one of these codes (those
    /// of the reviewed list: errors in the program, not missing C++ forms) at a source location
    /// counts as invalid; any other refusal fails.
    Codes(&'a BTreeSet<String>),
    /// Expected to compile.
    Valid,
}

/// `<program id> <code> <why the program is invalid>` per line; `#` comments.
pub fn parse(text: &str) -> Result<BTreeMap<String, Invalid>, String> {
    let mut out = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.splitn(3, ' ');
        let (Some(id), Some(code), Some(reason)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(format!("line {}: expected `<program id> <code> <reason>`", n + 1));
        };
        if !(code.len() == 5 && code.starts_with('E') && code[1..].bytes().all(|b| b.is_ascii_digit())) {
            return Err(format!("line {}: `{code}` is not a diagnostic code (E followed by 4 digits)", n + 1));
        }
        let entry = Invalid { code: code.to_string(), reason: reason.trim().to_string() };
        if out.insert(id.to_string(), entry).is_some() {
            return Err(format!("line {}: `{id}` is listed twice", n + 1));
        }
    }
    Ok(out)
}

/// Whether ptoc's short-format stderr refuses the program with `code` at a source location.
pub fn diagnosed(stderr: &str, code: &str) -> bool {
    let tag = format!(": error[{code}]:");
    stderr.lines().any(|l| {
        l.split_once(&tag).is_some_and(|(at, _)| {
            let mut parts = at.rsplitn(3, ':');
            let (col, line) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
            [col, line].iter().all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        })
    })
}

/// Whether a held-out program's refusal marks it invalid: a refusal with a code of the reviewed
/// list (`codes`) at a source location, or the automatic verification right after
/// convert-to-ssa rejecting it (`E0903 … after 'ConvertToSSA'`). That is where the reference
/// verifies its input too: text read as printed IR (every statement annotated) keeps what the
/// verifier must reject, such as an `if` without `else` whose yield is used, which hand-written
/// text gets as `E0307` when it is lowered. A verification failure after a later pass is not
/// counted: it would be ptoc's.
pub fn heldout_invalid(stderr: &str, codes: &BTreeSet<String>) -> bool {
    codes.iter().any(|c| diagnosed(stderr, c))
        || stderr.lines().any(|l| diagnosed(l, "E0903") && l.contains("Verification failed after 'ConvertToSSA'"))
}

#[cfg(test)]
#[allow(unused_imports)] // harness = false targets drop #[test] functions (see common/mod.rs)
mod tests {
    use super::*;

    #[test]
    fn parses_and_checks_locations() {
        let m = parse("# c\nexec/genmix/x E0307 an if yields without else\n").unwrap();
        assert_eq!(m["exec/genmix/x"].code, "E0307");
        assert!(parse("a E03 b\n").is_err());
        assert!(parse("a E0307 b\na E0307 c\n").is_err());
        assert!(diagnosed("x.pto:3:9: error[E0307]: an if\n", "E0307"));
        assert!(!diagnosed("x.pto:3:9: error[E0505]: other\n", "E0307"));
        assert!(!diagnosed("error[E0307]: no location\n", "E0307"));
    }
}
