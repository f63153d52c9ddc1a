//! What the pass manager runs around passes, in two kinds (the shape of MLIR's
//! `PassInstrumentation`, split by what may run inside a chain of function passes):
//!
//! - an [`Instrument`] sees the whole program between passes: observers (dumps, timings,
//!   statistics, findings) and `--verify-each`. Instruments run only pass by pass, so a run
//!   with any instrument besides the manager's own checks makes no chains.
//! - a [`FunctionCheck`] looks at one function at a time: the automatic verification and the
//!   sync postcondition. The manager runs it after a pass on every function, or inside a chain
//!   on each function as it comes out of the pass, so each check is written once.

use crate::diag::{codes, Diagnostic};
use crate::ir::{Function, Program};
use crate::passes::PassInfo;
use crate::verify::{self, VerifyDiagnostic};

/// One pass done, as an [`Instrument`] sees it.
pub struct Step<'p> {
    /// 1-based position of the pass in the list.
    pub position: usize,
    pub pass: &'static PassInfo,
    /// The program after the pass.
    pub program: &'p Program,
    /// What the pass found (empty for passes without findings).
    pub findings: &'p [VerifyDiagnostic],
}

/// Called around each pass of a run, pass by pass. An error from a hook ends the run with it.
pub trait Instrument {
    /// Before the pass at `position` (1-based) runs on `prog`.
    fn before_pass(&mut self, _position: usize, _pass: &'static PassInfo, _prog: &Program) -> Hooked {
        Ok(())
    }
    /// After a pass succeeded.
    fn after_pass(&mut self, _step: Step<'_>) -> Hooked {
        Ok(())
    }
    /// After a pass failed with `diags` (the run's error, which the hook may annotate).
    fn after_failed(&mut self, _position: usize, _pass: &'static PassInfo, _diags: &mut Vec<Diagnostic>) {}
}

/// What an instrument's hook returns.
pub type Hooked = Result<(), Vec<Diagnostic>>;

/// A closure is an observer: it sees each step and fails nothing.
impl<F: FnMut(Step<'_>)> Instrument for F {
    fn after_pass(&mut self, step: Step<'_>) -> Hooked {
        self(step);
        Ok(())
    }
}

/// What a [`FunctionCheck`] found wrong with one function.
pub enum Found {
    /// Ready diagnostics.
    Diagnostics(Vec<Diagnostic>),
    /// Verifier findings, rule by rule (see [`verify::check_rules`]), which the check's report
    /// gathers over the functions into one diagnostic.
    Findings(Vec<Vec<VerifyDiagnostic>>),
}

/// A check of one function around the passes of a list (indices `k` are 0-based positions).
/// Shared by the threads of a run, so its state (if any) is behind a lock.
pub trait FunctionCheck: Sync {
    /// Before pass `k` runs on `f`: note what the check needs from the pass's input.
    fn before(&self, _k: usize, _f: &Function) {}
    /// After pass `k` made `f`: what is wrong with it, if anything.
    fn after(&self, k: usize, f: &Function) -> Option<Found>;
    /// The run's error at pass `k`, from what the failing functions had, in function order.
    fn report(&self, k: usize, found: Vec<Found>) -> Vec<Diagnostic>;
}

/// `--verify-each`: before a pass, checks the properties it requires; after it, the properties
/// it promises to produce — with the verifier rules that exist for them (SSAVerify, TypeCheck,
/// NoNestedCall), like the reference's `VerificationInstrument(BEFORE_AND_AFTER)`.
pub struct VerifyEach;

impl Instrument for VerifyEach {
    fn before_pass(&mut self, _position: usize, pass: &'static PassInfo, prog: &Program) -> Hooked {
        check_properties(prog, pass, pass.required, "Pre-verification failed before")
    }
    fn after_pass(&mut self, step: Step<'_>) -> Hooked {
        check_properties(step.program, step.pass, step.pass.produced, "Post-verification failed after")
    }
}

fn check_properties(prog: &Program, pass: &PassInfo, props: &[crate::passes::Property], what: &str) -> Hooked {
    let rules = super::rules_for(props);
    if rules.is_empty() {
        return Ok(());
    }
    let found = verify::verify(prog, &rules);
    if found.is_empty() {
        return Ok(());
    }
    Err(found
        .into_iter()
        .map(|v| {
            // The reference's wording (§1.5), one diagnostic per finding so each has its span.
            let msg = format!(
                "{what} pass '{}': {} ({}): {}",
                pass.reference_name(),
                v.rule.rule_name(),
                v.error_code,
                v.message
            );
            Diagnostic::error(codes::VERIFY_FAILED, v.span, msg)
        })
        .collect())
}
