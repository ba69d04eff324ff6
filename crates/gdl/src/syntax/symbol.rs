//! Interned symbols: atom, relation, function and variable names.

use indexmap::IndexSet;

/// An interned name. Names compare case-insensitively, so they are stored in
/// lower case; two symbols are equal exactly when their indices are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Symbol(pub u32);

/// The table of interned names of one rules file.
#[derive(Clone, Debug, Default)]
pub struct Symbols {
    names: IndexSet<Box<str>>,
}

impl Symbols {
    /// An empty table.
    pub fn new() -> Symbols {
        Symbols::default()
    }

    /// The symbol for `name`, lower-cased, adding it if new.
    pub fn intern(&mut self, name: &str) -> Symbol {
        let lower;
        let name = if name.bytes().any(|b| b.is_ascii_uppercase()) {
            lower = name.to_ascii_lowercase();
            lower.as_str()
        } else {
            name
        };
        if let Some(i) = self.names.get_index_of(name) {
            return Symbol(i as u32);
        }
        let (i, _) = self.names.insert_full(name.into());
        Symbol(i as u32)
    }

    /// The symbol for `name` if it was interned already.
    pub fn get(&self, name: &str) -> Option<Symbol> {
        self.names
            .get_index_of(name.to_ascii_lowercase().as_str())
            .map(|i| Symbol(i as u32))
    }

    /// The (lower-case) name of a symbol.
    pub fn name(&self, s: Symbol) -> &str {
        &self.names[s.0 as usize]
    }
}
