//! A `ProcessFunction` that routes each row by one column's value: to the main output
//! (`out.collect(value)`) or to a tagged side output (`ctx.output(tag, value)`), or drops it.
//!
//! Flink: `stream.process(fn)` runs a `ProcessOperator`
//! (`flink-runtime/src/main/java/org/apache/flink/streaming/api/operators/ProcessOperator.java`):
//! - `processElement` sets the main collector's timestamp from the element
//!   (`TimestampedCollector.setTimestamp(element)`: the element's timestamp, or none if it has
//!   none), so a main-output row keeps the input timestamp;
//! - `ContextImpl.output(tag, value)` emits `new StreamRecord<>(value, element.getTimestamp())`,
//!   so a side-output row also keeps the input timestamp (`Long.MIN_VALUE` when the element has
//!   none; here `None`);
//! - records to a tag nobody asked for with `getSideOutput` are dropped; tags are matched by id
//!   (`flink-core/src/main/java/org/apache/flink/util/OutputTag.java`: `equals`/`hashCode` use
//!   the id only in 2.3).
//!
//! The operator is not keyed and holds no state and no timers. The simulator forwards each row
//! to the operator subtask with the index of its assigner subtask (`forward()`, equal
//! parallelism), so rows keep their per-subtask order. This is seed 004's example
//! (FLINK-SEMANTICS §9): `flink` → main, `spark` → tag `test`, `hadoop` → tag `test1`,
//! anything else dropped.
//!
//! Routing: the column's value as text (`Value`'s `Display`: `null` for NULL, numbers as
//! typed) is compared with each route's `value` exactly; the first matching route wins; with
//! no match the row goes to `otherwise`, or is dropped when that is unset. A target of
//! `"main"` is the main output; anything else is a side-output tag.

use super::{Ctx, Operator};
use crate::parse::{RowKind, Side};
use crate::partition::SubtaskIndex;
use crate::plan::{KeyId, Plan, RowId};
use crate::timers::Timer;
use crate::trace::StateEntry;
use crate::value::Value;
use std::fmt::Write;

/// Where a routed row goes.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Target {
    /// `out.collect(value)`.
    Main,
    /// `ctx.output(new OutputTag<>(tag), value)`.
    Tag(String),
}

impl Target {
    fn parse(to: &str) -> Target {
        if to == "main" {
            Target::Main
        } else {
            Target::Tag(to.to_string())
        }
    }
}

/// One subtask of the routing `ProcessFunction`.
pub struct Split {
    /// Index of the split column in the first stream's schema (`None` if it does not exist,
    /// which plan validation rejects; every row then matches no route).
    column: Option<usize>,
    routes: Vec<(String, Target)>,
    otherwise: Option<Target>,
    /// Scratch buffer for the column's text.
    text: String,
}

impl Split {
    /// The target of a row whose split column reads `text`.
    fn route(&self, text: &str) -> Option<&Target> {
        self.routes
            .iter()
            .find(|(v, _)| v == text)
            .map(|(_, t)| t)
            .or(self.otherwise.as_ref())
    }
}

impl Operator for Split {
    type Ns = ();

    fn new(plan: &Plan, _subtask: SubtaskIndex) -> Self {
        let spec = &plan.scenario.job.split;
        let column = plan
            .schemas
            .first()
            .and_then(|s| s.columns.iter().position(|c| c.name == spec.column.trim()));
        Split {
            column,
            routes: spec
                .routes
                .iter()
                .map(|r| (r.value.clone(), Target::parse(&r.to)))
                .collect(),
            otherwise: spec.otherwise.as_deref().map(Target::parse),
            text: String::new(),
        }
    }

    fn process_element(&mut self, cx: &mut Ctx<'_, ()>, _side: Side, row: RowId) {
        let r = cx.plan.row(row);
        let ts = r.ts;
        let mut text = std::mem::take(&mut self.text);
        text.clear();
        let value = self.column.and_then(|c| cx.plan.row_values(r).get(c));
        let matched = match value {
            Some(Value::Str(s)) => self.route(s),
            Some(v) => {
                let _ = write!(text, "{v}");
                self.route(&text)
            }
            None => self.otherwise.as_ref(),
        };
        match matched {
            Some(Target::Main) => cx.emit(Some(row), None, ts, RowKind::Insert, None),
            Some(Target::Tag(tag)) => cx.side_output(tag, row, ts),
            None => {}
        }
        self.text = text;
    }

    fn on_event_time(&mut self, _cx: &mut Ctx<'_, ()>, _timer: Timer<KeyId, ()>) {}

    fn describe_timer(_ns: &()) -> String {
        String::new()
    }

    fn state(&self) -> Vec<StateEntry> {
        Vec::new()
    }

    fn is_empty(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use crate::parse::RowKind;
    use crate::result::RunResult;

    fn run(json: &str) -> RunResult {
        crate::run_json(json, false).expect("scenario runs")
    }

    fn lines(rows: &[crate::result::SideOut]) -> Vec<u32> {
        rows.iter().map(|s| s.row.line).collect()
    }

    /// Seed 004: flink → main, spark → `test`, hadoop → `test1`, others dropped.
    const SEED_004: &str = r#"{
        "version": 1,
        "job": {
            "operator": "split",
            "split": {
                "column": "name",
                "routes": [
                    {"value": "flink", "to": "main"},
                    {"value": "spark", "to": "test"},
                    {"value": "hadoop", "to": "test1"}
                ]
            }
        },
        "streams": [{
            "name": "words",
            "columns": ["name", "ts"],
            "time": "ts",
            "rows": "flink, 1000\nspark, 2000\nhadoop, 3000\nstorm, 4000\nflink, 5000\nspark, 6000"
        }]
    }"#;

    #[test]
    fn seed_004_routes_by_name() {
        let r = run(SEED_004);
        let main: Vec<(u32, Option<i64>)> = r
            .outputs
            .iter()
            .map(|o| (o.left.as_ref().unwrap().line, o.timestamp))
            .collect();
        assert_eq!(main, [(1, Some(1000)), (5, Some(5000))]);
        assert!(r
            .outputs
            .iter()
            .all(|o| o.right.is_none() && o.kind == RowKind::Insert && o.window.is_none()));
        assert_eq!(r.side_outputs.len(), 2);
        assert_eq!(lines(&r.side_outputs["test"]), [2, 6]);
        assert_eq!(lines(&r.side_outputs["test1"]), [3]);
        // Side-output rows keep the input element's timestamp.
        let ts: Vec<Option<i64>> = r.side_outputs["test"].iter().map(|s| s.timestamp).collect();
        assert_eq!(ts, [Some(2000), Some(6000)]);
        // "storm" matched nothing and there is no `otherwise`: dropped, not late.
        assert!(r.late.is_empty());
        assert!(r.state_empty);
    }

    #[test]
    fn gallery_scenario() {
        let r = run(include_str!("../../../scenarios/split-side-outputs.json"));
        let main: Vec<u32> = r
            .outputs
            .iter()
            .map(|o| o.left.as_ref().unwrap().line)
            .collect();
        assert_eq!(main, [1, 5]);
        assert_eq!(lines(&r.side_outputs["test"]), [2, 6]);
        assert_eq!(lines(&r.side_outputs["test1"]), [3, 8]);
        assert_eq!(r.side_outputs.len(), 2);
    }

    #[test]
    fn first_route_wins_otherwise_and_no_time_column() {
        let json = r#"{
            "version": 1,
            "job": {
                "operator": "split",
                "parallelism": 2,
                "split": {
                    "column": "n",
                    "routes": [
                        {"value": "1", "to": "one"},
                        {"value": "1", "to": "main"},
                        {"value": "null", "to": "nulls"},
                        {"value": "2.5", "to": "main"}
                    ],
                    "otherwise": "rest"
                }
            },
            "streams": [{
                "name": "nums",
                "columns": ["n:double", "tag"],
                "rows": "1, a | s=1\n2.5, b\nnull, c | s=1\n7, d"
            }]
        }"#;
        let r = run(json);
        // Double 1 displays as "1.0": it does not match "1", so it goes to `otherwise`.
        assert_eq!(lines(&r.side_outputs["rest"]), [1, 4]);
        assert_eq!(lines(&r.side_outputs["nulls"]), [3]);
        assert!(!r.side_outputs.contains_key("one"));
        assert_eq!(r.outputs.len(), 1);
        let o = &r.outputs[0];
        assert_eq!(o.left.as_ref().unwrap().line, 2);
        // No time column: no timestamp.
        assert_eq!(o.timestamp, None);
        // Forwarded to the operator subtask of its assigner subtask: line 2 is the first row
        // without `s=`, so round robin puts it on subtask 0, and line 4 on subtask 1.
        assert_eq!(o.subtask.0, 0);
        let subs: Vec<u32> = r.side_outputs["rest"].iter().map(|s| s.subtask.0).collect();
        assert_eq!(subs, [1, 1]);
    }

    #[test]
    fn int_column_and_first_match() {
        let json = r#"{
            "version": 1,
            "job": {
                "operator": "split",
                "split": {
                    "column": "n",
                    "routes": [{"value": "7", "to": "a"}, {"value": "7", "to": "b"}, {"value": "8", "to": "main"}],
                    "otherwise": "main"
                }
            },
            "streams": [{"name": "s", "columns": ["n", "ts"], "time": "ts", "rows": "7, 1\n8, 2\n9, 3"}]
        }"#;
        let r = run(json);
        assert_eq!(lines(&r.side_outputs["a"]), [1]);
        assert!(!r.side_outputs.contains_key("b"));
        let main: Vec<u32> = r
            .outputs
            .iter()
            .map(|o| o.left.as_ref().unwrap().line)
            .collect();
        assert_eq!(main, [2, 3]);
    }
}
