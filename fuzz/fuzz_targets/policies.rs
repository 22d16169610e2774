//! Every builtin policy on arbitrary bytes: never a panic, and the properties of
//! `urlkey_fuzz::check_outcome` (idempotence, real transformations, URL keys are URLs).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let x = urlkey_fuzz::text(data);
    urlkey_fuzz::check_all_policies(&x);
});
