//! "Did you mean" suggestions: which of a list of names a misspelt one most likely means.

/// The candidate that `name` is another spelling of: the same letters in another case or with
/// `_`/`-` (`insert_sync`, `incore`), NumPy/PyTorch dtype words (`Float32` → `FP32`,
/// `int32` → `INT32`, `bfloat16` → `BF16`), or else a likely typo ([`suggest`], ignoring case).
pub fn suggest_spelling<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str> + Clone) -> Option<&'a str> {
    let norm = |s: &str| {
        let s: String = s.chars().filter(|c| *c != '_' && *c != '-').flat_map(char::to_lowercase).collect();
        for (long, short) in [("bfloat", "bf"), ("float", "fp"), ("half", "fp16"), ("double", "fp64")] {
            if let Some(rest) = s.strip_prefix(long) {
                return format!("{short}{rest}");
            }
        }
        s
    };
    let wanted = norm(name);
    if let Some(c) = candidates.clone().into_iter().find(|c| norm(c) == wanted) {
        return Some(c);
    }
    let lowered: Vec<(String, &'a str)> = candidates.into_iter().map(|c| (norm(c), c)).collect();
    let best = suggest(&wanted, lowered.iter().map(|(l, _)| l.as_str()))?;
    lowered.iter().find(|(l, _)| l == best).map(|&(_, c)| c)
}

/// The candidate closest to `name` by edit distance, if it is close enough to be a likely typo.
pub fn suggest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    // About one edit per three characters: `valeu` → `value` (a swap is two edits).
    let limit = (name.chars().count().div_ceil(3)).max(1);
    candidates.into_iter().map(|c| (edit_distance(name, c), c)).filter(|&(d, _)| d <= limit).min().map(|(_, c)| c)
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
    fn spellings_of_the_same_name() {
        assert_eq!(suggest_spelling("Float32", ["FP16", "FP32", "INT32"]), Some("FP32"));
        assert_eq!(suggest_spelling("int32", ["FP32", "INT32"]), Some("INT32"));
        assert_eq!(suggest_spelling("bfloat16", ["BF16", "FP16"]), Some("BF16"));
        assert_eq!(suggest_spelling("Incore", ["Opaque", "InCore"]), Some("InCore"));
        assert_eq!(suggest_spelling("insert_sync", ["insert-sync", "init-mem-ref"]), Some("insert-sync"));
        assert_eq!(suggest_spelling("Vecc", ["DDR", "Vec", "Mat"]), Some("Vec"));
        assert_eq!(suggest_spelling("Banana", ["DDR", "Vec", "Mat"]), None);
    }

    #[test]
    fn suggestions_only_for_close_names() {
        assert_eq!(suggest("tile_a", ["tile_b", "other"]), Some("tile_b"));
        assert_eq!(suggest("x", ["completely_different"]), None);
        assert_eq!(suggest("valeu", ["value"]), Some("value"));
        assert_eq!(suggest("x", ["yy"]), None);
    }
}
