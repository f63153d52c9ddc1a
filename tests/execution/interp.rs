//! The oracle: ptoc's IR interpreter, `ptoc run FILE [--pipeline P] --func NAME
//! --input PARAM=FILE.npy ... -o DIR`, called in-process. It writes `DIR/<param>.npy` for every
//! tensor parameter and `DIR/return_<i>.npy` for returned values. Until the subcommand exists
//! the driver rejects `run` as a usage error; [`available`] detects that once.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use ptoc::driver;

/// Whether this ptoc has the `run` subcommand: `ptoc run --help` succeeds and documents
/// `--input`. (Without it, `run` is taken as the input file and the extra arguments are a usage
/// error, exit status 2.)
pub fn available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        let out = driver::run(&["ptoc".to_string(), "run".into(), "--help".into()], b"");
        out.code == driver::exit::SUCCESS && String::from_utf8_lossy(&out.stdout).contains("--input")
    })
}

/// Runs function `func` of `file` (after `pipeline`) on `inputs` (param name → .npy path);
/// the results land in `out_dir`. `Err` carries ptoc's diagnostics.
pub fn run(
    file: &Path,
    pipeline: &str,
    func: &str,
    inputs: &[(String, PathBuf)],
    out_dir: &Path,
) -> Result<(), String> {
    run_with(file, &["--pipeline".into(), pipeline.into()], func, inputs, out_dir)
}

/// [`run`] with the flags `flags` instead of a pipeline.
pub fn run_with(
    file: &Path,
    flags: &[String],
    func: &str,
    inputs: &[(String, PathBuf)],
    out_dir: &Path,
) -> Result<(), String> {
    let mut args: Vec<String> = vec!["ptoc".into(), "run".into(), "--error-format".into(), "short".into()];
    args.extend(flags.iter().cloned());
    args.extend(["--func".into(), func.into()]);
    for (name, path) in inputs {
        args.push("--input".into());
        args.push(format!("{name}={}", path.display()));
    }
    args.extend(["-o".into(), out_dir.display().to_string(), file.display().to_string()]);
    let out = driver::run(&args, b"");
    if out.code != driver::exit::SUCCESS {
        return Err(format!(
            "`{}` exited with {}: {}",
            args[1..].join(" "),
            out.code,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    // The in-process driver returns `-o` files instead of writing them (as for --emit cpp).
    std::fs::create_dir_all(out_dir).map_err(|e| e.to_string())?;
    for (path, bytes) in &out.files {
        std::fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}

/// How a seeded run of the interpreter on one function went.
pub enum Seeded {
    /// It wrote its results into the directory.
    Ran,
    /// ptoc rejected the program before running it (an error outside the interpreter's E07xx
    /// codes: the front end or a pass); the caller skips that seed, so the message is not kept.
    Rejected,
    /// The interpreter itself failed, with the message.
    Failed(String),
}

/// Runs `func` of `file` after `pipeline` on inputs generated from `seed` (`ptoc run --seed`),
/// writing its results into `out_dir`.
pub fn run_seeded(file: &Path, pipeline: &str, func: &str, seed: u64, out_dir: &Path) -> Seeded {
    let args: Vec<String> =
        ["ptoc", "run", "--error-format", "short", "--pipeline", pipeline, "--func", func, "--seed"]
            .into_iter()
            .map(String::from)
            .chain([seed.to_string(), "-o".into(), out_dir.display().to_string(), file.display().to_string()])
            .collect();
    let out = driver::run(&args, b"");
    let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
    if out.code != driver::exit::SUCCESS {
        return if stderr.contains("error[E07") { Seeded::Failed(stderr) } else { Seeded::Rejected };
    }
    if let Err(e) = std::fs::create_dir_all(out_dir) {
        return Seeded::Failed(e.to_string());
    }
    for (path, bytes) in &out.files {
        if let Err(e) = std::fs::write(path, bytes) {
            return Seeded::Failed(format!("cannot write {}: {e}", path.display()));
        }
    }
    Seeded::Ran
}
