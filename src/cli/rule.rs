//! `arbiter rule`: rule on a JSON Lines event stream, as a FIDE arbiter would.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use arbiter::rules::{Engine, EventKind, RulingKind, read_events};

use super::common::RulesArgs;

/// Rule on a stream of board events (touch, possible-touch, lift, place, board, clock, two-hands, adjust, claim, start).
///
/// Reads one JSON object per line (docs/rules.md gives every field) and writes one JSON object per ruling on
/// stdout (JSON Lines: completed moves, touch-move, illegal moves, sanctions, game end), and a human summary
/// on stderr. Exits 0 when the stream was read, even if it holds violations; 2 with the line number and what
/// was expected when a line is malformed.
#[derive(clap::Args)]
pub struct Args {
    /// The event stream (JSON Lines), or `-` for stdin.
    pub events: PathBuf,
    #[command(flatten)]
    pub rules: RulesArgs,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let reader: Box<dyn BufRead> = if args.events.as_os_str() == "-" {
        Box::new(BufReader::new(io::stdin()))
    } else {
        let file = File::open(&args.events).with_context(|| format!("cannot open {}", args.events.display()))?;
        Box::new(BufReader::new(file))
    };
    let events = read_events(reader).with_context(|| format!("malformed event stream {}", args.events.display()))?;
    let start = match events.first().map(|e| &e.kind) {
        Some(EventKind::Start { fen }) => Some(fen.clone()),
        _ => None,
    };
    let config = args.rules.config(start);
    let mut engine = Engine::new(config).context("cannot set up the game")?;

    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut rulings = Vec::new();
    for event in &events {
        rulings.extend(engine.push(event));
    }
    let (t, frame) = events.last().map_or((0.0, None), |e| (e.t, e.frame));
    rulings.extend(engine.finish(t, frame));
    for ruling in &rulings {
        serde_json::to_writer(&mut out, ruling)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;

    let violations = rulings
        .iter()
        .filter(|r| !matches!(r.kind, RulingKind::Move { .. }))
        .count();
    eprintln!(
        "arbiter rule: {} events, {} moves, {} other rulings (laws {}, {}, supervised {}, {})",
        events.len(),
        engine.moves().len(),
        violations,
        engine.config().laws,
        engine.config().time_control,
        engine.config().supervised,
        engine.config().variant
    );
    for ruling in rulings.iter().filter(|r| !matches!(r.kind, RulingKind::Move { .. })) {
        eprintln!("  {}", ruling.summary());
    }
    if !engine.moves().is_empty() {
        eprintln!("  score: {}", engine.moves().join(" "));
    }
    Ok(ExitCode::SUCCESS)
}
