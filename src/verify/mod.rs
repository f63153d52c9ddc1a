//! IR verifiers (spec `ir-and-syntax.md` §6.2): SSAVerify, TypeCheck and NoNestedCall, with the
//! reference's rule names, error codes, messages and report format.

use crate::diag::Span;
use crate::ir::Program;

/// A verifier rule of the default verifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    SsaVerify,
    TypeCheck,
    NoNestedCall,
}

impl Rule {
    pub const DEFAULT: &'static [Rule] = &[Rule::SsaVerify, Rule::TypeCheck, Rule::NoNestedCall];
    /// The reference's rule name (`SSAVerify`, `TypeCheck`, `NoNestedCall`).
    pub fn name(self) -> &'static str {
        match self {
            Rule::SsaVerify => "SSAVerify",
            Rule::TypeCheck => "TypeCheck",
            Rule::NoNestedCall => "NoNestedCall",
        }
    }
    pub fn from_name(s: &str) -> Option<Rule> {
        Rule::DEFAULT.iter().copied().find(|r| r.name() == s)
    }
}

/// One finding of a verifier rule (the reference's `Diagnostic`).
#[derive(Clone, Debug, PartialEq)]
pub struct VerifyDiagnostic {
    pub rule: Rule,
    /// The reference's numeric code (1–3 SSA, 101–107 type check, 201–206 nested calls).
    pub error_code: u32,
    pub message: String,
    /// Span of the offending node, if known.
    pub span: Span,
}

/// Runs the given rules over every function of the program, in function order, each rule in
/// turn, and returns all findings (all of severity error).
pub fn verify(prog: &Program, rules: &[Rule]) -> Vec<VerifyDiagnostic> {
    let _ = (prog, rules);
    todo!("verify")
}

/// The reference's report text ("IR Verification Report" …); empty for no diagnostics.
/// `location` renders a span as `file:line:col`.
pub fn report(diags: &[VerifyDiagnostic], location: &dyn Fn(Span) -> String) -> String {
    let _ = (diags, location);
    todo!("verify::report")
}
