//! docs/redirects.md, "## Limits by server", is the table `check` reads
//! (`urlkey_redirects::check::LIMITS`): the same rows, in the same order, with the same
//! values, severities and sources.

use urlkey_redirects::check::{Severity, LIMITS};

/// `10000` as `10,000`.
fn grouped(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn expected_rows() -> Vec<String> {
    LIMITS
        .iter()
        .map(|l| {
            let sev = match l.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            };
            format!(
                "| {} | `{}` | {} {} | {sev} | {} | <{}> |",
                l.server.name(),
                l.id,
                grouped(l.value),
                l.unit,
                l.what,
                l.source
            )
        })
        .collect()
}

#[test]
fn the_docs_table_is_the_limits_table() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/redirects.md");
    let text = std::fs::read_to_string(path).expect("docs/redirects.md");
    let section = text
        .split("\n## ")
        .find(|s| s.starts_with("Limits by server\n"))
        .expect("a Limits by server section");
    let rows: Vec<&str> = section
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| server |"))
        .collect();
    let want = expected_rows();
    assert_eq!(
        rows,
        want,
        "docs/redirects.md's limits table differs from LIMITS; the rows should be:\n{}",
        want.join("\n")
    );
}

#[test]
fn grouping() {
    assert_eq!(grouped(64), "64");
    assert_eq!(grouped(2048), "2,048");
    assert_eq!(grouped(1_000_000), "1,000,000");
}
