//! `ptoc --list-ops [NAME]`: the operator table as a user reads it — every operator (or the one
//! named, by IR name or any spelling) with its spellings, arguments, keyword arguments and their
//! defaults, result rule, pipes and the instructions of both code generators. Everything printed
//! comes from the operator table (`src/ops/table.rs`), so it cannot drift from what ptoc does.

use crate::ir::OpId;
use crate::ops::table::{entries, KwDefault, KwKind, OpDef, Slot};

/// The listing; `None` when `name` names no operator.
pub fn list(name: Option<&str>) -> Option<String> {
    let wanted = |id: OpId, d: &OpDef| match name {
        None => true,
        Some(n) => {
            let n = n.trim().trim_start_matches("pl.");
            d.name == n
                || d.printed == n
                || d.unified.contains(&n)
                || d.aliases.contains(&n)
                || d.short_name() == n
                || crate::ops::today_spellings(id).contains(&n)
        }
    };
    let mut out = String::new();
    for (id, d) in entries().filter(|(id, d)| wanted(*id, d)) {
        describe(id, d, &mut out);
    }
    if let Some(n) = name.map(|n| n.trim().trim_start_matches("pl.")).filter(|_| out.is_empty()) {
        if let Some(why) = crate::ops::refused::refused(n) {
            out.push_str(&format!("{n}\n  today's PyPTO operator, refused at the call: {why}\n"));
        }
    }
    (!out.is_empty()).then_some(out)
}

/// The IR name of every operator, in the table's order.
pub fn names() -> Vec<&'static str> {
    entries().map(|(_, d)| d.name).collect()
}

/// Every operator name and spelling, for "did you mean".
pub fn all_names() -> Vec<&'static str> {
    let mut names = Vec::new();
    for (id, d) in entries() {
        names.push(d.name);
        names.extend(d.unified.iter().copied());
        names.extend(crate::ops::today_spellings(id));
    }
    names
}

fn describe(id: OpId, d: &OpDef, out: &mut String) {
    out.push_str(d.name);
    out.push('\n');
    let mut spellings = vec![format!("pl.{}", d.printed)];
    spellings.extend(d.aliases.iter().map(|a| format!("pl.{}.{a}", d.category.prefix())));
    spellings.extend(d.unified.iter().map(|u| format!("pl.{u}")));
    spellings.dedup();
    out.push_str(&format!("  spellings:  {}\n", spellings.join(", ")));
    // Today's PyPTO (upstream HEAD) spellings; docs/language.md, "Today's PyPTO spellings".
    let today = crate::ops::today_spellings(id);
    if !today.is_empty() {
        let today: Vec<String> = today.iter().map(|s| format!("pl.{s}")).collect();
        out.push_str(&format!("  today:      {}\n", today.join(", ")));
        for s in crate::ops::today_spellings(id) {
            let about = crate::ops::today_form(s).map_or("", |f| f.about());
            if !about.is_empty() {
                out.push_str(&format!("  pl.{s}{about}\n"));
            }
        }
    }
    if let Some(why) = d.high_precision {
        out.push_str(&format!("  high_precision: today's keyword; False is this op, True is refused: {why}\n"));
    }
    let params: Vec<String> = d
        .params
        .iter()
        .map(|p| match p.slot {
            Slot::Arg { expect, .. } if p.optional => format!("{}: {expect:?} = None", p.name),
            Slot::Arg { expect, .. } => format!("{}: {expect:?}", p.name),
            Slot::Kw => match d.kwarg(p.name) {
                Some(k) => format!("{}={}", p.name, kw_value(k.kind, k.default, k.required)),
                None => format!("{}=…", p.name),
            },
        })
        .collect();
    out.push_str(&format!("  call:       pl.{}({})\n", d.printed, params.join(", ")));
    for p in d.params.iter().filter(|p| !p.about.is_empty()) {
        out.push_str(&format!("  {}: {}\n", p.name, p.about));
    }
    out.push_str(&format!("  result:     {:?}\n", d.rule));
    let pipe = |p: Option<crate::ir::PipeType>| p.map_or("—", |p| p.name());
    out.push_str(&format!("  pipes:      CCE {}, PTO {}\n", pipe(d.pipe_cce), pipe(d.pipe_pto)));
    let cce = d.cce.map_or_else(|| "— (no CCE form)".to_string(), |e| e.instructions());
    out.push_str(&format!("  C++:        {cce}\n"));
    let pto = d.pto.and_then(|e| e.instruction()).unwrap_or("— (no PTO form)");
    out.push_str(&format!("  PTO-ISA:    {pto}\n"));
}

/// A keyword argument's value as the listing shows it: its default, else what it must be.
fn kw_value(kind: KwKind, default: Option<KwDefault>, required: bool) -> String {
    match default {
        Some(KwDefault::Int(v)) => v.to_string(),
        Some(KwDefault::Bool(b)) => if b { "True" } else { "False" }.to_string(),
        Some(KwDefault::Space(s)) => format!("pl.MemorySpace.{}", s.name()),
        Some(KwDefault::DType(d)) => format!("pl.{}", d.name()),
        None => {
            let what = match kind {
                KwKind::Int => "int",
                KwKind::Bool => "bool",
                KwKind::Str => "str",
                KwKind::Float => "float",
                KwKind::DType => "dtype",
                KwKind::Space(_) => "memory space",
                KwKind::Mode => "rounding mode",
                KwKind::Cmp => "comparison",
                KwKind::Pipe => "pipe",
                KwKind::Pad => "pad value",
            };
            if required {
                format!("<{what}, required>")
            } else {
                format!("<{what}>")
            }
        }
    }
}

/// `docs/ops.md`: the listing of every operator as a Markdown reference, grouped by category
/// (what `--list-ops` prints, one section per operator).
#[cfg(test)]
pub fn ops_markdown() -> String {
    let mut out = String::from(
        "# Operators\n\n\
         Generated from the operator table (`src/ops/table.rs`) by `ptoc::driver::list_ops`; do not\n\
         edit: `PTOC_UPDATE_DOCS=1 cargo test --lib ops_doc` rewrites it, and `cargo test` fails when\n\
         it is stale. `ptoc --list-ops NAME` prints one entry (by IR name or any spelling).\n\n\
         For each operator: its IR name; the spellings that reach it in `.pto` text (`today`: the\n\
         spellings of today's PyPTO, see language.md, \"Today's PyPTO spellings\"); the call with\n\
         its positional arguments (what each must be) and keyword arguments with their defaults\n\
         (`<int>` without a default: optional; `required`: must be given); the result type rule\n\
         (described in [language.md](language.md)); the pipe that runs it with the CCE and the PTO\n\
         backend (`S` is the scalar unit, `—` nothing on the device); the pto-isa C++ instructions\n\
         (tile layouts they need: [ops-cpp.md](ops-cpp.md)) and the PTO-ISA instruction. The memory\n\
         spaces (`Vec`, `Mat`, `Left`, `Right`, `Acc`, `DDR`) are described in\n\
         [language.md](language.md).\n",
    );
    let mut category = None;
    for (id, d) in entries() {
        let prefix = d.category.prefix();
        if category != Some(prefix) {
            category = Some(prefix);
            out.push_str(&format!("\n## `pl.{prefix}.*`\n"));
        }
        let mut entry = String::new();
        describe(id, d, &mut entry);
        let (name, body) = entry.split_once('\n').unwrap_or((&entry, ""));
        out.push_str(&format!("\n### `{name}`\n\n```text\n{}```\n", body.replace("\n  ", "\n").trim_start()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `docs/ops.md` is what [`ops_markdown`] generates; `PTOC_UPDATE_DOCS=1` rewrites it.
    #[test]
    fn ops_doc_is_up_to_date() {
        crate::ops::check_generated_doc("ops.md", &ops_markdown(), "ops_doc");
    }

    /// An operator is found by its spelling of today's PyPTO, and its entry shows both.
    #[test]
    fn todays_spellings_are_listed() {
        let entry = list(Some("pl.tile.create")).unwrap();
        assert!(entry.starts_with("block.create_tile\n"), "{entry}");
        assert!(entry.contains("spellings:  pl.block.create_tile"), "{entry}");
        assert!(entry.contains("today:      pl.tile.create, pl.tile.create_tile"), "{entry}");
        let store = list(Some("block.store")).unwrap();
        assert!(store.contains("pl.store(tile, offsets, output_tensor[, shapes])"), "{store}");
        // Today's `pl.tile.view` is not be8155433's view (it is `tile.slice` there).
        assert!(!list(Some("block.view")).unwrap().contains("today:"));
    }

    #[test]
    fn row_max_explains_its_scratch_tile() {
        let entry = list(Some("pl.row_max")).unwrap();
        assert!(entry.contains("tmp_tile: a scratch tile"), "{entry}");
    }

    #[test]
    fn one_operator_by_any_spelling() {
        let by_name = list(Some("block.load")).unwrap();
        assert_eq!(list(Some("pl.load")).unwrap(), by_name);
        assert!(by_name.contains("target_memory=pl.MemorySpace.Vec"), "{by_name}");
        assert!(by_name.contains("pipes:      CCE MTE2"), "{by_name}");
        assert!(by_name.contains("PTO-ISA:    pto.tload"), "{by_name}");
        assert!(list(Some("no_such_op")).is_none());
        let all = list(None).unwrap();
        assert_eq!(all.lines().filter(|l| !l.starts_with(' ')).count(), entries().count());
    }
}
