//! The canonical layout of a KIF rules file: what `gdl fmt` writes.
//!
//! Only the white space between the words, parentheses and comments of the
//! file changes, so the formatted file reads as the same rules. The layout:
//!
//! - A list that fits within [`WIDTH`] columns is written on one line,
//!   with one space between its items and none inside its parentheses. One
//!   that does not (or that holds a comment) is broken, Lisp style: its
//!   first word and first argument on the first line, every other item on
//!   a line of its own, aligned under the first argument. A rule
//!   `(<= head body ...)` too long for one line thus has its head on the
//!   first line and one body literal a line, indented by four columns.
//! - Every top-level form starts a line, except that facts the author wrote
//!   on one line (such as `(index 1) (index 2) (index 3)`) stay together
//!   while the line fits.
//! - One blank line is kept where the author left one or more between
//!   top-level forms; none at the start or the end, nor inside a form.
//! - Comments are kept, their text as written (trailing white space
//!   removed): one after a form on its line stays there, one on a line of
//!   its own gets a line of its own, indented as the forms around it.
//! - Lines end with `\n`, with no trailing white space, and the file ends
//!   with one line break.
//!
//! Formatting a formatted file changes nothing.

use crate::error::Diagnostic;
use crate::source::Span;
use crate::syntax::kif::{Written, read_written};

/// The column within which lines are kept where their forms allow it.
pub const WIDTH: usize = 100;

/// The canonical layout of a rules file (see the module's comment), or the
/// syntax errors that stop it from being read: parentheses that do not
/// match, lists nested deeper than `max_nesting`, characters that are not
/// GDL's. Only the s-expressions are read, so a file that is not a valid
/// game (an unsafe variable, say) is formatted all the same.
pub fn format_source(text: &str, max_nesting: usize) -> Result<String, Vec<Diagnostic>> {
    let forms = read_written(text, max_nesting)?;
    let nodes = Node::all(&forms, text, 0);
    let mut printer = Printer {
        text,
        out: String::with_capacity(text.len() + text.len() / 8),
        column: 0,
    };
    printer.file(&nodes);
    Ok(printer.out)
}

/// A form or comment with what its layout needs to know of the text.
struct Node {
    /// Where it is written.
    span: Span,
    /// What it is.
    kind: Kind,
    /// Its width on one line, if it can be written on one (it holds no
    /// comment).
    flat: Option<usize>,
    /// Whether it starts on the line where what comes before it (the form
    /// before it, or the `(` of its list) ends.
    same_line: bool,
    /// Whether a blank line comes before it.
    blank_before: bool,
}

/// The kinds of nodes.
enum Kind {
    /// An atom or a variable.
    Word,
    /// A comment.
    Comment,
    /// A list of nodes.
    List(Vec<Node>),
}

impl Node {
    /// The nodes of `forms`, the first of which comes after the text ending
    /// at `after`.
    fn all(forms: &[Written], text: &str, mut after: usize) -> Vec<Node> {
        let mut nodes = Vec::with_capacity(forms.len());
        for form in forms {
            let span = form.span();
            let gap = &text[after..span.start as usize];
            let breaks = gap.bytes().filter(|&b| b == b'\n').count();
            let (kind, flat) = match form {
                Written::Word(_) => (Kind::Word, Some((span.end - span.start) as usize)),
                Written::Comment(_) => (Kind::Comment, None),
                Written::List(items, _) => {
                    let items = Node::all(items, text, span.start as usize + 1);
                    let flat = (items.iter())
                        .map(|n| n.flat)
                        .sum::<Option<usize>>()
                        .map(|w| w + 2 + items.len().saturating_sub(1));
                    (Kind::List(items), flat)
                }
            };
            nodes.push(Node {
                span,
                kind,
                flat,
                same_line: breaks == 0,
                blank_before: breaks >= 2,
            });
            after = span.end as usize;
        }
        nodes
    }

    /// Whether it is a comment.
    fn is_comment(&self) -> bool {
        matches!(self.kind, Kind::Comment)
    }

    /// Whether it is a fact that fits on one line: a list that is not a
    /// rule `(<= ...)` and holds no comment.
    fn is_flat_fact(&self, text: &str) -> bool {
        match &self.kind {
            Kind::List(items) => {
                self.flat.is_some() && !matches!(items.first(), Some(n) if n.text(text) == "<=")
            }
            _ => false,
        }
    }

    /// Its text as written (a comment's without trailing white space).
    fn text<'t>(&self, text: &'t str) -> &'t str {
        text[self.span.start as usize..self.span.end as usize].trim_end()
    }
}

/// The formatted text being written.
struct Printer<'a> {
    /// The file's text.
    text: &'a str,
    /// What is written so far.
    out: String,
    /// The column where the next character goes (0 at the start of a line).
    column: usize,
}

impl Printer<'_> {
    /// Writes text that holds no line break.
    fn write(&mut self, s: &str) {
        self.out.push_str(s);
        self.column += s.chars().count();
    }

    /// Ends the line and indents the next one.
    fn newline(&mut self, indent: usize) {
        self.out.push('\n');
        self.out.push_str(&" ".repeat(indent));
        self.column = indent;
    }

    /// The top-level forms and comments.
    fn file(&mut self, nodes: &[Node]) {
        let mut previous: Option<(&Node, bool)> = None;
        for node in nodes {
            if let Some((before, one_line)) = previous {
                if node.is_comment() && node.same_line {
                    self.write(" ");
                } else if node.blank_before {
                    self.out.push('\n');
                    self.newline(0);
                } else if node.same_line
                    && one_line
                    && before.is_flat_fact(self.text)
                    && node.is_flat_fact(self.text)
                    && node.flat.is_some_and(|w| self.column + 1 + w <= WIDTH)
                {
                    self.write(" ");
                } else {
                    self.newline(0);
                }
            }
            let one_line = self.node(node);
            previous = Some((node, one_line));
        }
        if !self.out.is_empty() {
            self.out.push('\n');
        }
    }

    /// Writes a node from the current column; whether it took one line.
    fn node(&mut self, node: &Node) -> bool {
        match &node.kind {
            Kind::Word | Kind::Comment => {
                self.write(node.text(self.text));
                true
            }
            Kind::List(items) => match node.flat {
                Some(width) if self.column + width <= WIDTH => {
                    self.flat(node);
                    true
                }
                _ => {
                    self.broken(items);
                    false
                }
            },
        }
    }

    /// Writes a node on one line (it holds no comment).
    fn flat(&mut self, node: &Node) {
        match &node.kind {
            Kind::Word | Kind::Comment => self.write(node.text(self.text)),
            Kind::List(items) => {
                self.write("(");
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.write(" ");
                    }
                    self.flat(item);
                }
                self.write(")");
            }
        }
    }

    /// Writes a list over several lines: its first word and first argument
    /// on the first line, the other items aligned under that argument.
    fn broken(&mut self, items: &[Node]) {
        self.write("(");
        let mut align = self.column;
        let mut rest = items;
        if let [
            first @ Node {
                kind: Kind::Word, ..
            },
            second,
            ..,
        ] = items
            && !second.is_comment()
        {
            self.write(first.text(self.text));
            self.write(" ");
            align = self.column;
            rest = &items[1..];
        }
        for (i, item) in rest.iter().enumerate() {
            if i > 0 {
                if item.is_comment() && item.same_line {
                    self.write(" ");
                } else {
                    self.newline(align);
                }
            }
            self.node(item);
        }
        if items.last().is_some_and(Node::is_comment) {
            self.newline(align);
        }
        self.write(")");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::DEFAULT_MAX_NESTING;

    fn format(text: &str) -> String {
        let once = format_source(text, DEFAULT_MAX_NESTING).unwrap();
        let twice = format_source(&once, DEFAULT_MAX_NESTING).unwrap();
        assert_eq!(once, twice, "formatting is not idempotent on {text:?}");
        once
    }

    #[test]
    fn short_forms_go_on_one_line_and_long_rules_one_literal_a_line() {
        assert_eq!(
            format("(  <= (p ?x)\n  (q ?x)   (not ( r ?x )))"),
            "(<= (p ?x) (q ?x) (not (r ?x)))\n"
        );
        let long = format!(
            "(<= (legal ?r (move ?a ?b)) (true (control ?r)) (true (cell ?a {0})) (true (cell ?b {0})) (distinct ?a ?b))",
            "x".repeat(20)
        );
        let expected = format!(
            "(<= (legal ?r (move ?a ?b))\n    (true (control ?r))\n    (true (cell ?a {0}))\n    (true (cell ?b {0}))\n    (distinct ?a ?b))\n",
            "x".repeat(20)
        );
        assert_eq!(format(&long), expected);
    }

    #[test]
    fn facts_on_one_line_stay_together_and_rules_start_a_line() {
        assert_eq!(
            format("(index 1)  (index 2)\n(index 3)\n\n\n\n(<= p q) (<= q r)\n"),
            "(index 1) (index 2)\n(index 3)\n\n(<= p q)\n(<= q r)\n"
        );
    }

    #[test]
    fn comments_are_kept_where_they_belong() {
        let text = "; head\r\n\n(role a) ; the player   \n(<= (p ?x) ; why\n ; more\n (q ?x) ; last\n)\n;end";
        assert_eq!(
            format(text),
            "; head\n\n(role a) ; the player\n(<= (p ?x) ; why\n    ; more\n    (q ?x) ; last\n    )\n;end\n"
        );
        assert_eq!(format(""), "");
        assert_eq!(format("\n\n; only\n\n"), "; only\n");
        assert_eq!(format("(; c\n a b)"), "(; c\n a\n b)\n");
    }

    #[test]
    fn broken_text_is_refused_with_the_readers_errors() {
        let errors = format_source("(a (b)", DEFAULT_MAX_NESTING).unwrap_err();
        assert_eq!(errors[0].message, "unclosed `(`");
        let errors = format_source("(a \"b\")", DEFAULT_MAX_NESTING).unwrap_err();
        assert_eq!(errors[0].span.start, 3);
    }
}
