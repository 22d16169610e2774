//! The commands, each turning flags into settings and running the work.

pub mod completions;
pub mod diff;
pub mod explain;
pub mod info;
pub mod inspect;
pub mod key;
pub mod ledger;
pub mod man;
pub mod map;
pub mod redirects;
pub mod rules;
pub mod setup;
