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
use std::sync::{Mutex, PoisonError};
use std::time::SystemTime;

/// Writes `files`, all or none: an error leaves every existing target as it was and removes
/// the files and directories made for the others. Returns the first file that failed.
pub fn write_all(files: &[(PathBuf, Vec<u8>)]) -> Result<(), (PathBuf, io::Error)> {
    Batch::default().finish(files)
}

/// Files being written, all or none: [`Batch::place`] (from any thread) puts each file in
/// place or in a temporary at once; [`Batch::finish`] renames the temporaries over their
/// targets; [`Batch::discard`], or dropping the batch unfinished, removes everything placed and
/// the directories made for it.
#[derive(Debug, Default)]
struct Batch {
    state: Mutex<Placed>,
}

/// What a batch has done so far.
#[derive(Debug, Default)]
struct Placed {
    /// Files created where none was.
    created: Vec<PathBuf>,
    /// Temporaries to rename over their targets: (temporary, target).
    temps: Vec<(PathBuf, PathBuf)>,
    /// Directories made, parents before children.
    dirs: Vec<PathBuf>,
}

impl Batch {
    /// Writes `bytes` to `path` as far as can be done before the batch is finished: a new file
    /// is created; an existing one holding `bytes` is left (touched); otherwise the bytes go to
    /// a temporary beside it.
    fn place(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        self.make_dir(dir)?;
        match File::create_new(path) {
            Ok(file) => {
                // Recorded before filling, so that a failure to fill removes it too.
                self.state().created.push(path.to_path_buf());
                return fill(file, bytes);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
        if holds(path, bytes) {
            return Ok(());
        }
        let tmp = write_temp(dir, path, bytes)?;
        self.state().temps.push((tmp, path.to_path_buf()));
        Ok(())
    }

    /// Places `files` (spread over the CPUs when there are many), then renames the temporaries
    /// over their targets, in path order. On the first error (in the order of `files`, then of
    /// the renames) everything not yet renamed is discarded and the error returned.
    fn finish(self, files: &[(PathBuf, Vec<u8>)]) -> Result<(), (PathBuf, io::Error)> {
        if let Some((i, e)) = self.place_all(files).into_iter().enumerate().find_map(|(i, r)| r.err().map(|e| (i, e))) {
            return Err((files[i].0.clone(), e));
        }
        let mut state = std::mem::take(&mut *self.state());
        state.temps.sort_by(|a, b| a.1.cmp(&b.1));
        for k in 0..state.temps.len() {
            let (tmp, path) = &state.temps[k];
            if let Err(e) = fs::rename(tmp, path) {
                let path = path.clone();
                // The temporaries renamed before the failure are targets now and stay.
                state.temps.drain(..k);
                *self.state() = state;
                return Err((path, e));
            }
        }
        Ok(())
    }

    /// Removes everything placed so far (created files, temporaries, then the directories made
    /// for them if they are empty); the batch can be used again.
    fn discard(&self) {
        let state = std::mem::take(&mut *self.state());
        for path in state.created.iter().chain(state.temps.iter().map(|(tmp, _)| tmp)) {
            let _ = fs::remove_file(path);
        }
        for dir in state.dirs.iter().rev() {
            let _ = fs::remove_dir(dir);
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, Placed> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `fs::create_dir_all`, recording the directories it made.
    fn make_dir(&self, dir: &Path) -> io::Result<()> {
        if dir.is_dir() {
            return Ok(());
        }
        if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
            self.make_dir(parent)?;
        }
        match fs::create_dir(dir) {
            Ok(()) => {
                self.state().dirs.push(dir.to_path_buf());
                Ok(())
            }
            // Made meanwhile by another thread (or it is a file: placing then fails).
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// [`Batch::place`] for every file, the results in the order of `files`. Large outputs (a
    /// kernel file per function) are spread over the CPUs (`par::map`'s pool): writing 12 MB
    /// into the page cache is several milliseconds of kernel time.
    fn place_all(&self, files: &[(PathBuf, Vec<u8>)]) -> Vec<io::Result<()>> {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let threads = cpus.min(files.len() / FILES_PER_THREAD).max(1);
        crate::par::map(files, threads, |(path, bytes)| self.place(path, bytes))
    }
}

impl Drop for Batch {
    fn drop(&mut self) {
        self.discard();
    }
}

/// Files per thread below which [`Batch::place_all`] does not use another: handing work to a
/// thread costs tens of microseconds, a file written about as much.
const FILES_PER_THREAD: usize = 16;

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
    fn a_discarded_batch_leaves_what_was_there() {
        let d = scratch("discard");
        fs::create_dir_all(d.join("kept")).unwrap();
        fs::write(d.join("kept/old.txt"), "old").unwrap();
        let batch = Batch::default();
        batch.place(&d.join("kept/old.txt"), b"new").unwrap();
        batch.place(&d.join("kept/new.txt"), b"new").unwrap();
        batch.place(&d.join("made/deeper/f.txt"), b"new").unwrap();
        assert_eq!(entries(&d), ["kept", "made"]);
        drop(batch);
        assert_eq!(entries(&d), ["kept"]);
        assert_eq!(entries(&d.join("kept")), ["old.txt"]);
        assert_eq!(fs::read_to_string(d.join("kept/old.txt")).unwrap(), "old");
        // Placed first, finished with more: everything lands, nothing is left over.
        let batch = Batch::default();
        batch.place(&d.join("made/a.txt"), b"a").unwrap();
        batch.finish(&[(d.join("kept/old.txt"), b"b".to_vec())]).unwrap();
        assert_eq!(fs::read_to_string(d.join("made/a.txt")).unwrap(), "a");
        assert_eq!(fs::read_to_string(d.join("kept/old.txt")).unwrap(), "b");
        assert_eq!(entries(&d.join("kept")), ["old.txt"]);
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
        let mut files: Vec<(PathBuf, Vec<u8>)> = (0..4 * FILES_PER_THREAD)
            .map(|i| (d.join(format!("k/{i:03}.cpp")), vec![b'a' + (i % 26) as u8; i]))
            .collect();
        files[2 * FILES_PER_THREAD + 1].0 = d.join("blocker/x.cpp");
        files[3 * FILES_PER_THREAD].0 = d.join("blocker/y.cpp");
        let err = write_all(&files).unwrap_err();
        assert_eq!(err.0, d.join("blocker/x.cpp"));
        assert!(!d.join("k").exists(), "the directory made for the files is removed");
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
