//! Beyond one machine: each `arbiter serve --nats URL` publishes its boards' log records to a NATS JetStream
//! stream, and `arbiter hub` mirrors every board of every host from it through a durable consumer.
//!
//! Subjects: `arbiter.BOARD.events` (event records), `arbiter.BOARD.rulings` (rulings, corrections,
//! acknowledgements, the end), `arbiter.BOARD.status` (status changes). Each record is published with the
//! message id `BOARD:SEQ` (JetStream drops a duplicate within its window) and the hub keeps a board's records
//! by number, so a record published twice (a `serve` restarted, a hub restarted before its acknowledgement) is
//! applied once.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use async_nats::jetstream::{self, consumer, stream};
use futures_util::StreamExt;
use serde_json::json;

use super::board::Board;
use super::metrics::Metrics;
use super::store::{Entry, Log, Record};

/// The JetStream stream holding every board's records.
pub const STREAM: &str = "ARBITER";

#[derive(Debug, thiserror::Error)]
pub enum NatsError {
    #[error("cannot connect to NATS at {url}: {message}")]
    Connect { url: String, message: String },
    #[error("JetStream: {0}")]
    JetStream(String),
}

fn js_err(e: impl std::fmt::Display) -> NatsError {
    NatsError::JetStream(e.to_string())
}

/// Connects (retrying until the broker is there) and makes sure the stream exists.
pub async fn connect(url: &str) -> Result<jetstream::Context, NatsError> {
    let client = async_nats::ConnectOptions::new()
        .retry_on_initial_connect()
        .connect(url)
        .await
        .map_err(|e| NatsError::Connect {
            url: url.to_string(),
            message: e.to_string(),
        })?;
    Ok(jetstream::new(client))
}

async fn ensure_stream(js: &jetstream::Context) -> Result<stream::Stream, NatsError> {
    js.get_or_create_stream(stream::Config {
        name: STREAM.to_string(),
        subjects: vec!["arbiter.>".to_string()],
        storage: stream::StorageType::File,
        duplicate_window: Duration::from_secs(120),
        ..Default::default()
    })
    .await
    .map_err(js_err)
}

fn subject(board: &str, r: &Record) -> String {
    match r.entry {
        Entry::Event { .. } => format!("arbiter.{board}.events"),
        _ => format!("arbiter.{board}.rulings"),
    }
}

/// Publishes one message until JetStream acknowledges it (the broker may be restarting: wait and retry).
async fn publish(js: &jetstream::Context, subject: String, id: Option<String>, payload: Vec<u8>) {
    let mut wait = Duration::from_millis(100);
    loop {
        let mut msg = jetstream::message::PublishMessage::build().payload(payload.clone().into());
        if let Some(id) = &id {
            msg = msg.message_id(id.as_str());
        }
        let sent = match js.send_publish(subject.clone(), msg).await {
            Ok(ack) => ack.await.map(|_| ()).map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        if sent.is_ok() {
            return;
        }
        // The stream may be gone (a broker restarted without its store): make it again.
        let _ = ensure_stream(js).await;
        tokio::time::sleep(wait).await;
        wait = (wait * 2).min(Duration::from_secs(2));
    }
}

/// Publishes every record of `board` (from the first: the message ids make a repeat harmless) and its status
/// changes, forever.
pub async fn publish_board(js: jetstream::Context, board: Arc<Board>) {
    let _ = ensure_stream(&js).await;
    let mut changed = board.changed.subscribe();
    let mut cursor = 0u64;
    let mut last_status = None;
    loop {
        let (batch, status) = {
            let v = board.view();
            let start = v.records.partition_point(|r| r.seq <= cursor);
            let batch: Vec<Record> = v.records[start..].iter().take(256).cloned().collect();
            let status = json!({
                "status": v.status, "reason": v.reason, "fps": (v.fps * 10.0).round() / 10.0, "frames": v.frames,
                "source": v.source, "source_started_ms": v.source_started_ms, "fen": v.fen,
            });
            (batch, status)
        };
        let full = batch.len() == 256;
        for r in batch {
            let payload = serde_json::to_vec(&r).unwrap_or_default();
            publish(
                &js,
                subject(&board.name, &r),
                Some(format!("{}:{}", board.name, r.seq)),
                payload,
            )
            .await;
            cursor = r.seq;
        }
        if last_status.as_ref() != Some(&status) {
            let payload = serde_json::to_vec(&status).unwrap_or_default();
            publish(&js, format!("arbiter.{}.status", board.name), None, payload).await;
            last_status = Some(status);
        }
        if !full && changed.changed().await.is_err() {
            return;
        }
    }
}

/// The hub: mirrors every board found in the stream into `boards`, keeping what it applied in `data` (one log
/// per board) so that a restarted hub starts from what it had and the durable consumer gives it the rest.
pub struct Hub {
    pub url: String,
    pub durable: String,
    pub data: PathBuf,
}

impl Hub {
    /// Loads the boards the hub already mirrored.
    pub fn load(&self, metrics: &Arc<Metrics>) -> Result<Vec<(Arc<Board>, Log)>, NatsError> {
        let mut out = Vec::new();
        let Ok(dirs) = std::fs::read_dir(&self.data) else {
            return Ok(out);
        };
        let mut names: Vec<String> = dirs
            .filter_map(|d| d.ok())
            .filter(|d| d.path().is_dir())
            .filter_map(|d| d.file_name().into_string().ok())
            .collect();
        names.sort();
        for name in names {
            let (log, records) = Log::open(&self.data.join(&name)).map_err(js_err)?;
            let board = Board::remote(&name, self.data.join(&name).join("evidence"), metrics.clone());
            for r in records {
                board.apply_remote(r);
            }
            if let Some(status) = std::fs::read(self.data.join(&name).join("status.json"))
                .ok()
                .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            {
                board.apply_remote_status(&status);
            }
            out.push((board, log));
        }
        Ok(out)
    }

    /// Consumes the stream forever (reconnecting and re-creating the consumer when the broker goes away).
    pub async fn run(
        self,
        boards: Arc<std::sync::RwLock<Vec<Arc<Board>>>>,
        mut logs: std::collections::HashMap<String, Log>,
        metrics: Arc<Metrics>,
    ) {
        let js = match connect(&self.url).await {
            Ok(js) => js,
            Err(e) => {
                eprintln!("arbiter hub: {e}");
                return;
            }
        };
        loop {
            if let Err(e) = self.consume(&js, &boards, &mut logs, &metrics).await {
                eprintln!("arbiter hub: {e}; retrying");
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }

    async fn consume(
        &self,
        js: &jetstream::Context,
        boards: &Arc<std::sync::RwLock<Vec<Arc<Board>>>>,
        logs: &mut std::collections::HashMap<String, Log>,
        metrics: &Arc<Metrics>,
    ) -> Result<(), NatsError> {
        let stream = ensure_stream(js).await?;
        let consumer: consumer::PullConsumer = stream
            .get_or_create_consumer(
                &self.durable,
                consumer::pull::Config {
                    durable_name: Some(self.durable.clone()),
                    ack_policy: consumer::AckPolicy::Explicit,
                    ..Default::default()
                },
            )
            .await
            .map_err(js_err)?;
        let mut messages = consumer.messages().await.map_err(js_err)?;
        while let Some(msg) = messages.next().await {
            let msg = msg.map_err(js_err)?;
            let mut parts = msg.subject.split('.');
            let (Some("arbiter"), Some(name), Some(kind)) = (parts.next(), parts.next(), parts.next()) else {
                let _ = msg.ack().await;
                continue;
            };
            if !super::valid_name(name) {
                let _ = msg.ack().await;
                continue;
            }
            let board = self.board(name, boards, logs, metrics)?;
            if kind == "status" {
                if let Ok(v) = serde_json::from_slice::<serde_json::Value>(&msg.payload) {
                    // The last status is kept too: a restarted hub shows it until the next one arrives.
                    let _ = std::fs::write(self.data.join(name).join("status.json"), &msg.payload);
                    board.apply_remote_status(&v);
                }
            } else if let Ok(record) = serde_json::from_slice::<Record>(&msg.payload) {
                let new = board.view().records.last().is_none_or(|l| record.seq > l.seq);
                if new {
                    // Kept on disk before it is shown or acknowledged.
                    if let Some(log) = logs.get_mut(name) {
                        log.append_record(&record).map_err(js_err)?;
                    }
                    board.apply_remote(record);
                } else {
                    metrics.duplicates.inc(name);
                }
            }
            msg.ack().await.map_err(js_err)?;
        }
        Ok(())
    }

    fn board(
        &self,
        name: &str,
        boards: &Arc<std::sync::RwLock<Vec<Arc<Board>>>>,
        logs: &mut std::collections::HashMap<String, Log>,
        metrics: &Arc<Metrics>,
    ) -> Result<Arc<Board>, NatsError> {
        if let Some(b) = boards
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .find(|b| b.name == name)
        {
            return Ok(b.clone());
        }
        let dir = self.data.join(name);
        let (log, _) = Log::open(&dir).map_err(js_err)?;
        logs.insert(name.to_string(), log);
        let board = Board::remote(name, dir.join("evidence"), metrics.clone());
        boards.write().unwrap_or_else(|p| p.into_inner()).push(board.clone());
        Ok(board)
    }
}
