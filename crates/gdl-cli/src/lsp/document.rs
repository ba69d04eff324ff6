//! An open document: its text as the editor has it, kept in step with its
//! changes, places in it converted between the library's byte offsets and
//! the protocol's lines and UTF-16 columns, and what the library makes of
//! it (diagnostics and outline), computed once a change.

use gdl::{Diagnostic, Outline, Span};
use lsp_types::{Position, Range, TextDocumentContentChangeEvent};

/// A document the editor has open.
pub struct Document {
    /// Its name, for the syntax it is read in (`.hrf`: infix) when its
    /// language does not say.
    pub name: String,
    /// The syntax its language says (see [`syntax_of_language`]), if it
    /// says one.
    language: Option<gdl::Syntax>,
    /// Its text.
    pub text: String,
    /// The version the editor gave its text.
    pub version: i32,
    /// The byte offset of the start of each line.
    line_starts: Vec<usize>,
    /// Every diagnostic of the text (`gdl check`'s).
    pub diagnostics: Vec<Diagnostic>,
    /// The outline of the text, when it reads as rules.
    pub outline: Option<Outline>,
    /// The outline of the last text that read as rules, for completion
    /// while a form is half typed.
    pub last_outline: Option<Outline>,
}

/// The syntax an editor's language id names: infix for an id that says
/// so (VS Code's `ggp-gdl-infix`, Neovim's `gdl_infix`, Helix's and
/// Emacs's `gdl-infix`, or `hrf`), KIF for the ids that can only mean it
/// (VS Code's `ggp-gdl`, `kif`), none for any other (then the name or
/// text decides, as for every command: so does `gdl`, which a setup may
/// give files of either syntax).
pub fn syntax_of_language(language: &str) -> Option<gdl::Syntax> {
    let id = language.to_ascii_lowercase();
    if id == "hrf" || (id.contains("gdl") && id.contains("infix")) {
        Some(gdl::Syntax::Infix)
    } else if matches!(id.as_str(), "ggp-gdl" | "kif") {
        Some(gdl::Syntax::Kif)
    } else {
        None
    }
}

impl Document {
    /// A document of `text`, analysed (its syntax that of its text).
    #[cfg(test)]
    pub fn new(text: String, version: i32) -> Document {
        Document::named("document".to_string(), text, version)
    }

    /// A document named `name` (a path: `.hrf` is infix) of `text`,
    /// analysed.
    pub fn named(name: String, text: String, version: i32) -> Document {
        Document::opened(name, "", text, version)
    }

    /// A document the editor opened: named `name`, of the language
    /// `language` (the editor's id for it), whose text is `text`; read in
    /// the syntax the language says, else in that of its name or text.
    pub fn opened(name: String, language: &str, text: String, version: i32) -> Document {
        let mut document = Document {
            name,
            language: syntax_of_language(language),
            text,
            version,
            line_starts: Vec::new(),
            diagnostics: Vec::new(),
            outline: None,
            last_outline: None,
        };
        document.analyse();
        document
    }

    /// Applies the editor's changes in order (a change with a range
    /// replaces that range, one without the whole text), then analyses the
    /// new text.
    pub fn change(&mut self, changes: Vec<TextDocumentContentChangeEvent>, version: i32) {
        for change in changes {
            match change.range {
                Some(range) => {
                    let start = self.offset(range.start);
                    let end = self.offset(range.end).max(start);
                    self.text.replace_range(start..end, &change.text);
                }
                None => self.text = change.text,
            }
            self.index_lines();
        }
        self.version = version;
        self.analyse();
    }

    /// Reads the text through the library: diagnostics and outline.
    fn analyse(&mut self) {
        self.index_lines();
        let (_, diagnostics, outline) =
            gdl::outline_source_in(&self.name, &self.text, self.syntax());
        self.diagnostics = diagnostics;
        if outline.is_some() {
            self.last_outline.clone_from(&outline);
        }
        self.outline = outline;
    }

    fn index_lines(&mut self) {
        self.line_starts.clear();
        self.line_starts.push(0);
        (self.line_starts).extend(self.text.match_indices('\n').map(|(i, _)| i + 1));
    }

    /// The syntax of the text, KIF or infix: the one its language says,
    /// else the one its name or text says (as every command reads a file).
    pub fn syntax(&self) -> gdl::Syntax {
        (self.language).unwrap_or_else(|| gdl::Syntax::of(&self.name, &self.text))
    }

    /// The protocol's position of a byte offset (clamped to the text, and
    /// to the start of the character that holds it).
    pub fn position(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line];
        let column = self.text[start..offset].encode_utf16().count();
        Position::new(line as u32, column as u32)
    }

    /// The byte offset of a position of the protocol: a line past the end
    /// is the end of the text, a column past the end of its line the end
    /// of the line, a column inside a character that character's start.
    pub fn offset(&self, position: Position) -> usize {
        let line = position.line as usize;
        let Some(&start) = self.line_starts.get(line) else {
            return self.text.len();
        };
        let end = self
            .line_starts
            .get(line + 1)
            .map_or(self.text.len(), |&next| next - 1);
        let target = position.character as usize;
        let mut units = 0usize;
        for (i, c) in self.text[start..end].char_indices() {
            let next = units + c.len_utf16();
            if units >= target || next > target {
                return start + i;
            }
            units = next;
        }
        end
    }

    /// The protocol's range of a span.
    pub fn range(&self, span: Span) -> Range {
        Range::new(
            self.position(span.start as usize),
            self.position(span.end as usize),
        )
    }

    /// The whole text's range.
    pub fn whole(&self) -> Range {
        Range::new(Position::new(0, 0), self.position(self.text.len()))
    }

    /// The text a span covers (empty where it is not in the text).
    pub fn slice(&self, span: Span) -> &str {
        self.text
            .get(span.start as usize..span.end as usize)
            .unwrap_or("")
    }

    /// The word (a run of characters GDL allows in names, `?` included)
    /// at or just before byte `offset`, if any.
    pub fn word_at(&self, offset: usize) -> Option<Span> {
        let bytes = self.text.as_bytes();
        let offset = offset.min(bytes.len());
        let mut start = offset;
        while start > 0 && is_name_byte(bytes[start - 1]) {
            start -= 1;
        }
        let mut end = offset;
        while end < bytes.len() && is_name_byte(bytes[end]) {
            end += 1;
        }
        (end > start).then(|| Span::new(start, end))
    }
}

/// Whether a byte may be part of a GDL word: the characters of atoms, and
/// `?` of variables.
pub fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"_-+.'<>=!#$%&*/:@^~?".contains(&b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_language_decides_the_syntax_where_it_names_one() {
        let infix = gdl::Syntax::Infix;
        for id in ["ggp-gdl-infix", "gdl_infix", "gdl-infix", "HRF"] {
            assert_eq!(syntax_of_language(id), Some(infix), "{id}");
        }
        for id in ["ggp-gdl", "kif"] {
            assert_eq!(syntax_of_language(id), Some(gdl::Syntax::Kif), "{id}");
        }
        for id in ["gdl", "plaintext", ""] {
            assert_eq!(syntax_of_language(id), None, "{id}");
        }
        // A text whose start reads as KIF (a fact of no argument first),
        // in a file whose name says nothing: infix when the editor says so.
        let text = "open\nrole(x)\n";
        let said = Document::opened("untitled".into(), "ggp-gdl-infix", text.into(), 1);
        assert_eq!(said.syntax(), infix);
        assert!(!said.diagnostics.iter().any(|d| d.code == "keyword-arity"));
        let guessed = Document::opened("untitled".into(), "gdl", text.into(), 1);
        assert_eq!(guessed.syntax(), gdl::Syntax::Kif);
        assert!(
            guessed
                .diagnostics
                .iter()
                .any(|d| d.code == "keyword-arity")
        );
    }

    #[test]
    fn positions_count_utf16_units_and_survive_any_input() {
        let d = Document::new("(a)\n; é𝄞 x\n(b)".to_string(), 1);
        assert_eq!(d.position(4), Position::new(1, 0));
        // `é` is 2 bytes and 1 unit, `𝄞` 4 bytes and 2 units.
        let x = d.text.find(" x").unwrap() + 1;
        assert_eq!(d.position(x), Position::new(1, 6));
        assert_eq!(d.offset(Position::new(1, 6)), x);
        assert_eq!(d.offset(Position::new(1, 99)), d.text.find("\n(b").unwrap());
        assert_eq!(d.offset(Position::new(99, 0)), d.text.len());
        assert_eq!(d.position(999), Position::new(2, 3));
        // Inside the surrogate pair: the character's start.
        assert_eq!(d.offset(Position::new(1, 4)), d.text.find('𝄞').unwrap());
    }

    #[test]
    fn changes_apply_in_order_with_ranges_clamped() {
        let mut d = Document::new("(role a)\n".to_string(), 1);
        let change = |range: Option<Range>, text: &str| TextDocumentContentChangeEvent {
            range,
            range_length: None,
            text: text.to_string(),
        };
        let at = |l, c| Position::new(l, c);
        d.change(
            vec![
                change(Some(Range::new(at(0, 6), at(0, 7))), "white"),
                change(Some(Range::new(at(5, 0), at(9, 9))), "(role black)"),
                change(Some(Range::new(at(0, 3), at(0, 1))), ""),
            ],
            2,
        );
        assert_eq!(d.text, "(role white)\n(role black)");
        assert_eq!(d.version, 2);
        assert_eq!(d.outline.as_ref().unwrap().roles, ["white", "black"]);
        d.change(vec![change(None, "(role")], 3);
        assert!(d.outline.is_none() && d.last_outline.is_some());
        assert!(d.diagnostics.iter().any(Diagnostic::is_error));
    }
}
