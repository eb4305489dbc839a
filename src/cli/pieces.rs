//! `arbiter pieces`: read every square of a board from a video or a picture with the
//! piece model, optionally adapted to the board on a frame whose position is known;
//! or measure the reader against known positions (the model card's figures).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, bail};
use opencv::core::Mat;
use opencv::prelude::*;
use opencv::{imgcodecs, videoio};
use shakmaty::{Board, Square};

use arbiter::calibration::Calibration;
use arbiter::calibration::file::WhiteSide;
use arbiter::calibration::rectify::Rectifier;
use arbiter::geometry::RectifiedView;
use arbiter::vision::pieces::measure::{Tally, settled_frames};
use arbiter::vision::pieces::{ConfirmedPlacement, DEFAULT_MODEL, PieceReader, PieceReading, settled_board_strings};

/// Read the pieces on a board: per square, empty / white / black and the piece type.
///
/// Prints the `colors` (and, when every type is sure, `placement`) strings of the ruling
/// engine's `board` event and a per-square probability grid for one frame; or, with
/// `--truth`/`--expect`, scores every settled frame against the known position, with and
/// without the per-board adaptation.
#[derive(clap::Args)]
pub struct Args {
    /// A video file or a picture (jpg/png).
    pub source: PathBuf,
    /// Calibration TOML of the source (board corners).
    #[arg(long, conflicts_with = "corners")]
    pub calibration: Option<PathBuf>,
    /// Board corners instead of a calibration file: "x,y x,y x,y x,y" for a1, h1, h8, a8
    /// (the corners of the 8x8 squares, in source pixels).
    #[arg(long)]
    pub corners: Option<String>,
    /// Frame to read (0-based; pictures have only frame 0).
    #[arg(long, default_value_t = 0)]
    pub frame: u64,
    /// Fit the per-board adaptation on this frame, taking the position on it to be `--start`.
    #[arg(long)]
    pub adapt_on: Option<u64>,
    /// Fit the adaptation on the first frame of this other source instead (the same board
    /// and set, e.g. another still), with `--adapt-corners`; its position is `--start`.
    #[arg(long, requires = "adapt_corners", conflicts_with = "adapt_on")]
    pub adapt_source: Option<PathBuf>,
    /// Corners (a1, h1, h8, a8) of `--adapt-source`.
    #[arg(long)]
    pub adapt_corners: Option<String>,
    /// The position on the `--adapt-on` frame (FEN board field); the standard start by default.
    #[arg(long)]
    pub start: Option<String>,
    /// Score the settled frames of a truth file (like scholarsmate.truth.json) instead;
    /// the adaptation is fitted on its first settled frame (the verified start).
    #[arg(long, conflicts_with = "expect")]
    pub truth: Option<PathBuf>,
    /// Score every `--every`-th frame against a known placement (FEN board field, e.g. "8/8/8/8/8/8/8/8"
    /// for an empty board); adaptation is fitted on frame `--adapt-on` when given.
    #[arg(long)]
    pub expect: Option<String>,
    /// With `--expect`: read every N-th frame.
    #[arg(long, default_value_t = 1)]
    pub every: u64,
    /// Piece model (ONNX).
    #[arg(long, default_value = DEFAULT_MODEL)]
    pub model: PathBuf,
    /// Print JSON (one reading) instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let frames = load_frames(&args.source)?;
    let first = frames.first().context("the source has no frames")?;
    let cal = match (&args.calibration, &args.corners) {
        (Some(path), _) => Calibration::load(path)?,
        (None, Some(text)) => Calibration::from_corners(
            first.cols() as u32,
            first.rows() as u32,
            parse_corners(text)?,
            WhiteSide::Unknown,
        )?,
        (None, None) => bail!("give --calibration FILE or --corners \"x,y x,y x,y x,y\" (a1, h1, h8, a8)"),
    };
    let rectifier = Rectifier::new(&cal, RectifiedView::STANDARD)?;
    let mut reader = PieceReader::new(&args.model)?;
    let mut read = |reader: &mut PieceReader, index: u64| -> anyhow::Result<PieceReading> {
        let frame = frames
            .get(index as usize)
            .with_context(|| format!("frame {index} is past the end ({} frames)", frames.len()))?;
        Ok(reader.read(&rectifier.rectify(frame)?)?)
    };
    let start_board = match &args.start {
        Some(text) => text
            .parse::<Board>()
            .map_err(|e| anyhow::anyhow!("--start {text}: {e}"))?,
        None => Board::new(),
    };

    // the adaptation: on the truth file's first settled frame, on `--adapt-on`, or on another source
    let mut list: Option<Vec<(u64, Board)>> = None;
    let mut adapt_on = args.adapt_on.map(|f| (f, start_board.clone()));
    if let Some(truth) = &args.truth {
        let settled = settled_frames(truth).map_err(anyhow::Error::msg)?;
        adapt_on = Some(settled.first().cloned().context("truth file has no settled frames")?);
        list = Some(settled);
    } else if let Some(expect) = &args.expect {
        let board: Board = expect.parse().map_err(|e| anyhow::anyhow!("--expect {expect}: {e}"))?;
        list = Some(
            (0..frames.len() as u64)
                .step_by(args.every.max(1) as usize)
                .map(|f| (f, board.clone()))
                .collect(),
        );
    }
    let mut adapted = false;
    if let Some((frame, board)) = adapt_on {
        let reading = read(&mut reader, frame)?;
        adapted = true;
        report_adaptation(&mut reader, &reading, board, &format!("frame {frame}"));
    } else if let (Some(source), Some(corners)) = (&args.adapt_source, &args.adapt_corners) {
        let other = load_frames(source)?;
        let frame = other.first().context("--adapt-source has no frames")?;
        let cal = Calibration::from_corners(
            frame.cols() as u32,
            frame.rows() as u32,
            parse_corners(corners)?,
            WhiteSide::Unknown,
        )?;
        let reading = reader.read(&Rectifier::new(&cal, RectifiedView::STANDARD)?.rectify(frame)?)?;
        adapted = true;
        report_adaptation(&mut reader, &reading, start_board, &source.display().to_string());
    }
    if let Some(list) = list {
        return measure(&mut reader, &mut read, &list, adapted);
    }

    let reading = read(&mut reader, args.frame)?;
    let (colors, placement) = settled_board_strings(&reading.probs);
    if args.json {
        let out = serde_json::json!({
            "frame": args.frame, "adapted": reading.adapted, "colors": colors, "placement": placement,
            "squares": reading.probs,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        println!(
            "frame {} ({})",
            args.frame,
            if reading.adapted { "adapted" } else { "plain network" }
        );
        println!("colors    {colors}");
        println!("placement {}", placement.as_deref().unwrap_or("(types not all sure)"));
        print_grid(&reading);
    }
    Ok(ExitCode::SUCCESS)
}

type ReadFn<'a> = dyn FnMut(&mut PieceReader, u64) -> anyhow::Result<PieceReading> + 'a;

/// Fits the adaptation on one reading of a known position and says how it went.
fn report_adaptation(reader: &mut PieceReader, reading: &PieceReading, board: Board, what: &str) {
    let t = Instant::now();
    let report = reader.adapt(reading, &ConfirmedPlacement::game_start(board));
    eprintln!(
        "adaptation fitted on {what} in {:.1} ms: occupancy: {}; types: {}",
        t.elapsed().as_secs_f64() * 1e3,
        report.occupancy.note,
        report.types.note
    );
}

/// Scores `list` with the plain network and, when the reader was adapted, adapted.
fn measure(
    reader: &mut PieceReader,
    read: &mut ReadFn<'_>,
    list: &[(u64, Board)],
    adapted_too: bool,
) -> anyhow::Result<ExitCode> {
    let mut plain = Tally::default();
    let mut adapted = Tally::default();
    let mut ms = Vec::new();
    for (frame, board) in list {
        let t = Instant::now();
        let reading = read(reader, *frame)?;
        ms.push(t.elapsed().as_secs_f64() * 1e3);
        plain.add(*frame, &reading.plain, board);
        adapted.add(*frame, &reading.probs, board);
    }
    println!("{} frames", list.len());
    println!("plain network:\n{}", plain.summary());
    if adapted_too {
        println!("adapted:\n{}", adapted.summary());
    }
    ms.sort_by(f64::total_cmp);
    if let Some(median) = ms.get(ms.len() / 2) {
        println!(
            "rectify + read, median {median:.1} ms a frame (one thread; `cargo bench --bench pieces` for the model alone)"
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn print_grid(reading: &PieceReading) {
    const TYPES: [char; 6] = ['P', 'N', 'B', 'R', 'Q', 'K'];
    println!("per square: P(empty) P(white) P(black) most likely type and its probability");
    for rank in (0..8u32).rev() {
        let mut line = String::new();
        for file in 0..8u32 {
            let sq = Square::new(rank * 8 + file);
            let o = reading.probs.occupancy[sq as usize];
            let t = reading.probs.types.as_ref().map(|t| t[sq as usize]).unwrap_or([0.0; 6]);
            let best = (0..6).fold(0, |b, i| if t[i] > t[b] { i } else { b });
            line.push_str(&format!(
                "{sq} {:.2}/{:.2}/{:.2} {}{:.2}  ",
                o[0], o[1], o[2], TYPES[best], t[best]
            ));
        }
        println!("{line}");
    }
}

fn parse_corners(text: &str) -> anyhow::Result<[[f64; 2]; 4]> {
    let pts: Vec<[f64; 2]> = text
        .split_whitespace()
        .map(|p| {
            let xy: Vec<f64> = p
                .split(',')
                .map(|v| v.trim().parse::<f64>())
                .collect::<Result<_, _>>()?;
            Ok::<_, std::num::ParseFloatError>(xy)
        })
        .collect::<Result<Vec<Vec<f64>>, _>>()
        .with_context(|| format!("--corners {text:?}: expected four x,y pairs"))?
        .into_iter()
        .filter_map(|xy| (xy.len() == 2).then(|| [xy[0], xy[1]]))
        .collect();
    pts.try_into()
        .map_err(|_| anyhow::anyhow!("--corners {text:?}: expected four x,y pairs (a1, h1, h8, a8)"))
}

/// All frames of a video, or the one picture.
fn load_frames(path: &std::path::Path) -> anyhow::Result<Vec<Mat>> {
    if !path.exists() {
        bail!("{} does not exist", path.display());
    }
    let name = path.to_string_lossy().to_lowercase();
    if name.ends_with(".jpg") || name.ends_with(".jpeg") || name.ends_with(".png") {
        let img = imgcodecs::imread(path, imgcodecs::IMREAD_COLOR)?;
        if img.empty() {
            bail!("{} could not be read as a picture", path.display());
        }
        return Ok(vec![img]);
    }
    let mut cap = videoio::VideoCapture::from_file(path, videoio::CAP_ANY)?;
    if !cap.is_opened()? {
        bail!("{} could not be opened as a video", path.display());
    }
    let mut frames = Vec::new();
    loop {
        let mut m = Mat::default();
        if !cap.read(&mut m)? || m.empty() {
            break;
        }
        frames.push(m);
    }
    Ok(frames)
}
