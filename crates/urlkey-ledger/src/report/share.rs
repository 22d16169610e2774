//! Shares as every report format prints them: rounded to 4 decimal places.

/// Rounds a share to 4 decimal places.
pub fn round_share(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        return 0.0;
    }
    ((part as f64 / whole as f64) * 10_000.0).round() / 10_000.0
}

/// Rounds a ratio to 4 decimal places.
pub(super) fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}
