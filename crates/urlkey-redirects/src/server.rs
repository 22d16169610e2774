//! The servers a map is checked and compiled for, and how each one turns a request and a
//! map line into the thing it compares ([`Server::matching`], [`Server::match_key`]).
//!
//! Two sources with one [`SourceKey::key`] are one source for that server, whatever their
//! spelling: `check` reports them, `compile` must not write them. Each rule below cites the
//! server's own documentation (docs/redirects.md, "## Check", has the same table).

use std::fmt;

/// A server (or hosting platform) that runs a redirect map.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Server {
    /// nginx: a `map` block (keys matched without regard to ASCII case).
    Nginx,
    /// Apache httpd: a `RewriteMap` text file and mod_rewrite lines.
    Apache,
    /// Netlify: a `_redirects` file.
    Netlify,
    /// Cloudflare Bulk Redirects: a list's CSV.
    Cloudflare,
    /// Vercel: bulk redirects JSON.
    Vercel,
    /// IIS URL Rewrite: a `rewriteMap`.
    Iis,
}

/// Whether letter case tells two paths apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Case {
    /// `/About` and `/about` are two sources.
    Sensitive,
    /// `/About` and `/about` are one source (ASCII letters folded).
    Insensitive,
}

/// What the server does with the query string of a source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum QueryRule {
    /// Compared as written, byte for byte (after case folding when case-insensitive):
    /// `?a=1&b=2` and `?b=2&a=1` are two sources.
    AsSent,
    /// Conditions on named parameters: their order does not matter, and a rule without
    /// any matches every query (so, first match winning, it hides a later rule with one).
    Parameters,
    /// A source cannot hold a query: the server matches the path alone.
    Unsupported,
}

/// What the server does with the host of a source given as a full URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HostRule {
    /// The server matches the path (and query) alone: the map serves one host, and a map
    /// whose sources name several hosts cannot be told apart.
    Ignored,
    /// A source given as a full URL matches that host only (a path matches every host).
    Matched,
    /// Every source must name its host (a path alone is not a source).
    Required,
}

/// How a server matches a request against the sources of a map.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Matching {
    /// Letter case.
    pub case: Case,
    /// Whether `/a/` and `/a` are two sources.
    pub trailing_slash_matters: bool,
    /// The query string.
    pub query: QueryRule,
    /// The host.
    pub host: HostRule,
    /// Whether the first matching line wins (later lines of one source are never reached)
    /// rather than the server refusing or merging them.
    pub first_match_wins: bool,
    /// Where the server documents this.
    pub source: &'static str,
}

/// A source as the server compares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceKey {
    /// What the server compares: two sources with one key are one source.
    pub key: String,
    /// For a rule with query conditions under [`QueryRule::Parameters`]: the key of the
    /// same path without them, which a rule without conditions would have.
    pub without_query: Option<String>,
    /// The host the source names (lowercased), whether or not the server matches it.
    pub host: Option<String>,
    /// Why the server cannot take this source as written, if it cannot.
    pub unsupported: Option<&'static str>,
}

/// A URL or path split into what the servers look at. The fragment is dropped: a browser
/// never sends it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Split<'a> {
    /// The authority of a full URL (`http://`, `https://` or `//`), as written.
    pub host: Option<&'a str>,
    /// The path (`/` when a full URL has none).
    pub path: &'a str,
    /// The query after `?` (without it), when there is a `?`.
    pub query: Option<&'a str>,
}

/// Splits a source or target: a full `http(s)://` or `//` URL, or a path starting with
/// `/`. Anything else (`about.html`, `mailto:x`) is `None`: no server matches it.
///
/// ```
/// use urlkey_redirects::server::split;
/// let s = split("https://Shop.Example.com/a/b?x=1#top").unwrap();
/// assert_eq!((s.host, s.path, s.query), (Some("Shop.Example.com"), "/a/b", Some("x=1")));
/// assert_eq!(split("/a").unwrap().host, None);
/// assert_eq!(split("about.html"), None);
/// ```
pub fn split(url: &str) -> Option<Split<'_>> {
    let url = url.split('#').next().unwrap_or("");
    let lower_starts = |p: &str| {
        url.len() >= p.len() && url.as_bytes()[..p.len()].eq_ignore_ascii_case(p.as_bytes())
    };
    let rest = if lower_starts("https://") {
        Some(&url[8..])
    } else if lower_starts("http://") {
        Some(&url[7..])
    } else {
        url.strip_prefix("//")
    };
    let (host, path_query) = match rest {
        Some(r) => {
            let end = r.find(['/', '?']).unwrap_or(r.len());
            if end == 0 {
                return None;
            }
            (Some(&r[..end]), &r[end..])
        }
        None if url.starts_with('/') => (None, url),
        None => return None,
    };
    let (path, query) = match path_query.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (path_query, None),
    };
    Some(Split {
        host,
        path: if path.is_empty() { "/" } else { path },
        query,
    })
}

/// The host of a split URL as servers compare hosts: ASCII-lowercased, without a
/// trailing dot or user information.
pub fn host_of(split: &Split<'_>) -> Option<String> {
    split.host.map(|h| {
        let h = h.rsplit('@').next().unwrap_or(h);
        h.trim_end_matches('.').to_ascii_lowercase()
    })
}

impl Server {
    /// Every server, in the order docs and `--help` list them.
    pub const ALL: [Server; 6] = [
        Server::Nginx,
        Server::Apache,
        Server::Netlify,
        Server::Cloudflare,
        Server::Vercel,
        Server::Iis,
    ];

    /// The name on the command line and in reports.
    pub const fn name(self) -> &'static str {
        match self {
            Server::Nginx => "nginx",
            Server::Apache => "apache",
            Server::Netlify => "netlify",
            Server::Cloudflare => "cloudflare",
            Server::Vercel => "vercel",
            Server::Iis => "iis",
        }
    }

    /// The server of that name.
    ///
    /// ```
    /// use urlkey_redirects::Server;
    /// assert_eq!(Server::parse("nginx"), Some(Server::Nginx));
    /// assert_eq!(Server::parse("caddy"), None);
    /// ```
    pub fn parse(name: &str) -> Option<Server> {
        Server::ALL.into_iter().find(|s| s.name() == name)
    }

    /// How this server matches a request against a map's sources.
    pub const fn matching(self) -> Matching {
        match self {
            // `map $request_uri $urlkey_redirect { ... }`: "Strings are matched ignoring
            // the case" (measured here too: TRAPS.md); $request_uri is the path and query
            // as the client sent them, without the host. Two lines of one key stop nginx
            // ("conflicting parameter"), so nothing wins.
            Server::Nginx => Matching {
                case: Case::Insensitive,
                trailing_slash_matters: true,
                query: QueryRule::AsSent,
                host: HostRule::Ignored,
                first_match_wins: false,
                source: "https://nginx.org/en/docs/http/ngx_http_map_module.html#map",
            },
            // A `RewriteMap` txt file is a hash looked up with the exact key (no `int:tolower`
            // map in front: what compile writes), the request target as sent (path, plus
            // `?query` when there is one, from %{THE_REQUEST}); the host is the virtual
            // host's.
            Server::Apache => Matching {
                case: Case::Sensitive,
                trailing_slash_matters: true,
                query: QueryRule::AsSent,
                host: HostRule::Ignored,
                first_match_wins: false,
                source: "https://httpd.apache.org/docs/current/rewrite/rewritemap.html#txt",
            },
            // `_redirects`: "Paths are case-sensitive"; "Our CDN edge nodes do URL
            // normalization before the redirect rules kick in", so a path matches with or
            // without its trailing slash; query parameters are conditions; rules are read
            // top to bottom and the first match wins; a full-URL source is a domain rule.
            Server::Netlify => Matching {
                case: Case::Sensitive,
                trailing_slash_matters: false,
                query: QueryRule::Parameters,
                host: HostRule::Matched,
                first_match_wins: true,
                source: "https://docs.netlify.com/manage/routing/redirects/redirect-options/",
            },
            // Bulk Redirects: the scheme, the hostname and the path must be "the same" as
            // the source URL's; a source URL holds no query string; a list "cannot contain
            // several URL redirects with the exact same source URL".
            Server::Cloudflare => Matching {
                case: Case::Sensitive,
                trailing_slash_matters: true,
                query: QueryRule::Unsupported,
                host: HostRule::Required,
                first_match_wins: false,
                source: "https://developers.cloudflare.com/rules/url-forwarding/bulk-redirects/how-it-works/",
            },
            // Bulk redirects: `source` is "an absolute path that matches each incoming
            // pathname (excluding query string)"; `caseSensitive` defaults to false, which
            // urlkey keeps.
            Server::Vercel => Matching {
                case: Case::Insensitive,
                trailing_slash_matters: true,
                query: QueryRule::Unsupported,
                host: HostRule::Ignored,
                first_match_wins: false,
                source: "https://vercel.com/docs/redirects/bulk-redirects",
            },
            // A `rewriteMap` looked up with {UNENCODED_URL} (path and query as sent: what
            // compile writes); the map's `ignoreCase` attribute defaults to true.
            Server::Iis => Matching {
                case: Case::Insensitive,
                trailing_slash_matters: true,
                query: QueryRule::AsSent,
                host: HostRule::Ignored,
                first_match_wins: false,
                source: "https://learn.microsoft.com/en-us/iis/extensions/url-rewrite-module/url-rewrite-module-configuration-reference#rewrite-maps",
            },
        }
    }

    /// The key this server compares for a map's source. `None` when the source is neither
    /// a path starting with `/` nor a full http(s) URL.
    ///
    /// ```
    /// use urlkey_redirects::Server;
    /// let key = |s: Server, src| s.match_key(src).unwrap().key;
    /// // nginx folds case: one source; Apache does not: two.
    /// assert_eq!(key(Server::Nginx, "/About"), key(Server::Nginx, "/about"));
    /// assert_ne!(key(Server::Apache, "/About"), key(Server::Apache, "/about"));
    /// // Netlify ignores a trailing slash and the order of query conditions.
    /// assert_eq!(key(Server::Netlify, "/a/?x=1&y=2"), key(Server::Netlify, "/a?y=2&x=1"));
    /// // Cloudflare needs the host.
    /// assert!(Server::Cloudflare.match_key("/a").unwrap().unsupported.is_some());
    /// ```
    pub fn match_key(self, source: &str) -> Option<SourceKey> {
        let s = split(source)?;
        let m = self.matching();
        let host = host_of(&s);
        let mut unsupported = None;
        if m.query == QueryRule::Unsupported && s.query.is_some() {
            unsupported = Some(match self {
                Server::Cloudflare => {
                    "Cloudflare Bulk Redirects match no query string in a source URL"
                }
                _ => "Vercel bulk redirects match the path alone (no query string)",
            });
        }
        if m.host == HostRule::Required && host.is_none() {
            unsupported =
                Some("Cloudflare Bulk Redirects need a full URL (with its host) as source");
        }
        let (key, without_query) = self.key_of(&s, host.as_deref());
        Some(SourceKey {
            key,
            without_query,
            host,
            unsupported,
        })
    }

    /// The keys of the rules a request for `url` would meet, best first: the key itself,
    /// then (query conditions) the key of the path without them. A query the server does
    /// not match on is dropped, as the server drops it. `None` as for [`Self::match_key`].
    pub fn request_keys(self, url: &str) -> Option<(String, Option<String>)> {
        let s = split(url)?;
        let host = host_of(&s);
        Some(self.key_of(&s, host.as_deref()))
    }

    fn key_of(self, s: &Split<'_>, host: Option<&str>) -> (String, Option<String>) {
        let m = self.matching();
        let mut key = String::with_capacity(s.path.len() + 16);
        if m.host != HostRule::Ignored {
            if let Some(h) = host {
                key.push_str(h);
                // A byte no host or path holds keeps `a.com` + `/b` apart from a path.
                key.push('\u{1}');
            }
        }
        let mut path = s.path;
        if !m.trailing_slash_matters {
            path = path.trim_end_matches('/');
            if path.is_empty() {
                path = "/";
            }
        }
        push_as_sent(&mut key, path);
        let mut without_query = None;
        match (m.query, s.query) {
            (QueryRule::AsSent, Some(q)) => {
                key.push('?');
                push_as_sent(&mut key, q);
            }
            (QueryRule::Parameters, Some(q)) => {
                let mut pairs: Vec<&str> = q.split('&').filter(|p| !p.is_empty()).collect();
                if !pairs.is_empty() {
                    without_query = Some(fold(self, key.clone()));
                    pairs.sort_unstable();
                    pairs.dedup();
                    key.push('?');
                    push_as_sent(&mut key, &pairs.join("&"));
                }
            }
            _ => {}
        }
        (fold(self, key), without_query)
    }
}

/// Appends `text` as a browser sends it: a byte outside printable ASCII (UTF-8 of `é`, a
/// space) percent-encoded, and every percent escape in upper case, so that `/café`,
/// `/caf%C3%A9` and `/caf%c3%a9` are one request.
pub fn push_as_sent(key: &mut String, text: &str) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'%'
            && i + 2 < b.len()
            && b[i + 1].is_ascii_hexdigit()
            && b[i + 2].is_ascii_hexdigit()
        {
            key.push('%');
            key.push(b[i + 1].to_ascii_uppercase() as char);
            key.push(b[i + 2].to_ascii_uppercase() as char);
            i += 3;
            continue;
        }
        if c <= b' ' || c >= 0x7f || c == b'"' || c == b'<' || c == b'>' {
            key.push('%');
            key.push(HEX[usize::from(c >> 4)] as char);
            key.push(HEX[usize::from(c & 15)] as char);
        } else {
            key.push(c as char);
        }
        i += 1;
    }
}

fn fold(server: Server, mut key: String) -> String {
    if server.matching().case == Case::Insensitive {
        key.make_ascii_lowercase();
    }
    key
}

impl fmt::Display for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(s: Server, src: &str) -> String {
        s.match_key(src).unwrap().key
    }

    #[test]
    fn split_takes_full_urls_and_paths_only() {
        let s = split("HTTP://a.com?x").unwrap();
        assert_eq!((s.host, s.path, s.query), (Some("a.com"), "/", Some("x")));
        let s = split("//cdn.a.com/p").unwrap();
        assert_eq!((s.host, s.path), (Some("cdn.a.com"), "/p"));
        assert_eq!(split("/p#frag").unwrap().path, "/p");
        for bad in [
            "",
            "about",
            "é",
            "éééééééé/x",
            "mailto:a@b.c",
            "ftp://a/b",
            "https://",
            "https:///x",
        ] {
            assert_eq!(split(bad), None, "{bad}");
        }
        assert_eq!(
            host_of(&split("https://User@WWW.A.com./x").unwrap()).as_deref(),
            Some("www.a.com")
        );
    }

    #[test]
    fn case_folds_where_the_server_folds_it() {
        for (server, one) in [
            (Server::Nginx, true),
            (Server::Apache, false),
            (Server::Netlify, false),
            (Server::Vercel, true),
            (Server::Iis, true),
        ] {
            assert_eq!(
                key(server, "/About?Q=1") == key(server, "/about?q=1"),
                one,
                "{server}"
            );
        }
        // Cloudflare: the host folds (DNS), the path does not.
        assert_eq!(
            key(Server::Cloudflare, "https://A.com/x"),
            key(Server::Cloudflare, "http://a.com/x")
        );
        assert_ne!(
            key(Server::Cloudflare, "https://a.com/X"),
            key(Server::Cloudflare, "https://a.com/x")
        );
    }

    #[test]
    fn trailing_slash_query_and_host() {
        assert_ne!(key(Server::Nginx, "/a/"), key(Server::Nginx, "/a"));
        assert_eq!(key(Server::Netlify, "/a/"), key(Server::Netlify, "/a"));
        assert_eq!(key(Server::Netlify, "/"), "/");
        // Query as sent: order matters.
        assert_ne!(
            key(Server::Nginx, "/a?x=1&y=2"),
            key(Server::Nginx, "/a?y=2&x=1")
        );
        // The host is dropped by the servers that match the request URI alone...
        assert_eq!(
            key(Server::Nginx, "https://a.com/x"),
            key(Server::Nginx, "https://b.com/x")
        );
        assert_eq!(
            Server::Nginx
                .match_key("https://B.com/x")
                .unwrap()
                .host
                .as_deref(),
            Some("b.com")
        );
        // ...and kept by those that match it.
        assert_ne!(
            key(Server::Netlify, "https://a.com/x"),
            key(Server::Netlify, "https://b.com/x")
        );
        let k = Server::Netlify.match_key("/a?x=1").unwrap();
        assert_eq!(k.without_query.as_deref(), Some("/a"));
        assert_eq!(
            Server::Netlify.match_key("/a?").unwrap().without_query,
            None
        );
    }

    #[test]
    fn spellings_of_one_request_are_one_key() {
        for server in Server::ALL {
            let k = |p: &str| key(server, &format!("https://a.com{p}"));
            assert_eq!(k("/café"), k("/caf%C3%A9"), "{server}");
            assert_eq!(k("/caf%c3%a9"), k("/caf%C3%A9"), "{server}");
            assert_eq!(k("/a b"), k("/a%20b"), "{server}");
            assert_ne!(k("/a%2Fb"), k("/a/b"), "{server}");
        }
        assert_eq!(key(Server::Apache, "/p?q=é"), "/p?q=%C3%A9");
        // A lone % is kept as written.
        assert_eq!(key(Server::Apache, "/100%"), "/100%");
    }

    #[test]
    fn unsupported_sources_say_why() {
        let un = |s: Server, src: &str| s.match_key(src).unwrap().unsupported;
        assert!(un(Server::Cloudflare, "https://a.com/x?y=1").is_some());
        assert!(un(Server::Cloudflare, "/x").is_some());
        assert_eq!(un(Server::Cloudflare, "https://a.com/x"), None);
        assert!(un(Server::Vercel, "/x?y=1").is_some());
        assert_eq!(un(Server::Nginx, "/x?y=1"), None);
        // A request's query is dropped where the server matches paths alone.
        assert_eq!(Server::Vercel.request_keys("/X?y=1").unwrap().0, "/x");
    }
}
