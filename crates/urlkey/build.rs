//! Lists the builtin policies: every `src/policy/builtin/<name>.rs` (but `mod.rs`) is one
//! policy with a `POLICY` constant. Adding a policy is adding its file; nothing else keeps a
//! list of them.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/policy/builtin");
    // A directory here is watched whole: a new file reruns the script.
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            let stem = path.file_stem()?.to_str()?.to_string();
            (path.extension()? == "rs" && stem != "mod").then_some(stem)
        })
        .collect();
    // read_dir's order is the file system's: sort for a reproducible build.
    names.sort();
    let mut out = String::new();
    for name in &names {
        let path = dir.join(format!("{name}.rs"));
        writeln!(
            out,
            "#[path = {:?}]\npub(crate) mod {name};",
            path.display().to_string()
        )
        .expect("write to a String");
    }
    let list: Vec<String> = names.iter().map(|n| format!("&{n}::POLICY")).collect();
    writeln!(
        out,
        "/// Every builtin's definition, in file-name order.\nconst FILES: [&Builtin; {}] = [{}];",
        names.len(),
        list.join(", ")
    )
    .expect("write to a String");
    let target = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("builtin_registry.rs");
    std::fs::write(&target, out).unwrap_or_else(|e| panic!("{}: {e}", target.display()));
}
