//! Hand-written games of a turn-taking game played on a rules file and on
//! its oracle side by side, for the hand-checked snapshot tests.
//!
//! A game is written one action a line: `w` or `b` (the role that acts; the
//! other plays `noop`) and the move as the rules file writes it:
//!
//! ```text
//! w (move d 3 e 4)
//! b (capture f 5 d 3)
//! ```

use crate::games;
use crate::oracle::{Oracle, ROLES};
use gdl::{Game, State};

/// The actions of a written game: (role index, move text).
pub fn moves_of(text: &str) -> Vec<(usize, String)> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| (usize::from(l.starts_with('b')), l[2..].trim().to_string()))
        .collect()
}

/// The actions of moves written in turn order, white first, the players
/// alternating.
pub fn in_turn(moves: &[&str]) -> Vec<(usize, String)> {
    moves
        .iter()
        .enumerate()
        .map(|(i, m)| (i % 2, m.to_string()))
        .collect()
}

/// The joint moves (role order) of actions, as `gdl::record::replay_text`
/// takes them.
pub fn joint_texts(moves: &[(usize, String)]) -> Vec<Vec<String>> {
    moves
        .iter()
        .map(|(side, m)| {
            let mut joint = vec!["noop".to_string(); ROLES.len()];
            joint[*side] = m.clone();
            joint
        })
        .collect()
}

/// The written game `text` played by `play` on the rules file `rules` and
/// on the oracle `O`, with its actions.
pub fn play_written<O: Oracle>(rules: &str, text: &str) -> (Vec<(usize, String)>, Played<O>) {
    let moves = moves_of(text);
    let played = play::<O>(rules, &moves);
    (moves, played)
}

/// A written game as the rules file played it.
pub struct Played<O> {
    /// The loaded rules file.
    pub game: Game,
    /// The states met, the initial one first: one more than the actions.
    pub states: Vec<State>,
    /// In each state, the legal moves of the role that acts (sorted texts);
    /// empty in a terminal state.
    pub legal: Vec<Vec<String>>,
    /// The oracle's positions, one per state.
    pub oracle: Vec<O>,
}

impl<O> Played<O> {
    /// Whether the state after `step` actions holds `fact`, such as
    /// `(cell d 1 bk)`.
    pub fn has(&self, step: usize, fact: &str) -> bool {
        games::has_fact(&self.game, &self.states[step], fact)
    }

    /// The facts (sorted) of the state after `step` actions.
    pub fn facts(&self, step: usize) -> Vec<String> {
        self.game.state_facts(&self.states[step])
    }

    /// Whether the state after `step` actions is terminal.
    pub fn is_terminal(&mut self, step: usize) -> bool {
        self.game.is_terminal(&self.states[step]).unwrap()
    }

    /// The goals (role order) of the state after `step` actions.
    pub fn goals(&mut self, step: usize) -> Vec<u8> {
        self.game.goals(&self.states[step]).unwrap()
    }

    /// The whole game as `gdl trace` prints it.
    pub fn trace(&mut self, moves: &[(usize, String)]) -> String {
        gdl::record::replay_text(&mut self.game, &joint_texts(moves)).unwrap()
    }
}

/// Plays `moves` on the rules file `rules` and on the oracle `O`, requiring
/// at every step the same state, the same end and the same legal moves for
/// each role (the idle role: `noop` only), and that each action is legal;
/// the game must end exactly after the last action or not at all.
pub fn play<O: Oracle>(rules: &str, moves: &[(usize, String)]) -> Played<O> {
    let mut game = games::load(rules);
    let mut state = game.initial_state();
    let mut position = O::initial();
    let mut states = vec![state.clone()];
    let mut oracle = vec![position.clone()];
    let mut legal: Vec<Vec<String>> = Vec::new();
    for step in 0..=moves.len() {
        let mut facts = game.state_facts(&state);
        facts.sort();
        assert_eq!(facts, position.facts(), "state after {step} actions");
        let terminal = game.is_terminal(&state).unwrap();
        assert_eq!(terminal, position.is_terminal(), "end after {step} actions");
        if terminal {
            assert_eq!(step, moves.len(), "the game ended after {step} actions");
            assert_eq!(game.goals(&state).unwrap(), position.goals().to_vec());
            legal.push(Vec::new());
            break;
        }
        let mut acting = Vec::new();
        for (i, name) in ROLES.iter().enumerate() {
            let texts = games::legal(&mut game, &state, i);
            assert_eq!(
                texts,
                position.legal_texts(i),
                "legal moves of {name} after {step} actions"
            );
            if texts != ["noop"] {
                acting = texts;
            }
        }
        let Some((side, text)) = moves.get(step) else {
            legal.push(acting);
            break;
        };
        assert!(
            acting.contains(text),
            "action {}: {text} is not legal for {}; legal: {acting:?}",
            step + 1,
            ROLES[*side],
        );
        legal.push(acting);
        let texts = &joint_texts(&moves[step..=step])[0];
        let joint: Vec<gdl::Move> = texts.iter().map(|t| game.parse_move(t).unwrap()).collect();
        state = game.next_state(&state, &joint).unwrap();
        let oracle_joint: [O::Move; 2] =
            std::array::from_fn(|i| position.legal_move(i, &texts[i]).unwrap());
        position.apply(&oracle_joint);
        states.push(state.clone());
        oracle.push(position.clone());
    }
    Played {
        game,
        states,
        legal,
        oracle,
    }
}
