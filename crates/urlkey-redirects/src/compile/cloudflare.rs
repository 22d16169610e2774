//! Cloudflare Bulk Redirects: a list's CSV, uploaded in the dashboard. Each line holds
//! the fields in Cloudflare's order, without a header: source URL, target URL, status
//! code, preserve query string, include subdomains, subpath matching, preserve path
//! suffix (the last four `FALSE`: the map's rows are exact redirects). The source URL is
//! host and path without a scheme, so that the redirect answers `http` and `https` alike
//! (Cloudflare's rule when the scheme is left out); Cloudflare matches no query string
//! and no port in a source URL, so a source with either is refused, as is a path without
//! a host.

#[cfg(test)]
use super::Entry;
use super::{ProblemKind, Rule};

pub(super) fn refuse(rule: &Rule) -> Option<(ProblemKind, String)> {
    let s = &rule.source;
    let Some(host) = &s.host else {
        return Some((
            ProblemKind::SourceNeedsHost,
            "a Cloudflare source URL names its host: write the source as a full URL".into(),
        ));
    };
    if host.contains(':') && !host.ends_with(']') {
        return Some((
            ProblemKind::SourcePort,
            "Cloudflare source URLs take no port".into(),
        ));
    }
    if s.query.is_some() {
        return Some((
            ProblemKind::SourceQuery,
            "Cloudflare Bulk Redirects match no query string in a source URL".into(),
        ));
    }
    None
}

/// The target: a path is put on the source's scheme and host.
fn target_url(rule: &Rule) -> String {
    match (&rule.source.scheme, &rule.source.host) {
        (Some(s), Some(h)) if rule.target.starts_with('/') => format!("{s}://{h}{}", rule.target),
        _ => rule.target.clone(),
    }
}

/// The list's source URL: host and path.
pub(super) fn source_url(rule: &Rule) -> String {
    format!(
        "{}{}",
        rule.source.host.as_deref().unwrap_or(""),
        rule.source.path
    )
}

pub(super) fn write(rules: &[Rule]) -> (String, Vec<String>) {
    let mut w = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(Vec::new());
    for r in rules {
        let status = r.status.to_string();
        let source = source_url(r);
        let target = target_url(r);
        let row = [
            source.as_str(),
            target.as_str(),
            &status,
            "FALSE",
            "FALSE",
            "FALSE",
            "FALSE",
        ];
        // Writing to a Vec cannot fail.
        let _ = w.write_record(row);
    }
    let bytes = w.into_inner().unwrap_or_default();
    let setup = vec![
        "upload the file to a Bulk Redirect List (Account > Bulk Redirects > Create list > Upload CSV)".into(),
        "enable the list with a Bulk Redirect Rule".into(),
    ];
    (String::from_utf8(bytes).unwrap_or_default(), setup)
}

#[cfg(test)]
pub(super) fn parse(text: &str) -> Result<Vec<Entry>, String> {
    let mut r = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.as_bytes());
    let mut out = Vec::new();
    for rec in r.records() {
        let rec = rec.map_err(|e| e.to_string())?;
        if rec.len() != 7 || rec.iter().skip(3).any(|f| f != "FALSE") {
            return Err(format!("not seven fields ending FALSE: {rec:?}"));
        }
        out.push(Entry {
            source: rec[0].into(),
            target: rec[1].into(),
            status: rec[2].parse().map_err(|_| "status".to_string())?,
        });
    }
    Ok(out)
}
