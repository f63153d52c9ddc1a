//! IR verifiers (spec `ir-and-syntax.md` §6.2, `passes-and-codegen.md` §1.3–1.4): SSAVerify,
//! TypeCheck and NoNestedCall, with the reference's rule names, error codes, messages and report
//! format.
//!
//! Each rule lives in its own module ([`ssa`], [`type_check`], [`nested_call`]) and walks one
//! function body at a time; [`verify`] runs the rules in the order given, each over all
//! functions in program order (the reference's `IRVerifier::Verify` loops rules outside and
//! functions inside). Within a function, findings come in the reference visitor's order.

mod allocated_addr;
pub mod cce_form;
pub mod cce_types;
mod has_memrefs;
mod incore_block_ops;
pub mod memory_reach;
pub mod nested_call;
pub mod orchestration_form;
pub mod partial_tiles;
pub mod pto_form;
mod report;
mod split_incore;
mod ssa;
mod structure;
pub mod sync_hazard;
mod type_check;

pub use report::full_report;

use crate::diag::Span;
use crate::ir::{Function, Program};

/// An IR property (spec `passes-and-codegen.md` §1.1) and the verifier rule that checks it
/// (§1.3): one type for both, so that a pass's required and produced properties, the automatic
/// verification, `--verify-each`, `run-verifier` and `--disable-rule` name the same entries.
/// Declared in the reference's bit order (how property sets print); [`Property::ALL`] is the
/// verifier's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Property {
    SsaForm,
    TypeChecked,
    NoNestedCalls,
    NormalizedStmtStructure,
    FlattenedSingleStmt,
    SplitIncoreOrch,
    HasMemRefs,
    IncoreBlockOps,
    AllocatedMemoryAddr,
}

impl Property {
    /// The rules of the default verifier (`run-verifier`).
    pub const DEFAULT: &'static [Property] = &[Property::SsaForm, Property::TypeChecked, Property::NoNestedCalls];
    /// Every property, in the order the verifier runs their rules.
    pub const ALL: &'static [Property] = &[
        Property::SsaForm,
        Property::TypeChecked,
        Property::NoNestedCalls,
        Property::NormalizedStmtStructure,
        Property::FlattenedSingleStmt,
        Property::SplitIncoreOrch,
        Property::IncoreBlockOps,
        Property::HasMemRefs,
        Property::AllocatedMemoryAddr,
    ];

    /// The reference's property name (`SSAForm`, `TypeChecked`, …).
    pub fn name(self) -> &'static str {
        match self {
            Property::SsaForm => "SSAForm",
            Property::TypeChecked => "TypeChecked",
            Property::NoNestedCalls => "NoNestedCalls",
            Property::NormalizedStmtStructure => "NormalizedStmtStructure",
            Property::FlattenedSingleStmt => "FlattenedSingleStmt",
            Property::SplitIncoreOrch => "SplitIncoreOrch",
            Property::HasMemRefs => "HasMemRefs",
            Property::IncoreBlockOps => "IncoreBlockOps",
            Property::AllocatedMemoryAddr => "AllocatedMemoryAddr",
        }
    }

    /// The reference's name of the rule that checks the property (`SSAVerify`, `TypeCheck`,
    /// `NoNestedCall`, …), as reports and `--disable-rule` spell it.
    pub fn rule_name(self) -> &'static str {
        match self {
            Property::SsaForm => "SSAVerify",
            Property::TypeChecked => "TypeCheck",
            Property::NoNestedCalls => "NoNestedCall",
            other => other.name(),
        }
    }

    /// The property whose rule is named `s` (exact spelling).
    pub fn from_rule_name(s: &str) -> Option<Property> {
        Property::ALL.iter().copied().find(|r| r.rule_name() == s)
    }

    /// The default rules minus the disabled ones (`run_verifier(disabled_rules=…)`). Unknown
    /// names are ignored, as the reference's `DisableRule` does.
    pub fn default_without<S: AsRef<str>>(disabled: &[S]) -> Vec<Property> {
        Property::DEFAULT.iter().copied().filter(|r| !disabled.iter().any(|d| d.as_ref() == r.rule_name())).collect()
    }

    /// Runs the property's rule over one function, appending its findings.
    pub fn check(self, f: &Function, out: &mut Vec<VerifyDiagnostic>) {
        match self {
            Property::SsaForm => ssa::check(f, out),
            Property::TypeChecked => type_check::check(f, out),
            Property::NoNestedCalls => nested_call::check(f, out),
            Property::NormalizedStmtStructure => structure::check_normalized(f, out),
            Property::FlattenedSingleStmt => structure::check_flattened(f, out),
            Property::SplitIncoreOrch => split_incore::check(f, out),
            Property::IncoreBlockOps => incore_block_ops::check(f, out),
            Property::HasMemRefs => has_memrefs::check(f, out),
            Property::AllocatedMemoryAddr => allocated_addr::check(f, out),
        }
    }
}

/// The reference's numeric error codes, by the reference's enum names.
pub mod codes {
    // SSAVerify (`ssa::ErrorType`).
    pub const MULTIPLE_ASSIGNMENT: u32 = 1;
    /// Declared by the reference but never produced.
    pub const NAME_SHADOWING: u32 = 2;
    pub const MISSING_YIELD: u32 = 3;
    // TypeCheck (`typecheck::ErrorType`).
    pub const TYPE_KIND_MISMATCH: u32 = 101;
    pub const DTYPE_MISMATCH: u32 = 102;
    pub const SHAPE_DIMENSION_MISMATCH: u32 = 103;
    pub const SHAPE_VALUE_MISMATCH: u32 = 104;
    pub const SIZE_MISMATCH: u32 = 105;
    pub const IF_CONDITION_MUST_BE_SCALAR: u32 = 106;
    pub const FOR_RANGE_MUST_BE_SCALAR: u32 = 107;
    // NoNestedCall (`nested_call::ErrorType`).
    pub const CALL_IN_CALL_ARGS: u32 = 201;
    pub const CALL_IN_IF_CONDITION: u32 = 202;
    pub const CALL_IN_FOR_RANGE: u32 = 203;
    pub const CALL_IN_BINARY_EXPR: u32 = 204;
    pub const CALL_IN_UNARY_EXPR: u32 = 205;
    pub const CALL_IN_WHILE_CONDITION: u32 = 206;
}

/// One finding of a verifier rule (the reference's `Diagnostic`).
#[derive(Clone, Debug, PartialEq)]
pub struct VerifyDiagnostic {
    /// The property whose rule found it.
    pub rule: Property,
    /// The reference's numeric code (1–3 SSA, 101–107 type check, 201–206 nested calls).
    pub error_code: u32,
    pub message: String,
    /// Span of the offending node, if known.
    pub span: Span,
}

/// Runs the given rules over every function of the program, in function order, each rule in
/// turn, and returns all findings (all of severity error).
///
/// Order: rule by rule (a rule listed twice runs once, like the reference's `AddRule`), and for
/// each rule every function in program order.
pub fn verify(prog: &Program, rules: &[Property]) -> Vec<VerifyDiagnostic> {
    verify_with_jobs(prog, rules, 1)
}

/// [`verify`], the functions checked on `jobs` threads; the findings in the same order (rule by
/// rule, functions in program order).
pub fn verify_with_jobs(prog: &Program, rules: &[Property], jobs: usize) -> Vec<VerifyDiagnostic> {
    let mut distinct: Vec<Property> = Vec::new();
    for &rule in rules {
        if !distinct.contains(&rule) {
            distinct.push(rule);
        }
    }
    let per_function = crate::par::map(&prog.functions, jobs, |f| check_rules(f, &distinct));
    in_rule_order(per_function)
}

/// The findings of each of `rules` (distinct) in function `f`, rule by rule.
pub fn check_rules(f: &Function, rules: &[Property]) -> Vec<Vec<VerifyDiagnostic>> {
    rules
        .iter()
        .map(|&rule| {
            let mut found = Vec::new();
            rule.check(f, &mut found);
            found
        })
        .collect()
}

/// The findings of several functions ([`check_rules`] of each, in program order) in the
/// verifier's order: rule by rule, and for each rule the functions in order.
pub fn in_rule_order(mut per_function: Vec<Vec<Vec<VerifyDiagnostic>>>) -> Vec<VerifyDiagnostic> {
    let rules = per_function.first().map_or(0, Vec::len);
    let mut out = Vec::new();
    for k in 0..rules {
        for found in &mut per_function {
            out.append(&mut found[k]);
        }
    }
    out
}

/// The reference's report text ("IR Verification Report" …); empty for no diagnostics.
/// `location` renders a span as `file:line:col`.
///
/// The reference prints a report only when there are diagnostics (its "PASSED" report for an
/// empty list is [`full_report`]).
pub fn report(diags: &[VerifyDiagnostic], location: &dyn Fn(Span) -> String) -> String {
    if diags.is_empty() {
        return String::new();
    }
    full_report(diags, location)
}

#[cfg(test)]
mod tests;
