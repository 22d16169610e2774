//! The verified fast parse (`urlkey::fast`, issue 19 target 3) against ada on arbitrary
//! bytes: whenever `FastUrl::parse` accepts a text, ada parses it to the same components
//! (href included), and every builtin that takes the fast path gives the same outcome,
//! lean key, code and signature with the fast path off. The same checks as
//! `crates/urlkey/tests/fast_path.rs`, which runs them on fixed and generated inputs.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let x = urlkey_fuzz::text(data);
    urlkey_fuzz::check_fast_path(&x);
});
