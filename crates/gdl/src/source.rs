//! Source files and byte spans within them.

use std::fmt;

/// A half-open byte range `start..end` in one source file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// Byte offset of the first byte.
    pub start: u32,
    /// Byte offset one past the last byte.
    pub end: u32,
}

impl Span {
    /// The span covering `start..end`.
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    /// The smallest span covering both `self` and `other`.
    pub fn join(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// A rules file held in memory: its name (as given by the user) and text.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The name shown in diagnostics, usually the path as typed.
    pub name: String,
    /// The whole text of the file.
    pub text: String,
    line_starts: Vec<usize>,
}

/// A 1-based line and column (columns count characters, not bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineCol {
    /// Line number, from 1.
    pub line: usize,
    /// Column number, from 1, counted in characters.
    pub column: usize,
}

impl fmt::Display for LineCol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

impl SourceFile {
    /// Wraps a file's name and text.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> SourceFile {
        let text = text.into();
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        SourceFile {
            name: name.into(),
            text,
            line_starts,
        }
    }

    /// The line and column of a byte offset (an offset past the end counts
    /// as the end, one inside a character as that character's start).
    pub fn line_col(&self, offset: usize) -> LineCol {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line];
        let column = self.text[start..offset].chars().count() + 1;
        LineCol {
            line: line + 1,
            column,
        }
    }

    /// `name:line:column` for the start of a span.
    pub fn location(&self, span: Span) -> String {
        format!("{}:{}", self.name, self.line_col(span.start as usize))
    }

    /// The text a span covers.
    pub fn slice(&self, span: Span) -> &str {
        &self.text[span.start as usize..span.end as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_offset_has_a_line_and_column() {
        let f = SourceFile::new("f", "ab\n\u{e9}!");
        let at = |line, column| LineCol { line, column };
        assert_eq!(f.line_col(4), at(2, 1)); // inside the two bytes of é
        assert_eq!(f.line_col(5), at(2, 2));
        assert_eq!(f.line_col(99), at(2, 3));
    }
}
