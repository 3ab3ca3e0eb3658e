//! The diagnosis on the gallery: every fix a scenario's diagnosis offers, applied to the
//! scenario and re-run, removes the cause it was offered for; the lean and the traced result
//! carry the same diagnosis, and each cause's step exists in the trace.

use joinlab::diagnosis::{apply_fix, CauseKind};
use joinlab::scenario::Scenario;
use std::path::PathBuf;

fn gallery() -> Vec<(String, Scenario)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("scenarios/ exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|x| x == "json")
                && !p.to_string_lossy().ends_with(".expected.json")
        })
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            (
                f.file_name().unwrap().to_string_lossy().to_string(),
                Scenario::from_json(&text).unwrap(),
            )
        })
        .collect()
}

#[test]
fn every_gallery_fix_removes_its_cause() {
    let mut fixes = 0;
    let mut failures = Vec::new();
    for (name, sc) in gallery() {
        let r = joinlab::run(&sc, false).unwrap();
        let Some(d) = &r.diagnosis else { continue };
        for c in &d.causes {
            let Some(fix) = &c.fix else { continue };
            fixes += 1;
            let sc2 = match apply_fix(&sc, fix) {
                Ok(s) => s,
                Err(e) => {
                    failures.push(format!("{name}: {:?}: {e}", c.kind));
                    continue;
                }
            };
            let r2 = joinlab::run(&sc2, false).unwrap();
            let still: Vec<CauseKind> = r2
                .diagnosis
                .iter()
                .flat_map(|d| d.causes.iter().map(|c| c.kind))
                .collect();
            if still.contains(&c.kind) {
                failures.push(format!(
                    "{name}: {:?} still there after {:?}",
                    c.kind, fix.patch
                ));
            }
        }
    }
    assert!(fixes >= 5, "the gallery offers only {fixes} fixes");
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn lean_and_traced_diagnoses_agree_and_point_at_real_steps() {
    for (name, sc) in gallery() {
        let lean = joinlab::run(&sc, false).unwrap();
        let traced = joinlab::run(&sc, true).unwrap();
        assert_eq!(lean.diagnosis, traced.diagnosis, "{name}");
        let steps = traced.trace.as_ref().unwrap().len();
        for c in traced.diagnosis.iter().flat_map(|d| d.causes.iter()) {
            if let Some(s) = c.step {
                assert!(s < steps, "{name}: {:?} step {s} of {steps}", c.kind);
            }
        }
    }
}
