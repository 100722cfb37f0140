//! Each file under examples/errors/ must fail with a diagnostic; the
//! rendered diagnostic is snapshotted, so a change in any message shows up.

use grundy::{report::render, Limits, Session};

fn run_error_example(rel: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    let text = std::fs::read_to_string(&path).expect("example file readable");
    let mut session = Session::new(Limits {
        max_states: 10_000,
        ..Limits::default()
    });
    let mut out = Vec::new();
    let result = session.run(rel, &text, &mut out);
    assert!(!result.ok(), "{rel} was expected to fail but passed");
    result
        .failures
        .iter()
        .map(|f| render(f, &session.sources, false))
        .collect::<Vec<_>>()
        .join("\n")
}

macro_rules! error_example {
    ($name:ident, $path:expr) => {
        #[test]
        fn $name() {
            let rendered = run_error_example($path);
            // The test is generated into OUT_DIR; keep snapshots in the tree.
            insta::with_settings!({
                snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/tests/snapshots"),
                prepend_module_to_snapshot => false,
                omit_expression => true,
            }, {
                insta::assert_snapshot!(stringify!($name), rendered);
            });
        }
    };
}

include!(concat!(env!("OUT_DIR"), "/error_tests.rs"));
