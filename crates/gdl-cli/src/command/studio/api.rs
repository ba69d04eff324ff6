//! The studio's routes: the page and its scripts, and the JSON API the
//! page calls. Every route under `/api/` has passed the checks of
//! [`super::http`] (its token, its host) before it comes here; a route
//! that changes or runs something is a POST.
//!
//! | route | what |
//! | --- | --- |
//! | `GET /api/session` | the file, its text, the state shown |
//! | `GET /api/state` | the state shown, and whether the machine is thinking |
//! | `POST /api/check` `{text}` | the checker's diagnostics of a text |
//! | `POST /api/save` `{text}` | writes the rules file, loads it again |
//! | `POST /api/play` `{moves: {ROLE: MOVE}}` | plays a step, then the machine's |
//! | `POST /api/stop` | stops the machine's move under way |
//! | `POST /api/goto` `{step}` | shows a step of the timeline |
//! | `POST /api/restart` | a new game |
//! | `POST /api/seats` `{seats: {ROLE: human/random/search}, iterations}` | who plays |
//! | `POST /api/replay` `{text}` or `{game}` | replays a recorded game |
//! | `GET /api/tests` | the recorded games |
//! | `POST /api/tests/run` | starts replaying them against the rules |
//! | `POST /api/tests/accept`, `/reject` `{game}` | decides a pending version |
//! | `POST /api/analyse` `{games, strengths, max_steps, seed}` | starts an analysis |
//! | `GET /api/jobs/ID` | a job's progress and result (an analysis, a run of the recorded games) |
//! | `POST /api/jobs/ID/cancel` | stops it |

use super::analysis;
use super::assets;
use super::http::error_reply;
use super::jobs::Jobs;
use super::session::{Answer, ApiError, MAX_AUTOMATIC_STEPS, Seat, Studio, lock};
use super::tests;
use gdl::{Cancel, GameError};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A request, checked and read.
#[derive(Debug)]
pub struct Request {
    /// `GET`, `POST`...
    pub method: String,
    /// The path, without the query.
    pub path: String,
    /// The query's pairs, decoded.
    pub query: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

/// A reply: its status, content type and body.
#[derive(Debug)]
pub struct Reply {
    /// The HTTP status.
    pub status: u16,
    /// The `Content-Type`.
    pub content_type: &'static str,
    /// The body.
    pub body: Vec<u8>,
}

impl Reply {
    /// A JSON reply.
    pub fn json(status: u16, value: &Value) -> Reply {
        Reply {
            status,
            content_type: "application/json; charset=utf-8",
            body: serde_json::to_vec(value).unwrap_or_default(),
        }
    }
}

/// The studio behind the routes.
pub struct Api {
    /// The studio, locked for each request's reading or change of it, but
    /// not while the search player chooses a move.
    studio: Mutex<Studio>,
    /// The cancel that the machine's moves under way search under: a
    /// request that changes the game or the timeline (or `stop`) cancels
    /// it and puts a fresh one in its place.
    thinking: Mutex<Cancel>,
    /// The machine's moves being searched now.
    searching: AtomicUsize,
    /// The analyses and runs of the recorded games started.
    jobs: Jobs,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Text {
    text: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Play {
    #[serde(default)]
    moves: BTreeMap<String, String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Goto {
    step: usize,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Seats {
    #[serde(default)]
    seats: BTreeMap<String, Seat>,
    iterations: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Replay {
    text: Option<String>,
    name: Option<String>,
    game: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Game {
    game: String,
}

/// The body read as JSON of the shape `T`, or an error that says what is
/// wrong with it.
fn body<T: DeserializeOwned>(request: &Request) -> Result<T, ApiError> {
    let body: &[u8] = if request.body.is_empty() {
        b"{}"
    } else {
        &request.body
    };
    serde_json::from_slice(body).map_err(|e| {
        ApiError::bad(format!(
            "the request's body is not the JSON this route takes: {e}"
        ))
    })
}

impl Api {
    /// The routes over `studio`.
    pub fn new(studio: Studio) -> Api {
        Api {
            studio: Mutex::new(studio),
            thinking: Mutex::new(Cancel::new()),
            searching: AtomicUsize::new(0),
            jobs: Jobs::default(),
        }
    }

    /// Answers a request.
    pub fn handle(&self, request: &Request) -> Reply {
        let method = request.method.as_str();
        let path = request.path.as_str();
        if !path.starts_with("/api/") {
            return match (method, assets::find(path)) {
                ("GET" | "HEAD", Some((content_type, body))) => Reply {
                    status: 200,
                    content_type,
                    body: body.to_vec(),
                },
                (_, Some(_)) => error_reply(405, &format!("{path} takes GET")),
                (_, None) => error_reply(404, &format!("no page {path}")),
            };
        }
        match self.route(method, path, request) {
            Ok(value) => Reply::json(200, &value),
            Err(e) => error_reply(e.status, &e.message),
        }
    }

    fn route(&self, method: &str, path: &str, request: &Request) -> Answer {
        let route = path.trim_start_matches("/api/");
        let reads = matches!(route, "session" | "state" | "tests")
            || route.starts_with("jobs/") && !route.ends_with("/cancel");
        let wanted = if reads { "GET" } else { "POST" };
        let known = matches!(
            route,
            "session"
                | "state"
                | "check"
                | "save"
                | "play"
                | "stop"
                | "goto"
                | "restart"
                | "seats"
                | "replay"
                | "tests"
                | "tests/run"
                | "tests/accept"
                | "tests/reject"
                | "analyse"
        ) || route.starts_with("jobs/");
        if !known {
            return Err(ApiError {
                status: 404,
                message: format!("no route {path}"),
            });
        }
        if method != wanted {
            return Err(ApiError {
                status: 405,
                message: format!("{path} takes {wanted}, not {method}"),
            });
        }
        let studio = || lock(&self.studio);
        let changes = matches!(
            route,
            "save" | "play" | "stop" | "goto" | "restart" | "seats" | "replay"
        );
        if changes {
            self.stop_thinking();
        }
        match route {
            "session" => studio().session(),
            "state" => {
                // Whether the machine thinks, read under the studio's lock
                // with the view: a search starts only after the step
                // before it is applied, under that lock, so the view shows
                // the state the machine thinks about (read after the lock
                // is let go, a search begun meanwhile would show beside
                // the state before).
                let mut shown = studio();
                let mut view = shown.view();
                view["thinking"] = Value::Bool(self.searching.load(Ordering::SeqCst) > 0);
                Ok(view)
            }
            "check" => {
                let Text { text } = body(request)?;
                studio().check(&text)
            }
            "save" => {
                let Text { text } = body(request)?;
                studio().save(text)
            }
            "play" => {
                let Play { moves } = body(request)?;
                self.play(&moves)
            }
            "stop" => {
                body::<BTreeMap<String, Value>>(request)?;
                Ok(studio().view())
            }
            "goto" => {
                let Goto { step } = body(request)?;
                studio().goto(step)
            }
            "restart" => {
                body::<BTreeMap<String, Value>>(request)?;
                studio().restart()
            }
            "seats" => {
                let Seats { seats, iterations } = body(request)?;
                studio().seats(&seats, iterations)
            }
            "replay" => {
                let asked: Replay = body(request)?;
                let mut studio = studio();
                match (asked.text, asked.game) {
                    (Some(text), None) => {
                        let name = asked.name.unwrap_or_else(|| "the recorded game".into());
                        studio.replay(&text, &name)
                    }
                    (None, Some(game)) => {
                        let text = tests::text(&studio.path, &game, &studio.limits)?;
                        studio.replay(&text, &game)
                    }
                    _ => Err(ApiError::bad(
                        "replay takes the text of a recorded game (text) or the name of one \
                         of the rules' recorded games (game)",
                    )),
                }
            }
            "tests" => tests::list(&studio().path),
            "tests/run" => {
                body::<BTreeMap<String, Value>>(request)?;
                let (path, limits, text, loaded) = {
                    let s = studio();
                    (
                        s.path.clone(),
                        s.limits.clone(),
                        s.text.clone(),
                        s.loaded_game(),
                    )
                };
                let Some((game, name)) = loaded else {
                    return Err(ApiError::conflict(
                        "the rules do not load: the recorded games cannot be replayed",
                    ));
                };
                let job = tests::start(&path, game, name, &text, &limits)?;
                Ok(serde_json::json!({ "job": self.jobs.add(job) }))
            }
            "tests/accept" | "tests/reject" => {
                let Game { game } = body(request)?;
                let (path, limits) = {
                    let s = studio();
                    (s.path.clone(), s.limits.clone())
                };
                tests::decide(&path, &game, route == "tests/accept", &limits)
            }
            "analyse" => {
                let asked: analysis::Asked = body(request)?;
                let Some((game, name)) = studio().loaded_game() else {
                    return Err(ApiError::conflict(
                        "the rules do not load: there is nothing to analyse",
                    ));
                };
                let job = analysis::start(game, name, asked)?;
                Ok(serde_json::json!({ "job": self.jobs.add(job) }))
            }
            _ => {
                let rest = route.trim_start_matches("jobs/");
                let (id, cancel) = match rest.strip_suffix("/cancel") {
                    Some(id) => (id, true),
                    None => (rest, false),
                };
                let job = self.jobs.find(id)?;
                if cancel {
                    job.cancel();
                }
                Ok(job.status())
            }
        }
    }
}

impl Api {
    /// `POST /api/play`: plays the moves chosen (by role name) in the
    /// state shown; the roles not named play their only move, or the
    /// machine's when the machine plays them. The steps after the state
    /// shown are dropped from the timeline. Then, while no person has a
    /// choice, the machine plays on; with no person at all, one step. The
    /// search player chooses without the studio's lock, so the page is
    /// answered meanwhile; `stop` or any change stops it, and a step whose
    /// timeline changed meanwhile is not played.
    fn play(&self, chosen: &BTreeMap<String, String>) -> Answer {
        let people = {
            let mut studio = lock(&self.studio);
            studio.check_roles(chosen)?;
            studio.has_people()
        };
        let steps = if people { 1 + MAX_AUTOMATIC_STEPS } else { 1 };
        let none = BTreeMap::new();
        for i in 0..steps {
            let (chosen, asked) = if i == 0 {
                (chosen, true)
            } else {
                (&none, false)
            };
            let Some(mut step) = lock(&self.studio).plan(chosen, asked)? else {
                break;
            };
            if step.searches() {
                let cancel = lock(&self.thinking).clone();
                let searched = {
                    let _counted = Searching::count(&self.searching);
                    cancel.scope(|| step.search())
                };
                match searched {
                    Ok(()) => {}
                    Err(GameError::Cancelled) => {
                        lock(&self.studio).stopped(
                            step.version(),
                            "the machine's move was stopped: play on, or ask for a machine step"
                                .into(),
                        );
                        break;
                    }
                    Err(e) => {
                        return Err(ApiError::conflict(format!(
                            "the search player: {}",
                            crate::command::describe(&e)
                        )));
                    }
                }
            }
            if !lock(&self.studio).apply(step)? {
                break;
            }
        }
        Ok(lock(&self.studio).view())
    }

    /// Stops the machine's moves under way (their steps are not played).
    fn stop_thinking(&self) {
        let mut thinking = lock(&self.thinking);
        thinking.cancel();
        *thinking = Cancel::new();
    }
}

/// Counts a search under way while it lives.
struct Searching<'a>(&'a AtomicUsize);

impl<'a> Searching<'a> {
    fn count(searching: &'a AtomicUsize) -> Searching<'a> {
        searching.fetch_add(1, Ordering::SeqCst);
        Searching(searching)
    }
}

impl Drop for Searching<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests_of_routes {
    use super::*;

    #[test]
    fn bodies_of_the_wrong_shape_say_so() {
        let request = Request {
            method: "POST".into(),
            path: "/api/goto".into(),
            query: Vec::new(),
            body: b"{\"step\": \"one\"}".to_vec(),
        };
        let e = body::<Goto>(&request).unwrap_err();
        assert_eq!(e.status, 400);
        assert!(
            e.message.starts_with("the request's body is not the JSON"),
            "{}",
            e.message
        );
    }
}
