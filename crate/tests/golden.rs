//! Every gallery scenario (`scenarios/*.json`) against its golden output
//! (`scenarios/*.expected.json`). Regenerate with `bash scripts/bless.sh`.

use std::path::PathBuf;

fn scenarios_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios")
}

#[test]
fn gallery_matches_golden_files() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(scenarios_dir())
        .expect("scenarios/ exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|x| x == "json")
                && !p.to_string_lossy().ends_with(".expected.json")
        })
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no scenarios found");
    let mut failures = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let got = match joinlab::run_json(&text, false) {
            Ok(r) => {
                let mut s = serde_json::to_string_pretty(&r).unwrap();
                s.push('\n');
                s
            }
            Err(e) => {
                failures.push(format!("{}: {e}", f.display()));
                continue;
            }
        };
        let stem = f.file_stem().unwrap().to_string_lossy().to_string();
        let expected = f.with_file_name(format!("{stem}.expected.json"));
        match std::fs::read_to_string(&expected) {
            Ok(want) if want == got => {}
            Ok(want) => {
                let line = want
                    .lines()
                    .zip(got.lines())
                    .position(|(a, b)| a != b)
                    .map(|i| i + 1)
                    .unwrap_or(want.lines().count().min(got.lines().count()) + 1);
                failures.push(format!("{}: differs from {} (first difference at line {line}); run `bash scripts/bless.sh` and review `git diff scenarios/`", f.display(), expected.display()));
            }
            Err(_) => failures.push(format!("{}: missing {}", f.display(), expected.display())),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} scenarios failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

#[test]
fn every_gallery_scenario_has_title_and_description() {
    for e in std::fs::read_dir(scenarios_dir()).unwrap() {
        let p = e.unwrap().path();
        let name = p.to_string_lossy().to_string();
        if !name.ends_with(".json") || name.ends_with(".expected.json") {
            continue;
        }
        let sc =
            joinlab::scenario::Scenario::from_json(&std::fs::read_to_string(&p).unwrap()).unwrap();
        assert!(!sc.title.trim().is_empty(), "{name} has no title");
        assert!(
            sc.description.trim().len() > 40,
            "{name} needs a description that explains it"
        );
    }
}

/// The result writes its outputs from the simulator's compact rows (`joinlab::outputs`); the
/// same outputs built as `Output` structs (what code reading them as a slice gets) must write
/// the very same JSON, traced or not, for every gallery scenario.
#[test]
fn compact_outputs_write_what_built_outputs_write() {
    let mut checked = 0;
    for e in std::fs::read_dir(scenarios_dir()).unwrap() {
        let p = e.unwrap().path();
        let name = p.to_string_lossy().to_string();
        if !name.ends_with(".json") || name.ends_with(".expected.json") {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        for trace in [false, true] {
            let Ok(r) = joinlab::run_json(&text, trace) else {
                continue;
            };
            let compact = serde_json::to_string(&r).unwrap();
            let built = r.clone();
            assert!(built.outputs.views().is_some(), "{name}: built too early");
            assert_eq!(built.outputs[..].len(), r.outputs.len());
            assert!(built.outputs.views().is_none(), "{name}: not built");
            assert_eq!(
                serde_json::to_string(&built).unwrap(),
                compact,
                "{name} (trace {trace})"
            );
            assert_eq!(built, r, "{name} (trace {trace})");
            checked += 1;
        }
    }
    assert!(checked > 20, "only {checked} runs checked");
}
