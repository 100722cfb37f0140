//! Every rule file under examples/ (outside examples/errors/) is a test:
//! all its assertions must hold and nothing may fail.

use grundy::{report::render, Limits, Session};

fn run_example(rel: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    let text = std::fs::read_to_string(&path).expect("example file readable");
    let mut session = Session::new(Limits::default());
    let mut out = Vec::new();
    let result = session.run(rel, &text, &mut out);
    let rendered: Vec<String> = result
        .failures
        .iter()
        .map(|f| render(f, &session.sources, false))
        .collect();
    assert!(result.ok(), "{rel} failed:\n{}", rendered.join("\n"));
    assert!(
        result.assertions_passed > 0,
        "{rel} has no assertions: an example must check something"
    );
}

macro_rules! example {
    ($name:ident, $path:expr) => {
        #[test]
        fn $name() {
            run_example($path);
        }
    };
}

include!(concat!(env!("OUT_DIR"), "/example_tests.rs"));
