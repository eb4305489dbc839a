//! `arbiter calibrate`: find the board in a video, camera, stream or picture and write
//! the calibration file; or, with `--check`, draw a calibration over a frame.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use opencv::core::Vector;
use opencv::imgcodecs;
use opencv::prelude::*;

use arbiter::calibration::check::draw_check;
use arbiter::calibration::detect::{self, DetectOptions};
use arbiter::calibration::file::{Lens, Region};
use arbiter::calibration::rectify::undistort_point;
use arbiter::calibration::{Calibration, WhiteSide};
use arbiter::capture::{CaptureMsg, Source};

/// Find the chessboard in a camera picture and write a calibration file.
///
/// SOURCE is a video file, a folder of images, a picture, a camera (`0`, `/dev/video0`)
/// or a stream URL. Without `--corners` the board is found automatically in frames
/// spread over the first seconds (empty board, or pieces in the initial position).
/// White's side is read from the pieces of the initial position; on an empty board it
/// cannot be seen: the file then says `white_side = "unknown"` and keeps the corners in
/// image order; give `--white-side`.
///
/// Examples:
///   arbiter calibrate game.avi --out calibration/game.toml
///   arbiter calibrate game.avi --corners 507,377,506,10,140,5,137,374 --out calibration/game.toml
///   arbiter calibrate --check game.avi --calibration calibration/game.toml --out check.png
#[derive(clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// Video file, picture, folder of images, camera index or /dev/videoN, or stream URL.
    pub source: String,

    /// The four outer board corners in source pixels, in the order a1, h1, h8, a8:
    /// `x1,y1,x2,y2,x3,y3,x4,y4` (for footage where the automatic search fails).
    #[arg(long, value_name = "X1,Y1,...,X4,Y4")]
    pub corners: Option<String>,

    /// The image edge White sits at. Overrides the reading from the pieces; with
    /// `--corners` it must agree with the corner order (or be `unknown`).
    #[arg(long, value_enum)]
    pub white_side: Option<SideArg>,

    /// Where to write: the calibration TOML (default: print it), or with `--check` the
    /// PNG (default: check.png).
    #[arg(long, short)]
    pub out: Option<PathBuf>,

    /// Draw the grid and square names of `--calibration` over a frame of SOURCE.
    #[arg(long, requires = "calibration")]
    pub check: bool,

    /// The calibration file to check.
    #[arg(long, value_name = "FILE")]
    pub calibration: Option<PathBuf>,

    /// With `--check`: the frame to draw on (0-based).
    #[arg(long, default_value_t = 0)]
    pub frame: u64,

    /// How many frames to search.
    #[arg(long, default_value_t = 12)]
    pub frames: usize,

    /// Spread the searched frames over the first this many seconds.
    #[arg(long, default_value_t = 4.0)]
    pub seconds: f64,

    /// Lens model for wide-angle cameras: `fx,fy,cx,cy,k1,k2,p1,p2[,k3]` (OpenCV's
    /// camera matrix and distortion). Corners and homography are then in undistorted
    /// pixels; `--corners` are given in the source picture as it is.
    #[arg(long, value_name = "FX,FY,CX,CY,K1,K2,P1,P2[,K3]")]
    pub lens: Option<String>,

    /// A player's clock button: `white=x1,y1,x2,y2,x3,y3[,...]` (a polygon in source
    /// pixels). Repeat for black.
    #[arg(long, value_name = "PLAYER=X1,Y1,...")]
    pub clock: Vec<String>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum SideArg {
    Left,
    Right,
    Top,
    Bottom,
    Unknown,
}

impl From<SideArg> for WhiteSide {
    fn from(s: SideArg) -> WhiteSide {
        match s {
            SideArg::Left => WhiteSide::Left,
            SideArg::Right => WhiteSide::Right,
            SideArg::Top => WhiteSide::Top,
            SideArg::Bottom => WhiteSide::Bottom,
            SideArg::Unknown => WhiteSide::Unknown,
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let source = Source::parse(&args.source)?;
    if args.check {
        return check(&args, &source);
    }
    let lens = args.lens.as_deref().map(parse_lens).transpose()?;
    let mut cal = match &args.corners {
        Some(text) => manual(&args, &source, text, lens.as_ref())?,
        None => {
            let opts = DetectOptions {
                frames: args.frames.max(1),
                span_s: args.seconds,
                white_side: args.white_side.map(WhiteSide::from),
                lens: lens.clone(),
                ..DetectOptions::default()
            };
            let (result, secs) = detect::timed(|| detect::calibrate_source(&source, &opts));
            let cal = result?;
            eprintln!(
                "board found in {secs:.1} s ({})",
                cal.method.as_deref().unwrap_or("auto")
            );
            cal
        }
    };
    cal.source = Some(args.source.clone());
    cal.lens = lens;
    for spec in &args.clock {
        cal.regions.push(parse_clock(spec)?);
    }
    summarise(&cal);
    match &args.out {
        Some(path) => {
            cal.save(path)?;
            eprintln!(
                "wrote {}; check it with: arbiter calibrate --check {} --calibration {}",
                path.display(),
                args.source,
                path.display()
            );
        }
        None => print!("{}", toml::to_string_pretty(&cal)?),
    }
    Ok(ExitCode::SUCCESS)
}

fn summarise(cal: &Calibration) {
    let name = |i: usize| {
        if cal.white_side == WhiteSide::Unknown {
            ["top-left", "top-right", "bottom-right", "bottom-left"][i]
        } else {
            ["a1", "h1", "h8", "a8"][i]
        }
    };
    let corners: Vec<String> = cal
        .corners_px
        .iter()
        .enumerate()
        .map(|(i, [x, y])| format!("{} ({x:.1}, {y:.1})", name(i)))
        .collect();
    eprintln!("corners: {}", corners.join(", "));
    if let Some(e) = cal.reprojection_error_px {
        eprintln!("reprojection error: {e:.2} px");
    }
    match cal.white_side {
        WhiteSide::Unknown => eprintln!(
            "White's side: unknown (no pieces in the initial position were seen): corners kept in image order; \
             give --white-side left|right|top|bottom"
        ),
        side => eprintln!("White's side: {}", format!("{side:?}").to_lowercase()),
    }
}

/// A calibration from corners given on the command line.
fn manual(args: &Args, source: &Source, text: &str, lens: Option<&Lens>) -> anyhow::Result<Calibration> {
    let v = parse_numbers(text, "--corners")?;
    if v.len() != 8 {
        bail!("--corners needs 8 numbers (x,y of a1, h1, h8, a8), got {}", v.len());
    }
    let mut corners = [[v[0], v[1]], [v[2], v[3]], [v[4], v[5]], [v[6], v[7]]];
    if let Some(lens) = lens {
        corners = corners.map(|[x, y]| {
            let (u, w) = undistort_point(lens, (x, y));
            [u, w]
        });
    }
    let (_, first) = first_frame(source, 0)?;
    let implied = detect::side_of(corners);
    let side = match args.white_side.map(WhiteSide::from) {
        None => implied,
        Some(WhiteSide::Unknown) => WhiteSide::Unknown,
        Some(s) if s == implied => s,
        Some(s) => bail!(
            "--white-side {s:?} does not agree with --corners: in the order a1, h1, h8, a8 they put White at the {implied:?} \
             (reorder the corners, or leave out --white-side)"
        ),
    };
    let cal = Calibration::from_corners(first.cols() as u32, first.rows() as u32, corners, side)
        .context("the four corners do not make a board (check their order: a1, h1, h8, a8)")?;
    Ok(cal)
}

/// `--check`: the grid of a calibration over a frame of the source.
fn check(args: &Args, source: &Source) -> anyhow::Result<ExitCode> {
    let path = args.calibration.as_ref().context("--check needs --calibration FILE")?;
    let cal = Calibration::load(path)?;
    let (index, frame) = first_frame(source, args.frame)?;
    if (frame.cols() as u32, frame.rows() as u32) != (cal.width, cal.height) {
        eprintln!(
            "warning: the calibration is for {}x{} pictures, this source gives {}x{}",
            cal.width,
            cal.height,
            frame.cols(),
            frame.rows()
        );
    }
    let pic = draw_check(&frame, &cal)?;
    let out = args.out.clone().unwrap_or_else(|| PathBuf::from("check.png"));
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    if !imgcodecs::imwrite(out.to_str().context("output path is not UTF-8")?, &pic, &Vector::new())? {
        bail!("cannot write {}", out.display());
    }
    eprintln!(
        "wrote {} (frame {index}): the red outline should lie on the board's edge, each name on its square",
        out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Frame `want` of the source (or its last frame, if it is shorter); a still picture
/// is its own frame 0.
fn first_frame(source: &Source, want: u64) -> anyhow::Result<(u64, opencv::core::Mat)> {
    let handle = arbiter::capture::spawn(source.clone(), Default::default())?;
    let mut last = None;
    for msg in handle.rx.iter() {
        match msg {
            CaptureMsg::Frame(f) => {
                let done = f.index >= want;
                last = Some((f.index, f.image));
                if done {
                    break;
                }
            }
            CaptureMsg::Warning(w) => eprintln!("warning: {w}"),
            CaptureMsg::End { .. } => break,
            _ => {}
        }
    }
    handle.stop();
    last.with_context(|| format!("{source} gave no frame"))
}

fn parse_numbers(text: &str, what: &str) -> anyhow::Result<Vec<f64>> {
    text.split(',')
        .map(|t| {
            let t = t.trim();
            t.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .with_context(|| format!("{what}: `{t}` is not a number"))
        })
        .collect()
}

fn parse_lens(text: &str) -> anyhow::Result<Lens> {
    let v = parse_numbers(text, "--lens")?;
    if !(8..=9).contains(&v.len()) {
        bail!(
            "--lens needs fx,fy,cx,cy,k1,k2,p1,p2[,k3] (8 or 9 numbers), got {}",
            v.len()
        );
    }
    if v[0] <= 0.0 || v[1] <= 0.0 {
        bail!("--lens: the focal lengths fx, fy must be positive");
    }
    Ok(Lens {
        camera_matrix: [v[0], 0.0, v[2], 0.0, v[1], v[3], 0.0, 0.0, 1.0],
        distortion: v[4..].to_vec(),
    })
}

fn parse_clock(spec: &str) -> anyhow::Result<Region> {
    let (player, pts) = spec
        .split_once('=')
        .context("--clock needs PLAYER=x1,y1,x2,y2,x3,y3[,...]")?;
    let player = player.trim().to_lowercase();
    if player != "white" && player != "black" {
        bail!("--clock: the player must be white or black, not `{player}`");
    }
    let v = parse_numbers(pts, "--clock")?;
    if v.len() < 6 || v.len() % 2 != 0 {
        bail!("--clock {player}: a polygon needs at least 3 points (an even count of numbers, 6 or more)");
    }
    Ok(Region {
        name: format!("clock-{player}"),
        kind: "clock".into(),
        player: Some(player),
        polygon_px: v.chunks(2).map(|p| [p[0], p[1]]).collect(),
    })
}
