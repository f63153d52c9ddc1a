//! Writing output files so that a failure never leaves a half-written or clobbered file: a file
//! that did not exist is created in place and removed again if anything fails; a file that
//! exists is replaced by renaming a temporary over it once everything else was written.
//!
//! Output directories are rewritten again and again (autotuning loops, golden test suites), and
//! most of the files come out the same: an existing file whose contents are already the ones to
//! write keeps its data and only gets a new modification time (`make` then sees it as fresh, as
//! if it were rewritten). Replacing a file costs much more than that on ext4, which flushes the
//! data of a file renamed over another (`auto_da_alloc`), about 2-3 ms per 100 files here.

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::SystemTime;

/// Writes every `(path, bytes)`; creates missing parent directories. All or none: an error
/// leaves every existing target as it was and removes the files this call created. Returns the
/// first error (in the order of `files`) with its path.
pub fn write_all(files: &[(PathBuf, Vec<u8>)]) -> Result<(), (PathBuf, io::Error)> {
    let mut created: Vec<&Path> = Vec::new();
    let mut temps: Vec<(PathBuf, &Path)> = Vec::new();
    let mut first_error = None;
    for ((path, _), placed) in files.iter().zip(place_all(files)) {
        match placed {
            Ok(Placed::Created) => created.push(path),
            Ok(Placed::Unchanged) => {}
            Ok(Placed::Temporary(tmp)) => temps.push((tmp, path)),
            Err(e) => {
                first_error.get_or_insert((path.clone(), e));
            }
        }
    }
    let mut renamed = 0;
    if first_error.is_none() {
        for (tmp, path) in &temps {
            if let Err(e) = fs::rename(tmp, path) {
                first_error = Some((path.to_path_buf(), e));
                break;
            }
            renamed += 1;
        }
    }
    let Some(error) = first_error else { return Ok(()) };
    // The temporaries renamed before the failure are targets now and stay.
    for (tmp, _) in &temps[renamed..] {
        let _ = fs::remove_file(tmp);
    }
    for path in created {
        let _ = fs::remove_file(path);
    }
    Err(error)
}

/// Files per thread below which [`place_all`] does not start another: a thread costs tens of
/// microseconds, a file written about as much.
const FILES_PER_THREAD: usize = 16;

/// [`place`] for every file, the results in the order of `files`. Large outputs (a kernel file
/// per function) are spread over the CPUs: writing 12 MB into the page cache is several
/// milliseconds of kernel time, a tenth of a whole compilation.
fn place_all(files: &[(PathBuf, Vec<u8>)]) -> Vec<io::Result<Placed>> {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = cpus.min(files.len() / FILES_PER_THREAD).max(1);
    if threads == 1 {
        return files.iter().map(|(path, bytes)| place(path, bytes)).collect();
    }
    // Thread t takes files t, t + threads, ...: neighbours in path order are alike in size.
    let mut results: Vec<Option<io::Result<Placed>>> = files.iter().map(|_| None).collect();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    let mine = files.iter().enumerate().skip(t).step_by(threads);
                    mine.map(|(i, (path, bytes))| (i, place(path, bytes))).collect::<Vec<_>>()
                })
            })
            .collect();
        for worker in workers {
            let done = worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            for (i, result) in done {
                results[i] = Some(result);
            }
        }
    });
    results.into_iter().map(|r| r.unwrap_or_else(|| Err(io::Error::other("file not written")))).collect()
}

/// What [`place`] did with one file.
enum Placed {
    /// The target did not exist and now holds the bytes.
    Created,
    /// The target already held the bytes; its modification time is now.
    Unchanged,
    /// The bytes are in this temporary, to be renamed over the target.
    Temporary(PathBuf),
}

/// The first step of writing `bytes` to `path` (see [`Placed`]).
fn place(path: &Path, bytes: &[u8]) -> io::Result<Placed> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    fs::create_dir_all(dir)?;
    match File::create_new(path) {
        Ok(file) => {
            if let Err(e) = fill(file, bytes) {
                let _ = fs::remove_file(path);
                return Err(e);
            }
            return Ok(Placed::Created);
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    if holds(path, bytes) {
        return Ok(Placed::Unchanged);
    }
    write_temp(dir, path, bytes).map(Placed::Temporary)
}

/// Whether `path` is a regular file (not a link to one) holding exactly `bytes`; if so, its
/// modification time is set to now. Any failure, including of setting the time, means no: the
/// file is then replaced.
fn holds(path: &Path, bytes: &[u8]) -> bool {
    let same = || -> io::Result<bool> {
        let meta = fs::symlink_metadata(path)?;
        if !meta.file_type().is_file() || meta.len() != bytes.len() as u64 {
            return Ok(false);
        }
        let mut file = File::open(path)?;
        let mut old = Vec::with_capacity(bytes.len() + 1);
        file.read_to_end(&mut old)?;
        if old != bytes {
            return Ok(false);
        }
        file.set_modified(SystemTime::now())?;
        Ok(true)
    };
    same().unwrap_or(false)
}

/// Writes `bytes` to a fresh temporary file in `dir`, next to `path`, and returns its path.
fn write_temp(dir: &Path, path: &Path, bytes: &[u8]) -> io::Result<PathBuf> {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.ptoc-tmp-{}-{}", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed)));
    let written = File::create_new(&tmp).and_then(|f| fill(f, bytes));
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    Ok(tmp)
}

fn fill(mut file: File, bytes: &[u8]) -> io::Result<()> {
    file.write_all(bytes)?;
    file.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("ptoc-output-test-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    fn entries(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> =
            fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    }

    #[test]
    fn writes_and_replaces_without_leftovers() {
        let d = scratch("replace");
        let p = d.join("out.pto");
        fs::write(&p, "old").unwrap();
        write_all(&[(p.clone(), b"new\n".to_vec())]).unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "new\n");
        assert_eq!(entries(&d), ["out.pto"]);
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn creates_subdirectories() {
        let d = scratch("subdirs");
        let p = d.join("kernels/aiv/k.cpp");
        write_all(&[(p.clone(), b"x".to_vec())]).unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"x");
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn files_created_before_a_failure_are_removed() {
        let d = scratch("created");
        fs::write(d.join("blocker"), "").unwrap();
        let fresh = d.join("new.txt");
        let bad = d.join("blocker/b.txt");
        let err = write_all(&[(fresh, b"x".to_vec()), (bad.clone(), b"x".to_vec())]).unwrap_err();
        assert_eq!(err.0, bad);
        assert_eq!(entries(&d), ["blocker"]);
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn many_files_all_or_none() {
        // Enough files for several threads (FILES_PER_THREAD each); two fail, the first in
        // order is reported whichever thread met it.
        let d = scratch("many");
        fs::write(d.join("blocker"), "").unwrap();
        let mut files: Vec<(PathBuf, Vec<u8>)> =
            (0..4 * FILES_PER_THREAD).map(|i| (d.join(format!("k/{i:03}.cpp")), vec![b'a' + (i % 26) as u8; i])).collect();
        files[2 * FILES_PER_THREAD + 1].0 = d.join("blocker/x.cpp");
        files[3 * FILES_PER_THREAD].0 = d.join("blocker/y.cpp");
        let err = write_all(&files).unwrap_err();
        assert_eq!(err.0, d.join("blocker/x.cpp"));
        assert_eq!(entries(&d.join("k")), Vec::<String>::new());
        files.retain(|(p, _)| !p.starts_with(d.join("blocker")));
        write_all(&files).unwrap();
        for (p, bytes) in &files {
            assert_eq!(&fs::read(p).unwrap(), bytes);
        }
        assert_eq!(entries(&d.join("k")).len(), files.len());
        let _ = fs::remove_dir_all(&d);
    }

    #[cfg(unix)]
    #[test]
    fn identical_file_is_kept_and_touched() {
        use std::os::unix::fs::MetadataExt;
        let d = scratch("identical");
        let p = d.join("k.cpp");
        fs::write(&p, "same\n").unwrap();
        let past = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
        File::options().write(true).open(&p).unwrap().set_modified(past).unwrap();
        let before = fs::metadata(&p).unwrap();
        write_all(&[(p.clone(), b"same\n".to_vec())]).unwrap();
        let after = fs::metadata(&p).unwrap();
        assert_eq!(after.ino(), before.ino(), "the file was replaced");
        assert!(after.modified().unwrap() > past, "the modification time was not updated");
        // Different contents of the same length replace the file.
        write_all(&[(p.clone(), b"diff\n".to_vec())]).unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "diff\n");
        assert_eq!(entries(&d), ["k.cpp"]);
        let _ = fs::remove_dir_all(&d);
    }

    #[cfg(unix)]
    #[test]
    fn a_link_is_replaced_not_followed() {
        let d = scratch("link");
        let target = d.join("elsewhere.txt");
        fs::write(&target, "same").unwrap();
        let p = d.join("out.txt");
        std::os::unix::fs::symlink(&target, &p).unwrap();
        write_all(&[(p.clone(), b"same".to_vec())]).unwrap();
        assert!(fs::symlink_metadata(&p).unwrap().file_type().is_file());
        write_all(&[(p.clone(), b"new".to_vec())]).unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "new");
        assert_eq!(fs::read_to_string(&target).unwrap(), "same");
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn failure_leaves_targets_untouched() {
        let d = scratch("failure");
        let good = d.join("a.txt");
        fs::write(&good, "old").unwrap();
        // A directory in the way of a file's parent: creating the temporary fails.
        fs::write(d.join("blocker"), "").unwrap();
        let bad = d.join("blocker/b.txt");
        let err = write_all(&[(good.clone(), b"new".to_vec()), (bad.clone(), b"x".to_vec())]).unwrap_err();
        assert_eq!(err.0, bad);
        assert_eq!(fs::read_to_string(&good).unwrap(), "old");
        assert_eq!(entries(&d), ["a.txt", "blocker"]);
        let _ = fs::remove_dir_all(&d);
    }
}
