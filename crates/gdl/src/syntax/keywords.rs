//! GDL's vocabulary, in one table: the relations the language gives a
//! meaning to, the operators of rule bodies, and what a goal value is. The
//! checker reads the arities and forms, the planner which relations are
//! keywords, the game what a goal value is.

/// A relation GDL gives a meaning to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Keyword {
    /// Its name, such as `legal`.
    pub name: &'static str,
    /// How many arguments it takes.
    pub arity: usize,
    /// How it is written, such as `(legal role move)`.
    pub form: &'static str,
    /// What it means, in a sentence (for an editor's hover).
    pub meaning: &'static str,
}

/// Every keyword relation: those of the game loop first (`role` to `goal`,
/// in the order the planner numbers them), then `base` and `input`.
pub(crate) const KEYWORDS: [Keyword; 10] = [
    keyword(
        "role",
        1,
        "(role name)",
        "declares a player of the game; only facts may define it",
    ),
    keyword(
        "init",
        1,
        "(init fact)",
        "a fact of the initial state; it cannot depend on the state or the moves",
    ),
    keyword(
        "true",
        1,
        "(true fact)",
        "holds when the fact is in the current state; only rule bodies read it",
    ),
    keyword(
        "does",
        2,
        "(does role move)",
        "holds when the role makes the move this step; only rule bodies read it",
    ),
    keyword(
        "legal",
        2,
        "(legal role move)",
        "the move is legal for the role in the current state",
    ),
    keyword(
        "next",
        1,
        "(next fact)",
        "the fact is in the next state, given the current state and the moves; only rule heads make it",
    ),
    keyword(
        "terminal",
        0,
        "terminal",
        "the game is over in the current state",
    ),
    keyword(
        "goal",
        2,
        "(goal role value)",
        "the role's payoff in the current state, a whole number from 0 to 100",
    ),
    keyword(
        "base",
        1,
        "(base fact)",
        "the fact may be in some state: every fact a state can hold, whatever the state",
    ),
    keyword(
        "input",
        2,
        "(input role move)",
        "the move may be legal for the role in some state: every move, whatever the state",
    ),
];

const fn keyword(
    name: &'static str,
    arity: usize,
    form: &'static str,
    meaning: &'static str,
) -> Keyword {
    Keyword {
        name,
        arity,
        form,
        meaning,
    }
}

/// The keyword named `name`, if it is one.
pub(crate) fn keyword_named(name: &str) -> Option<&'static Keyword> {
    KEYWORDS.iter().find(|k| k.name == name)
}

/// The operators of rule bodies, which no sentence may use as its
/// relation, with how each is written.
pub(crate) const OPERATORS: [(&str, &str); 3] = [
    ("not", "(not literal)"),
    ("or", "(or literal ...)"),
    ("distinct", "(distinct term term)"),
];

/// What a word GDL gives a meaning to is and how it is written: a keyword
/// relation, an operator of rule bodies or the rule arrow `<=`, for an
/// editor's hover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeywordHelp {
    /// How it is written, such as `(legal role move)`.
    pub form: &'static str,
    /// What it means, in a sentence.
    pub meaning: &'static str,
}

/// What GDL makes of the word `name` (in lower case), if it gives it a
/// meaning: a keyword relation such as `legal`, an operator (`not`, `or`,
/// `distinct`) or the rule arrow `<=`.
///
/// ```
/// let help = gdl::keyword_help("legal").unwrap();
/// assert_eq!(help.form, "(legal role move)");
/// assert!(gdl::keyword_help("cell").is_none());
/// ```
pub fn keyword_help(name: &str) -> Option<KeywordHelp> {
    if let Some(k) = keyword_named(name) {
        return Some(KeywordHelp {
            form: k.form,
            meaning: k.meaning,
        });
    }
    let meaning = match name {
        "<=" => "a rule: the head holds whenever every literal of the body does",
        "not" => "holds when the literal does not (negation as failure)",
        "or" => "holds when one of the literals does",
        "distinct" => "holds when the two terms differ",
        _ => return None,
    };
    let form = match name {
        "<=" => "(<= head literal ...)",
        _ => OPERATORS.iter().find(|(n, _)| *n == name)?.1,
    };
    Some(KeywordHelp { form, meaning })
}

/// The value of a goal written `text`, if it is one GDL allows: a whole
/// number from 0 to 100 in digits (`05` is 5; `+5`, `-0` and `5.0` are
/// not goal values). The checker refuses other constants in `goal` facts,
/// and the game refuses a derived goal that is not one.
pub(crate) fn goal_value(text: &str) -> Option<u8> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse::<u32>()
        .ok()
        .filter(|&n| n <= 100)
        .map(|n| n as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn goal_values_are_whole_numbers_from_0_to_100_in_digits() {
        assert_eq!(goal_value("0"), Some(0));
        assert_eq!(goal_value("100"), Some(100));
        assert_eq!(goal_value("50"), Some(50));
        assert_eq!(goal_value("007"), Some(7));
        for bad in [
            "",
            "101",
            "-1",
            "+5",
            "-0",
            "5.0",
            "50.5",
            "win",
            "99999999999999999999",
        ] {
            assert_eq!(goal_value(bad), None, "{bad}");
        }
    }
}
