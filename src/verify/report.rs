//! The reference's verification report text (`IRVerifier::GenerateReport`).

use super::VerifyDiagnostic;
use crate::diag::Span;
use std::fmt::Write;

/// The report exactly as the reference prints it, including the `Status: PASSED` form for an
/// empty list. All our diagnostics are errors, so the warning count is always 0.
pub fn full_report(diags: &[VerifyDiagnostic], location: &dyn Fn(Span) -> String) -> String {
    let errors = diags.len();
    let mut s = String::new();
    s.push_str("IR Verification Report\n");
    s.push_str("======================\n");
    // `write!` into a String cannot fail.
    let _ = write!(s, "Total diagnostics: {} ({} errors, 0 warnings)\n\n", diags.len(), errors);
    if diags.is_empty() {
        s.push_str("Status: PASSED\n");
        return s;
    }
    for (i, d) in diags.iter().enumerate() {
        let _ = write!(
            s,
            "[{}] ERROR - {}\n  Message: {}\n  Location: {}\n  Error Code: {}\n\n",
            i + 1,
            d.rule.rule_name(),
            d.message,
            location(d.span),
            d.error_code
        );
    }
    let _ = writeln!(s, "Status: FAILED ({errors} error(s) found)");
    s
}
