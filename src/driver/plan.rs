//! Which passes a run executes: `--passes` or `--pipeline`, cut after `--stop-after`.
//! Pass-name problems are usage errors (exit 2) reported as [`codes::UNKNOWN_PASS`].

use crate::diag::{codes, Diagnostic, Span};
use crate::passes::{self, OptLevel, PassInfo, Pipeline};

/// Resolves the pass list of a run. `passes` (from `--passes`) replaces the pipeline's list
/// (at any `-O`); empty names are dropped, so `--passes ''` runs no pass.
pub fn resolve(
    pipeline: Pipeline,
    opt: OptLevel,
    passes: Option<&[String]>,
    stop_after: Option<&str>,
) -> Result<Vec<&'static PassInfo>, Diagnostic> {
    let mut list = match passes {
        Some(names) => names
            .iter()
            .map(|n| n.trim())
            .filter(|n| !n.is_empty())
            .map(|n| passes::lookup(n).ok_or_else(|| unknown_pass(n, "--passes")))
            .collect::<Result<Vec<_>, _>>()?,
        None => pipeline.passes_at(opt),
    };
    if let Some(stop) = stop_after {
        let target = passes::lookup(stop.trim()).ok_or_else(|| unknown_pass(stop, "--stop-after"))?;
        let at = list.iter().position(|p| std::ptr::eq(*p, target)).ok_or_else(|| {
            let run: Vec<&str> = list.iter().map(|p| p.name).collect();
            let run = if run.is_empty() { "no passes".to_string() } else { run.join(", ") };
            Diagnostic::error(
                codes::UNKNOWN_PASS,
                Span::NONE,
                format!("--stop-after `{stop}`: that pass is not part of this run"),
            )
            .with_note(format!("this run's passes: {run}"))
        })?;
        list.truncate(at + 1);
    }
    Ok(list)
}

/// `--stop-before PASS`: the run ends just before the first run of that pass.
pub fn stop_before(mut list: Vec<&'static PassInfo>, stop: Option<&str>) -> Result<Vec<&'static PassInfo>, Diagnostic> {
    let Some(stop) = stop else { return Ok(list) };
    let target = passes::lookup(stop.trim()).ok_or_else(|| unknown_pass(stop, "--stop-before"))?;
    let at = list.iter().position(|p| std::ptr::eq(*p, target)).ok_or_else(|| {
        Diagnostic::error(
            codes::UNKNOWN_PASS,
            Span::NONE,
            format!("--stop-before `{stop}`: that pass is not part of this run"),
        )
    })?;
    list.truncate(at);
    Ok(list)
}

/// The dump flags, with their pass names checked.
pub fn dump_spec(cli: &super::cli::Cli) -> Result<super::dumps::DumpSpec, Diagnostic> {
    let look = |names: &[String], flag: &str| -> Result<Vec<&'static PassInfo>, Diagnostic> {
        names.iter().map(|n| passes::lookup(n.trim()).ok_or_else(|| unknown_pass(n, flag))).collect()
    };
    Ok(super::dumps::DumpSpec {
        after_all: cli.print_after_all,
        before_all: cli.print_before_all,
        after: look(&cli.print_after, "--print-after")?,
        before: look(&cli.print_before, "--print-before")?,
        changed: cli.print_changed,
        funcs: cli.filter_print_funcs.clone(),
    })
}

fn unknown_pass(name: &str, flag: &str) -> Diagnostic {
    let known: Vec<&str> = passes::PASSES.iter().map(|p| p.name).collect();
    let d = Diagnostic::error(codes::UNKNOWN_PASS, Span::NONE, format!("{flag}: unknown pass `{name}`"));
    let d = match crate::suggest::suggest_spelling(name, known.iter().copied()) {
        Some(p) => d.with_note(format!("help: did you mean `{p}`?")),
        None => d,
    };
    d.with_note(format!("known passes: {}", known.join(", ")))
        .with_note("the reference's CamelCase names (ConvertToSSA, MemoryReuse, …) are accepted too; see --list-passes")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve_o0(
        pipeline: Pipeline,
        passes: Option<&[String]>,
        stop_after: Option<&str>,
    ) -> Result<Vec<&'static PassInfo>, Diagnostic> {
        resolve(pipeline, OptLevel::O0, passes, stop_after)
    }

    #[test]
    fn o1_runs_remove_redundant_sync_after_insert_sync() {
        let got = names(resolve(Pipeline::Default, OptLevel::O1, None, None));
        assert_eq!(got.len(), 13);
        assert_eq!(got[10..12], ["insert-sync", "remove-redundant-sync"]);
        let p = strings(&["insert-sync"]);
        assert_eq!(names(resolve(Pipeline::Default, OptLevel::O1, Some(&p), None)), ["insert-sync"]);
    }

    fn names(r: Result<Vec<&'static PassInfo>, Diagnostic>) -> Vec<&'static str> {
        r.unwrap().iter().map(|p| p.name).collect()
    }
    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn pipeline_lists() {
        assert_eq!(names(resolve_o0(Pipeline::Default, None, None)).len(), 11);
        assert!(names(resolve_o0(Pipeline::None, None, None)).is_empty());
    }

    #[test]
    fn passes_replace_the_pipeline_and_accept_aliases() {
        let p = strings(&["MemoryReuse", " convert-to-ssa", ""]);
        assert_eq!(names(resolve_o0(Pipeline::Default, Some(&p), None)), ["basic-memory-reuse", "convert-to-ssa"]);
        assert!(names(resolve_o0(Pipeline::Default, Some(&[]), None)).is_empty());
    }

    #[test]
    fn stop_after_truncates_at_first_occurrence() {
        let got = names(resolve_o0(Pipeline::Default, None, Some("FlattenCallExpr")));
        assert_eq!(
            got,
            ["convert-to-ssa", "outline-incore-scopes", "convert-tensor-to-block-ops", "flatten-call-expr"]
        );
        let p = strings(&["flatten-single-stmt", "normalize-stmt-structure", "flatten-single-stmt"]);
        assert_eq!(names(resolve_o0(Pipeline::None, Some(&p), Some("flatten-single-stmt"))), ["flatten-single-stmt"]);
    }

    #[test]
    fn unknown_names_are_reported_with_the_known_list() {
        let e = resolve_o0(Pipeline::None, Some(&strings(&["convert-to-ssa", "bogus"])), None).unwrap_err();
        assert_eq!(e.code, codes::UNKNOWN_PASS);
        assert!(e.message.contains("`bogus`"));
        assert!(e.notes[0].contains("insert-sync"));
        let e = resolve_o0(Pipeline::Default, None, Some("bogus")).unwrap_err();
        assert!(e.message.contains("--stop-after"));
    }

    #[test]
    fn stop_after_a_pass_outside_the_run_is_an_error() {
        let e = resolve_o0(Pipeline::Ptoas, None, Some("insert-sync")).unwrap_err();
        assert_eq!(e.code, codes::UNKNOWN_PASS);
        assert!(e.message.contains("not part of this run"));
        let e = resolve_o0(Pipeline::None, None, Some("insert-sync")).unwrap_err();
        assert!(e.notes[0].contains("no passes"));
    }
}
