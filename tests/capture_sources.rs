//! Capture on real files: a whole clip, a damaged tail, unreadable and missing files,
//! an image folder whose files vanish while it is read, and a network stream that
//! drops and disappears (a local HTTP server on 127.0.0.1 that this test runs).
#![cfg(feature = "vision")]

mod footage_support;
use footage_support::{flaky_server, footage};

use std::path::PathBuf;
use std::time::Duration;

use arbiter::capture::{self, Backoff, CaptureError, CaptureMsg, CaptureOptions, EndReason, Source};
use opencv::core::Vector;
use opencv::imgcodecs;
use opencv::prelude::*;

fn temp_dir(name: &str) -> PathBuf {
    footage_support::temp_dir("capture", name)
}

#[test]
fn reads_every_frame_of_a_clip_with_index_and_time() {
    let handle = capture::spawn(Source::File(footage("scholarsmate.avi")), CaptureOptions::default()).unwrap();
    let info = handle.info();
    assert_eq!(
        (info.width, info.height, info.fps, info.frame_count),
        (640, 480, Some(20.0), Some(334))
    );
    let mut frames = 0u64;
    let mut end = None;
    for msg in handle.rx.iter() {
        match msg {
            CaptureMsg::Frame(f) => {
                assert_eq!(f.index, frames);
                assert!((f.t - frames as f64 / 20.0).abs() < 1e-9);
                assert_eq!((f.image.cols(), f.image.rows(), f.image.channels()), (640, 480, 3));
                frames += 1;
            }
            CaptureMsg::End { reason } => {
                end = Some(reason);
                break;
            }
            other => panic!("unexpected message on a clean file: {other:?}"),
        }
    }
    assert_eq!(frames, 334);
    assert_eq!(end, Some(EndReason::EndOfStream));
}

#[test]
fn a_damaged_tail_is_read_up_to_the_damage_with_a_warning() {
    let bytes = std::fs::read(footage("scholarsmate.avi")).unwrap();
    let dir = temp_dir("damaged");
    let path = dir.join("cut.avi");
    std::fs::write(&path, &bytes[..bytes.len() * 6 / 10]).unwrap();
    let (frames, other) = capture::read_all(Source::File(path), None).unwrap();
    assert!(
        frames.len() > 100 && frames.len() < 334,
        "read {} frames of a file cut at 60%",
        frames.len()
    );
    assert!(
        other
            .iter()
            .any(|m| matches!(m, CaptureMsg::Warning(w) if w.contains("damaged"))),
        "{other:?}"
    );
    assert!(
        other.iter().any(|m| matches!(
            m,
            CaptureMsg::End {
                reason: EndReason::Damaged { expected: 334, .. }
            }
        )),
        "{other:?}"
    );
}

#[test]
fn unreadable_and_missing_sources_are_clear_errors() {
    let dir = temp_dir("unreadable");
    let junk = dir.join("notes.avi");
    std::fs::write(
        &junk,
        b"this is not a video, just a text file with the wrong name\n".repeat(50),
    )
    .unwrap();
    let err = capture::spawn(Source::File(junk), CaptureOptions::default())
        .err()
        .expect("junk must not open");
    assert!(
        matches!(err, CaptureError::Open { .. } | CaptureError::NoFrames { .. }),
        "{err}"
    );
    // The first bytes of a real clip and nothing else: no frame can be decoded.
    let head = dir.join("head.avi");
    std::fs::write(&head, &std::fs::read(footage("scholarsmate.avi")).unwrap()[..2000]).unwrap();
    let err = capture::spawn(Source::File(head), CaptureOptions::default())
        .err()
        .expect("a bare header has no frame");
    assert!(
        matches!(err, CaptureError::Open { .. } | CaptureError::NoFrames { .. }),
        "{err}"
    );
    let err = Source::parse(dir.join("nothing-here.mp4").to_str().unwrap()).unwrap_err();
    assert!(err.to_string().contains("does not exist"), "{err}");
    let empty = temp_dir("empty-folder");
    let err = capture::spawn(Source::ImageFolder(empty), CaptureOptions::default())
        .err()
        .expect("empty folder");
    assert!(matches!(err, CaptureError::NoFrames { .. }), "{err}");
}

#[test]
fn an_image_folder_reports_files_that_vanish_as_a_gap() {
    let dir = temp_dir("folder");
    let (frames, _) = capture::read_all(Source::File(footage("scholarsmate.avi")), Some(7)).unwrap();
    for (i, f) in frames.iter().enumerate() {
        assert!(
            imgcodecs::imwrite(
                dir.join(format!("f{i:03}.png")).to_str().unwrap(),
                &f.image,
                &Vector::new()
            )
            .unwrap()
        );
    }
    let opts = CaptureOptions {
        channel_capacity: 1,
        folder_fps: 2.0,
        ..CaptureOptions::default()
    };
    let handle = capture::spawn(Source::ImageFolder(dir.clone()), opts).unwrap();
    assert_eq!(handle.info().frame_count, Some(7));
    let mut got = Vec::new();
    let mut gaps = Vec::new();
    for msg in handle.rx.iter() {
        match msg {
            CaptureMsg::Frame(f) => {
                if f.index == 0 {
                    // The reader is at most two images ahead: 4 and 5 are still to come.
                    std::fs::remove_file(dir.join("f004.png")).unwrap();
                    std::fs::remove_file(dir.join("f005.png")).unwrap();
                }
                got.push(f.t);
            }
            CaptureMsg::Gap { from_t, to_t, reason } => gaps.push((from_t, to_t, reason)),
            CaptureMsg::End { reason } => {
                assert_eq!(reason, EndReason::EndOfStream);
                break;
            }
            _ => {}
        }
    }
    assert_eq!(got, vec![0.0, 0.5, 1.0, 1.5, 3.0]);
    assert_eq!(gaps.len(), 1, "{gaps:?}");
    assert_eq!((gaps[0].0, gaps[0].1), (1.5, 3.0));
    assert!(gaps[0].2.contains("2 image(s)"), "{}", gaps[0].2);
}

/// Serves `body` over HTTP to `connections` clients, each cut off after `cut` bytes,
/// then stops listening (the camera is gone).

#[test]
fn a_stream_that_drops_is_reopened_with_a_gap_and_one_that_vanishes_ends_lost() {
    let body = std::fs::read(footage("scholarsmate.avi")).unwrap();
    let cut = body.len() / 3;
    // Two connections, each dropped after a third of the clip; then nothing listens.
    // FFmpeg may open a connection more than once while it probes, so allow a few.
    let url = flaky_server(body, cut, 4);
    let opts = CaptureOptions {
        max_reconnects: Some(3),
        backoff: Backoff {
            initial: Duration::from_millis(50),
            max: Duration::from_millis(200),
            factor: 2.0,
        },
        stall_timeout: Duration::from_secs(3),
        ..CaptureOptions::default()
    };
    let handle = capture::spawn(Source::Url(url), opts).expect("the local stream opens");
    let (mut frames, mut gaps, mut reconnects, mut warnings) = (0, 0, 0, 0);
    let mut end = None;
    for msg in handle.rx.iter() {
        match msg {
            CaptureMsg::Frame(_) => frames += 1,
            CaptureMsg::Gap { from_t, to_t, .. } => {
                assert!(to_t >= from_t);
                gaps += 1
            }
            CaptureMsg::Reconnecting { .. } => reconnects += 1,
            CaptureMsg::Warning(_) => warnings += 1,
            CaptureMsg::End { reason } => {
                end = Some(reason);
                break;
            }
        }
    }
    assert!(frames > 50, "frames before the drops: {frames}");
    assert!(gaps >= 1, "a reopened stream reports its gap");
    assert!(
        reconnects >= 3 && warnings >= 2,
        "reconnects {reconnects}, warnings {warnings}"
    );
    assert!(matches!(end, Some(EndReason::Lost { attempts: 3, .. })), "{end:?}");
}

#[test]
fn a_stream_that_gives_its_whole_announced_length_ends_normally() {
    let body = std::fs::read(footage("scholarsmate.avi")).unwrap();
    let len = body.len();
    let url = flaky_server(body, len, 4);
    let handle = capture::spawn(Source::Url(url), CaptureOptions::default()).expect("the local stream opens");
    let mut frames = 0;
    let mut end = None;
    for msg in handle.rx.iter() {
        match msg {
            CaptureMsg::Frame(_) => frames += 1,
            CaptureMsg::End { reason } => {
                end = Some(reason);
                break;
            }
            other => panic!("unexpected message on a whole stream: {other:?}"),
        }
    }
    assert_eq!((frames, end), (334, Some(EndReason::EndOfStream)));
}

#[test]
fn stop_ends_a_capture_that_the_consumer_no_longer_reads() {
    let opts = CaptureOptions {
        channel_capacity: 2,
        realtime: true,
        ..CaptureOptions::default()
    };
    let handle = capture::spawn(Source::File(footage("scholarsmate.avi")), opts).unwrap();
    let first = handle.rx.recv().unwrap();
    assert!(matches!(first, CaptureMsg::Frame(_)));
    handle.stop();
}
