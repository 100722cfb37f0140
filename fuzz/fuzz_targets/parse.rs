//! The parser alone: any text ends in a program or a syntax error, and
//! the error renders (a cut of its line, never the whole of it).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(e) = grundy::syntax::parse(text, Default::default()) {
        let mut sources = grundy::session::Sources::default();
        sources.add("fuzz.game", text);
        let rendered = grundy::report::render(&grundy::Failure::Syntax(e), &sources, false);
        assert!(
            rendered.len() < 64 * 1024,
            "diagnostic of {} bytes",
            rendered.len()
        );
    }
});
