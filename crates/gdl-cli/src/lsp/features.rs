//! The answers of the language server, each from a document and what the
//! library made of it: diagnostics, hover, definition, references, rename,
//! document symbols, semantic tokens, completion, formatting and the quick
//! fixes of the checker's suggestions. None of them fails on text that does
//! not read: where the outline is missing they answer what the words of
//! the text alone tell, or nothing.

use super::document::{Document, is_name_byte};
use gdl::{Name, NameKind, Outline, Severity, Span};
use lsp_types as lsp;
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CompletionItem, CompletionItemKind,
    DiagnosticRelatedInformation, DiagnosticSeverity, DocumentSymbol, Hover, HoverContents,
    Location, MarkupContent, MarkupKind, NumberOrString, Range, SemanticToken, SemanticTokenType,
    SymbolKind, TextEdit, Url, WorkspaceEdit,
};
use std::collections::HashMap;

/// The most lines a hover lists the definitions of a name on.
const MAX_LINES_SHOWN: usize = 12;

/// The diagnostics of a document, as the protocol has them: a range, the
/// severity, the code, the message with its label and notes, and the
/// secondary places as related information.
pub fn diagnostics(document: &Document, uri: &Url) -> Vec<lsp::Diagnostic> {
    document
        .diagnostics
        .iter()
        .map(|d| diagnostic(document, uri, d))
        .collect()
}

/// One diagnostic of [`diagnostics`].
fn diagnostic(document: &Document, uri: &Url, d: &gdl::Diagnostic) -> lsp::Diagnostic {
    let mut message = d.message.clone();
    if !d.label.is_empty() {
        message.push_str(&format!(" ({})", d.label));
    }
    for note in &d.notes {
        message.push_str("\nnote: ");
        message.push_str(note);
    }
    let related: Vec<DiagnosticRelatedInformation> = (d.secondary.iter())
        .map(|(span, label)| DiagnosticRelatedInformation {
            location: Location::new(uri.clone(), document.range(*span)),
            message: label.clone(),
        })
        .collect();
    lsp::Diagnostic {
        range: document.range(d.span),
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(d.code.to_string())),
        source: Some("gdl".to_string()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        ..Default::default()
    }
}

/// The name or operator at byte `offset` of a document that reads as
/// rules: the outline, the occurrence's span, and its name (`None` for an
/// operator).
fn at(document: &Document, offset: usize) -> Option<(&Outline, Span, Option<usize>)> {
    let outline = document.outline.as_ref()?;
    let occurrence = outline.at(offset)?;
    Some((outline, occurrence.span, occurrence.name))
}

/// What a name is, for a hover: its kind and arity, where it is defined,
/// its stratum and what it depends on; a keyword's form and meaning.
pub fn hover(document: &Document, offset: usize) -> Option<Hover> {
    let (text, span) = match at(document, offset) {
        Some((outline, span, Some(i))) => (describe(document, outline, i), span),
        // An operator, or text that does not read: a keyword still has a
        // meaning.
        found => {
            let span = match found {
                Some((_, span, None)) => span,
                _ => document.word_at(offset)?,
            };
            // Infix writes `not` and `<=` as `~` and `:-`.
            let word = match document.slice(span) {
                "~" => "not".to_string(),
                ":-" => "<=".to_string(),
                word => word.to_ascii_lowercase(),
            };
            let help = gdl::keyword_help(&word)?;
            (format!("`{}`: {}", help.form, help.meaning), span)
        }
    };
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: text,
        }),
        range: Some(document.range(span)),
    })
}

/// "line 3, 4 and 9", the lines of some spans (the first
/// [`MAX_LINES_SHOWN`] of them).
fn lines(document: &Document, spans: &[Span]) -> String {
    let mut lines: Vec<u32> = (spans.iter())
        .map(|s| document.position(s.start as usize).line + 1)
        .collect();
    lines.dedup();
    let more = lines.len().saturating_sub(MAX_LINES_SHOWN);
    let shown: Vec<String> = lines
        .iter()
        .take(MAX_LINES_SHOWN)
        .map(u32::to_string)
        .collect();
    let mut text = format!(
        "line{} {}",
        if lines.len() == 1 { "" } else { "s" },
        shown.join(", ")
    );
    if more > 0 {
        text.push_str(&format!(" and {more} more"));
    }
    text
}

/// The hover text of the name `i`.
fn describe(document: &Document, outline: &Outline, i: usize) -> String {
    let name = &outline.names[i];
    let count = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    let mut out = Vec::new();
    match name.kind {
        NameKind::Relation => {
            out.push(format!("**relation** `{}/{}`", name.text, name.arity));
            if let Some(help) = name.keyword {
                out.push(format!("`{}`: {}", help.form, help.meaning));
            }
            if name.definitions.is_empty() {
                if name.keyword.is_none() {
                    out.push("no rule or fact defines it".to_string());
                }
            } else {
                let n = name.definitions.len();
                out.push(format!(
                    "defined by {n} {} ({})",
                    if n == 1 {
                        "rule or fact"
                    } else {
                        "rules and facts"
                    },
                    lines(document, &name.definitions)
                ));
            }
            if let Some((stratum, strata)) = name.stratum {
                out.push(format!("stratum {} of {strata}", stratum + 1));
            }
            if let (Some(state), Some(moves)) = (name.depends_on_state, name.depends_on_moves) {
                let yes = |b: bool| if b { "yes" } else { "no" };
                out.push(format!(
                    "depends on the state (`true`): {}; on the moves (`does`): {}",
                    yes(state),
                    yes(moves)
                ));
            }
        }
        NameKind::Function | NameKind::Constant => {
            let what = if name.kind == NameKind::Function {
                format!("**function** `{}/{}`", name.text, name.arity)
            } else if (outline.roles.iter()).any(|r| r.eq_ignore_ascii_case(&name.text)) {
                format!("**constant** `{}`, a role", name.text)
            } else {
                format!("**constant** `{}`", name.text)
            };
            out.push(what);
            let uses = outline.occurrences_of(i).count();
            if name.definitions.is_empty() {
                out.push(format!("{}, in no rule's head", count(uses, "use")));
            } else {
                out.push(format!(
                    "{}; in the heads of rules and facts at {}",
                    count(uses, "use"),
                    lines(document, &name.definitions)
                ));
            }
        }
        NameKind::Variable => {
            out.push(format!("**variable** `{}`", name.text));
            let uses = outline.occurrences_of(i).count();
            if let Some(rule) = name.rule.and_then(|r| outline.rules.get(r)) {
                let line = document.position(rule.span.start as usize).line + 1;
                out.push(format!(
                    "{} in the rule of `{}` at line {line}",
                    count(uses, "use"),
                    rule.head
                ));
            }
        }
    }
    out.join("\n\n")
}

/// Where the name at `offset` is defined: a relation's rules and facts, the
/// heads that make a function or a constant, a variable's first place in
/// its rule.
pub fn definition(document: &Document, uri: &Url, offset: usize) -> Vec<Location> {
    let Some((outline, _, Some(i))) = at(document, offset) else {
        return Vec::new();
    };
    let name = &outline.names[i];
    let spans: Vec<Span> = match name.kind {
        NameKind::Variable => outline.occurrences_of(i).map(|o| o.span).take(1).collect(),
        _ => name.definitions.clone(),
    };
    spans
        .into_iter()
        .map(|s| Location::new(uri.clone(), document.range(s)))
        .collect()
}

/// Every place the name at `offset` is written (its definitions too when
/// `declarations`).
pub fn references(
    document: &Document,
    uri: &Url,
    offset: usize,
    declarations: bool,
) -> Vec<Location> {
    let Some((outline, _, Some(i))) = at(document, offset) else {
        return Vec::new();
    };
    let definitions = &outline.names[i].definitions;
    outline
        .occurrences_of(i)
        .filter(|o| declarations || !definitions.contains(&o.span))
        .map(|o| Location::new(uri.clone(), document.range(o.span)))
        .collect()
}

/// The range of the name at `offset` if it can be renamed: a relation
/// that is not a keyword, a function, a constant or a variable.
pub fn prepare_rename(document: &Document, offset: usize) -> Result<Range, String> {
    let (outline, span, i) = at(document, offset).ok_or_else(cannot_rename)?;
    let i = i.ok_or("an operator of GDL cannot be renamed")?;
    if outline.names[i].keyword.is_some() {
        return Err(format!(
            "`{}` is a keyword of GDL: it cannot be renamed",
            outline.names[i].text
        ));
    }
    Ok(document.range(span))
}

/// Why there is nothing to rename.
fn cannot_rename() -> String {
    "no name here, or the file does not read as rules (fix its syntax errors first)".to_string()
}

/// The edits that rename the name at `offset` to `new` everywhere in the
/// file, or why it cannot be.
pub fn rename(
    document: &Document,
    uri: &Url,
    offset: usize,
    new: &str,
) -> Result<WorkspaceEdit, String> {
    prepare_rename(document, offset)?;
    let (outline, _, i) = at(document, offset).ok_or_else(cannot_rename)?;
    let i = i.ok_or_else(cannot_rename)?;
    let name = &outline.names[i];
    let word = !new.is_empty() && new.bytes().all(|b| is_name_byte(b) && b != b'?');
    if document.syntax() == gdl::Syntax::Infix {
        let infix_word = |first: fn(&u8) -> bool| {
            new.as_bytes().first().is_some_and(first)
                && new.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        };
        let valid = match name.kind {
            NameKind::Variable => infix_word(|b| b.is_ascii_uppercase() || *b == b'_'),
            _ => infix_word(|b| b.is_ascii_lowercase() || b.is_ascii_digit()),
        };
        if !valid {
            return Err(format!(
                "`{new}` is not an infix {}: use letters, digits and _, starting with {}",
                if name.kind == NameKind::Variable {
                    "variable"
                } else {
                    "name"
                },
                if name.kind == NameKind::Variable {
                    "a capital letter or _"
                } else {
                    "a lower-case letter or a digit"
                }
            ));
        }
    }
    let valid = match name.kind {
        _ if document.syntax() == gdl::Syntax::Infix => true,
        NameKind::Variable => {
            new.len() > 1 && new.starts_with('?') && {
                new[1..].bytes().all(|b| is_name_byte(b) && b != b'?')
            }
        }
        _ => word,
    };
    if !valid {
        return Err(format!(
            "`{new}` is not a GDL {}: use letters, digits and _ - + . ' < > = ! # $ % & * / : @ ^ ~{}",
            if name.kind == NameKind::Variable {
                "variable"
            } else {
                "name"
            },
            if name.kind == NameKind::Variable {
                ", after a `?`"
            } else {
                ""
            }
        ));
    }
    if name.kind == NameKind::Relation && gdl::keyword_help(&new.to_ascii_lowercase()).is_some() {
        return Err(format!(
            "`{new}` is a keyword of GDL: a relation cannot take its name"
        ));
    }
    let edits: Vec<TextEdit> = outline
        .occurrences_of(i)
        .map(|o| TextEdit::new(document.range(o.span), new.to_string()))
        .collect();
    Ok(WorkspaceEdit {
        changes: Some(HashMap::from([(uri.clone(), edits)])),
        ..Default::default()
    })
}

/// The roles, then each relation with its rules and facts.
#[allow(deprecated)] // `DocumentSymbol::deprecated`, which must be given.
pub fn symbols(document: &Document) -> Vec<DocumentSymbol> {
    let Some(outline) = document.outline.as_ref() else {
        return Vec::new();
    };
    let symbol =
        |name: String, detail: Option<String>, kind, range, selection, children| DocumentSymbol {
            name,
            detail,
            kind,
            tags: None,
            deprecated: None,
            range,
            selection_range: selection,
            children,
        };
    let mut out = Vec::new();
    let mut relations: Vec<(usize, Vec<usize>)> = Vec::new();
    for (r, rule) in outline.rules.iter().enumerate() {
        match relations.iter_mut().find(|(i, _)| *i == rule.relation) {
            Some((_, rules)) => rules.push(r),
            None => relations.push((rule.relation, vec![r])),
        }
    }
    for (i, rules) in relations {
        let name: &Name = &outline.names[i];
        if name.text.eq_ignore_ascii_case("role") {
            for &r in &rules {
                let rule = &outline.rules[r];
                let role = rule.head.trim_start_matches("(role ").trim_end_matches(')');
                out.push(symbol(
                    role.to_string(),
                    Some("role".to_string()),
                    SymbolKind::CONSTANT,
                    document.range(rule.span),
                    document.range(rule.name_span),
                    None,
                ));
            }
            continue;
        }
        let first = &outline.rules[rules[0]];
        let whole = (rules.iter()).fold(first.span, |s, &r| s.join(outline.rules[r].span));
        let children = (rules.iter())
            .map(|&r| {
                let rule = &outline.rules[r];
                symbol(
                    rule.head.clone(),
                    None,
                    SymbolKind::METHOD,
                    document.range(rule.span),
                    document.range(rule.name_span),
                    None,
                )
            })
            .collect();
        out.push(symbol(
            format!("{}/{}", name.text, name.arity),
            Some(format!(
                "{} rule{}",
                rules.len(),
                if rules.len() == 1 { "" } else { "s" }
            )),
            if name.keyword.is_some() {
                SymbolKind::KEY
            } else {
                SymbolKind::FUNCTION
            },
            document.range(whole),
            document.range(first.name_span),
            Some(children),
        ));
    }
    out
}

/// The kinds of semantic tokens, in the order of the legend.
pub const TOKEN_TYPES: [SemanticTokenType; 8] = [
    SemanticTokenType::KEYWORD,
    SemanticTokenType::FUNCTION,
    SemanticTokenType::STRUCT,
    SemanticTokenType::ENUM_MEMBER,
    SemanticTokenType::NUMBER,
    SemanticTokenType::VARIABLE,
    SemanticTokenType::COMMENT,
    SemanticTokenType::OPERATOR,
];

/// Indexes of [`TOKEN_TYPES`].
const KEYWORD: u32 = 0;
const RELATION: u32 = 1;
const FUNCTION: u32 = 2;
const CONSTANT: u32 = 3;
const NUMBER: u32 = 4;
const VARIABLE: u32 = 5;
const COMMENT: u32 = 6;

/// The semantic tokens of a document: comments, keywords and operators,
/// relations, functions, constants (numbers apart) and variables; from the
/// outline, or from the words alone when the text does not read.
pub fn semantic_tokens(document: &Document) -> Vec<SemanticToken> {
    let infix = document.syntax() == gdl::Syntax::Infix;
    let mut tokens: Vec<(Span, u32)> = comments(&document.text, infix)
        .into_iter()
        .map(|s| (s, COMMENT))
        .collect();
    let number = |s: Span| document.slice(s).bytes().all(|b| b.is_ascii_digit());
    match &document.outline {
        Some(outline) => {
            for o in &outline.occurrences {
                let kind = match o.name.map(|i| &outline.names[i]) {
                    None => KEYWORD,
                    Some(n) if n.keyword.is_some() => KEYWORD,
                    Some(n) => match n.kind {
                        NameKind::Relation => RELATION,
                        NameKind::Function => FUNCTION,
                        NameKind::Constant if number(o.span) => NUMBER,
                        NameKind::Constant => CONSTANT,
                        NameKind::Variable => VARIABLE,
                    },
                };
                tokens.push((o.span, kind));
            }
        }
        None => {
            for span in words(&document.text) {
                let word = document.slice(span);
                let kind = if word.starts_with('?')
                    || (infix && word.starts_with(|c: char| c.is_ascii_uppercase() || c == '_'))
                {
                    VARIABLE
                } else if gdl::keyword_help(&word.to_ascii_lowercase()).is_some() {
                    KEYWORD
                } else if number(span) {
                    NUMBER
                } else {
                    continue;
                };
                tokens.push((span, kind));
            }
        }
    }
    tokens.sort_by_key(|(s, _)| s.start);
    let mut out = Vec::with_capacity(tokens.len());
    let mut previous = lsp::Position::new(0, 0);
    for (span, kind) in tokens {
        let range = document.range(span);
        // Tokens do not span lines: comments end at theirs, and so do words.
        if range.start.line != range.end.line || range.end.character <= range.start.character {
            continue;
        }
        let delta_line = range.start.line - previous.line;
        let delta_start = if delta_line == 0 {
            range.start.character - previous.character
        } else {
            range.start.character
        };
        out.push(SemanticToken {
            delta_line,
            delta_start,
            length: range.end.character - range.start.character,
            token_type: kind,
            token_modifiers_bitset: 0,
        });
        previous = range.start;
    }
    out
}

/// The comments of a text (a `;` is never part of a word, so each one
/// starts a comment that ends with its line), without their line breaks;
/// in infix, from `%` or `//` outside double quotes.
fn comments(text: &str, infix: bool) -> Vec<Span> {
    if infix {
        return infix_comments(text);
    }
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = text[from..].find(';') {
        let start = from + i;
        let end = text[start..].find('\n').map_or(text.len(), |j| start + j);
        let end = start + text[start..end].trim_end().len();
        out.push(Span::new(start, end));
        from = end.max(start + 1);
    }
    out
}

/// The comments of an infix text: from `%` or `//` outside double quotes
/// to the end of the line.
fn infix_comments(text: &str) -> Vec<Span> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut quoted = false;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => quoted = !quoted,
            b'\n' => quoted = false,
            b'%' | b'/' if !quoted && (bytes[i] == b'%' || bytes.get(i + 1) == Some(&b'/')) => {
                let start = i;
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                let end = start + text[start..i].trim_end().len();
                out.push(Span::new(start, end));
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The words of a text outside its comments.
fn words(text: &str) -> Vec<Span> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b';' {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else if is_name_byte(bytes[i]) {
            let start = i;
            while i < bytes.len() && is_name_byte(bytes[i]) {
                i += 1;
            }
            out.push(Span::new(start, i));
        } else {
            i += 1;
        }
    }
    out
}

/// The completions anywhere in a document: the keywords and operators of
/// GDL, the relations of the file and its roles (those of the last text
/// that read, while the text is half typed).
pub fn completion(document: &Document) -> Vec<CompletionItem> {
    let mut items: Vec<CompletionItem> = Vec::new();
    let keywords = [
        "role", "init", "true", "does", "legal", "next", "terminal", "goal", "base", "input",
        "not", "or", "distinct", "<=",
    ];
    for keyword in keywords {
        let help = gdl::keyword_help(keyword);
        items.push(CompletionItem {
            label: keyword.to_string(),
            kind: Some(CompletionItemKind::KEYWORD),
            detail: help.map(|h| h.form.to_string()),
            documentation: help.map(|h| lsp::Documentation::String(h.meaning.to_string())),
            ..Default::default()
        });
    }
    let Some(outline) = document.outline.as_ref().or(document.last_outline.as_ref()) else {
        return items;
    };
    for name in &outline.names {
        if name.kind != NameKind::Relation || name.keyword.is_some() {
            continue;
        }
        items.push(CompletionItem {
            label: name.text.clone(),
            kind: Some(CompletionItemKind::FUNCTION),
            detail: Some(format!("relation/{}", name.arity)),
            ..Default::default()
        });
    }
    for role in &outline.roles {
        items.push(CompletionItem {
            label: role.clone(),
            kind: Some(CompletionItemKind::CONSTANT),
            detail: Some("role".to_string()),
            ..Default::default()
        });
    }
    items
}

/// The edit that lays the whole document out as `gdl fmt` does (none when
/// it already is), or the first syntax error that stops it.
pub fn formatting(document: &Document) -> Result<Vec<TextEdit>, String> {
    let syntax = document.syntax();
    match gdl::convert_source_in(
        &document.name,
        &document.text,
        syntax,
        syntax,
        gdl::DEFAULT_MAX_NESTING,
    ) {
        Ok(formatted) if formatted == document.text => Ok(Vec::new()),
        Ok(formatted) => Ok(vec![TextEdit::new(document.whole(), formatted)]),
        Err(errors) => {
            let first = &errors[0];
            let at = document.position(first.span.start as usize);
            Err(format!(
                "cannot format: {}:{}: {}",
                at.line + 1,
                at.character + 1,
                first.message
            ))
        }
    }
}

/// The quick fixes of the checker's suggestions ("did you mean `init`?")
/// whose diagnostics touch `range`: each replaces the misspelt name.
pub fn code_actions(document: &Document, uri: &Url, range: Range) -> Vec<CodeActionOrCommand> {
    let (from, to) = (document.offset(range.start), document.offset(range.end));
    let mut out = Vec::new();
    for d in &document.diagnostics {
        let Some(suggestion) = &d.suggestion else {
            continue;
        };
        let (start, end) = (d.span.start as usize, d.span.end as usize);
        if end < from || start > to {
            continue;
        }
        let within = suggestion.within;
        let inner = document.slice(within);
        let found = words(inner).into_iter().find(|w| {
            inner[w.start as usize..w.end as usize].eq_ignore_ascii_case(&suggestion.name)
        });
        let Some(word) = found else { continue };
        let word = Span::new(
            (within.start + word.start) as usize,
            (within.start + word.end) as usize,
        );
        let edit = TextEdit::new(document.range(word), suggestion.by.clone());
        out.push(CodeActionOrCommand::CodeAction(CodeAction {
            title: format!("Change `{}` to `{}`", document.slice(word), suggestion.by),
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![diagnostic(document, uri, d)]),
            edit: Some(WorkspaceEdit {
                changes: Some(HashMap::from([(uri.clone(), vec![edit])])),
                ..Default::default()
            }),
            is_preferred: Some(true),
            ..Default::default()
        }));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const GAME: &str = "; a game\n(role a) (role b)\n(init (cell 1))\n\
        (<= (legal ?r (mark ?x)) (role ?r) (true (cell ?x)))\n\
        (<= (next (cell ?x)) (does ?r (mark ?x)))\n\
        (<= terminal (true (cel 2)))\n(goal a 50) (goal b 50)\n(<= (p ?x) (intit ?x))\n";

    fn uri() -> Url {
        Url::parse("file:///g.gdl").unwrap()
    }

    fn offset_of(needle: &str, nth: usize) -> usize {
        GAME.match_indices(needle).nth(nth).unwrap().0 + 1
    }

    #[test]
    fn hover_tells_a_relations_arity_definitions_and_dependencies() {
        let d = Document::new(GAME.to_string(), 1);
        let Some(Hover {
            contents: HoverContents::Markup(m),
            ..
        }) = hover(&d, offset_of("legal", 0))
        else {
            panic!("no hover");
        };
        assert!(m.value.contains("`legal/2`"), "{}", m.value);
        assert!(m.value.contains("(legal role move)"), "{}", m.value);
        assert!(m.value.contains("line 4"), "{}", m.value);
        assert!(m.value.contains("the state (`true`): yes"), "{}", m.value);
        let variable = hover(&d, offset_of("?x", 0)).unwrap();
        assert!(format!("{variable:?}").contains("2 uses"));
    }

    #[test]
    fn definitions_references_and_renames_follow_the_name() {
        let d = Document::new(GAME.to_string(), 1);
        let cell = offset_of("cell", 1);
        let definitions = definition(&d, &uri(), cell);
        assert_eq!(definitions.len(), 2, "init and next make `cell`");
        assert_eq!(references(&d, &uri(), cell, true).len(), 3);
        assert_eq!(references(&d, &uri(), cell, false).len(), 1);
        let edit = rename(&d, &uri(), cell, "square").unwrap();
        assert_eq!(edit.changes.unwrap()[&uri()].len(), 3);
        assert!(rename(&d, &uri(), cell, "two words").is_err());
        assert!(rename(&d, &uri(), offset_of("legal", 0), "allowed").is_err());
        assert!(prepare_rename(&d, offset_of("(<=", 0)).is_err());
        let x = rename(&d, &uri(), offset_of("?x", 0), "?y").unwrap();
        assert_eq!(x.changes.unwrap()[&uri()].len(), 2, "one rule's `?x`");
    }

    #[test]
    fn suggestions_become_quick_fixes() {
        let d = Document::new(GAME.to_string(), 1);
        let actions = code_actions(&d, &uri(), d.whole());
        let titles: Vec<String> = (actions.iter())
            .map(|a| match a {
                CodeActionOrCommand::CodeAction(a) => a.title.clone(),
                CodeActionOrCommand::Command(c) => c.title.clone(),
            })
            .collect();
        assert!(
            titles.contains(&"Change `intit` to `init`".to_string()),
            "{titles:?}"
        );
        assert!(
            titles.contains(&"Change `cel` to `cell`".to_string()),
            "{titles:?}"
        );
    }

    #[test]
    fn tokens_symbols_and_completions_cover_the_file() {
        let d = Document::new(GAME.to_string(), 1);
        let tokens = semantic_tokens(&d);
        assert_eq!(tokens[0].token_type, COMMENT);
        assert!(tokens.iter().any(|t| t.token_type == VARIABLE));
        let names: Vec<String> = symbols(&d).into_iter().map(|s| s.name).collect();
        assert_eq!(&names[..3], ["a", "b", "init/1"]);
        let labels: Vec<String> = completion(&d).into_iter().map(|c| c.label).collect();
        assert!(labels.contains(&"p".to_string()) && labels.contains(&"b".to_string()));
        // Half typed: the words alone, and the last outline's names.
        let mut broken = Document::new(GAME.to_string(), 1);
        broken.change(
            vec![lsp::TextDocumentContentChangeEvent {
                range: None,
                range_length: None,
                text: format!("{GAME}(<= (q ?z"),
            }],
            2,
        );
        assert!(
            semantic_tokens(&broken)
                .iter()
                .any(|t| t.token_type == VARIABLE)
        );
        assert!(completion(&broken).iter().any(|c| c.label == "p"));
        assert!(formatting(&broken).unwrap_err().contains("unclosed"));
        assert!(
            hover(&broken, broken.text.len() - 6).is_some(),
            "`<=` has a meaning"
        );
    }
}
