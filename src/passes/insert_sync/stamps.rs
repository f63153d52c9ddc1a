//! Tables indexed by position whose entries are valid for one round only: each entry carries
//! the round it was written in, so starting a round forgets everything at once, without a
//! set or map to clear or hash per round.

use super::position::PosId;

/// One table of entries stamped with their round.
#[derive(Debug, Default)]
struct Stamped<T> {
    round: u32,
    at: Vec<(u32, T)>,
}

impl<T: Copy + Default> Stamped<T> {
    /// Starts a round in which no entry is set yet.
    fn next_round(&mut self) {
        self.round = self.round.wrapping_add(1);
        if self.round == 0 {
            // After 2^32 rounds an old stamp could match again: start over.
            self.at.iter_mut().for_each(|m| m.0 = 0);
            self.round = 1;
        }
    }

    /// The entry of `p` set in this round.
    fn get(&self, p: PosId) -> Option<T> {
        self.at.get(p.index()).filter(|e| e.0 == self.round).map(|e| e.1)
    }

    /// Sets the entry of `p`; returns the entry it had in this round.
    fn set(&mut self, p: PosId, v: T) -> Option<T> {
        let k = p.index();
        if self.at.len() <= k {
            self.at.resize(k + 1, (0, T::default()));
        }
        let old = std::mem::replace(&mut self.at[k], (self.round, v));
        (old.0 == self.round).then_some(old.1)
    }
}

/// Marks positions seen within one round (a leaf's producers, a folded list).
#[derive(Debug, Default)]
pub struct Marks(Stamped<()>);

impl Marks {
    /// Starts a round in which nothing is marked yet.
    pub fn next_round(&mut self) {
        self.0.next_round();
    }

    /// Marks `p`; true iff it was not marked in this round.
    pub fn first(&mut self, p: PosId) -> bool {
        self.0.set(p, ()).is_none()
    }
}

/// The value of a function of positions, computed once per position and round (the folding of
/// one unrolled loop body, asked for the same ends by many pairs and access lists).
#[derive(Debug, Default)]
pub struct Memo(Stamped<Option<PosId>>);

impl Memo {
    /// Starts a round in which nothing is known yet.
    pub fn next_round(&mut self) {
        self.0.next_round();
    }

    /// `f(p)`, computed only the first time `p` is asked for in this round.
    pub fn get_or(&mut self, p: PosId, f: impl FnOnce(PosId) -> PosId) -> PosId {
        if let Some(Some(v)) = self.0.get(p) {
            return v;
        }
        let v = f(p);
        self.0.set(p, Some(v));
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::insert_sync::position::ops;

    #[test]
    fn marks_last_one_round() {
        let (_, at) = ops(2);
        let mut m = Marks::default();
        m.next_round();
        assert!(m.first(at[0]));
        assert!(!m.first(at[0]));
        assert!(m.first(at[1]));
        m.next_round();
        assert!(m.first(at[0]), "a new round forgets the marks");
    }

    #[test]
    fn a_memo_computes_once_per_round() {
        let (_, at) = ops(2);
        let mut memo = Memo::default();
        let mut calls = 0;
        memo.next_round();
        for _ in 0..2 {
            assert_eq!(
                memo.get_or(at[0], |_| {
                    calls += 1;
                    at[1]
                }),
                at[1]
            );
        }
        assert_eq!(calls, 1);
        memo.next_round();
        assert_eq!(memo.get_or(at[0], |p| p), at[0], "a new round computes again");
    }

    #[test]
    fn stamps_wrap_around_safely() {
        let (_, at) = ops(1);
        let mut m = Marks::default();
        m.next_round();
        assert!(m.first(at[0]));
        m.0.round = u32::MAX;
        m.next_round();
        assert!(m.first(at[0]), "an entry of round 1 is not taken for one of the restarted count");
    }
}
