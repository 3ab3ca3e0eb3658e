//! Flink SQL scripts as scenarios, and scenarios as scripts.
//!
//! A script is `SET` statements, `CREATE TABLE`s, `INSERT INTO t VALUES …` (each table's rows
//! in arrival order) and one query. [`script::parse`] reads it into a [`Scenario`] (keeping
//! the text in `sql`); [`print::script`] writes a scenario as a script that reads back to the
//! same scenario. The conventions are in `scenarios/README.md` ("SQL scripts").

pub mod dialect;
pub mod eval;
pub mod ir;
pub mod print;
pub mod script;
pub mod tvf;
pub mod window_join;

use crate::scenario::Scenario;
use serde::Serialize;

/// An error in a script: 1-based line and column, and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SqlError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl std::fmt::Display for SqlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

/// The `PROCTIME()` column of stream `si` as its SQL table declares it: its name and its
/// place among the stream's columns (`columns`, their names in order). A stream's
/// `proctime` says it where it is not the default; by default the inputs of a processing-time
/// join (the processing-time interval join's two, the lookup join's probe, and a lookup
/// table with a time column) have one named `proc_time` (`_` added while a column has that
/// name) after their columns, and other tables none.
pub fn proctime_column(sc: &Scenario, si: usize, columns: &[String]) -> Option<(String, usize)> {
    use crate::scenario::{OperatorKind, TimeKind};
    let spec = sc.streams.get(si)?;
    match spec.proctime.as_deref() {
        Some("-") => None,
        Some(p) => Some(match p.rsplit_once(':') {
            Some((name, at)) if at.parse::<usize>().is_ok() => (
                name.to_string(),
                at.parse::<usize>().unwrap_or(0).min(columns.len()),
            ),
            _ => (p.to_string(), columns.len()),
        }),
        None => {
            let job = &sc.job;
            let default = match job.operator {
                OperatorKind::SqlIntervalJoin => job.sql.time == TimeKind::Processing,
                OperatorKind::LookupJoin => si == 0 || spec.time.is_some(),
                _ => false,
            };
            default.then(|| {
                let mut name = "proc_time".to_string();
                while columns.iter().any(|c| c.eq_ignore_ascii_case(&name)) {
                    name.push('_');
                }
                (name, columns.len())
            })
        }
    }
}

/// Reads a Flink SQL script into a scenario.
pub fn sql_to_scenario(text: &str) -> Result<Scenario, SqlError> {
    script::parse(text)
}

/// Writes a scenario as a Flink SQL script (the scenario's own `sql` text when it has one).
pub fn scenario_to_sql(sc: &Scenario) -> Result<String, crate::error::Error> {
    if !sc.sql.is_empty() {
        return Ok(sc.sql.clone());
    }
    print::script(sc)
}
