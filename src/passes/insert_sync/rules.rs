//! Which reductions and merges the pass applies: the reference's (spec §2.10) as written, or
//! with the guards found by fuzzing (F2, F2b, docs/fuzzing.md) that keep every dependence
//! synchronised on every path.

/// The rules of phases 1–4.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Rules {
    /// The spec's rules: a loop-carried pair may replace a forward one, a transitive or linear
    /// reduction may rely on a sync on one path only, one barrier per place and pipe, one set
    /// shared by pairs that phase 2 gives one position. This is the reference's placement; it
    /// can leave a hazard (the caller checks it, [`super::sync_function`]).
    Reference,
    /// The guarded rules: never a hazard, sometimes a sync more than the reference places.
    #[default]
    Guarded,
}

impl Rules {
    pub fn guarded(self) -> bool {
        self == Rules::Guarded
    }
}
