//! Generated programs in the forms real PyPTO programs are written in, which the random
//! generator (`../shared/tools/genmix.py`) never writes: program transformations of genmix
//! output, deterministic in `(form, kind, seed)`. `tests/gen_forms.rs` checks what each
//! transformation means (against the interpreter on the untransformed program); the execution
//! tests run the transformed programs on the CPU simulator (`exec/genforms/*`).
//!
//! The forms (docs/execution-tests.md):
//! - `onepath`: a kernel's store into an `Out`/`InOut` parameter, whose result the kernel
//!   returns, runs only `if flag:` (a new `pl.Scalar[pl.BOOL]` parameter, passed down by every
//!   caller): on the other path the returned tensor is the destination (docs/language.md).
//! - `unbound`: a tile or scalar bound on one path and read after the `if`: error E0314.
//! - `convert`: scalar conversions at calls: an integer passed for a BOOL parameter (the
//!   `onepath` guard taking an INT64), a BOOL or an INT32 passed for an integer parameter.
//! - `dyn`: tensor parameters with symbolic dimensions (`pl.Tensor[[M, 48], …]`), given values by
//!   a `# exec-dims:` line: larger extents than the original's, and the original ones.
//! - `break`: a loop-carried kernel loop rewritten as real programs write it (a natural loop
//!   storing into the parameter) with `if i >= k: break` or `if i < k: continue` in its body.

use std::fmt;

pub use super::rng::Rng;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Form {
    OnePath,
    Unbound,
    Convert,
    Dyn,
    Break,
}

pub const FORMS: [Form; 5] = [Form::OnePath, Form::Unbound, Form::Convert, Form::Dyn, Form::Break];

impl Form {
    pub fn name(self) -> &'static str {
        match self {
            Form::OnePath => "onepath",
            Form::Unbound => "unbound",
            Form::Convert => "convert",
            Form::Dyn => "dyn",
            Form::Break => "break",
        }
    }
}

impl fmt::Display for Form {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A scalar argument given to `ptoc run` for one function: `--input param=value`.
#[derive(Clone, Debug, PartialEq)]
pub struct Given {
    pub func: String,
    pub param: String,
    pub value: String,
}

/// What the transformed program must mean.
#[derive(Clone, Debug, PartialEq)]
pub enum Expect {
    /// Every function of `reference` (the original, or for `break` the original with the loop's
    /// range cut where the break or continue cuts it), run on the same seeded inputs, computes
    /// what the same function of the transformed program computes; `given` are extra inputs of
    /// the transformed program, `given_ref` of the reference.
    Same { reference: String, given: Vec<Given>, given_ref: Vec<Given> },
    /// As `Same`, but the transformed program has symbolic dimensions: both run on the tensors
    /// of a seeded run of the reference (`--input-dir`).
    SameOnInputs { reference: String },
    /// ptoc refuses it with `code` at `line` (1-based), naming `name`.
    Error { code: &'static str, line: usize, name: String },
}

#[derive(Clone, Debug)]
pub struct Transformed {
    pub text: String,
    /// What was done, for messages (`k0: store r guarded by flag`).
    pub what: String,
    pub expect: Expect,
    /// `onepath` (and `convert`'s guard): with the flag false, the kernel's return value
    /// `ret_index` is the destination parameter `dst`: (kernel, flag, dst, ret_index).
    pub flag_false: Option<(String, String, String, usize)>,
}

/// The programs of each form the execution tests run (`exec/genforms/<form>-<kind>-s<seed>`),
/// chosen for the variety of kinds and variants; `tests/gen_forms.rs` checks each of them as it
/// checks its own.
pub const EXEC_CORPUS: &[(Form, &str, u64)] = &[
    (Form::OnePath, "vector", 1),
    (Form::OnePath, "matmul", 2),
    (Form::OnePath, "reduce", 9),
    (Form::OnePath, "mixed", 1),
    (Form::Convert, "vector", 8),
    (Form::Convert, "branch", 5),
    (Form::Convert, "scalar", 5),
    (Form::Convert, "scalar", 9),
    (Form::Convert, "mixed", 1),
    (Form::Dyn, "matmul", 4),
    (Form::Dyn, "loop", 3),
    (Form::Dyn, "reduce", 1),
    (Form::Dyn, "mixed", 3),
    (Form::Break, "matmul", 2),
    (Form::Break, "loop", 8),
    (Form::Break, "branch", 7),
    (Form::Break, "reduce", 10),
];

// ----------------------------------------------------------------------------- program text

/// A function of the program: its line range and signature.
#[derive(Clone, Debug)]
pub struct Func {
    pub name: String,
    /// `InCore`, `Orchestration` or `Opaque`.
    pub kind: &'static str,
    /// Index of the `def` line.
    pub def: usize,
    /// One past its last line.
    pub end: usize,
    pub params: Vec<(String, String)>,
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Byte offsets where `name` occurs as a whole word in `text`.
pub fn occurrences(text: &str, name: &str) -> Vec<usize> {
    let b = text.as_bytes();
    text.match_indices(name)
        .map(|(i, _)| i)
        .filter(|&i| (i == 0 || !is_word(b[i - 1])) && b.get(i + name.len()).is_none_or(|&c| !is_word(c)))
        .collect()
}

/// `text` with every whole-word `from` replaced by `to`.
pub fn replace_word(text: &str, from: &str, to: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for i in occurrences(text, from) {
        out.push_str(&text[last..i]);
        out.push_str(to);
        last = i + from.len();
    }
    out.push_str(&text[last..]);
    out
}

/// The index of the bracket closing the one opened at `open` (`(`/`[`).
fn closing(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in text[open..].char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + i);
                }
            }
            _ => {}
        }
    }
    None
}

/// `a, b[c, d], e(f, g)` split at its top-level commas, trimmed.
fn split_top(text: &str) -> Vec<String> {
    let (mut out, mut depth, mut cur) = (Vec::new(), 0i32, String::new());
    for c in text.chars() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

pub fn functions(lines: &[String]) -> Vec<Func> {
    let mut out: Vec<Func> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_start();
        let Some(rest) = t.strip_prefix("def ") else { continue };
        let name = rest.split('(').next().unwrap_or("").to_string();
        let deco = if i > 0 { lines[i - 1].as_str() } else { "" };
        let kind = if deco.contains("FunctionType.InCore") {
            "InCore"
        } else if deco.contains("FunctionType.Orchestration") {
            "Orchestration"
        } else {
            "Opaque"
        };
        let open = l.find('(').unwrap_or(0);
        let params = closing(l, open)
            .map(|c| {
                split_top(&l[open + 1..c])
                    .into_iter()
                    .filter(|p| p != "self")
                    .filter_map(|p| p.split_once(':').map(|(n, t)| (n.trim().to_string(), t.trim().to_string())))
                    .collect()
            })
            .unwrap_or_default();
        if let Some(prev) = out.last_mut() {
            prev.end = i - 1;
        }
        out.push(Func { name, kind, def: i, end: lines.len(), params });
    }
    out
}

/// `(name, annotation, value)` of `name = value` / `name: T = value`.
fn binding(line: &str) -> Option<(&str, Option<&str>, &str)> {
    let t = line.trim_start();
    let eq = t.find(" = ")?;
    let lhs = &t[..eq];
    let (name, ann) = match lhs.split_once(':') {
        Some((n, a)) => (n.trim(), Some(a.trim())),
        None => (lhs.trim(), None),
    };
    (!name.is_empty() && name.bytes().all(is_word)).then_some((name, ann, &t[eq + 3..]))
}

/// The destination argument of a store (`pl.store(t, offs, shape, dst)`), when `value` is one.
fn store_dst(value: &str) -> Option<&str> {
    let is_store =
        ["pl.store(", "pl.block.store(", "pl.l0c_store(", "pl.block.l0c_store("].iter().any(|p| value.starts_with(p));
    if !is_store || !value.ends_with(')') {
        return None;
    }
    let open = value.find('(')?;
    let args = split_top(&value[open + 1..value.len() - 1]);
    let last = args.last()?;
    // `pl.store(t, offs, dst)` has no shape, and keyword forms name the destination.
    (args.len() >= 3 && last.bytes().all(is_word)).then(|| {
        let i = value.rfind(last.as_str()).unwrap_or(0);
        &value[i..i + last.len()]
    })
}

/// Appends `, arg` to every call `self.<func>(…)` in `line`.
fn add_call_arg(line: &str, func: &str, arg: &str) -> String {
    let pat = format!("self.{func}(");
    let mut out = line.to_string();
    let mut from = 0;
    while let Some(k) = out[from..].find(&pat).map(|k| k + from) {
        if k > 0 && is_word(out.as_bytes()[k - 1]) {
            from = k + pat.len();
            continue;
        }
        let open = k + pat.len() - 1;
        let Some(close) = closing(&out, open) else { break };
        let empty = out[open + 1..close].trim().is_empty();
        out.insert_str(close, &if empty { arg.to_string() } else { format!(", {arg}") });
        from = close + arg.len() + 2;
    }
    out
}

/// The `def` line with `name: ty` appended to its parameters.
fn add_param(def_line: &str, name: &str, ty: &str) -> String {
    let open = def_line.find('(').unwrap_or(0);
    let close = closing(def_line, open).unwrap_or(def_line.len());
    let mut s = def_line.to_string();
    s.insert_str(close, &format!(", {name}: {ty}"));
    s
}

fn fresh(lines: &[String], base: &str) -> String {
    let all = lines.join("\n");
    (0..)
        .map(|k| if k == 0 { base.to_string() } else { format!("{base}{k}") })
        .find(|n| occurrences(&all, n).is_empty())
        .unwrap()
}

fn join(lines: &[String]) -> String {
    lines.join("\n") + "\n"
}

// ----------------------------------------------------------------------------- the forms

/// The program `text` (genmix `kind`/`seed`) in `form`, or `None` when it has no place for it.
pub fn transform(form: Form, kind: &str, seed: u64, text: &str) -> Option<Transformed> {
    let mut rng = Rng::new(&format!("genforms:{form}:{kind}:{seed}"));
    let lines: Vec<String> = text.lines().map(String::from).collect();
    match form {
        Form::OnePath => one_path(&lines, &mut rng, false),
        Form::Convert => convert(&lines, &mut rng),
        Form::Unbound => unbound(&lines, &mut rng),
        Form::Dyn => dynamic(&lines, &mut rng),
        Form::Break => break_continue(&lines, &mut rng),
    }
}

/// A guarded store of kernel `f`: the store at `line` (`name = store(…, dst)`), returned at
/// position `ret` of the kernel's `return`.
struct StoreSite {
    func: usize,
    line: usize,
    name: String,
    dst: String,
    ret: usize,
}

fn store_sites(lines: &[String], funcs: &[Func]) -> Vec<StoreSite> {
    let mut out = Vec::new();
    for (fi, f) in funcs.iter().enumerate().filter(|(_, f)| f.kind == "InCore") {
        let body = lines[f.def + 1..f.end].join("\n");
        for i in f.def + 1..f.end {
            let l = &lines[i];
            if indent(l) != 8 {
                continue;
            }
            let Some((name, _, value)) = binding(l) else { continue };
            let Some(dst) = store_dst(value) else { continue };
            let out_param =
                f.params.iter().any(|(p, t)| p == dst && (t.starts_with("pl.Out[") || t.starts_with("pl.InOut[")));
            // Read by the `return` only (twice in the body: here and there).
            let ret_line = (i + 1..f.end).find(|&k| lines[k].trim_start().starts_with("return "));
            let Some(rl) = ret_line else { continue };
            let rets = split_top(lines[rl].trim_start().trim_start_matches("return "));
            let Some(ret) = rets.iter().position(|r| r == name) else { continue };
            if out_param && name != dst && occurrences(&body, name).len() == 2 && indent(&lines[rl]) == 8 {
                out.push(StoreSite { func: fi, line: i, name: name.to_string(), dst: dst.to_string(), ret });
            }
        }
    }
    out
}

/// Adds a scalar parameter `flag: ty` to function `fi` and passes `arg(caller)` at every call
/// of it; a caller that needs a new parameter for that gets one (`caller_param`).
fn thread_flag(
    lines: &mut [String],
    funcs: &[Func],
    fi: usize,
    flag: &str,
    ty: &str,
    caller_arg: &mut dyn FnMut(&Func, &mut [String]) -> String,
) {
    let f = &funcs[fi];
    lines[f.def] = add_param(&lines[f.def], flag, ty);
    for g in funcs.iter().filter(|g| g.name != f.name) {
        let pat = format!("self.{}(", f.name);
        if !(g.def + 1..g.end).any(|i| lines[i].contains(&pat)) {
            continue;
        }
        let arg = caller_arg(g, lines);
        for line in lines.iter_mut().take(g.end).skip(g.def + 1) {
            if line.contains(&pat) {
                *line = add_call_arg(line, &f.name, &arg);
            }
        }
    }
}

fn guard_line(lines: &mut Vec<String>, at: usize, cond: &str) {
    let ind = " ".repeat(indent(&lines[at]));
    lines[at] = format!("    {}", lines[at]);
    lines.insert(at, format!("{ind}if {cond}:"));
}

/// `onepath`; with `int_caller` (the `convert` form) the callers pass an integer for the flag.
fn one_path(lines: &[String], rng: &mut Rng, int_caller: bool) -> Option<Transformed> {
    let funcs = functions(lines);
    let sites = store_sites(lines, &funcs);
    let site = rng.pick(&sites)?;
    let mut out = lines.to_vec();
    let f = &funcs[site.func];
    let flag = fresh(lines, "flag");
    let mut given = vec![Given { func: f.name.clone(), param: flag.clone(), value: "true".into() }];
    let mut what = format!("{}: `{}` stored into `{}` only if {flag}", f.name, site.name, site.dst);
    let choice = rng.below(3);
    let mut notes = Vec::new();
    thread_flag(&mut out, &funcs, site.func, &flag, "pl.Scalar[pl.BOOL]", &mut |g, ls| {
        if int_caller {
            // An existing integer parameter of the caller (seeded in [1, 8]: true), a new
            // INT64 parameter, or a literal.
            let ints: Vec<&(String, String)> =
                g.params.iter().filter(|(_, t)| t == "pl.Scalar[pl.INT64]" || t == "pl.Scalar[pl.INT32]").collect();
            match (choice, ints.first()) {
                (0, Some((n, _))) => {
                    notes.push(format!("{} passes its integer `{n}`", g.name));
                    return n.clone();
                }
                (1, _) => {
                    notes.push(format!("{} passes the literal 2", g.name));
                    return "2".into();
                }
                _ => {
                    let p = fresh(ls, "on");
                    ls[g.def] = add_param(&ls[g.def], &p, "pl.Scalar[pl.INT64]");
                    given.push(Given { func: g.name.clone(), param: p.clone(), value: "3".into() });
                    notes.push(format!("{} passes its new INT64 `{p}`", g.name));
                    return p;
                }
            }
        }
        let p = fresh(ls, &flag);
        ls[g.def] = add_param(&ls[g.def], &p, "pl.Scalar[pl.BOOL]");
        given.push(Given { func: g.name.clone(), param: p.clone(), value: "true".into() });
        p
    });
    if !notes.is_empty() {
        what = format!("{what}; {}", notes.join(", "));
    }
    guard_line(&mut out, site.line, &flag);
    Some(Transformed {
        text: join(&out),
        what,
        expect: Expect::Same { reference: join(lines), given, given_ref: Vec::new() },
        flag_false: Some((f.name.clone(), flag, site.dst.clone(), site.ret)),
    })
}

/// `unbound`: a tile or scalar bound only `if flag:` and read after the `if`.
fn unbound(lines: &[String], rng: &mut Rng) -> Option<Transformed> {
    let funcs = functions(lines);
    // (function, line of the binding, line of the first use after it)
    let mut sites = Vec::new();
    for (fi, f) in funcs.iter().enumerate().filter(|(_, f)| f.kind == "InCore") {
        for i in f.def + 1..f.end {
            let l = &lines[i];
            if indent(l) != 8 {
                continue;
            }
            let Some((name, ann, value)) = binding(l) else { continue };
            if store_dst(value).is_some()
                || ann.is_some_and(|a| a.starts_with("pl.Tensor"))
                || value.starts_with("pl.yield_(")
            {
                continue;
            }
            // Its first binding, and the next line that names it reads it.
            let defined_before = (f.def..i).any(|k| !occurrences(&lines[k], name).is_empty());
            let next = (i + 1..f.end).find(|&k| !occurrences(&lines[k], name).is_empty());
            let Some(k) = next else { continue };
            let reads = match binding(&lines[k]) {
                Some((n, _, v)) if n == name => !occurrences(v, name).is_empty(),
                _ => true,
            };
            if !defined_before && reads && !lines[k].trim_start().starts_with("for ") {
                sites.push((fi, i, k, name.to_string()));
            }
        }
    }
    let (fi, at, use_line, name) = rng.pick(&sites)?.clone();
    let mut out = lines.to_vec();
    let flag = fresh(lines, "flag");
    thread_flag(&mut out, &funcs, fi, &flag, "pl.Scalar[pl.BOOL]", &mut |g, ls| {
        let p = fresh(ls, &flag);
        ls[g.def] = add_param(&ls[g.def], &p, "pl.Scalar[pl.BOOL]");
        p
    });
    guard_line(&mut out, at, &flag);
    Some(Transformed {
        text: join(&out),
        what: format!("{}: `{name}` bound only if {flag}, read at line {}", funcs[fi].name, use_line + 2),
        // One line inserted before the use; 1-based.
        expect: Expect::Error { code: "E0314", line: use_line + 2, name },
        flag_false: None,
    })
}

/// A rewrite of one call argument: (index into the arguments, the new argument or the caller's
/// parameter's new type, what it is, inputs of the transformed program, of the reference).
type Rewrite = (usize, String, String, Vec<Given>, Vec<Given>);

/// `convert`: one scalar conversion at a call from an orchestration function.
fn convert(lines: &[String], rng: &mut Rng) -> Option<Transformed> {
    let funcs = functions(lines);
    // (caller, line, callee, argument index, argument text, parameter dtype)
    let mut args = Vec::new();
    for g in funcs.iter().filter(|g| g.kind == "Orchestration") {
        for (i, line) in lines.iter().enumerate().take(g.end).skip(g.def + 1) {
            for f in funcs.iter().filter(|f| f.name != g.name) {
                let pat = format!("self.{}(", f.name);
                let Some(k) = line.find(&pat) else { continue };
                let open = k + pat.len() - 1;
                let Some(close) = closing(line, open) else { continue };
                for (ai, a) in split_top(&line[open + 1..close]).into_iter().enumerate() {
                    let Some((_, pt)) = f.params.get(ai) else { continue };
                    let dt = match pt.as_str() {
                        "pl.Scalar[pl.INT64]" => "INT64",
                        "pl.Scalar[pl.INT32]" => "INT32",
                        _ => continue,
                    };
                    args.push((g.clone(), i, f.name.clone(), ai, a, dt));
                }
            }
        }
    }
    // Rewrites of one argument: (new argument or parameter type, what, given, given_ref).
    let mut options: Vec<Rewrite> = Vec::new();
    for (n, (g, _, callee, _, a, dt)) in args.iter().enumerate() {
        let other = if *dt == "INT64" { "INT32" } else { "INT64" };
        if let Ok(v) = a.parse::<i64>() {
            options.push((
                n,
                format!("pl.const({v}, pl.{other})"),
                format!("{other} for the {dt} parameter"),
                vec![],
                vec![],
            ));
            if v == 1 {
                options.push((n, "True".into(), format!("True for the {dt} parameter"), vec![], vec![]));
            }
        } else if let Some(v) = a.strip_prefix("pl.const(").and_then(|r| r.split(',').next()) {
            options.push((n, v.to_string(), format!("a bare literal for the {dt} parameter"), vec![], vec![]));
        } else if let Some((_, pt)) = g.params.iter().find(|(p, _)| p == a) {
            // A parameter of the caller that only calls read: declared with another dtype.
            let body = lines[g.def + 1..g.end].join("\n");
            let uses = occurrences(&body, a).len();
            let in_calls: usize =
                lines[g.def + 1..g.end].iter().filter(|l| l.contains("self.")).map(|l| occurrences(l, a).len()).sum();
            if uses != in_calls || !pt.starts_with("pl.Scalar[pl.INT") {
                continue;
            }
            let ref_given = |v: &str| vec![Given { func: g.name.clone(), param: a.clone(), value: v.into() }];
            options.push((
                n,
                format!("pl.Scalar[pl.{other}]"),
                format!("{}'s `{a}` declared {other}, passed for the {dt} parameter of {callee}", g.name),
                ref_given("5"),
                ref_given("5"),
            ));
            options.push((
                n,
                "pl.Scalar[pl.BOOL]".into(),
                format!("{}'s `{a}` declared BOOL, passed for the {dt} parameter of {callee}", g.name),
                ref_given("true"),
                ref_given("1"),
            ));
        }
    }
    // The integer-for-BOOL guard competes with the argument rewrites.
    let guarded = !store_sites(lines, &funcs).is_empty()
        && funcs.iter().any(|f| f.kind == "Orchestration")
        && funcs.iter().filter(|f| f.kind == "InCore").all(|f| {
            // Only kernels called from an orchestration (a kernel called nowhere would pass
            // nothing for the flag; it still runs alone).
            funcs.iter().any(|g| {
                g.kind == "Orchestration"
                    && lines[g.def + 1..g.end].iter().any(|l| l.contains(&format!("self.{}(", f.name)))
            })
        });
    // One of the three kinds of conversion that apply, each as likely: an integer for a BOOL
    // (the guard), another integer width, a BOOL for an integer.
    let (bools, widths): (Vec<usize>, Vec<usize>) =
        (0..options.len()).partition(|&i| options[i].2.contains("BOOL") || options[i].1 == "True");
    let mut kinds: Vec<&[usize]> = Vec::new();
    if !widths.is_empty() {
        kinds.push(&widths);
    }
    if !bools.is_empty() {
        kinds.push(&bools);
    }
    let guard_kind = guarded.then_some(kinds.len());
    let n = kinds.len() + usize::from(guarded);
    if n == 0 {
        return None;
    }
    let k = rng.below(n);
    if Some(k) == guard_kind {
        let mut t = one_path(lines, rng, true)?;
        t.what = format!("integer for a BOOL parameter: {}", t.what);
        return Some(t);
    }
    let pick = kinds[k][rng.below(kinds[k].len())];
    let (ai, new, what, given, given_ref) = options.swap_remove(pick);
    let (g, line, callee, index, a, _) = &args[ai];
    let mut out = lines.to_vec();
    if new.starts_with("pl.Scalar[") {
        // Redeclare the caller's parameter.
        let def = &out[g.def];
        let at = def.find(&format!("{a}: pl.Scalar[")).unwrap();
        let end = at + def[at..].find(']').unwrap() + 1;
        out[g.def] = format!("{}{a}: {new}{}", &def[..at], &def[end..]);
    } else {
        let l = &out[*line];
        let pat = format!("self.{callee}(");
        let open = l.find(&pat).unwrap() + pat.len() - 1;
        let close = closing(l, open).unwrap();
        let mut items = split_top(&l[open + 1..close]);
        items[*index] = new.clone();
        out[*line] = format!("{}{}{}", &l[..open + 1], items.join(", "), &l[close..]);
    }
    Some(Transformed {
        text: join(&out),
        what: format!("{}: {what} (argument {} of {callee}: `{a}` → `{new}`)", g.name, index + 1),
        expect: Expect::Same { reference: join(lines), given, given_ref },
        flag_false: None,
    })
}

/// `dyn`: every tensor type's first dimension (and, half of the time, its second) symbolic:
/// one symbol per extent and axis, `M`, `M1`, … and `N`, `N1`, ….
fn dynamic(lines: &[String], rng: &mut Rng) -> Option<Transformed> {
    let funcs = functions(lines);
    let both = rng.below(2) == 0;
    let mut symbols: Vec<(usize, String, String)> = Vec::new(); // (axis, extent, symbol)
    let mut out = lines.to_vec();
    let mut changed = false;
    for f in &funcs {
        for line in out.iter_mut().take(f.end).skip(f.def) {
            let mut s = String::new();
            let mut rest = line.as_str();
            while let Some(k) = rest.find("pl.Tensor[[") {
                s.push_str(&rest[..k + 11]);
                rest = &rest[k + 11..];
                let Some(e) = rest.find(']') else { break };
                let dims: Vec<String> = rest[..e].split(',').map(|d| d.trim().to_string()).collect();
                let new: Vec<String> = dims
                    .iter()
                    .enumerate()
                    .map(|(axis, d)| {
                        if dims.len() != 2 || (axis == 1 && !both) || d.parse::<u64>().is_err() {
                            return d.clone();
                        }
                        if let Some((_, _, sym)) = symbols.iter().find(|(a, x, _)| *a == axis && x == d) {
                            return sym.clone();
                        }
                        let base = if axis == 0 { "M" } else { "N" };
                        let k = symbols.iter().filter(|(a, _, _)| *a == axis).count();
                        let sym = if k == 0 { base.to_string() } else { format!("{base}{k}") };
                        symbols.push((axis, d.clone(), sym.clone()));
                        sym
                    })
                    .collect();
                changed |= new != dims;
                s.push_str(&new.join(", "));
                rest = &rest[e..];
            }
            s.push_str(rest);
            *line = s;
        }
    }
    if !changed || symbols.iter().any(|(_, _, s)| lines.iter().any(|l| !occurrences(l, s).is_empty())) {
        return None;
    }
    // Larger extents than the original's (more rows; columns by 32 elements, which keeps every
    // row aligned for every dtype), then the original ones: the execution tests run these
    // programs on their first input set only, where the shapes differ from the static ones.
    let dims: Vec<String> = symbols
        .iter()
        .map(|(axis, x, s)| {
            let v: u64 = x.parse().unwrap();
            format!("{s}={},{v}", if *axis == 0 { v + 16 } else { v + 32 })
        })
        .collect();
    out.push(format!("# exec-dims: {}", dims.join(" ")));
    let syms: Vec<String> = symbols.iter().map(|(_, x, s)| format!("{s} (was {x})")).collect();
    Some(Transformed {
        text: join(&out),
        what: format!("symbolic dimensions {}", syms.join(", ")),
        expect: Expect::SameOnInputs { reference: join(lines) },
        flag_false: None,
    })
}

/// A kernel loop `for i, (acc,) in pl.range(S, E, ST, init_values=(p,)):` at the top of the
/// body, with `p` a parameter and a body that ends in `x = pl.yield_(r)`.
struct CarriedLoop {
    func: usize,
    header: usize,
    /// One past the body's last line (the yield).
    end: usize,
    var: String,
    acc: String,
    init: String,
    range: (i64, i64, i64),
    result: String,
    yielded: String,
}

fn carried_loops(lines: &[String], funcs: &[Func]) -> Vec<CarriedLoop> {
    let mut out = Vec::new();
    for (fi, f) in funcs.iter().enumerate().filter(|(_, f)| f.kind == "InCore") {
        for h in f.def + 1..f.end {
            let l = &lines[h];
            if indent(l) != 8 {
                continue;
            }
            let Some(rest) = l.trim_start().strip_prefix("for ") else { continue };
            let Some((var, rest)) = rest.split_once(", (") else { continue };
            let Some((acc, rest)) = rest.split_once(",) in pl.range(") else { continue };
            let Some((args, rest)) = rest.split_once(", init_values=(") else { continue };
            let Some(init) = rest.strip_suffix(",)):") else { continue };
            let nums: Vec<i64> = args.split(',').filter_map(|a| a.trim().parse().ok()).collect();
            if nums.len() != 3 || args.split(',').count() != 3 || nums[2] <= 0 {
                continue;
            }
            if !f.params.iter().any(|(p, _)| p == init) {
                continue;
            }
            let end = (h + 1..f.end).find(|&k| indent(&lines[k]) <= 8).unwrap_or(f.end);
            let Some((result, _, value)) = binding(&lines[end - 1]) else { continue };
            if indent(&lines[end - 1]) != 12 {
                continue;
            }
            let Some(yielded) = value.strip_prefix("pl.yield_(").and_then(|v| v.strip_suffix(')')) else { continue };
            if !yielded.bytes().all(is_word) {
                continue;
            }
            out.push(CarriedLoop {
                func: fi,
                header: h,
                end,
                var: var.to_string(),
                acc: acc.to_string(),
                init: init.to_string(),
                range: (nums[0], nums[1], nums[2]),
                result: result.to_string(),
                yielded: yielded.to_string(),
            });
        }
    }
    out
}

/// `break`: the loop as a natural loop (stores into the parameter itself, the last store's
/// result used after the loop) with a `break` or `continue` under a condition on the index.
fn break_continue(lines: &[String], rng: &mut Rng) -> Option<Transformed> {
    let funcs = functions(lines);
    let loops: Vec<CarriedLoop> = carried_loops(lines, &funcs)
        .into_iter()
        .filter(|c| (c.range.1 - c.range.0 + c.range.2 - 1) / c.range.2 >= 2)
        .collect();
    let c = rng.pick(&loops)?;
    let f = &funcs[c.func];
    let (s, e, st) = c.range;
    let trips = (e - s + st - 1) / st;
    let k = s + (1 + rng.below(trips as usize - 1) as i64) * st;
    let body: Vec<String> = lines[c.header + 1..c.end - 1].iter().map(|l| replace_word(l, &c.acc, &c.init)).collect();
    let stores: Vec<usize> = (0..body.len())
        .filter(|&i| indent(&body[i]) == 12 && binding(&body[i]).is_some_and(|b| store_dst(b.2).is_some()))
        .collect();
    // Where the statement goes: the top of the body, or (break) after its last store, or
    // (continue) before its first store.
    let brk = |at: usize, stop: i64, what: &'static str| ("break", format!("{} >= {k}", c.var), at, (s, stop), what);
    let cont = |at: usize, what: &'static str| ("continue", format!("{} < {k}", c.var), at, (k, e), what);
    let mut variants = vec![brk(0, k, "break at the top"), cont(0, "continue at the top")];
    if let (Some(&first), Some(&last)) = (stores.first(), stores.last()) {
        variants.push(brk(last + 1, k + 1, "break after the last store"));
        variants.push(cont(first, "continue before the first store"));
    }
    let (stmt, cond, at, new_range, what) = variants.swap_remove(rng.below(variants.len()));
    let mut out: Vec<String> = lines[..c.header].to_vec();
    out.push(format!("        for {} in pl.range({s}, {e}, {st}):", c.var));
    for (i, l) in body.iter().enumerate() {
        if i == at {
            out.push(format!("            if {cond}:"));
            out.push(format!("                {stmt}"));
        }
        out.push(l.clone());
    }
    if at == body.len() {
        out.push(format!("            if {cond}:"));
        out.push(format!("                {stmt}"));
    }
    let after = replace_word(&c.yielded, &c.acc, &c.init);
    for (i, l) in lines.iter().enumerate().skip(c.end) {
        out.push(if i < f.end { replace_word(l, &c.result, &after) } else { l.clone() });
    }
    // The reference: the original loop over the iterations the transformed one completes.
    let mut reference = lines.to_vec();
    let h = &reference[c.header];
    let old = format!("pl.range({s}, {e}, {st},");
    reference[c.header] = h.replace(&old, &format!("pl.range({}, {}, {st},", new_range.0, new_range.1));
    Some(Transformed {
        text: join(&out),
        what: format!("{}: loop over {} as a natural loop, {what}: `if {cond}: {stmt}`", f.name, c.var),
        expect: Expect::Same { reference: join(&reference), given: vec![], given_ref: vec![] },
        flag_false: None,
    })
}
