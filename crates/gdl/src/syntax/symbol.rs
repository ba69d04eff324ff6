//! Interned symbols: atom, relation, function and variable names.

use crate::source::Span;
use indexmap::IndexSet;

/// An interned name. Names compare case-insensitively, so they are interned
/// in lower case (two symbols are equal exactly when their indices are),
/// and shown as first written (see [`Symbols::spelling`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Symbol(pub u32);

/// The table of interned names of one rules file.
#[derive(Clone, Debug, Default)]
pub struct Symbols {
    /// The names in lower case: what symbols are matched by.
    names: IndexSet<Box<str>>,
    /// Per symbol, its first spelling when that was not in lower case
    /// (`None` further on, or past the end, for names first met in lower
    /// case): what symbols are shown as.
    spellings: Vec<Option<Box<str>>>,
    /// Per symbol read from a file: where it was first written, and how
    /// when that was not in lower case.
    written: Vec<Option<(Span, Option<Box<str>>)>>,
    /// Names written in two spellings that differ in case, the first two
    /// met of each (see `case_variants`).
    variants: Vec<CaseVariant>,
}

/// A name written in two spellings that differ only in case, such as
/// `nextRank` and `nextrank`: one name in GDL, two in ggp-base.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseVariant {
    /// The name.
    pub symbol: Symbol,
    /// The first spelling, and where it is written.
    pub first: (Box<str>, Span),
    /// The first other spelling, and where it is written.
    pub other: (Box<str>, Span),
}

impl Symbols {
    /// An empty table.
    pub fn new() -> Symbols {
        Symbols::default()
    }

    /// The symbol for `name`, matched without case, adding it if new; a new
    /// name keeps its spelling for display (see [`Symbols::spelling`]).
    pub fn intern(&mut self, name: &str) -> Symbol {
        if !name.bytes().any(|b| b.is_ascii_uppercase()) {
            if let Some(i) = self.names.get_index_of(name) {
                return Symbol(i as u32);
            }
            let (i, _) = self.names.insert_full(name.into());
            return Symbol(i as u32);
        }
        let lower = name.to_ascii_lowercase();
        if let Some(i) = self.names.get_index_of(lower.as_str()) {
            return Symbol(i as u32);
        }
        let (i, _) = self.names.insert_full(lower.into());
        if self.spellings.len() <= i {
            self.spellings.resize(i + 1, None);
        }
        self.spellings[i] = Some(name.into());
        Symbol(i as u32)
    }

    /// The symbol for `name` as written at `at` in a file: `intern`, and
    /// the spelling remembered, so that names written in two spellings
    /// that differ in case are found (see `case_variants`).
    pub fn intern_written(&mut self, name: &str, at: Span) -> Symbol {
        let s = self.intern(name);
        let spelling = name
            .bytes()
            .any(|b| b.is_ascii_uppercase())
            .then(|| name.into());
        let i = s.0 as usize;
        if self.written.len() <= i {
            self.written.resize(i + 1, None);
        }
        match &self.written[i] {
            None => self.written[i] = Some((at, spelling)),
            Some((first_at, first)) if *first != spelling => {
                if !self.variants.iter().any(|v| v.symbol == s) {
                    let text =
                        |w: &Option<Box<str>>| w.clone().unwrap_or_else(|| self.name(s).into());
                    self.variants.push(CaseVariant {
                        symbol: s,
                        first: (text(first), *first_at),
                        other: (text(&spelling), at),
                    });
                }
            }
            Some(_) => {}
        }
        s
    }

    /// The names written in two spellings that differ in case, in the
    /// order their second spelling was met.
    pub fn case_variants(&self) -> &[CaseVariant] {
        &self.variants
    }

    /// The symbol for `name` if it was interned already.
    pub fn get(&self, name: &str) -> Option<Symbol> {
        self.names
            .get_index_of(name.to_ascii_lowercase().as_str())
            .map(|i| Symbol(i as u32))
    }

    /// The name of a symbol in lower case: what it is matched by (compare
    /// with this, never with its spelling).
    pub fn name(&self, s: Symbol) -> &str {
        &self.names[s.0 as usize]
    }

    /// The name of a symbol as first written (in the rules file, for the
    /// names it has): what every printer shows. It differs from
    /// [`Symbols::name`] in the case of its ASCII letters only.
    pub fn spelling(&self, s: Symbol) -> &str {
        match self.spellings.get(s.0 as usize) {
            Some(Some(written)) => written,
            _ => self.name(s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_without_case_and_show_as_first_written() {
        let mut symbols = Symbols::new();
        let s = symbols.intern("thrustCounter");
        assert_eq!(symbols.intern("THRUSTCOUNTER"), s);
        assert_eq!(symbols.intern("thrustcounter"), s);
        assert_eq!(symbols.get("ThrustCounter"), Some(s));
        assert_eq!(symbols.name(s), "thrustcounter");
        assert_eq!(symbols.spelling(s), "thrustCounter");
        // A name first met in lower case keeps that spelling.
        let t = symbols.intern("islist");
        assert_eq!(symbols.intern("isList"), t);
        assert_eq!(symbols.spelling(t), "islist");
        // Written in place, the first spelling wins there too.
        let u = symbols.intern_written("Noop", Span::new(0, 4));
        symbols.intern_written("NOOP", Span::new(5, 9));
        assert_eq!((symbols.name(u), symbols.spelling(u)), ("noop", "Noop"));
        assert_eq!(symbols.case_variants().len(), 1);
    }
}
