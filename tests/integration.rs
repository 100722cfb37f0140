//! The integration tests, one module per file of tests/, built as one
//! test binary: each binary links the whole crate, so one binary instead
//! of one per file saves most of `cargo test`'s build (Cargo.toml turns
//! off cargo's discovery of one binary per file). Run one file's tests
//! with `cargo test --test integration FILE::`, e.g.
//! `cargo test --test integration jupyter::`. (limits_under_caps.rs, which
//! measures children's peak memory, is a binary of its own.)

mod common;

mod clamped_options;

mod arithmetic;
mod command_line;
mod compound_kernels;
mod compounds;
mod errors;
mod eval_layers;
mod examples;
mod generated_games;
mod generated_programs;
mod jupyter;
mod kernels;
mod key_kernels;
mod key_walk;
mod lexer;
mod limits;
mod list_filters;
mod loop_bounds;
mod loopy;
mod loopy_compound_moves;
mod loopy_parts;
mod loopy_sum_moves;
mod memo_scan;
mod memo_tables;
mod mixed_plans;
mod octal_engine;
mod ordinals;
mod plot;
mod progress;
mod rank_fill;
mod rank_shift;
mod ranked_layout;
mod ranked_memo;
mod repl;
mod search_marks;
mod sets;
mod sorted_memo;
mod start_up;
mod static_arguments;
mod sum_results;
mod sweeps;
mod swept_kernels;

/// Every file of tests/ is a module here, or a test binary of its own in
/// Cargo.toml: a file added without its `mod` line would never be built
/// or run.
#[test]
fn every_test_file_is_a_module_of_this_binary() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let this = include_str!("integration.rs");
    let manifest = include_str!("../Cargo.toml");
    let mut files = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        if path.extension().is_some_and(|e| e == "rs") && stem != "integration" {
            files += 1;
            let own_binary = format!("path = \"tests/{stem}.rs\"");
            assert!(
                this.contains(&format!("\nmod {stem};\n")) || manifest.contains(&own_binary),
                "tests/{stem}.rs is not a module of tests/integration.rs: add `mod {stem};`"
            );
        }
    }
    assert!(files > 20, "{files} test files");
}
