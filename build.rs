//! Generates the parser from `grammar/pto.lalrpop` into OUT_DIR, and records the git commit the
//! binary is built from for `ptoc --version` (`unknown` outside a git checkout).
fn main() {
    println!("cargo:rerun-if-changed=grammar/pto.lalrpop");
    lalrpop::Configuration::new().set_in_dir("grammar").process().expect("lalrpop failed to generate the parser");

    // Rebuild when HEAD moves (a commit on the current branch changes the ref's file). Only
    // paths that exist are named: cargo reruns the script on every build for a missing one (in
    // a git worktree `.git` is a file, and the commit is then only refreshed on other changes).
    if let Ok(head) = std::fs::read_to_string(".git/HEAD") {
        println!("cargo:rerun-if-changed=.git/HEAD");
        if let Some(r) = head.trim().strip_prefix("ref: ") {
            if std::path::Path::new(".git").join(r).exists() {
                println!("cargo:rerun-if-changed=.git/{r}");
            }
        }
    }
    let commit = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=PTOC_COMMIT={commit}");
}
