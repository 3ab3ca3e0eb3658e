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
