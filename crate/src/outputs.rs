//! The outputs of a run as the result document holds them ([`crate::result::RunResult::outputs`]).
//!
//! A run can emit tens of millions of outputs. The result used to hold each as an
//! [`Output`] (about 180 bytes: two row references, the timestamp, the window and the SQL
//! values, each in its own field), built from the simulator's 32-byte [`OutputRow`]s while
//! those were still alive, so a lean run peaked at about 220 bytes per output. [`Outputs`]
//! keeps the simulator's rows themselves (moved, not copied), the window column run-length
//! encoded as the sink had it, and one table of the input rows they refer to; it writes the
//! very same JSON from them ([`OutputView`], field for field the `Output` document), and builds
//! the `Output` structs only when code asks for them as a slice (tests, the SQL projection,
//! the windowed trace), once.

use crate::operators::{OutputRow, OutputValues, SqlValue};
use crate::parse::{RowKind, ValueRange};
use crate::partition::SubtaskIndex;
use crate::plan::{Plan, RowId};
use crate::result::{Output, RowRef};
use crate::value::Value;
use serde::ser::{SerializeSeq, Serializer};
use serde::Serialize;
use std::sync::{Arc, OnceLock};

/// The input rows outputs refer to: stream names, and per row id its stream, line and values.
#[derive(Clone, Debug, Default, PartialEq)]
struct RowTable {
    streams: Vec<Arc<str>>,
    /// Per row id: the stream's index and the line.
    place: Vec<(u32, u32)>,
    /// The rows' values (taken from the plan when it is handed over, else copied) ...
    values: Vec<Value>,
    /// ... per row id: where its values are in `values`.
    at: Vec<ValueRange>,
}

/// The compact form: the simulator's outputs and what they refer to.
#[derive(Clone, Debug, Default, PartialEq)]
struct Compact {
    rows: Vec<OutputRow>,
    /// `(index of the first output of a run, the window of that run)` ([`crate::operators::Sink`]).
    windows: Vec<(usize, Option<(i64, i64)>)>,
    /// The computed values of outputs that have them, by output index, increasing.
    values: Vec<OutputValues>,
    table: Arc<RowTable>,
}

/// The outputs of a run, in emission order: a slice of [`Output`] to code that reads them
/// (built on first use), the simulator's compact rows underneath.
#[derive(Default)]
pub struct Outputs {
    compact: Compact,
    full: OnceLock<Vec<Output>>,
}

/// A row reference as the result document writes it (the fields of [`RowRef`]).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct RowView<'a> {
    pub id: RowId,
    pub stream: &'a str,
    pub line: u32,
    pub values: &'a [Value],
}

/// One output as the result document writes it: the fields of [`Output`], in its order, with
/// its omissions.
#[derive(Clone, Debug, Serialize)]
pub struct OutputView<'a> {
    pub left: Option<RowView<'a>>,
    pub right: Option<RowView<'a>>,
    pub timestamp: Option<i64>,
    pub kind: RowKind,
    pub subtask: SubtaskIndex,
    pub step: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<[i64; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub values: Option<&'a [SqlValue]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<Vec<String>>,
}

impl Outputs {
    /// The outputs of `sink` (moved out of it); `plan` gives the rows they refer to. With
    /// `taken`, the rows' values (indexed by row id) are those, not copies of the plan's.
    pub(crate) fn new(
        plan: &Plan,
        rows: Vec<OutputRow>,
        windows: Vec<(usize, Option<(i64, i64)>)>,
        values: Vec<OutputValues>,
    ) -> Outputs {
        let table = if rows.is_empty() {
            RowTable::default()
        } else {
            RowTable {
                streams: plan
                    .schemas
                    .iter()
                    .map(|s| Arc::from(s.name.as_str()))
                    .collect(),
                place: plan
                    .rows
                    .iter()
                    .map(|r| (r.stream.index() as u32, r.line))
                    .collect(),
                values: Vec::new(),
                at: Vec::new(),
            }
        };
        Outputs {
            compact: Compact {
                rows,
                windows,
                values,
                table: Arc::new(table),
            },
            full: OnceLock::new(),
        }
    }

    /// Whether the values of the rows are still to be given ([`Outputs::give_values`] or
    /// [`Outputs::copy_values`]).
    pub(crate) fn needs_values(&self) -> bool {
        !self.compact.rows.is_empty() && self.compact.table.at.is_empty()
    }

    /// The rows' values moved out of a plan that is no longer needed ([`Plan::values`] and
    /// each row's range in it, indexed by row id).
    pub(crate) fn give_values(&mut self, values: Vec<Value>, at: Vec<ValueRange>) {
        if self.needs_values() {
            if let Some(t) = Arc::get_mut(&mut self.compact.table) {
                t.values = values;
                t.at = at;
            }
        }
    }

    /// The rows' values copied from `plan`.
    pub(crate) fn copy_values(&mut self, plan: &Plan) {
        if self.needs_values() {
            let at = plan.rows.iter().map(|r| r.values).collect();
            self.give_values(plan.values.clone(), at);
        }
    }

    /// How many outputs there are (without building them).
    pub fn len(&self) -> usize {
        match self.full.get() {
            Some(v) => v.len(),
            None => self.compact.rows.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn row_view(&self, id: RowId) -> RowView<'_> {
        let t = &*self.compact.table;
        let (stream, line) = t.place[id.0 as usize];
        RowView {
            id,
            stream: &t.streams[stream as usize],
            line,
            values: t.at.get(id.0 as usize).map_or(&[], |r| r.of(&t.values)),
        }
    }

    /// The outputs as the document writes them, without building [`Output`]s (`None` once
    /// they have been built: read the slice then).
    pub fn views(&self) -> Option<impl Iterator<Item = OutputView<'_>> + '_> {
        if self.full.get().is_some() {
            return None;
        }
        let c = &self.compact;
        let mut run = 0;
        let mut vals = c.values.iter().peekable();
        Some(c.rows.iter().enumerate().map(move |(i, o)| {
            while run + 1 < c.windows.len() && c.windows[run + 1].0 <= i {
                run += 1;
            }
            let window = c.windows.get(run).and_then(|r| r.1).map(|(a, b)| [a, b]);
            let v = vals.next_if(|v| v.index == i);
            OutputView {
                left: o.left.map(|id| self.row_view(id)),
                right: o.right.map(|id| self.row_view(id)),
                timestamp: o.timestamp(),
                kind: o.kind,
                subtask: o.subtask(),
                step: o.step(),
                window,
                values: v.map(|v| &v.values[..]),
                from: v.map(|v| {
                    v.rows
                        .iter()
                        .map(|&r| {
                            let r = self.row_view(r);
                            format!("{}:{}", r.stream, r.line)
                        })
                        .collect()
                }),
            }
        }))
    }

    /// The outputs `from..to` (clamped to the list) as outputs of their own, written exactly
    /// as those outputs are written in the whole list: a page of a large result, which the
    /// page's engine worker hands out without writing the rest. The compact rows of the range
    /// are copied and share the table of input rows (no [`Output`] is built).
    pub fn slice(&self, from: usize, to: usize) -> Outputs {
        let to = to.min(self.len());
        let from = from.min(to);
        if let Some(full) = self.full.get() {
            return Outputs::from(full[from..to].to_vec());
        }
        let c = &self.compact;
        // The window runs that cover the range, their first index moved to the range's start.
        let first = c.windows.partition_point(|r| r.0 <= from).saturating_sub(1);
        let windows = c
            .windows
            .get(first)
            .into_iter()
            .chain(c.windows.iter().skip(first + 1).take_while(|r| r.0 < to))
            .map(|&(i, w)| (i.saturating_sub(from), w))
            .collect();
        let values = c
            .values
            .iter()
            .skip(c.values.partition_point(|v| v.index < from))
            .take_while(|v| v.index < to)
            .map(|v| OutputValues {
                index: v.index - from,
                values: v.values.clone(),
                rows: v.rows.clone(),
            })
            .collect();
        Outputs {
            compact: Compact {
                rows: c.rows[from..to].to_vec(),
                windows,
                values,
                table: c.table.clone(),
            },
            full: OnceLock::new(),
        }
    }

    /// The [`Output`]s, built from the compact rows on first use.
    fn full(&self) -> &Vec<Output> {
        self.full.get_or_init(|| {
            let mut refs: Vec<Option<RowRef>> = Vec::new();
            let mut row_ref = |v: RowView<'_>| {
                if refs.is_empty() {
                    refs = vec![None; self.compact.table.place.len()];
                }
                refs[v.id.0 as usize]
                    .get_or_insert_with(|| RowRef {
                        id: v.id,
                        stream: Arc::from(v.stream),
                        line: v.line,
                        values: Arc::from(v.values),
                    })
                    .clone()
            };
            match self.views() {
                Some(views) => views
                    .map(|o| Output {
                        left: o.left.map(&mut row_ref),
                        right: o.right.map(&mut row_ref),
                        timestamp: o.timestamp,
                        kind: o.kind,
                        subtask: o.subtask,
                        step: o.step,
                        window: o.window,
                        values: o.values.map(|v| v.to_vec()),
                        from: o.from,
                    })
                    .collect(),
                None => Vec::new(),
            }
        })
    }

    /// The [`Output`]s to change; the compact rows are dropped (the document is written from
    /// the changed outputs from then on).
    fn full_mut(&mut self) -> &mut Vec<Output> {
        self.full();
        self.compact = Compact::default();
        self.full.get_mut().expect("built above")
    }
}

impl From<Vec<Output>> for Outputs {
    fn from(v: Vec<Output>) -> Outputs {
        Outputs {
            compact: Compact::default(),
            full: OnceLock::from(v),
        }
    }
}

impl std::ops::Deref for Outputs {
    type Target = [Output];
    fn deref(&self) -> &[Output] {
        self.full()
    }
}

impl std::ops::DerefMut for Outputs {
    fn deref_mut(&mut self) -> &mut [Output] {
        self.full_mut()
    }
}

impl<'a> IntoIterator for &'a Outputs {
    type Item = &'a Output;
    type IntoIter = std::slice::Iter<'a, Output>;
    fn into_iter(self) -> Self::IntoIter {
        self.full().iter()
    }
}

impl<'a> IntoIterator for &'a mut Outputs {
    type Item = &'a mut Output;
    type IntoIter = std::slice::IterMut<'a, Output>;
    fn into_iter(self) -> Self::IntoIter {
        self.full_mut().iter_mut()
    }
}

impl Clone for Outputs {
    fn clone(&self) -> Outputs {
        Outputs {
            compact: self.compact.clone(),
            full: match self.full.get() {
                Some(v) => OnceLock::from(v.clone()),
                None => OnceLock::new(),
            },
        }
    }
}

impl PartialEq for Outputs {
    fn eq(&self, other: &Outputs) -> bool {
        self.full() == other.full()
    }
}

impl std::fmt::Debug for Outputs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.full().fmt(f)
    }
}

impl Serialize for Outputs {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.views() {
            Some(views) => {
                let mut seq = s.serialize_seq(Some(self.compact.rows.len()))?;
                for v in views {
                    seq.serialize_element(&v)?;
                }
                seq.end()
            }
            None => self.full().serialize(s),
        }
    }
}
