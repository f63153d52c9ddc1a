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
use compact_str::CompactString;
use rustc_hash::FxHashMap as HashMap;
use std::collections::hash_map::Entry;

/// A name as the scopes keep it: inline (no allocation) up to 24 bytes, like the syntax tree's.
pub type ScopeName = CompactString;

/// One map of the visible bindings plus, per open scope, the bindings it shadows: a lookup is
/// one hash probe however deep the nesting, and binding a name allocates nothing.
#[derive(Default)]
pub struct Scopes {
    /// The visible binding of each name, with the depth (index into `frames`) that made it.
    visible: HashMap<ScopeName, (VarId, u32)>,
    frames: Vec<Frame>,
    /// The most recent binding of each name in a scope that has been closed.
    closed: HashMap<ScopeName, VarId>,
}

#[derive(Default)]
struct Frame {
    /// The names this scope bound, in first-binding order (so that leaking is deterministic),
    /// each with the binding it shadows, restored when the scope is popped.
    bound: Vec<(ScopeName, Option<(VarId, u32)>)>,
}

/// The bindings of a popped scope, in the order they were made.
pub type Bindings = Vec<(ScopeName, VarId)>;

impl Scopes {
    pub fn push(&mut self) {
        self.frames.push(Frame::default());
    }

    /// Pops the innermost scope and returns its bindings.
    pub fn pop(&mut self) -> Bindings {
        let Some(frame) = self.frames.pop() else { return Vec::new() };
        let mut bindings = Vec::with_capacity(frame.bound.len());
        self.closed.reserve(frame.bound.len());
        for (name, shadowed) in frame.bound {
            let var = match shadowed {
                Some(old) => self.visible.insert(name.clone(), old),
                None => self.visible.remove(&name),
            };
            // Every name in `bound` was made visible by this scope.
            let Some((var, _)) = var else { continue };
            self.closed.insert(name.clone(), var);
            bindings.push((name, var));
        }
        bindings
    }

    /// Makes room for `n` more bindings in the innermost scope (a statement list about to be
    /// lowered binds about one name per statement), so the maps do not grow step by step.
    pub fn reserve(&mut self, n: usize) {
        self.visible.reserve(n);
        if let Some(frame) = self.frames.last_mut() {
            frame.bound.reserve(n);
        }
    }

    /// Binds `name` in the innermost scope.
    pub fn bind(&mut self, name: &str, var: VarId) {
        if self.frames.is_empty() {
            self.push();
        }
        let depth = self.frames.len() - 1;
        match self.visible.entry(ScopeName::from(name)) {
            Entry::Occupied(mut slot) if slot.get().1 == depth as u32 => slot.get_mut().0 = var,
            Entry::Occupied(mut slot) => {
                let shadowed = std::mem::replace(slot.get_mut(), (var, depth as u32));
                self.frames[depth].bound.push((slot.key().clone(), Some(shadowed)));
            }
            Entry::Vacant(slot) => {
                self.frames[depth].bound.push((slot.key().clone(), None));
                slot.insert((var, depth as u32));
            }
        }
    }

    /// Re-binds a popped scope's bindings in the current innermost scope.
    pub fn leak(&mut self, bindings: Bindings) {
        for (n, v) in bindings {
            self.bind(&n, v);
        }
    }

    /// The closed-scope bindings as they are now.
    pub fn closed_snapshot(&self) -> HashMap<ScopeName, VarId> {
        self.closed.clone()
    }

    /// Replaces the closed-scope bindings, returning the previous ones.
    pub fn replace_closed(&mut self, closed: HashMap<ScopeName, VarId>) -> HashMap<ScopeName, VarId> {
        std::mem::replace(&mut self.closed, closed)
    }

    /// Adds bindings closed elsewhere (another branch) where this side has none for the name.
    pub fn merge_closed(&mut self, other: HashMap<ScopeName, VarId>) {
        for (n, v) in other {
            self.closed.entry(n).or_insert(v);
        }
    }

    pub fn lookup(&self, name: &str) -> Option<VarId> {
        match self.visible.get(name) {
            Some(&(v, _)) => Some(v),
            None => self.closed.get(name).copied(),
        }
    }

    /// All names visible now (for "did you mean" suggestions), sorted.
    pub fn visible_names(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.visible.keys().map(ScopeName::as_str).collect();
        v.sort_unstable();
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
    fn popping_restores_what_a_scope_shadowed_and_reports_its_last_bindings_in_order() {
        let mut s = Scopes::default();
        s.push();
        s.bind("x", VarId(0));
        s.push();
        s.bind("y", VarId(1));
        s.bind("x", VarId(2));
        s.bind("y", VarId(3));
        s.push();
        s.bind("x", VarId(4));
        assert_eq!(s.pop(), vec![("x".into(), VarId(4))]);
        assert_eq!(s.lookup("x"), Some(VarId(2)));
        assert_eq!(s.visible_names(), vec!["x", "y"]);
        assert_eq!(s.pop(), vec![("y".into(), VarId(3)), ("x".into(), VarId(2))]);
        assert_eq!(s.lookup("x"), Some(VarId(0)));
        assert_eq!(s.lookup("y"), Some(VarId(3)), "closed fallback");
        assert_eq!(s.visible_names(), vec!["x"]);
    }

    #[test]
    fn suggestions_only_for_close_names() {
        assert_eq!(suggest("tile_a", ["tile_b", "other"]), Some("tile_b"));
        assert_eq!(suggest("x", ["completely_different"]), None);
        assert_eq!(suggest("valeu", ["value"]), Some("value"));
        assert_eq!(suggest("x", ["yy"]), None);
    }
}
