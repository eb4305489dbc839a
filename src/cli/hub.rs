//! `arbiter hub`: one dashboard and API for every board of every `arbiter serve --nats` in the hall.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use arbiter::serve::{self, HubOptions};

/// Serve the dashboard and the API (read-only) for every board that any `arbiter serve --nats URL` publishes:
/// several machines, one page. Reads the NATS JetStream stream `ARBITER` through a durable consumer and keeps
/// what it has read under --data, so a restarted hub (or broker) carries on without losing or repeating a
/// ruling.
#[derive(clap::Args)]
pub struct Args {
    /// The NATS server (with JetStream), e.g. nats://10.0.0.5:4222.
    #[arg(long, value_name = "URL")]
    pub nats: String,
    /// Address to listen on. Anything but loopback needs --token.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Folder for the hub's copy of every board's log.
    #[arg(long, default_value = "./arbiter-hub")]
    pub data: PathBuf,
    /// Token every request must carry (`Authorization: Bearer TOKEN`); default: the ARBITER_TOKEN variable.
    #[arg(long)]
    pub token: Option<String>,
    /// Name of the durable JetStream consumer (one per hub).
    #[arg(long, default_value = "arbiter-hub")]
    pub durable: String,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    serve::run_hub(HubOptions {
        listen: args.listen,
        data: args.data,
        token: super::serve::token(&args.token),
        nats: args.nats,
        durable: args.durable,
    })
    .context("arbiter hub")?;
    Ok(ExitCode::SUCCESS)
}
