//! The HEAD system tests of `../shared/systests` in today's PyPTO spelling: each case ported from
//! upstream HEAD was edited into be8155433's spelling (its `case.json` lists the edits). This
//! test writes each spelling edit back (from the edit's own description, mechanically), reads
//! both texts and checks they are the same program: structurally equal IR and the same printed
//! text. Edits that are not spellings (a `@pl.jit` function written as a method, a chosen
//! parametrisation) stay. A load's `valid_shape` equal to its shape is written back
//! (`pl.load(t, o, shapes, valid_shape=shapes)`): ptoc reads it as the whole tile.

mod common;

/// What a `case.json` edit is, for this test.
#[derive(Debug, PartialEq)]
enum Edit {
    /// A spelling edit this test writes back.
    Spelling(Rule),
    /// Not a change of spelling (the edit stays).
    NotSpelling,
}

#[derive(Debug, PartialEq)]
enum Rule {
    /// `pl.store(t, o, shape, out)` → `pl.store(t, o, out)`.
    StoreShape,
    /// `pl.l0c_store(t, o, shape, out)` → `pl.store(t, o, out)`.
    AccStore,
    /// `pl.block.create_tile(` → `pl.tile.create(`.
    TileCreate,
    /// `pl.block.NAME(` → `pl.tile.NAME(`.
    TileNamespace(Vec<String>),
    /// `pl.block.OP(t, axis=0, keepdim=True)` → `pl.tile.col_OP(t)` (`col_sum` with the scratch tile).
    ColumnReduce(&'static str),
    /// `with pl.incore():` → `with pl.at(level=pl.Level.CORE_GROUP):`.
    At,
    /// `pl.block.FROM(` → `pl.tile.TO(` / `pl.tensor.FROM(` → `pl.tensor.TO(`.
    Rename(&'static str, &'static str),
    /// `pl.NAME(a, …)` (this many arguments) → `pl.NAME(a, …, high_precision=False)`.
    HighPrecision(String, usize),
    /// `y = pl.move(t, …, transpose=True)` → `t_view = pl.tile.transpose_view(t)` on the line
    /// before, and `y = pl.move(t_view, …)`.
    TransposeView,
    /// `pl.load(t, o, shapes)` → `pl.load(t, o, shapes, valid_shape=shapes)`.
    LoadValidShape,
}

/// Classifies an edit by its description; `None` for a description this test does not know
/// (which fails it, so a new kind of edit in the corpus is looked at).
fn classify(edit: &str) -> Option<Edit> {
    use Edit::*;
    let has = |s: &str| edit.contains(s);
    if has("pl.store(tile, offsets, out) -> pl.store(tile, offsets, <tile shape>, out)") {
        return Some(Spelling(Rule::StoreShape));
    }
    if has("pl.store of an Acc") || has("pl.store(<Acc tile>") {
        return Some(Spelling(Rule::AccStore));
    }
    if has("pl.at(level=pl.Level.CORE_GROUP)") && has("pl.incore()") {
        return Some(Spelling(Rule::At));
    }
    for op in ["col_sum", "col_max", "col_min"] {
        if has(&format!("pl.tile.{op}(")) {
            return Some(Spelling(Rule::ColumnReduce(op)));
        }
    }
    if has("pl.tile.maximums") {
        return Some(Spelling(Rule::Rename("block.maxs", "tile.maximums")));
    }
    if has("pl.tile.minimums") {
        return Some(Spelling(Rule::Rename("block.mins", "tile.minimums")));
    }
    if has("pl.tensor.subs(t, s) -> pl.tensor.sub(t, s)") {
        return Some(Spelling(Rule::Rename("tensor.sub", "tensor.subs")));
    }
    if edit.trim() == "pl.tile.create -> pl.block.create_tile" {
        return Some(Spelling(Rule::TileCreate));
    }
    // `pl.tile.{cast,reshape} -> pl.block.* (...)`, `pl.tile.mul -> pl.block.mul`
    if let Some(rest) = edit.strip_prefix("pl.tile.") {
        let names = if let Some(list) = rest.strip_prefix('{') {
            list.split_once('}').map(|(l, _)| l.split(',').map(|s| s.trim().to_string()).collect::<Vec<_>>())
        } else {
            rest.split_once(" -> pl.block.").map(|(n, _)| vec![n.to_string()])
        };
        if let Some(names) = names {
            return Some(Spelling(Rule::TileNamespace(names)));
        }
    }
    // `pl.div(l, r, high_precision=False) -> pl.div(l, r)`
    if let Some((today, _)) = edit.split_once(", high_precision=False) -> ") {
        if let Some((name, args)) = today.split_once('(') {
            return Some(Spelling(Rule::HighPrecision(format!("{name}("), args.split(',').count())));
        }
    }
    if has("pl.tile.transpose_view(t)") && has("transpose=True") {
        return Some(Spelling(Rule::TransposeView));
    }
    if has("load's valid_shape kwarg equal to the full load shape dropped") {
        return Some(Spelling(Rule::LoadValidShape));
    }
    let not_spelling = [
        "instance:",
        "program:",
        "@pl.jit",
        "TensorSpec",
        "c is the orchestrator's",
        "upstream marks",
        "N-D tiles kept",
        "`M = pl.dynamic(\"M\")`",
        "one program for",
    ];
    not_spelling.iter().any(|p| edit.starts_with(p)).then_some(NotSpelling)
}

/// The calls `name(...)` in `text` (at a name boundary), each as (start, end past `)`, args).
fn calls(text: &str, name: &str) -> Vec<(usize, usize, Vec<String>)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find(name).map(|i| i + from) {
        from = at + name.len();
        let boundary = text[..at].chars().next_back().is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '.'));
        if !boundary {
            continue;
        }
        let (mut depth, mut args, mut cur) = (1, Vec::new(), String::new());
        let mut end = None;
        for (i, c) in text[from..].char_indices() {
            match c {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                end = Some(from + i + 1);
                break;
            }
            if c == ',' && depth == 1 {
                args.push(cur.trim().to_string());
                cur.clear();
            } else {
                cur.push(c);
            }
        }
        let Some(end) = end else { break };
        if !cur.trim().is_empty() {
            args.push(cur.trim().to_string());
        }
        out.push((at, end, args));
    }
    out
}

/// Replaces each call `name(...)` by `f(args)` where that gives `Some`.
fn rewrite_calls(text: &str, name: &str, f: impl Fn(&[String]) -> Option<String>) -> String {
    let mut out = String::new();
    let mut last = 0;
    for (start, end, args) in calls(text, name) {
        if let Some(new) = f(&args) {
            out.push_str(&text[last..start]);
            out.push_str(&new);
            last = end;
        }
    }
    out.push_str(&text[last..]);
    out
}

fn is_keyword(arg: &str) -> bool {
    arg.split_once('=').is_some_and(|(k, _)| k.trim().chars().all(|c| c.is_alphanumeric() || c == '_'))
}

/// The variable a `pl.block.create_tile` is assigned to (the column sum's scratch tile).
fn scratch_tile(text: &str) -> Option<String> {
    let at = text.find("= pl.block.create_tile(")?;
    let line = text[..at].rsplit('\n').next()?;
    let name = line.trim().split([':', ' ']).next()?;
    Some(name.to_string())
}

/// `text` with `rule` written back in today's spelling.
fn undo(text: &str, rule: &Rule) -> String {
    match rule {
        Rule::StoreShape => rewrite_calls(text, "pl.store(", |a| {
            (a.len() == 4 && !a.iter().any(|x| is_keyword(x)))
                .then(|| format!("pl.store({}, {}, {})", a[0], a[1], a[3]))
        }),
        Rule::AccStore => rewrite_calls(text, "pl.l0c_store(", |a| {
            let kept: Vec<&String> = if a.iter().any(|x| is_keyword(x)) {
                a.iter().filter(|x| !x.trim_start().starts_with("shapes")).collect()
            } else if a.len() == 4 {
                vec![&a[0], &a[1], &a[3]]
            } else {
                return None;
            };
            Some(format!("pl.store({})", kept.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")))
        }),
        Rule::TileCreate => text.replace("pl.block.create_tile(", "pl.tile.create("),
        Rule::TileNamespace(names) => names.iter().fold(text.to_string(), |t, n| {
            rewrite_calls(&t, &format!("pl.block.{n}("), |a| Some(format!("pl.tile.{n}({})", a.join(", "))))
        }),
        Rule::ColumnReduce(op) => {
            let block = &op["col_".len()..];
            let tmp = scratch_tile(text);
            rewrite_calls(text, &format!("pl.block.{block}("), |a| {
                let column =
                    a.len() == 3 && a[1].replace(' ', "") == "axis=0" && a[2].replace(' ', "") == "keepdim=True";
                if !column {
                    return None;
                }
                match (&tmp, *op) {
                    (Some(t), "col_sum") => Some(format!("pl.tile.{op}({}, {t})", a[0])),
                    _ => Some(format!("pl.tile.{op}({})", a[0])),
                }
            })
        }
        Rule::At => text.replace("with pl.incore():", "with pl.at(level=pl.Level.CORE_GROUP):"),
        Rule::Rename(from, to) => text.replace(&format!("pl.{from}("), &format!("pl.{to}(")),
        Rule::HighPrecision(name, n) => rewrite_calls(text, name, |a| {
            (a.len() == *n && !a.iter().any(|x| x.contains("high_precision")))
                .then(|| format!("{name}{}, high_precision=False)", a.join(", ")))
        }),
        Rule::TransposeView => {
            let mut out = String::new();
            for line in text.split_inclusive('\n') {
                let moved = calls(line, "pl.move(")
                    .into_iter()
                    .next()
                    .filter(|(_, _, a)| a.iter().any(|x| x.replace(' ', "") == "transpose=True") && !is_keyword(&a[0]));
                match moved {
                    Some((start, end, a)) => {
                        let indent = &line[..line.len() - line.trim_start().len()];
                        let view = format!("{}_view", a[0]);
                        out.push_str(&format!("{indent}{view} = pl.tile.transpose_view({})\n", a[0]));
                        let rest: Vec<&str> = a[1..]
                            .iter()
                            .filter(|x| x.replace(' ', "") != "transpose=True")
                            .map(|x| x.as_str())
                            .collect();
                        out.push_str(&line[..start]);
                        out.push_str(&format!("pl.move({view}, {})", rest.join(", ")));
                        out.push_str(&line[end..]);
                    }
                    None => out.push_str(line),
                }
            }
            out
        }
        Rule::LoadValidShape => rewrite_calls(text, "pl.load(", |a| {
            let positional = a.iter().take_while(|x| !is_keyword(x)).count();
            let given = a.iter().any(|x| x.trim_start().starts_with("valid_shape"));
            (positional >= 3 && !given).then(|| format!("pl.load({}, valid_shape={})", a.join(", "), a[2]))
        }),
    }
}

fn compile(source: &str) -> Result<ptoc::ir::Program, String> {
    let module = ptoc::parser::parse(source).map_err(|d| format!("{d:?}"))?;
    ptoc::lower::lower(module).map_err(|d| format!("{d:?}"))
}

#[test]
fn head_cases_in_todays_spelling_are_the_edited_programs() {
    let dir = common::manifest_dir().join("../shared/systests");
    if !common::require_corpus(&dir, "the systests in today's spelling") {
        return;
    }
    let mut cases: Vec<_> =
        std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
    cases.sort();
    let (mut head, mut checked, mut same, mut undone) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for case in &cases {
        let name = common::relative_name(case, &dir);
        let Ok(meta) = std::fs::read_to_string(case.join("case.json")) else { continue };
        let meta = common::json::parse(&meta).unwrap_or_else(|e| panic!("{name}/case.json: {e}"));
        if !meta.get("source").and_then(|s| s.as_str()).is_some_and(|s| s.starts_with("e2d0f78ae:")) {
            continue;
        }
        head += 1;
        let edited = std::fs::read_to_string(case.join("program.pto")).unwrap();
        let mut today = edited.clone();
        let mut rules = 0;
        let edits: Vec<&str> = meta
            .get("edits")
            .and_then(|e| e.as_array())
            .unwrap_or_default()
            .iter()
            .filter_map(|e| e.as_str())
            .collect();
        // Where the only store is of an Acc tile, the general store edit is the Acc one's.
        let acc_store = edits.iter().any(|e| classify(e) == Some(Edit::Spelling(Rule::AccStore)));
        for text in edits {
            match classify(text) {
                Some(Edit::Spelling(rule)) => {
                    let before = today.clone();
                    today = undo(&today, &rule);
                    if today == before && !(rule == Rule::StoreShape && acc_store) {
                        failures.push(format!("{name}: writing back `{text}` changed nothing"));
                    }
                    rules += 1;
                }
                Some(Edit::NotSpelling) => {}
                None => failures.push(format!("{name}: edit this test does not know: {text}")),
            }
        }
        if rules == 0 {
            continue;
        }
        checked += 1;
        undone += rules;
        let compiled = (compile(&edited), compile(&today));
        match compiled {
            (Ok(a), Ok(b)) => {
                let (ta, tb) = (ptoc::printer::print_program(&a), ptoc::printer::print_program(&b));
                match ptoc::ir::equiv::programs_diff(&a, &b) {
                    None if ta == tb => same += 1,
                    None => failures.push(format!("{name}: equal IR printed differently:\n{ta}\n---\n{tb}")),
                    Some(d) => failures.push(format!("{name}: today's spelling gives other IR: {d}\n{today}")),
                }
            }
            (Err(e), _) => failures.push(format!("{name}: the edited program does not compile: {e}")),
            (_, Err(e)) => failures.push(format!("{name}: today's spelling does not compile: {e}\n{today}")),
        }
    }
    eprintln!(
        "{head} HEAD cases; {checked} written back in today's spelling ({undone} edits undone); {same} give the edited program"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert_eq!(same, checked);
    common::assert_checked("HEAD systests cases in today's spelling", checked, 40);
}

#[test]
fn call_splitting_keeps_nested_brackets() {
    let text = "x = pl.store(pl.add(a, b), [0, 0], [16, 16], out)\ny = mypl.store(a)";
    let found = calls(text, "pl.store(");
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].2, vec!["pl.add(a, b)", "[0, 0]", "[16, 16]", "out"]);
    assert_eq!(undo(text, &Rule::StoreShape), "x = pl.store(pl.add(a, b), [0, 0], out)\ny = mypl.store(a)");
}

/// The example written in today's spelling is the be8155433 softmax example.
#[test]
fn head_style_example_is_the_softmax_example() {
    let root = common::manifest_dir().join("examples");
    let read = |f: &str| compile(&std::fs::read_to_string(root.join(f)).unwrap()).unwrap();
    let (today, seed) = (read("head_style_softmax.pto"), read("softmax.pto"));
    assert_eq!(ptoc::ir::equiv::programs_diff(&today, &seed), None);
}
