//! `inspect` and `offsets` on arbitrary text: offsets are valid spans of the input (char
//! boundaries, in order), and the UTF-16 offsets are the UTF-16 lengths of the prefixes.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let x = urlkey_fuzz::text(data);
    let (set, _) = urlkey_fuzz::builtins();
    let webkey = set.get("webkey@1").unwrap();
    let i = urlkey::inspect(&x, set, &webkey);
    assert_eq!(i.input, *x);
    urlkey_fuzz::check_offsets(&x, &i.offsets);
    for written in [false, true] {
        let o = urlkey::internals::offsets::offsets(&x, written);
        urlkey_fuzz::check_offsets(&x, &o);
    }
    // The inspected keys are the policies' own keys.
    for k in &i.keys {
        let p = set.get(&k.policy).unwrap();
        assert_eq!(k.key, p.key(&x).key, "{}: {x:?}", k.policy);
    }
});
