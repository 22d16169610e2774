//! The verified fast parse and the early refusal of other schemes (`urlkey::internals::fast`)
//! against ada on arbitrary bytes: whenever `FastUrl::parse` accepts a text, ada parses
//! it to the same components (href included); whenever `non_web_scheme_that_parses` takes
//! it, ada parses it with that scheme; and every builtin that takes either gives the same
//! outcome, lean key, code and signature with both off. The assertions are
//! `urlkey_fuzz::check_fast_path` (`fuzz/src/lib.rs`); `crates/urlkey/tests/fast_path.rs`
//! makes the same comparisons on every file of the committed minimized corpus
//! `fuzz/replay/fast_path/`.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    urlkey_fuzz::check_fast_path(data);
});
