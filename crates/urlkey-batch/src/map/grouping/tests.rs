//! The grouping engine against plain maps, record by record and chunked, past 32 bits.

use super::*;
use crate::map::close::{on_helpers, share_of, Merged};
use crate::map::counted::KeyBuffers;
use crate::map::key_state::MAX_STATES;
use crate::map::tests::corpus;
use crate::rows::build::lean_row;
use crate::rows::csv::tests::xorshift;
use crate::rows::{outcome_of, outcome_row, LeanRow, MapRow};
use urlkey::internals::PolicyInternals;

fn fields(c: &Counted) -> (RecordRef, String, Option<&str>, Option<&str>) {
    (
        c.at,
        format!("{:?}", c.fingerprints),
        c.key.as_deref(),
        c.signature.as_deref(),
    )
}

/// What [`record_fingerprints`] rests on: under every builtin policy, one key has one
/// signature, over the corpus, the WHATWG test inputs and inputs made to write the
/// same key from different parts (path-only, opaque, other schemes, ports, userinfo).
#[test]
fn a_key_has_one_signature_under_every_builtin_policy() {
    let set = urlkey::PolicySet::builtin();
    let wpt: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/wpt/urltestdata.json"
        ))
        .expect("the WPT data"),
    )
    .expect("WPT JSON");
    let mut inputs: Vec<String> = [
        "http://mailto:25/x?a=1",
        "mailto:25/x?a=1",
        "foo:/p?b",
        "foo://h/p?b",
        "//h/p",
        "/h/p",
        "h/p",
        "https://h/p",
        "http://h/p",
        "http://u:p@h/p",
        "http://h:80/p",
        "http://h:8080/p",
        "h:8080/p",
        "http://h/p?b=1&a=2#f",
        "http://h/p?a=2&b=1",
        "http://[::1]/p",
        "file:///p",
        "file://h/p",
        "javascript:alert(1)",
        "http://h/p?utm_source=x",
        "http://h/p?",
        "http://h/p#",
        "/p?a&a&b",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for f in ["userbait.txt", "kasztp.txt"] {
        inputs.extend(corpus(f).lines().map(str::to_string));
    }
    let cases = wpt.as_array().expect("WPT cases");
    inputs.extend(
        cases
            .iter()
            .filter_map(|c| c["input"].as_str().map(str::to_string)),
    );
    for info in set.list() {
        let p = set.get(&info.id).expect("builtin policy");
        let mut seen: HashMap<String, String> = HashMap::new();
        let (mut key, mut sig) = (String::new(), String::new());
        for input in &inputs {
            if p.key_signature_into(input, &mut key, &mut sig).is_ok() {
                let first = seen.entry(key.clone()).or_insert_with(|| sig.clone());
                assert_eq!(*first, sig, "{}: key {key:?} ({input:?})", info.id);
            }
        }
        assert!(seen.len() > 1000, "{}: {} keys", info.id, seen.len());
    }
}

/// A key written with two signatures (none is, above) would be two keys, each in
/// its own signature group.
#[test]
fn a_key_with_two_signatures_counts_as_two() {
    let mut g = Grouping::new("test", false, false);
    for (line, sig) in [(1, "s1"), (2, "s2"), (3, "s1")] {
        g.insert_counted(Counted {
            at: RecordRef::new(0, line),
            fingerprints: Ok(record_fingerprints("k", sig)),
            key: None,
            signature: None,
        })
        .expect("counted");
    }
    g.close();
    assert_eq!(
        (g.summary.distinct_keys, g.summary.signature_groups),
        (2, 2)
    );
    assert_eq!(g.summary.duplicate_groups, 1);
}

/// A slot holds 32 bits of a fingerprint (its tag) and the state all 128: fingerprints
/// that differ only in the tag's bits, only in the bits below them, or only in the
/// high half are distinct keys and signatures; equal ones are one. Record by record
/// and a chunk at a time (whose probes read the slots before any insert).
#[test]
fn fingerprints_that_differ_in_any_part_are_told_apart() {
    let base: u128 = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210;
    let variants = [base, base ^ (1 << 40), base ^ 1, base ^ (1 << 100), base];
    let counted = |line: usize, fps| Counted {
        at: RecordRef::new(0, line as u64 + 1),
        fingerprints: Ok(fps),
        key: None,
        signature: None,
    };
    for chunked in [false, true] {
        // Keys apart under one signature; then signatures apart, and so keys (a key's
        // fingerprint is taken with its signature's, [`record_fingerprints`]).
        let by_key: Vec<_> = variants.iter().map(|&k| (k, 7)).collect();
        let by_sig: Vec<_> = variants.iter().map(|&s| (s.rotate_left(64), s)).collect();
        for (fps, keys, sigs) in [(by_key, 4, 1), (by_sig, 4, 4)] {
            let mut g = Grouping::new("test", false, false);
            let records: Vec<Counted> = fps
                .iter()
                .enumerate()
                .map(|(i, &f)| counted(i, f))
                .collect();
            if chunked {
                g.insert_chunk(records).unwrap();
            } else {
                for c in records {
                    g.insert_counted(c).unwrap();
                }
            }
            g.close();
            let s = &g.summary;
            let got = (s.distinct_keys, s.signature_groups);
            assert_eq!(got, (keys, sigs), "chunked: {chunked}");
            // The last record is the first's key.
            assert_eq!(g.key_states[0].count, Counter(2), "chunked: {chunked}");
        }
    }
}

/// Sorted blocks come out merged in order, each run of entries that agree in their 96
/// bits once, least ordinal first: runs within a block, across blocks, and of one
/// entry; empty blocks and none.
#[test]
fn runs_of_sorted_blocks_are_merged_in_order() {
    // (the 96 bits, the ordinal)
    let e = |(bits, ordinal): (u128, u32)| sig_entry(bits << 32, ordinal);
    let mut blocks: Vec<Vec<u128>> = [
        vec![(1, 0), (3, 1), (3, 2), (9, 3)],
        vec![(2, 4), (3, 5), (9, 6)],
        vec![],
        vec![(0, 7), (3, 8), (10, 9)],
    ]
    .into_iter()
    .map(|b| b.into_iter().map(e).collect())
    .collect();
    for b in &mut blocks {
        b.sort_unstable();
    }
    let mut runs = Vec::new();
    for_each_run(&blocks, |r| runs.push(r.to_vec()));
    let want: Vec<Vec<u32>> = vec![
        vec![7],
        vec![0],
        vec![4],
        vec![1, 2, 5, 8],
        vec![3, 6],
        vec![9],
    ];
    assert_eq!(runs, want);
    let all: Vec<u128> = Merged::new(&blocks).collect();
    assert!(all.windows(2).all(|w| w[0] <= w[1]) && all.len() == 10);
    for_each_run::<Vec<u128>>(&[], |_| panic!("no runs in no blocks"));
}

/// The groups [`Grouping::close`] finds are those of a plain map from each key's
/// signature fingerprint: each key's group's first record and distinct keys, the
/// summary's counts and `--groups`' rows, with signatures that agree in the 96 bits
/// the sorted entries keep and differ below them, keys out of order, repeats and
/// chunked counting.
#[test]
fn groups_are_those_of_a_plain_map_of_signatures() {
    for threads in [1, 2, 3] {
        groups_of_a_plain_map_closed_on(threads);
    }
}

/// [`groups_are_those_of_a_plain_map_of_signatures`] with the grouping closed on
/// `threads` threads: fingerprints spread over the high bits, so that each thread's
/// share of them holds signatures, and some of the twins that agree in 96 bits.
fn groups_of_a_plain_map_closed_on(threads: usize) {
    let mut next = xorshift();
    let spread = |i: u64| i.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let base = |i: u64| (u128::from(spread(i)) << 64) | 0xaaaa_0000_0000;
    // 300 signatures: some share their 96 high bits with another (differ in the low 32).
    let sigs: Vec<u128> = (0..300u64)
        .map(|i| {
            if i % 7 == 3 {
                base(i - 1) | 5
            } else {
                base(i) | 9
            }
        })
        .collect();
    // 1200 keys, each with one signature; records of random keys, 6000 of them.
    let keys: Vec<(u128, u128)> = (0..1200u64)
        .map(|k| {
            let sig = sigs[(next() % 300) as usize];
            (u128::from(next()) << 64 | u128::from(k), sig)
        })
        .collect();
    let records: Vec<(u128, u128)> = (0..6000).map(|_| keys[(next() % 1200) as usize]).collect();
    let mut g = Grouping::new("test", false, true);
    let counted: Vec<Counted> = records
        .iter()
        .enumerate()
        .map(|(i, &f)| Counted {
            at: RecordRef::new(0, i as u64 + 1),
            fingerprints: Ok(f),
            key: None,
            signature: Some(format!("{:x}", f.1).into()),
        })
        .collect();
    for chunk in counted.chunks(512) {
        g.insert_chunk(chunk.to_vec()).unwrap();
    }
    g.close_on(threads);
    let mut shares = vec![0; threads];
    sigs.iter()
        .for_each(|&s| shares[share_of(sig_entry(s, 0), threads)] += 1);
    assert!(shares.iter().all(|&n| n > 0), "{shares:?}");
    // The plain map: per signature, its first record and its keys; per key its first
    // record and count.
    let mut by_key: HashMap<u128, (u64, u64)> = HashMap::new();
    let mut by_sig: HashMap<u128, (u64, std::collections::HashSet<u128>, Vec<u64>)> =
        HashMap::new();
    for (i, &(k, s)) in records.iter().enumerate() {
        let line = i as u64 + 1;
        by_key.entry(k).or_insert((line, 0)).1 += 1;
        let e = by_sig
            .entry(s)
            .or_insert((line, Default::default(), Vec::new()));
        e.1.insert(k);
        e.2.push(line);
    }
    assert!(by_sig.values().any(|s| s.1.len() > 1));
    let s = &g.summary;
    assert_eq!(s.distinct_keys, by_key.len() as u64);
    assert_eq!(s.signature_groups, by_sig.len() as u64);
    let review = by_sig.values().filter(|s| s.1.len() > 1).count();
    assert_eq!(s.review_groups, review as u64);
    let key_sig: HashMap<u128, u128> = keys.iter().copied().collect();
    let duplicates = by_key
        .iter()
        .filter(|(k, v)| v.1 > 1 && by_sig[&key_sig[*k]].1.len() == 1)
        .count();
    assert_eq!(s.duplicate_groups, duplicates as u64);
    for (i, &(k, sig)) in records.iter().enumerate() {
        let here = RecordRef::new(0, i as u64 + 1);
        let ordinal = g.find_key(Fp::of(k)).expect("a key pass one saw");
        let cells = g.cells_at(here, ordinal, &[]).expect("cells");
        let (first, keys, _) = &by_sig[&sig];
        assert_eq!(cells.group, Some(*first), "record {i}");
        assert_eq!(cells.variants, Some(keys.len() as u64), "record {i}");
        assert_eq!(cells.duplicates, Some(by_key[&k].1), "record {i}");
        // A signature found by its fingerprint (a key pass one did not see): its
        // group, or, where another signature agrees in its 96 high bits, one of the two.
        let found = g.group_of_signature(sig).expect("a signature pass one saw");
        let twins: Vec<u64> = by_sig
            .iter()
            .filter(|(t, _)| sig_bits(sig_entry(**t, 0)) == sig_bits(sig_entry(sig, 0)))
            .map(|(_, v)| v.0)
            .collect();
        if twins.len() == 1 {
            assert_eq!(found.first.line(), *first, "record {i}");
        } else {
            assert!(twins.contains(&found.first.line()), "record {i}");
        }
    }
    let rows = g.group_rows(&[]);
    assert_eq!(rows.len(), by_sig.len());
    for row in &rows {
        let (_, keys, lines) = by_sig
            .values()
            .find(|s| s.0 == row.group)
            .expect("a group per signature");
        assert_eq!(row.distinct_keys, keys.len() as u64);
        assert_eq!(row.members, lines.len() as u64);
        assert_eq!(row.sample_lines, lines[..lines.len().min(5)]);
    }
    assert!(rows.windows(2).all(|w| w[0].group < w[1].group));
}

/// [`deal`] gives every item once, in turn, to no more hands than items; [`on_threads`]
/// gives each job's result in the jobs' order, also with fewer helper threads than jobs
/// or none (a system that refuses to start them).
#[test]
fn jobs_are_dealt_and_run_in_order() {
    for (items, hands) in [(0, 2), (1, 2), (5, 2), (6, 3), (2, 5), (7, 1)] {
        let dealt = deal((0..items).collect::<Vec<usize>>(), hands);
        assert_eq!(dealt.len(), hands.min(items).max(1), "{items} {hands}");
        let n = dealt.len();
        for (h, hand) in dealt.iter().enumerate() {
            assert!(hand.iter().all(|&i| i % n == h), "{items} {hands}");
            assert!(hand.windows(2).all(|w| w[0] < w[1]));
        }
        assert_eq!(dealt.iter().map(Vec::len).sum::<usize>(), items);
        let sums = on_threads(dealt, |hand| hand.iter().sum::<usize>());
        assert_eq!(sums.iter().sum::<usize>(), (0..items).sum::<usize>());
        let ids = on_threads((0..hands).collect(), |j| j * 10);
        assert_eq!(ids, (0..hands).map(|j| j * 10).collect::<Vec<_>>());
        // Helpers the system refused, or fewer than the jobs: the same results.
        for helpers in [0, 1] {
            let ids = on_helpers((0..hands).collect(), |j| j * 10, helpers);
            assert_eq!(ids, (0..hands).map(|j| j * 10).collect::<Vec<_>>());
        }
    }
}

/// Pass one's lean path counts exactly what the `Outcome` path counts.
#[test]
fn lean_counting_equals_outcome_counting() {
    let set = urlkey::PolicySet::builtin();
    let inputs = [
        "https://Example.com/a/?utm_source=x&b=2&a=1#f",
        "/path/only?x=1",
        "//scheme-relative/x",
        "mailto:a@b.example",
        "https://u:p@h.example:8080/x/index.html?&&z",
        "http://[::1]/",
        "not a url",
        "",
    ];
    let mut records: Vec<InputRecord> = inputs
        .iter()
        .enumerate()
        .map(|(i, s)| InputRecord {
            line: i as u64 + 1,
            observed: s.to_string(),
            ..InputRecord::default()
        })
        .collect();
    records.push(InputRecord {
        line: 99,
        observed: "bad".into(),
        problem: Some(urlkey::KeyError::new(ErrorCode::InputInvalidUtf8, "x")),
        ..InputRecord::default()
    });
    let mut buf = KeyBuffers::default();
    for id in urlkey::policy::BUILTIN_IDS.iter().copied() {
        let p = set.get(id).unwrap();
        for r in &records {
            for (verify, groups) in [(false, false), (true, true)] {
                let lean = Counted::key(&p, r, verify, groups, &mut buf);
                let full = Counted::of(RecordRef::of(r), &outcome_of(&p, r), verify, groups);
                assert_eq!(fields(&lean), fields(&full), "{id} {:?}", r.observed);
            }
        }
    }
}
/// Pass two's rows from the places pass one noted ([`Places`]) equal the rows from
/// probing the table, also when a line number comes twice in one source (two records,
/// one place) and when records changed between the passes (their places hold other
/// keys' states); and pass two does read most rows from their places.
#[test]
fn placed_rows_equal_probed_rows() {
    let text = corpus("kasztp.txt");
    let mut records: Vec<InputRecord> = text
        .lines()
        .enumerate()
        .map(|(i, s)| InputRecord {
            line: i as u64 / 2 + 1,
            observed: s.to_string(),
            source: (i % 2) as u32,
            ..InputRecord::default()
        })
        .collect();
    // A third of the records once more (duplicates), after each source's lines.
    let n = records.len();
    for i in 0..n / 3 {
        let mut r = records[i * 3].clone();
        r.line += n as u64 / 2 + 1;
        records.push(r);
    }
    // One place for two records with different keys.
    let mut twice = records[11].clone();
    twice.observed = "https://twice.example/a?b=1".into();
    records.push(twice);
    let sources = ["a".to_string(), "b".to_string()];
    let p = urlkey::PolicySet::builtin().get("mapper@1").unwrap();
    let count = |r: &[InputRecord]| {
        let mut g = Grouping::new("mapper@1", false, false);
        let mut buf = KeyBuffers::default();
        for r in r {
            g.insert_counted(Counted::key(&p, r, false, false, &mut buf))
                .unwrap();
        }
        g.close();
        g
    };
    let placed = count(&records);
    assert!(!placed.places.is_off());
    let mut probed = count(&records);
    probed.places.give_up();
    let mut second = records.clone();
    for r in second.iter_mut().step_by(97) {
        r.observed = format!("https://changed.example/{}", r.line);
    }
    let json = |m: &MapRow<'_>| serde_json::to_string(m).unwrap();
    let (mut valid, mut from_places) = (0, 0);
    for r in &second {
        let o = outcome_of(&p, r);
        let (a, b) = (
            outcome_row(&placed, r, &o, false, &sources),
            outcome_row(&probed, r, &o, false, &sources),
        );
        assert_eq!(json(&a), json(&b), "{:?}", r.observed);
        if let (Some(key), Some(sig)) = (o.key.as_deref(), o.signature.as_deref()) {
            valid += 1;
            let kf = Fp::of(record_fingerprints(key, sig).0);
            let at = RecordRef::of(r);
            from_places += usize::from(
                placed
                    .places
                    .get(at)
                    .is_some_and(|k| placed.key_states[k].fp == kf),
            );
        }
    }
    assert!(from_places * 10 > valid * 9, "{from_places} of {valid}");
    assert!(from_places < valid, "no record fell back to the table");
}

/// Counting a chunk at a time ([`Grouping::insert_chunk`], probes first) gives the
/// same counts and rows as counting record by record, also when a new key comes back
/// later in its own chunk (the probe found nothing; the insert must find the key).
#[test]
fn chunked_counting_equals_record_by_record() {
    let text = corpus("kasztp.txt");
    let mut lines: Vec<&str> = text.lines().take(3000).collect();
    // Repeats within one 512-record chunk, and an invalid record.
    let again: Vec<&str> = lines.iter().step_by(7).copied().collect();
    lines.splice(100..100, again.iter().take(200).copied());
    lines.push("not a url");
    let records: Vec<InputRecord> = lines
        .iter()
        .enumerate()
        .map(|(i, s)| InputRecord {
            line: i as u64 + 1,
            observed: s.to_string(),
            ..InputRecord::default()
        })
        .collect();
    let p = urlkey::PolicySet::builtin().get("mapper@1").unwrap();
    let mut buf = KeyBuffers::default();
    let mut counted: Vec<Counted> = records
        .iter()
        .map(|r| Counted::key(&p, r, true, true, &mut buf))
        .collect();
    let mut one = Grouping::new("mapper@1", true, true);
    for c in counted.clone() {
        one.insert_counted(c).unwrap();
    }
    let mut chunked = Grouping::new("mapper@1", true, true);
    while !counted.is_empty() {
        let rest = counted.split_off(counted.len().min(512));
        chunked.insert_chunk(counted).unwrap();
        counted = rest;
    }
    one.close();
    chunked.close();
    fn json<T: serde::Serialize + ?Sized>(v: &T) -> String {
        serde_json::to_string(v).expect("serializable")
    }
    assert_eq!(json(&one.summary), json(&chunked.summary));
    assert!(one.summary.duplicate_groups > 0 && one.summary.invalid >= 1);
    assert_eq!(json(&one.group_rows(&[])), json(&chunked.group_rows(&[])));
    for r in &records {
        let o = outcome_of(&p, r);
        assert_eq!(
            json(&outcome_row(&one, r, &o, false, &[])),
            json(&outcome_row(&chunked, r, &o, false, &[])),
            "{:?}",
            r.observed
        );
    }
}

/// Places are given up, not grown without bound, for line numbers far past the
/// records (an input of mostly skipped lines); rows then come from the table.
/// Ordinals stop short of the table's 32 bits with an error, never a wrapped ordinal.
#[test]
fn ordinals_end_at_max_states() {
    assert_eq!(ordinal_of(0).ok(), Some(0));
    assert_eq!(ordinal_of(MAX_STATES - 1).ok(), Some(Group::LEAD - 2));
    for n in [MAX_STATES, MAX_STATES + 1, usize::MAX] {
        assert!(matches!(ordinal_of(n), Err(CountError::TooManyKeys)), "{n}");
    }
}

/// Tables that grow from 16 slots through every doubling, counted a chunk at a time,
/// give each record the counts and first line that a plain map of key texts gives.
#[test]
fn tables_that_grow_count_every_key() {
    let recs: Vec<_> = (0..12_000u64)
        .map(|i| InputRecord {
            line: i + 1,
            observed: format!("https://example.com/{}?utm_source=x&a={}", i % 1700, i % 3),
            ..InputRecord::default()
        })
        .collect();
    let policy = urlkey::PolicySet::builtin().get("mapper@1").unwrap();
    let mut g = Grouping::new("mapper@1", true, false);
    let mut buf = KeyBuffers::default();
    for chunk in recs.chunks(512) {
        let counted = chunk
            .iter()
            .map(|r| Counted::key(&policy, r, true, false, &mut buf))
            .collect();
        g.insert_chunk(counted).unwrap();
    }
    g.close();
    // (i % 1700, i % 3) repeats only after 5100 records.
    assert_eq!(g.summary.distinct_keys, 5100);
    let mut plain: std::collections::HashMap<String, (u64, u64)> = Default::default();
    for r in &recs {
        let key = policy.key(&r.observed).key.unwrap();
        plain.entry(key).or_insert((0, r.line)).0 += 1;
    }
    for r in &recs {
        let o = policy.key(&r.observed);
        let (count, first) = plain[o.key.as_deref().unwrap()];
        let row = outcome_row(&g, r, &o, false, &[]);
        assert_eq!(row.duplicates, Some(count), "{}", r.line);
        assert_eq!(
            row.duplicate_of,
            (first != r.line).then_some(first),
            "{}",
            r.line
        );
    }
}

/// A count that fills its 32 bits goes on beside its state: rows, group rows and
/// the summary see it whole.
#[test]
fn counts_go_on_past_32_bits() {
    let policy = urlkey::PolicySet::builtin().get("mapper@1").unwrap();
    let rec = |line| InputRecord {
        line,
        observed: "https://example.com/a?utm_source=x".into(),
        ..InputRecord::default()
    };
    let o = policy.key(&rec(1).observed);
    let mut g = Grouping::new("mapper@1", false, true);
    g.insert(RecordRef::of(&rec(1)), &o).unwrap();
    g.key_states[0].count = Counter(u32::MAX - 1);
    for line in 2..=4 {
        g.insert(RecordRef::of(&rec(line)), &o).unwrap();
    }
    g.close();
    let whole = u64::from(u32::MAX) + 2;
    let last = rec(4);
    let row = outcome_row(&g, &last, &o, false, &[]);
    assert_eq!(row.duplicates, Some(whole));
    assert_eq!(row.duplicate_of, Some(1));
    assert_eq!(row.classification, "duplicate");
    let groups = g.group_rows(&[]);
    assert_eq!(groups.len(), 1);
    assert_eq!(groups[0].members, whole);
    assert_eq!(groups[0].classification, "duplicate");
    assert_eq!(g.summary.duplicate_groups, 1);
    assert_eq!(std::mem::size_of::<KeyState>(), 32);
}

/// Pass two's lean rows ([`Grouping::lean_row`], what CSV and TSV write) equal the
/// `Outcome` rows without detail, field for field (tail cells included), for every
/// builtin policy on the corpus and the inputs above; a record the lean path refuses
/// takes the `Outcome` row, so only its code must agree.
#[test]
fn lean_rows_equal_outcome_rows() {
    let mut lines: Vec<String> = [
        "https://Example.com/a/?utm_source=x&b=2&a=1&gclid=1#f",
        "https://example.com/a/?b=3&a=1",
        "https://example.com/a/?a=1&b=2",
        "/path/only?x=1&fbclid=2",
        "mailto:a@b.example",
        "not a url",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for f in ["kasztp.txt", "userbait.txt"] {
        let text = corpus(f);
        lines.extend(text.lines().map(str::to_string));
    }
    assert!(lines.len() > 50_000, "{} corpus lines", lines.len());
    let records: Vec<InputRecord> = lines
        .into_iter()
        .enumerate()
        .map(|(i, s)| InputRecord {
            line: i as u64 + 1,
            observed: s,
            source: (i % 2) as u32,
            kept: vec![format!("k{i}")],
            ..InputRecord::default()
        })
        .collect();
    let sources = ["a".to_string(), "b".to_string()];
    let set = urlkey::PolicySet::builtin();
    for id in urlkey::internals::policy::builtin_variants() {
        let p = set.get(&id).unwrap();
        let mut g = Grouping::new(&id, false, false);
        let mut buf = KeyBuffers::default();
        for r in &records {
            g.insert_counted(Counted::key(&p, r, false, false, &mut buf))
                .unwrap();
        }
        g.close();
        let (mut lean, mut valid) = (LeanRow::default(), 0);
        for r in &records {
            let o = outcome_of(&p, r);
            let full = outcome_row(&g, r, &o, false, &sources);
            if lean.key(&p, r) {
                valid += 1;
                let row = lean_row(&g, r, &lean, &sources);
                let json = |m: &MapRow<'_>| serde_json::to_string(m).unwrap();
                assert_eq!(json(&row), json(&full), "{id} {:?}", r.observed);
                assert_eq!(row.tail(), full.tail(), "{id} {:?}", r.observed);
            } else {
                assert!(o.key.is_none(), "{id} {:?}", r.observed);
            }
        }
        assert!(valid > 10_000, "{id}: {valid} valid");
    }
}
