//! The candidate buffers of one memory space during step 3 of BasicMemoryReuse: which earlier
//! intervals are free at the current point, and the first of them (in interval order) that is
//! large enough. A max-segment tree over interval indices answers that in O(log n), so the
//! pass stays linear-logarithmic in the length of a function instead of quadratic.

/// A leaf is `Some(size)` while its interval is free, `None` otherwise; inner nodes hold the
/// maximum of their children (`None` is below every size).
pub struct FirstFit {
    /// Number of leaves (a power of two ≥ the number of intervals).
    leaves: usize,
    tree: Vec<Option<u64>>,
}

impl FirstFit {
    pub fn new(len: usize) -> FirstFit {
        let leaves = len.max(1).next_power_of_two();
        FirstFit { leaves, tree: vec![None; 2 * leaves] }
    }

    /// Marks interval `i` free with buffer size `size`, or taken with `None`.
    pub fn set(&mut self, i: usize, size: Option<u64>) {
        let mut node = self.leaves + i;
        self.tree[node] = size;
        while node > 1 {
            node /= 2;
            let max = self.tree[2 * node].max(self.tree[2 * node + 1]);
            if self.tree[node] == max {
                // The ancestors hold maxima over this subtree and others that did not change.
                break;
            }
            self.tree[node] = max;
        }
    }

    /// The smallest free interval index whose size is at least `size`.
    pub fn first_at_least(&self, size: u64) -> Option<usize> {
        let wanted = Some(size);
        if self.tree[1] < wanted {
            return None;
        }
        let mut node = 1;
        while node < self.leaves {
            node = if self.tree[2 * node] >= wanted { 2 * node } else { 2 * node + 1 };
        }
        Some(node - self.leaves)
    }
}

#[cfg(test)]
mod tests {
    use super::FirstFit;

    #[test]
    fn finds_the_first_free_large_enough_leaf() {
        let mut f = FirstFit::new(5);
        assert_eq!(f.first_at_least(0), None);
        f.set(3, Some(64));
        f.set(1, Some(16));
        f.set(4, Some(128));
        assert_eq!(f.first_at_least(0), Some(1));
        assert_eq!(f.first_at_least(32), Some(3));
        assert_eq!(f.first_at_least(100), Some(4));
        assert_eq!(f.first_at_least(200), None);
        f.set(3, None);
        assert_eq!(f.first_at_least(32), Some(4));
    }
}
