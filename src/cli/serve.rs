//! `arbiter serve`: watch boards live and serve the dashboard, the API and the alerts.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use arbiter::serve::{self, BoardOptions, BoardSource, ServeOptions};

use super::common::RulesArgs;

/// Watch one or more boards live: a dashboard at http://LISTEN/ with a tile per board, alerts as they happen,
/// and an HTTP API (see docs/serve.md, docs/openapi.yaml).
///
/// Every event and ruling is written to a per-board log under --data before it is shown; started again with the
/// same --data after a crash, each board carries on from its log. SOURCE is a video file, a camera (`0`,
/// `/dev/video0`), an RTSP/HTTP URL, a folder of images, or `events:PATH.jsonl` (a tracker event stream,
/// replayed at its own timestamps: no camera needed).
#[derive(clap::Args)]
pub struct Args {
    /// A board to watch, as NAME=SOURCE (repeat for several boards). NAME: letters, digits, `-`, `_`.
    #[arg(long = "board", value_name = "NAME=SOURCE", required = true)]
    pub boards: Vec<String>,
    /// A board's calibration, as NAME=FILE (from `arbiter calibrate`); without one the board is found
    /// automatically in the first seconds of its source.
    #[arg(long = "calibration", value_name = "NAME=FILE")]
    pub calibrations: Vec<String>,
    /// Address to listen on. Anything but loopback needs --token.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Folder for the boards' logs and evidence frames (one folder per board).
    #[arg(long, default_value = "./arbiter-data")]
    pub data: PathBuf,
    /// Token every request must carry (`Authorization: Bearer TOKEN`); default: the ARBITER_TOKEN variable.
    #[arg(long)]
    pub token: Option<String>,
    /// Replay event streams and play video files as fast as possible, not at their own pace (tests, demos).
    #[arg(long)]
    pub as_fast_as_possible: bool,
    #[command(flatten)]
    pub rules: RulesArgs,
    /// Also publish every board's events and rulings to this NATS server's JetStream (e.g. nats://10.0.0.5:4222),
    /// for `arbiter hub`.
    #[arg(long, value_name = "URL")]
    pub nats: Option<String>,
    /// The folder holding the hands/ and pieces/ models (camera and video boards).
    #[arg(long, default_value = "models")]
    pub models: PathBuf,
}

/// `--token`, else ARBITER_TOKEN.
pub fn token(given: &Option<String>) -> Option<String> {
    given
        .clone()
        .or_else(|| std::env::var("ARBITER_TOKEN").ok())
        .filter(|t| !t.is_empty())
}

/// Splits `NAME=VALUE`.
fn pair<'a>(text: &'a str, what: &str) -> anyhow::Result<(&'a str, &'a str)> {
    match text.split_once('=') {
        Some((n, v)) if !n.is_empty() && !v.is_empty() => Ok((n, v)),
        _ => bail!("{what} must be NAME=VALUE, not `{text}`"),
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut calibrations = std::collections::HashMap::new();
    for c in &args.calibrations {
        let (name, file) = pair(c, "--calibration")?;
        calibrations.insert(name.to_string(), PathBuf::from(file));
    }
    let mut boards = Vec::new();
    for b in &args.boards {
        let (name, source) = pair(b, "--board")?;
        #[allow(unused_mut)]
        let mut source = BoardSource::parse(source).map_err(anyhow::Error::msg)?;
        #[cfg(feature = "vision")]
        if let BoardSource::Pixels {
            calibration, models, ..
        } = &mut source
        {
            *calibration = calibrations.remove(name);
            *models = arbiter::vision::onnx::locate_models(&args.models);
        }
        boards.push((name.to_string(), source));
    }
    if let Some(name) = calibrations.keys().next() {
        bail!("--calibration names board `{name}`, which is not a camera or video board given with --board");
    }
    let token = token(&args.token);
    serve::run(ServeOptions {
        listen: args.listen,
        data: args.data.clone(),
        token,
        boards,
        board: BoardOptions {
            rules: args.rules.config(None),
            as_fast_as_possible: args.as_fast_as_possible,
            sync: true,
        },
        nats: args.nats.clone(),
    })
    .context("arbiter serve")?;
    Ok(ExitCode::SUCCESS)
}
