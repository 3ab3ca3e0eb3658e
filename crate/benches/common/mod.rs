//! Helpers shared by the benchmark binaries (`engine.rs`, `scaling.rs`, `textpath.rs`,
//! `memory.rs`); each uses part of them.
#![allow(dead_code)]

use joinlab::scenario::Scenario;
use joinlab::workload::Job;
use std::fmt::Write as _;

pub fn f(v: &serde_json::Value, k: &str) -> f64 {
    v.get(k).and_then(|x| x.as_f64()).unwrap_or(f64::NAN)
}

pub fn u(v: &serde_json::Value, k: &str) -> u64 {
    v.get(k).and_then(|x| x.as_u64()).unwrap_or(0)
}

pub fn job_by_name(s: &str) -> Job {
    Job::ALL
        .into_iter()
        .find(|j| j.name() == s)
        .unwrap_or_else(|| panic!("unknown job {s:?}"))
}

/// Peak resident set size of this process, in MB.
pub fn peak_rss_mb() -> f64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse::<f64>().ok())
        .map(|kb| kb / 1024.0)
        .unwrap_or(f64::NAN)
}

pub fn size_name(n: u64) -> String {
    if n >= 1_000_000 && n.is_multiple_of(1_000_000) {
        format!("{}M", n / 1_000_000)
    } else if n >= 1000 && n.is_multiple_of(1000) {
        format!("{}k", n / 1000)
    } else {
        n.to_string()
    }
}

/// One stream of the page benchmark's paste (`scripts/bench-page.mjs`): `n / 2` rows
/// `k<i % 100>, i, ts`, timestamps rising by 10 ms with a 0..4 ms jitter, the right stream
/// 3 ms later.
pub fn page_rows(n: u64, side: char) -> String {
    let half = n / 2;
    let mut out = String::with_capacity(half as usize * 20);
    for i in 0..half {
        let shift = if side == 'r' { 3 } else { 0 };
        let jitter = (i * 7 + shift) % 5;
        let ts = i * 10 + jitter + shift;
        if i > 0 {
            out.push('\n');
        }
        let _ = write!(out, "k{}, {}, {}", i % 100, i, ts);
    }
    out
}

/// The page's 1M-row paste: an interval join ±10 ms of two streams of `n / 2` rows.
pub fn paste_scenario(n: u64) -> Scenario {
    let text = serde_json::json!({
        "title": format!("bench paste {n} rows"),
        "job": { "operator": "interval_join", "interval": { "lower": -10, "upper": 10 } },
        "streams": [
            { "name": "l", "columns": ["k", "v:int", "ts"], "key": "k", "time": "ts", "rows": page_rows(n, 'l') },
            { "name": "r", "columns": ["k", "v:int", "ts"], "key": "k", "time": "ts", "rows": page_rows(n, 'r') },
        ],
    })
    .to_string();
    Scenario::from_json(&text).expect("the paste scenario loads")
}

/// Bytes written (the JSON text's size without keeping it).
pub struct Counter(pub usize);
impl std::io::Write for Counter {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0 += b.len();
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
