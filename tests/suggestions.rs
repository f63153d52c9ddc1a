//! Every lookup of a name offers "did you mean": this is the list of them. Each row
//! is a lookup, an input with a misspelt name, and the suggestion ptoc must make. All of them go
//! through `ptoc::suggest` (the one edit-distance rule). A new kind of lookup gets a row here.

fn ptoc(args: &[&str], stdin: &str) -> ptoc::driver::Output {
    let args: Vec<String> = std::iter::once("ptoc").chain(args.iter().copied()).map(String::from).collect();
    ptoc::driver::run(&args, stdin.as_bytes())
}

/// A program whose function body is `body` (indented 8 spaces), with a tensor parameter `x`.
fn program(body: &str) -> String {
    format!(
        "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function\n    def f(self, x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:\n{}\n",
        body.lines().map(|l| format!("        {l}")).collect::<Vec<_>>().join("\n")
    )
}

/// (lookup, command-line arguments, source on stdin, the suggestion that must appear).
fn lookups() -> Vec<(&'static str, Vec<&'static str>, String, &'static str)> {
    let ir = vec!["--pipeline", "none", "--color", "never", "-"];
    vec![
        ("variable", ir.clone(), program("y = pl.add(x, x)\nreturn yy"), "`y`"),
        (
            "function (self.NAME)",
            ir.clone(),
            "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function\n    def fma(self, x: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:\n        return x\n    @pl.function\n    def g(self, x: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:\n        y = self.fmaa(x)\n        return y\n".to_string(),
            "fma",
        ),
        ("operator", ir.clone(), program("y = pl.tensor.ad(x, x)\nreturn y"), "add"),
        ("operator keyword argument", ir.clone(), program("z = pl.tensor.cast(x, target_typ=pl.FP16)\nreturn x"), "target_type"),
        ("dtype in a type", ir.clone(), program("y: pl.Tensor[[16, 16], pl.Float32] = pl.add(x, x)\nreturn y"), "FP32"),
        ("dtype as a value", ir.clone(), program("y = pl.tensor.cast(x, target_type=pl.float16)\nreturn x"), "FP16"),
        (
            "memory space",
            ir.clone(),
            "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n    def f(self, x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tile[[16, 16], pl.FP32]:\n        t = pl.block.load(x, [0, 0], [16, 16], target_memory=pl.MemorySpace.Vecc)\n        return t\n".to_string(),
            "Vec",
        ),
        (
            "function type",
            ir.clone(),
            "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.Incore)\n    def f(self, x: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:\n        return x\n".to_string(),
            "InCore",
        ),
        ("pass name", vec!["--passes", "insert_sync", "--color", "never", "-"], program("return x"), "insert-sync"),
        ("--list-ops name", vec!["--list-ops", "row_maxx"], String::new(), "row_max"),
    ]
}

#[test]
fn every_lookup_offers_a_suggestion() {
    let mut missing = Vec::new();
    for (lookup, args, source, want) in lookups() {
        let out = ptoc(&args, &source);
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        // The wording fits the lookup ("did you mean 'add'?", "a variable with a similar name
        // exists: `y`", "the dtype is spelled `pl.FP16`"); the suggested name is what counts.
        let offers = ["did you mean", "similar name", "is spelled"].iter().any(|m| stderr.contains(m));
        if out.code == 0 || !offers || !stderr.contains(want) {
            missing.push(format!("{lookup}: exit {}, wanted a suggestion of {want}, got:\n{stderr}", out.code));
        }
    }
    assert!(missing.is_empty(), "lookups without their suggestion:\n{}", missing.join("\n"));
}
