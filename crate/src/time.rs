//! Event time, watermarks and durations, and the human time forms a user may type.
//!
//! Flink keeps every time as a Java `long` of milliseconds. A watermark starts at
//! `Long.MIN_VALUE` (shown as −∞) and the end of a bounded input is `Long.MAX_VALUE` (+∞).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// The largest magnitude of a typed time value: ±2^53 ms keeps every value exact in JavaScript.
pub const MAX_TYPED_MS: i64 = 1 << 53;

/// An event timestamp in milliseconds (a Flink `StreamRecord` timestamp or SQL rowtime).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(transparent)]
pub struct Timestamp(pub i64);

/// A watermark in milliseconds: "no more elements with timestamp ≤ this value".
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(export, type = "number | string"))]
pub struct Watermark(pub i64);

impl Watermark {
    /// `Long.MIN_VALUE`: the initial watermark of every channel and operator.
    pub const MIN: Watermark = Watermark(i64::MIN);
    /// `Long.MAX_VALUE`: the watermark a bounded source emits at end of input.
    pub const MAX: Watermark = Watermark(i64::MAX);

    pub fn is_min(self) -> bool {
        self.0 == i64::MIN
    }
    pub fn is_max(self) -> bool {
        self.0 == i64::MAX
    }
}

impl fmt::Display for Watermark {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_min() {
            write!(f, "−∞")
        } else if self.is_max() {
            write!(f, "+∞")
        } else if self.0 > i64::MAX - MAX_TYPED_MS {
            write!(f, "+∞ − {}", i64::MAX - self.0)
        } else if self.0 < i64::MIN + MAX_TYPED_MS {
            write!(f, "−∞ + {}", self.0 - i64::MIN)
        } else {
            write!(f, "{}", self.0)
        }
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Watermark(self.0).fmt(f)
    }
}

/// Watermarks serialise as JSON numbers, except the two infinities, which are the strings
/// `"-inf"` and `"+inf"`, and values within 2^53 of them, `"+inf-600000"` / `"-inf+5"` (e.g.
/// the SQL interval join's delayed output watermark `Long.MAX_VALUE − delay`): none of those
/// are exact as JavaScript numbers.
impl Serialize for Watermark {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let v = self.0;
        if self.is_min() {
            s.serialize_str("-inf")
        } else if self.is_max() {
            s.serialize_str("+inf")
        } else if v > i64::MAX - MAX_TYPED_MS {
            s.serialize_str(&format!("+inf-{}", i64::MAX - v))
        } else if v < i64::MIN + MAX_TYPED_MS {
            s.serialize_str(&format!("-inf+{}", v - i64::MIN))
        } else {
            s.serialize_i64(v)
        }
    }
}

impl<'de> Deserialize<'de> for Watermark {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            N(i64),
            S(String),
        }
        match Raw::deserialize(d)? {
            Raw::N(n) => Ok(Watermark(n)),
            Raw::S(s) if s == "-inf" => Ok(Watermark::MIN),
            Raw::S(s) if s == "+inf" => Ok(Watermark::MAX),
            Raw::S(s) if s.starts_with("+inf-") => s[5..]
                .parse::<i64>()
                .map(|d| Watermark(i64::MAX - d))
                .map_err(serde::de::Error::custom),
            Raw::S(s) if s.starts_with("-inf+") => s[5..]
                .parse::<i64>()
                .map(|d| Watermark(i64::MIN + d))
                .map_err(serde::de::Error::custom),
            Raw::S(s) => Err(serde::de::Error::custom(format!("bad watermark {s:?}"))),
        }
    }
}

/// A duration in milliseconds, as typed in a scenario: a JSON number (ms) or a string such as
/// `"5s"`, `"-10m"`, `"1h 30m"`, `"250ms"`, `"00:01:03"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(export, type = "number"))]
pub struct Millis(pub i64);

impl Serialize for Millis {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_i64(self.0)
    }
}

impl<'de> Deserialize<'de> for Millis {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Millis;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(
                    f,
                    "a time: milliseconds, or text such as \"5s\", \"-10m\", \"00:01:03\""
                )
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Millis, E> {
                // `unsigned_abs`: `i64::MIN.abs()` overflows (and wraps to i64::MIN, which
                // would pass a `> MAX` check in a release build).
                if v.unsigned_abs() > MAX_TYPED_MS as u64 {
                    return Err(E::custom(out_of_range(&v.to_string())));
                }
                Ok(Millis(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Millis, E> {
                if v > MAX_TYPED_MS as u64 {
                    return Err(E::custom(out_of_range(&v.to_string())));
                }
                Ok(Millis(v as i64))
            }
            fn visit_f64<E: serde::de::Error>(self, f: f64) -> Result<Millis, E> {
                if !f.is_finite() || f.abs() > MAX_TYPED_MS as f64 {
                    Err(E::custom(out_of_range(&crate::jsontext::shorten(
                        &f.to_string(),
                        40,
                    ))))
                } else if f.fract() != 0.0 {
                    Err(E::custom(format!(
                        "{f} is not a whole number of milliseconds"
                    )))
                } else {
                    Ok(Millis(f as i64))
                }
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Millis, E> {
                parse_duration(s).map(Millis).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

/// The message of a typed time past ±2^53 ms.
fn out_of_range(v: &str) -> String {
    format!("{v} ms is out of range: a time must be within ±2^53 ms (about ±285,000 years)")
}

/// A duration in the largest unit that divides it: `10 s`, `1 ms`, `5 min`, `2 h`.
pub fn format_duration(ms: i64) -> String {
    let (n, unit) = if ms == 0 {
        (0, "ms")
    } else if ms % 3_600_000 == 0 {
        (ms / 3_600_000, "h")
    } else if ms % 60_000 == 0 {
        (ms / 60_000, "min")
    } else if ms % 1_000 == 0 {
        (ms / 1_000, "s")
    } else {
        (ms, "ms")
    };
    format!("{n} {unit}")
}

/// Parses a duration: plain milliseconds, a sum of unit terms (`1h 30m`, `2s`, `-5ms`, `1.5s`),
/// or a clock form `HH:MM:SS[.mmm]` / `MM:SS`.
pub fn parse_duration(text: &str) -> Result<i64, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err("empty time value".into());
    }
    let b = t.as_bytes();
    if b.len() >= 10 && b[4] == b'-' && b[7] == b'-' && b[..4].iter().all(u8::is_ascii_digit) {
        return Err(format!(
            "{:?} is a date; this setting is a duration, such as \"5s\", \"10 min\" or \"00:01:03\"",
            crate::jsontext::shorten(t, 40)
        ));
    }
    let (neg, body) = match t.strip_prefix('-') {
        Some(rest) => (true, rest.trim_start()),
        None => (false, t.strip_prefix('+').unwrap_or(t).trim_start()),
    };
    let v = if body.contains(':') {
        parse_clock(body)?
    } else {
        parse_unit_terms(body)?
    };
    let v = if neg {
        v.checked_neg().unwrap_or(i64::MIN)
    } else {
        v
    };
    if v.unsigned_abs() > MAX_TYPED_MS as u64 {
        return Err(format!("{t:?} is out of range (at most ±2^53 ms)"));
    }
    Ok(v)
}

fn parse_unit_terms(body: &str) -> Result<i64, String> {
    let bytes = body.as_bytes();
    let mut i = 0;
    let mut total: i64 = 0;
    let mut terms = 0;
    while i < bytes.len() {
        while i < bytes.len() && bytes[i] == b' ' {
            i += 1;
        }
        if i >= bytes.len() {
            break;
        }
        let start = i;
        while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
            i += 1;
        }
        if start == i {
            return Err(format!("expected a number in {body:?}"));
        }
        let num = &body[start..i];
        while i < bytes.len() && bytes[i] == b' ' {
            i += 1;
        }
        let ustart = i;
        while i < bytes.len() && bytes[i].is_ascii_alphabetic() {
            i += 1;
        }
        let unit = &body[ustart..i];
        let scale: i64 = match unit.to_ascii_lowercase().as_str() {
            "" | "ms" => 1,
            "s" | "sec" | "secs" | "second" | "seconds" => 1_000,
            "m" | "min" | "mins" | "minute" | "minutes" => 60_000,
            "h" | "hr" | "hour" | "hours" => 3_600_000,
            "d" | "day" | "days" => 86_400_000,
            other => {
                return Err(format!(
                    "unknown time unit {other:?} (use ms, s, m, h or d)"
                ))
            }
        };
        let ms = if num.contains('.') {
            let f: f64 = num.parse().map_err(|_| format!("bad number {num:?}"))?;
            let v = f * scale as f64;
            if v.fract() != 0.0 {
                return Err(format!("{num}{unit} is not a whole number of milliseconds"));
            }
            if v.abs() > MAX_TYPED_MS as f64 {
                return Err(format!("{body:?} is out of range"));
            }
            v as i64
        } else {
            let n: i64 = num
                .parse()
                .map_err(|_| format!("number {num:?} is out of range"))?;
            n.checked_mul(scale)
                .ok_or_else(|| format!("{body:?} is out of range"))?
        };
        total = total
            .checked_add(ms)
            .ok_or_else(|| format!("{body:?} is out of range"))?;
        terms += 1;
        if unit.is_empty() && terms > 1 {
            return Err(format!("a number without a unit in {body:?}"));
        }
    }
    if terms == 0 {
        return Err("empty time value".into());
    }
    Ok(total)
}

fn parse_clock(body: &str) -> Result<i64, String> {
    let parts: Vec<&str> = body.split(':').collect();
    if parts.len() < 2 || parts.len() > 3 {
        return Err(format!("{body:?} is not HH:MM:SS or MM:SS"));
    }
    let (h, m, s) = if parts.len() == 3 {
        (parts[0], parts[1], parts[2])
    } else {
        ("0", parts[0], parts[1])
    };
    let num = |p: &str, what: &str| -> Result<i64, String> {
        if p.is_empty() || p.len() > 9 || !p.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("bad {what} {p:?} in {body:?}"));
        }
        p.parse::<i64>().map_err(|_| format!("bad {what} {p:?}"))
    };
    let h = num(h, "hours")?;
    let m = num(m, "minutes")?;
    let (sec, frac) = match s.split_once('.') {
        Some((a, b)) => (a, Some(b)),
        None => (s, None),
    };
    let sec = num(sec, "seconds")?;
    if m >= 60 || sec >= 60 {
        return Err(format!("minutes and seconds must be below 60 in {body:?}"));
    }
    let ms = match frac {
        None => 0,
        Some(f) => {
            if f.is_empty() || f.len() > 3 || !f.bytes().all(|b| b.is_ascii_digit()) {
                return Err(format!("bad milliseconds {f:?} in {body:?}"));
            }
            f.parse::<i64>().unwrap_or(0) * 10i64.pow(3 - f.len() as u32)
        }
    };
    Ok(((h * 60 + m) * 60 + sec) * 1000 + ms)
}

/// Parses an event timestamp: a duration form (see [`parse_duration`]) or a calendar date-time
/// `YYYY-MM-DD[ HH:MM:SS[.mmm]]` (also with `T`), taken as UTC epoch milliseconds.
pub fn parse_timestamp(text: &str) -> Result<i64, String> {
    let t = text.trim();
    let b = t.as_bytes();
    if b.len() >= 10 && b[4] == b'-' && b[7] == b'-' && b[..4].iter().all(u8::is_ascii_digit) {
        return parse_datetime(t);
    }
    parse_duration(t)
}

fn parse_datetime(t: &str) -> Result<i64, String> {
    let (date, time) = match t.find([' ', 'T']) {
        Some(i) => (&t[..i], Some(t[i + 1..].trim())),
        None => (t, None),
    };
    let d: Vec<&str> = date.split('-').collect();
    if d.len() != 3
        || d.iter()
            .any(|p| p.is_empty() || !p.bytes().all(|c| c.is_ascii_digit()))
    {
        return Err(format!("{t:?} is not a date YYYY-MM-DD"));
    }
    let (y, mo, da): (i64, i64, i64) = (
        d[0].parse().map_err(|_| "bad year")?,
        d[1].parse().map_err(|_| "bad month")?,
        d[2].parse().map_err(|_| "bad day")?,
    );
    if !(1..=12).contains(&mo) || da < 1 || da > days_in_month(y, mo) {
        return Err(format!("{date:?} is not a valid date"));
    }
    let tod = match time {
        None | Some("") => 0,
        Some(tm) => {
            let tm = tm.strip_suffix('Z').unwrap_or(tm);
            if tm.split(':').count() != 3 {
                return Err(format!("time of day {tm:?} must be HH:MM:SS"));
            }
            let v = parse_clock(tm)?;
            if v >= 86_400_000 {
                return Err(format!("time of day {tm:?} is past 23:59:59"));
            }
            v
        }
    };
    let days = days_from_civil(y, mo, da);
    Ok(days * 86_400_000 + tod)
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        _ => 28,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Formats epoch milliseconds as `YYYY-MM-DD HH:MM:SS[.mmm]` (UTC).
pub fn format_datetime(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let tod = ms.rem_euclid(86_400_000);
    let z = days + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + if m <= 2 { 1 } else { 0 };
    let (h, mi, s, milli) = (
        tod / 3_600_000,
        tod / 60_000 % 60,
        tod / 1000 % 60,
        tod % 1000,
    );
    if milli == 0 {
        format!("{y:04}-{m:02}-{d:02} {h:02}:{mi:02}:{s:02}")
    } else {
        format!("{y:04}-{m:02}-{d:02} {h:02}:{mi:02}:{s:02}.{milli:03}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("1000"), Ok(1000));
        assert_eq!(parse_duration("5s"), Ok(5000));
        assert_eq!(parse_duration("-10m"), Ok(-600_000));
        assert_eq!(parse_duration("1h 30m"), Ok(5_400_000));
        assert_eq!(parse_duration("1.5s"), Ok(1500));
        assert_eq!(parse_duration("250 ms"), Ok(250));
        assert_eq!(parse_duration("00:01:03"), Ok(63_000));
        assert_eq!(parse_duration("01:03"), Ok(63_000));
        assert_eq!(parse_duration("00:00:01.5"), Ok(1500));
        assert!(parse_duration("").is_err());
        assert!(parse_duration("5x").is_err());
        assert!(parse_duration("1.0001s").is_err());
        assert!(parse_duration("99999999999999999999").is_err());
        assert!(parse_duration("9999999999999999d").is_err());
        assert!(parse_duration("00:61:00").is_err());
    }

    #[test]
    fn datetimes() {
        assert_eq!(parse_timestamp("1970-01-01 00:00:00"), Ok(0));
        assert_eq!(
            parse_timestamp("2021-11-01 00:01:03"),
            Ok(1_635_724_863_000)
        );
        assert_eq!(
            parse_timestamp("2021-11-01T00:01:03.250Z"),
            Ok(1_635_724_863_250)
        );
        assert_eq!(parse_timestamp("1969-12-31 23:59:59"), Ok(-1000));
        assert_eq!(format_datetime(1_635_724_863_000), "2021-11-01 00:01:03");
        assert_eq!(format_datetime(-1000), "1969-12-31 23:59:59");
        assert!(parse_timestamp("2021-02-30").is_err());
        assert!(parse_timestamp("2021-11-01 24:00:00").is_err());
    }

    #[test]
    fn watermark_json() {
        assert_eq!(serde_json::to_string(&Watermark::MIN).unwrap(), "\"-inf\"");
        assert_eq!(serde_json::to_string(&Watermark(7)).unwrap(), "7");
        let w: Watermark = serde_json::from_str("\"+inf\"").unwrap();
        assert_eq!(w, Watermark::MAX);
        let near = Watermark(i64::MAX - 600_000);
        assert_eq!(serde_json::to_string(&near).unwrap(), "\"+inf-600000\"");
        assert_eq!(
            serde_json::from_str::<Watermark>("\"+inf-600000\"").unwrap(),
            near
        );
        assert_eq!(near.to_string(), "+∞ − 600000");
    }
}
