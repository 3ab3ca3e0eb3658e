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
    /// Per side output tag that was cut (written as an object, tag → length).
    #[serde(skip_serializing_if = "Vec::is_empty", serialize_with = "tag_lengths")]
    pub side_outputs: Vec<(String, usize)>,
    /// Entries and timers of the state left at the end, over all subtasks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub final_state: Option<usize>,
}

fn tag_lengths<S: Serializer>(v: &[(String, usize)], s: S) -> Result<S::Ok, S::Error> {
    let mut m = s.serialize_map(Some(v.len()))?;
    for (tag, n) in v {
        m.serialize_entry(tag, n)?;
    }
    m.end()
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
///
/// The lists are cut in place, by their lengths: nothing is copied (a list may hold a million
/// late rows) and no list's items need `Clone` (each such impl is code in the page's module).
pub fn with_first_rows<T>(
    result: &mut RunResult,
    max: usize,
    first: usize,
    f: impl FnOnce(&RunResult, Option<&Paged>) -> T,
) -> T {
    if result.trace.is_some() {
        return f(result, None);
    }
    let first = first.min(max);
    let mut paged = Paged::default();
    // The outputs are not a `Vec`: their first rows are copied (32 bytes each).
    let outputs = (result.outputs.len() > max).then(|| {
        paged.outputs = Some(result.outputs.len());
        let head = result.outputs.slice(0, first);
        std::mem::replace(&mut result.outputs, head)
    });
    // The full length of every list cut, in the order they are cut and put back.
    let mut lens = Vec::new();
    paged.late = cut(&mut result.late, max, first, &mut lens);
    paged.windows = cut(&mut result.windows, max, first, &mut lens);
    for (tag, rows) in result.side_outputs.iter_mut() {
        if let Some(n) = cut(rows, max, first, &mut lens) {
            paged.side_outputs.push((tag.clone(), n));
        }
    }
    let n_state: usize = result
        .final_state
        .iter()
        .map(|s| s.entries.len() + s.timers.len())
        .sum();
    if n_state > max {
        paged.final_state = Some(n_state);
        let mut budget = first;
        for s in result.final_state.iter_mut() {
            let keep = s.entries.len().min(budget);
            budget -= keep;
            cut_to(&mut s.entries, keep, &mut lens);
            let keep = s.timers.len().min(budget);
            budget -= keep;
            cut_to(&mut s.timers, keep, &mut lens);
        }
    }
    let value = f(result, (!paged.is_empty()).then_some(&paged));
    if let Some(all) = outputs {
        result.outputs = all;
    }
    // Back in the same order.
    let mut lens = lens.into_iter();
    let late = paged.late.is_some();
    let windows = paged.windows.is_some();
    if late {
        put_back(&mut result.late, &mut lens);
    }
    if windows {
        put_back(&mut result.windows, &mut lens);
    }
    for (tag, rows) in result.side_outputs.iter_mut() {
        if paged.side_outputs.iter().any(|(t, _)| t == tag) {
            put_back(rows, &mut lens);
        }
    }
    if paged.final_state.is_some() {
        for s in result.final_state.iter_mut() {
            put_back(&mut s.entries, &mut lens);
            put_back(&mut s.timers, &mut lens);
        }
    }
    value
}

/// Cuts `list` to its first `first` items when it is longer than `max`; returns its length
/// then (noted in `lens` too).
fn cut<T>(list: &mut Vec<T>, max: usize, first: usize, lens: &mut Vec<usize>) -> Option<usize> {
    let len = list.len();
    if len <= max {
        return None;
    }
    cut_to(list, first, lens);
    Some(len)
}

/// Cuts `list` to its first `keep` items (all of them when it has fewer) and notes its length
/// in `lens`.
fn cut_to<T>(list: &mut Vec<T>, keep: usize, lens: &mut Vec<usize>) {
    let len = list.len();
    lens.push(len);
    // SAFETY: the new length is at most `len`, so the items kept stay initialised; the items
    // past it stay in the buffer, untouched, until `put_back` gives the list its length back
    // (the result is only lent shared in between). Were that never to happen (a panic in
    // between), they would be leaked, not dropped twice.
    unsafe { list.set_len(keep.min(len)) };
}

/// Gives back to `list` the length [`cut_to`] noted.
fn put_back<T>(list: &mut Vec<T>, lens: &mut impl Iterator<Item = usize>) {
    if let Some(len) = lens.next() {
        // SAFETY: `len` is the list's length before `cut_to`, whose items past the cut were
        // left in place, initialised and untouched (see `cut_to`), and the list was not changed
        // since.
        unsafe { list.set_len(len) };
    }
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

    /// Every gallery scenario (untraced), with every list longer than one cut to one row: the
    /// cut document is the whole one with those lists cut and their lengths in `paged`, pages
    /// of each list are its slices, and the result writes as before afterwards.
    #[test]
    fn gallery_results_cut_page_and_come_back_whole() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
        let mut cut_lists = 0;
        let mut kinds = std::collections::BTreeSet::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if !name.ends_with(".json") || name.ends_with(".expected.json") {
                continue;
            }
            let sc = Scenario::from_json(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let Ok(mut r) = crate::run(&sc, false) else {
                continue; // (the SQL operators' scenarios, without their module)
            };
            let whole = json(&r);
            let (max, first) = (1, 1);
            let doc = with_first_rows(&mut r, max, first, |r, p| {
                json(&FirstRows {
                    result: r,
                    paged: p,
                })
            });
            assert_eq!(json(&r), whole, "{name}: put back");
            let mut expect = whole.clone();
            let mut paged = serde_json::Map::new();
            let cut_field =
                |field: &str,
                 expect: &mut serde_json::Value,
                 paged: &mut serde_json::Map<String, serde_json::Value>| {
                    if let Some(list) = whole[field].as_array().filter(|l| l.len() > max) {
                        expect[field] = serde_json::Value::Array(list[..first].to_vec());
                        paged.insert(field.to_string(), list.len().into());
                    }
                };
            for field in ["outputs", "late", "windows"] {
                cut_field(field, &mut expect, &mut paged);
            }
            let mut side = serde_json::Map::new();
            for (tag, list) in whole["side_outputs"].as_object().unwrap() {
                let list = list.as_array().unwrap();
                if list.len() > max {
                    expect["side_outputs"][tag] = serde_json::Value::Array(list[..first].to_vec());
                    side.insert(tag.clone(), list.len().into());
                }
            }
            if !side.is_empty() {
                paged.insert("side_outputs".into(), side.into());
            }
            if let Some(states) = whole.get("final_state").and_then(|s| s.as_array()) {
                let n: usize = states
                    .iter()
                    .map(|s| {
                        s["entries"].as_array().unwrap().len()
                            + s["timers"].as_array().unwrap().len()
                    })
                    .sum();
                if n > max {
                    let mut budget = first;
                    for (i, st) in states.iter().enumerate() {
                        for list in ["entries", "timers"] {
                            let l = st[list].as_array().unwrap();
                            let keep = l.len().min(budget);
                            budget -= keep;
                            expect["final_state"][i][list] =
                                serde_json::Value::Array(l[..keep].to_vec());
                        }
                    }
                    paged.insert("final_state".into(), n.into());
                }
            }
            assert_eq!(doc["result"], expect, "{name}: the cut document");
            if paged.is_empty() {
                assert!(doc.get("paged").is_none(), "{name}");
            } else {
                cut_lists += paged.len();
                kinds.extend(paged.keys().cloned());
                assert_eq!(
                    doc["paged"],
                    serde_json::Value::Object(paged),
                    "{name}: paged"
                );
            }
            for field in ["outputs", "late", "windows"] {
                let all = whole[field].as_array().cloned().unwrap_or_default();
                let got = json(&page(&r, field, None, 1, 2).unwrap());
                assert_eq!(
                    got,
                    serde_json::Value::Array(all.iter().skip(1).take(2).cloned().collect()),
                    "{name}: page of {field}"
                );
            }
            for (tag, list) in whole["side_outputs"].as_object().unwrap() {
                let got = json(&page(&r, "outputs", Some(tag), 1, 2).unwrap());
                let all = list.as_array().unwrap();
                assert_eq!(
                    got,
                    serde_json::Value::Array(all.iter().skip(1).take(2).cloned().collect()),
                    "{name}: page of side output {tag}"
                );
            }
        }
        assert!(cut_lists > 20, "{cut_lists} lists cut over the gallery");
        let all = ["final_state", "late", "outputs", "side_outputs", "windows"];
        assert_eq!(
            kinds.iter().map(|k| k.as_str()).collect::<Vec<_>>(),
            all,
            "every kind of list was cut somewhere"
        );
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
