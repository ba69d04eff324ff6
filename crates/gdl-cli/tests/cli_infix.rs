//! The infix syntax of the Stanford course (files `.hrf`) as a user meets
//! it: `gdl fmt --to infix` of tic-tac-toe and back, the converted game
//! played the same by `gdl trace`, `gdl check`'s errors located in an
//! infix file, and the infix layout of `gdl fmt`.

use crate::common::{expect, gdl_in, root, scratch};

/// A game in infix with mistakes the reader finds: a KIF variable, a `,`
/// between body literals, a name with a capital letter given arguments.
const SYNTAX_ERRORS: &str = "\
% tic-tac-toe, half typed
role(xplayer)
legal(P, mark(?x)) :- true(control(P))
next(cell(X)) :- does(P, mark(X)), true(control(P))
goal(P, 100) :- Line(P)
";

/// A game in infix that reads, with mistakes the checker finds: an unsafe
/// variable, a misspelt keyword, a relation of two arities.
const CHECK_ERRORS: &str = "\
% a one-move game with mistakes
role(player)
init(count(1))
legal(player, take(N)) :- true(count(M))
next(count(0)) :- does(player, take(1))
terminal :- true(count(0))
terminal :- trve(count(0), x)
goal(player, 100)
";

#[test]
fn tictactoe_converts_to_infix_and_back_and_plays_the_same() {
    let dir = scratch("infix_tictactoe");
    std::fs::copy(
        root().join("rules/tictactoe.gdl"),
        dir.join("tictactoe.gdl"),
    )
    .unwrap();
    let infix = expect(&dir, &["fmt", "--to", "infix", "tictactoe.gdl"], 0).stdout;
    insta::assert_snapshot!("tictactoe_infix", infix);
    std::fs::write(dir.join("tictactoe.hrf"), &infix).unwrap();
    // The infix file is in its layout, and converts back to the KIF file.
    let run = expect(&dir, &["fmt", "--check", "tictactoe.hrf"], 0);
    assert_eq!(run.stdout, "");
    let kif = expect(&dir, &["fmt", "--to", "kif", "tictactoe.hrf"], 0).stdout;
    insta::assert_snapshot!("tictactoe_back_to_kif", kif);
    // The same game: the same trace, step by step.
    for seed in ["1", "3"] {
        let a = expect(&dir, &["trace", "tictactoe.gdl", "--seed", seed], 0);
        let b = expect(&dir, &["trace", "tictactoe.hrf", "--seed", seed], 0);
        assert_eq!(a.stdout, b.stdout, "seed {seed}");
    }
    let run = expect(&dir, &["check", "tictactoe.hrf"], 0);
    assert_eq!(
        run.stdout,
        "tictactoe.hrf: valid, 2 roles (xplayer oplayer), 0 warnings\n"
    );
}

#[test]
fn check_locates_syntax_errors_in_an_infix_file() {
    let dir = scratch("infix_syntax_errors");
    std::fs::write(dir.join("broken.hrf"), SYNTAX_ERRORS).unwrap();
    let run = gdl_in(&dir, &["check", "broken.hrf"], "");
    assert_eq!(run.code, 1, "{}", run.screen());
    insta::assert_snapshot!("infix_syntax_errors", run.screen());
}

#[test]
fn check_locates_the_checkers_errors_in_an_infix_file() {
    let dir = scratch("infix_check_errors");
    // `.gdl`, but infix by its text: read as infix all the same.
    std::fs::write(dir.join("take.gdl"), CHECK_ERRORS).unwrap();
    let run = gdl_in(&dir, &["check", "take.gdl"], "");
    assert_eq!(run.code, 1, "{}", run.screen());
    insta::assert_snapshot!("infix_check_errors", run.screen());
}

#[test]
fn fmt_lays_an_infix_file_out_in_infix() {
    let dir = scratch("infix_fmt");
    let messy =
        "%  players\nrole( a )   role(b) % two\n\n\n\nlegal(R,noop):-role(R)&\n  ~ terminal\n";
    std::fs::write(dir.join("messy.hrf"), messy).unwrap();
    let run = expect(&dir, &["fmt", "--check", "messy.hrf"], 1);
    assert_eq!(run.stdout, "messy.hrf: not formatted\n");
    expect(&dir, &["fmt", "messy.hrf"], 0);
    let tidy = std::fs::read_to_string(dir.join("messy.hrf")).unwrap();
    assert_eq!(
        tidy,
        "%  players\nrole(a)\nrole(b) % two\n\nlegal(R, noop) :- role(R) & ~terminal\n"
    );
    expect(&dir, &["fmt", "--check", "messy.hrf"], 0);
    // `--to` and `--check` do not go together.
    let run = gdl_in(&dir, &["fmt", "--check", "--to", "kif", "messy.hrf"], "");
    assert_eq!(run.code, 2, "{}", run.screen());
}
