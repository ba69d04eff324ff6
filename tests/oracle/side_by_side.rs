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

/// The joint moves (role order) of actions, as `gdl::trace::replay_text`
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
        self.game
            .state_facts(&self.states[step])
            .iter()
            .any(|f| f == fact)
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
        gdl::trace::replay_text(&mut self.game, &joint_texts(moves)).unwrap()
    }
}

/// Plays `moves` on the rules file `rules` and on the oracle `O`, requiring
/// at every step the same state, the same end and the same legal moves for
/// each role (the idle role: `noop` only), and that each action is legal;
/// the game must end exactly after the last action or not at all.
pub fn play<O: Oracle>(rules: &str, moves: &[(usize, String)]) -> Played<O> {
    let mut game = Game::load(rules).unwrap_or_else(|e| panic!("{}", e.render(false)));
    let roles = game.roles();
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
        for (i, &role) in roles.iter().enumerate() {
            let mut texts: Vec<String> = game
                .legal_moves(&state, role)
                .unwrap()
                .into_iter()
                .map(|m| game.move_text(m))
                .collect();
            texts.sort();
            let mut expected: Vec<String> = position.legal(i).iter().map(O::move_text).collect();
            expected.sort();
            assert_eq!(
                texts, expected,
                "legal moves of {} after {step} actions",
                ROLES[i]
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
        let oracle_joint: [O::Move; 2] = std::array::from_fn(|i| {
            position
                .legal(i)
                .into_iter()
                .find(|m| O::move_text(m) == texts[i])
                .unwrap()
        });
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
