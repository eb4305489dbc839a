//! The HTTP API (axum): boards, rulings, the SSE stream, claims, corrections, acknowledgements, PGN, metrics and
//! the dashboard. Every client error is a 4xx with a JSON `{"error": ...}` message; see docs/openapi.yaml.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use futures_util::Stream;
use serde::Deserialize;
use serde_json::{Value, json};

use super::board::{Board, Input, Status, is_alert};
use super::metrics::Metrics;
use super::store::{Correction, Entry, Origin, Record, now_ms};
use crate::report::{RulingWithEvidence, pgn};
use crate::rules::{EventKind, parse_event_line};

/// Largest request body accepted (claims and corrections are a few hundred bytes).
pub const MAX_BODY: usize = 16 * 1024;

/// What every handler shares.
pub struct App {
    /// The boards (a hub learns of new ones as their records arrive).
    pub boards: Arc<std::sync::RwLock<Vec<Arc<Board>>>>,
    pub metrics: Arc<Metrics>,
    pub token: Option<String>,
}

impl App {
    pub fn boards(&self) -> Vec<Arc<Board>> {
        self.boards.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn board(&self, id: &str) -> Result<Arc<Board>, ApiError> {
        self.boards()
            .into_iter()
            .find(|b| b.name == id)
            .ok_or_else(|| ApiError(StatusCode::NOT_FOUND, format!("no board named `{id}`")))
    }
}

/// A 4xx (or 5xx) with a message.
#[derive(Debug)]
pub struct ApiError(pub StatusCode, pub String);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, axum::Json(json!({ "error": self.1 }))).into_response()
    }
}

fn bad(msg: impl Into<String>) -> ApiError {
    ApiError(StatusCode::BAD_REQUEST, msg.into())
}

pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(dashboard))
        .route("/api/boards", get(list))
        .route("/api/boards/{id}", get(one))
        .route("/api/boards/{id}/rulings", get(rulings))
        .route("/api/boards/{id}/events", get(events))
        .route("/api/boards/{id}/stream", get(stream))
        .route("/api/boards/{id}/claims", post(claim))
        .route("/api/boards/{id}/adjust", post(adjust))
        .route("/api/boards/{id}/corrections", post(correct))
        .route("/api/boards/{id}/alerts/{ruling}/ack", post(ack))
        .route("/api/boards/{id}/evidence/{file}", get(evidence))
        .route("/api/boards/{id}/game.pgn", get(game_pgn))
        .route("/round.pgn", get(round_pgn))
        .route("/metrics", get(metrics))
        .fallback(|| async {
            ApiError(
                StatusCode::NOT_FOUND,
                "no such page; the API is under /api/boards".into(),
            )
        })
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(middleware::from_fn_with_state(app.clone(), guard))
        .with_state(app)
}

/// Checks the token (when one is set) and counts client errors.
async fn guard(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    if let Some(token) = &app.token {
        // The page itself may load without it: it asks the arbiter for the token.
        if req.uri().path() != "/" && !authorised(&req, token) {
            app.metrics.http_errors.inc("401");
            return (
                StatusCode::UNAUTHORIZED,
                [(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"))],
                axum::Json(json!({"error": "this server needs `Authorization: Bearer TOKEN` (or ?token=TOKEN)"})),
            )
                .into_response();
        }
    }
    let resp = next.run(req).await;
    if resp.status().is_client_error() {
        app.metrics.http_errors.inc(resp.status().as_str());
    }
    resp
}

fn authorised(req: &Request, token: &str) -> bool {
    let header_ok = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|h| h.to_str().ok())
        .and_then(|h| h.strip_prefix("Bearer "))
        .is_some_and(|t| t.trim() == token);
    // EventSource and <img> cannot send headers: the page passes the token in the query.
    let query_ok = req.uri().query().is_some_and(|q| {
        q.split('&')
            .any(|kv| kv.strip_prefix("token=").is_some_and(|t| t == token))
    });
    header_ok || query_ok
}

async fn dashboard() -> Html<&'static str> {
    Html(include_str!("dashboard.html"))
}

/// A board as `/api/boards` shows it.
pub fn summary(board: &Board) -> Value {
    let v = board.view();
    let alerts: Vec<Value> = v
        .rulings
        .iter()
        .filter(|(_, r)| is_alert(r))
        .map(|(seq, r)| {
            let ack = v.acks.get(seq).map(|(at, by)| json!({"at_ms": at, "by": by}));
            let has_evidence = v.evidence.contains_key(seq) || board.evidence_dir.join(format!("{seq}.jpg")).exists();
            json!({
                "id": seq,
                "ruling": r,
                "summary": r.summary(),
                "acknowledged": ack,
                "evidence": has_evidence.then(|| format!("/api/boards/{}/evidence/{seq}.jpg", board.name)),
            })
        })
        .collect();
    let open: Vec<&Value> = alerts.iter().filter(|a| a["acknowledged"].is_null()).collect();
    json!({
        "id": board.name,
        "source": v.source,
        "status": v.status,
        "reason": v.reason,
        "fps": (v.fps * 10.0).round() / 10.0,
        "frames": v.frames,
        "fen": v.fen,
        "moves": v.moves,
        "camera_moves": v.camera_moves,
        "corrected": v.moves != v.camera_moves,
        "open_alerts": open,
        "alerts": alerts,
        "last_id": v.records.last().map(|r| r.seq).unwrap_or(0),
        "source_started_ms": v.source_started_ms,
        "warnings": v.warnings.iter().rev().take(5).collect::<Vec<_>>(),
    })
}

async fn list(State(app): State<Arc<App>>) -> axum::Json<Value> {
    axum::Json(Value::Array(app.boards().iter().map(|b| summary(b)).collect()))
}

async fn one(State(app): State<Arc<App>>, Path(id): Path<String>) -> Result<axum::Json<Value>, ApiError> {
    let board = app.board(&id)?;
    Ok(axum::Json(summary(&board)))
}

async fn rulings(State(app): State<Arc<App>>, Path(id): Path<String>) -> Result<axum::Json<Value>, ApiError> {
    let b = app.board(&id)?;
    let v = b.view();
    let out = v
        .rulings
        .iter()
        .map(|(seq, r)| {
            let mut j = serde_json::to_value(r).unwrap_or(Value::Null);
            j["id"] = json!(seq);
            j
        })
        .collect();
    Ok(axum::Json(Value::Array(out)))
}

async fn events(State(app): State<Arc<App>>, Path(id): Path<String>) -> Result<axum::Json<Value>, ApiError> {
    let b = app.board(&id)?;
    let v = b.view();
    let out = v
        .records
        .iter()
        .filter_map(|r| match &r.entry {
            Entry::Event { origin, event, .. } => {
                let mut j = serde_json::to_value(event).unwrap_or(Value::Null);
                j["id"] = json!(r.seq);
                j["origin"] = json!(origin);
                Some(j)
            }
            _ => None,
        })
        .collect();
    Ok(axum::Json(Value::Array(out)))
}

#[derive(Deserialize)]
struct StreamQuery {
    last_id: Option<u64>,
}

/// Records are sent in batches of at most this many before checking the client is still reading.
const BATCH: usize = 256;

async fn stream(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    Query(q): Query<StreamQuery>,
) -> Result<Sse<impl Stream<Item = Result<SseEvent, Infallible>>>, ApiError> {
    let board = app.board(&id)?;
    let from_header = match headers.get("last-event-id") {
        Some(h) => Some(
            h.to_str()
                .ok()
                .and_then(|s| s.trim().parse::<u64>().ok())
                .ok_or_else(|| bad("Last-Event-ID must be a record number"))?,
        ),
        None => None,
    };
    let mut cursor = from_header.or(q.last_id).unwrap_or(0);
    // Each client has its own small queue and task: a stalled browser fills its queue and stalls only its task.
    let (tx, rx) = tokio::sync::mpsc::channel::<SseEvent>(64);
    let mut changed = board.changed.subscribe();
    tokio::spawn(async move {
        let mut last_status = None;
        loop {
            let (batch, status) = {
                let v = board.view();
                let start = v.records.partition_point(|r| r.seq <= cursor);
                let batch: Vec<(Record, bool)> = v.records[start..]
                    .iter()
                    .take(BATCH)
                    .map(|r| (r.clone(), v.evidence.contains_key(&r.seq)))
                    .collect();
                (batch, (v.status, v.reason.clone(), (v.fps * 10.0).round() / 10.0))
            };
            if last_status.as_ref() != Some(&status) {
                let data = json!({"status": status.0, "reason": status.1, "fps": status.2}).to_string();
                if tx.send(SseEvent::default().event("status").data(data)).await.is_err() {
                    return;
                }
                last_status = Some(status);
            }
            let full = batch.len() == BATCH;
            for (r, evidence) in batch {
                cursor = r.seq;
                if tx.send(sse_of(&r, evidence)).await.is_err() {
                    return;
                }
            }
            if !full && changed.changed().await.is_err() {
                return;
            }
        }
    });
    let events = futures_util::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|e| (Ok(e), rx)) });
    Ok(Sse::new(events).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}

/// One SSE event per log record (`id` = its number); a ruling also carries its one-line summary.
fn sse_of(r: &Record, evidence: bool) -> SseEvent {
    let kind = match &r.entry {
        Entry::Event { .. } => "event",
        Entry::Ruling { .. } => "ruling",
        Entry::Correction { .. } => "correction",
        Entry::Ack { .. } => "ack",
        Entry::End { .. } => "end",
    };
    let mut data = serde_json::to_value(r).unwrap_or(Value::Null);
    if let Entry::Ruling { ruling, .. } = &r.entry {
        data["summary"] = json!(ruling.summary());
        data["evidence"] = json!(evidence);
    }
    let data = data.to_string();
    SseEvent::default().id(r.seq.to_string()).event(kind).data(data)
}

fn parse_body(body: &Bytes) -> Result<Value, ApiError> {
    let v: Value = serde_json::from_slice(body).map_err(|e| bad(format!("the body is not valid JSON: {e}")))?;
    if !v.is_object() {
        return Err(bad("the body must be a JSON object"));
    }
    Ok(v)
}

/// The board's current time in its own stream: the last event's time, or later while the source plays live.
fn board_time(board: &Board) -> f64 {
    let v = board.view();
    let last = v
        .records
        .iter()
        .rev()
        .find_map(|r| match &r.entry {
            Entry::Event { event, .. } => Some(event.t),
            _ => None,
        })
        .unwrap_or(0.0);
    let live = match (v.status, v.source_started_ms) {
        (Status::Live | Status::Reconnecting | Status::NeedsAttention, Some(s)) => {
            now_ms().saturating_sub(s) as f64 / 1000.0
        }
        _ => 0.0,
    };
    last.max(live)
}

/// Turns an arbiter's entry into an event of the board's stream, ruled like any other.
async fn entered(app: &App, id: &str, body: &Bytes, kind: &str) -> Result<Response, ApiError> {
    let board = app.board(id)?;
    let mut v = parse_body(body)?;
    v["type"] = json!(kind);
    v["t"] = json!((board_time(&board) * 1000.0).round() / 1000.0);
    let event = parse_event_line(&v.to_string(), 1).map_err(|e| bad(e.message))?;
    if !matches!(event.kind, EventKind::Claim { .. } | EventKind::Adjust { .. }) {
        return Err(bad("only claims and adjustments can be entered here"));
    }
    let records = board
        .ask(|reply| Input::Event {
            event,
            origin: Origin::Arbiter,
            seen_t: None,
            reply: Some(reply),
        })
        .await;
    let records = records.map_err(|e| ApiError(StatusCode::SERVICE_UNAVAILABLE, e))?;
    Ok((StatusCode::CREATED, axum::Json(json!({ "records": records }))).into_response())
}

async fn claim(State(app): State<Arc<App>>, Path(id): Path<String>, body: Bytes) -> Result<Response, ApiError> {
    entered(&app, &id, &body, "claim").await
}

async fn adjust(State(app): State<Arc<App>>, Path(id): Path<String>, body: Bytes) -> Result<Response, ApiError> {
    entered(&app, &id, &body, "adjust").await
}

async fn correct(State(app): State<Arc<App>>, Path(id): Path<String>, body: Bytes) -> Result<Response, ApiError> {
    let board = app.board(&id)?;
    let v = parse_body(&body)?;
    let correction: Correction = serde_json::from_value(v)
        .map_err(|e| bad(format!("a correction is {{\"ply\": N, \"san\" or \"fen\"}}: {e}")))?;
    let records = board
        .ask(|reply| Input::Correction { correction, reply })
        .await
        .map_err(bad)?;
    Ok((StatusCode::CREATED, axum::Json(json!({ "records": records }))).into_response())
}

async fn ack(
    State(app): State<Arc<App>>,
    Path((id, ruling)): Path<(String, String)>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let board = app.board(&id)?;
    let ruling: u64 = ruling
        .parse()
        .map_err(|_| bad(format!("`{ruling}` is not a ruling number")))?;
    let by = if body.is_empty() {
        None
    } else {
        parse_body(&body)?
            .get("by")
            .and_then(|b| b.as_str())
            .map(str::to_string)
    };
    let records = board
        .ask(|reply| Input::Ack { ruling, by, reply })
        .await
        .map_err(|e| ApiError(StatusCode::NOT_FOUND, e))?;
    Ok((StatusCode::CREATED, axum::Json(json!({ "records": records }))).into_response())
}

async fn evidence(State(app): State<Arc<App>>, Path((id, file)): Path<(String, String)>) -> Result<Response, ApiError> {
    let board = app.board(&id)?;
    let seq: u64 = file.strip_suffix(".jpg").and_then(|s| s.parse().ok()).ok_or_else(|| {
        ApiError(
            StatusCode::NOT_FOUND,
            format!("evidence is /evidence/RULING.jpg, not `{file}`"),
        )
    })?;
    let jpeg = board.view().evidence.get(&seq).cloned();
    let jpeg = jpeg.or_else(|| std::fs::read(board.evidence_dir.join(format!("{seq}.jpg"))).ok());
    match jpeg {
        Some(j) => Ok(([(header::CONTENT_TYPE, "image/jpeg")], j).into_response()),
        None => Err(ApiError(
            StatusCode::NOT_FOUND,
            format!("no frames kept for ruling {seq} on board `{id}` (event-stream boards have none)"),
        )),
    }
}

fn board_pgn(board: &Board) -> String {
    let rulings: Vec<RulingWithEvidence> = board
        .view()
        .rulings
        .iter()
        .map(|(_, r)| RulingWithEvidence {
            ruling: r.clone(),
            frames: r.frame.into_iter().collect(),
        })
        .collect();
    pgn(&board.name, &rulings).replacen("[Event \"arbiter review\"]", "[Event \"arbiter live\"]", 1)
}

const PGN: &str = "application/x-chess-pgn";

async fn game_pgn(State(app): State<Arc<App>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let board = app.board(&id)?;
    Ok(([(header::CONTENT_TYPE, PGN)], board_pgn(&board)).into_response())
}

async fn round_pgn(State(app): State<Arc<App>>) -> Response {
    let all: Vec<String> = app.boards().iter().map(|b| board_pgn(b)).collect();
    ([(header::CONTENT_TYPE, PGN)], all.join("\n")).into_response()
}

async fn metrics(State(app): State<Arc<App>>) -> Response {
    let mut text = app.metrics.render();
    text.push_str("# HELP arbiter_board_up Board status (1 for the status it is in).\n# TYPE arbiter_board_up gauge\n");
    for b in &app.boards() {
        let status = serde_json::to_value(b.view().status).unwrap_or(Value::Null);
        text.push_str(&format!(
            "arbiter_board_up{{board=\"{}\",status=\"{}\"}} 1\n",
            b.name,
            status.as_str().unwrap_or("")
        ));
    }
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text).into_response()
}
