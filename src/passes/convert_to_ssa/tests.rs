//! Unit tests: parse a small program, run the pass, compare printed output.

use crate::passes::{Backend, PassEnv};

fn convert(src: &str) -> String {
    let prog = crate::driver::frontend(src).expect("front end");
    let out = super::run(&prog, &PassEnv { backend: Backend::Cce }).expect("pass");
    crate::printer::print_program(&out)
}
