//! Errors: every bad input names where it is (stream, line, column, or the setting) and why.

use serde::Serialize;
use std::fmt;

/// Something wrong with a scenario. Never a panic: every path that reads user input returns one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Error {
    /// The scenario document is not valid JSON or has a field of the wrong shape.
    Json {
        line: usize,
        column: usize,
        message: String,
    },
    /// A job setting is invalid (`field` is its path, e.g. `job.interval.lower`).
    Config { field: String, message: String },
    /// A stream's definition (name, columns, key, time column) is invalid.
    Stream {
        stream: String,
        field: String,
        message: String,
    },
    /// A row does not parse. `line` and `column` are 1-based, within that stream's rows text.
    Row {
        stream: String,
        line: usize,
        column: usize,
        message: String,
    },
    /// The run would exceed a size limit (rows, windows per row, outputs, time budget).
    Limit { message: String },
}

impl Error {
    pub fn config(field: impl Into<String>, message: impl Into<String>) -> Error {
        Error::Config {
            field: field.into(),
            message: message.into(),
        }
    }
    pub fn row(stream: &str, line: usize, column: usize, message: impl Into<String>) -> Error {
        Error::Row {
            stream: stream.to_string(),
            line,
            column,
            message: message.into(),
        }
    }
    /// The same error with every value echoed in its message (and a stream name) cut to
    /// [`crate::jsontext::MAX_VALUE_CHARS`] characters: a pasted value of megabytes must not
    /// come back whole.
    pub fn shortened(self) -> Error {
        use crate::jsontext::{shorten, shorten_values, MAX_VALUE_CHARS};
        match self {
            Error::Json {
                line,
                column,
                message,
            } => Error::Json {
                line,
                column,
                message: shorten_values(&message),
            },
            Error::Config { field, message } => Error::Config {
                field: shorten(&field, MAX_VALUE_CHARS),
                message: shorten_values(&message),
            },
            Error::Stream {
                stream,
                field,
                message,
            } => Error::Stream {
                stream: shorten(&stream, MAX_VALUE_CHARS),
                field,
                message: shorten_values(&message),
            },
            Error::Row {
                stream,
                line,
                column,
                message,
            } => Error::Row {
                stream: shorten(&stream, MAX_VALUE_CHARS),
                line,
                column,
                message: shorten_values(&message),
            },
            Error::Limit { message } => Error::Limit { message },
        }
    }
    pub fn stream(stream: &str, field: &str, message: impl Into<String>) -> Error {
        Error::Stream {
            stream: stream.to_string(),
            field: field.to_string(),
            message: message.into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Json {
                line,
                column,
                message,
            } => {
                write!(f, "scenario JSON, line {line}, column {column}: {message}")
            }
            Error::Config { field, message } => write!(f, "{field}: {message}"),
            Error::Stream {
                stream,
                field,
                message,
            } => {
                write!(f, "stream {stream:?}, {field}: {message}")
            }
            Error::Row {
                stream,
                line,
                column,
                message,
            } => {
                write!(
                    f,
                    "stream {stream:?}, line {line}, column {column}: {message}"
                )
            }
            Error::Limit { message } => write!(f, "limit: {message}"),
        }
    }
}

impl std::error::Error for Error {}
