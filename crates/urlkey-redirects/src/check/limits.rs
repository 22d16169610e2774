//! Each server's limits: one table ([`LIMITS`]), read by `check` and compared with
//! docs/redirects.md, "## Limits by server" (`tests/limits_doc.rs`).
//!
//! A limit the server refuses past, with no setting to raise, is an error; a plan's quota
//! (a bigger plan holds more) or a default a setting raises is a warning that names what
//! to raise.

use super::{Finding, FindingKind, Severity};
use crate::redirect_map::{MapEntry, RedirectMap};
use crate::server::{split, Server};

/// What a limit counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// The map's redirects.
    Rows,
    /// A source's length in bytes (UTF-8).
    SourceBytes,
    /// A target's length in bytes.
    TargetBytes,
    /// A source's length in characters.
    SourceChars,
    /// A target's length in characters.
    TargetChars,
    /// nginx: the bytes a `map` key takes in a hash bucket (its `$request_uri` form,
    /// non-ASCII bytes percent-encoded as a client sends them).
    NginxBucket,
    /// IIS: the bytes of the `rewriteMap` element holding the map.
    IisConfigBytes,
}

/// One limit of one server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    /// The server.
    pub server: Server,
    /// A stable id, `server.name`.
    pub id: &'static str,
    /// The limit.
    pub value: u64,
    /// Its unit.
    pub unit: &'static str,
    /// What it is, and what happens past it.
    pub what: &'static str,
    /// Whether going past it fails the map.
    pub severity: Severity,
    /// What `check` counts.
    pub measure: Measure,
    /// Where the server documents it.
    pub source: &'static str,
}

const CF_QUOTAS: &str =
    "https://developers.cloudflare.com/changelog/2025-02-12-rules-upgraded-limits/";
const CF_PARAMETERS: &str =
    "https://developers.cloudflare.com/rules/url-forwarding/bulk-redirects/reference/parameters/";
const VERCEL: &str = "https://vercel.com/docs/redirects/bulk-redirects";

/// Every server's limits, by server then id.
pub const LIMITS: &[Limit] = &[
    Limit {
        server: Server::Nginx,
        id: "nginx.map-hash-bucket-size",
        value: 64,
        unit: "bytes",
        what: "map_hash_bucket_size, by default the CPU's cache line (64 bytes on x86-64): a key takes 8 + its length + 2 (rounded up to 8) + 8 bytes, so a key over 46 bytes stops nginx (\"could not build map_hash\") until map_hash_bucket_size is raised to the value the finding names",
        severity: Severity::Warning,
        measure: Measure::NginxBucket,
        source: "https://nginx.org/en/docs/http/ngx_http_map_module.html#map_hash_bucket_size",
    },
    Limit {
        server: Server::Netlify,
        id: "netlify.redirects",
        value: 10_000,
        unit: "redirects",
        what: "from 10,000 redirects Netlify recommends wildcards or placeholders; a deploy whose rules are too large may fail",
        severity: Severity::Warning,
        measure: Measure::Rows,
        source: "https://docs.netlify.com/manage/routing/redirects/overview/",
    },
    Limit {
        server: Server::Cloudflare,
        id: "cloudflare.free",
        value: 10_000,
        unit: "redirects",
        what: "URL redirects across all lists of an account on the Free plan",
        severity: Severity::Warning,
        measure: Measure::Rows,
        source: CF_QUOTAS,
    },
    Limit {
        server: Server::Cloudflare,
        id: "cloudflare.pro",
        value: 25_000,
        unit: "redirects",
        what: "URL redirects across all lists of an account on the Pro plan",
        severity: Severity::Warning,
        measure: Measure::Rows,
        source: CF_QUOTAS,
    },
    Limit {
        server: Server::Cloudflare,
        id: "cloudflare.business",
        value: 50_000,
        unit: "redirects",
        what: "URL redirects across all lists of an account on the Business plan",
        severity: Severity::Warning,
        measure: Measure::Rows,
        source: CF_QUOTAS,
    },
    Limit {
        server: Server::Cloudflare,
        id: "cloudflare.enterprise",
        value: 1_000_000,
        unit: "redirects",
        what: "URL redirects across all lists of an account on the Enterprise plan (the default quota; more on request)",
        severity: Severity::Warning,
        measure: Measure::Rows,
        source: CF_QUOTAS,
    },
    Limit {
        server: Server::Cloudflare,
        id: "cloudflare.source-url",
        value: 32_768,
        unit: "bytes",
        what: "the length of a source URL (32 KB)",
        severity: Severity::Error,
        measure: Measure::SourceBytes,
        source: CF_PARAMETERS,
    },
    Limit {
        server: Server::Cloudflare,
        id: "cloudflare.target-url",
        value: 32_768,
        unit: "bytes",
        what: "the length of a target URL (32 KB)",
        severity: Severity::Error,
        measure: Measure::TargetBytes,
        source: CF_PARAMETERS,
    },
    Limit {
        server: Server::Vercel,
        id: "vercel.source",
        value: 2048,
        unit: "characters",
        what: "the length of a source path",
        severity: Severity::Error,
        measure: Measure::SourceChars,
        source: VERCEL,
    },
    Limit {
        server: Server::Vercel,
        id: "vercel.destination",
        value: 2048,
        unit: "characters",
        what: "the length of a destination",
        severity: Severity::Error,
        measure: Measure::TargetChars,
        source: VERCEL,
    },
    Limit {
        server: Server::Vercel,
        id: "vercel.pro",
        value: 1_000,
        unit: "redirects",
        what: "bulk redirects included in the Pro plan (more capacity is bought in groups of 25,000)",
        severity: Severity::Warning,
        measure: Measure::Rows,
        source: VERCEL,
    },
    Limit {
        server: Server::Vercel,
        id: "vercel.enterprise",
        value: 10_000,
        unit: "redirects",
        what: "bulk redirects included in the Enterprise plan (more capacity is bought in groups of 25,000)",
        severity: Severity::Warning,
        measure: Measure::Rows,
        source: VERCEL,
    },
    Limit {
        server: Server::Vercel,
        id: "vercel.project",
        value: 1_000_000,
        unit: "redirects",
        what: "bulk redirects a project can have at most",
        severity: Severity::Error,
        measure: Measure::Rows,
        source: VERCEL,
    },
    Limit {
        server: Server::Iis,
        id: "iis.config-size",
        value: 250,
        unit: "KB",
        what: "a configuration file (web.config, or the file a rewriteMaps configSource names) larger than MaxWebConfigFileSizeInKB (default 250 KB) is not read (\"Cannot read configuration file because it exceeds the maximum file size\"); raise that registry value; measured on the rewriteMap's add lines (key and value XML-escaped)",
        severity: Severity::Warning,
        measure: Measure::IisConfigBytes,
        source: "https://port135.com/maximum-size-and-count-for-the-web-config-file/",
    },
];

/// The limits of one server.
pub fn of(server: Server) -> impl Iterator<Item = &'static Limit> {
    LIMITS.iter().filter(move |l| l.server == server)
}

/// Pushes a finding for each limit of `server` the map goes past.
pub fn findings(map: &RedirectMap, server: Server, out: &mut Vec<Finding>) {
    for limit in of(server) {
        if let Some((lines, detail)) = measure(limit, &map.entries) {
            out.push(Finding {
                kind: FindingKind::Limit,
                severity: limit.severity,
                limit: Some(limit.id),
                lines,
                detail: format!("{detail} [{}: {}]", limit.id, limit.what),
            });
        }
    }
}

fn measure(limit: &Limit, entries: &[MapEntry]) -> Option<(Vec<u64>, String)> {
    let v = limit.value;
    // The rows whose measure is over the limit, and the largest.
    let over = |what: &str, f: &dyn Fn(&MapEntry) -> u64| {
        let mut lines = Vec::new();
        let mut max = 0;
        for e in entries {
            let n = f(e);
            if n > v {
                lines.push(e.line);
                max = max.max(n);
            }
        }
        let detail = format!(
            "{} {what} over {v} {} (the longest {max})",
            lines.len(),
            limit.unit
        );
        (!lines.is_empty()).then_some((lines, detail, max))
    };
    let drop_max = |r: Option<(Vec<u64>, String, u64)>| r.map(|(l, d, _)| (l, d));
    match limit.measure {
        Measure::Rows => {
            let n = entries.len() as u64;
            (n > v).then(|| {
                (
                    entries[v as usize..].iter().map(|e| e.line).collect(),
                    format!("{n} redirects, over {v} (the lines listed are those past it)"),
                )
            })
        }
        Measure::SourceBytes => drop_max(over("sources", &|e| e.source.len() as u64)),
        Measure::TargetBytes => drop_max(over("targets", &|e| e.target.len() as u64)),
        Measure::SourceChars => drop_max(over("sources", &|e| e.source.chars().count() as u64)),
        Measure::TargetChars => drop_max(over("targets", &|e| e.target.chars().count() as u64)),
        Measure::NginxBucket => {
            over("keys", &|e| nginx_bucket_need(&e.source)).map(|(lines, _, max)| {
                let set = nginx_bucket_size(max);
                let detail = format!(
                    "{} keys need more than a {v}-byte bucket (the longest {max} bytes): put `map_hash_bucket_size {set};` in http {{}} beside the map",
                    lines.len()
                );
                (lines, detail)
            })
        }
        Measure::IisConfigBytes => {
            // The element around the lines, and the lines up to the limit.
            let mut bytes: u64 = 120;
            let mut past = None;
            for (i, e) in entries.iter().enumerate() {
                bytes += iis_line_bytes(e);
                if past.is_none() && bytes > v * 1024 {
                    past = Some(i);
                }
            }
            past.map(|i| {
                (
                    entries[i..].iter().map(|e| e.line).collect(),
                    format!(
                        "the rewriteMap takes about {} KB, over {v} KB from line {} on",
                        bytes.div_ceil(1024),
                        entries[i].line
                    ),
                )
            })
        }
    }
}

/// The bucket bytes nginx needs for a source's key: `ngx_hash_init` requires
/// `bucket_size >= sizeof(void *) + align(len + 2, sizeof(void *)) + sizeof(void *)`.
pub fn nginx_bucket_need(source: &str) -> u64 {
    let Some(s) = split(source) else { return 0 };
    let encoded = |t: &str| t.bytes().map(|b| if b < 0x80 { 1 } else { 3 }).sum::<u64>();
    let len = encoded(s.path) + s.query.map_or(0, |q| 1 + encoded(q));
    nginx_key_bucket_bytes(len)
}

/// The bucket bytes a key of `len` bytes takes (`ngx_hash_init`).
pub fn nginx_key_bucket_bytes(len: u64) -> u64 {
    8 + (len + 2).div_ceil(8) * 8 + 8
}

/// The `map_hash_bucket_size` to name for keys that need `need` bytes: the next multiple
/// of 64, the x86-64 default (tests/nginx_agrees.rs: it starts nginx, 64 less does not).
/// Check's finding and compile's header name the same value.
pub fn nginx_bucket_size(need: u64) -> u64 {
    need.div_ceil(64).max(1) * 64
}

fn iis_line_bytes(e: &MapEntry) -> u64 {
    let escaped = |t: &str| {
        t.chars()
            .map(|c| match c {
                '&' => 5,
                '<' | '>' => 4,
                '"' | '\'' => 6,
                c => c.len_utf8() as u64,
            })
            .sum::<u64>()
    };
    // `    <add key="" value="" />\r\n`
    29 + escaped(&e.source) + escaped(&e.target)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::check;

    fn limit_findings(csv: &str, server: Server) -> Vec<(&'static str, Severity, Vec<u64>)> {
        let map = RedirectMap::from_csv("m.csv", csv).unwrap();
        check(&map, server)
            .of(FindingKind::Limit)
            .map(|f| (f.limit.unwrap(), f.severity, f.lines.clone()))
            .collect()
    }

    #[test]
    fn ids_are_unique_and_name_their_server() {
        for (i, a) in LIMITS.iter().enumerate() {
            assert!(
                a.id.starts_with(&format!("{}.", a.server.name())),
                "{}",
                a.id
            );
            assert!(a.source.starts_with("https://"), "{}", a.id);
            assert!(LIMITS[i + 1..].iter().all(|b| b.id != a.id), "{}", a.id);
        }
    }

    #[test]
    fn nginx_bucket_from_47_bytes() {
        // 46 bytes fit a 64-byte bucket, 47 do not.
        assert_eq!(nginx_bucket_need(&format!("/{}", "a".repeat(45))), 64);
        assert_eq!(nginx_bucket_need(&format!("/{}", "a".repeat(46))), 72);
        // The host is not part of $request_uri; non-ASCII is sent percent-encoded.
        // "/é" is sent as "/%C3%A9": 7 bytes, + 2 rounded up to 16.
        assert_eq!(nginx_bucket_need("https://example.com/é"), 8 + 16 + 8);
        let long = format!("/{}", "a".repeat(46));
        let csv = format!("source,target\n/short,/x\n{long},/x\n{long}?q=1,/y\n");
        let f = limit_findings(&csv, Server::Nginx);
        assert_eq!(
            f,
            vec![("nginx.map-hash-bucket-size", Severity::Warning, vec![3, 4])]
        );
        let map = RedirectMap::from_csv("m.csv", &csv).unwrap();
        let r = check(&map, Server::Nginx);
        assert!(r.passes(), "a raised setting fixes it: a warning");
        let d = &r.of(FindingKind::Limit).next().unwrap().detail;
        assert!(d.contains("map_hash_bucket_size 128;"), "{d}");
        assert_eq!(limit_findings(&csv, Server::Apache), vec![]);
    }

    #[test]
    fn counts_per_plan_name_the_rows_past_them() {
        let mut csv = String::from("source,target\n");
        for i in 0..1001 {
            csv.push_str(&format!("/o{i},/n{i}\n"));
        }
        let f = limit_findings(&csv, Server::Vercel);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].0, "vercel.pro");
        assert_eq!(f[0].2, vec![1002], "the 1,001st redirect is line 1002");
        assert_eq!(limit_findings(&csv, Server::Cloudflare), vec![]);
    }

    #[test]
    fn lengths_in_bytes_or_characters() {
        let long = format!("/{}", "é".repeat(1024)); // 1025 characters, 2049 bytes
        let csv = format!("source,target\n{long},/x\n/y,{long}\n");
        assert_eq!(limit_findings(&csv, Server::Vercel), vec![]);
        let long = format!("/{}", "a".repeat(2048));
        let csv = format!("source,target\n{long},/x\n/y,{long}\n");
        let f = limit_findings(&csv, Server::Vercel);
        assert_eq!(
            f,
            vec![
                ("vercel.source", Severity::Error, vec![2]),
                ("vercel.destination", Severity::Error, vec![3])
            ]
        );
        let huge = format!("https://a.com/{}", "b".repeat(32_768));
        let csv = format!("source,target\n{huge},https://a.com/x\n");
        let f = limit_findings(&csv, Server::Cloudflare);
        assert_eq!(f, vec![("cloudflare.source-url", Severity::Error, vec![2])]);
    }

    #[test]
    fn iis_config_size_counts_escaped_lines() {
        let e = |s: &str, t: &str| MapEntry {
            line: 2,
            source: s.into(),
            target: t.into(),
            status: 301,
        };
        assert_eq!(iis_line_bytes(&e("/a", "/b")), 33);
        assert_eq!(iis_line_bytes(&e("/a?x=1&y=2", "/b")), 33 + 8 + 4);
        let mut csv = String::from("source,target\n");
        // ~2,600 rows of ~100 bytes: past 250 KB.
        for i in 0..2600 {
            csv.push_str(&format!("/old/{i:060},/new/{i:020}\n"));
        }
        let f = limit_findings(&csv, Server::Iis);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].0, "iis.config-size");
        assert!(f[0].2.len() < 2600 && !f[0].2.is_empty());
    }
}
