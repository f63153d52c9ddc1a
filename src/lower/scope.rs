//! Name scopes used while lowering one function (spec `ir-and-syntax.md` §3.10).
//!
//! Every definition creates a new variable; a scope maps names to the variable most recently
//! bound to them. Lookup goes innermost-outward. Scopes that "leak" (with bodies, natural while
//! bodies, simple for loops, if branches without yields) hand their bindings to the parent when
//! they are popped.
//!
//! A name that is not visible may still name a variable of a scope that was closed: the
//! reference's passes produce such IR (ConvertToSSA leaves body-local versions of a loop visible
//! after it, §2.1 of the passes spec), and its printer prints it. So lookup falls back to the
//! most recent binding of the name in any closed scope of the function, which makes every
//! printed program read back.

use crate::ir::VarId;
use rustc_hash::FxHashMap as HashMap;

#[derive(Default)]
pub struct Scopes {
    frames: Vec<Frame>,
    /// The most recent binding of each name in a scope that has been closed.
    closed: HashMap<String, VarId>,
}

#[derive(Default)]
struct Frame {
    names: HashMap<String, VarId>,
    /// Binding order, so that leaking is deterministic.
    order: Vec<String>,
}

/// The bindings of a popped scope, in the order they were made.
pub type Bindings = Vec<(String, VarId)>;

impl Scopes {
    pub fn push(&mut self) {
        self.frames.push(Frame::default());
    }

    /// Pops the innermost scope and returns its bindings.
    pub fn pop(&mut self) -> Bindings {
        let frame = self.frames.pop().unwrap_or_default();
        let mut names = frame.names;
        let bindings: Bindings = frame.order.into_iter().filter_map(|n| names.remove(&n).map(|v| (n, v))).collect();
        for (n, v) in &bindings {
            self.closed.insert(n.clone(), *v);
        }
        bindings
    }

    /// Binds `name` in the innermost scope.
    pub fn bind(&mut self, name: &str, var: VarId) {
        if self.frames.is_empty() {
            self.push();
        }
        let frame = self.frames.last_mut().unwrap();
        if frame.names.insert(name.to_string(), var).is_none() {
            frame.order.push(name.to_string());
        }
    }

    /// Re-binds a popped scope's bindings in the current innermost scope.
    pub fn leak(&mut self, bindings: Bindings) {
        for (n, v) in bindings {
            self.bind(&n, v);
        }
    }

    /// The closed-scope bindings as they are now.
    pub fn closed_snapshot(&self) -> HashMap<String, VarId> {
        self.closed.clone()
    }

    /// Replaces the closed-scope bindings, returning the previous ones.
    pub fn replace_closed(&mut self, closed: HashMap<String, VarId>) -> HashMap<String, VarId> {
        std::mem::replace(&mut self.closed, closed)
    }

    /// Adds bindings closed elsewhere (another branch) where this side has none for the name.
    pub fn merge_closed(&mut self, other: HashMap<String, VarId>) {
        for (n, v) in other {
            self.closed.entry(n).or_insert(v);
        }
    }

    pub fn lookup(&self, name: &str) -> Option<VarId> {
        self.frames.iter().rev().find_map(|f| f.names.get(name).copied()).or_else(|| self.closed.get(name).copied())
    }

    /// All names visible now (for "did you mean" suggestions), sorted.
    pub fn visible_names(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.frames.iter().flat_map(|f| f.names.keys().map(String::as_str)).collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// The candidate closest to `name` by edit distance, if it is close enough to be a likely typo.
pub fn suggest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    // About one edit per three characters: `valeu` → `value` (a swap is two edits).
    let limit = (name.chars().count().div_ceil(3)).max(1);
    candidates
        .into_iter()
        .map(|c| (edit_distance(name, c), c))
        .filter(|&(d, _)| d <= limit)
        .min()
        .map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, &cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_is_innermost_first_and_leak_rebinds() {
        let mut s = Scopes::default();
        s.push();
        s.bind("x", VarId(0));
        s.push();
        s.bind("x", VarId(1));
        s.bind("y", VarId(2));
        assert_eq!(s.lookup("x"), Some(VarId(1)));
        let inner = s.pop();
        assert_eq!(s.lookup("x"), Some(VarId(0)));
        assert_eq!(s.lookup("y"), Some(VarId(2)), "a closed scope's binding is the fallback");
        assert_eq!(s.lookup("z"), None);
        s.leak(inner);
        assert_eq!(s.lookup("x"), Some(VarId(1)));
        assert_eq!(s.lookup("y"), Some(VarId(2)));
    }

    #[test]
    fn suggestions_only_for_close_names() {
        assert_eq!(suggest("tile_a", ["tile_b", "other"]), Some("tile_b"));
        assert_eq!(suggest("x", ["completely_different"]), None);
        assert_eq!(suggest("valeu", ["value"]), Some("value"));
        assert_eq!(suggest("x", ["yy"]), None);
    }
}
