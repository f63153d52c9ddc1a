//! The contract of `ptoc run` that execution tests rely on (docs/execution.md): `--input
//! p=FILE.npy` values are used exactly; `-o DIR` writes `DIR/<param>.npy` for every tensor
//! parameter (its final value) and `DIR/return_<i>.npy` for every returned value; a file whose
//! dtype or shape does not fit its parameter is an error naming both; nothing is written when
//! the run fails.

use std::path::{Path, PathBuf};

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh empty directory under the target directory.
fn scratch(name: &str) -> PathBuf {
    let dir = manifest().join("target").join("run-cli-tests").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn ptoc(args: &[&str]) -> ptoc::driver::Output {
    let args: Vec<String> = std::iter::once("ptoc").chain(args.iter().copied()).map(String::from).collect();
    ptoc::driver::write_files(ptoc::driver::run(&args, b""))
}

fn write_f32(path: &Path, shape: &[u64], data: &[f32]) {
    use npyz::WriterBuilder;
    let mut buf = Vec::new();
    let mut w = npyz::WriteOptions::new().default_dtype().shape(shape).writer(&mut buf).begin_nd().unwrap();
    w.extend(data.iter().copied()).unwrap();
    w.finish().unwrap();
    std::fs::write(path, buf).unwrap();
}

fn write_f64(path: &Path, shape: &[u64], data: &[f64]) {
    use npyz::WriterBuilder;
    let mut buf = Vec::new();
    let mut w = npyz::WriteOptions::new().default_dtype().shape(shape).writer(&mut buf).begin_nd().unwrap();
    w.extend(data.iter().copied()).unwrap();
    w.finish().unwrap();
    std::fs::write(path, buf).unwrap();
}

/// (descr, shape, elements as f64) of an .npy file.
fn read(path: &Path) -> (String, Vec<u64>, Vec<f64>) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let npy = npyz::NpyFile::new(&bytes[..]).unwrap();
    let descr = npy.dtype().descr();
    let shape = npy.shape().to_vec();
    let data = match descr.as_str() {
        "'<f4'" => npy.into_vec::<f32>().unwrap().into_iter().map(f64::from).collect(),
        "'<f2'" => npy.into_vec::<half::f16>().unwrap().into_iter().map(|v| v.to_f64()).collect(),
        other => panic!("unexpected dtype {other}"),
    };
    (descr, shape, data)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn given_inputs_are_used_and_every_output_is_written() {
    let dir = scratch("tiled");
    let example = manifest().join("examples/tiled_loop.pto");
    let a: Vec<f32> = (0..128 * 32).map(|i| (i % 97) as f32 / 8.0 - 3.0).collect();
    write_f32(&dir.join("a_in.npy"), &[128, 32], &a);
    let out_dir = dir.join("out");
    let input = format!("a={}", dir.join("a_in.npy").display());
    for pipeline in ["none", "default"] {
        let out = ptoc(&[
            "run",
            "--pipeline",
            pipeline,
            example.to_str().unwrap(),
            "--input",
            &input,
            "-o",
            out_dir.to_str().unwrap(),
        ]);
        assert_eq!(out.code, 0, "{}", text(&out.stderr));
        let (descr, shape, got_a) = read(&out_dir.join("a.npy"));
        assert_eq!((descr.as_str(), shape.as_slice()), ("'<f4'", &[128u64, 32][..]));
        assert_eq!(got_a, a.iter().map(|&x| f64::from(x)).collect::<Vec<_>>());
        let (_, _, r) = read(&out_dir.join("return_0.npy"));
        assert_eq!(r, a.iter().map(|&x| f64::from(x * 2.0)).collect::<Vec<_>>(), "{pipeline}");
        assert!(text(&out.stdout).starts_with("a [128, 32] FP32 "), "{}", text(&out.stdout));
    }

    // The kernel alone: its Out parameter holds the result.
    let kdir = dir.join("kernel");
    let zeros = dir.join("zeros.npy");
    write_f32(&zeros, &[128, 32], &vec![0.0; 128 * 32]);
    let out_arg = format!("out={}", zeros.display());
    let out = ptoc(&[
        "run",
        example.to_str().unwrap(),
        "--func",
        "scale_rows",
        "--input",
        &input,
        "--input",
        &out_arg,
        "-o",
        kdir.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 0, "{}", text(&out.stderr));
    let (_, _, o) = read(&kdir.join("out.npy"));
    assert_eq!(o, a.iter().map(|&x| f64::from(x * 2.0)).collect::<Vec<_>>());
    assert!(kdir.join("return_0.npy").is_file());
}

#[test]
fn fp16_is_written_as_f2() {
    let dir = scratch("fp16");
    let out = ptoc(&["run", manifest().join("examples/matmul.pto").to_str().unwrap(), "-o", dir.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", text(&out.stderr));
    assert_eq!(read(&dir.join("a.npy")).0, "'<f2'");
    assert_eq!(read(&dir.join("c.npy")).0, "'<f4'");
}

#[test]
fn mismatched_inputs_are_errors_and_nothing_is_written() {
    let dir = scratch("bad");
    let example = manifest().join("examples/tiled_loop.pto");
    let out_dir = dir.join("out");
    write_f64(&dir.join("f8.npy"), &[128, 32], &vec![0.0; 128 * 32]);
    let arg = format!("a={}", dir.join("f8.npy").display());
    let out = ptoc(&["run", example.to_str().unwrap(), "--input", &arg, "-o", out_dir.to_str().unwrap()]);
    assert_eq!(out.code, 1);
    let err = text(&out.stderr);
    assert!(err.contains("E0705") && err.contains("f8") && err.contains("FP32"), "{err}");
    assert!(!out_dir.exists(), "nothing is written when the run fails");

    write_f32(&dir.join("small.npy"), &[4, 32], &[0.0; 128]);
    let arg = format!("a={}", dir.join("small.npy").display());
    let out = ptoc(&["run", example.to_str().unwrap(), "--input", &arg, "-o", out_dir.to_str().unwrap()]);
    let err = text(&out.stderr);
    assert!(out.code == 1 && err.contains("[4, 32]") && err.contains("128, 32"), "{err}");
    assert!(!out_dir.exists());
}

#[test]
fn help_describes_run() {
    let out = ptoc(&["--help"]);
    assert!(text(&out.stdout).contains("run  interpret a function"));
    let out = ptoc(&["run", "--help"]);
    let help = text(&out.stdout);
    for needle in
        ["--func", "--seed", "--input", "--input-dir", "--output", "--pipeline", "return_0", "SplitMix64", "BF16"]
    {
        assert!(help.contains(needle), "ptoc run --help lacks {needle}:\n{help}");
    }
}
