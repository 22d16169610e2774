//! Timestamps: one fixed-width UTC form so that SQLite compares them as text.

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

/// Parses a `run_timestamp` with no time zone given for naive ones: see
/// [`parse_run_timestamp_in`].
pub fn parse_run_timestamp(text: &str) -> Result<String, String> {
    parse_run_timestamp_in(text, None)
}

/// Whether `text` is a date and time without Z or an offset (`2026-11-08 09:00:00`): read
/// only in a named time zone ([`parse_run_timestamp_in`]).
pub fn is_naive(text: &str) -> bool {
    let t = text.trim();
    parse_date(t).is_none()
        && t.parse::<jiff::Timestamp>().is_err()
        && t.parse::<jiff::civil::DateTime>().is_ok()
}

/// Parses a `run_timestamp` and returns the same instant in the normalized UTC form used
/// for ordering and for the collection window (`YYYY-MM-DDTHH:MM:SSZ`, fractions of a
/// second cut). The text as written is kept separately, untouched. Accepted:
///
/// - RFC 3339 / ISO 8601 with `T` or a space between date and time, seconds optional,
///   any fraction of a second, and `Z` or an offset (`+01:00`, `+0100`, `+01`):
///   `2026-11-08T09:00:00Z`, `2026-11-08 09:00:00.250+01:00`;
/// - a date alone (`2026-11-01`): midnight, in `zone` when given, else UTC;
/// - a naive date and time (`2026-11-08 09:00:00`, no offset): only with `zone` (the
///   `--timezone` flag), read as wall-clock time there; a time that the zone skips or
///   repeats (a daylight-saving change) is refused, since it names no single instant.
pub fn parse_run_timestamp_in(
    text: &str,
    zone: Option<&jiff::tz::TimeZone>,
) -> Result<String, String> {
    let t = text.trim();
    let ts = if let Some(d) = parse_date(t) {
        let midnight = jiff::civil::date(d.year() as i16, u8::from(d.month()) as i8, d.day() as i8)
            .at(0, 0, 0, 0);
        match zone {
            Some(z) => z
                .to_ambiguous_timestamp(midnight)
                .unambiguous()
                .map_err(|e| format!("run_timestamp {t:?}: {e}"))?,
            None => midnight
                .to_zoned(jiff::tz::TimeZone::UTC)
                .map_err(|e| format!("run_timestamp {t:?}: {e}"))?
                .timestamp(),
        }
    } else if let Ok(ts) = t.parse::<jiff::Timestamp>() {
        ts
    } else if let Ok(dt) = t.parse::<jiff::civil::DateTime>() {
        match zone {
            Some(z) => z.to_ambiguous_timestamp(dt).unambiguous().map_err(|e| {
                format!(
                    "run_timestamp {t:?} names no single instant in {}: {e}; write it with \
                     its offset (e.g. {}+01:00)",
                    z.iana_name().unwrap_or("the given zone"),
                    t
                )
            })?,
            None => {
                // The remedy (a time zone named) is the caller's to word ([`is_naive`]).
                return Err(format!(
                    "run_timestamp {t:?} has no time zone: add Z or an offset \
                     (2026-11-08T09:00:00Z, 2026-11-08 09:00:00+01:00)"
                ));
            }
        }
    } else {
        return Err(format!(
            "run_timestamp {t:?} is neither an RFC 3339 / ISO 8601 timestamp \
             (2026-11-01T09:00:00Z, 2026-11-01 10:00:00+01:00) nor a date (2026-11-01)"
        ));
    };
    let utc = ts.to_zoned(jiff::tz::TimeZone::UTC);
    if !(1..=9999).contains(&utc.year()) {
        return Err(format!("run_timestamp {t:?} is outside years 1-9999"));
    }
    Ok(format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
        utc.year(),
        utc.month(),
        utc.day(),
        utc.hour(),
        utc.minute(),
        utc.second()
    ))
}

/// The IANA time zone `name` (`Europe/Paris`, `UTC`), from the time zone database bundled
/// into urlkey (the same answer on every machine).
pub fn time_zone(name: &str) -> Result<jiff::tz::TimeZone, String> {
    jiff::tz::TimeZone::get(name.trim()).map_err(|e| {
        format!(
            "unknown time zone {name:?} ({e}): give an IANA name such as Europe/Paris, \
             America/New_York or UTC"
        )
    })
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
        // Naive: refused without a zone, and known as naive (the caller says how to name one).
        let e = parse_run_timestamp("2026-11-01 09:00").expect_err("naive");
        assert!(e.contains("has no time zone"), "{e}");
        assert!(is_naive("2026-11-01 09:00"));
        assert!(!is_naive("2026-11-01 09:00Z") && !is_naive("2026-11-01") && !is_naive("x"));
    }

    #[test]
    fn every_timestamp_form() {
        let utc = |t: &str| parse_run_timestamp(t);
        for (text, want) in [
            ("2026-11-08T09:00:00Z", "2026-11-08T09:00:00Z"),
            ("2026-11-08 09:00:00Z", "2026-11-08T09:00:00Z"),
            ("2026-11-08t09:00:00z", "2026-11-08T09:00:00Z"),
            ("2026-11-08T09:00Z", "2026-11-08T09:00:00Z"),
            ("2026-11-08T09:00:00.999999999Z", "2026-11-08T09:00:00Z"),
            ("2026-11-08 09:00:00,5Z", "2026-11-08T09:00:00Z"),
            ("2026-11-08T09:00:00+01:00", "2026-11-08T08:00:00Z"),
            ("2026-11-08 09:00:00+0100", "2026-11-08T08:00:00Z"),
            ("2026-11-08T09:00:00-05", "2026-11-08T14:00:00Z"),
            ("2026-11-08T00:30:00+01:00", "2026-11-07T23:30:00Z"),
            ("  2026-11-08T09:00:00Z ", "2026-11-08T09:00:00Z"),
        ] {
            assert_eq!(utc(text).as_deref(), Ok(want), "{text}");
        }
        for bad in [
            "2026-11-08T25:00:00Z",
            "2026-02-30T09:00:00Z",
            "09:00",
            "2026-11-08T",
        ] {
            assert!(utc(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn naive_timestamps_in_a_zone() {
        let paris = time_zone("Europe/Paris").expect("zone");
        let at = |t: &str| parse_run_timestamp_in(t, Some(&paris));
        // Winter: UTC+1; summer: UTC+2.
        assert_eq!(
            at("2026-11-08 09:00:00").as_deref(),
            Ok("2026-11-08T08:00:00Z")
        );
        assert_eq!(
            at("2026-07-01T09:00:00").as_deref(),
            Ok("2026-07-01T07:00:00Z")
        );
        assert_eq!(at("2026-11-08").as_deref(), Ok("2026-11-07T23:00:00Z"));
        // An explicit offset wins over the zone.
        assert_eq!(
            at("2026-11-08T09:00:00Z").as_deref(),
            Ok("2026-11-08T09:00:00Z")
        );
        // 2026-03-29 02:30 does not exist in Paris; 2026-10-25 02:30 happens twice.
        assert!(at("2026-03-29 02:30:00").is_err());
        let e = at("2026-10-25 02:30:00").expect_err("ambiguous");
        assert!(e.contains("offset"), "{e}");
        assert!(time_zone("Mars/Olympus").is_err());
        let ny = time_zone("America/New_York").expect("zone");
        assert_eq!(
            parse_run_timestamp_in("2026-11-08 09:00", Some(&ny)).as_deref(),
            Ok("2026-11-08T14:00:00Z")
        );
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
