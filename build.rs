//! Generates the parser from `grammar/pto.lalrpop` into OUT_DIR.
fn main() {
    println!("cargo:rerun-if-changed=grammar/pto.lalrpop");
    lalrpop::Configuration::new()
        .set_in_dir("grammar")
        .process()
        .expect("lalrpop failed to generate the parser");
}
