//! The messages of the GGP match protocol, as a game manager sends them to
//! a player in the body of an HTTP POST and as the player answers: KIF
//! s-expressions, read and written here for both sides (`gdl player` and
//! `gdl match`).
//!
//! | message | the player answers |
//! | --- | --- |
//! | `(info)` | `((name gdl) (status available))`, or `busy` in a match |
//! | `(preview RULES PREVIEWCLOCK)` | `ready` |
//! | `(start ID ROLE (RULES) STARTCLOCK PLAYCLOCK)` | `ready` within the start clock, or `busy` |
//! | `(play ID MOVES)` | its move within the play clock |
//! | `(stop ID MOVES)` | `done` |
//! | `(abort ID)` | `done` |
//!
//! `MOVES` is `nil` at the first step of a match, and otherwise the joint
//! move played last, one move per role in role order. Clocks are in
//! seconds. Names are read without case, as GDL reads them.

use gdl::Kif;
use std::fmt::Write;
use std::time::Duration;

/// A message from a game manager.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// `(info)`: who the player is and whether it is free.
    Info,
    /// `(preview RULES CLOCK)`: a game to look at before a match.
    Preview {
        /// The rules, one sentence a line.
        rules: String,
        /// How long the player may look.
        clock: Duration,
    },
    /// `(start ID ROLE RULES STARTCLOCK PLAYCLOCK)`: a match begins.
    Start(Start),
    /// `(play ID MOVES)`: the player's move is due.
    Play {
        /// The match's name.
        id: String,
        /// The joint move played last, `None` (`nil`) at the first step.
        moves: Option<Vec<String>>,
    },
    /// `(stop ID MOVES)`: the match ended with these last moves.
    Stop {
        /// The match's name.
        id: String,
        /// The joint move that ended the match.
        moves: Option<Vec<String>>,
    },
    /// `(abort ID)`: the match is called off.
    Abort {
        /// The match's name.
        id: String,
    },
}

/// What START says.
#[derive(Clone, Debug, PartialEq)]
pub struct Start {
    /// The match's name.
    pub id: String,
    /// The role the player plays.
    pub role: String,
    /// The rules, one sentence a line.
    pub rules: String,
    /// How long the player has to answer `ready`.
    pub start_clock: Duration,
    /// How long the player has for each move.
    pub play_clock: Duration,
}

/// The reply of a player that takes the match or the game offered.
pub const READY: &str = "ready";
/// The reply of a player to a match it is not in, or while in another.
pub const BUSY: &str = "busy";
/// The reply to STOP and ABORT.
pub const DONE: &str = "done";

impl Request {
    /// The message's name, in capitals as logs show it (`START`).
    pub fn name(&self) -> &'static str {
        match self {
            Request::Info => "INFO",
            Request::Preview { .. } => "PREVIEW",
            Request::Start(_) => "START",
            Request::Play { .. } => "PLAY",
            Request::Stop { .. } => "STOP",
            Request::Abort { .. } => "ABORT",
        }
    }

    /// The message in KIF, as a manager sends it.
    pub fn to_kif(&self) -> String {
        match self {
            Request::Info => "(info)".to_string(),
            Request::Preview { rules, clock } => {
                format!("(preview ({rules}) {})", seconds(*clock))
            }
            Request::Start(s) => format!(
                "(start {} {} ({}) {} {})",
                s.id,
                s.role,
                s.rules,
                seconds(s.start_clock),
                seconds(s.play_clock)
            ),
            Request::Play { id, moves } => format!("(play {id} {})", moves_kif(moves)),
            Request::Stop { id, moves } => format!("(stop {id} {})", moves_kif(moves)),
            Request::Abort { id } => format!("(abort {id})"),
        }
    }
}

/// The moves of PLAY and STOP in KIF: `nil`, or the joint move in
/// parentheses.
pub fn moves_kif(moves: &Option<Vec<String>>) -> String {
    match moves {
        None => "nil".to_string(),
        Some(joint) => format!("({})", joint.join(" ")),
    }
}

/// A clock in whole seconds, as the protocol writes it (at least 1).
fn seconds(clock: Duration) -> u64 {
    clock.as_secs_f64().round().max(1.0) as u64
}

/// Reads a manager's message. The error says what is wrong with it.
pub fn read_request(text: &str) -> Result<Request, String> {
    let terms = Kif::read_all(text).map_err(|errors| {
        let e = &errors[0];
        let at = text[..e.span.start as usize].chars().count() + 1;
        format!("not KIF: {} (at character {at})", e.message)
    })?;
    let items = match terms.as_slice() {
        [Kif::List(items)] => items,
        [] => return Err("an empty message".to_string()),
        [_] => return Err("a message is a list, such as (info)".to_string()),
        _ => {
            return Err(format!(
                "{} terms where one message was expected",
                terms.len()
            ));
        }
    };
    let Some(head) = items.first().and_then(Kif::atom) else {
        return Err("a message starts with its name, such as (info)".to_string());
    };
    let args = &items[1..];
    let arity = |n: usize, form: &str| {
        if args.len() == n {
            Ok(())
        } else {
            Err(format!("{head} takes {n} arguments: {form}"))
        }
    };
    // GDL's names are matched without case (ggp-base sends `START`).
    match head.to_ascii_lowercase().as_str() {
        "info" => {
            arity(0, "(info)")?;
            Ok(Request::Info)
        }
        "preview" => {
            arity(2, "(preview RULES PREVIEWCLOCK)")?;
            Ok(Request::Preview {
                rules: rules(&args[0])?,
                clock: clock(&args[1], "preview clock")?,
            })
        }
        "start" => {
            arity(5, "(start ID ROLE RULES STARTCLOCK PLAYCLOCK)")?;
            Ok(Request::Start(Start {
                id: word(&args[0], "match id")?,
                role: word(&args[1], "role")?,
                rules: rules(&args[2])?,
                start_clock: clock(&args[3], "start clock")?,
                play_clock: clock(&args[4], "play clock")?,
            }))
        }
        "play" | "stop" => {
            arity(2, &format!("({head} ID MOVES)"))?;
            let id = word(&args[0], "match id")?;
            let moves = moves(&args[1])?;
            Ok(if head.eq_ignore_ascii_case("play") {
                Request::Play { id, moves }
            } else {
                Request::Stop { id, moves }
            })
        }
        "abort" => {
            arity(1, "(abort ID)")?;
            Ok(Request::Abort {
                id: word(&args[0], "match id")?,
            })
        }
        _ => Err(format!(
            "unknown message `{head}`: expected info, preview, start, play, stop or abort"
        )),
    }
}

/// A word of a message (a match id, a role).
fn word(term: &Kif, what: &str) -> Result<String, String> {
    term.atom()
        .map(str::to_string)
        .ok_or_else(|| format!("the {what} is a word, not `{term}`"))
}

/// A clock: a positive number of seconds.
fn clock(term: &Kif, what: &str) -> Result<Duration, String> {
    term.atom()
        .and_then(|a| a.parse::<f64>().ok())
        .filter(|s| *s > 0.0 && *s <= 1e9)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| format!("the {what} is a positive number of seconds, not `{term}`"))
}

/// The rules of a message, a list of sentences, as a rules file: one
/// sentence a line.
fn rules(term: &Kif) -> Result<String, String> {
    match term {
        Kif::List(sentences) => Ok(sentences.iter().fold(String::new(), |mut out, s| {
            let _ = writeln!(out, "{s}");
            out
        })),
        Kif::Atom(a) => Err(format!("the rules are a list of sentences, not `{a}`")),
    }
}

/// The moves of a message: `nil`, or a list of one move per role.
fn moves(term: &Kif) -> Result<Option<Vec<String>>, String> {
    match term {
        Kif::Atom(a) if a.eq_ignore_ascii_case("nil") => Ok(None),
        Kif::List(moves) => Ok(Some(moves.iter().map(Kif::to_string).collect())),
        Kif::Atom(a) => Err(format!(
            "the moves are nil or a list of moves, one per role, not `{a}`"
        )),
    }
}

/// The rules of a game as a message carries them: its sentences on one
/// line, without comments (the text of a rules file, read as KIF).
pub fn rules_of(source: &str) -> Result<String, String> {
    let terms = Kif::read_all(source).map_err(|e| e[0].message.clone())?;
    let texts: Vec<String> = terms.iter().map(Kif::to_string).collect();
    Ok(texts.join(" "))
}

/// Reads a player's move: one KIF term, written back in gdl's form.
pub fn read_move(text: &str) -> Result<String, String> {
    match Kif::read_all(text).as_deref() {
        Ok([one]) => Ok(one.to_string()),
        Ok([]) => Err("an empty reply".to_string()),
        Ok(_) => Err("more than one term".to_string()),
        Err(e) => Err(format!("not KIF: {}", e[0].message)),
    }
}

/// The reply to `(info)` of a player named `name`.
pub fn info_reply(name: &str, busy: bool) -> String {
    let status = if busy { BUSY } else { "available" };
    format!("((name {name}) (status {status}))")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_of_ggp_base_are_read_without_case() {
        let start =
            "( START m.1 xplayer ( ( role xplayer ) ( <= ( legal ?r noop ) ( role ?r ) ) ) 10 5 )";
        assert_eq!(
            read_request(start).unwrap(),
            Request::Start(Start {
                id: "m.1".into(),
                role: "xplayer".into(),
                rules: "(role xplayer)\n(<= (legal ?r noop) (role ?r))\n".into(),
                start_clock: Duration::from_secs(10),
                play_clock: Duration::from_secs(5),
            })
        );
        assert_eq!(
            read_request("(PLAY m.1 NIL)").unwrap(),
            Request::Play {
                id: "m.1".into(),
                moves: None
            }
        );
        assert_eq!(
            read_request("(stop m.1 ((mark 1 1) noop))").unwrap(),
            Request::Stop {
                id: "m.1".into(),
                moves: Some(vec!["(mark 1 1)".into(), "noop".into()])
            }
        );
        assert_eq!(read_request(" ( info ) ").unwrap(), Request::Info);
        assert_eq!(
            read_request("(abort x)").unwrap(),
            Request::Abort { id: "x".into() }
        );
    }

    #[test]
    fn what_a_manager_writes_it_reads_back() {
        for r in [
            Request::Info,
            Request::Play {
                id: "a".into(),
                moves: Some(vec!["(mark 1 1)".into(), "noop".into()]),
            },
            Request::Stop {
                id: "a".into(),
                moves: None,
            },
            Request::Abort { id: "a".into() },
            Request::Start(Start {
                id: "a".into(),
                role: "white".into(),
                rules: "(role white)\n".into(),
                start_clock: Duration::from_secs(3),
                play_clock: Duration::from_secs(2),
            }),
        ] {
            let text = r.to_kif();
            let back = read_request(&text).unwrap();
            // The rules are sent on one line and read back one sentence a line.
            assert_eq!(back.to_kif(), text);
        }
    }

    #[test]
    fn bad_messages_say_what_is_wrong() {
        let err = |t: &str| read_request(t).unwrap_err();
        assert_eq!(err(""), "an empty message");
        assert_eq!(err("hello"), "a message is a list, such as (info)");
        assert_eq!(
            err("(info) (info)"),
            "2 terms where one message was expected"
        );
        assert!(err("(play m").starts_with("not KIF: unclosed `(`"));
        assert_eq!(
            err("(dance)"),
            "unknown message `dance`: expected info, preview, start, play, stop or abort"
        );
        assert_eq!(err("(abort)"), "abort takes 1 arguments: (abort ID)");
        assert_eq!(
            err("(start m r ((role r)) ten 5)"),
            "the start clock is a positive number of seconds, not `ten`"
        );
        assert_eq!(
            err("(start m r role 1 5)"),
            "the rules are a list of sentences, not `role`"
        );
        assert_eq!(
            err("(play m 3)"),
            "the moves are nil or a list of moves, one per role, not `3`"
        );
        assert_eq!(
            err("((x) m)"),
            "a message starts with its name, such as (info)"
        );
    }

    #[test]
    fn replies_are_read_as_one_term() {
        assert_eq!(read_move(" ( MARK 1 1 ) "), Ok("(MARK 1 1)".to_string()));
        assert_eq!(read_move(""), Err("an empty reply".to_string()));
        assert_eq!(read_move("a b"), Err("more than one term".to_string()));
        assert_eq!(
            rules_of("; c\n(role x)\n(init (p))"),
            Ok("(role x) (init (p))".into())
        );
    }
}
