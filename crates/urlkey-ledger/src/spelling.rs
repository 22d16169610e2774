//! A key's spellings: its distinct observed URLs as verify fetches them (trimmed, no
//! fragment, no userinfo: what is never sent). Verify requests them, `merges` and the
//! report count them, and a split key's variants are ranked by them.

use url::Url;

/// The observed URL as verify fetches it (trimmed, no fragment, no userinfo); the text as
/// it is when it does not parse as a URL.
pub fn as_fetched(observed: &str) -> String {
    let text = observed.trim_matches(|c: char| c <= ' ');
    match Url::parse(text) {
        Ok(mut u) => {
            sanitize(&mut u);
            u.to_string()
        }
        Err(_) => observed.to_string(),
    }
}

/// Removes what is never sent: the fragment, and userinfo. Returns true when userinfo
/// was there.
pub fn sanitize(url: &mut Url) -> bool {
    url.set_fragment(None);
    let had = !url.username().is_empty() || url.password().is_some();
    if had {
        // Both fail only for URLs that cannot have credentials, which have none.
        let _ = url.set_username("");
        let _ = url.set_password(None);
    }
    had
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitize_removes_fragment_and_userinfo_only() {
        let mut u =
            Url::parse("https://user:pw@docs.example.org/A?utm_source=x#frag").expect("url");
        assert!(sanitize(&mut u));
        assert_eq!(u.as_str(), "https://docs.example.org/A?utm_source=x");
        let mut u = Url::parse("https://docs.example.org/#x").expect("url");
        assert!(!sanitize(&mut u));
        assert_eq!(u.as_str(), "https://docs.example.org/");
    }

    #[test]
    fn as_fetched_trims_and_keeps_what_does_not_parse() {
        assert_eq!(
            as_fetched(" https://u@docs.example.org/a#x\n"),
            "https://docs.example.org/a"
        );
        assert_eq!(as_fetched("not a url#x"), "not a url#x");
    }
}
