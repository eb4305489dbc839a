//! The durable per-board log: an append-only JSON Lines file, each record flushed to disk (`fsync`) before the
//! caller announces it. After a crash the file is read back; a torn last line (the process died mid-write) is cut
//! off, since it was never announced.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::rules::{Event, Ruling};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot open the board log {path}: {source}")]
    Open { path: PathBuf, source: std::io::Error },
    #[error("cannot write the board log {path}: {source}")]
    Write { path: PathBuf, source: std::io::Error },
    #[error("the board log {path} is damaged at line {line}: {message}")]
    Damaged {
        path: PathBuf,
        line: usize,
        message: String,
    },
}

/// Where an event came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Origin {
    /// The board's source: the camera pipeline, or the replayed event stream.
    Source,
    /// Entered by the arbiter through the API (a claim, an announced adjustment).
    Arbiter,
}

/// A correction by the arbiter: the camera was wrong about move `ply` (1-based half-moves).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Correction {
    /// The half-move the correction is about: `san` replaces it; `fen` is the position after it (0: before the
    /// first move).
    pub ply: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub san: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fen: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// One line of the log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Entry {
    /// A tracker event (or one the arbiter entered), in the order the engine received it.
    Event {
        origin: Origin,
        event: Event,
        /// Source time (seconds) of the frame whose processing gave this event: when its evidence was complete
        /// (the tracker decides some frames after the event's own `t`). Absent for replayed and entered events.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seen_t: Option<f64>,
    },
    /// A ruling, caused by the record `cause` (an event, a correction or the end). `rev` counts the corrections
    /// in force when it was made: rev 0 is what the camera alone gave.
    Ruling { cause: u64, rev: u32, ruling: Ruling },
    /// A correction; every ruling from record `cut` on (in the arbiter's game) is superseded and recomputed.
    Correction { correction: Correction, cut: u64 },
    /// An alert (a ruling) acknowledged by the arbiter.
    Ack {
        ruling: u64,
        #[serde(default)]
        by: Option<String>,
    },
    /// The source ended; `engine.finish` ran.
    End { t: f64, frame: Option<u64> },
}

/// A numbered, timed log line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub seq: u64,
    /// Wall-clock milliseconds since the Unix epoch when it was written.
    pub at_ms: u64,
    #[serde(flatten)]
    pub entry: Entry,
}

pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// An open log: appends are durable when `append` returns.
pub struct Log {
    path: PathBuf,
    file: File,
    next_seq: u64,
    /// Skip fsync (benchmarks of the rest of the path only; never the default).
    sync: bool,
}

impl Log {
    /// Opens (creating) `dir/log.jsonl` and returns it with every record already in it.
    pub fn open(dir: &Path) -> Result<(Log, Vec<Record>), StoreError> {
        std::fs::create_dir_all(dir).map_err(|source| StoreError::Open {
            path: dir.to_path_buf(),
            source,
        })?;
        let path = dir.join("log.jsonl");
        let open_err = |source| StoreError::Open {
            path: path.clone(),
            source,
        };
        let mut file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(&path)
            .map_err(open_err)?;
        let mut records = Vec::new();
        let mut good_len = 0u64;
        let mut reader = BufReader::new(&file);
        let mut line = String::new();
        let mut line_no = 0;
        loop {
            line.clear();
            let n = reader.read_line(&mut line).map_err(|source| StoreError::Open {
                path: path.clone(),
                source,
            })?;
            if n == 0 {
                break;
            }
            line_no += 1;
            if !line.ends_with('\n') {
                // Torn write: the process died before the line (and its fsync) completed; it was never announced.
                break;
            }
            let record: Record = serde_json::from_str(line.trim_end()).map_err(|e| StoreError::Damaged {
                path: path.clone(),
                line: line_no,
                message: e.to_string(),
            })?;
            good_len += n as u64;
            records.push(record);
        }
        drop(reader);
        let len = file.seek(SeekFrom::End(0)).map_err(|source| StoreError::Open {
            path: path.clone(),
            source,
        })?;
        if len != good_len {
            file.set_len(good_len).map_err(|source| StoreError::Write {
                path: path.clone(),
                source,
            })?;
        }
        let next_seq = records.last().map(|r| r.seq + 1).unwrap_or(1);
        Ok((
            Log {
                path,
                file,
                next_seq,
                sync: true,
            },
            records,
        ))
    }

    pub fn set_sync(&mut self, sync: bool) {
        self.sync = sync;
    }

    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// Writes `entry` and waits until it is on disk.
    pub fn append(&mut self, entry: Entry) -> Result<Record, StoreError> {
        let record = Record {
            seq: self.next_seq,
            at_ms: now_ms(),
            entry,
        };
        self.append_record(&record)?;
        Ok(record)
    }

    /// Writes a record numbered elsewhere (a hub mirroring another machine's log) and waits until it is on disk.
    pub fn append_record(&mut self, record: &Record) -> Result<(), StoreError> {
        let mut line = serde_json::to_string(record).map_err(|e| StoreError::Write {
            path: self.path.clone(),
            source: std::io::Error::other(e),
        })?;
        line.push('\n');
        let write_err = |source| StoreError::Write {
            path: self.path.clone(),
            source,
        };
        self.file.write_all(line.as_bytes()).map_err(write_err)?;
        if self.sync {
            self.file.sync_data().map_err(|source| StoreError::Write {
                path: self.path.clone(),
                source,
            })?;
        }
        self.next_seq = record.seq + 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_torn_last_line_is_cut_and_numbering_carries_on() {
        let dir = std::env::temp_dir().join(format!("arbiter-store-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        {
            let (mut log, old) = Log::open(&dir).unwrap();
            assert!(old.is_empty());
            log.append(Entry::End { t: 1.0, frame: None }).unwrap();
            log.append(Entry::Ack { ruling: 1, by: None }).unwrap();
        }
        let mut f = OpenOptions::new().append(true).open(dir.join("log.jsonl")).unwrap();
        f.write_all(br#"{"seq":3,"at_ms":1,"ty"#).unwrap();
        drop(f);
        let (mut log, old) = Log::open(&dir).unwrap();
        assert_eq!(old.len(), 2);
        assert_eq!(log.append(Entry::End { t: 2.0, frame: None }).unwrap().seq, 3);
        let (_, again) = Log::open(&dir).unwrap();
        assert_eq!(again.len(), 3);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
