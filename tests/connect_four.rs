//! Connect four (7x6) (a benchmark game, not from a seed): random playouts, and the
//! oracle side by side with the rules file.

#[path = "oracle/connect_four.rs"]
mod connect_four;
mod oracle;

use connect_four::ConnectFour;

const RULES: &str = "rules/connect_four.gdl";

#[test]
fn random_playouts_end_well() {
    let seen = oracle::random_playouts(RULES, 1000, 1, 43);
    assert_eq!(seen.games, 1000);
}

#[test]
fn agrees_with_oracle() {
    let seen = oracle::compare::<ConnectFour>(RULES, 500, 2, 43);
    assert_eq!(seen.games, 500);
}
