//! From text to rules: interned symbols and ground terms, the KIF reader,
//! the syntax tree and its normal form, and the canonical layout of a
//! rules file (`gdl fmt`).

pub(crate) mod ast;
pub(crate) mod format;
pub(crate) mod keywords;
pub(crate) mod kif;
pub(crate) mod natural;
pub(crate) mod normal;
pub(crate) mod symbol;
pub(crate) mod term;
