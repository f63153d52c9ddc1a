//! Name indexes of the operator table, built once on first use. Lowering resolves every call by
//! name and passes look up the ops they insert, so these are hash lookups instead of scans of
//! the table; the table itself stays the one source of truth.

use std::sync::OnceLock;

use rustc_hash::FxHashMap;

use super::table::{entries, Category, TodayForm};
use crate::ir::OpId;

struct Index {
    /// IR name (`block.load`) → op.
    by_name: FxHashMap<&'static str, OpId>,
    /// (category, short name or alias) → the first op in table order spelled so.
    by_spelling: FxHashMap<(Category, &'static str), OpId>,
    /// Unified `pl.NAME` spelling → the first op in table order that claims it.
    unified: FxHashMap<&'static str, OpId>,
    /// A spelling of today's PyPTO (dotted, after `pl.`) → the op and how its arguments bind:
    /// the `today` column first, then `tile.<short name or alias>` of the `today_tile` ops.
    today: FxHashMap<String, (OpId, TodayForm)>,
}

fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut ix = Index {
            by_name: FxHashMap::default(),
            by_spelling: FxHashMap::default(),
            unified: FxHashMap::default(),
            today: FxHashMap::default(),
        };
        for (id, d) in entries() {
            ix.by_name.entry(d.name).or_insert(id);
            for spelling in std::iter::once(d.short_name()).chain(d.aliases.iter().copied()) {
                ix.by_spelling.entry((d.category, spelling)).or_insert(id);
            }
            for &u in d.unified {
                ix.unified.entry(u).or_insert(id);
            }
            for t in d.today {
                ix.today.entry(t.name.to_string()).or_insert((id, t.form));
            }
        }
        for (id, d) in entries().filter(|(_, d)| d.today_tile) {
            for spelling in std::iter::once(d.short_name()).chain(d.aliases.iter().copied()) {
                ix.today.entry(format!("tile.{spelling}")).or_insert((id, TodayForm::Same));
            }
        }
        ix
    })
}

/// The op whose IR name is `name`.
pub fn by_name(name: &str) -> Option<OpId> {
    index().by_name.get(name).copied()
}

/// The op of `category` spelled `name` (its short name or an alias).
pub fn by_spelling(category: Category, name: &str) -> Option<OpId> {
    index().by_spelling.get(&(category, name)).copied()
}

/// The op today's PyPTO spells `pl.<dotted>` (`tile.add`, `tile.create`, `store`), with how
/// the call's arguments bind.
pub fn today(dotted: &str) -> Option<(OpId, TodayForm)> {
    index().today.get(dotted).copied()
}

/// Every spelling of today's PyPTO with its op, sorted (for `--list-ops` and suggestions).
pub fn today_spellings() -> Vec<(&'static str, OpId)> {
    let mut v: Vec<(&'static str, OpId)> = index().today.iter().map(|(k, (id, _))| (k.as_str(), *id)).collect();
    v.sort();
    v
}

/// The op that owns the unified spelling `pl.<name>`.
pub fn unified(name: &str) -> Option<OpId> {
    index().unified.get(name).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The indexes answer what a scan of the table in order answers, for every spelling in it.
    #[test]
    fn indexes_agree_with_a_scan_of_the_table() {
        for (_, d) in entries() {
            assert_eq!(by_name(d.name), entries().find(|(_, e)| e.name == d.name).map(|(id, _)| id));
            for s in std::iter::once(d.short_name()).chain(d.aliases.iter().copied()) {
                let scan = entries()
                    .find(|(_, e)| e.category == d.category && (e.short_name() == s || e.aliases.contains(&s)))
                    .map(|(id, _)| id);
                assert_eq!(by_spelling(d.category, s), scan, "{s}");
            }
            for &u in d.unified {
                assert_eq!(unified(u), entries().find(|(_, e)| e.unified.contains(&u)).map(|(id, _)| id));
            }
        }
        assert_eq!(by_name("block.nope"), None);
        assert_eq!(by_spelling(Category::Block, "add_scalar_nope"), None);
    }
}
