//! Criterion micro-benchmarks: every builtin policy, the ada parse + href floor,
//! and the pieces that cost: query sort, PSL lookup, fingerprint, grouping insert.
//!
//! Data: a deterministic sample of the corpus (every 109th line, about 1,000 URLs),
//! read from `../shared/datasets` at bench time (`URLKEY_DATASETS` overrides the path).
//!
//! `cargo bench -p urlkey-bench --bench micro` (all), or with a filter: `-- policy/`.

#![forbid(unsafe_code)]

use std::borrow::Cow;
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use urlkey::internals::policy::rules::{RemoveTrackingParameters, SortQuery};
use urlkey::internals::policy::{Log, Parts, Rule, SortOrder};
use urlkey::policy::BUILTIN_IDS;
use urlkey::{HostKind, Outcome, PolicySet, PublicSuffixList, WebUrl};
use urlkey_batch::map::{fingerprint, Grouping};
use urlkey_bench::corpus::{Corpus, Kind};

struct Data {
    sample: Vec<String>,
    web: Vec<String>,
}

fn data() -> Data {
    let corpus = Corpus::load_default().expect("the corpus (set URLKEY_DATASETS)");
    let web: Vec<String> = corpus.of_kind(Kind::Web).into_iter().step_by(59).collect();
    Data {
        sample: corpus.sample(109),
        web,
    }
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(20)
}

fn policies(c: &mut Criterion) {
    let d = data();
    let set = PolicySet::builtin();
    let mut g = c.benchmark_group("policy");
    g.throughput(Throughput::Elements(d.sample.len() as u64));
    g.bench_function("ada-parse-href", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for l in &d.sample {
                if let Ok(u) = ada_url::Url::parse(black_box(l.as_str()), None) {
                    n += black_box(u.href()).len();
                }
            }
            n
        })
    });
    for id in BUILTIN_IDS.iter().copied() {
        let p = set.get(id).unwrap();
        g.bench_function(id, |b| {
            b.iter(|| {
                let mut n = 0usize;
                for l in &d.sample {
                    let o = p.key(black_box(l.as_str()));
                    n += usize::from(black_box(&o).key.is_some());
                }
                n
            })
        });
        // The lean key path into one reused buffer (`urlkey key --format key`, map pass one).
        g.bench_function(format!("{id}/key_into"), |b| {
            let mut out = String::with_capacity(1024);
            b.iter(|| {
                let mut n = 0usize;
                for l in &d.sample {
                    n += usize::from(p.key_into(black_box(l.as_str()), &mut out).is_ok());
                }
                n
            })
        });
    }
    g.finish();
}

fn parts_with_query(q: &str) -> Parts<'_> {
    Parts {
        scheme: Cow::Borrowed("https"),
        userinfo: Cow::Borrowed(""),
        host: Some(Cow::Borrowed("example.com")),
        host_kind: HostKind::Domain,
        port: Cow::Borrowed(""),
        path: Cow::Borrowed("/"),
        query: Some(Cow::Borrowed(q)),
        fragment: None,
        opaque_path: false,
        path_only: false,
    }
}

fn query_sort(c: &mut Criterion) {
    let corpus = Corpus::load_default().unwrap();
    // Every web query with two or more pieces (userbait has the long ones).
    let queries: Vec<String> = corpus
        .of_kind(Kind::Web)
        .iter()
        .filter_map(|l| WebUrl::parse(l, None).ok()?.query().map(str::to_string))
        .filter(|q| q.contains('&'))
        .collect();
    let mut g = c.benchmark_group("query");
    g.throughput(Throughput::Elements(queries.len() as u64));
    for (name, order) in [
        ("sort-name-value", SortOrder::NameValue),
        ("sort-ordinal", SortOrder::Ordinal),
    ] {
        let rule = Rule::SortQuery(SortQuery { order });
        g.bench_function(name, |b| {
            b.iter(|| {
                let mut n = 0usize;
                for q in &queries {
                    let mut p = parts_with_query(q);
                    let mut log = Log::default();
                    rule.apply(&mut p, &mut log, None);
                    n += black_box(&log).transformations.len();
                }
                n
            })
        });
    }
    let rule = Rule::RemoveTrackingParameters(RemoveTrackingParameters(
        urlkey::TrackingSet::registry_v1(),
    ));
    g.bench_function("remove-tracking", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for q in &queries {
                let mut p = parts_with_query(q);
                let mut log = Log::default();
                rule.apply(&mut p, &mut log, None);
                n += black_box(&log).removed_params.len();
            }
            n
        })
    });
    g.finish();
}

fn psl(c: &mut Criterion) {
    let d = data();
    let psl = PublicSuffixList::embedded();
    let hosts: Vec<String> = d
        .web
        .iter()
        .filter_map(|l| {
            let u = WebUrl::parse(l, None).ok()?;
            (u.host_kind() == HostKind::Domain).then(|| u.hostname().to_string())
        })
        .collect();
    let mut g = c.benchmark_group("psl");
    g.throughput(Throughput::Elements(hosts.len() as u64));
    g.bench_function("registrable-domain", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for h in &hosts {
                n += psl.registrable_domain(black_box(h)).map_or(0, str::len);
            }
            n
        })
    });
    g.finish();
}

fn mapper_outcomes(lines: &[String]) -> Vec<Outcome> {
    let p = PolicySet::builtin().get("mapper@1").unwrap();
    lines.iter().map(|l| p.key(l)).collect()
}

fn fingerprints(c: &mut Criterion) {
    let d = data();
    let keys: Vec<String> = mapper_outcomes(&d.web)
        .into_iter()
        .filter_map(|o| o.key)
        .collect();
    let mut g = c.benchmark_group("fingerprint");
    g.throughput(Throughput::Elements(keys.len() as u64));
    g.bench_function("xxh3-128-key", |b| {
        b.iter(|| {
            let mut x = 0u128;
            for k in &keys {
                x ^= fingerprint(black_box(k));
            }
            x
        })
    });
    g.finish();
}

fn grouping(c: &mut Criterion) {
    let d = data();
    let outcomes = mapper_outcomes(&d.sample);
    let mut g = c.benchmark_group("grouping");
    g.throughput(Throughput::Elements(outcomes.len() as u64));
    g.bench_function("insert-fresh", |b| {
        b.iter_batched(
            || Grouping::new("mapper@1", false, false),
            |mut gr| {
                for (i, o) in outcomes.iter().enumerate() {
                    gr.insert(
                        urlkey_batch::input::RecordRef::new(0, i as u64 + 1),
                        black_box(o),
                    )
                    .unwrap();
                }
                gr
            },
            BatchSize::SmallInput,
        )
    });
    // A table already holding 1M keys (cache misses, as in a 10M-line run); the
    // measured keys are present after the first iteration (the "duplicate" path).
    let mut big = Grouping::new("mapper@1", false, false);
    for i in 0..1_000_000u64 {
        let o = Outcome {
            key: Some(format!("https://h{}.example/p/{i}", i % 5000)),
            signature: Some(format!("h{}.example/p/{i}", i % 5000)),
            ..Outcome::default()
        };
        big.insert(urlkey_batch::input::RecordRef::new(0, i + 1), &o)
            .unwrap();
    }
    g.bench_function("insert-into-1M", |b| {
        b.iter(|| {
            for (i, o) in outcomes.iter().enumerate() {
                big.insert(
                    urlkey_batch::input::RecordRef::new(0, i as u64 + 1),
                    black_box(o),
                )
                .unwrap();
            }
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = config();
    targets = policies, query_sort, psl, fingerprints, grouping
}
criterion_main!(benches);
