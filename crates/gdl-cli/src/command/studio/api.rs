//! The studio's routes: the page and its scripts, and the JSON API the
//! page calls. Every route under `/api/` has passed the checks of
//! [`super::http`] (its token, its host) before it comes here; a route
//! that changes or runs something is a POST.
//!
//! | route | what |
//! | --- | --- |
//! | `GET /api/session` | the file, its text, the state shown |
//! | `GET /api/state` | the state shown |
//! | `POST /api/check` `{text}` | the checker's diagnostics of a text |
//! | `POST /api/save` `{text}` | writes the rules file, loads it again |
//! | `POST /api/play` `{moves: {ROLE: MOVE}}` | plays a step |
//! | `POST /api/goto` `{step}` | shows a step of the timeline |
//! | `POST /api/restart` | a new game |
//! | `POST /api/seats` `{seats: {ROLE: human/random/search}, iterations}` | who plays |
//! | `POST /api/replay` `{text}` or `{game}` | replays a recorded game |
//! | `GET /api/tests` | the recorded games |
//! | `POST /api/tests/run` | replays them against the rules |
//! | `POST /api/tests/accept`, `/reject` `{game}` | decides a pending version |
//! | `POST /api/analyse` `{games, strengths, max_steps, seed}` | starts an analysis |
//! | `GET /api/jobs/ID` | its progress and figures |
//! | `POST /api/jobs/ID/cancel` | stops it |

use super::analysis::{self, Job};
use super::assets;
use super::http::error_reply;
use super::session::{Answer, ApiError, Seat, Studio, lock};
use super::tests;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

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
    studio: Mutex<Studio>,
    /// The analyses started, by number.
    jobs: Mutex<BTreeMap<u64, Arc<Job>>>,
}

/// The most analyses kept (the oldest finished ones are forgotten).
const MOST_JOBS: usize = 16;

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
            jobs: Mutex::new(BTreeMap::new()),
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
        match route {
            "session" => studio().session(),
            "state" => Ok(studio().view()),
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
                studio().play(&moves)
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
                tests::run(&path, game, name, &text, &limits)
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
                let mut jobs = lock(&self.jobs);
                // One analysis at a time: a new one stops the last.
                for old in jobs.values() {
                    old.cancel();
                }
                let id = jobs.keys().next_back().map_or(1, |n| n + 1);
                jobs.insert(id, job);
                while jobs.len() > MOST_JOBS {
                    let oldest = *jobs.keys().next().unwrap_or(&id);
                    jobs.remove(&oldest);
                }
                Ok(serde_json::json!({ "job": id }))
            }
            _ => {
                let rest = route.trim_start_matches("jobs/");
                let (id, cancel) = match rest.strip_suffix("/cancel") {
                    Some(id) => (id, true),
                    None => (rest, false),
                };
                let job = id
                    .parse::<u64>()
                    .ok()
                    .and_then(|id| lock(&self.jobs).get(&id).cloned())
                    .ok_or_else(|| ApiError {
                        status: 404,
                        message: format!("no analysis {id}"),
                    })?;
                if cancel {
                    job.cancel();
                }
                Ok(job.status())
            }
        }
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
