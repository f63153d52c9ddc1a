//! SSA value names of one `func.func` (spec `pto-codegen.md` §3, §6): the `%<n>` counter, the
//! `%c<v>` index and `%cst…` float constants (with the constants section they are declared
//! in), and the binding of IR variables to values.
//!
//! Variables are bound by *name*, as in the reference: every tile that shares a buffer prints
//! as that buffer's value, and a name is unique within a function after convert-to-ssa.

use rustc_hash::{FxHashMap, FxHashSet};

use super::types::scientific;

/// The names handed out in one function.
#[derive(Default)]
pub struct Namer {
    next: u32,
    bound: FxHashMap<String, String>,
    index_consts: FxHashSet<i64>,
    /// Float constants by value, in order of first use (`-0.0` and `0.0` are one value).
    float_consts: Vec<(f64, String)>,
    /// The constants section: one line per constant, indented where it was first needed
    /// (§6.4: the reference keeps the indentation of the first use).
    consts: String,
}

impl Namer {
    /// The next counter value `%<n>`.
    pub fn fresh(&mut self) -> String {
        let n = self.next;
        self.next += 1;
        format!("%{n}")
    }

    /// Binds variable `name` to `value` (a later binding of the same name wins).
    pub fn bind(&mut self, name: &str, value: String) {
        self.bound.insert(name.to_string(), value);
    }

    /// The value bound to `name`, if any.
    pub fn lookup(&self, name: &str) -> Option<&str> {
        self.bound.get(name).map(String::as_str)
    }

    /// `%c<v>`, declaring it (at `indent` spaces) the first time.
    pub fn index_const(&mut self, v: i64, indent: usize) -> String {
        let name = format!("%c{v}");
        if self.index_consts.insert(v) {
            self.const_line(indent, &format!("{name} = arith.constant {v} : index"));
        }
        name
    }

    /// `%cst`, `%cst_1`, … for value `v`, declared with type `ty` the first time.
    pub fn float_const(&mut self, v: f64, ty: &str, indent: usize) -> String {
        if let Some((_, name)) = self.float_consts.iter().find(|(x, _)| *x == v) {
            return name.clone();
        }
        let name = match self.float_consts.len() {
            0 => "%cst".to_string(),
            n => format!("%cst_{n}"),
        };
        self.const_line(indent, &format!("{name} = arith.constant {} : {ty}", scientific(v)));
        self.float_consts.push((v, name.clone()));
        name
    }

    fn const_line(&mut self, indent: usize, text: &str) {
        push_line(&mut self.consts, indent, text);
    }

    /// The constants section, for the function's text.
    pub fn constants(&self) -> &str {
        &self.consts
    }
}

/// Appends `text` indented by `indent` spaces and a newline.
pub fn push_line(out: &mut String, indent: usize, text: &str) {
    out.extend(std::iter::repeat_n(' ', indent));
    out.push_str(text);
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_are_declared_once_at_first_use() {
        let mut n = Namer::default();
        assert_eq!(n.index_const(16, 2), "%c16");
        assert_eq!(n.index_const(-1, 4), "%c-1");
        assert_eq!(n.index_const(16, 4), "%c16");
        assert_eq!(n.float_const(1.0, "f32", 2), "%cst");
        assert_eq!(n.float_const(0.0, "f16", 4), "%cst_1");
        assert_eq!(n.float_const(-0.0, "f32", 2), "%cst_1");
        assert_eq!(
            n.constants(),
            "  %c16 = arith.constant 16 : index\n    %c-1 = arith.constant -1 : index\n  %cst = arith.constant 1.000000e+00 : f32\n    %cst_1 = arith.constant 0.000000e+00 : f16\n"
        );
    }

    #[test]
    fn counter_and_bindings() {
        let mut n = Namer::default();
        assert_eq!(n.fresh(), "%0");
        assert_eq!(n.fresh(), "%1");
        n.bind("x", "%1".into());
        assert_eq!(n.lookup("x"), Some("%1"));
        assert_eq!(n.lookup("y"), None);
    }
}
