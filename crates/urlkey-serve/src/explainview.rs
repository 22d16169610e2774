//! `POST /api/explain`: `urlkey explain` for the page's Compare view.
//!
//! The answer is the library's [`Explanation`] (the JSON of `urlkey explain --format
//! json`) plus `queue`. Like a map, it takes the map worker (one heavy computation at a
//! time), after its body has been read within the limits and checked, so a malformed
//! request is refused at once.

use std::sync::Arc;

use axum::extract::State;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use urlkey::explain::Explanation;

use crate::error::{json_or_error, to_json, ApiError};
use crate::json_request::JsonRequest;
use crate::state::AppState;
use crate::worker::{blocking, map_worker, Queue};

/// The most inputs one request compares. Each input is keyed under the chosen policy and
/// under every builtin (for `same_key_under`), so the cap bounds the work of a request
/// whatever its body size; a side-by-side view of more is unreadable anyway.
pub const MAX_INPUTS: usize = 100;

/// The body of `POST /api/explain`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExplainRequest {
    /// Two or more inputs, as `urlkey explain A B ...` takes them.
    #[serde(alias = "urls")]
    inputs: Vec<String>,
    /// The policy id (default `citation@1`, as `urlkey explain`).
    #[serde(default = "default_policy")]
    policy: String,
}

fn default_policy() -> String {
    urlkey::policy::defaults::EXPLAIN.into()
}

#[derive(Serialize)]
struct ExplainResponse<'a> {
    #[serde(flatten)]
    explanation: &'a Explanation,
    /// Whether (and how long) the request waited for the map worker.
    queue: Queue,
}

/// Refuses what `urlkey explain` refuses as a usage error (fewer than two inputs), and
/// more than [`MAX_INPUTS`].
fn check_count(n: usize) -> Result<(), ApiError> {
    if n < 2 {
        return Err(ApiError::new(
            "request.invalid-option",
            format!("inputs: give two or more to compare ({n} given)"),
        ));
    }
    if n > MAX_INPUTS {
        return Err(ApiError::new(
            "request.invalid-option",
            format!("inputs: at most {MAX_INPUTS} in one request ({n} given); use `urlkey diff` or `urlkey map` for a list"),
        ));
    }
    Ok(())
}

/// `POST /api/explain`.
pub(crate) async fn explain(
    State(st): State<Arc<AppState>>,
    request: JsonRequest<ExplainRequest>,
) -> Response {
    let work = async move {
        let JsonRequest { value: req, held } = request;
        check_count(req.inputs.len())?;
        let policy = st.set.get(&req.policy).map_err(|e| ApiError::policy(&e))?;
        let (worker, queue) = map_worker(&st).await?;
        let st2 = st.clone();
        let out = blocking(move || {
            let e = urlkey::explain::explain(&req.inputs, &st2.set, &policy);
            let out = to_json(&ExplainResponse {
                explanation: &e,
                queue,
            });
            // The share of --max-held-bytes covers the parsed inputs until now.
            drop(held);
            out
        })
        .await?;
        drop(worker);
        Ok::<_, ApiError>(out)
    };
    json_or_error(work.await)
}

#[cfg(test)]
mod tests {
    use super::{check_count, MAX_INPUTS};

    #[test]
    fn two_to_max_inputs_are_taken() {
        for n in [0, 1, MAX_INPUTS + 1] {
            assert_eq!(
                check_count(n).map_err(|e| e.code),
                Err("request.invalid-option"),
                "{n}"
            );
        }
        assert!(check_count(2).is_ok() && check_count(MAX_INPUTS).is_ok());
    }
}
