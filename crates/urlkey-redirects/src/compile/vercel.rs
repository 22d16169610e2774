//! Vercel bulk redirects: a JSON file named by `bulkRedirectsPath` in `vercel.json`, an
//! array of `{"source", "destination", "statusCode"}`. Vercel matches the path only
//! (no query string, so a source with one is refused) and, by default, without regard to
//! case; `statusCode` is given on every row, since Vercel's default is 307.

use serde::Serialize;

#[cfg(test)]
use super::Entry;
use super::{ProblemKind, Rule};

pub(super) fn refuse(rule: &Rule) -> Option<(ProblemKind, String)> {
    rule.source.query.is_some().then(|| {
        (
            ProblemKind::SourceQuery,
            "Vercel bulk redirects match the path only, not a query string".into(),
        )
    })
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Redirect<'a> {
    source: &'a str,
    destination: &'a str,
    status_code: u16,
}

pub(super) fn write(rules: &[Rule]) -> (String, Vec<String>) {
    let mut t = String::from("[\n");
    for (i, r) in rules.iter().enumerate() {
        let one = Redirect {
            source: &r.source.path,
            destination: &r.target,
            status_code: r.status,
        };
        t.push_str("  ");
        // Serializing strings and a number cannot fail.
        t.push_str(&serde_json::to_string(&one).unwrap_or_default());
        t.push_str(if i + 1 < rules.len() { ",\n" } else { "\n" });
    }
    t.push_str("]\n");
    let setup = vec![
        "in vercel.json: \"bulkRedirectsPath\": \"<this file, relative to the project>\"".into(),
    ];
    (t, setup)
}

#[cfg(test)]
pub(super) fn parse(text: &str) -> Result<Vec<Entry>, String> {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct R {
        source: String,
        destination: String,
        status_code: u16,
    }
    let rows: Vec<R> = serde_json::from_str(text).map_err(|e| e.to_string())?;
    Ok(rows
        .into_iter()
        .map(|r| Entry {
            source: r.source,
            target: r.destination,
            status: r.status_code,
        })
        .collect())
}
