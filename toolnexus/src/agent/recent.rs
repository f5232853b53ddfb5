//! [`Recent`]: a map by string key that keeps at most a number of entries, forgetting the
//! one used least recently past that (the bound of the in-memory conversations and of a
//! UI endpoint's threads).

use std::collections::{BTreeMap, HashMap};

/// Entries by key, each stamped with when it was last used; past `cap`, the least
/// recently used ones go first.
#[derive(Debug)]
pub(crate) struct Recent<V> {
    entries: HashMap<String, (u64, V)>,
    /// Keys by last use, least recent first.
    by_use: BTreeMap<u64, String>,
    clock: u64,
    cap: usize,
}

impl<V> Recent<V> {
    /// An empty map that keeps at most `cap` entries (at least one).
    pub(crate) fn new(cap: usize) -> Self {
        Recent {
            entries: HashMap::new(),
            by_use: BTreeMap::new(),
            clock: 0,
            cap: cap.max(1),
        }
    }

    /// The entry of `key`, if kept (reading it is not a use).
    pub(crate) fn get(&self, key: &str) -> Option<&V> {
        self.entries.get(key).map(|(_, value)| value)
    }

    /// The entry of `key`, made the most recently used, created empty if it was not kept.
    /// Past the cap, the entries used least recently are forgotten and returned.
    pub(crate) fn used(&mut self, key: &str) -> (&mut V, Vec<(String, V)>)
    where
        V: Default,
    {
        self.clock += 1;
        let now = self.clock;
        let mut forgotten = Vec::new();
        if !self.entries.contains_key(key) {
            while self.entries.len() >= self.cap {
                let Some((_, old)) = self.by_use.pop_first() else {
                    break;
                };
                if let Some((_, value)) = self.entries.remove(&old) {
                    forgotten.push((old, value));
                }
            }
        }
        let slot = self
            .entries
            .entry(key.to_owned())
            .or_insert_with(|| (now, V::default()));
        if slot.0 != now {
            self.by_use.remove(&slot.0);
            slot.0 = now;
        }
        self.by_use.insert(now, key.to_owned());
        (&mut slot.1, forgotten)
    }

    /// How many entries are kept.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }
}

#[cfg(test)]
mod tests {
    use super::Recent;

    #[test]
    fn the_least_recently_used_entry_goes_first_past_the_cap() {
        let mut recent = Recent::<u32>::new(2);
        *recent.used("a").0 = 1;
        *recent.used("b").0 = 2;
        // Using `a` again makes `b` the oldest.
        assert_eq!(*recent.used("a").0, 1);
        let (c, forgotten) = recent.used("c");
        *c = 3;
        assert_eq!(forgotten, vec![("b".to_owned(), 2)]);
        assert_eq!(recent.len(), 2);
        assert_eq!(recent.get("b"), None);
        assert_eq!(recent.get("a"), Some(&1));
        assert_eq!(recent.get("c"), Some(&3));
        assert_eq!(
            Recent::<u32>::new(0).used("x").1,
            vec![],
            "a cap of 0 keeps one"
        );
    }
}
