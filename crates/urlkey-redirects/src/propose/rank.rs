//! One old URL's candidates, their evidence and their ranking.
//!
//! The candidates are the new pages the indexes name for the old URL's features; each
//! gets every kind of evidence whose index named it, and `shared-tokens` when its words
//! are close enough. They are ranked by score (the strongest evidence first, then the
//! bonus: [`super::evidence::score`]), then by their order in the new inventory, so
//! that a run gives the same rows every time.

use hashbrown::HashMap;

use super::evidence::{score, Evidence, EvidenceKind};
use super::features::{self, shared};
use super::index::fingerprint;
use super::{NewSite, Page, Proposal, Status};

/// The runner-up is close when its score is within this many points of the target's:
/// then `ambiguous` is true. One point is less than one more kind of evidence, so two
/// targets are ambiguous when they have the same evidence and differ at most in their
/// word similarity.
pub const AMBIGUOUS_WITHIN: f64 = 1.0;

/// `shared-tokens`: at least this many words in common...
const MIN_SHARED_WORDS: usize = 2;
/// ...and at least this Jaccard similarity (shared words / words of either).
const MIN_SIMILARITY: f64 = 0.3;
/// The pages with the most shared rare words whose similarity is computed.
const WORD_CANDIDATES: usize = 50;

/// A candidate: its page, its kinds of evidence (bits by kind), its word similarity.
struct Candidate {
    page: u32,
    kinds: u16,
    shared: usize,
    words: usize,
    similarity: f64,
    score: f64,
}

fn bit(k: EvidenceKind) -> u16 {
    1 << (k as u16)
}

pub(super) fn propose(site: &NewSite, old: &Page) -> Proposal {
    let url = old.url.trim();
    // The first page of the new inventory with this exact URL.
    let exact = site
        .exact
        .each(fingerprint(url))
        .filter(|&i| site.pages[i as usize].url.trim() == url)
        .min();
    if let Some(i) = exact {
        let page = &site.pages[i as usize];
        return Proposal {
            target: Some(page.url.clone()),
            evidence: vec![Evidence {
                kind: EvidenceKind::Served,
                detail: "the new inventory has this exact URL".into(),
            }],
            score: score(&[EvidenceKind::Served], 0.0),
            target_title: page.title.clone(),
            ..Proposal::empty(Status::Served)
        };
    }
    let f = site.features(old);
    let Some(key) = &f.key else {
        return Proposal {
            error_code: f.error_code,
            ..Proposal::empty(Status::Invalid)
        };
    };
    // Each index names its pages; a page named by several has all their evidence.
    // Gathered as (page, kind) pairs, then sorted by page with each page's kinds merged:
    // cheaper than a hash map for the few hundred pages at most that the indexes name
    // (each value names at most COMMON), and the candidates come out in page order.
    let mut found: Vec<(u32, u16)> = Vec::new();
    let mut look = |ix: &super::Index, value: Option<&str>, kind: EvidenceKind| {
        if let Some(v) = value {
            found.extend(ix.each(fingerprint(v)).map(|p| (p, bit(kind))));
        }
    };
    look(&site.by_key, Some(key), EvidenceKind::SameKey);
    look(
        &site.by_loose,
        f.loose.as_deref(),
        EvidenceKind::SameKeyLoose,
    );
    look(&site.by_path, Some(&f.path), EvidenceKind::SamePath);
    look(&site.by_title, f.title.as_deref(), EvidenceKind::SameTitle);
    look(&site.by_stem, f.stem.as_deref(), EvidenceKind::SameStem);
    merge_by_page(&mut found);
    // An equal last segment has an equal stem: its pages are among the stem's.
    if let Some(seg) = f.segment.as_deref() {
        let id = features::word_id(seg);
        for (p, kinds) in found.iter_mut() {
            if *kinds & bit(EvidenceKind::SameStem) != 0 && site.segment_ids[*p as usize] == id {
                *kinds |= bit(EvidenceKind::SameLastSegment);
            }
        }
    }
    // Words: the pages sharing at least two of the old URL's rare words, most first. A
    // candidate found by words alone scores at most 30 points, below any other evidence:
    // with two candidates already, it could be neither the target nor the runner-up.
    if found.len() < 2 {
        let mut by_words: HashMap<u32, u32> = HashMap::new();
        for w in &f.words {
            for &p in site.words.pages(*w) {
                *by_words.entry(p).or_default() += 1;
            }
        }
        let mut by_words: Vec<(u32, u32)> = by_words
            .into_iter()
            .filter(|&(_, n)| n as usize >= MIN_SHARED_WORDS)
            .collect();
        by_words.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        for (p, _) in by_words.into_iter().take(WORD_CANDIDATES) {
            found.push((p, 0));
        }
        merge_by_page(&mut found);
    }
    // Only the target and the runner-up are written: a candidate whose best possible
    // score (its evidence without words, plus at most 1 for them; 30 for words alone)
    // is below the second best score without words cannot be either, and its words are
    // not compared (they are the costly part: a page's words are a read from memory).
    let bases: Vec<(u32, u16, f64)> = found
        .into_iter()
        .map(|(page, kinds)| (page, kinds, score_of(kinds, 0.0)))
        .collect();
    let second = {
        let (mut a, mut b) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
        for &(_, _, s) in &bases {
            if s > a {
                (a, b) = (s, a);
            } else if s > b {
                b = s;
            }
        }
        b
    };
    let best_possible = |kinds: u16, base: f64| {
        if kinds == 0 {
            f64::from(EvidenceKind::SharedTokens.info().points)
        } else {
            base + 1.0
        }
    };
    let kept: Vec<(u32, u16)> = bases
        .into_iter()
        .filter(|&(_, kinds, base)| best_possible(kinds, base) >= second)
        .map(|(page, kinds, _)| (page, kinds))
        .collect();
    let lists = site.words_of_all(&kept);
    let mut cands: Vec<Candidate> = kept
        .into_iter()
        .zip(lists)
        .map(|((page, mut kinds), words)| {
            let n = shared(&f.words, words);
            let union = f.words.len() + words.len() - n;
            let similarity = if union == 0 {
                0.0
            } else {
                n as f64 / union as f64
            };
            if n >= MIN_SHARED_WORDS && similarity >= MIN_SIMILARITY {
                kinds |= bit(EvidenceKind::SharedTokens);
            }
            Candidate {
                page,
                kinds,
                shared: n,
                words: union,
                similarity,
                score: score_of(kinds, similarity),
            }
        })
        .filter(|c| c.kinds != 0)
        .collect();
    cands.sort_unstable_by(|a, b| b.score.total_cmp(&a.score).then(a.page.cmp(&b.page)));
    let Some(best) = cands.first() else {
        return Proposal::empty(Status::None);
    };
    let page = &site.pages[best.page as usize];
    let runner = cands.get(1);
    let kinds = kinds_of(best.kinds);
    Proposal {
        status: if kinds[0] == EvidenceKind::SameKey {
            Status::SameKey
        } else {
            Status::Candidate
        },
        target: Some(page.url.clone()),
        evidence: kinds
            .iter()
            .map(|&k| Evidence {
                kind: k,
                detail: detail(site, k, old, &f, best, page),
            })
            .collect(),
        score: best.score,
        runner_up: runner.map(|r| site.pages[r.page as usize].url.clone()),
        runner_up_score: runner.map(|r| r.score),
        ambiguous: runner.is_some_and(|r| best.score - r.score < AMBIGUOUS_WITHIN),
        error_code: None,
        target_title: page.title.clone(),
    }
}

/// Sorts `(page, kinds)` pairs by page and merges each page's kinds into one pair.
fn merge_by_page(found: &mut Vec<(u32, u16)>) {
    found.sort_unstable_by_key(|&(p, _)| p);
    found.dedup_by(|later, kept| {
        if later.0 == kept.0 {
            kept.1 |= later.1;
            true
        } else {
            false
        }
    });
}

/// [`score`] of the kinds of a bit set, with nothing allocated: it runs for every
/// candidate of every old URL.
fn score_of(bits: u16, similarity: f64) -> f64 {
    let mut kinds = [EvidenceKind::Served; 16];
    let mut n = 0;
    for e in super::EVIDENCE {
        if bits & bit(e.kind) != 0 && n < kinds.len() {
            kinds[n] = e.kind;
            n += 1;
        }
    }
    score(&kinds[..n], similarity)
}

/// The kinds of a bit set, strongest first.
fn kinds_of(bits: u16) -> Vec<EvidenceKind> {
    super::EVIDENCE
        .iter()
        .map(|e| e.kind)
        .filter(|&k| bits & bit(k) != 0)
        .collect()
}

/// What was found, for a person.
fn detail(
    site: &NewSite,
    kind: EvidenceKind,
    old: &Page,
    f: &super::Features,
    c: &Candidate,
    target: &Page,
) -> String {
    let quoted = |s: &str| format!("{s:?}");
    match kind {
        EvidenceKind::Served => "the new inventory has this exact URL".into(),
        EvidenceKind::SameKey => format!(
            "key {} under {}",
            f.key.as_deref().unwrap_or_default(),
            site.policy.id()
        ),
        EvidenceKind::SameKeyLoose => format!(
            "key {} under {}",
            f.loose.as_deref().unwrap_or_default(),
            site.loose_policy().unwrap_or_default()
        ),
        EvidenceKind::SamePath => {
            format!("loose path {}", quoted(&format!("/{}", f.path)))
        }
        EvidenceKind::SameTitle => {
            format!("title {}", quoted(f.title.as_deref().unwrap_or_default()))
        }
        EvidenceKind::SameStem | EvidenceKind::SameLastSegment => {
            let what = if kind == EvidenceKind::SameStem {
                f.stem.as_deref()
            } else {
                f.segment.as_deref()
            };
            let (from, to) = (features::folder(&old.url), features::folder(&target.url));
            // A folder that only changed case has not moved (lowercased paths).
            if from.to_lowercase() == to.to_lowercase() {
                format!("{} in {to}", quoted(what.unwrap_or_default()))
            } else {
                format!(
                    "{} moved from {from} to {to}",
                    quoted(what.unwrap_or_default())
                )
            }
        }
        EvidenceKind::SharedTokens => format!(
            "{} of {} words (jaccard {:.2})",
            c.shared, c.words, c.similarity
        ),
    }
}
