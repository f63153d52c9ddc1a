//! Writing output files so that a failure never leaves a half-written or clobbered file:
//! everything is written to temporary files next to the targets, then renamed into place.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

/// Writes every `(path, bytes)`; creates missing parent directories. All contents are written
/// to temporaries first, and only when all succeeded are they renamed over the targets, so an
/// error while writing leaves every target as it was. Returns the first error with its path.
pub fn write_all(files: &[(PathBuf, Vec<u8>)]) -> Result<(), (PathBuf, io::Error)> {
    let mut temps: Vec<(PathBuf, &Path)> = Vec::new();
    let result = (|| {
        for (path, bytes) in files {
            let tmp = write_temp(path, bytes).map_err(|e| (path.clone(), e))?;
            temps.push((tmp, path.as_path()));
        }
        for (i, (tmp, path)) in temps.iter().enumerate() {
            if let Err(e) = fs::rename(tmp, path) {
                // Renamed ones stay; the rest must not linger as temporaries.
                for (t, _) in &temps[i..] {
                    let _ = fs::remove_file(t);
                }
                return Err((path.to_path_buf(), e));
            }
        }
        Ok(())
    })();
    if result.is_err() {
        for (tmp, _) in &temps {
            let _ = fs::remove_file(tmp);
        }
    }
    result
}

/// Writes `bytes` to a fresh temporary file in `path`'s directory and returns its path.
fn write_temp(path: &Path, bytes: &[u8]) -> io::Result<PathBuf> {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&dir)?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.ptoc-tmp-{}-{}", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed)));
    let written = File::create_new(&tmp).and_then(|mut f| {
        f.write_all(bytes)?;
        f.flush()
    });
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    Ok(tmp)
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
