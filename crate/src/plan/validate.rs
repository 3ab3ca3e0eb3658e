//! The job's settings checked before a plan is built: watermark delays, the operator's
//! parameters, and the window join's condition as Flink states it.

use super::*;

pub(super) fn check_delay(field: &str, w: &WatermarkSpec) -> Result<GeneratorConfig, Error> {
    if w.delay.0 < 0 {
        return Err(Error::config(format!("{field}.delay"), "the out-of-orderness delay must not be negative (Flink: maxOutOfOrderness cannot be negative)"));
    }
    if w.interval.0 < 0 {
        return Err(Error::config(
            format!("{field}.interval"),
            "the periodic interval must not be negative",
        ));
    }
    if let Some(t) = w.idle_timeout {
        if t.0 <= 0 {
            return Err(Error::config(
                format!("{field}.idle_timeout"),
                "the idle timeout must be positive (WatermarksWithIdleness)",
            ));
        }
    }
    if !w.per_event
        && w.interval.0 == 0
        && !matches!(w.strategy, Strategy::Punctuated | Strategy::None)
    {
        return Err(Error::config(
            format!("{field}.interval"),
            "with per-event emission off, watermarks need a periodic interval > 0",
        ));
    }
    Ok(GeneratorConfig {
        strategy: w.strategy,
        delay: match w.strategy {
            Strategy::Monotonous => 0,
            _ => w.delay.0,
        },
        per_event: w.per_event,
        interval: w.interval.0,
        idle_timeout: w.idle_timeout.map(|t| t.0),
    })
}

pub(super) fn validate_job(sc: &Scenario) -> Result<(), Error> {
    let job = &sc.job;
    match job.operator {
        OperatorKind::WindowJoin | OperatorKind::WindowAggregate => {
            let w = &job.window;
            match w.kind {
                WindowKind::Tumbling => {
                    if w.size.0 <= 0 {
                        return Err(Error::config(
                            "job.window.size",
                            "the window size must be positive",
                        ));
                    }
                    if w.offset.0.unsigned_abs() >= w.size.0.unsigned_abs() {
                        return Err(Error::config(
                            "job.window.offset",
                            "TumblingEventTimeWindows needs |offset| < size",
                        ));
                    }
                }
                WindowKind::Sliding => {
                    let slide = w.slide.map(|s| s.0).unwrap_or(0);
                    if w.size.0 <= 0 || slide <= 0 {
                        return Err(Error::config(
                            "job.window.slide",
                            "SlidingEventTimeWindows needs size > 0 and slide > 0",
                        ));
                    }
                    if w.offset.0.unsigned_abs() >= slide.unsigned_abs() {
                        return Err(Error::config(
                            "job.window.offset",
                            "SlidingEventTimeWindows needs |offset| < slide",
                        ));
                    }
                    let per_row = (w.size.0 + slide - 1) / slide;
                    let limit = Limits::default().windows_per_row;
                    if per_row > limit {
                        return Err(Error::config("job.window.slide", format!("size/slide puts every row in {per_row} windows (this playground allows {limit})")));
                    }
                }
                WindowKind::Session => {
                    if w.gap.map(|g| g.0).unwrap_or(0) <= 0 {
                        return Err(Error::config(
                            "job.window.gap",
                            "EventTimeSessionWindows needs a positive gap",
                        ));
                    }
                }
            }
            if job.allowed_lateness.0 < 0 {
                return Err(Error::config(
                    "job.allowed_lateness",
                    "allowed lateness must not be negative",
                ));
            }
        }
        OperatorKind::IntervalJoin => {
            let iv = &job.interval;
            if iv.lower.0 > iv.upper.0 {
                return Err(Error::config("job.interval.lower", format!("lower bound {} is greater than upper bound {} (IntervalJoinOperator requires lower <= upper)", iv.lower.0, iv.upper.0)));
            }
        }
        // Without crate::SQL_OPERATORS (the page's first-load module), run_plan refuses them.
        OperatorKind::TemporalJoin | OperatorKind::LookupJoin if crate::SQL_OPERATORS => {
            crate::operators::temporal_join::validate(sc)?;
        }
        OperatorKind::WindowTvfAggregate if crate::SQL_OPERATORS => {
            crate::operators::window_tvf_aggregate::validate(sc)?;
        }
        OperatorKind::WindowTvfJoin if crate::SQL_OPERATORS => validate_window_join(sc)?,
        OperatorKind::TemporalJoin
        | OperatorKind::LookupJoin
        | OperatorKind::WindowTvfAggregate
        | OperatorKind::WindowTvfJoin => {}
        OperatorKind::SqlIntervalJoin | OperatorKind::RegularJoin => {
            if job.sql.min_cleanup.0 < 0 {
                return Err(Error::config("job.sql.min_cleanup", "must not be negative"));
            }
        }
        OperatorKind::Split => {
            let s = &job.split;
            if s.column.trim().is_empty() {
                return Err(Error::config(
                    "job.split.column",
                    "choose the column to split on",
                ));
            }
            let cols = sc.streams.first().map(|st| &st.columns);
            if let Some(cols) = cols {
                if !cols
                    .iter()
                    .any(|c| c.split(':').next().map(str::trim) == Some(s.column.trim()))
                {
                    return Err(Error::config(
                        "job.split.column",
                        format!("no column named {:?}", s.column),
                    ));
                }
            }
            for (i, r) in s.routes.iter().enumerate() {
                if r.to.trim().is_empty() {
                    return Err(Error::config(
                        format!("job.split.routes[{i}].to"),
                        "an OutputTag id must not be empty",
                    ));
                }
            }
        }
    }
    for (field, tag) in [
        ("job.late_output.left", &job.late_output.left),
        ("job.late_output.right", &job.late_output.right),
    ] {
        if let Some(t) = tag {
            if t.is_empty() {
                return Err(Error::config(field, "an OutputTag id must not be empty"));
            }
        }
    }
    Ok(())
}

/// The SQL window join's settings. A query Flink 2.3 does not plan as a window join is an
/// error here, with the text the planner gives for it: `WindowJoinUtil
/// .excludeWindowStartEqualityAndEndEqualityFromJoinInfoPairs` (flink-table-planner 2.3.0)
/// logs it as a warning and the join then becomes a regular join over the windowed rows
/// (checked on Flink 2.3.0: `EXPLAIN` shows `Join`, not `WindowJoin`), which this operator is
/// not.
fn validate_window_join(sc: &Scenario) -> Result<(), Error> {
    use crate::scenario::WindowColumns;
    use crate::tvf::{spec_string, Tvf};
    let job = &sc.job;
    if job.tvf.kind == crate::scenario::TvfKind::Session {
        validate_session_window_join(sc)?;
    } else {
        Tvf::of(&job.tvf, "job.tvf").map_err(|(f, m)| Error::config(f, m))?;
    }
    // Kept short: with Flink's text it must fit the 400 characters of an error message.
    let fallback = "Flink 2.3 only warns and plans a regular join instead; not simulated";
    if let Some(right) = &job.sql.right_tvf {
        Tvf::of(right, "job.sql.right_tvf").map_err(|(f, m)| Error::config(f, m))?;
        if *right != job.tvf {
            return Err(Error::config(
                "job.sql.right_tvf",
                format!(
                    "Currently, window join doesn't support different window table function of left and right inputs.\nThe left window table function is {}.\nThe right window table function is {}.\n({fallback}.)",
                    spec_string(&job.tvf),
                    spec_string(right)
                ),
            ));
        }
    }
    if job.sql.window_columns != WindowColumns::Both {
        return Err(Error::config(
            "job.sql.window_columns",
            format!(
                "Currently, window join requires JOIN ON condition must contain both window starts equality of input tables and window ends equality of input tables.\nBut the current JOIN ON condition is {}.\n({fallback}.)",
                window_join_condition(sc)
            ),
        ));
    }
    Ok(())
}

/// A window join over `SESSION` windows: a positive gap (`SessionWindowAssigner`); each
/// input is `PARTITION BY` its key column (or has no key), which the simulated two-stage plan
/// needs (`crate::operators::session_tvf`).
fn validate_session_window_join(sc: &Scenario) -> Result<(), Error> {
    let gap = sc.job.tvf.gap.map_or(0, |g| g.0);
    if gap <= 0 {
        // SessionWindowAssigner.withGap (2.3.0 bytecode).
        return Err(Error::config(
            "job.tvf.gap",
            "SessionWindowAssigner parameters must satisfy 0 < size",
        ));
    }
    if sc.job.tvf.offset.0 != 0 {
        return Err(Error::config("job.tvf.offset", "SESSION has no offset"));
    }
    Ok(())
}

/// The join condition as the planner prints it in that warning: `ExpressionFormat.Infix` over
/// the join's input fields, which are the left input's names followed by the right input's
/// names as they are (no suffixes), so both sides print alike:
/// `((window_start = window_start) AND (order_id = order_id))` (seen on Flink 2.3.0).
pub fn window_join_condition(sc: &Scenario) -> String {
    use crate::scenario::WindowColumns;
    let key = |s: &crate::scenario::StreamSpec| s.key.as_ref().map(|k| k.trim().to_string());
    let mut conds = Vec::new();
    let wc = sc.job.sql.window_columns;
    if wc != WindowColumns::EndOnly {
        conds.push("(window_start = window_start)".to_string());
    }
    if wc != WindowColumns::StartOnly {
        conds.push("(window_end = window_end)".to_string());
    }
    if let (Some(l), Some(r)) = (
        sc.streams.first().and_then(key),
        sc.streams.get(1).and_then(key),
    ) {
        conds.push(format!("({l} = {r})"));
    }
    match conds.len() {
        0 => "true".into(),
        1 => conds.remove(0),
        _ => format!("({})", conds.join(" AND ")),
    }
}
