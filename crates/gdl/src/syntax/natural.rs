//! The natural order of texts (terms, moves, facts): numbers compared as
//! numbers, letters without case, the one order that makes what gdl lists
//! (moves, facts, values) read the same whatever the engine's internal
//! order.

use std::cmp::Ordering;

/// Compares two texts in natural order: runs of digits compare as numbers,
/// everything else character by character, without case (as GDL compares
/// names; texts equal but for case then compare by their bytes). `(cell a
/// 9)` comes before `(cell a 10)`, and `(cell B 1)` before `(cell c 1)`: a
/// game's moves and facts come in the same order however its names are
/// written.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    folded_cmp(a.as_bytes(), b.as_bytes()).then_with(|| a.cmp(b))
}

/// `natural_cmp` with ASCII letters compared in lower case.
fn folded_cmp(mut a: &[u8], mut b: &[u8]) -> Ordering {
    loop {
        match (a.first(), b.first()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                let da = a.iter().take_while(|c| c.is_ascii_digit()).count();
                let db = b.iter().take_while(|c| c.is_ascii_digit()).count();
                let na = trim_zeros(&a[..da]);
                let nb = trim_zeros(&b[..db]);
                let ord = na
                    .len()
                    .cmp(&nb.len())
                    .then_with(|| na.cmp(nb))
                    .then_with(|| da.cmp(&db));
                if ord != Ordering::Equal {
                    return ord;
                }
                a = &a[da..];
                b = &b[db..];
            }
            (Some(x), Some(y)) => {
                let (x, y) = (x.to_ascii_lowercase(), y.to_ascii_lowercase());
                if x != y {
                    return x.cmp(&y);
                }
                a = &a[1..];
                b = &b[1..];
            }
        }
    }
}

fn trim_zeros(digits: &[u8]) -> &[u8] {
    let zeros = digits.iter().take_while(|&&c| c == b'0').count();
    &digits[zeros.min(digits.len().saturating_sub(1))..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natural_order_compares_numbers_as_numbers() {
        let facts = |t: &[&str]| -> Vec<String> { t.iter().map(|s| s.to_string()).collect() };
        let mut v = facts(&[
            "(cell a 10)",
            "(cell a 9)",
            "(cell b 1)",
            "(cell a 09)",
            "noop",
        ]);
        v.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            v,
            facts(&[
                "(cell a 9)",
                "(cell a 09)",
                "(cell a 10)",
                "(cell b 1)",
                "noop"
            ])
        );
        assert_eq!(natural_cmp("x2", "x10"), Ordering::Less);
        assert_eq!(natural_cmp("x", "x"), Ordering::Equal);
        // Without case: as if written in lower case, ties broken by bytes.
        assert_eq!(natural_cmp("(cell B 1)", "(cell c 1)"), Ordering::Less);
        assert_eq!(natural_cmp("(cell b 2)", "(cell B 10)"), Ordering::Less);
        assert_eq!(natural_cmp("_x", "Ax"), Ordering::Less);
        assert_eq!(natural_cmp("Ax", "ax"), Ordering::Less);
    }
}
