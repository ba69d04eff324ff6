//! Ground terms, interned once into a table and then handled as `TermId`s.
//!
//! A ground term is an atom or a function symbol applied to ground terms.
//! Interning makes equal terms equal ids, so facts compare and hash as small
//! integers.

use crate::syntax::symbol::{Symbol, Symbols};
use hashbrown::HashTable;
use rustc_hash::FxHasher;
use std::hash::{Hash, Hasher};

/// An interned ground term: an index into a `TermTable`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TermId(pub u32);

#[derive(Clone, Copy, Debug)]
struct Entry {
    functor: Symbol,
    args_start: u32,
    arity: u32,
    depth: u32,
}

/// The table of interned ground terms of one game.
#[derive(Clone, Debug, Default)]
pub struct TermTable {
    entries: Vec<Entry>,
    args: Vec<TermId>,
    lookup: HashTable<u32>,
}

fn hash_of(functor: Symbol, args: &[TermId]) -> u64 {
    let mut h = FxHasher::default();
    functor.hash(&mut h);
    args.hash(&mut h);
    h.finish()
}

impl TermTable {
    /// An empty table.
    pub fn new() -> TermTable {
        TermTable::default()
    }

    /// The id of `functor(args...)` (an atom when `args` is empty), if interned.
    pub fn lookup(&self, functor: Symbol, args: &[TermId]) -> Option<TermId> {
        let hash = hash_of(functor, args);
        self.lookup
            .find(hash, |&i| self.is(i, functor, args))
            .map(|&i| TermId(i))
    }

    /// The id of `functor(args...)`, interning it if new.
    pub fn intern(&mut self, functor: Symbol, args: &[TermId]) -> TermId {
        let hash = hash_of(functor, args);
        if let Some(&i) = self.lookup.find(hash, |&i| self.is(i, functor, args)) {
            return TermId(i);
        }
        let id = self.entries.len() as u32;
        let depth = 1 + args.iter().map(|a| self.depth(*a)).max().unwrap_or(0);
        self.entries.push(Entry {
            functor,
            args_start: self.args.len() as u32,
            arity: args.len() as u32,
            depth: depth as u32,
        });
        self.args.extend_from_slice(args);
        let entries = &self.entries;
        let all_args = &self.args;
        self.lookup.insert_unique(hash, id, |&i| {
            let e = entries[i as usize];
            let a = &all_args[e.args_start as usize..(e.args_start + e.arity) as usize];
            hash_of(e.functor, a)
        });
        TermId(id)
    }

    /// How many terms are interned.
    #[allow(clippy::len_without_is_empty)] // the table is never asked whether it is empty
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// About how many bytes the terms interned after the first `len` take.
    pub fn bytes_since(&self, len: usize) -> usize {
        let Some(first) = self.entries.get(len) else {
            return 0;
        };
        // An entry, its slot in the lookup table (a `u32` and a control
        // byte), and its arguments.
        let per_term = std::mem::size_of::<Entry>() + 5;
        (self.entries.len() - len) * per_term
            + (self.args.len() - first.args_start as usize) * std::mem::size_of::<TermId>()
    }

    /// The bytes that interning one more term of `arity` arguments would
    /// newly take if it is not in the table yet: nothing while the table's
    /// vectors and lookup have room, else what each full one grows by (a
    /// vector doubles; the lookup is rebuilt at twice its slots, beside the
    /// old one until it is done). A caller under a memory budget asks
    /// before a growth rather than finding it past the budget after one.
    pub fn bytes_to_intern(&self, arity: usize) -> usize {
        let mut bytes = 0;
        if self.entries.len() == self.entries.capacity() {
            bytes += self.entries.capacity().max(4) * std::mem::size_of::<Entry>();
        }
        if self.args.len() + arity > self.args.capacity() {
            bytes += self.args.capacity().max(arity) * std::mem::size_of::<TermId>();
        }
        if self.lookup.len() == self.lookup.capacity() {
            // A slot is a `u32` and a control byte; the table is at most
            // 7/8 full.
            let slots = (self.lookup.capacity().max(4) * 2 * 8 / 7).next_power_of_two();
            bytes += slots * (std::mem::size_of::<u32>() + 1);
        }
        bytes
    }

    /// Forgets every term interned after the first `len`; their ids will be
    /// given to new terms. Only for terms that nothing refers to any more.
    pub fn truncate(&mut self, len: usize) {
        let Some(first) = self.entries.get(len) else {
            return;
        };
        // Terms are appended with their arguments, so the arguments of the
        // terms kept come first.
        self.args.truncate(first.args_start as usize);
        self.entries.truncate(len);
        self.lookup.retain(|&mut i| (i as usize) < len);
    }

    /// The atom `name`, interning it if new.
    pub fn atom(&mut self, name: Symbol) -> TermId {
        self.intern(name, &[])
    }

    fn is(&self, i: u32, functor: Symbol, args: &[TermId]) -> bool {
        let e = self.entries[i as usize];
        e.functor == functor && self.args_of(e) == args
    }

    fn args_of(&self, e: Entry) -> &[TermId] {
        &self.args[e.args_start as usize..(e.args_start + e.arity) as usize]
    }

    /// The function symbol (or the atom itself) of a term.
    pub fn functor(&self, t: TermId) -> Symbol {
        self.entries[t.0 as usize].functor
    }

    /// The arguments of a term (empty for an atom).
    pub fn args(&self, t: TermId) -> &[TermId] {
        self.args_of(self.entries[t.0 as usize])
    }

    /// Nesting depth: 1 for an atom.
    pub fn depth(&self, t: TermId) -> usize {
        self.entries[t.0 as usize].depth as usize
    }

    /// Writes a term in KIF syntax, its names as first written.
    pub fn write(&self, out: &mut String, t: TermId, symbols: &Symbols) {
        let e = self.entries[t.0 as usize];
        if e.arity == 0 {
            out.push_str(symbols.spelling(e.functor));
            return;
        }
        out.push('(');
        out.push_str(symbols.spelling(e.functor));
        for &a in self.args_of(e) {
            out.push(' ');
            self.write(out, a, symbols);
        }
        out.push(')');
    }

    /// A term in KIF syntax, its names as first written.
    pub fn text(&self, t: TermId, symbols: &Symbols) -> String {
        let mut s = String::new();
        self.write(&mut s, t, symbols);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_terms_get_equal_ids() {
        let mut symbols = Symbols::new();
        let (cell, a, one) = (
            symbols.intern("cell"),
            symbols.intern("a"),
            symbols.intern("1"),
        );
        let mut t = TermTable::new();
        let (ta, t1) = (t.atom(a), t.atom(one));
        let c1 = t.intern(cell, &[ta, t1]);
        let c2 = t.intern(cell, &[ta, t1]);
        assert_eq!(c1, c2);
        assert_ne!(c1, t.intern(cell, &[t1, ta]));
        assert_eq!(t.lookup(cell, &[ta, t1]), Some(c1));
        assert_eq!(t.lookup(cell, &[ta, ta]), None);
        assert_eq!(t.text(c1, &symbols), "(cell a 1)");
        assert_eq!(t.depth(c1), 2);
    }

    #[test]
    fn truncating_forgets_the_later_terms_only() {
        let mut symbols = Symbols::new();
        let (f, a, b) = (
            symbols.intern("f"),
            symbols.intern("a"),
            symbols.intern("b"),
        );
        let mut t = TermTable::new();
        let (ta, tb) = (t.atom(a), t.atom(b));
        let fa = t.intern(f, &[ta]);
        let mark = t.len();
        let fab = t.intern(f, &[ta, tb]);
        t.intern(f, &[fab, fab]);
        assert!(t.bytes_since(mark) > 0);
        t.truncate(mark);
        assert_eq!((t.len(), t.bytes_since(mark)), (mark, 0));
        assert_eq!(t.lookup(f, &[ta, tb]), None);
        assert_eq!(t.lookup(f, &[ta]), Some(fa));
        assert_eq!(t.text(fa, &symbols), "(f a)");
        // The forgotten ids are given again, to whatever comes next.
        let fb = t.intern(f, &[tb]);
        assert_eq!(fb, fab);
        assert_eq!(t.text(fb, &symbols), "(f b)");
        assert_eq!(t.args(fb), &[tb]);
    }
}
