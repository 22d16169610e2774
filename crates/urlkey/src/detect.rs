//! Seed 001: does a piece of text look like a web address? (in progress)
