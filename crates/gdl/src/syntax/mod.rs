//! From text to rules: interned symbols and ground terms, the KIF and
//! infix readers, the syntax tree and its normal form, and the canonical
//! layout of a rules file in either syntax (`gdl fmt`).

pub(crate) mod ast;
pub(crate) mod convert;
pub(crate) mod format;
pub(crate) mod infix;
pub(crate) mod keywords;
pub(crate) mod kif;
pub(crate) mod natural;
pub(crate) mod normal;
pub(crate) mod symbol;
pub(crate) mod term;

/// The two syntaxes of GDL rules files that gdl reads.
///
/// ```
/// use gdl::Syntax;
/// assert_eq!(Syntax::of("ttt.hrf", "(role x)"), Syntax::Infix);
/// assert_eq!(Syntax::of("ttt.gdl", "role(x)\nrole(o)"), Syntax::Infix);
/// assert_eq!(Syntax::of("ttt.gdl", "; tic-tac-toe\n(role x)"), Syntax::Kif);
/// assert_eq!(Syntax::of("-", "% tic-tac-toe\nrole(x)"), Syntax::Infix);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Syntax {
    /// The usual prefix syntax, s-expressions: `(<= (legal ?p noop) (role ?p))`.
    #[default]
    Kif,
    /// The infix syntax of the Stanford GGP course and its Gamemaster
    /// (files `.hrf`): `legal(P, noop) :- role(P)`.
    Infix,
}

impl Syntax {
    /// The syntax of a file: infix when its name ends in `.hrf`, otherwise
    /// the one its text starts in (see [`Syntax::detect`]).
    pub fn of(name: &str, text: &str) -> Syntax {
        let extension = std::path::Path::new(name)
            .extension()
            .and_then(|e| e.to_str());
        if extension.is_some_and(|e| e.eq_ignore_ascii_case("hrf")) {
            return Syntax::Infix;
        }
        Syntax::detect(text)
    }

    /// The syntax a text starts in, past white space: KIF at a `(` or a
    /// `;` comment, infix at a `%` or `//` comment, or at a name followed
    /// by `(` or `:-`; KIF otherwise (an empty file, say).
    pub fn detect(text: &str) -> Syntax {
        let rest = text.trim_start();
        if rest.starts_with('%') || rest.starts_with("//") {
            return Syntax::Infix;
        }
        if rest.starts_with('"') {
            return Syntax::Infix;
        }
        let word = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let after = rest[word..].trim_start();
        if word > 0 && (after.starts_with('(') || after.starts_with(":-")) {
            return Syntax::Infix;
        }
        Syntax::Kif
    }

    /// The extension of files in this syntax: `gdl` or `hrf`.
    pub fn extension(self) -> &'static str {
        match self {
            Syntax::Kif => "gdl",
            Syntax::Infix => "hrf",
        }
    }

    /// Its name as `gdl fmt --to` takes it: `kif` or `infix`.
    pub fn name(self) -> &'static str {
        match self {
            Syntax::Kif => "kif",
            Syntax::Infix => "infix",
        }
    }
}
