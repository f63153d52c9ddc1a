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

/// A name bound in the current function, numbered in first-binding order: the scopes look a
/// name up by its text once, to find its id; everything else (shadowing, popping, leaking,
/// the closed-scope fallback) indexes vectors by id instead of hashing the name again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NameId(u32);

/// The visible binding of each name plus, per open scope, the bindings it shadows: a lookup is
/// one hash probe however deep the nesting, and binding a name allocates nothing.
#[derive(Default)]
pub struct Scopes {
    /// The id of every name bound so far.
    ids: HashMap<ScopeName, NameId>,
    /// The text of each id.
    names: Vec<ScopeName>,
    /// By id: the visible binding, with the depth (index into `frames`) that made it.
    visible: Vec<Option<(VarId, u32)>>,
    frames: Vec<Frame>,
    /// The most recent binding of each name in a scope that has been closed.
    closed: Closed,
}

#[derive(Default)]
struct Frame {
    /// The names this scope bound, in first-binding order (so that leaking is deterministic),
    /// each with the binding it shadows, restored when the scope is popped.
    bound: Vec<(NameId, Option<(VarId, u32)>)>,
}

/// The bindings of a popped scope, in the order they were made.
pub type Bindings = Vec<(NameId, VarId)>;

/// The closed-scope bindings by name id (ids past the end have none).
#[derive(Clone, Default)]
pub struct Closed(Vec<Option<VarId>>);

impl Closed {
    fn get(&self, id: NameId) -> Option<VarId> {
        self.0.get(id.0 as usize).copied().flatten()
    }

    fn set(&mut self, id: NameId, v: VarId) {
        let i = id.0 as usize;
        if i >= self.0.len() {
            self.0.resize(i + 1, None);
        }
        self.0[i] = Some(v);
    }
}

impl Scopes {
    pub fn push(&mut self) {
        self.frames.push(Frame::default());
    }

    /// Pops the innermost scope and returns its bindings.
    pub fn pop(&mut self) -> Bindings {
        let Some(frame) = self.frames.pop() else { return Vec::new() };
        let mut bindings = Vec::with_capacity(frame.bound.len());
        for (id, shadowed) in frame.bound {
            // Every name in `bound` was made visible by this scope.
            let Some((var, _)) = std::mem::replace(&mut self.visible[id.0 as usize], shadowed) else { continue };
            self.closed.set(id, var);
            bindings.push((id, var));
        }
        bindings
    }

    /// Makes room for `n` more bindings in the innermost scope (a statement list about to be
    /// lowered binds about one name per statement), so the tables do not grow step by step.
    pub fn reserve(&mut self, n: usize) {
        self.ids.reserve(n);
        self.names.reserve(n);
        self.visible.reserve(n);
        if let Some(frame) = self.frames.last_mut() {
            frame.bound.reserve(n);
        }
    }

    /// Binds `name` in the innermost scope.
    pub fn bind(&mut self, name: &str, var: VarId) {
        let id = self.intern(name);
        self.bind_id(id, var);
    }

    /// The id of `name`, numbering it if it is new.
    fn intern(&mut self, name: &str) -> NameId {
        match self.ids.entry(ScopeName::from(name)) {
            Entry::Occupied(slot) => *slot.get(),
            Entry::Vacant(slot) => {
                let id = NameId(self.names.len() as u32);
                self.names.push(slot.key().clone());
                self.visible.push(None);
                slot.insert(id);
                id
            }
        }
    }

    fn bind_id(&mut self, id: NameId, var: VarId) {
        if self.frames.is_empty() {
            self.push();
        }
        let depth = (self.frames.len() - 1) as u32;
        let slot = &mut self.visible[id.0 as usize];
        match *slot {
            Some((_, d)) if d == depth => {}
            shadowed => self.frames[depth as usize].bound.push((id, shadowed)),
        }
        *slot = Some((var, depth));
    }

    /// Re-binds a popped scope's bindings in the current innermost scope.
    pub fn leak(&mut self, bindings: Bindings) {
        for (id, v) in bindings {
            self.bind_id(id, v);
        }
    }

    /// The closed-scope bindings as they are now.
    pub fn closed_snapshot(&self) -> Closed {
        self.closed.clone()
    }

    /// Replaces the closed-scope bindings, returning the previous ones.
    pub fn replace_closed(&mut self, closed: Closed) -> Closed {
        std::mem::replace(&mut self.closed, closed)
    }

    /// Adds bindings closed elsewhere (another branch) where this side has none for the name.
    pub fn merge_closed(&mut self, other: Closed) {
        for (i, v) in other.0.into_iter().enumerate() {
            let id = NameId(i as u32);
            if let (Some(v), None) = (v, self.closed.get(id)) {
                self.closed.set(id, v);
            }
        }
    }

    pub fn lookup(&self, name: &str) -> Option<VarId> {
        let &id = self.ids.get(name)?;
        match self.visible[id.0 as usize] {
            Some((v, _)) => Some(v),
            None => self.closed.get(id),
        }
    }

    /// All names visible now (for "did you mean" suggestions), sorted.
    pub fn visible_names(&self) -> Vec<&str> {
        let mut v: Vec<&str> =
            self.names.iter().zip(&self.visible).filter(|(_, b)| b.is_some()).map(|(n, _)| n.as_str()).collect();
        v.sort_unstable();
        v
    }
}

pub use crate::suggest::{suggest, suggest_spelling};

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
        let names = |s: &Scopes, b: Bindings| {
            b.into_iter().map(|(id, v)| (s.names[id.0 as usize].to_string(), v)).collect::<Vec<_>>()
        };
        let popped = s.pop();
        assert_eq!(names(&s, popped), vec![("x".to_string(), VarId(4))]);
        assert_eq!(s.lookup("x"), Some(VarId(2)));
        assert_eq!(s.visible_names(), vec!["x", "y"]);
        let popped = s.pop();
        assert_eq!(names(&s, popped), vec![("y".to_string(), VarId(3)), ("x".to_string(), VarId(2))]);
        assert_eq!(s.lookup("x"), Some(VarId(0)));
        assert_eq!(s.lookup("y"), Some(VarId(3)), "closed fallback");
        assert_eq!(s.visible_names(), vec!["x"]);
    }

    /// The if-statement protocol: the else branch does not see what the then branch closed;
    /// afterwards both branches' closed bindings are visible, the else branch's first.
    #[test]
    fn closed_bindings_of_two_branches_merge_with_the_second_first() {
        let mut s = Scopes::default();
        s.push();
        let before = s.closed_snapshot();
        s.push();
        s.bind("a", VarId(1));
        s.bind("b", VarId(2));
        s.pop();
        let after_then = s.replace_closed(before);
        assert_eq!(s.lookup("a"), None, "the then branch's names are not closed in the else branch");
        s.push();
        s.bind("b", VarId(3));
        s.bind("c", VarId(4));
        s.pop();
        s.merge_closed(after_then);
        assert_eq!((s.lookup("a"), s.lookup("b"), s.lookup("c")), (Some(VarId(1)), Some(VarId(3)), Some(VarId(4))));
    }
}
