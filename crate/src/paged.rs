//! A large result handed out in pages: its first rows and the lengths of its long lists at
//! once, any other rows when they are asked for.
//!
//! The page's engine worker keeps a large untraced result in the module and sends the page the
//! result with each long list cut to its first rows (the tables show 1,000 rows at first),
//! plus a `paged` object with the full lengths; the page asks for more rows of a list when it
//! shows them. Writing all of a million-row result as JSON text only for the page to see its
//! first thousand rows cost most of a paste's time (`BENCHMARKS.md`, the paste section).

use crate::error::Error;
use crate::outputs::Outputs;
use crate::result::{Late, RunResult, SideOut, WindowOut};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use std::collections::BTreeMap;

/// Lists longer than this are kept back and handed out in pages.
pub const LIST_MAX: usize = 5000;
/// Rows of each paged list sent with the result.
pub const FIRST_ROWS: usize = 1000;

/// The full lengths of the lists that were cut (the result document's `paged` object): only
/// the lists that were cut are named.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Paged {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outputs: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub late: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub windows: Option<usize>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub side_outputs: BTreeMap<String, usize>,
    /// Entries and timers of the state left at the end, over all subtasks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub final_state: Option<usize>,
}

impl Paged {
    fn is_empty(&self) -> bool {
        *self == Paged::default()
    }
}

/// Calls `f` with `result`'s lists longer than `max` cut to their first `first` rows and the
/// full lengths of the cut lists (`None` when nothing was cut, or the result has a trace: a
/// traced result is never paged), and puts the lists back afterwards.
///
/// The state left at the end counts as one list of its entries and timers: when it holds
/// more than `max`, each subtask keeps its first entries, then its first timers, until
/// `first` are kept in all.
pub fn with_first_rows<T>(
    result: &mut RunResult,
    max: usize,
    first: usize,
    f: impl FnOnce(&RunResult, Option<&Paged>) -> T,
) -> T {
    if result.trace.is_some() {
        return f(result, None);
    }
    let mut paged = Paged::default();
    let outputs = (result.outputs.len() > max).then(|| {
        paged.outputs = Some(result.outputs.len());
        let head = result.outputs.slice(0, first);
        std::mem::replace(&mut result.outputs, head)
    });
    let late = cut(&mut result.late, max, first, &mut paged.late);
    let windows = cut(&mut result.windows, max, first, &mut paged.windows);
    let mut side = Vec::new();
    for (tag, rows) in result.side_outputs.iter_mut() {
        let mut n = None;
        if let Some(all) = cut(rows, max, first, &mut n) {
            paged.side_outputs.insert(tag.clone(), n.unwrap_or(0));
            side.push((tag.clone(), all));
        }
    }
    let n_state: usize = result
        .final_state
        .iter()
        .map(|s| s.entries.len() + s.timers.len())
        .sum();
    let state = (n_state > max).then(|| {
        paged.final_state = Some(n_state);
        let mut budget = first;
        let head = result
            .final_state
            .iter()
            .map(|s| {
                let mut s2 = crate::trace::SubtaskState {
                    subtask: s.subtask,
                    watermark: s.watermark,
                    entries: s.entries.iter().take(budget).cloned().collect(),
                    timers: Vec::new(),
                };
                budget -= s2.entries.len();
                s2.timers = s.timers.iter().take(budget).cloned().collect();
                budget -= s2.timers.len();
                s2
            })
            .collect();
        std::mem::replace(&mut result.final_state, head)
    });
    let value = f(result, (!paged.is_empty()).then_some(&paged));
    if let Some(all) = outputs {
        result.outputs = all;
    }
    if let Some(all) = late {
        result.late = all;
    }
    if let Some(all) = windows {
        result.windows = all;
    }
    for (tag, all) in side {
        result.side_outputs.insert(tag, all);
    }
    if let Some(all) = state {
        result.final_state = all;
    }
    value
}

/// `list` cut to its first `first` items when it is longer than `max`: the whole list is
/// returned and its length noted in `len`.
fn cut<T: Clone>(
    list: &mut Vec<T>,
    max: usize,
    first: usize,
    len: &mut Option<usize>,
) -> Option<Vec<T>> {
    if list.len() <= max {
        return None;
    }
    *len = Some(list.len());
    let head = list[..first.min(list.len())].to_vec();
    Some(std::mem::replace(list, head))
}

/// Rows `from..from + count` of one list of a result (clamped to the list), written as the
/// whole list writes them.
pub enum Page<'a> {
    Outputs(Outputs),
    Late(&'a [Late]),
    Windows(&'a [WindowOut]),
    SideOutputs(&'a [SideOut]),
}

impl Serialize for Page<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Page::Outputs(o) => o.serialize(s),
            Page::Late(l) => l.serialize(s),
            Page::Windows(w) => w.serialize(s),
            Page::SideOutputs(r) => r.serialize(s),
        }
    }
}

/// Rows `from..from + count` of the list `field` (`outputs`, `late`, `windows`), or of the
/// side output `tag` when there is one (an unknown tag is an empty list, as the page's worker
/// answered before).
pub fn page<'a>(
    result: &'a RunResult,
    field: &str,
    tag: Option<&str>,
    from: usize,
    count: usize,
) -> Result<Page<'a>, Error> {
    fn range<T>(list: &[T], from: usize, count: usize) -> &[T] {
        let a = from.min(list.len());
        &list[a..a.saturating_add(count).min(list.len())]
    }
    if let Some(tag) = tag {
        let rows = result.side_outputs.get(tag).map_or(&[][..], |r| &r[..]);
        return Ok(Page::SideOutputs(range(rows, from, count)));
    }
    match field {
        "outputs" => Ok(Page::Outputs(
            result.outputs.slice(from, from.saturating_add(count)),
        )),
        "late" => Ok(Page::Late(range(&result.late, from, count))),
        "windows" => Ok(Page::Windows(range(&result.windows, from, count))),
        _ => Err(Error::config(
            "page",
            format!("no list {field:?} to page (outputs, late, windows or a side output)"),
        )),
    }
}

/// The result with its long lists cut (see [`with_first_rows`]) and the full lengths beside
/// it, written as one document: the result's own fields and, when a list was cut, `paged`.
pub struct FirstRows<'a> {
    pub result: &'a RunResult,
    pub paged: Option<&'a Paged>,
}

impl Serialize for FirstRows<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("result", self.result)?;
        if let Some(p) = self.paged {
            m.serialize_entry("paged", p)?;
        }
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    fn run(rows_l: &str, rows_r: &str, op: &str) -> RunResult {
        let sc = serde_json::json!({
            "job": { "operator": op, "interval": { "lower": -10, "upper": 10 },
                     "window": { "size": 10 }, "final_watermark": false },
            "streams": [
                { "name": "l", "columns": ["k", "ts"], "key": "k", "time": "ts", "rows": rows_l },
                { "name": "r", "columns": ["k", "ts"], "key": "k", "time": "ts", "rows": rows_r },
            ]
        });
        let sc = Scenario::from_json(&sc.to_string()).unwrap();
        crate::run(&sc, false).unwrap()
    }

    fn rows(n: usize, shift: i64) -> String {
        (0..n)
            .map(|i| format!("k{}, {}", i % 7, i as i64 * 3 + shift))
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn json<T: Serialize>(v: &T) -> serde_json::Value {
        serde_json::to_value(v).unwrap()
    }

    #[test]
    fn a_small_result_is_written_whole() {
        let mut r = run(&rows(20, 0), &rows(20, 1), "interval_join");
        let whole = json(&r);
        let doc = with_first_rows(&mut r, 50, 10, |r, p| {
            assert!(p.is_none());
            json(&FirstRows {
                result: r,
                paged: p,
            })
        });
        assert_eq!(doc, serde_json::json!({ "result": whole }));
    }

    #[test]
    fn long_lists_are_cut_and_put_back_and_pages_match_the_whole() {
        let mut r = run(&rows(400, 0), &rows(400, 1), "interval_join");
        let whole = json(&r);
        let n = r.outputs.len();
        assert!(n > 100, "{n} outputs");
        let doc = with_first_rows(&mut r, 100, 30, |r, p| {
            json(&FirstRows {
                result: r,
                paged: p,
            })
        });
        // Put back: the result writes as before.
        assert_eq!(json(&r), whole);
        let mut expect = whole.clone();
        expect["outputs"] =
            serde_json::Value::Array(whole["outputs"].as_array().unwrap()[..30].to_vec());
        assert_eq!(doc["result"], expect);
        assert_eq!(doc["paged"], serde_json::json!({ "outputs": n }));
        // Pages, anywhere in the list and past its end.
        let all = whole["outputs"].as_array().unwrap();
        for (from, count) in [(0, 5), (7, 40), (n - 3, 10), (n + 5, 3), (0, n)] {
            let got = json(&page(&r, "outputs", None, from, count).unwrap());
            let a = from.min(n);
            let b = (from + count).min(n);
            assert_eq!(
                got,
                serde_json::Value::Array(all[a..b].to_vec()),
                "{from}+{count}"
            );
        }
        assert!(page(&r, "nope", None, 0, 1).is_err());
    }

    #[test]
    fn window_outputs_keep_their_windows_in_pages_and_the_state_is_cut() {
        // A window join: each output carries its window, run-length encoded by the sink.
        let mut r = run(&rows(300, 0), &rows(300, 1), "window_join");
        let whole = json(&r);
        let all = whole["outputs"].as_array().unwrap().clone();
        let n = all.len();
        assert!(
            n > 50 && all.iter().all(|o| o.get("window").is_some()),
            "{n}"
        );
        for (from, count) in [(0, 13), (5, 29), (n / 2, 31), (n - 1, 4)] {
            let got = json(&page(&r, "outputs", None, from, count).unwrap());
            assert_eq!(
                got,
                serde_json::Value::Array(all[from..(from + count).min(n)].to_vec())
            );
        }
        // The state left at the end (no final watermark): cut across subtasks.
        let n_state: usize = r
            .final_state
            .iter()
            .map(|s| s.entries.len() + s.timers.len())
            .sum();
        assert!(n_state > 4, "{n_state}");
        let doc = with_first_rows(&mut r, 4, 3, |r, p| {
            json(&FirstRows {
                result: r,
                paged: p,
            })
        });
        assert_eq!(doc["paged"]["final_state"], serde_json::json!(n_state));
        let kept: usize = doc["result"]["final_state"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["entries"].as_array().unwrap().len() + s["timers"].as_array().unwrap().len())
            .sum();
        assert_eq!(kept, 3);
        assert_eq!(json(&r), whole);
    }
}
