//! `urlkey redirects propose`: for each old URL, the new URL its content most likely
//! moved to, with the evidence for it, for a person to accept or reject.
//!
//! The new inventory is indexed once ([`NewSite`]): by exact URL, key under the run's
//! policy, key under the loose policy, loose path, title, stem (and each page's last
//! segment) and words
//! (`index.rs`: values shared by more than [`COMMON`] pages name none). Each old URL is
//! then looked up in the indexes, never compared with every new URL: its candidates are
//! the pages the lookups name, each with the evidence that named it
//! ([`EVIDENCE`], strongest first), ranked by the score that evidence gives
//! ([`evidence::score`]).
//!
//! The files: `evidence.rs` (the table and the score), `features.rs` (what is read of a
//! path and a title), `index.rs` (the indexes), `rank.rs` (candidates and their ranking),
//! `rows.rs` (a proposal as a row, shared by the CLI and the web page), `writer.rs` (rows
//! to bytes), `run.rs` (a whole run over two inputs read by `urlkey_batch`), `parquet.rs`
//! (feature `parquet`).

pub mod evidence;
mod features;
mod index;
#[cfg(feature = "parquet")]
pub mod parquet;
mod rank;
pub mod rows;
pub mod run;
pub mod writer;

use urlkey::Policy;

pub use evidence::{Evidence, EvidenceInfo, EvidenceKind, EVIDENCE};
pub use index::{COMMON, COMMON_WORD};
pub use rank::AMBIGUOUS_WITHIN;

use index::{fingerprint, Index, Words};

/// The looser builtin of `same-key-loose`: the loosest of the builtins (registrable
/// domain, scheme inferred, path case and escapes folded, default documents and the
/// trailing slash dropped).
pub const LOOSE_POLICY: &str = "webkey@1";

/// Pages whose values [`NewSite::add_all`] computes at once.
const ADD_SLICE: usize = 16 * 1024;

/// A page of an inventory: its URL as written, and its title when the inventory has one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Page {
    /// The URL as written.
    pub url: String,
    /// The page's title (`--title-column`).
    pub title: Option<String>,
}

/// What `propose` found for one old URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The new inventory has this exact URL: no redirect needed.
    Served,
    /// The new inventory has another spelling of the same key: that spelling is the target.
    SameKey,
    /// The best target by evidence.
    Candidate,
    /// No evidence for any target.
    None,
    /// The old URL has no key under the policy (`error_code` says why).
    Invalid,
}

impl Status {
    /// Every status, in the order of the summary.
    pub const ALL: [Status; 5] = [
        Status::Served,
        Status::SameKey,
        Status::Candidate,
        Status::None,
        Status::Invalid,
    ];

    /// The name in rows.
    pub const fn as_str(self) -> &'static str {
        match self {
            Status::Served => "served",
            Status::SameKey => "same-key",
            Status::Candidate => "candidate",
            Status::None => "none",
            Status::Invalid => "invalid",
        }
    }

    /// The status of that name.
    pub fn parse(name: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

/// The proposal for one old URL.
#[derive(Debug, Clone, PartialEq)]
pub struct Proposal {
    /// What was found.
    pub status: Status,
    /// The proposed target, as the new inventory writes it.
    pub target: Option<String>,
    /// Why that target, strongest first.
    pub evidence: Vec<Evidence>,
    /// The target's score (from its evidence; 0 without a target).
    pub score: f64,
    /// The next best target.
    pub runner_up: Option<String>,
    /// Its score.
    pub runner_up_score: Option<f64>,
    /// Two targets tie, or the runner-up is close: a person must look.
    pub ambiguous: bool,
    /// For [`Status::Invalid`]: the error code.
    pub error_code: Option<&'static str>,
    /// The target's title, when the new inventory has titles.
    pub target_title: Option<String>,
}

impl Proposal {
    /// The proposal for an old record the reader could not read whole (an over-long
    /// line, bad bytes): `invalid` with the reader's error code.
    pub fn unreadable(error_code: &'static str) -> Proposal {
        Proposal {
            error_code: Some(error_code),
            ..Proposal::empty(Status::Invalid)
        }
    }

    fn empty(status: Status) -> Proposal {
        Proposal {
            status,
            target: None,
            evidence: Vec::new(),
            score: 0.0,
            runner_up: None,
            runner_up_score: None,
            ambiguous: false,
            error_code: None,
            target_title: None,
        }
    }
}

/// What is indexed of one page (computed apart from the indexes, so that many pages can
/// be read at once).
pub(crate) struct Features {
    exact: u128,
    key: Option<String>,
    loose: Option<String>,
    path: String,
    title: Option<String>,
    stem: Option<String>,
    segment: Option<String>,
    words: Vec<u64>,
    error_code: Option<&'static str>,
}

/// What the indexes keep of one new page: its values' fingerprints.
struct Prints {
    exact: u128,
    key: Option<u128>,
    loose: Option<u128>,
    path: u128,
    title: Option<u128>,
    stem: Option<u128>,
    segment: u64,
    words: Vec<u64>,
}

impl Prints {
    fn of(f: &Features) -> Prints {
        let fp = |v: &Option<String>| v.as_deref().map(fingerprint);
        Prints {
            exact: f.exact,
            key: fp(&f.key),
            loose: fp(&f.loose),
            path: fingerprint(&f.path),
            title: fp(&f.title),
            stem: fp(&f.stem),
            segment: f.segment.as_deref().map_or(0, features::word_id),
            words: f.words.clone(),
        }
    }
}

/// The new inventory, indexed.
pub struct NewSite {
    policy: Policy,
    loose: Option<Policy>,
    pages: Vec<Page>,
    exact: Index,
    by_key: Index,
    by_loose: Index,
    by_path: Index,
    by_title: Index,
    by_stem: Index,
    /// Per page: its last segment's [`features::word_id`] (0 without one).
    segment_ids: Vec<u64>,
    words: Words,
    /// Every page's words ([`features::words`]), one after another: page `i`'s are
    /// `page_words[word_at[i]..word_at[i + 1]]`.
    page_words: Vec<u64>,
    word_at: Vec<usize>,
    invalid: u64,
}

impl NewSite {
    /// An empty inventory keyed under `policy`, with [`LOOSE_POLICY`] from the builtin
    /// policies for `same-key-loose` ([`NewSite::with_loose`] gives another).
    pub fn new(policy: Policy) -> NewSite {
        let loose = urlkey::PolicySet::builtin().get(LOOSE_POLICY).ok();
        NewSite::with_loose(policy, loose)
    }

    /// An empty inventory keyed under `policy`, and under `loose` for `same-key-loose`
    /// (none when `loose` is `None` or the same policy as `policy`).
    pub fn with_loose(policy: Policy, loose: Option<Policy>) -> NewSite {
        let loose = loose.filter(|l| l.id() != policy.id());
        NewSite {
            policy,
            loose,
            pages: Vec::new(),
            exact: Index::default(),
            by_key: Index::default(),
            by_loose: Index::default(),
            by_path: Index::default(),
            by_title: Index::default(),
            by_stem: Index::default(),
            segment_ids: Vec::new(),
            words: Words::default(),
            page_words: Vec::new(),
            word_at: vec![0],
            invalid: 0,
        }
    }

    /// The run's policy.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The loose policy's id, when `same-key-loose` is looked for.
    pub fn loose_policy(&self) -> Option<&str> {
        self.loose.as_ref().map(Policy::id)
    }

    /// Pages added.
    pub fn len(&self) -> usize {
        self.pages.len()
    }

    /// Whether no page was added.
    pub fn is_empty(&self) -> bool {
        self.pages.is_empty()
    }

    /// Pages added that have no key under the policy (still found by their exact URL and
    /// their path).
    pub fn invalid(&self) -> u64 {
        self.invalid
    }

    /// Adds a page of the new site.
    pub fn add(&mut self, page: Page) {
        if !self.has_room(1) {
            return;
        }
        let p = Prints::of(&self.features(&page));
        self.insert_all(self.pages.len(), std::slice::from_ref(&p), false);
        self.pages.push(page);
    }

    /// Adds pages, reading them on up to `threads` threads (0: one per core); the same
    /// indexes as [`NewSite::add`] one by one. Give every page in one call where you can:
    /// the indexes then make room for all of them at once, where indexes grown call by
    /// call copy their tables at each doubling, into fresh memory that the system must
    /// clear first (a third of the time of indexing 1M pages, docs/benchmarks.md).
    pub fn add_all(&mut self, pages: Vec<Page>, threads: usize) {
        if !self.has_room(pages.len()) {
            return;
        }
        self.reserve(&pages);
        let mut first = self.pages.len();
        // In slices: the values of one slice at a time are held besides the indexes.
        for slice in pages.chunks(ADD_SLICE) {
            let prints = parallel_map(slice, threads, |p| Prints::of(&self.features(p)));
            self.insert_all(first, &prints, threads != 1);
            first += slice.len();
        }
        self.pages.extend(pages);
    }

    /// Whether `n` more pages can be numbered with 32 bits, as the indexes number them
    /// (4 billion pages: beyond any site).
    fn has_room(&self, n: usize) -> bool {
        u32::try_from(self.pages.len() + n).is_ok()
    }

    /// Room in every index for `pages` more pages, each index sized for the values it
    /// will get (a loose key only under a loose policy, a title only on a titled page).
    fn reserve(&mut self, pages: &[Page]) {
        let n = pages.len();
        let titled = pages.iter().filter(|p| p.title.is_some()).count();
        let loose = if self.loose.is_some() { n } else { 0 };
        self.exact.reserve(n, n);
        self.by_key.reserve(n, n);
        self.by_loose.reserve(loose, n);
        self.by_path.reserve(n, n);
        self.by_title.reserve(titled, n);
        self.by_stem.reserve(n, n);
        self.pages.reserve(n);
        self.segment_ids.reserve(n);
        self.word_at.reserve(n);
    }

    /// Frees the indexes' spare capacity: call once every page is added.
    pub fn shrink(&mut self) {
        self.words.shrink();
        for ix in [
            &mut self.exact,
            &mut self.by_key,
            &mut self.by_loose,
            &mut self.by_path,
            &mut self.by_title,
            &mut self.by_stem,
        ] {
            ix.shrink();
        }
        self.pages.shrink_to_fit();
        self.page_words.shrink_to_fit();
        self.segment_ids.shrink_to_fit();
        self.word_at.shrink_to_fit();
    }

    /// Page `i`'s words.
    fn words_of(&self, i: u32) -> &[u64] {
        let i = i as usize;
        &self.page_words[self.word_at[i]..self.word_at[i + 1]]
    }

    /// The words of each of `pages`. Each list is a read from anywhere in memory: its
    /// bounds are read for every page first, then the first word of every list, before any
    /// list is compared, so that the processor waits on all of them at once instead of
    /// one after another (the loads of one pass do not depend on each other). A third of
    /// the time of ranking went to these reads, one candidate at a time.
    fn words_of_all(&self, pages: &[(u32, u16)]) -> Vec<&[u64]> {
        let lists: Vec<&[u64]> = pages.iter().map(|&(p, _)| self.words_of(p)).collect();
        let mut touched = 0u64;
        for l in &lists {
            touched ^= l.first().copied().unwrap_or_default();
        }
        std::hint::black_box(touched);
        lists
    }

    pub(crate) fn features(&self, page: &Page) -> Features {
        let mut key = String::new();
        let (key, error_code) = match self.policy.key_into(&page.url, &mut key) {
            Ok(()) => (Some(key), None),
            Err(code) => (None, Some(code.as_str())),
        };
        let loose = self.loose.as_ref().and_then(|l| {
            let mut k = String::new();
            l.key_into(&page.url, &mut k).ok().map(|()| k)
        });
        let segment = features::last_segment(&page.url);
        let stem = segment.as_deref().map(|s| features::stem_of(s).to_string());
        Features {
            exact: fingerprint(page.url.trim()),
            key,
            loose,
            path: features::loose_path(&page.url),
            title: page.title.as_deref().and_then(features::normalized_title),
            stem,
            segment,
            words: features::words(&page.url),
            error_code,
        }
    }

    /// Adds the values of the pages numbered from `first` to the indexes, in order; with `parallel`, half of
    /// the indexes on a second thread (each index is filled in page order either way).
    fn insert_all(&mut self, first: usize, prints: &[Prints], parallel: bool) {
        // Numbered with 32 bits: `has_room` was asked first.
        let ids = (first as u32)..(first + prints.len()) as u32;
        let NewSite {
            exact,
            by_key,
            by_loose,
            by_path,
            by_title,
            by_stem,
            segment_ids,
            words,
            page_words,
            word_at,
            ..
        } = self;
        let keys = {
            let ids = ids.clone();
            move || {
                for (i, p) in ids.zip(prints) {
                    exact.add(i, Some(p.exact));
                    by_key.add(i, p.key);
                    by_loose.add(i, p.loose);
                    by_path.add(i, Some(p.path));
                }
            }
        };
        let paths = move || {
            for (i, p) in ids.zip(prints) {
                by_title.add(i, p.title);
                by_stem.add(i, p.stem);
                segment_ids.push(p.segment);
                words.add(i, &p.words);
                page_words.extend_from_slice(&p.words);
                word_at.push(page_words.len());
            }
        };
        if parallel {
            std::thread::scope(|s| {
                let h = s.spawn(keys);
                paths();
                if let Err(e) = h.join() {
                    std::panic::resume_unwind(e);
                }
            });
        } else {
            keys();
            paths();
        }
        self.invalid += prints.iter().filter(|p| p.key.is_none()).count() as u64;
    }

    /// The proposal for one old page.
    pub fn propose(&self, old: &Page) -> Proposal {
        rank::propose(self, old)
    }

    /// The proposals for many old pages, in their order, on up to `threads` threads (0: one
    /// per core).
    pub fn propose_all(&self, old: &[Page], threads: usize) -> Vec<Proposal> {
        parallel_map(old, threads, |p| self.propose(p))
    }
}

/// `f` over `items` in order, in chunks on up to `threads` scoped threads.
fn parallel_map<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    parallel_chunks(items, threads, |c| c.iter().map(&f).collect::<Vec<R>>())
        .into_iter()
        .flatten()
        .collect()
}

/// `f` over consecutive chunks of `items` (one per thread, in order) on up to `threads`
/// scoped threads (0: one per core); one chunk for a short input or one thread.
pub(crate) fn parallel_chunks<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&[T]) -> R + Sync,
) -> Vec<R> {
    let threads = match threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    if threads <= 1 || items.len() < 256 {
        return vec![f(items)];
    }
    let chunk = items.len().div_ceil(threads);
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> = items.chunks(chunk).map(|c| s.spawn(move || f(c))).collect();
        handles
            .into_iter()
            .map(|h| match h.join() {
                Ok(v) => v,
                // A panic in `f` is a bug: carry it to the caller rather than lose rows.
                Err(e) => std::panic::resume_unwind(e),
            })
            .collect()
    })
}
