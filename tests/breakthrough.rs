//! Classic 8x8 Breakthrough (a benchmark game, not from a seed): random playouts, and the
//! oracle side by side with the rules file.

#[path = "oracle/breakthrough.rs"]
mod breakthrough;
mod oracle;

use breakthrough::Breakthrough;

const RULES: &str = "rules/breakthrough.gdl";

#[test]
fn random_playouts_end_well() {
    let seen = oracle::random_playouts(RULES, 1000, 1, 200);
    assert_eq!(seen.games, 1000);
}

#[test]
fn agrees_with_oracle() {
    let seen = oracle::compare::<Breakthrough>(RULES, 500, 2, 200);
    assert_eq!(seen.games, 500);
}
