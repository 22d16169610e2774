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

/// Removes what is never sent: the fragment, and userinfo (`urlkey-fetch`'s rule).
pub use urlkey_fetch::sanitize;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn as_fetched_trims_and_keeps_what_does_not_parse() {
        assert_eq!(
            as_fetched(" https://u@docs.example.org/a#x\n"),
            "https://docs.example.org/a"
        );
        assert_eq!(as_fetched("not a url#x"), "not a url#x");
    }
}
