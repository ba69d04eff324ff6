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
}

/// Every keyword relation: those of the game loop first (`role` to `goal`,
/// in the order the planner numbers them), then `base` and `input`.
pub(crate) const KEYWORDS: [Keyword; 10] = [
    keyword("role", 1, "(role name)"),
    keyword("init", 1, "(init fact)"),
    keyword("true", 1, "(true fact)"),
    keyword("does", 2, "(does role move)"),
    keyword("legal", 2, "(legal role move)"),
    keyword("next", 1, "(next fact)"),
    keyword("terminal", 0, "terminal"),
    keyword("goal", 2, "(goal role value)"),
    keyword("base", 1, "(base fact)"),
    keyword("input", 2, "(input role move)"),
];

const fn keyword(name: &'static str, arity: usize, form: &'static str) -> Keyword {
    Keyword { name, arity, form }
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
