//! The C++ side: finding the compiler and pto-isa, the precompiled header, the object cache,
//! a two-slot limit on concurrent compiler processes, and running executables with a timeout.
//!
//! Cache (`target/exec-cache/`): an object file is keyed by a hash of its source text, the
//! flags, the compiler's version and the contents of every header outside the system (the
//! pto-isa tree, tensor.h, the runtime stand-in): a change to any of them recompiles. Failed
//! compilations are cached too (their log), so a rerun of a known compile-fail is instant.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Optimisation level of kernels: -O0 compiles about 40% faster than -O1 and the programs
/// are small enough that run time does not matter. (A PCH must be used at the level it was
/// built with.)
pub const OPT: &str = "-O0";
/// Seconds an executable may run.
pub const RUN_TIMEOUT: Duration = Duration::from_secs(60);
/// Concurrent compiler processes (the CI machine has two cores).
pub const JOBS: usize = 2;

pub struct Toolchain {
    pub cxx: String,
    pub version: String,
    pub pto_isa: PathBuf,
    /// Directory of the stand-in `tensor.h` (`../shared/cpusim/include`).
    pub tensor_h: PathBuf,
    /// `tests/execution/runtime`: exec_host.h and pto_orchestration_api.h.
    pub runtime: PathBuf,
    pub cache: PathBuf,
    /// Hash of every header the compilations can include from outside the system.
    headers_hash: String,
    /// A hash of the headers' mtimes, part of the PCH's key only.
    headers_mtimes: String,
    /// The precompiled headers, by [`Pch`] kind, each built at its first use.
    pch: [OnceLock<Result<PathBuf, String>>; 2],
}

/// Changes when what the cache stores changes (e.g. the text of cached failure logs).
const CACHE_FORMAT: &str = "exec-cache-2";

/// A precompiled header, for the translation units that start with what it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pch {
    /// What every kernel includes first (pto-isa), then the IEEE floating-point division of
    /// `ptoc_float_division.h` (why: that file).
    Kernel,
    /// What orchestration files and the host main include: the stand-in runtime (a host main
    /// compiles in ~0.14 s with it instead of ~0.41 s, an orchestration file in ~0.09 s
    /// instead of ~0.37 s).
    Host,
}

impl Pch {
    fn source(self) -> &'static str {
        match self {
            Pch::Kernel => "#include <cstdint>\n#include <pto/pto-inst.hpp>\n#include \"ptoc_float_division.h\"\n",
            Pch::Host => "#include <string>\n#include \"pto_orchestration_api.h\"\n",
        }
    }
}

/// Time spent in each external step, summed over all trials (they run on several threads),
/// for the summary line: where the execution test's time goes.
pub struct Stats {
    pub compile_ns: AtomicU64,
    pub compiles: AtomicUsize,
    pub cached_objects: AtomicUsize,
    pub link_ns: AtomicU64,
    pub links: AtomicUsize,
    pub run_ns: AtomicU64,
    pub runs: AtomicUsize,
}

pub static STATS: Stats = Stats {
    compile_ns: AtomicU64::new(0),
    compiles: AtomicUsize::new(0),
    cached_objects: AtomicUsize::new(0),
    link_ns: AtomicU64::new(0),
    links: AtomicUsize::new(0),
    run_ns: AtomicU64::new(0),
    runs: AtomicUsize::new(0),
};

/// Adds the time since `start` to `ns` and one to `n`.
pub fn account(ns: &AtomicU64, n: &AtomicUsize, start: Instant) {
    ns.fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
    n.fetch_add(1, Ordering::Relaxed);
}

pub fn hash_hex(parts: &[&[u8]]) -> String {
    let mut out = String::new();
    for salt in [0x5eedu64, 0xc0ffee] {
        let mut h = DefaultHasher::new();
        salt.hash(&mut h);
        for p in parts {
            p.hash(&mut h);
        }
        out.push_str(&format!("{:016x}", h.finish()));
    }
    out
}

impl Toolchain {
    /// `Err` says what is missing (then the execution tests check nothing).
    pub fn detect(root: &Path) -> Result<Toolchain, String> {
        let cxx = std::env::var("PTOC_CXX").unwrap_or_else(|_| "clang++-19".into());
        let version = Command::new(&cxx)
            .arg("--version")
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).lines().next().unwrap_or("").to_string())
            .ok_or(format!("C++ compiler `{cxx}` not found (install clang-19 or set PTOC_CXX)"))?;
        let shared = root.join("../shared");
        let pto_isa = std::env::var_os("PTOC_PTO_ISA").map(PathBuf::from).unwrap_or(shared.join("pto-isa"));
        if !pto_isa.join("include/pto/pto-inst.hpp").is_file() {
            return Err(format!("pto-isa not found at {} (set PTOC_PTO_ISA)", pto_isa.display()));
        }
        let tensor_h = shared.join("cpusim/include");
        if !tensor_h.join("tensor.h").is_file() {
            return Err(format!("tensor.h not found in {}", tensor_h.display()));
        }
        let runtime = root.join("tests/execution/runtime");
        let mut files = crate::common::files_under(&pto_isa.join("include"), "");
        files.extend(crate::common::files_under(&runtime, ".h"));
        files.push(tensor_h.join("tensor.h"));
        let mut contents: Vec<Vec<u8>> = Vec::new();
        // clang refuses a precompiled header whose headers' mtimes changed, even when their
        // contents did not (a fresh copy of ../shared): the PCH's key includes the mtimes.
        let mut mtimes = String::new();
        for f in &files {
            contents.push(f.to_string_lossy().into_owned().into_bytes());
            contents.push(std::fs::read(f).unwrap_or_default());
            let mtime = std::fs::metadata(f).and_then(|m| m.modified()).ok();
            let since = mtime.and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).unwrap_or_default();
            mtimes.push_str(&format!("{}.{};", since.as_secs(), since.subsec_nanos()));
        }
        let parts: Vec<&[u8]> = contents.iter().map(Vec::as_slice).collect();
        let headers_hash = hash_hex(&parts);
        let cache = root.join("target/exec-cache");
        let headers_mtimes = hash_hex(&[mtimes.as_bytes()]);
        Ok(Toolchain {
            cxx,
            version,
            pto_isa,
            tensor_h,
            runtime,
            cache,
            headers_hash,
            headers_mtimes,
            pch: [OnceLock::new(), OnceLock::new()],
        })
    }

    pub fn flags(&self) -> Vec<String> {
        let inc = |p: &Path| format!("-I{}", p.display());
        vec![
            "-std=c++20".into(),
            OPT.into(),
            "-D__CPU_SIM".into(),
            "-DPTO_CPU_MAX_THREADS=1".into(),
            "-w".into(),
            inc(&self.pto_isa.join("include")),
            inc(&self.pto_isa.join("include/pto")),
            inc(&self.runtime),
            inc(&self.tensor_h),
        ]
    }

    fn key(&self, text: &str, flags: &[String]) -> String {
        let mut parts: Vec<&[u8]> =
            vec![CACHE_FORMAT.as_bytes(), text.as_bytes(), self.version.as_bytes(), self.headers_hash.as_bytes()];
        parts.extend(flags.iter().map(|f| f.as_bytes()));
        hash_hex(&parts)
    }

    /// The precompiled header `kind`, built once per cache state.
    pub fn pch(&self, kind: Pch) -> Result<PathBuf, String> {
        self.pch[kind as usize]
            .get_or_init(|| {
                let mut flags = self.flags();
                // Templates the header itself uses are instantiated once, in the PCH, instead of
                // in every kernel (a kernel compiles in ~0.24 s instead of ~0.39 s).
                flags.extend(["-fpch-instantiate-templates".into(), "-x".into(), "c++-header".into()]);
                let key = self.key(&format!("{}\n// {}", kind.source(), self.headers_mtimes), &flags);
                let dir = self.cache.join("pch");
                let pch = dir.join(format!("{key}.pch"));
                if pch.is_file() {
                    return Ok(pch);
                }
                std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
                let src = dir.join(format!("{key}.hpp"));
                std::fs::write(&src, kind.source()).map_err(|e| e.to_string())?;
                let tmp = dir.join(format!("{key}.pch.{}.tmp", unique()));
                let mut cmd = Command::new(&self.cxx);
                cmd.args(&flags).arg(&src).arg("-o").arg(&tmp);
                let (ok, log) = self.exec(cmd, (&STATS.compile_ns, &STATS.compiles));
                if !ok {
                    return Err(format!("building the precompiled header failed:\n{log}"));
                }
                std::fs::rename(&tmp, &pch).map_err(|e| e.to_string())?;
                Ok(pch)
            })
            .clone()
    }

    /// Compiles `text` (a translation unit) with the common flags plus `extra`; with `pch`,
    /// against that precompiled header. Returns the cached object's path or the log.
    /// `name` stands for the cached source file's path in the log (the path is a hash).
    pub fn object(&self, name: &str, text: &str, extra: &[String], pch: Option<Pch>) -> Result<PathBuf, String> {
        let mut flags = self.flags();
        flags.extend(extra.iter().cloned());
        if let Some(kind) = pch {
            flags.push("-include-pch".into());
            flags.push(self.pch(kind)?.to_string_lossy().into_owned());
        }
        let key = self.key(text, &flags);
        let dir = self.cache.join("obj");
        let (obj, err) = (dir.join(format!("{key}.o")), dir.join(format!("{key}.err")));
        if obj.is_file() {
            STATS.cached_objects.fetch_add(1, Ordering::Relaxed);
            return Ok(obj);
        }
        if let Ok(log) = std::fs::read_to_string(&err) {
            STATS.cached_objects.fetch_add(1, Ordering::Relaxed);
            return Err(log);
        }
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        // Two programs may hold the same TU and compile it at the same time: every file but
        // the final object is private to this call, and the rename is atomic.
        let u = unique();
        let src = dir.join(format!("{key}.{u}.cpp"));
        std::fs::write(&src, text).map_err(|e| e.to_string())?;
        let tmp = dir.join(format!("{key}.o.{u}.tmp"));
        let mut cmd = Command::new(&self.cxx);
        cmd.args(&flags).arg("-c").arg(&src).arg("-o").arg(&tmp);
        let (ok, log) = self.exec(cmd, (&STATS.compile_ns, &STATS.compiles));
        let _ = std::fs::remove_file(&src);
        if ok {
            std::fs::rename(&tmp, &obj).map_err(|e| e.to_string())?;
            Ok(obj)
        } else {
            let _ = std::fs::remove_file(&tmp);
            let log = log.replace(&src.display().to_string(), name);
            let _ = std::fs::write(&err, &log);
            Err(log)
        }
    }

    /// Links `objs` into an executable (cached by the objects' names, which are content hashes).
    pub fn link(&self, objs: &[PathBuf]) -> Result<PathBuf, String> {
        let names: Vec<String> = objs.iter().map(|o| o.to_string_lossy().into_owned()).collect();
        let parts: Vec<&[u8]> = names.iter().map(|n| n.as_bytes()).collect();
        let key = hash_hex(&parts);
        let dir = self.cache.join("bin");
        let exe = dir.join(&key);
        if exe.is_file() {
            return Ok(exe);
        }
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let tmp = dir.join(format!("{key}.{}.tmp", unique()));
        let mut cmd = Command::new(&self.cxx);
        cmd.args(objs).arg("-o").arg(&tmp).arg("-lm");
        let (ok, log) = self.exec(cmd, (&STATS.link_ns, &STATS.links));
        if !ok {
            return Err(format!("link failed:\n{log}"));
        }
        std::fs::rename(&tmp, &exe).map_err(|e| e.to_string())?;
        Ok(exe)
    }

    /// Runs a compiler command in one of the JOBS slots, its time (once it has a slot) added
    /// to `stat`; (success, combined output).
    fn exec(&self, mut cmd: Command, stat: (&AtomicU64, &AtomicUsize)) -> (bool, String) {
        let _slot = Slot::take();
        let start = Instant::now();
        let out = cmd.output();
        account(stat.0, stat.1, start);
        match out {
            Ok(o) => (
                o.status.success(),
                format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)),
            ),
            Err(e) => (false, format!("cannot run {}: {e}", self.cxx)),
        }
    }
}

/// A name part no other call (in this or another process) uses.
fn unique() -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    format!("{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}

/// A counting semaphore of JOBS compiler slots shared by all trials.
struct Slot;

static SLOTS: (Mutex<usize>, Condvar) = (Mutex::new(0), Condvar::new());

impl Slot {
    fn take() -> Slot {
        let (m, cv) = &SLOTS;
        let mut used = m.lock().unwrap();
        while *used >= JOBS {
            used = cv.wait(used).unwrap();
        }
        *used += 1;
        Slot
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let (m, cv) = &SLOTS;
        *m.lock().unwrap() -= 1;
        cv.notify_one();
    }
}

/// How a run ended.
pub struct RunResult {
    /// Exit code; `None` when killed by a signal or the timeout.
    pub code: Option<i32>,
    pub timed_out: bool,
    pub stderr: String,
}

/// Runs `exe args` with RUN_TIMEOUT.
pub fn run(exe: &Path, args: &[&str]) -> Result<RunResult, String> {
    let mut child = Command::new(exe)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    // Read stderr on a thread so a chatty program cannot block on a full pipe.
    let mut pipe = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = pipe.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let (status, timed_out) = loop {
        if let Some(st) = child.try_wait().map_err(|e| e.to_string())? {
            break (Some(st), false);
        }
        if start.elapsed() > RUN_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            break (None, true);
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let stderr = reader.join().unwrap_or_default();
    account(&STATS.run_ns, &STATS.runs, start);
    let code = status.and_then(|s| s.code());
    let stderr = match status {
        Some(s) if s.code().is_none() => format!("{stderr}\n(killed by a signal: {s})"),
        _ => stderr,
    };
    Ok(RunResult { code, timed_out, stderr })
}
