//! Timestamps: one fixed-width UTC form so that SQLite compares them as text.

use time::format_description::well_known::Rfc3339;
use time::{Date, Month, OffsetDateTime, UtcOffset};

/// `YYYY-MM-DDTHH:MM:SSZ` (collection times: `run_at`).
pub fn format_seconds(t: OffsetDateTime) -> String {
    let t = t.to_offset(UtcOffset::UTC);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    )
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` (verification times).
pub fn format_millis(t: OffsetDateTime) -> String {
    let t = t.to_offset(UtcOffset::UTC);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        t.millisecond()
    )
}

/// Now, as [`format_millis`] writes it.
pub fn now_millis() -> String {
    format_millis(OffsetDateTime::now_utc())
}

/// Parses a `run_timestamp`: RFC 3339 (`2026-11-01T09:00:00Z`, `2026-11-01T10:00:00+01:00`)
/// or a bare date (`2026-11-01`, taken as 00:00:00 UTC). Returns the normalized UTC form
/// used for ordering and for the collection window. The text as written is kept
/// separately, untouched.
pub fn parse_run_timestamp(text: &str) -> Result<String, String> {
    let t = text.trim();
    if let Ok(dt) = OffsetDateTime::parse(t, &Rfc3339) {
        if !(1..=9999).contains(&dt.to_offset(UtcOffset::UTC).year()) {
            return Err(format!("run_timestamp {t:?} is outside years 1-9999"));
        }
        return Ok(format_seconds(dt));
    }
    if let Some(d) = parse_date(t) {
        return Ok(format_seconds(d.midnight().assume_utc()));
    }
    Err(format!(
        "run_timestamp {t:?} is neither an RFC 3339 timestamp (2026-11-01T09:00:00Z) nor a \
         date (2026-11-01)"
    ))
}

fn parse_date(t: &str) -> Option<Date> {
    let b = t.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let digits = |s: &str| s.bytes().all(|c| c.is_ascii_digit());
    let (y, m, d) = (t.get(0..4)?, t.get(5..7)?, t.get(8..10)?);
    if !(digits(y) && digits(m) && digits(d)) {
        return None;
    }
    let month = Month::try_from(m.parse::<u8>().ok()?).ok()?;
    let date = Date::from_calendar_date(y.parse().ok()?, month, d.parse().ok()?).ok()?;
    (date.year() >= 1).then_some(date)
}

/// Parses a duration for `--older-than`: a number and a unit, `s`, `m`, `h`, `d` or `w`
/// (`30d`, `12h`). Returns seconds.
pub fn parse_duration(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !c.is_ascii_digit())
        .ok_or_else(|| format!("{t:?} has no unit: write e.g. 30d, 12h, 90m or 3600s"))?;
    let (num, unit) = t.split_at(split);
    let n: u64 = num
        .parse()
        .map_err(|_| format!("{t:?} does not start with a whole number: write e.g. 30d"))?;
    let mult = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 604_800,
        _ => {
            return Err(format!(
                "{t:?}: unknown unit {unit:?}; use s, m, h, d or w (e.g. 30d)"
            ))
        }
    };
    n.checked_mul(mult)
        .ok_or_else(|| format!("{t:?} is too long a duration"))
}

/// The time `secs` seconds before now, as [`format_millis`] writes it.
pub fn millis_ago(secs: u64) -> String {
    let now = OffsetDateTime::now_utc();
    let back = time::Duration::seconds(i64::try_from(secs).unwrap_or(i64::MAX));
    let t = now.checked_sub(back).unwrap_or(OffsetDateTime::UNIX_EPOCH);
    format_millis(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_timestamps() {
        assert_eq!(
            parse_run_timestamp("2026-11-01T09:00:00Z").as_deref(),
            Ok("2026-11-01T09:00:00Z")
        );
        assert_eq!(
            parse_run_timestamp("2026-11-01T10:30:00+01:00").as_deref(),
            Ok("2026-11-01T09:30:00Z")
        );
        assert_eq!(
            parse_run_timestamp("2026-11-01T09:00:00.250Z").as_deref(),
            Ok("2026-11-01T09:00:00Z")
        );
        assert_eq!(
            parse_run_timestamp("2026-11-01").as_deref(),
            Ok("2026-11-01T00:00:00Z")
        );
        assert!(parse_run_timestamp("yesterday").is_err());
        assert!(parse_run_timestamp("2026-13-01").is_err());
        assert!(parse_run_timestamp("2026-11-01 09:00").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30d"), Ok(30 * 86_400));
        assert_eq!(parse_duration("90m"), Ok(5400));
        assert!(parse_duration("30").is_err());
        assert!(parse_duration("d").is_err());
        assert!(parse_duration("3y").is_err());
    }
}
