//! The automatic verification of a named pipeline (spec §1.6): after a pass that produces one
//! of the automatically checked properties, that property's rules run on every function.

use super::instrument::{Found, FunctionCheck};
use crate::diag::{codes, Diagnostic};
use crate::ir::Function;
use crate::passes::{PassInfo, Property};
use crate::verify::{self, VerifyDiagnostic};

/// The properties a pipeline verifies by itself (§1.6).
const AUTO_VERIFIED: &[Property] = &[Property::SsaForm, Property::TypeChecked, Property::AllocatedMemoryAddr];

/// For each pass of a list, the properties to verify after it, decided before any runs.
pub struct AutoVerify {
    passes: Vec<&'static PassInfo>,
    todo: Vec<Vec<Property>>,
}

impl AutoVerify {
    pub fn new(passes: &[&'static PassInfo]) -> AutoVerify {
        // Pass by pass: forget what the pass invalidated, then verify what it produced that is
        // not verified yet. Like the reference, this checks SSAForm and TypeChecked after
        // convert-to-ssa and nothing more until a pass produces them again.
        let mut verified: Vec<Property> = Vec::new();
        let mut todo = Vec::new();
        for pass in passes {
            verified.retain(|p| !pass.invalidated.contains(p));
            let new: Vec<Property> =
                AUTO_VERIFIED.iter().copied().filter(|p| pass.produced.contains(p) && !verified.contains(p)).collect();
            let rules = super::rules_for(&new);
            verified.extend(rules.iter().copied());
            todo.push(rules);
        }
        AutoVerify { passes: passes.to_vec(), todo }
    }
}

impl FunctionCheck for AutoVerify {
    fn after(&self, k: usize, f: &Function) -> Option<Found> {
        let todo = &self.todo[k];
        if todo.is_empty() {
            return None;
        }
        let found = verify::check_rules(f, todo);
        found.iter().any(|v| !v.is_empty()).then_some(Found::Findings(found))
    }

    fn report(&self, k: usize, found: Vec<Found>) -> Vec<Diagnostic> {
        // In the verifier's order: property by property, functions in order.
        let per_function = found
            .into_iter()
            .filter_map(|f| match f {
                Found::Findings(v) => Some(v),
                Found::Diagnostics(_) => None,
            })
            .collect();
        vec![error(self.passes[k], &self.todo[k], &verify::in_rule_order(per_function))]
    }
}

/// The error after `pass`: `found` are the findings of the properties `todo`, which the pass
/// produced and which were not verified yet.
fn error(pass: &PassInfo, todo: &[Property], found: &[VerifyDiagnostic]) -> Diagnostic {
    let mut names: Vec<Property> = todo.to_vec();
    names.sort(); // printed in bit order, like the reference's property sets
    let names: Vec<&str> = names.iter().map(|p| p.name()).collect();
    let mut d = Diagnostic::error(
        codes::VERIFY_FAILED,
        found[0].span,
        format!("Verification failed after '{}' for properties {{{}}}", pass.reference_name(), names.join(", ")),
    );
    for v in found {
        d = d.with_note(format!("{} ({}): {}", v.rule.rule_name(), v.error_code, v.message));
    }
    d
}
