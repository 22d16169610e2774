//! A response's body, read up to a cap.

use crate::failure::error_chain;

/// What was read of a body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Body {
    /// The bytes, at most the cap.
    pub bytes: Vec<u8>,
    /// True when reading stopped at the cap with more to come.
    pub truncated: bool,
    /// When reading failed before the end: whether it timed out, and the error chain.
    pub error: Option<(bool, String)>,
}

/// Reads `response`'s body up to `cap` bytes, handing each piece kept to `seen` as it
/// comes (a head scanner stops looking once it has what it wants).
pub async fn read_body(
    response: &mut reqwest::Response,
    cap: usize,
    mut seen: impl FnMut(&[u8]),
) -> Body {
    let mut body = Body::default();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                let room = cap - body.bytes.len();
                let take = chunk.len().min(room);
                seen(&chunk[..take]);
                body.bytes.extend_from_slice(&chunk[..take]);
                if take < chunk.len() {
                    body.truncated = true;
                    break;
                }
            }
            Ok(None) => break,
            Err(e) => {
                body.error = Some((e.is_timeout(), error_chain(&e)));
                break;
            }
        }
    }
    body
}
