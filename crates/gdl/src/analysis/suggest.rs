//! "Did you mean ...?": the known name closest to a misspelt one.

/// The candidate closest to `name` by edit distance (letters added, removed,
/// changed or swapped), when close enough to be a slip of the keyboard: one
/// edit for names of up to four characters, two for longer ones. Ties go to
/// the first candidate; `name` itself is never suggested. Case does not
/// count, as in GDL's names.
pub(crate) fn closest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let budget = if name.chars().count() <= 4 { 1 } else { 2 };
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        if c.eq_ignore_ascii_case(name) {
            continue;
        }
        let d = distance(name, c);
        if d <= budget && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// The optimal string alignment distance: insertions, deletions,
/// substitutions and swaps of neighbours, each one edit, without case.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().map(|c| c.to_ascii_lowercase()).collect();
    let b: Vec<char> = b.chars().map(|c| c.to_ascii_lowercase()).collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slips_of_the_keyboard_are_found_and_other_names_are_not() {
        let keywords = ["role", "init", "legal", "next", "terminal", "goal", "<="];
        assert_eq!(closest("intit", keywords), Some("init"));
        assert_eq!(closest("<-", keywords), Some("<="));
        assert_eq!(closest("termnial", keywords), Some("terminal"));
        assert_eq!(
            closest("next_rnak", ["next_rank", "next_file"]),
            Some("next_rank")
        );
        assert_eq!(closest("cell", keywords), None);
        assert_eq!(closest("init", keywords), None);
        assert_eq!(distance("abc", "acb"), 1);
        assert_eq!(distance("", "ab"), 2);
    }
}
