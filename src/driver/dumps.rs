//! What the IR dump flags ask for (`--print-after-all`, `--print-after=PASS`,
//! `--print-before-all`, `--print-before=PASS`, `--print-changed`, `--filter-print-funcs=F`),
//! as LLVM's `opt` spells them, and `--time-passes`. The dumps go to stderr between the passes'
//! findings, each after a header line `# ==== after-NN-<pass> ====` (or `before-NN-`), NN the
//! 1-based position of the pass in the run.

use std::time::{Duration, Instant};

use crate::ir::Program;
use crate::passes::PassInfo;
use crate::printer;

/// Which programs to dump.
#[derive(Default)]
pub struct DumpSpec {
    pub after_all: bool,
    pub before_all: bool,
    pub after: Vec<&'static PassInfo>,
    pub before: Vec<&'static PassInfo>,
    /// Only after passes that changed the printed program (with the after flags; alone it means
    /// after every pass that changed it).
    pub changed: bool,
    /// Print only these functions (all when empty).
    pub funcs: Vec<String>,
}

impl DumpSpec {
    pub fn is_empty(&self) -> bool {
        !self.after_all && !self.before_all && self.after.is_empty() && self.before.is_empty() && !self.changed
    }

    fn wants_after(&self, pass: &PassInfo) -> bool {
        self.after_all
            || self.after.iter().any(|p| std::ptr::eq(*p, pass))
            || (self.changed && self.after.is_empty() && !self.before_all && self.before.is_empty())
    }

    fn wants_before(&self, pass: &PassInfo) -> bool {
        self.before_all || self.before.iter().any(|p| std::ptr::eq(*p, pass))
    }

    /// The program as dumped: the whole program, or only the functions asked for.
    fn text(&self, prog: &Program) -> String {
        if self.funcs.is_empty() {
            return printer::print_program(prog);
        }
        let mut out = String::new();
        for f in prog.functions.iter().filter(|f| self.funcs.contains(&f.name)) {
            out.push_str(&printer::print_function(f));
            out.push('\n');
        }
        out.trim_end_matches('\n').to_string()
    }
}

/// The dumps of one run, as the passes go.
pub struct Dumper<'s> {
    spec: &'s DumpSpec,
    /// The text of the program before the current pass (kept only for `--print-changed`).
    last: Option<String>,
}

impl<'s> Dumper<'s> {
    /// A run's dumps as `spec` asks for them.
    pub fn new(spec: &'s DumpSpec) -> Dumper<'s> {
        Dumper { spec, last: None }
    }

    /// Pass number `position` (1-based) is about to run on `prog`.
    pub fn before(&mut self, position: usize, pass: &PassInfo, prog: &Program, out: &mut String) {
        if self.spec.changed && self.last.is_none() {
            self.last = Some(self.spec.text(prog));
        }
        if self.spec.wants_before(pass) {
            push_dump(out, &format!("# ==== before-{position:02}-{} ====", pass.name), &self.spec.text(prog));
        }
    }

    /// Pass number `position` (1-based) left `prog`.
    pub fn after(&mut self, position: usize, pass: &PassInfo, prog: &Program, out: &mut String) {
        if self.spec.wants_after(pass) {
            let text = self.spec.text(prog);
            let changed = self.last.as_ref().is_none_or(|l| *l != text);
            if !self.spec.changed || changed {
                push_dump(out, &dump_header(position, pass.name), &text);
            }
            if self.spec.changed {
                self.last = Some(text);
            }
        } else if self.spec.changed {
            self.last = Some(self.spec.text(prog));
        }
    }
}

fn push_dump(out: &mut String, header: &str, text: &str) {
    out.push_str(header);
    out.push('\n');
    out.push_str(text);
    out.push('\n');
}

/// `--time-passes`: how long each step of a run took, in order.
#[derive(Default)]
pub struct Timings {
    rows: Vec<(String, Duration)>,
    mark: Option<Instant>,
}

impl Timings {
    /// Starts timing the next step.
    pub fn start(&mut self) {
        self.mark = Some(Instant::now());
    }

    /// Ends the step begun by the last [`Timings::start`] (or the last `stop`), naming it.
    pub fn stop(&mut self, what: &str) {
        let now = Instant::now();
        if let Some(m) = self.mark {
            self.rows.push((what.to_string(), now - m));
        }
        self.mark = Some(now);
    }

    /// The table: one line per step with milliseconds and share of the total, then the total.
    pub fn render(&self) -> String {
        let total: Duration = self.rows.iter().map(|(_, d)| *d).sum();
        let width = self.rows.iter().map(|(w, _)| w.len()).max().unwrap_or(5).max(5);
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let mut out = format!("# ==== time-passes ====\n{:<width$}  {:>10}  {:>6}\n", "step", "ms", "%");
        for (what, d) in &self.rows {
            let share = if total.is_zero() { 0.0 } else { 100.0 * d.as_secs_f64() / total.as_secs_f64() };
            out.push_str(&format!("{what:<width$}  {:>10.3}  {share:>5.1}%\n", ms(*d)));
        }
        out.push_str(&format!("{:<width$}  {:>10.3}  {:>5.1}%\n", "total", ms(total), 100.0));
        out
    }
}

/// The line before each `--print-after-all` dump (`position` is 1-based).
pub fn dump_header(position: usize, pass: &str) -> String {
    format!("# ==== after-{position:02}-{pass} ====")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dump_header_matches_corpus_stage_names() {
        assert_eq!(dump_header(3, "run-verifier"), "# ==== after-03-run-verifier ====");
        assert_eq!(dump_header(12, "x"), "# ==== after-12-x ====");
    }

    #[test]
    fn timings_table_lists_steps_and_total() {
        let mut t = Timings::default();
        t.start();
        t.stop("parse+lower");
        t.stop("convert-to-ssa");
        let table = t.render();
        assert!(table.starts_with("# ==== time-passes ====\n"), "{table}");
        assert!(table.contains("parse+lower"), "{table}");
        assert!(table.contains("convert-to-ssa"), "{table}");
        assert!(table.lines().last().unwrap().starts_with("total"), "{table}");
    }

    #[test]
    fn changed_alone_means_after_every_pass() {
        let spec = DumpSpec { changed: true, ..DumpSpec::default() };
        let pass = crate::passes::lookup("insert-sync").unwrap();
        assert!(spec.wants_after(pass));
        let other = crate::passes::lookup("init-mem-ref").unwrap();
        let spec = DumpSpec { changed: true, after: vec![other], ..DumpSpec::default() };
        assert!(!spec.wants_after(pass));
        assert!(spec.wants_after(other));
    }
}
