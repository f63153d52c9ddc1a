//! The programs the execution tests run: ids and where their text comes from.

use std::path::{Path, PathBuf};

use crate::common::genforms::{self, Form};

/// genmix programs per kind (seeds 1..=N), generated at test time.
pub const GENMIX_PER_KIND: u64 = 43;
pub const GENMIX_KINDS: [&str; 7] = ["vector", "matmul", "loop", "branch", "reduce", "scalar", "mixed"];

#[derive(Clone, Debug)]
pub enum Source {
    File(PathBuf),
    Genmix {
        kind: &'static str,
        seed: u64,
    },
    /// A genmix program in the form of `tests/common/genforms.rs`.
    GenForm {
        form: Form,
        kind: &'static str,
        seed: u64,
    },
    /// A case folder of `../shared/systests` (its `program.pto`, inputs and expected outputs).
    Systest(PathBuf),
}

#[derive(Clone, Debug)]
pub struct Program {
    /// `exec/<corpus>/<name>`.
    pub id: String,
    pub source: Source,
    /// Lit programs are included only if ptoc accepts them with `--emit cpp` (the folder also
    /// holds error tests); a refusal is then not a failure.
    pub optional: bool,
}

fn stem(p: &Path) -> String {
    p.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

fn files(dir: &Path, exts: &[&str]) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.flatten().map(|e| e.path()).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .filter(|p: &PathBuf| p.is_file() && p.extension().is_some_and(|e| exts.iter().any(|x| e == *x)))
        .collect();
    v.sort();
    v
}

/// Every program, sorted by corpus then name.
pub fn programs(root: &Path) -> Vec<Program> {
    let shared = root.join("../shared");
    let mut out = Vec::new();
    let mut add = |id: String, source: Source, optional: bool| out.push(Program { id, source, optional });
    for p in files(&root.join("examples"), &["pto"]) {
        add(format!("exec/examples/{}", stem(&p)), Source::File(p), false);
    }
    for p in files(&root.join("lit-tests/codegen"), &["pto"]) {
        add(format!("exec/lit/codegen/{}", stem(&p)), Source::File(p), true);
    }
    let mut cases: Vec<PathBuf> = std::fs::read_dir(shared.join("conformance-dsl"))
        .map(|rd| rd.flatten().map(|e| e.path().join("input.pto")).filter(|p| p.is_file()).collect())
        .unwrap_or_default();
    cases.sort();
    for p in cases {
        let case = p.parent().map(stem).unwrap_or_default();
        add(format!("exec/conformance-dsl/{case}"), Source::File(p), false);
    }
    for p in files(&shared.join("cpusim/programs"), &["pto", "py"]) {
        add(format!("exec/cpusim/{}", stem(&p)), Source::File(p), false);
    }
    for dir in super::systests::dirs(&shared) {
        add(
            format!("exec/systests/{}", dir.file_name().unwrap_or_default().to_string_lossy()),
            Source::Systest(dir),
            false,
        );
    }
    for kind in GENMIX_KINDS {
        for seed in 1..=GENMIX_PER_KIND {
            add(format!("exec/genmix/{kind}_s{seed}"), Source::Genmix { kind, seed }, false);
        }
    }
    for &(form, kind, seed) in genforms::EXEC_CORPUS {
        add(format!("{GENFORMS_PREFIX}{form}-{kind}-s{seed}"), Source::GenForm { form, kind, seed }, false);
    }
    out
}

/// Id prefix of the transformed genmix programs (`genforms::EXEC_CORPUS`).
pub const GENFORMS_PREFIX: &str = "exec/genforms/";

/// Env var naming a held-out set: `<first seed>:<count>`.
pub const HELDOUT_VAR: &str = "PTOC_EXEC_HELDOUT";
/// Id prefix of held-out programs: never judged against the expected-failures or
/// invalid-programs lists (every failure of theirs fails its trial).
pub const HELDOUT_PREFIX: &str = "exec/heldout/";

/// The held-out set of `PTOC_EXEC_HELDOUT=<first>:<count>`: genmix programs of every kind with
/// seeds `first..first+count`, named `exec/heldout/<kind>_s<seed>`. The seeds must lie above
/// the committed corpus's (`GENMIX_PER_KIND`), so that no expectation was ever fitted to them.
/// `Ok(empty)` when the variable is unset.
pub fn heldout(var: Option<&str>) -> Result<Vec<Program>, String> {
    let Some(v) = var else { return Ok(Vec::new()) };
    let bad = || format!("{HELDOUT_VAR}=`{v}`: expected <first seed>:<count>, e.g. 1000:20");
    let (first, count) = v.split_once(':').ok_or_else(bad)?;
    let (first, count): (u64, u64) =
        (first.trim().parse().map_err(|_| bad())?, count.trim().parse().map_err(|_| bad())?);
    if first <= GENMIX_PER_KIND {
        return Err(format!(
            "{HELDOUT_VAR}=`{v}`: seeds 1..={GENMIX_PER_KIND} are the committed corpus; a held-out set starts above"
        ));
    }
    let mut out = Vec::new();
    for kind in GENMIX_KINDS {
        for seed in first..first.saturating_add(count) {
            out.push(Program {
                id: format!("{HELDOUT_PREFIX}{kind}_s{seed}"),
                source: Source::Genmix { kind, seed },
                optional: false,
            });
        }
    }
    Ok(out)
}

/// Env var naming a held-out set of transformed programs: `<first seed>:<count>`.
pub const HELDOUT_FORMS_VAR: &str = "PTOC_EXEC_HELDOUT_FORMS";

/// The held-out set of `PTOC_EXEC_HELDOUT_FORMS=<first>:<count>`: for the seeds
/// `first..first+count` of every kind, every form that applies to the genmix program and runs
/// (not `unbound`, which ptoc refuses), named `exec/heldout/<form>-<kind>-s<seed>`. Generating
/// them runs genmix for every kind and seed. `Ok(empty)` when the variable is unset.
pub fn heldout_forms(root: &Path, var: Option<&str>) -> Result<Vec<Program>, String> {
    let Some(v) = var else { return Ok(Vec::new()) };
    let bad = || format!("{HELDOUT_FORMS_VAR}=`{v}`: expected <first seed>:<count>, e.g. 1000:20");
    let (first, count) = v.split_once(':').ok_or_else(bad)?;
    let (first, count): (u64, u64) =
        (first.trim().parse().map_err(|_| bad())?, count.trim().parse().map_err(|_| bad())?);
    let script = root.join("../shared/tools/genmix.py");
    let mut out = Vec::new();
    for kind in GENMIX_KINDS {
        for seed in first..first.saturating_add(count) {
            let text = crate::common::genmix(&script, kind, seed).ok_or("genmix.py does not run")?;
            for form in genforms::FORMS.into_iter().filter(|f| *f != Form::Unbound) {
                if genforms::transform(form, kind, seed, &text).is_some() {
                    out.push(Program {
                        id: format!("{HELDOUT_PREFIX}{form}-{kind}-s{seed}"),
                        source: Source::GenForm { form, kind, seed },
                        optional: false,
                    });
                }
            }
        }
    }
    Ok(out)
}

/// The path of the program's text; genmix programs are generated on first use into the
/// cache (keyed by a hash of genmix.py, so a new generator regenerates them).
pub fn materialize(root: &Path, cache: &Path, src: &Source) -> Result<PathBuf, String> {
    match src {
        Source::File(p) => Ok(p.clone()),
        Source::Systest(dir) => Ok(dir.join("program.pto")),
        Source::GenForm { form, kind, seed } => {
            let original = materialize(root, cache, &Source::Genmix { kind, seed: *seed })?;
            let text = std::fs::read_to_string(&original).map_err(|e| e.to_string())?;
            let t = genforms::transform(*form, kind, *seed, &text)
                .ok_or_else(|| format!("the form {form} does not apply to genmix {kind} seed {seed}"))?;
            // Keyed by the transformed text: a changed transformation writes a new file.
            let dir = cache.join("genforms").join(&super::toolchain::hash_hex(&[t.text.as_bytes()])[..16]);
            let path = dir.join(format!("{form}-{kind}-s{seed}.pto"));
            if !path.is_file() {
                std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
                let tmp = dir.join(format!("{form}-{kind}-s{seed}.pto.tmp{}", std::process::id()));
                std::fs::write(&tmp, &t.text).map_err(|e| e.to_string())?;
                std::fs::rename(&tmp, &path).map_err(|e| e.to_string())?;
            }
            Ok(path)
        }
        Source::Genmix { kind, seed } => {
            let script = root.join("../shared/tools/genmix.py");
            let text = std::fs::read(&script).map_err(|e| format!("cannot read {}: {e}", script.display()))?;
            let dir = cache.join("genmix").join(&super::toolchain::hash_hex(&[&text])[..16]);
            let path = dir.join(format!("{kind}_s{seed}.pto"));
            if path.is_file() {
                return Ok(path);
            }
            let out = std::process::Command::new("python3")
                .arg(&script)
                .args(["--seed", &seed.to_string(), "--kind", kind])
                .output()
                .map_err(|e| format!("cannot run python3 (needed for genmix programs): {e}"))?;
            if !out.status.success() {
                return Err(format!("genmix.py failed: {}", String::from_utf8_lossy(&out.stderr)));
            }
            std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
            let tmp = dir.join(format!("{kind}_s{seed}.pto.tmp{}", std::process::id()));
            std::fs::write(&tmp, &out.stdout).map_err(|e| e.to_string())?;
            std::fs::rename(&tmp, &path).map_err(|e| e.to_string())?;
            Ok(path)
        }
    }
}
