//! `POST /api/redirects/propose`: `urlkey redirects propose` on the posted OLD and NEW, for
//! the page's Redirects view.
//!
//! Both texts are read by the readers `urlkey map` uses (same shapes, line numbers and
//! skipped lines; each side has its own shape, column and title column), checked first
//! ([`request`]), then the request takes the map worker and runs `propose`'s engine
//! ([`engine`]): one proposal per OLD record, in input order, with its status, target,
//! evidence (each kind by its name, generically: the engine's table grows), score,
//! runner-up and ambiguity. The answer is every row at once: the person's decisions, the
//! status filter and the export are the page's, so no row is asked for twice. Limits as
//! `POST /api/map`: the body is read within `--max-body-bytes` and `--max-held-bytes`.

mod engine;
mod request;

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::extract::State;
use axum::response::Response;
use serde::Serialize;
use urlkey_batch::rows::REVIEW;

use crate::error::{json_or_error, to_json, ApiError};
use crate::json_request::JsonRequest;
use crate::state::AppState;
use crate::worker::{blocking, map_worker, Queue};
use engine::{Row, SideCounts};
use request::ProposeRequest;

/// The answer of `POST /api/redirects/propose`.
#[derive(Serialize)]
struct ProposeResponse<'a> {
    policy: &'a str,
    /// `MANUAL REVIEW REQUIRED`: urlkey proposes, a person decides.
    review: &'static str,
    old: &'a SideCounts,
    new: &'a SideCounts,
    /// Rows by status; they add up to `old.records`.
    counts: &'a BTreeMap<&'static str, u64>,
    compute_ms: f64,
    /// Whether (and how long) the request waited for the map worker.
    queue: Queue,
    /// One per OLD record, in input order.
    proposals: &'a [Row],
}

/// `POST /api/redirects/propose`.
pub(crate) async fn propose(
    State(st): State<Arc<AppState>>,
    request: JsonRequest<ProposeRequest>,
) -> Response {
    let work = async move {
        let JsonRequest { value: req, held } = request;
        let st2 = st.clone();
        // Checked before queueing for the worker: a malformed request is answered at once.
        let prepared = blocking(move || request::prepare(&st2, req)).await?;
        let (worker, queue) = map_worker(&st).await?;
        let st3 = st.clone();
        let out = blocking(move || {
            let r = engine::propose(&st3, &prepared)?;
            let policy = prepared.policy.id().to_string();
            drop(prepared);
            let out = to_json(&ProposeResponse {
                policy: &policy,
                review: REVIEW,
                old: &r.old,
                new: &r.new,
                counts: &r.counts,
                compute_ms: r.elapsed_ms,
                queue,
                proposals: &r.rows,
            });
            // The share of --max-held-bytes covers the texts until the answer is built.
            drop(held);
            out
        })
        .await?;
        drop(worker);
        Ok::<_, ApiError>(out)
    };
    json_or_error(work.await)
}
