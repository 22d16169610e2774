//! `urlkey redirects propose`: for each old URL, the new URL its content most likely
//! moved to, with the evidence for it, for a person to accept or reject.
//!
//! The new inventory is indexed once ([`NewSite`]); each old URL is then looked up in the
//! indexes, never compared with every new URL.

pub mod evidence;

use hashbrown::HashMap;
use urlkey::Policy;

pub use evidence::{Evidence, EvidenceKind, EVIDENCE};

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
}

/// The new inventory, indexed.
pub struct NewSite {
    policy: Policy,
    exact: HashMap<String, usize>,
    by_key: HashMap<String, usize>,
    pages: Vec<Page>,
}

impl NewSite {
    /// An empty inventory keyed under `policy`.
    pub fn new(policy: Policy) -> NewSite {
        NewSite {
            policy,
            exact: HashMap::new(),
            by_key: HashMap::new(),
            pages: Vec::new(),
        }
    }

    /// Adds a page of the new site.
    pub fn add(&mut self, page: Page) {
        let i = self.pages.len();
        self.exact.entry(page.url.clone()).or_insert(i);
        if let Some(key) = self.policy.key(&page.url).key {
            self.by_key.entry(key).or_insert(i);
        }
        self.pages.push(page);
    }

    /// The proposal for one old page.
    pub fn propose(&self, old: &Page) -> Proposal {
        let mut p = Proposal {
            status: Status::None,
            target: None,
            evidence: Vec::new(),
            score: 0.0,
            runner_up: None,
            runner_up_score: None,
            ambiguous: false,
            error_code: None,
        };
        if self.exact.contains_key(&old.url) {
            p.status = Status::Served;
            p.target = Some(old.url.clone());
            return p;
        }
        let outcome = self.policy.key(&old.url);
        let Some(key) = outcome.key else {
            p.status = Status::Invalid;
            p.error_code = outcome.error.map(|e| e.code.as_str());
            return p;
        };
        if let Some(&i) = self.by_key.get(&key) {
            p.status = Status::SameKey;
            p.target = Some(self.pages[i].url.clone());
            p.evidence.push(Evidence {
                kind: EvidenceKind::SameKey,
                detail: format!("the same key under {}", self.policy.id()),
            });
            p.score = 1.0;
        }
        p
    }
}
