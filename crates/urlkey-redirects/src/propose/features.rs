//! What `propose` reads of a URL's path and a page's title, besides its keys: the last
//! segment, its stem, the loose path, the path's words, the normalized title. Plain text
//! work on the URL as written (no parser): a path-only input (`/a/b.html`) and an
//! absolute URL give the same features for the same path.

/// The page extensions a migration drops (`/about.html` -> `/about`), lowercase.
pub const PAGE_EXTENSIONS: &[&str] = &[
    "html", "htm", "shtml", "xhtml", "php", "php3", "php4", "php5", "phtml", "asp", "aspx", "jsp",
    "jspx", "cfm", "cgi", "pl", "do", "action",
];

/// The default documents a server serves for a folder (`/about/index.html` is `/about/`).
const DEFAULT_DOCUMENTS: &[&str] = &["index", "default"];

/// The path of a URL as written (without query and fragment), and its query (without `?`).
pub fn path_and_query(url: &str) -> (&str, &str) {
    let url = url.trim();
    let end = url.find('#').unwrap_or(url.len());
    let url = &url[..end];
    let rest = match url.find("://") {
        // Only a scheme before `://` (letters, digits, + - .): else it is part of a path.
        Some(i)
            if i > 0
                && url[..i]
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b)) =>
        {
            let after = &url[i + 3..];
            after.find(['/', '?']).map_or("", |j| &after[j..])
        }
        _ if url.starts_with("//") => {
            let after = &url[2..];
            after.find(['/', '?']).map_or("", |j| &after[j..])
        }
        _ if url.starts_with('/') || url.starts_with('?') => url,
        // `www.example.com/a`: a host without a scheme.
        _ => url.find(['/', '?']).map_or("", |j| &url[j..]),
    };
    match rest.find('?') {
        Some(q) => (&rest[..q], &rest[q + 1..]),
        None => (rest, ""),
    }
}

/// The path's segments, without the empty ones (`//`, a trailing slash).
fn segments(path: &str) -> impl Iterator<Item = &str> {
    path.split('/').filter(|s| !s.is_empty())
}

/// The last non-empty segment, lowercased (`None` for the root).
pub fn last_segment(url: &str) -> Option<String> {
    let (path, _) = path_and_query(url);
    segments(path).last().map(str::to_lowercase)
}

/// A segment without its page extension, when it has one (lowercase input).
pub fn stem_of(segment: &str) -> &str {
    match segment.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() && PAGE_EXTENSIONS.contains(&ext) => stem,
        _ => segment,
    }
}

/// The folder a URL's last segment is in (`/shop/widgets/` for `/shop/widgets/blue`).
pub fn folder(url: &str) -> String {
    let (path, _) = path_and_query(url);
    let segs: Vec<&str> = segments(path).collect();
    match segs.split_last() {
        Some((_, parents)) if !parents.is_empty() => format!("/{}/", parents.join("/")),
        _ => "/".to_string(),
    }
}

/// The loose path (`same-path`): lowercased, empty segments dropped, the last segment
/// without its page extension, a default document dropped, and the query (lowercased)
/// after `?` when there is one. The root is the empty string.
pub fn loose_path(url: &str) -> String {
    let (path, query) = path_and_query(url);
    let lower = path.to_lowercase();
    let mut segs: Vec<&str> = segments(&lower).collect();
    if let Some(last) = segs.pop() {
        let stem = stem_of(last);
        let is_default = DEFAULT_DOCUMENTS.contains(&stem) && stem != last;
        if !is_default {
            segs.push(stem);
        }
    }
    let mut out = segs.join("/");
    if !query.is_empty() {
        out.push('?');
        out.push_str(&query.to_lowercase());
    }
    out
}

/// The path's words (`shared-tokens`): the lowercased path split on every character that
/// is not a letter or a digit, page extensions and empty pieces dropped, each once, as
/// 64-bit hashes ([`word_id`]), sorted.
pub fn words(url: &str) -> Vec<u64> {
    let (path, _) = path_and_query(url);
    let lower = path.to_lowercase();
    let mut out: Vec<u64> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty() && !PAGE_EXTENSIONS.contains(t))
        .map(word_id)
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// A word's hash: two words that differ share one with odds of 2^-64, which would only
/// add one shared word to a similarity.
pub fn word_id(word: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(word.as_bytes())
}

/// How many values two sorted, deduplicated lists share.
pub fn shared(a: &[u64], b: &[u64]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

/// The separators before a site name at the end of a title ("Blue Widget | Shop").
const TITLE_SEPARATORS: &[&str] = &[" | ", " - ", " – ", " — "];

/// The normalized title (`same-title`): white space collapsed, lowercased, and the part
/// after the last separator (` | `, ` - `, ` – `, ` — `) dropped when something is left
/// before it, since sites rename themselves in a migration. `None` when empty.
pub fn normalized_title(title: &str) -> Option<String> {
    let collapsed = title.split_whitespace().collect::<Vec<_>>().join(" ");
    let lower = collapsed.to_lowercase();
    let cut = TITLE_SEPARATORS
        .iter()
        .filter_map(|s| lower.rfind(s))
        .max()
        .filter(|&i| i > 0)
        .map_or(lower.as_str(), |i| &lower[..i]);
    let cut = cut.trim();
    (!cut.is_empty()).then(|| cut.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_path_is_found_in_every_spelling() {
        for (url, path, query) in [
            ("http://www.example.com/a/b.html?x=1#f", "/a/b.html", "x=1"),
            ("https://example.com", "", ""),
            ("//cdn.example.com/a", "/a", ""),
            ("/a/b", "/a/b", ""),
            ("www.example.com/a/", "/a/", ""),
            ("https://example.com?q=1", "", "q=1"),
            ("  /x?y  ", "/x", "y"),
            ("/a/http://b/c", "/a/http://b/c", ""),
        ] {
            assert_eq!(path_and_query(url), (path, query), "{url}");
        }
    }

    #[test]
    fn segments_stems_and_loose_paths() {
        assert_eq!(
            last_segment("http://x.com/Shop/Blue-Widget.HTML").as_deref(),
            Some("blue-widget.html")
        );
        assert_eq!(last_segment("http://x.com/"), None);
        assert_eq!(stem_of("blue-widget.html"), "blue-widget");
        assert_eq!(stem_of("report.pdf"), "report.pdf");
        assert_eq!(stem_of(".php"), ".php");
        assert_eq!(folder("http://x.com/shop/widgets/blue"), "/shop/widgets/");
        assert_eq!(folder("/blue"), "/");
        assert_eq!(
            loose_path("http://www.x.com/About/Team.php"),
            loose_path("https://x.com/about/team/")
        );
        assert_eq!(loose_path("http://x.com/about/index.html"), "about");
        assert_eq!(loose_path("http://x.com/index.php"), "");
        assert_eq!(loose_path("/p.php?ID=7"), "p?id=7");
        assert_ne!(loose_path("/p.php?id=7"), loose_path("/p.php?id=8"));
    }

    #[test]
    fn words_are_those_of_the_path() {
        let ids = |w: &[&str]| {
            let mut v: Vec<u64> = w.iter().map(|w| word_id(w)).collect();
            v.sort_unstable();
            v
        };
        assert_eq!(
            words("http://x.com/News/2019/summer_sale-Final.html?utm=1"),
            ids(&["2019", "final", "news", "sale", "summer"])
        );
        let (a, b) = (words("/blog/my-post"), words("/articles/my-post"));
        assert_eq!(shared(&a, &b), 2);
        assert!(words("http://x.com/").is_empty());
        assert_eq!(words("/a/a/A"), ids(&["a"]));
    }

    #[test]
    fn titles_lose_case_spacing_and_the_site_name() {
        assert_eq!(
            normalized_title("  Blue   Widget | Old Shop ").as_deref(),
            Some("blue widget")
        );
        assert_eq!(
            normalized_title("Blue Widget – New Shop").as_deref(),
            Some("blue widget")
        );
        assert_eq!(normalized_title(" | Shop").as_deref(), Some("| shop"));
        assert_eq!(normalized_title("   "), None);
        assert_eq!(normalized_title("Jean-Paul").as_deref(), Some("jean-paul"));
    }
}
