//! Capture: frames from a video file, a camera, a network stream or a folder of images,
//! decoded on their own thread and handed over through a bounded channel.
//!
//! Nothing is hidden from the consumer: a live source that stalls or drops is reopened
//! with back-off and the missing time is reported as a [`CaptureMsg::Gap`]; a file
//! whose tail is damaged is read up to the damage and ends with a
//! [`CaptureMsg::Warning`] and [`EndReason::Damaged`].

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, SendTimeoutError, Sender, bounded};
use opencv::core::{Mat, Vector};
use opencv::imgcodecs;
use opencv::prelude::*;
use opencv::videoio::{self, VideoCapture};

/// Where frames come from.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// A video file (AVI, MP4, MKV, anything FFmpeg reads).
    File(PathBuf),
    /// A camera: an index (`0`) or a device path (`/dev/video0`).
    Device(DeviceId),
    /// A network stream (`rtsp://`, `http://`, `https://`).
    Url(String),
    /// A folder of still images, read in name order, one frame each.
    ImageFolder(PathBuf),
}

#[derive(Debug, Clone, PartialEq)]
pub enum DeviceId {
    Index(i32),
    Path(PathBuf),
}

/// Why a source cannot be opened or read.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    #[error(
        "source `{0}` does not exist (give a video file, a folder of images, a camera index or /dev/videoN, or a URL)"
    )]
    NotFound(String),
    #[error("cannot open {source_name}: {reason}")]
    Open { source_name: String, reason: String },
    #[error("{source_name} opened but gave no frame: {reason}")]
    NoFrames { source_name: String, reason: String },
    #[error("cannot read folder {path}: {source}")]
    Folder { path: String, source: std::io::Error },
    #[error("cannot start the capture thread: {0}")]
    Thread(std::io::Error),
    #[error("OpenCV: {0}")]
    OpenCv(#[from] opencv::Error),
}

/// The file extensions an image folder is read for.
const IMAGE_EXTENSIONS: [&str; 6] = ["png", "jpg", "jpeg", "bmp", "tif", "tiff"];

impl Source {
    /// Reads a source from the command line: a number or `/dev/videoN` is a camera,
    /// `scheme://...` a stream, a folder a folder of images, anything else a file.
    pub fn parse(s: &str) -> Result<Source, CaptureError> {
        let s = s.trim();
        if !s.is_empty() && s.chars().all(|c| c.is_ascii_digit()) {
            let index = s.parse().map_err(|_| CaptureError::NotFound(s.into()))?;
            return Ok(Source::Device(DeviceId::Index(index)));
        }
        if s.starts_with("/dev/video") {
            return Ok(Source::Device(DeviceId::Path(s.into())));
        }
        if s.contains("://") {
            return Ok(Source::Url(s.into()));
        }
        let path = PathBuf::from(s);
        if path.is_dir() {
            Ok(Source::ImageFolder(path))
        } else if path.is_file() {
            Ok(Source::File(path))
        } else {
            Err(CaptureError::NotFound(s.into()))
        }
    }

    /// A live source has no end of its own: when it stops giving frames it has
    /// dropped, and is reopened.
    pub fn is_live(&self) -> bool {
        matches!(self, Source::Device(_) | Source::Url(_))
    }

    /// A short name for messages.
    pub fn name(&self) -> String {
        match self {
            Source::File(p) | Source::ImageFolder(p) => p.display().to_string(),
            Source::Device(DeviceId::Index(i)) => format!("camera {i}"),
            Source::Device(DeviceId::Path(p)) => p.display().to_string(),
            Source::Url(u) => u.clone(),
        }
    }
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

/// One decoded frame.
#[derive(Debug)]
pub struct Frame {
    /// 0-based, in decoding order (counts only delivered frames).
    pub index: u64,
    /// Seconds: the stream position for files (index / fps), wall-clock seconds since
    /// the capture started for live sources, index / `folder_fps` for image folders.
    pub t: f64,
    /// BGR, 8 bits per channel.
    pub image: Mat,
}

/// What the capture thread says.
#[derive(Debug)]
pub enum CaptureMsg {
    Frame(Frame),
    /// Time with no frames: a live source dropped (and came back), or images of a
    /// folder could not be read.
    Gap {
        from_t: f64,
        to_t: f64,
        reason: String,
    },
    Warning(String),
    /// A live source dropped; the next attempt to reopen it follows after `wait`.
    Reconnecting {
        attempt: u32,
        wait: Duration,
    },
    /// The last message.
    End {
        reason: EndReason,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum EndReason {
    /// The file or folder was read to its end.
    EndOfStream,
    /// [`CaptureHandle::stop`] was called or the receiver was dropped.
    Stopped,
    /// A file ended early: `frames_read` of the `expected` frames its header announces.
    Damaged { frames_read: u64, expected: u64 },
    /// A live source dropped and could not be reopened.
    Lost { attempts: u32, message: String },
}

/// Back-off between reconnection attempts: `initial`, then multiplied by `factor` up
/// to `max`.
#[derive(Debug, Clone, Copy)]
pub struct Backoff {
    pub initial: Duration,
    pub max: Duration,
    pub factor: f64,
}

impl Backoff {
    /// The wait before attempt `attempt` (1-based).
    pub fn wait(&self, attempt: u32) -> Duration {
        let f = self.factor.max(1.0).powi(attempt.saturating_sub(1).min(30) as i32);
        self.initial.mul_f64(f).min(self.max)
    }
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff {
            initial: Duration::from_millis(500),
            max: Duration::from_secs(8),
            factor: 2.0,
        }
    }
}

#[derive(Debug, Clone)]
pub struct CaptureOptions {
    /// Frames buffered between the decoder and the consumer; a slow consumer makes
    /// the decoder wait (files) rather than dropping frames.
    pub channel_capacity: usize,
    /// Pace a file at its own frame rate, as if it were live.
    pub realtime: bool,
    /// How many times in a row a dropped live source is reopened before giving up
    /// (`None`: forever).
    pub max_reconnects: Option<u32>,
    pub backoff: Backoff,
    /// How long a live source may give no frame before it counts as stalled (passed to
    /// FFmpeg as its open and read timeouts).
    pub stall_timeout: Duration,
    /// Frame rate assumed for an image folder (for `Frame::t`).
    pub folder_fps: f64,
}

impl Default for CaptureOptions {
    fn default() -> Self {
        CaptureOptions {
            channel_capacity: 8,
            realtime: false,
            max_reconnects: Some(6),
            backoff: Backoff::default(),
            stall_timeout: Duration::from_secs(5),
            folder_fps: 1.0,
        }
    }
}

/// What is known about a source once it is open.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StreamInfo {
    pub width: u32,
    pub height: u32,
    /// Frames per second as the source reports it (`None` when it does not say).
    pub fps: Option<f64>,
    /// Frames the file's header announces (`None` for live sources).
    pub frame_count: Option<u64>,
}

/// A running capture. Dropping it stops the thread.
pub struct CaptureHandle {
    pub rx: Receiver<CaptureMsg>,
    info: StreamInfo,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl CaptureHandle {
    pub fn info(&self) -> StreamInfo {
        self.info
    }

    /// Stops the capture thread and waits for it.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            // Unblock a sender waiting on a full channel.
            while !t.is_finished() {
                while self.rx.try_recv().is_ok() {}
                std::thread::sleep(Duration::from_millis(5));
            }
            let _ = t.join();
        }
    }
}

impl Drop for CaptureHandle {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Opens `source` (errors such as a missing or unreadable file come back here, not
/// through the channel) and starts decoding it on its own thread.
pub fn spawn(source: Source, opts: CaptureOptions) -> Result<CaptureHandle, CaptureError> {
    let mut reader = Reader::open(&source, &opts)?;
    let first = reader.first.take();
    let info = reader.info;
    let (tx, rx) = bounded(opts.channel_capacity.max(1));
    let stop = Arc::new(AtomicBool::new(false));
    let stop_thread = stop.clone();
    let thread = std::thread::Builder::new()
        .name("capture".into())
        .spawn(move || {
            let mut run = Run {
                tx,
                stop: stop_thread,
                opts,
                source,
                started: Instant::now(),
            };
            let reason = run.go(reader, first);
            let _ = run.tx.send(CaptureMsg::End { reason });
        })
        .map_err(CaptureError::Thread)?;
    Ok(CaptureHandle {
        rx,
        info,
        stop,
        thread: Some(thread),
    })
}

/// Everything a finite source gives, for simple sequential use: its frames in order
/// and the messages that were not frames (warnings, gaps, the end).
pub fn read_all(source: Source, max_frames: Option<u64>) -> Result<(Vec<Frame>, Vec<CaptureMsg>), CaptureError> {
    let handle = spawn(source, CaptureOptions::default())?;
    let mut frames = Vec::new();
    let mut other = Vec::new();
    for msg in handle.rx.iter() {
        match msg {
            CaptureMsg::Frame(f) => {
                frames.push(f);
                if max_frames.is_some_and(|m| frames.len() as u64 >= m) {
                    break;
                }
            }
            CaptureMsg::End { reason } => {
                other.push(CaptureMsg::End { reason });
                break;
            }
            m => other.push(m),
        }
    }
    handle.stop();
    Ok((frames, other))
}

/// Opens a video file for direct sequential reading on the caller's thread (no
/// channel): the capture and what its header says.
pub fn open_file(path: &Path) -> Result<(VideoCapture, StreamInfo), CaptureError> {
    let source = Source::File(path.to_path_buf());
    if !path.is_file() {
        return Err(CaptureError::NotFound(source.name()));
    }
    let cap = open_video(&source, &CaptureOptions::default())?;
    let info = video_info(&cap, false)?;
    Ok((cap, info))
}

/// The open source with its first frame already read (so that a source that opens
/// but decodes nothing is an error at `spawn`, not a silent empty stream).
struct Reader {
    kind: ReaderKind,
    info: StreamInfo,
    first: Option<Mat>,
}

enum ReaderKind {
    Video(VideoCapture),
    Folder { files: Vec<PathBuf>, next: usize },
}

impl Reader {
    fn open(source: &Source, opts: &CaptureOptions) -> Result<Reader, CaptureError> {
        match source {
            Source::File(p) if !p.is_file() => Err(CaptureError::NotFound(source.name())),
            Source::File(_) | Source::ImageFolder(_) if is_image_source(source) => {
                let files = match source {
                    Source::ImageFolder(dir) => list_images(dir)?,
                    Source::File(p) => vec![p.clone()],
                    _ => Vec::new(),
                };
                let mut kind = ReaderKind::Folder { files, next: 0 };
                let (first, _) = read_folder_image(&mut kind).ok_or_else(|| CaptureError::NoFrames {
                    source_name: source.name(),
                    reason: format!("no readable image ({}) in the folder", IMAGE_EXTENSIONS.join(", ")),
                })?;
                let info = StreamInfo {
                    width: first.cols() as u32,
                    height: first.rows() as u32,
                    fps: Some(opts.folder_fps),
                    frame_count: match &kind {
                        ReaderKind::Folder { files, .. } => Some(files.len() as u64),
                        ReaderKind::Video(_) => None,
                    },
                };
                Ok(Reader {
                    kind,
                    info,
                    first: Some(first),
                })
            }
            _ => {
                let mut cap = open_video(source, opts)?;
                let info = video_info(&cap, source.is_live())?;
                let mut first = Mat::default();
                if !cap.read(&mut first)? || first.empty() {
                    return Err(CaptureError::NoFrames {
                        source_name: source.name(),
                        reason: "the first frame could not be decoded (not a video, or damaged from the start)".into(),
                    });
                }
                let info = StreamInfo {
                    width: first.cols() as u32,
                    height: first.rows() as u32,
                    ..info
                };
                Ok(Reader {
                    kind: ReaderKind::Video(cap),
                    info,
                    first: Some(first),
                })
            }
        }
    }
}

fn open_video(source: &Source, opts: &CaptureOptions) -> Result<VideoCapture, CaptureError> {
    let timeout_ms = opts.stall_timeout.as_millis().min(i32::MAX as u128) as i32;
    let params: Vector<i32> = Vector::from_slice(&[
        videoio::CAP_PROP_OPEN_TIMEOUT_MSEC,
        timeout_ms,
        videoio::CAP_PROP_READ_TIMEOUT_MSEC,
        timeout_ms,
    ]);
    let cap = match source {
        // FFmpeg reads every common container; the other back-ends are tried only when
        // it cannot (they print noise about files they were never meant for).
        Source::File(p) => match VideoCapture::from_file(p, videoio::CAP_FFMPEG)? {
            c if c.is_opened()? => c,
            _ => VideoCapture::from_file(p, videoio::CAP_ANY)?,
        },
        Source::Url(u) => VideoCapture::from_file_with_params(u, videoio::CAP_FFMPEG, &params)?,
        Source::Device(DeviceId::Index(i)) => VideoCapture::new(*i, videoio::CAP_ANY)?,
        Source::Device(DeviceId::Path(p)) => VideoCapture::from_file(p, videoio::CAP_V4L2)?,
        Source::ImageFolder(_) => {
            return Err(CaptureError::Open {
                source_name: source.name(),
                reason: "a folder of images is not a video".into(),
            });
        }
    };
    if !cap.is_opened()? {
        let reason = match source {
            Source::File(_) => "not a video OpenCV can decode (unknown container or codec, or a damaged header)",
            Source::Device(_) => "no such camera, or it is busy or not permitted",
            Source::Url(_) => "the stream did not answer or is not a video",
            Source::ImageFolder(_) => "",
        };
        return Err(CaptureError::Open {
            source_name: source.name(),
            reason: reason.into(),
        });
    }
    Ok(cap)
}

fn video_info(cap: &VideoCapture, live: bool) -> Result<StreamInfo, CaptureError> {
    let fps = cap.get(videoio::CAP_PROP_FPS)?;
    let count = cap.get(videoio::CAP_PROP_FRAME_COUNT)?;
    Ok(StreamInfo {
        width: cap.get(videoio::CAP_PROP_FRAME_WIDTH)? as u32,
        height: cap.get(videoio::CAP_PROP_FRAME_HEIGHT)? as u32,
        fps: (fps.is_finite() && fps > 0.0 && fps < 1000.0).then_some(fps),
        frame_count: (!live && count.is_finite() && count > 0.0).then_some(count as u64),
    })
}

/// A folder, or a single still picture (read as a folder of one).
fn is_image_source(source: &Source) -> bool {
    match source {
        Source::ImageFolder(_) => true,
        Source::File(p) => has_image_extension(p),
        _ => false,
    }
}

fn has_image_extension(p: &Path) -> bool {
    p.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| IMAGE_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

fn list_images(dir: &Path) -> Result<Vec<PathBuf>, CaptureError> {
    let entries = std::fs::read_dir(dir).map_err(|source| CaptureError::Folder {
        path: dir.display().to_string(),
        source,
    })?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| has_image_extension(p))
        .collect();
    files.sort();
    Ok(files)
}

/// The next readable image of the folder and how many listed files were skipped
/// before it (vanished or unreadable); `None` at the end.
fn read_folder_image(kind: &mut ReaderKind) -> Option<(Mat, usize)> {
    let ReaderKind::Folder { files, next } = kind else {
        return None;
    };
    let mut skipped = 0;
    while *next < files.len() {
        let path = &files[*next];
        *next += 1;
        match imgcodecs::imread(path, imgcodecs::IMREAD_COLOR) {
            Ok(m) if !m.empty() => return Some((m, skipped)),
            _ => skipped += 1,
        }
    }
    None
}

/// The state of the capture thread.
struct Run {
    tx: Sender<CaptureMsg>,
    stop: Arc<AtomicBool>,
    opts: CaptureOptions,
    source: Source,
    started: Instant,
}

/// The consumer has gone or asked to stop.
struct Stopped;

/// A damaged tail is reported when more frames are missing than a container's
/// estimate of its own length can be off by: a few frames, or 1% of a long file.
fn missing_is_damage(read: u64, expected: u64) -> bool {
    expected > read && expected - read > 2.max(expected / 100)
}

impl Run {
    fn send(&self, msg: CaptureMsg) -> Result<(), Stopped> {
        let mut msg = msg;
        loop {
            if self.stop.load(Ordering::SeqCst) {
                return Err(Stopped);
            }
            match self.tx.send_timeout(msg, Duration::from_millis(50)) {
                Ok(()) => return Ok(()),
                Err(SendTimeoutError::Timeout(m)) => msg = m,
                Err(SendTimeoutError::Disconnected(_)) => return Err(Stopped),
            }
        }
    }

    /// Sleeps up to `d`, waking early when asked to stop.
    fn sleep(&self, d: Duration) -> Result<(), Stopped> {
        let until = Instant::now() + d;
        while Instant::now() < until {
            if self.stop.load(Ordering::SeqCst) {
                return Err(Stopped);
            }
            std::thread::sleep((until - Instant::now()).min(Duration::from_millis(20)));
        }
        Ok(())
    }

    fn go(&mut self, reader: Reader, first: Option<Mat>) -> EndReason {
        let result = match reader.kind {
            ReaderKind::Folder { .. } => self.folder(reader, first),
            ReaderKind::Video(cap) if self.source.is_live() => self.live(cap, first),
            ReaderKind::Video(cap) => self.file(cap, reader.info, first),
        };
        result.unwrap_or(EndReason::Stopped)
    }

    fn file(&mut self, mut cap: VideoCapture, info: StreamInfo, first: Option<Mat>) -> Result<EndReason, Stopped> {
        let fps = info.fps.unwrap_or(25.0);
        let mut index = 0u64;
        let mut next = first;
        loop {
            let Some(image) = next.take() else { break };
            let t = index as f64 / fps;
            if self.opts.realtime {
                self.sleep(Duration::from_secs_f64(t).saturating_sub(self.started.elapsed()))?;
            }
            self.send(CaptureMsg::Frame(Frame { index, t, image }))?;
            index += 1;
            let mut m = Mat::default();
            match cap.read(&mut m) {
                Ok(true) if !m.empty() => next = Some(m),
                Ok(_) => {}
                Err(e) => self.send(CaptureMsg::Warning(format!("decoding stopped at frame {index}: {e}")))?,
            }
        }
        match info.frame_count {
            Some(expected) if missing_is_damage(index, expected) => {
                self.send(CaptureMsg::Warning(format!(
                    "{}: read {index} of the {expected} frames its header announces; the rest is damaged or missing",
                    self.source
                )))?;
                Ok(EndReason::Damaged {
                    frames_read: index,
                    expected,
                })
            }
            _ => Ok(EndReason::EndOfStream),
        }
    }

    fn folder(&mut self, mut reader: Reader, first: Option<Mat>) -> Result<EndReason, Stopped> {
        let fps = self.opts.folder_fps.max(1e-6);
        let mut index = 0u64;
        let mut slot = 0usize; // position in the listing, so that skipped files leave a gap in time
        let mut next = first.map(|m| (m, 0usize));
        while let Some((image, skipped)) = next.take() {
            if skipped > 0 {
                let (from_t, to_t) = (slot.saturating_sub(1) as f64 / fps, (slot + skipped) as f64 / fps);
                let reason = format!("{skipped} image(s) of the folder vanished or could not be read");
                self.send(CaptureMsg::Gap { from_t, to_t, reason })?;
            }
            slot += skipped;
            let t = slot as f64 / fps;
            if self.opts.realtime {
                self.sleep(Duration::from_secs_f64(t).saturating_sub(self.started.elapsed()))?;
            }
            self.send(CaptureMsg::Frame(Frame { index, t, image }))?;
            index += 1;
            slot += 1;
            next = read_folder_image(&mut reader.kind);
        }
        Ok(EndReason::EndOfStream)
    }

    fn live(&mut self, cap: VideoCapture, first: Option<Mat>) -> Result<EndReason, Stopped> {
        // A stream that announces its length (a file served over HTTP) and has given
        // all of it since it was last opened has ended; anything shorter is a drop.
        let announced = |c: &VideoCapture| {
            c.get(videoio::CAP_PROP_FRAME_COUNT)
                .ok()
                .filter(|n| n.is_finite() && *n > 0.0)
                .map(|n| n as u64)
        };
        let mut length = announced(&cap);
        let mut cap = Some(cap);
        let mut index = 0u64;
        let mut since_open = 0u64;
        let mut last_t = 0.0;
        let mut pending = first;
        loop {
            if let Some(image) = pending.take() {
                let t = self.started.elapsed().as_secs_f64();
                self.send(CaptureMsg::Frame(Frame { index, t, image }))?;
                index += 1;
                since_open += 1;
                last_t = t;
            }
            let mut m = Mat::default();
            let ok = cap.as_mut().map(|c| c.read(&mut m));
            if let Some(Ok(true)) = ok
                && !m.empty()
            {
                pending = Some(m);
                continue;
            }
            if length.is_some_and(|n| !missing_is_damage(since_open, n)) {
                return Ok(EndReason::EndOfStream);
            }
            let why = match ok {
                Some(Err(e)) => format!("{e}"),
                _ => "no frame within the stall timeout, or the stream ended".into(),
            };
            self.send(CaptureMsg::Warning(format!(
                "{} dropped: {why}; reconnecting",
                self.source
            )))?;
            drop(cap.take());
            let mut attempt = 0;
            loop {
                attempt += 1;
                if self.opts.max_reconnects.is_some_and(|m| attempt > m) {
                    let message = format!(
                        "{} gave no frame after {} reconnection attempts",
                        self.source,
                        attempt - 1
                    );
                    self.send(CaptureMsg::Warning(message.clone()))?;
                    return Ok(EndReason::Lost {
                        attempts: attempt - 1,
                        message,
                    });
                }
                let wait = self.opts.backoff.wait(attempt);
                self.send(CaptureMsg::Reconnecting { attempt, wait })?;
                self.sleep(wait)?;
                let Ok(mut c) = open_video(&self.source, &self.opts) else {
                    continue;
                };
                let mut m = Mat::default();
                if matches!(c.read(&mut m), Ok(true)) && !m.empty() {
                    let to_t = self.started.elapsed().as_secs_f64();
                    let reason = format!("{} dropped and was reopened after {attempt} attempt(s)", self.source);
                    self.send(CaptureMsg::Gap {
                        from_t: last_t,
                        to_t,
                        reason,
                    })?;
                    length = announced(&c);
                    since_open = 0;
                    cap = Some(c);
                    pending = Some(m);
                    break;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_to_its_cap() {
        let b = Backoff {
            initial: Duration::from_millis(100),
            max: Duration::from_millis(500),
            factor: 2.0,
        };
        let w: Vec<u128> = (1..=5).map(|a| b.wait(a).as_millis()).collect();
        assert_eq!(w, vec![100, 200, 400, 500, 500]);
    }

    #[test]
    fn parses_sources() {
        assert_eq!(Source::parse("0").unwrap(), Source::Device(DeviceId::Index(0)));
        assert_eq!(
            Source::parse("/dev/video2").unwrap(),
            Source::Device(DeviceId::Path("/dev/video2".into()))
        );
        assert_eq!(
            Source::parse("rtsp://cam/1").unwrap(),
            Source::Url("rtsp://cam/1".into())
        );
        assert!(matches!(
            Source::parse("/no/such/file.avi"),
            Err(CaptureError::NotFound(_))
        ));
        assert!(matches!(Source::parse("/").unwrap(), Source::ImageFolder(_)));
    }

    #[test]
    fn a_short_read_is_damage_only_beyond_estimate_error() {
        assert!(!missing_is_damage(334, 334));
        assert!(!missing_is_damage(332, 334));
        assert!(missing_is_damage(200, 334));
        assert!(!missing_is_damage(9_950, 10_000));
    }
}
