//! SSAVerify (codes 1 and 3): every variable is defined once, and value-carrying loops and ifs
//! end their bodies with a yield.
//!
//! Counted definitions are assign targets and the return vars of if/for/while, keyed by variable
//! identity (names are irrelevant); params, loop vars and iter args are not counted. A return
//! var is counted before the statement's children are visited, and the yield checks run after
//! them, as in the reference.

use super::{codes, Property, VerifyDiagnostic};
use crate::ir::visit::{child_stmts, last_stmt};
use crate::ir::{Function, Span, Stmt, VarId, VarTable};
use rustc_hash::FxHashMap as HashMap;

pub(super) fn check(f: &Function, out: &mut Vec<VerifyDiagnostic>) {
    let vars = &f.vars;
    let mut v = SsaVerifier { vars, defined: vec![0; vars.len().div_ceil(64)], repeated: HashMap::default(), out };
    v.stmt(&f.body);
}

struct SsaVerifier<'a> {
    vars: &'a VarTable,
    /// One bit per variable of the table: defined at least once so far in the function.
    defined: Vec<u64>,
    /// Definitions seen so far of the variables defined more than once (and of dangling ids).
    repeated: HashMap<VarId, u32>,
    out: &'a mut Vec<VerifyDiagnostic>,
}

impl SsaVerifier<'_> {
    fn stmt(&mut self, s: &Stmt) {
        match s {
            // Nearly every statement: an assignment (no children, no yield check) or a sequence.
            Stmt::Assign { var, .. } => return self.define(*var),
            Stmt::Seq { stmts, .. } | Stmt::Ops { stmts, .. } => return stmts.iter().for_each(|c| self.stmt(c)),
            Stmt::If { return_vars, .. } | Stmt::For { return_vars, .. } | Stmt::While { return_vars, .. } => {
                for &v in return_vars {
                    self.define(v);
                }
            }
            _ => {}
        }
        for c in child_stmts(s) {
            self.stmt(c);
        }
        match s {
            Stmt::For { iter_args, body, span, .. } if !iter_args.is_empty() => {
                self.require_yield(body, "ForStmt with iter_args must have YieldStmt as last statement in body", *span)
            }
            Stmt::While { iter_args, body, span, .. } if !iter_args.is_empty() => self.require_yield(
                body,
                "WhileStmt with iter_args must have YieldStmt as last statement in body",
                *span,
            ),
            Stmt::If { then_body, else_body, return_vars, span, .. } if !return_vars.is_empty() => match else_body {
                None => self.error(codes::MISSING_YIELD, "IfStmt with return_vars must have else branch".into(), *span),
                Some(else_body) => {
                    self.require_yield(
                        then_body,
                        "IfStmt then branch must end with YieldStmt when return_vars exist",
                        *span,
                    );
                    self.require_yield(
                        else_body,
                        "IfStmt else branch must end with YieldStmt when return_vars exist",
                        *span,
                    );
                }
            },
            _ => {}
        }
    }

    /// Counts one definition of `var`; the second and later ones are errors at the var's span.
    fn define(&mut self, var: VarId) {
        let (word, bit) = (var.index() / 64, 1u64 << (var.index() % 64));
        let n = match self.defined.get_mut(word) {
            Some(w) if *w & bit == 0 => {
                *w |= bit;
                1
            }
            // Defined before (bit set: the count starts at 1), or outside the table.
            Some(_) => {
                let n = self.repeated.entry(var).or_insert(1);
                *n += 1;
                *n
            }
            None => {
                let n = self.repeated.entry(var).or_insert(0);
                *n += 1;
                *n
            }
        };
        if n > 1 {
            // A dangling id (malformed IR) is still reported, without a name or span.
            let (name, span) = self.vars.get(var).map_or(("?", Span::NONE), |d| (d.name.as_str(), d.span));
            let msg = format!("Variable '{name}' is assigned more than once ({n} times), violating SSA form");
            self.error(codes::MULTIPLE_ASSIGNMENT, msg, span);
        }
    }

    fn require_yield(&mut self, body: &Stmt, message: &str, span: Span) {
        if !matches!(last_stmt(body), Stmt::Yield { .. }) {
            self.error(codes::MISSING_YIELD, message.to_string(), span);
        }
    }

    fn error(&mut self, error_code: u32, message: String, span: Span) {
        self.out.push(VerifyDiagnostic { rule: Property::SsaForm, error_code, message, span });
    }
}
