//! What an inventory gains and loses when it moves from one policy to another
//! (`urlkey diff --from P --to Q`, the Mapper's policy pair in `urlkey serve`), and what
//! changed between two inventories under one policy (`urlkey diff --policy P OLD NEW`,
//! [`inventories`]).
//!
//! Every record is keyed under both policies. A *merge* is a Q-key reached from several
//! P-keys; a *split* is a P-key that becomes several Q-keys; a record is *changed* when its
//! key text changed but its group did not (its P-key and its Q-key correspond one to one).
//! Records valid under one policy only are counted apart. The rules responsible for a
//! merge are those that changed something under Q and not under P on its records (for a
//! split, the reverse).
//!
//! Both forms stream as `map` does ([`crate::map`]): pass one keeps a 128-bit fingerprint
//! per distinct key and whether it meets more than one key of the other side; pass two
//! keys every record again, classifies it, writes its row and gathers the report's
//! examples. Records are never held in memory ([`PolicyDiff`], for a list already in
//! memory, runs the same two passes over it).

pub mod inventories;
mod policies;
mod report;
pub mod rows;

pub use policies::{Class, DiffRun, PolicyDiff};
pub use report::{Counted, Example, Group, Report};

#[cfg(all(test, feature = "parquet"))]
mod row_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{records_from, ReadOptions, RecordSource};
    use crate::pipeline::Pipeline;

    /// LIST as an input.
    fn open_list() -> Result<Box<dyn RecordSource>, crate::input::InputError> {
        records_from(
            Box::new(LIST.as_bytes()),
            "list.txt".into(),
            &ReadOptions::default(),
        )
    }

    /// The pair of policies the tests compare.
    fn whatwg_to_document() -> (urlkey::Policy, urlkey::Policy) {
        let set = urlkey::PolicySet::builtin();
        (
            set.get("whatwg@1").expect("builtin"),
            set.get("document@1").expect("builtin"),
        )
    }

    const LIST: &str = "https://s.example/a/b\nhttps://s.example/a/./b\nhttps://s.example/a/b#f\nhttps://t.example/x#y\nnot a url\nhttps://t.example/z\n";

    /// The streamed run (on two workers, chunks of any size) and the in-memory one give
    /// the same report: the web page and the command cannot disagree.
    #[test]
    fn streamed_and_in_memory_reports_are_the_same() {
        let (from, to) = whatwg_to_document();
        let mut mem = PolicyDiff::new(&from, &to);
        for (i, l) in LIST.lines().enumerate() {
            mem.add_text(0, i as u64 + 1, l);
        }
        let names = ["list.txt".to_string()];
        let mem = serde_json::to_value(mem.finish(&names)).expect("json");
        let pipeline = Pipeline::new(2).expect("pipeline");
        let open = open_list;
        let run = DiffRun {
            from: &from,
            to: &to,
            pipeline: &pipeline,
            sources: &names,
            notice: None,
            limit: None,
            progress: None,
        };
        let mut streamed = serde_json::to_value(run.run(&open, None).expect("run")).expect("json");
        // Only the reader counts lines.
        assert_eq!(streamed["lines_read"], 6);
        streamed["lines_read"] = 0.into();
        assert_eq!(streamed, mem);
        assert_eq!(mem["by_class"]["merge_split"], 1);
        assert_eq!(
            mem["by_class"]["changed"], 1,
            "t.example/x#y loses its fragment alone"
        );
        assert_eq!(mem["by_class"]["invalid_both"], 1);
        assert_eq!(mem["unchanged"], 1);
    }

    /// `diff --from --to` reports its progress as `map` does: both passes, each ending
    /// at the input's last line (an in-memory reader counts no bytes: a file's are the
    /// bar's length).
    #[test]
    fn both_passes_report_progress_to_the_end_of_the_input() {
        use crate::map::Pass;
        let (from, to) = whatwg_to_document();
        let names = ["list.txt".to_string()];
        let pipeline = Pipeline::new(2).expect("pipeline");
        let open = open_list;
        let seen = std::sync::Mutex::new(Vec::new());
        let progress = |pass: Pass, lines: u64, bytes: u64| {
            seen.lock().expect("lock").push((pass, lines, bytes));
        };
        let run = DiffRun {
            from: &from,
            to: &to,
            pipeline: &pipeline,
            sources: &names,
            notice: None,
            limit: None,
            progress: Some(&progress),
        };
        run.run(&open, None).expect("run");
        let seen = seen.into_inner().expect("lock");
        for pass in [Pass::Counting, Pass::Writing] {
            let last = seen.iter().rfind(|(p, ..)| *p == pass).expect("reported");
            assert_eq!(last.1, 6, "{pass:?}: {seen:?}");
        }
        let first_writing = seen.iter().position(|(p, ..)| *p == Pass::Writing);
        assert!(
            seen[..first_writing.expect("writing")]
                .iter()
                .all(|(p, ..)| *p == Pass::Counting),
            "pass one before pass two: {seen:?}"
        );
    }

    /// `diff --policy OLD NEW` counts its progress across both sides, pass by pass.
    #[test]
    fn inventory_progress_counts_across_both_sides() {
        use crate::map::Pass;
        let (policy, _) = whatwg_to_document();
        let pipeline = Pipeline::new(1).expect("pipeline");
        let seen = std::sync::Mutex::new(Vec::new());
        let progress = |pass: Pass, lines: u64, _bytes: u64| {
            seen.lock().expect("lock").push((pass, lines));
        };
        let run = inventories::InventoryRun {
            policy: &policy,
            pipeline: &pipeline,
            names: ["old.txt", "new.txt"],
            notice: None,
            limit: None,
            progress: Some(&progress),
        };
        run.run([&open_list, &open_list], None).expect("run");
        let seen = seen.into_inner().expect("lock");
        for pass in [Pass::Counting, Pass::Writing] {
            let lines: Vec<u64> = seen
                .iter()
                .filter(|(p, _)| *p == pass)
                .map(|(_, l)| *l)
                .collect();
            assert_eq!(
                lines.last(),
                Some(&12),
                "{pass:?}: both sides' 6 lines: {seen:?}"
            );
            assert!(lines.windows(2).all(|w| w[0] <= w[1]), "{pass:?}: {seen:?}");
        }
    }
}
