//! The `arbiter` command line: parse, call a module, turn errors into messages and
//! exit codes. No logic lives here; each subcommand is one file in `src/cli/`.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cli;

/// A camera arbiter for over-the-board chess.
///
/// It watches a chessboard through an overhead camera, sees which pieces a player
/// touches and in what order, infers every move, and rules on touch-move (FIDE Laws,
/// Article 4) and illegal moves (Article 7.5) with the sanction the Laws prescribe.
#[derive(Parser)]
#[command(name = "arbiter", version, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Rule(cli::rule::Args),
    #[cfg(feature = "vision")]
    Calibrate(cli::calibrate::Args),
    #[cfg(feature = "vision")]
    Hands(cli::hands::Args),
    #[cfg(feature = "vision")]
    Pieces(cli::pieces::Args),
    #[cfg(feature = "vision")]
    Review(cli::review::Args),
    #[cfg(feature = "serve")]
    Serve(cli::serve::Args),
    #[cfg(feature = "serve")]
    Hub(cli::hub::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Rule(args) => cli::rule::run(args),
        #[cfg(feature = "vision")]
        Command::Calibrate(args) => cli::calibrate::run(args),
        #[cfg(feature = "vision")]
        Command::Hands(args) => cli::hands::run(args),
        #[cfg(feature = "vision")]
        Command::Pieces(args) => cli::pieces::run(args),
        #[cfg(feature = "vision")]
        Command::Review(args) => cli::review::run(args),
        #[cfg(feature = "serve")]
        Command::Serve(args) => cli::serve::run(args),
        #[cfg(feature = "serve")]
        Command::Hub(args) => cli::hub::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("arbiter: error: {err}");
            for cause in err.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            ExitCode::from(2)
        }
    }
}
