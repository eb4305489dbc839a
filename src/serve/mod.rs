//! The live service (`arbiter serve`): several boards watched at once, each from its own source (a camera, a
//! video, or a replayed event stream), every event and ruling written to a durable per-board log before it is
//! announced over HTTP and Server-Sent Events. See docs/serve.md and docs/openapi.yaml.
//!
//! ```text
//!  source thread ──events──> board thread (game + log) ──wake──> HTTP / SSE clients (each its own task)
//!  (replay or pipeline)        writes, fsyncs, then announces
//! ```

pub mod api;
pub mod board;
pub mod game;
pub mod metrics;
pub mod nats;
#[cfg(feature = "vision")]
pub mod pixels;
pub mod store;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

pub use board::{Board, BoardOptions, BoardSource, Status};

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("refusing to listen on {0} without a token: give --token (or ARBITER_TOKEN) to serve beyond this machine")]
    NeedsToken(SocketAddr),
    #[error("board name `{0}` must be 1-40 letters, digits, `-` or `_`")]
    BadName(String),
    #[error("board `{0}` is given twice")]
    Duplicate(String),
    #[error("no board given: add --board NAME=SOURCE")]
    NoBoards,
    #[error("cannot listen on {addr}: {source}")]
    Listen { addr: SocketAddr, source: std::io::Error },
    #[error("cannot create the data folder {path}: {source}")]
    Data { path: PathBuf, source: std::io::Error },
    #[error("hub: {0}")]
    Hub(String),
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
}

/// Everything `arbiter serve` needs.
pub struct ServeOptions {
    pub listen: SocketAddr,
    pub data: PathBuf,
    pub token: Option<String>,
    pub boards: Vec<(String, BoardSource)>,
    pub board: BoardOptions,
    /// Publish every board's records to this NATS server (JetStream).
    pub nats: Option<String>,
}

/// Everything `arbiter hub` needs.
pub struct HubOptions {
    pub listen: SocketAddr,
    pub data: PathBuf,
    pub token: Option<String>,
    pub nats: String,
    pub durable: String,
}

pub fn valid_name(name: &str) -> bool {
    (1..=40).contains(&name.len()) && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

fn check_listen(listen: SocketAddr, token: &Option<String>) -> Result<(), ServeError> {
    if !listen.ip().is_loopback() && token.as_deref().is_none_or(str::is_empty) {
        return Err(ServeError::NeedsToken(listen));
    }
    Ok(())
}

fn runtime() -> Result<tokio::runtime::Runtime, ServeError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)
}

/// Serves `app` on `listener` until Ctrl-C; says where it listens on stderr (tests and scripts read this line
/// to find the port given `--listen 127.0.0.1:0`).
async fn http(listener: tokio::net::TcpListener, app: Arc<api::App>, who: &str) -> Result<(), ServeError> {
    let addr = listener.local_addr().map_err(|source| ServeError::Listen {
        addr: ([0, 0, 0, 0], 0).into(),
        source,
    })?;
    eprintln!("arbiter {who}: listening on http://{addr}/");
    axum::serve(listener, api::router(app))
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
        .map_err(|source| ServeError::Listen { addr, source })
}

async fn bind(addr: SocketAddr) -> Result<tokio::net::TcpListener, ServeError> {
    tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| ServeError::Listen { addr, source })
}

/// Checks the options, starts every board, and serves until Ctrl-C.
pub fn run(opts: ServeOptions) -> Result<(), ServeError> {
    check_listen(opts.listen, &opts.token)?;
    if opts.boards.is_empty() {
        return Err(ServeError::NoBoards);
    }
    let mut seen = std::collections::HashSet::new();
    for (name, _) in &opts.boards {
        if !valid_name(name) {
            return Err(ServeError::BadName(name.clone()));
        }
        if !seen.insert(name.clone()) {
            return Err(ServeError::Duplicate(name.clone()));
        }
    }
    std::fs::create_dir_all(&opts.data).map_err(|source| ServeError::Data {
        path: opts.data.clone(),
        source,
    })?;
    runtime()?.block_on(async move {
        let listener = bind(opts.listen).await?;
        let metrics = Arc::new(metrics::Metrics::default());
        let boards: Vec<Arc<Board>> = opts
            .boards
            .iter()
            .map(|(name, source)| Board::start(name, source.clone(), &opts.data, &opts.board, metrics.clone()))
            .collect();
        if let Some(url) = &opts.nats {
            let url = url.clone();
            let boards = boards.clone();
            // Publishing waits for the broker (and retries while it is away); the boards never wait for it.
            tokio::spawn(async move {
                match nats::connect(&url).await {
                    Ok(js) => {
                        for b in boards {
                            tokio::spawn(nats::publish_board(js.clone(), b));
                        }
                    }
                    Err(e) => eprintln!("arbiter serve: {e}"),
                }
            });
        }
        let app = Arc::new(api::App {
            boards: Arc::new(std::sync::RwLock::new(boards)),
            metrics,
            token: opts.token.clone(),
        });
        http(listener, app, "serve").await
    })
}

/// `arbiter hub`: the same API and dashboard for every board published to NATS.
pub fn run_hub(opts: HubOptions) -> Result<(), ServeError> {
    check_listen(opts.listen, &opts.token)?;
    std::fs::create_dir_all(&opts.data).map_err(|source| ServeError::Data {
        path: opts.data.clone(),
        source,
    })?;
    let metrics = Arc::new(metrics::Metrics::default());
    let hub = nats::Hub {
        url: opts.nats.clone(),
        durable: opts.durable.clone(),
        data: opts.data.clone(),
    };
    let loaded = hub.load(&metrics).map_err(|e| ServeError::Hub(e.to_string()))?;
    let mut logs = std::collections::HashMap::new();
    let mut boards = Vec::new();
    for (b, log) in loaded {
        logs.insert(b.name.clone(), log);
        boards.push(b);
    }
    let boards = Arc::new(std::sync::RwLock::new(boards));
    runtime()?.block_on(async move {
        let listener = bind(opts.listen).await?;
        tokio::spawn(hub.run(boards.clone(), logs, metrics.clone()));
        let app = Arc::new(api::App {
            boards,
            metrics,
            token: opts.token.clone(),
        });
        http(listener, app, "hub").await
    })
}
