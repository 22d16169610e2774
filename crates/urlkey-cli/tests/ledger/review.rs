//! `ledger review add|import|list`, the decisions in export.

use crate::common::{ledger, ledger_for, TestServer};

fn add(db: &std::path::Path, args: &[&str]) -> crate::common::Run {
    let mut a = vec!["review", "add"];
    a.extend_from_slice(args);
    ledger(db, &a)
}

fn export_rows(db: &std::path::Path) -> Vec<serde_json::Value> {
    ledger(db, &["export", "--format", "jsonl"])
        .ok()
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect()
}

#[test]
fn decisions_are_kept_in_order_and_the_latest_is_exported() {
    // No fetch here: the server only gives the URLs a host.
    let s = TestServer::start();
    let (dir, db) = ledger_for(&s, &["/report", "/report/", "/plain"]);

    // Role of the page (the key) through an observation; claim support of that observation.
    add(
        &db,
        &[
            "--observation",
            "v-000",
            "--role",
            "evidence",
            "--claim-support",
            "partly",
            "--reviewer",
            "ann",
            "--note",
            "first look",
        ],
    )
    .ok();
    let rows = export_rows(&db);
    assert_eq!(rows[0]["source_role"], "evidence");
    assert_eq!(rows[0]["claim_support"], "partly");
    assert_eq!(rows[0]["reviewed_by"], "ann");
    assert!(rows[0]["reviewed_at"]
        .as_str()
        .expect("time")
        .ends_with('Z'));
    // The same key: the role, not the other observation's claim support.
    assert_eq!(rows[1]["source_role"], "evidence");
    assert!(rows[1]["claim_support"].is_null());
    assert_eq!(rows[1]["reviewed_by"], "ann");
    // Another key: nothing.
    assert!(rows[2]["source_role"].is_null());
    assert!(rows[2]["reviewed_by"].is_null());

    // A later decision by key replaces the role and adds a merge decision.
    let key = rows[0]["normalized_key"].as_str().expect("key").to_string();
    add(
        &db,
        &[
            "--key",
            &key,
            "--role",
            "comparison",
            "--merge",
            "split",
            "--reviewer",
            "bob",
        ],
    )
    .ok();
    let rows = export_rows(&db);
    assert_eq!(rows[0]["source_role"], "comparison");
    assert_eq!(rows[0]["merge_decision"], "split");
    assert_eq!(rows[0]["claim_support"], "partly", "still ann's");
    assert_eq!(rows[0]["reviewed_by"], "bob");

    // Unknown values are refused with the allowed ones; nothing is stored.
    let e = add(
        &db,
        &[
            "--observation",
            "v-000",
            "--role",
            "opinion",
            "--reviewer",
            "x",
        ],
    )
    .err();
    assert!(
        e.to_string()
            .contains("definition, evidence, comparison, implementation, validation"),
        "{e}"
    );
    let e = add(
        &db,
        &[
            "--observation",
            "v-000",
            "--claim-support",
            "maybe",
            "--reviewer",
            "x",
        ],
    )
    .err();
    assert!(e.to_string().contains("yes, partly, no, unclear"), "{e}");
    let e = add(&db, &["--key", &key, "--merge", "join", "--reviewer", "x"]).err();
    assert!(e.to_string().contains("confirm, split"), "{e}");
    let e = add(
        &db,
        &["--key", &key, "--claim-support", "yes", "--reviewer", "x"],
    )
    .err();
    assert!(e.to_string().contains("belongs to an observation"), "{e}");
    let e = add(
        &db,
        &[
            "--observation",
            "nope",
            "--role",
            "evidence",
            "--reviewer",
            "x",
        ],
    )
    .err();
    assert!(e.to_string().contains("no observation"), "{e}");
    let e = add(&db, &["--observation", "v-000", "--reviewer", "x"]).err();
    assert!(e.to_string().contains("nothing decided"), "{e}");

    // Import: all rows checked first; one bad row stores nothing.
    let bad = dir.path().join("bad.csv");
    std::fs::write(
        &bad,
        "observation,key,role,claim_support,merge,reviewer,note\n\
         v-002,,definition,yes,,cy,ok\n\
         v-001,,,sure,,cy,\n",
    )
    .expect("write");
    let e = ledger(&db, &["review", "import", bad.to_str().expect("p")]).err();
    assert!(e.to_string().contains("line 3"), "{e}");
    assert!(e.to_string().contains("nothing was stored"), "{e}");
    let good = dir.path().join("good.csv");
    std::fs::write(
        &good,
        format!(
            "observation,key,role,claim_support,merge,reviewer,note\n\
             v-002,,definition,yes,,cy,\"checked, twice\"\n\
             ,{key},,,confirm,dee,\n"
        ),
    )
    .expect("write");
    let r = ledger(&db, &["review", "import", good.to_str().expect("p")]).ok();
    assert!(r.stdout.contains("2 reviews recorded"), "{}", r.stdout);
    let rows = export_rows(&db);
    assert_eq!(rows[2]["source_role"], "definition");
    assert_eq!(rows[2]["claim_support"], "yes");
    assert_eq!(rows[0]["merge_decision"], "confirm", "dee's, the latest");
    assert_eq!(rows[0]["reviewed_by"], "dee");

    // The whole history, oldest first, with time, reviewer and which are current.
    let list: serde_json::Value = serde_json::from_str(
        &ledger(&db, &["review", "list", "--format", "json"])
            .ok()
            .stdout,
    )
    .expect("json");
    let list = list.as_array().expect("array");
    assert_eq!(list.len(), 4);
    let who: Vec<&str> = list
        .iter()
        .map(|r| r["reviewer"].as_str().expect("r"))
        .collect();
    assert_eq!(who, ["ann", "bob", "cy", "dee"]);
    assert_eq!(list[0]["source_role"], "evidence");
    assert_eq!(list[0]["note"], "first look");
    assert_eq!(
        list[0]["current"], true,
        "ann's claim support is still current"
    );
    assert_eq!(list[1]["current"], true, "bob's role is current");
    assert_eq!(list[2]["note"], "checked, twice");
    assert!(list.iter().all(|r| r["reviewed_at"].is_string()));
    let csv = ledger(&db, &["review", "list", "--format", "csv"])
        .ok()
        .stdout;
    assert_eq!(csv.lines().count(), 5);
    assert!(csv.starts_with("review_id,reviewed_at,reviewer,"));
    let jsonl = ledger(&db, &["review", "list", "--format", "jsonl"])
        .ok()
        .stdout;
    assert_eq!(jsonl.lines().count(), 4);
    let table = ledger(&db, &["review", "list"]).ok().stdout;
    assert!(table.lines().next().expect("h").starts_with("review_id"));
    assert!(table.contains("first look"));

    // CSV export carries the fields too.
    let csv = ledger(&db, &["export"]).ok().stdout;
    let header = csv.lines().next().expect("header");
    assert!(header.ends_with(
        "content_check,source_role,claim_support,merge_decision,reviewed_by,reviewed_at,\
         run_timestamp_as_written,text_fragments"
    ));
}

#[test]
fn the_report_counts_roles_claim_support_merges_to_review_and_splits() {
    let s = TestServer::start();
    let (_dir, db) = ledger_for(&s, &["/report", "/report/", "/plain", "/plain#a"]);
    let report = |args: &[&str]| -> serde_json::Value {
        let mut a = vec!["report", "--format", "json"];
        a.extend_from_slice(args);
        serde_json::from_str(&ledger(&db, &a).ok().stdout).expect("json")
    };
    // Before any decision: the trailing-slash merge is to review (never verified, so its
    // content check is not `same`); /plain#a is only a fragment away (documented).
    let r = report(&[]);
    assert_eq!(r["unique_keys"], 2);
    assert_eq!(r["review"]["merges_to_review"], 1);
    assert_eq!(
        r["review"]["observations_by_source_role"]["unclassified"],
        4
    );
    assert_eq!(r["review"]["claim_support"]["unreviewed"], 4);
    assert_eq!(r["review"]["unique_keys_with_splits"], 2);
    let table = ledger(&db, &["report"]).ok().stdout;
    assert!(table.contains("merges to review: 1"), "{table}");
    let csv = report_csv(&db, &[]);
    assert_eq!(csv.len(), 1);
    assert_eq!(csv[0]["source_roles"], "unclassified 4");
    assert_eq!(csv[0]["claim_support"], "unreviewed 4");
    assert_eq!(csv[0]["merges_to_review"], "1");
    assert_eq!(csv[0]["split_keys"], "0");
    assert_eq!(csv[0]["unique_keys_with_splits"], "2");
    let html = ledger(&db, &["report", "--format", "html"]).ok().stdout;
    assert!(html.contains("<h3>Reviews</h3>"), "{html}");
    assert!(
        html.contains(
            "<tr data-figure=\"merges_to_review\"><td>merges to review</td>\
             <td class=\"n\" data-measure=\"review\">1</td><td></td><td></td></tr>"
        ),
        "{html}"
    );

    add(
        &db,
        &[
            "--observation",
            "v-000",
            "--merge",
            "split",
            "--role",
            "evidence",
            "--claim-support",
            "no",
            "--reviewer",
            "ann",
        ],
    )
    .ok();
    add(
        &db,
        &[
            "--observation",
            "v-003",
            "--role",
            "definition",
            "--claim-support",
            "yes",
            "--reviewer",
            "ann",
        ],
    )
    .ok();
    let r = report(&[]);
    assert_eq!(r["unique_keys"], 2, "the measure itself is unchanged");
    assert_eq!(r["review"]["merges_to_review"], 0);
    assert_eq!(r["review"]["split_keys"], 1);
    // The split key counts its two observed URLs; /plain and /plain#a are one fetch.
    assert_eq!(r["review"]["unique_keys_with_splits"], 3);
    assert_eq!(r["review"]["observations_by_source_role"]["evidence"], 2);
    assert_eq!(r["review"]["observations_by_source_role"]["definition"], 2);
    assert_eq!(r["review"]["claim_support"]["no"], 1);
    assert_eq!(r["review"]["claim_support"]["yes"], 1);
    assert_eq!(r["review"]["claim_support"]["unreviewed"], 2);
    let table = ledger(&db, &["report"]).ok().stdout;
    assert!(
        table.contains(
            "source role: definition 2, evidence 2; claim support: no 1, unreviewed 2, yes 1"
        ),
        "{table}"
    );
    assert!(
        table.contains("unique URL keys with splits applied: 3"),
        "{table}"
    );
    let md = ledger(&db, &["report", "--format", "markdown"]).ok().stdout;
    assert!(md.contains("| merges to review | 0 |"), "{md}");
    assert!(
        md.contains("| unique URL keys with splits applied | 3 |"),
        "{md}"
    );
    assert!(
        md.contains("| valid observations, claim support yes | 1 |"),
        "{md}"
    );

    // CSV: one cell per figure on the group's row, beside its sample columns.
    let csv = report_csv(&db, &[]);
    assert_eq!(csv[0]["observations"], "4");
    assert_eq!(csv[0]["source_roles"], "definition 2; evidence 2");
    assert_eq!(csv[0]["claim_support"], "no 1; unreviewed 2; yes 1");
    assert_eq!(csv[0]["merges_to_review"], "0");
    assert_eq!(csv[0]["split_keys"], "1");
    assert_eq!(csv[0]["unique_keys_with_splits"], "3");
    assert_eq!(csv[0]["unique_keys"], "2");

    // HTML: a row per figure, shares of the sample's valid observations where they count
    // observations.
    let html = ledger(&db, &["report", "--format", "html"]).ok().stdout;
    for row in [
        "<tr data-figure=\"claim_support=yes\"><td>valid observations, claim support yes</td>\
         <td class=\"n\" data-measure=\"review\">1</td><td class=\"n\" \
         data-measure=\"review_share\">0.2500</td><td class=\"n\">1/4</td></tr>",
        "<tr data-figure=\"source_role=evidence\"><td>valid observations, source role \
         evidence</td><td class=\"n\" data-measure=\"review\">2</td><td class=\"n\" \
         data-measure=\"review_share\">0.5000</td><td class=\"n\">2/4</td></tr>",
        "<tr data-figure=\"unique_keys_with_splits\"><td>unique URL keys with splits \
         applied</td><td class=\"n\" data-measure=\"review\">3</td><td></td><td></td></tr>",
        "<tr data-figure=\"split_keys\"><td>keys split by a person</td>\
         <td class=\"n\" data-measure=\"review\">1</td><td></td><td></td></tr>",
    ] {
        assert!(html.contains(row), "{row}\n{html}");
    }

    // A second run a day later (/report again, /plain): compared by window, the compare
    // CSV carries the figures of both sides as `review` rows.
    let dir = db.parent().expect("dir");
    let later = dir.join("later.csv");
    std::fs::write(
        &later,
        format!(
            "observation_id,observed_url,claim\nw-000,{},later claim\nw-001,{},later claim\n",
            s.url("/report"),
            s.url("/plain")
        ),
    )
    .expect("write");
    ledger(
        &db,
        &[
            "ingest",
            later.to_str().expect("path"),
            "--answer-system",
            "test",
            "--prompt-version",
            "v1",
            "--market",
            "local",
            "--run-timestamp",
            "2026-12-01T00:00:00Z",
        ],
    )
    .ok();
    let windows = [
        "--window",
        "2026-11-30..2026-11-30",
        "--window",
        "2026-12-01..2026-12-01",
    ];
    let rows = report_csv(&db, &windows);
    let review: Vec<_> = rows.iter().filter(|r| r["kind"] == "review").collect();
    let names: Vec<&str> = review.iter().map(|r| r["name"].as_str()).collect();
    assert_eq!(
        names,
        [
            "source_role=definition",
            "source_role=evidence",
            "claim_support=no",
            "claim_support=unreviewed",
            "claim_support=yes",
            "merges_to_review",
            "split_keys",
            "unique_keys_with_splits",
        ]
    );
    let cells = |name: &str| -> Vec<String> {
        let r = review.iter().find(|r| r["name"] == name).expect(name);
        [
            "a",
            "a_valid_observations",
            "a_share",
            "b",
            "b_valid_observations",
            "b_share",
            "change",
            "share_change",
            "status",
        ]
        .iter()
        .map(|c| r[*c].clone())
        .collect()
    };
    assert_eq!(
        cells("claim_support=yes"),
        ["1", "4", "0.2500", "0", "2", "0.0000", "-1", "-0.2500", ""]
    );
    assert_eq!(
        cells("source_role=evidence"),
        ["2", "4", "0.5000", "1", "2", "0.5000", "-1", "+0.0000", ""]
    );
    // B has /report only: the split key is one key there.
    assert_eq!(
        cells("unique_keys_with_splits"),
        ["3", "4", "", "2", "2", "", "-1", "", ""]
    );
}

/// `report --format csv ARGS` as one map per row, column name to cell.
fn report_csv(
    db: &std::path::Path,
    args: &[&str],
) -> Vec<std::collections::BTreeMap<String, String>> {
    let mut a = vec!["report", "--format", "csv"];
    a.extend_from_slice(args);
    let out = ledger(db, &a).ok().stdout;
    let mut r = csv::Reader::from_reader(out.as_bytes());
    let h = r.headers().expect("header").clone();
    r.records()
        .map(|rec| {
            let rec = rec.expect("row");
            h.iter()
                .zip(rec.iter())
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}
