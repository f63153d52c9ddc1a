//! Interned names and the name → current version map of one function.
//!
//! The pass is name based, and looking names up as strings (a sorted map of `String`s, cloned
//! at every loop and `if`) was most of its cost: every name is interned once per function into
//! a dense [`Name`] id, a variable's name id is cached by [`VarId`], and a version map is a
//! `Vec` indexed by name id, whose copy is a `memcpy`. Byte order of the names, which decides
//! the order of loop-carried values and phis, is restored by sorting the few ids involved
//! ([`Names::sort`]).

use rustc_hash::FxHashMap;

use crate::ir::{VarId, VarTable};

/// A name interned in [`Names`] (dense, per function).
pub(super) type Name = u32;

/// Marks "no version" in a [`Versions`] slot.
const NO_VERSION: VarId = VarId(u32::MAX);

/// Name → the variable that currently holds that name's value (indexed by [`Name`]; names
/// interned after the map was last grown have no version).
#[derive(Clone, Default)]
pub(super) struct Versions(Vec<VarId>);

impl Versions {
    pub(super) fn get(&self, n: Name) -> Option<VarId> {
        self.0.get(n as usize).copied().filter(|v| *v != NO_VERSION)
    }

    pub(super) fn contains(&self, n: Name) -> bool {
        self.get(n).is_some()
    }

    pub(super) fn insert(&mut self, n: Name, v: VarId) {
        let i = n as usize;
        if i >= self.0.len() {
            self.0.resize(i + 1, NO_VERSION);
        }
        self.0[i] = v;
    }

    /// One past the largest name id this map may hold a version for.
    pub(super) fn bound(&self) -> usize {
        self.0.len()
    }
}

/// The names of one function, interned: the text of every name in one arena, found through a
/// map from the name's hash (collisions chained through `next`), so interning a name allocates
/// nothing of its own.
pub(super) struct Names {
    arena: String,
    /// Byte range of each name in `arena`.
    ranges: Vec<(u32, u32)>,
    /// Hash of a name → the last name interned with that hash.
    by_hash: FxHashMap<u64, Name>,
    /// The previous name with the same hash, or [`NO_NAME`].
    next: Vec<Name>,
    /// Cache of [`Names::of_var`] per variable index ([`NO_NAME`] until asked).
    of_var: Vec<Name>,
}

const NO_NAME: Name = Name::MAX;

impl Names {
    /// An interner for one function (name ids are per function), whose variable table now has
    /// `vars` entries.
    /// A function has at most that many names: the tables are sized for them once, rather than
    /// grown (and the hash map rehashed) step by step.
    pub(super) fn new(vars: usize) -> Names {
        Names {
            arena: String::with_capacity(vars * 8),
            ranges: Vec::with_capacity(vars),
            by_hash: FxHashMap::with_capacity_and_hasher(vars, Default::default()),
            next: Vec::with_capacity(vars),
            of_var: vec![NO_NAME; vars],
        }
    }

    /// The id of `s`, interning it if new.
    pub(super) fn intern(&mut self, s: &str) -> Name {
        let h = {
            use std::hash::{BuildHasher, BuildHasherDefault};
            BuildHasherDefault::<rustc_hash::FxHasher>::default().hash_one(s)
        };
        let head = self.by_hash.get(&h).copied().unwrap_or(NO_NAME);
        let mut n = head;
        while n != NO_NAME {
            if self.str(n) == s {
                return n;
            }
            n = self.next[n as usize];
        }
        let n = self.ranges.len() as Name;
        let start = self.arena.len() as u32;
        self.arena.push_str(s);
        self.ranges.push((start, self.arena.len() as u32));
        self.next.push(head);
        self.by_hash.insert(h, n);
        n
    }

    /// The id of variable `v`'s name.
    pub(super) fn of_var(&mut self, vars: &VarTable, v: VarId) -> Name {
        if let Some(&n) = self.of_var.get(v.index()) {
            if n != NO_NAME {
                return n;
            }
        }
        let n = self.intern(vars.var_name(v));
        if let Some(slot) = self.of_var.get_mut(v.index()) {
            *slot = n;
        }
        n
    }

    pub(super) fn str(&self, n: Name) -> &str {
        let (a, b) = self.ranges[n as usize];
        &self.arena[a as usize..b as usize]
    }

    /// Sorts name ids by the byte order of their names.
    pub(super) fn sort(&self, ids: &mut [Name]) {
        ids.sort_unstable_by(|a, b| self.str(*a).cmp(self.str(*b)));
    }
}
