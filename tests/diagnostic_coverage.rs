//! Every diagnostic code in `src/diag.rs` (`diag::codes`) has an error-corpus case under
//! `lit-tests/errors/` whose CHECK lines check its rustc-shaped header (`error[CODE]: `), with
//! its `line:col` when the diagnostic has a location, and a row in `docs/diagnostics.md` whose example names such a file.
//! The code list is read from the source, so a new code fails this test until it has both.

use std::collections::BTreeMap;
use std::path::Path;

/// Codes that the `ptoc` command line cannot produce, so no lit case can show them.
const NOT_FROM_THE_CLI: &[(&str, &str)] = &[
    // insert-sync frees a hardware event id by moving a wait earlier when all eight of a pipe
    // pair are outstanding (lit-tests/insert-sync/event-ids-reused-by-moving-a-wait.pto); only
    // a set moved before its consumer's statements can leave it out of ids, and no known input
    // does. The allocator's exhaustion is tested by the unit tests in
    // src/passes/insert_sync/events.rs.
    ("E0601", "insert-sync frees event ids by moving waits; no known input runs out"),
];

/// Codes whose diagnostics have no location in the input: they are about the file as a whole
/// or about the command line, so their lit cases check the message only.
const WITHOUT_LOCATION: &[(&str, &str)] = &[
    ("E0001", "the input file cannot be read: there is no text to point into"),
    ("E0003", "the input is too large: it is not read"),
    ("E0004", "an output file cannot be written: about the -o path, not the input"),
    ("E0902", "an unknown pass name: about the command line, reported before the input is read"),
    ("E0706", "which function `ptoc run` runs: about the command line (--func), not a place in the input"),
    ("E0904", "options that contradict each other: about the command line, not a place in the input"),
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `NAME → code` of every `pub const NAME: &str = "E…";` in `diag::codes`.
fn codes() -> BTreeMap<String, String> {
    let src = std::fs::read_to_string(root().join("src/diag.rs")).unwrap();
    let module = src.split("pub mod codes {").nth(1).expect("diag.rs has `pub mod codes`");
    let module = module.split("\n}").next().unwrap();
    let mut out = BTreeMap::new();
    for line in module.lines() {
        let Some(rest) = line.trim().strip_prefix("pub const ") else { continue };
        let (name, value) = rest.split_once(": &str = ").expect("a `pub const NAME: &str = \"…\";` line");
        let code = value.trim_end_matches(';').trim_matches('"');
        assert!(code.len() == 5 && code.starts_with('E'), "{name}: {code}");
        assert!(out.insert(code.to_string(), name.to_string()).is_none(), "{code} is defined twice");
    }
    assert!(out.len() > 40, "the code list was not found in src/diag.rs");
    out
}

/// `file name → CHECK lines` of every case under `lit-tests/errors/`.
fn error_cases() -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(root().join("lit-tests/errors")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "pto") {
            let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
            // `# CHECK:`, `# CHECK-NEXT:`, `# STDIN:` …: the directive lines FileCheck matches.
            let checks = text
                .lines()
                .filter(|l| l.starts_with("# ") && !l.starts_with("# RUN:") && l.contains(": ") && l.contains("[E"))
                .map(String::from)
                .collect();
            out.insert(path.file_name().unwrap().to_string_lossy().into_owned(), checks);
        }
    }
    out
}

/// Whether a CHECK line pins a `:line:col:` position (digits or a regex for them are not
/// enough: the numbers must be literal).
fn has_line_col(check: &str) -> bool {
    check.split(':').collect::<Vec<_>>().windows(2).any(|w| {
        !w[0].is_empty()
            && !w[1].is_empty()
            && w[0].chars().all(|c| c.is_ascii_digit())
            && w[1].chars().all(|c| c.is_ascii_digit())
    })
}

#[test]
fn every_code_has_an_error_case_with_its_location() {
    let cases = error_cases();
    let mut missing = Vec::new();
    for (code, name) in codes() {
        if NOT_FROM_THE_CLI.iter().any(|(c, _)| *c == code) {
            continue;
        }
        // rustc's header: `error[E0301]: …` (or `warning[…]:`), in either output format.
        let tag = format!("[{code}]");
        let header = |l: &str| l.contains(&format!("error{tag}: ")) || l.contains(&format!("warning{tag}: "));
        let needs_location = !WITHOUT_LOCATION.iter().any(|(c, _)| *c == code);
        let found = cases.values().flatten().any(|l| header(l) && (!needs_location || has_line_col(l)));
        if !found {
            let what = if needs_location { "with a literal line:col" } else { "" };
            missing.push(format!("{code} ({name}): no CHECK line naming {tag} {what}"));
        }
    }
    assert!(missing.is_empty(), "lit-tests/errors/ lacks cases:\n{}", missing.join("\n"));
}

#[test]
fn every_code_is_documented_with_an_example() {
    let doc = std::fs::read_to_string(root().join("docs/diagnostics.md")).unwrap();
    let cases = error_cases();
    let mut problems = Vec::new();
    for (code, name) in codes() {
        let row = doc.lines().find(|l| l.starts_with(&format!("| {code} |")));
        let Some(row) = row else {
            problems.push(format!("{code}: no row in the table"));
            continue;
        };
        if !row.contains(&format!("`{name}`")) {
            problems.push(format!("{code}: the row does not name `{name}`"));
        }
        if NOT_FROM_THE_CLI.iter().any(|(c, _)| *c == code) {
            continue;
        }
        let example = row.trim_end_matches('|').rsplit('|').next().unwrap_or("");
        let named: Vec<&str> = example.split('`').filter_map(|s| s.strip_prefix("lit-tests/errors/")).collect();
        if named.is_empty() {
            problems.push(format!("{code}: the example column names no lit-tests/errors/ file"));
        }
        for file in named {
            match cases.get(file) {
                Some(checks) if checks.iter().any(|l| l.contains(&format!("[{code}]"))) => {}
                Some(_) => problems.push(format!("{code}: lit-tests/errors/{file} does not check it")),
                None => problems.push(format!("{code}: lit-tests/errors/{file} does not exist")),
            }
        }
    }
    assert!(problems.is_empty(), "docs/diagnostics.md:\n{}", problems.join("\n"));
}

#[test]
fn the_exception_lists_name_real_codes() {
    let codes = codes();
    for (code, why) in NOT_FROM_THE_CLI.iter().chain(WITHOUT_LOCATION) {
        assert!(codes.contains_key(*code), "{code} ({why}) is not a code any more");
    }
}
