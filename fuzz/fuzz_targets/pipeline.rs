//! The whole pipeline (parse, lower, compile, run) under small limits:
//! any text ends in values or located errors, within the limits.
#![no_main]

use std::time::Duration;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut session = grundy::Session::new(grundy::Limits {
        max_states: 20_000,
        max_call_depth: 1_000,
        max_memory: 512 << 20,
        timeout: Some(Duration::from_millis(500)),
        ..grundy::Limits::default()
    });
    let result = session.run("fuzz.game", text, &mut std::io::sink());
    for f in &result.failures {
        let rendered = grundy::report::render(f, &session.sources, false);
        assert!(rendered.contains("grundy::"), "{rendered}");
    }
});
