//! The audit view (`audit_ledger`), defined once: the migrations that create or recreate it
//! (in `db` and `review`) expand [`audit_ledger_view`] for their schema version.

/// The audit view (`audit_ledger`): every observation with the latest verification of its
/// key, as of a schema version. Its one definition: schema 1's columns, then the columns
/// each later schema added, at the end (so an export's columns keep their places). A
/// migration that adds columns, or rebuilds a table the view reads, recreates it with
/// `audit_ledger_view!(N)`; migration N may only name the columns schema N has.
macro_rules! audit_ledger_view {
    () => {
        concat!(
            $crate::db::view::audit_view_head!(),
            $crate::db::view::audit_view_tail!()
        )
    };
    (2) => {
        concat!(
            $crate::db::view::audit_view_head!(),
            $crate::db::view::audit_view_columns_2!(),
            $crate::db::view::audit_view_tail!()
        )
    };
    (4) => {
        concat!(
            $crate::db::view::audit_view_head!(),
            $crate::db::view::audit_view_columns_2!(),
            $crate::db::view::audit_view_columns_4!(),
            $crate::db::view::audit_view_tail!()
        )
    };
    (5) => {
        concat!(
            $crate::db::view::audit_view_head!(),
            $crate::db::view::audit_view_columns_2!(),
            $crate::db::view::audit_view_columns_4!(),
            $crate::db::view::audit_view_columns_5!(),
            $crate::db::view::audit_view_tail!()
        )
    };
    (8) => {
        concat!(
            $crate::db::view::audit_view_head!(),
            $crate::db::view::audit_view_columns_2!(),
            $crate::db::view::audit_view_columns_4!(),
            $crate::db::view::audit_view_columns_5!(),
            $crate::db::view::audit_view_columns_8!(),
            $crate::db::view::audit_view_tail!()
        )
    };
}
pub(crate) use audit_ledger_view;

/// Schema 1's columns: the seed's minimum audit ledger, all of it, with the latest
/// verification of each observation's key.
macro_rules! audit_view_head {
    () => {
        r#"
DROP VIEW IF EXISTS audit_ledger;
CREATE VIEW audit_ledger AS
SELECT
    o.observation_id,
    o.prompt_id,
    o.prompt_version,
    o.answer_system,
    o.market,
    o.collection,
    o.run_timestamp,
    o.observed_url,
    o.normalization_policy_version,
    o.normalized_key,
    o.publisher_hostname,
    o.transformations,
    o.error_code,
    CASE
        WHEN o.normalized_key IS NULL THEN NULL
        WHEN v.verification_id IS NULL THEN 'unverified'
        ELSE v.verification_status
    END AS verification_status,
    v.final_url AS verified_final_url,
    v.publisher_canonical,
    v.final_http_status AS verification_http_status,
    v.reason AS verification_reason,
    v.finished_at AS verified_at,
    v.observation_id AS verified_via_observation_id"#
    };
}
pub(crate) use audit_view_head;

/// Schema 2: the answer text that cited the URL, and every other input column.
macro_rules! audit_view_columns_2 {
    () => {
        r#",
    o.claim,
    o.extra"#
    };
}
pub(crate) use audit_view_columns_2;

/// Schema 4: the content check and the latest decisions.
macro_rules! audit_view_columns_4 {
    () => {
        r#",
    v.content_check,
    (SELECT r.source_role FROM reviews AS r
      WHERE r.normalization_policy_version = o.normalization_policy_version
        AND r.normalized_key = o.normalized_key AND r.source_role IS NOT NULL
      ORDER BY r.review_id DESC LIMIT 1) AS source_role,
    (SELECT r.claim_support FROM reviews AS r
      WHERE r.observation_id = o.observation_id AND r.claim_support IS NOT NULL
      ORDER BY r.review_id DESC LIMIT 1) AS claim_support,
    (SELECT r.merge_decision FROM reviews AS r
      WHERE r.normalization_policy_version = o.normalization_policy_version
        AND r.normalized_key = o.normalized_key AND r.merge_decision IS NOT NULL
      ORDER BY r.review_id DESC LIMIT 1) AS merge_decision,
    (SELECT r.reviewer FROM reviews AS r
      WHERE r.observation_id = o.observation_id
         OR (r.normalization_policy_version = o.normalization_policy_version
             AND r.normalized_key = o.normalized_key
             AND (r.source_role IS NOT NULL OR r.merge_decision IS NOT NULL))
      ORDER BY r.review_id DESC LIMIT 1) AS reviewed_by,
    (SELECT r.reviewed_at FROM reviews AS r
      WHERE r.observation_id = o.observation_id
         OR (r.normalization_policy_version = o.normalization_policy_version
             AND r.normalized_key = o.normalized_key
             AND (r.source_role IS NOT NULL OR r.merge_decision IS NOT NULL))
      ORDER BY r.review_id DESC LIMIT 1) AS reviewed_at"#
    };
}
pub(crate) use audit_view_columns_4;

/// Schema 5: `run_timestamp` is the UTC instant; the text as written comes last.
macro_rules! audit_view_columns_5 {
    () => {
        r#",
    o.run_timestamp_as_written"#
    };
}
pub(crate) use audit_view_columns_5;

/// Schema 8: the observation's text directives, each with the result of the latest
/// verification's check (a JSON array; `[]` when the URL has none).
macro_rules! audit_view_columns_8 {
    () => {
        r#",
    (SELECT json_group_array(json_object(
            'n', f.n, 'directive', f.directive, 'prefix', f.prefix, 'start', f.text_start,
            'end', f.text_end, 'suffix', f.suffix, 'malformed', f.malformed,
            'check', (SELECT c.result FROM text_fragment_checks AS c
                      WHERE c.verification_id = v.verification_id
                        AND c.observation_id = f.observation_id AND c.n = f.n)))
       FROM (SELECT * FROM text_fragments AS f0
             WHERE f0.observation_id = o.observation_id ORDER BY f0.n) AS f) AS text_fragments"#
    };
}
pub(crate) use audit_view_columns_8;

/// The join with the latest verification of the observation's key.
macro_rules! audit_view_tail {
    () => {
        r#"
FROM observations AS o
LEFT JOIN verifications AS v
    ON v.verification_id = (
        SELECT max(v2.verification_id)
        FROM verifications AS v2
        WHERE v2.normalization_policy_version = o.normalization_policy_version
          AND v2.normalized_key = o.normalized_key
    );
"#
    };
}
pub(crate) use audit_view_tail;
