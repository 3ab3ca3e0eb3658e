//! Scenarios Flink does not run as written (`scenarios/rejected/*.json`): each must fail with
//! the text in `NAME.expected-error.txt` beside it (Flink's own planner message first).

use std::path::PathBuf;

#[test]
fn rejected_scenarios_fail_with_flinks_message() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios/rejected");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("scenarios/rejected exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read");
        let sc = joinlab::scenario::Scenario::from_json(&text).expect("a scenario");
        assert!(sc.description.len() > 40, "{}: explain it", f.display());
        let err = match joinlab::run(&sc, false) {
            Ok(_) => panic!("{} runs, but Flink plans no such operator", f.display()),
            Err(e) => e.to_string(),
        };
        let want = std::fs::read_to_string(f.with_extension("expected-error.txt"))
            .unwrap_or_else(|_| panic!("{}: no .expected-error.txt", f.display()));
        assert_eq!(err.trim_end(), want.trim_end(), "{}", f.display());
        // Exporting it fails the same way (no job for a plan Flink does not make).
        assert!(joinlab::export::export(&sc, joinlab::export::ExportKind::FlinkSql).is_err());
    }
}
