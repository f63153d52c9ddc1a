//! Unit tests: parse a small program, run the pass, check the printed output and that the
//! result satisfies the SSA and type verifiers.

use crate::backend::Backend;
use crate::ir::Program;
use crate::passes::PassEnv;
use crate::printer::print_program;
use crate::verify::{verify, Property};

const HEADER: &str = "# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function\n";

fn parse(body: &str) -> Program {
    crate::driver::frontend(&format!("{HEADER}{body}")).expect("front end")
}

/// Runs the pass, checks the result verifies, and returns the printed function body lines
/// (from `def`, indentation stripped).
fn convert(body: &str) -> Vec<String> {
    let prog = parse(body);
    let out = crate::passes::Transform::Function(super::function)
        .apply(prog.clone(), &PassEnv::new(Backend::Cce))
        .expect("pass");
    let diags = verify(&out, &[Property::SsaForm, Property::TypeChecked]);
    assert!(
        diags.is_empty(),
        "verifier: {:?}\n{}",
        diags.iter().map(|d| &d.message).collect::<Vec<_>>(),
        print_program(&out)
    );
    print_program(&out)
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("def "))
        .map(|l| l.trim().to_string())
        .collect()
}

#[test]
fn input_program_is_not_mutated() {
    let prog = parse(
        "    def main(self, x: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:\n        x: pl.Scalar[pl.INT64] = x + 1\n        return x\n",
    );
    let before = print_program(&prog);
    let vars = prog.functions[0].vars.len();
    let out = crate::passes::Transform::Function(super::function)
        .apply(prog.clone(), &PassEnv::new(Backend::Cce))
        .expect("pass");
    assert_eq!(print_program(&prog), before);
    assert_eq!(prog.functions[0].vars.len(), vars);
    assert_ne!(print_program(&out), before);
}

#[test]
fn for_return_vars_follow_iter_arg_order_q1() {
    let lines = convert(
        "    def main(self, n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        z: pl.Scalar[pl.INT64] = 0
        for i, (acc,) in pl.range(0, 4, 1, init_values=(n,)):
            z: pl.Scalar[pl.INT64] = z + acc
            acc_out = pl.yield_(n)
        return acc_out
",
    );
    assert_eq!(lines[2], "for i_0, (acc, z_iter_1) in pl.range(0, 4, 1, init_values=(n_0, z_0)):");
    assert_eq!(lines[4], "acc_out, z_2 = pl.yield_(n_0, z_3)");
}

#[test]
fn name_defined_in_both_branches_gets_a_phi_q2() {
    let lines = convert(
        "    def main(self, a: pl.Scalar[pl.INT64], c: pl.Scalar[pl.BOOL]) -> pl.Scalar[pl.INT64]:
        if c:
            y: pl.Scalar[pl.INT64] = a + 1
        else:
            y: pl.Scalar[pl.INT64] = a + 2
        return y
",
    );
    assert_eq!(lines[3], "y_2: pl.Scalar[pl.INT64] = pl.yield_(y_0)");
    assert_eq!(lines[6], "y_2: pl.Scalar[pl.INT64] = pl.yield_(y_1)");
    assert_eq!(lines[7], "return y_2");
}

#[test]
fn then_only_name_used_after_the_if_is_refused() {
    // The else branch never defines `y`: on that path it has no value, so its use after the
    // `if` is an error there (the reference reads the then version whichever branch ran).
    let prog = parse(
        "    def main(self, a: pl.Scalar[pl.INT64], c: pl.Scalar[pl.BOOL]) -> pl.Scalar[pl.INT64]:
        if c:
            y: pl.Scalar[pl.INT64] = a + 1
        else:
            w: pl.Scalar[pl.INT64] = a + 2
        return y
",
    );
    let err = crate::passes::Transform::Function(super::function)
        .apply(prog, &PassEnv::new(Backend::Cce))
        .expect_err("a use of a name bound on one path");
    assert_eq!(err.len(), 1, "{err:?}");
    assert_eq!(err[0].code, crate::diag::codes::UNBOUND_ON_PATH);
    assert!(
        err[0].message.contains("`y` has no value here when the condition of the `if` is false"),
        "{}",
        err[0].message
    );
}

#[test]
fn then_only_name_unused_after_the_if_keeps_reference_visibility() {
    // Not read after the `if`: no error and no phi, as in the reference.
    let lines = convert(
        "    def main(self, a: pl.Scalar[pl.INT64], c: pl.Scalar[pl.BOOL]) -> pl.Scalar[pl.INT64]:
        if c:
            y: pl.Scalar[pl.INT64] = a + 1
        else:
            w: pl.Scalar[pl.INT64] = a + 2
        return a
",
    );
    assert_eq!(lines.last().map(String::as_str), Some("return a_0"));
    assert!(!lines.iter().any(|l| l.contains("yield_")), "{lines:?}");
}

#[test]
fn body_local_names_stay_visible_after_a_loop() {
    let lines = convert(
        "    def main(self, a: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        s: pl.Scalar[pl.INT64] = 0
        for i in pl.range(0, 4, 1):
            t: pl.Scalar[pl.INT64] = a + i
            s: pl.Scalar[pl.INT64] = s + t
        r: pl.Scalar[pl.INT64] = s + t
        return r
",
    );
    assert_eq!(lines[2], "for i_0, (s_iter_1,) in pl.range(0, 4, 1, init_values=(s_0,)):");
    assert_eq!(lines[5], "s_2: pl.Scalar[pl.INT64] = pl.yield_(s_3)");
    // The loop is left without restoring the outer map (reference behaviour): `t_0` is visible.
    assert_eq!(lines[6], "r_0: pl.Scalar[pl.INT64] = s_2 + t_0");
}

#[test]
fn output_is_deterministic() {
    let src = "    def main(self, x: pl.Scalar[pl.INT64], c: pl.Scalar[pl.BOOL]) -> pl.Scalar[pl.INT64]:
        zz: pl.Scalar[pl.INT64] = x
        aa: pl.Scalar[pl.INT64] = x
        mm: pl.Scalar[pl.INT64] = x
        if c:
            zz: pl.Scalar[pl.INT64] = aa + 1
            aa: pl.Scalar[pl.INT64] = mm + 1
            mm: pl.Scalar[pl.INT64] = zz + 1
        return zz
";
    let first = convert(src);
    for _ in 0..5 {
        assert_eq!(convert(src), first);
    }
    assert!(first.iter().any(|l| l == "aa_2, mm_2, zz_2 = pl.yield_(aa_1, mm_1, zz_1)"), "{first:#?}");
}
