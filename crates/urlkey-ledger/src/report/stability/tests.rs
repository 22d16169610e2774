//! The worked example of docs/ledger.md ("Run-to-run stability"), counted by hand, and the
//! rules around it. Synthetic rows (reserved `.example` names), not observed citations.

use super::*;

/// (prompt, answer system, market, run time, key, publisher) of one valid observation.
type Row = (
    Option<&'static str>,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
);

fn cited(rows: &[Row]) -> Vec<Stability> {
    of(
        rows.iter().map(|r| Cited {
            prompt: r.0,
            prompt_version: "ps",
            answer_system: r.1,
            market: r.2,
            collection: Some("c"),
            run_at: r.3,
            key: r.4,
            publisher: r.5,
        }),
        0,
        0,
    )
}

const A1: &str = "https://a.example.com/1";
const A2: &str = "https://a.example.com/2";
const B1: &str = "https://b.example.com/1";
const C1: &str = "https://c.example.net/1";
const D1: &str = "https://d.example.org/1";
const HA: &str = "a.example.com";
const HB: &str = "b.example.com";
const HC: &str = "c.example.net";
const HD: &str = "d.example.org";

/// The docs' example: assistant-a's valid observations (the invalid one is not among them),
/// p1's runs out of time order as in the fixture file.
fn example() -> Vec<Row> {
    let a = "assistant-a";
    vec![
        (Some("p1"), a, "us", "2026-12-03T09:00:00Z", A1, HA),
        (Some("p1"), a, "us", "2026-12-03T09:00:00Z", A2, HA),
        (Some("p1"), a, "us", "2026-12-03T09:00:00Z", C1, HC),
        (Some("p1"), a, "us", "2026-12-01T09:00:00Z", A1, HA),
        (Some("p1"), a, "us", "2026-12-01T09:00:00Z", A2, HA),
        (Some("p1"), a, "us", "2026-12-01T09:00:00Z", B1, HB),
        (Some("p1"), a, "us", "2026-12-02T09:00:00Z", A1, HA),
        (Some("p1"), a, "us", "2026-12-02T09:00:00Z", A2, HA),
        (Some("p2"), a, "us", "2026-12-01T10:00:00Z", A1, HA),
        (Some("p2"), a, "us", "2026-12-01T10:00:00Z", D1, HD),
        (Some("p2"), a, "us", "2026-12-02T10:00:00Z", D1, HD),
        (Some("p2"), a, "us", "2026-12-02T10:00:00Z", A1, HA),
        (Some("p3"), a, "us", "2026-12-01T11:00:00Z", B1, HB),
        (Some("p3"), a, "us", "2026-12-02T11:00:00Z", C1, HC),
        (Some("p4"), a, "us", "2026-12-01T12:00:00Z", A1, HA),
        (
            Some("p4"),
            a,
            "us",
            "2026-12-01T12:00:00Z",
            "https://e.example.com/1",
            "e.example.com",
        ),
        (
            None,
            a,
            "us",
            "2026-12-01T13:00:00Z",
            "https://a.example.com/3",
            HA,
        ),
    ]
}

#[test]
fn the_worked_example_counted_by_hand() {
    let s = cited(&example());
    assert_eq!(s.len(), 1);
    let s = &s[0];
    assert_eq!(s.answer_system, "assistant-a");
    // p1, p2, p3 asked 3, 2, 2 times; p4 once; one observation without a prompt.
    assert_eq!(
        s.sample,
        StabilitySample {
            valid_observations: 17,
            prompts: 3,
            runs: 7,
            pairs: 4,
            observations: 14,
            prompts_asked_once: 1,
            observations_asked_once: 2,
            observations_without_prompt_id: 1,
        }
    );
    // Keys: p1 {A1,A2,B1} {A1,A2} {A1,A2,C1}: 2/3, 2/3; p2 {A1,D1} twice: 1; p3 {B1} {C1}:
    // 0. Mean per prompt 2/3, 1, 0; over prompts 5/9.
    let k = &s.keys;
    assert_eq!(k.mean_jaccard, Some(0.5556));
    // (prompt, key): p1 A1 A2 B1 C1, p2 A1 D1, p3 B1 C1 = 8; in every run: p1 A1 A2, p2 A1
    // D1 = 4.
    assert_eq!(
        (k.cited, k.in_every_run, k.in_every_run_share),
        (8, 4, Some(0.5))
    );
    assert_eq!((k.come_and_go, k.come_and_go_distinct), (4, 2));
    let flicker = |name: &str, prompts, runs_cited, runs| ComeAndGo {
        name: name.to_string(),
        prompts,
        runs_cited,
        runs,
    };
    assert_eq!(
        k.top_come_and_go,
        vec![flicker(B1, 2, 2, 5), flicker(C1, 2, 2, 5)]
    );
    // Hostnames: p1 {a,b} {a} {a,c}: 1/2, 1/2; p2 {a,d} twice: 1; p3 {b} {c}: 0; mean 1/2.
    let p = &s.publishers;
    assert_eq!(p.mean_jaccard, Some(0.5));
    assert_eq!(
        (p.cited, p.in_every_run, p.in_every_run_share),
        (7, 3, Some(0.4286))
    );
    assert_eq!((p.come_and_go, p.come_and_go_distinct), (4, 2));
    assert_eq!(
        p.top_come_and_go,
        vec![flicker(HB, 2, 2, 5), flicker(HC, 2, 2, 5)]
    );
}

#[test]
fn the_mean_is_over_prompts_not_over_pairs() {
    // One prompt with 4 identical runs (3 pairs of 1), one with 2 disjoint runs (1 pair of
    // 0): over prompts (1 + 0) / 2 = 0.5; over pairs it would be 3/4.
    let a = "sys";
    let s = cited(&[
        (Some("p"), a, "us", "t1", A1, HA),
        (Some("p"), a, "us", "t2", A1, HA),
        (Some("p"), a, "us", "t3", A1, HA),
        (Some("p"), a, "us", "t4", A1, HA),
        (Some("q"), a, "us", "t1", B1, HB),
        (Some("q"), a, "us", "t2", C1, HC),
    ]);
    assert_eq!(s[0].keys.mean_jaccard, Some(0.5));
    assert_eq!((s[0].sample.runs, s[0].sample.pairs), (6, 4));
}

#[test]
fn consecutive_runs_are_ordered_by_time_and_a_key_cited_twice_counts_once() {
    // Runs t1 {A1} t2 {A1,B1} t3 {B1}: consecutive by time 1/2, 1/2 = 0.5. In the input's
    // order (t3, t1, t2) the pairs would be {B1}~{A1} = 0 and {A1}~{A1,B1} = 1/2.
    let a = "sys";
    let s = cited(&[
        (Some("p"), a, "us", "2026-12-03T00:00:00Z", B1, HB),
        (Some("p"), a, "us", "2026-12-03T00:00:00Z", B1, HB),
        (Some("p"), a, "us", "2026-12-01T00:00:00Z", A1, HA),
        (Some("p"), a, "us", "2026-12-02T00:00:00Z", A1, HA),
        (Some("p"), a, "us", "2026-12-02T00:00:00Z", B1, HB),
    ]);
    assert_eq!(s[0].keys.mean_jaccard, Some(0.5));
    assert_eq!(s[0].sample.observations, 5);
    assert_eq!((s[0].keys.cited, s[0].keys.in_every_run), (2, 0));
}

#[test]
fn a_prompt_is_one_per_answer_system_and_market() {
    // The same prompt id in two markets and two systems: four prompts, each asked once.
    let s = cited(&[
        (Some("p"), "sys-a", "us", "t1", A1, HA),
        (Some("p"), "sys-a", "de", "t2", A1, HA),
        (Some("p"), "sys-b", "us", "t3", A1, HA),
        (Some("p"), "sys-b", "de", "t4", A1, HA),
    ]);
    assert_eq!(s.len(), 2);
    for x in &s {
        assert_eq!((x.sample.prompts, x.sample.prompts_asked_once), (0, 2));
        assert_eq!(x.keys.mean_jaccard, None);
        assert_eq!(x.keys.in_every_run_share, None);
        assert_eq!(x.keys.every_text(), "0 of 0");
        assert!(x
            .sample_text()
            .starts_with("no prompt asked more than once"));
    }
}

#[test]
fn the_come_and_go_lists_are_cut_to_top() {
    let rows = example();
    let s = of(
        rows.iter().map(|r| Cited {
            prompt: r.0,
            prompt_version: "ps",
            answer_system: r.1,
            market: r.2,
            collection: None,
            run_at: r.3,
            key: r.4,
            publisher: r.5,
        }),
        1,
        0,
    );
    assert_eq!(s[0].keys.top_come_and_go.len(), 1);
    assert_eq!(
        s[0].keys.come_and_go_distinct, 2,
        "counted over all of them"
    );
    assert_eq!(s[0].publishers.top_come_and_go.len(), 2);
}

#[test]
fn compare_gives_each_figure_of_each_system_and_the_change() {
    let a = cited(&example());
    let b = cited(&[
        (Some("p1"), "assistant-a", "us", "t1", A1, HA),
        (Some("p1"), "assistant-a", "us", "t2", A1, HA),
        (Some("p1"), "assistant-b", "us", "t1", A1, HA),
    ]);
    let c = compare(&a, &b);
    assert_eq!(c.len(), 2 * COMPARED.len());
    let get = |sys: &str, figure: &str| {
        c.iter()
            .find(|r| r.answer_system == sys && r.figure == figure)
            .cloned()
            .expect("a row")
    };
    let j = get("assistant-a", "keys.mean_jaccard");
    assert_eq!(
        (j.a, j.b, j.change),
        (
            Some(Figure::Ratio(0.5556)),
            Some(Figure::Ratio(1.0)),
            Some(Figure::Ratio(0.4444))
        )
    );
    let p = get("assistant-a", "sample.prompts");
    assert_eq!(p.change, Some(Figure::Count(-2)));
    // assistant-b: only in B, asked once there: no ratio on either side.
    let j = get("assistant-b", "keys.mean_jaccard");
    assert_eq!((j.a, j.b, j.change), (None, None, None));
    assert_eq!(j.change_text(), "n/a");
    let n = serde_json::to_value(get("assistant-a", "keys.come_and_go")).expect("json");
    assert_eq!(n["a"], serde_json::json!(4));
    assert_eq!(n["change"], serde_json::json!(-4));
}
