//! `gdl lsp`: a Language Server Protocol server over standard input and
//! output, for any editor with an LSP client. The protocol is `lsp-server`'s
//! (the framing and the initialize and shutdown handshakes, as in
//! rust-analyzer) with `lsp-types`' messages; the answers are the
//! library's: diagnostics are `gdl check`'s, the names and their places the
//! library's outline, the layout `gdl fmt`'s.
//!
//! The server is synchronous: it reads a message, answers it and reads the
//! next. Each change of a document is analysed at once and its diagnostics
//! published. A request that fails to read (bad parameters, an unknown
//! document) gets an error response; one whose handler panics gets an
//! internal error response, and the server goes on.

mod document;
mod features;

use document::Document;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument,
    Notification as NotificationTrait, PublishDiagnostics,
};
use lsp_types::request::{
    CodeActionRequest, Completion, DocumentSymbolRequest, Formatting, GotoDefinition, HoverRequest,
    PrepareRenameRequest, References, Rename, Request as RequestTrait, SemanticTokensFullRequest,
};
use lsp_types::{
    CodeActionProviderCapability, CompletionOptions, HoverProviderCapability, OneOf,
    PublishDiagnosticsParams, RenameOptions, SemanticTokens, SemanticTokensFullOptions,
    SemanticTokensLegend, SemanticTokensOptions, SemanticTokensServerCapabilities,
    ServerCapabilities, TextDocumentSyncCapability, TextDocumentSyncKind, Url,
};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// The error code of a request that was understood but failed (LSP 3.17).
const REQUEST_FAILED: i32 = -32803;

/// What the server offers: changes of documents as edits of ranges, and
/// every feature
/// the module's comment lists.
pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(
            TextDocumentSyncKind::INCREMENTAL,
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        rename_provider: Some(OneOf::Right(RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: Default::default(),
        })),
        document_symbol_provider: Some(OneOf::Left(true)),
        semantic_tokens_provider: Some(SemanticTokensServerCapabilities::SemanticTokensOptions(
            SemanticTokensOptions {
                legend: SemanticTokensLegend {
                    token_types: features::TOKEN_TYPES.to_vec(),
                    token_modifiers: Vec::new(),
                },
                full: Some(SemanticTokensFullOptions::Bool(true)),
                range: None,
                work_done_progress_options: Default::default(),
            },
        )),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec!["(".to_string()]),
            ..Default::default()
        }),
        document_formatting_provider: Some(OneOf::Left(true)),
        code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
        ..Default::default()
    }
}

/// How a session ended.
#[derive(Debug, PartialEq, Eq)]
pub enum End {
    /// `shutdown`, then `exit`: exit status 0.
    Shutdown,
    /// `exit` without `shutdown`, or standard input closed: exit status 1.
    Abrupt,
}

/// Serves one client over `connection` until it exits; an error of the
/// protocol itself (a message that is not JSON-RPC) ends the session with
/// what went wrong.
pub fn serve(connection: &Connection) -> Result<End, String> {
    let (id, _params) = connection
        .initialize_start()
        .map_err(|e| format!("the client did not initialize: {e}"))?;
    let result = serde_json::json!({
        "capabilities": capabilities(),
        "serverInfo": {"name": "gdl", "version": env!("CARGO_PKG_VERSION")},
    });
    connection
        .initialize_finish(id, result)
        .map_err(|e| format!("the client did not finish initializing: {e}"))?;
    let mut server = Server::default();
    for message in &connection.receiver {
        let out = match message {
            Message::Request(request) => {
                match connection.handle_shutdown(&request) {
                    Ok(true) => return Ok(End::Shutdown),
                    Ok(false) => {}
                    Err(e) => return Err(format!("while shutting down: {e}")),
                }
                vec![Message::Response(server.request(request))]
            }
            Message::Notification(n) if n.method == "exit" => return Ok(End::Abrupt),
            Message::Notification(n) => server.notification(n),
            Message::Response(_) => Vec::new(),
        };
        for message in out {
            connection
                .sender
                .send(message)
                .map_err(|e| format!("cannot answer the client: {e}"))?;
        }
    }
    Ok(End::Abrupt)
}

/// The open documents.
#[derive(Default)]
struct Server {
    documents: HashMap<Url, Document>,
}

/// Why a request got no answer: its error response's code and message.
struct Refusal(i32, String);

impl Refusal {
    fn failed(message: impl Into<String>) -> Refusal {
        Refusal(REQUEST_FAILED, message.into())
    }
}

/// Reads a request's or notification's parameters.
fn params<P: DeserializeOwned>(value: Value) -> Result<P, Refusal> {
    serde_json::from_value(value).map_err(|e| {
        Refusal(
            ErrorCode::InvalidParams as i32,
            format!("invalid parameters: {e}"),
        )
    })
}

/// The answer to a request, as JSON.
fn answer<R: serde::Serialize>(result: R) -> Result<Value, Refusal> {
    serde_json::to_value(result)
        .map_err(|e| Refusal(ErrorCode::InternalError as i32, e.to_string()))
}

impl Server {
    /// Answers a request; a panic of its handler is an internal error.
    fn request(&mut self, request: Request) -> Response {
        let id: RequestId = request.id.clone();
        let answered = catch_unwind(AssertUnwindSafe(|| self.answer(request)));
        match answered {
            Ok(Ok(value)) => Response::new_ok(id, value),
            Ok(Err(Refusal(code, message))) => Response::new_err(id, code, message),
            Err(panic) => {
                let why = crate::cli::message(&*panic)
                    .unwrap_or("a panic")
                    .to_string();
                Response::new_err(
                    id,
                    ErrorCode::InternalError as i32,
                    format!("gdl lsp: internal error: {why}"),
                )
            }
        }
    }

    /// The document a request names.
    fn document(&self, uri: &Url) -> Result<&Document, Refusal> {
        self.documents
            .get(uri)
            .ok_or_else(|| Refusal::failed(format!("{uri} is not open")))
    }

    /// The document of a request's position, and the position's offset.
    fn place(
        &self,
        at: &lsp_types::TextDocumentPositionParams,
    ) -> Result<(&Document, usize), Refusal> {
        let document = self.document(&at.text_document.uri)?;
        Ok((document, document.offset(at.position)))
    }

    fn answer(&mut self, request: Request) -> Result<Value, Refusal> {
        let Request {
            method, params: p, ..
        } = request;
        match method.as_str() {
            HoverRequest::METHOD => {
                let p: lsp_types::HoverParams = params(p)?;
                let (document, offset) = self.place(&p.text_document_position_params)?;
                answer(features::hover(document, offset))
            }
            GotoDefinition::METHOD => {
                let p: lsp_types::GotoDefinitionParams = params(p)?;
                let at = &p.text_document_position_params;
                let (document, offset) = self.place(at)?;
                let found = features::definition(document, &at.text_document.uri, offset);
                answer(lsp_types::GotoDefinitionResponse::Array(found))
            }
            References::METHOD => {
                let p: lsp_types::ReferenceParams = params(p)?;
                let at = &p.text_document_position;
                let (document, offset) = self.place(at)?;
                let uri = &at.text_document.uri;
                let declarations = p.context.include_declaration;
                answer(features::references(document, uri, offset, declarations))
            }
            PrepareRenameRequest::METHOD => {
                let p: lsp_types::TextDocumentPositionParams = params(p)?;
                let (document, offset) = self.place(&p)?;
                let range = features::prepare_rename(document, offset).map_err(Refusal::failed)?;
                answer(lsp_types::PrepareRenameResponse::Range(range))
            }
            Rename::METHOD => {
                let p: lsp_types::RenameParams = params(p)?;
                let at = &p.text_document_position;
                let (document, offset) = self.place(at)?;
                let uri = &at.text_document.uri;
                let edit = features::rename(document, uri, offset, &p.new_name)
                    .map_err(Refusal::failed)?;
                answer(edit)
            }
            DocumentSymbolRequest::METHOD => {
                let p: lsp_types::DocumentSymbolParams = params(p)?;
                let document = self.document(&p.text_document.uri)?;
                answer(lsp_types::DocumentSymbolResponse::Nested(
                    features::symbols(document),
                ))
            }
            SemanticTokensFullRequest::METHOD => {
                let p: lsp_types::SemanticTokensParams = params(p)?;
                let document = self.document(&p.text_document.uri)?;
                answer(SemanticTokens {
                    result_id: None,
                    data: features::semantic_tokens(document),
                })
            }
            Completion::METHOD => {
                let p: lsp_types::CompletionParams = params(p)?;
                let document = self.document(&p.text_document_position.text_document.uri)?;
                answer(features::completion(document))
            }
            Formatting::METHOD => {
                let p: lsp_types::DocumentFormattingParams = params(p)?;
                let document = self.document(&p.text_document.uri)?;
                answer(features::formatting(document).map_err(Refusal::failed)?)
            }
            CodeActionRequest::METHOD => {
                let p: lsp_types::CodeActionParams = params(p)?;
                let uri = &p.text_document.uri;
                let document = self.document(uri)?;
                answer(features::code_actions(document, uri, p.range))
            }
            other => Err(Refusal(
                ErrorCode::MethodNotFound as i32,
                format!("gdl lsp does not answer `{other}`"),
            )),
        }
    }

    /// Follows a notification; returns what to send (the diagnostics of a
    /// document opened or changed). Notifications it does not know, or
    /// cannot read, are ignored, as the protocol asks.
    fn notification(&mut self, n: Notification) -> Vec<Message> {
        let uri = match n.method.as_str() {
            DidOpenTextDocument::METHOD => {
                let Ok(p) = params::<lsp_types::DidOpenTextDocumentParams>(n.params) else {
                    return Vec::new();
                };
                let item = p.text_document;
                let name = item.uri.path().to_string();
                let language = item.language_id;
                let document =
                    catch_unwind(|| Document::opened(name, &language, item.text, item.version));
                match document {
                    Ok(document) => self.documents.insert(item.uri.clone(), document),
                    Err(_) => return Vec::new(),
                };
                item.uri
            }
            DidChangeTextDocument::METHOD => {
                let Ok(p) = params::<lsp_types::DidChangeTextDocumentParams>(n.params) else {
                    return Vec::new();
                };
                let uri = p.text_document.uri;
                let Some(document) = self.documents.get_mut(&uri) else {
                    return Vec::new();
                };
                let version = p.text_document.version;
                let changed = catch_unwind(AssertUnwindSafe(|| {
                    document.change(p.content_changes, version)
                }));
                if changed.is_err() {
                    // Whatever half-done state the panic left: forget the
                    // document rather than answer from it.
                    self.documents.remove(&uri);
                    return Vec::new();
                }
                uri
            }
            DidCloseTextDocument::METHOD => {
                let Ok(p) = params::<lsp_types::DidCloseTextDocumentParams>(n.params) else {
                    return Vec::new();
                };
                self.documents.remove(&p.text_document.uri);
                // Its diagnostics go with it.
                return vec![publish(p.text_document.uri, Vec::new(), None)];
            }
            _ => return Vec::new(),
        };
        let Some(document) = self.documents.get(&uri) else {
            return Vec::new();
        };
        let diagnostics = features::diagnostics(document, &uri);
        vec![publish(uri, diagnostics, Some(document.version))]
    }
}

/// The notification that publishes a document's diagnostics.
fn publish(uri: Url, diagnostics: Vec<lsp_types::Diagnostic>, version: Option<i32>) -> Message {
    let params = PublishDiagnosticsParams {
        uri,
        diagnostics,
        version,
    };
    Message::Notification(Notification::new(
        PublishDiagnostics::METHOD.to_string(),
        params,
    ))
}

/// Every answer of the server on a document of `text`, at a few places in
/// it, then again after an edit that cuts the text in half: the body of
/// the fuzz target of `gdl lsp` (`fuzz/fuzz_targets/lsp.rs`), which the
/// tests also run on the checked-in corpus. None may panic. The text is
/// read twice: as a `.gdl` file (KIF or infix, as its text says), then as
/// a `.hrf` file (infix).
#[doc(hidden)]
pub fn exercise(text: &str) {
    exercise_as("/fuzz.gdl", text);
    exercise_as("/fuzz.hrf", text);
}

/// `exercise` on a document named `name`.
fn exercise_as(name: &str, text: &str) {
    let uri: Url = format!("file://{name}").parse().expect("a valid URI");
    let mut document = Document::named(name.to_string(), text.to_string(), 0);
    let answer_all = |document: &Document| {
        let len = document.text.len();
        features::diagnostics(document, &uri);
        for offset in [0, len / 3, len / 2, len.saturating_sub(1), len] {
            features::hover(document, offset);
            features::definition(document, &uri, offset);
            features::references(document, &uri, offset, true);
            let _ = features::prepare_rename(document, offset);
            let _ = features::rename(document, &uri, offset, "renamed");
        }
        features::symbols(document);
        features::semantic_tokens(document);
        features::completion(document);
        let _ = features::formatting(document);
        features::code_actions(document, &uri, document.whole());
    };
    answer_all(&document);
    let half = document.position(document.text.len() / 2);
    let end = document.position(document.text.len());
    document.change(
        vec![lsp_types::TextDocumentContentChangeEvent {
            range: Some(lsp_types::Range::new(half, end)),
            range_length: None,
            text: String::new(),
        }],
        1,
    );
    answer_all(&document);
}
