//! Highlighting of grundy code outside the REPL: the Pygments lexer
//! (editors/pygments, for nbconvert and HTML exports), the CodeMirror 5
//! mode of the classic Notebook (editors/codemirror/kernel.js, written
//! beside kernel.json by `grundy jupyter install`) and the JupyterLab 4
//! extension (editors/jupyterlab, its words in src/words.json). All take
//! their words from here, that is from the REPL's lexer and the built-in
//! table.

use crate::eval::builtins::Builtin;
use crate::syntax::lexer::KEYWORDS;

/// The keywords that are values (`true`, `false`): highlighted as constants.
const LITERALS: [&str; 2] = ["true", "false"];

/// The keywords, without the literals, in the lexer's order.
pub fn keywords() -> Vec<&'static str> {
    KEYWORDS
        .iter()
        .copied()
        .filter(|k| !LITERALS.contains(k))
        .collect()
}

/// The keywords that are values, as the lexer lists them.
pub fn constants() -> Vec<&'static str> {
    KEYWORDS
        .iter()
        .copied()
        .filter(|k| LITERALS.contains(k))
        .collect()
}

/// The built-in functions' names, sorted.
pub fn builtins() -> Vec<&'static str> {
    let mut names: Vec<&str> = Builtin::ALL.iter().map(|b| b.name()).collect();
    names.sort_unstable();
    names
}

/// A list of words as a Python or JavaScript list literal.
fn list(words: &[&str]) -> String {
    let quoted: Vec<String> = words.iter().map(|w| format!("\"{w}\"")).collect();
    format!("[{}]", quoted.join(", "))
}

/// The text of editors/pygments/grundy_pygments/wordlists.py.
pub fn pygments_words() -> String {
    format!(
        "# Generated from src/syntax/lexer.rs (KEYWORDS) and src/eval/builtins.rs\n\
         # (Builtin::ALL) by grundy::jupyter::editors::pygments_words; do not edit.\n\
         # tests/jupyter.rs checks it (GRUNDY_BLESS=1 rewrites it).\n\
         KEYWORDS = {}\n\
         CONSTANTS = {}\n\
         BUILTINS = {}\n",
        list(&keywords()),
        list(&constants()),
        list(&builtins())
    )
}

/// The text of editors/jupyterlab/src/words.json.
pub fn lab_words() -> String {
    format!(
        "{{\n  \"generated\": \"from src/syntax/lexer.rs (KEYWORDS) and src/eval/builtins.rs \
         (Builtin::ALL) by grundy::jupyter::editors::lab_words; do not edit. tests/jupyter.rs \
         checks it (GRUNDY_BLESS=1 rewrites it)\",\n  \"keywords\": {},\n  \
         \"constants\": {},\n  \"builtins\": {}\n}}\n",
        list(&keywords()),
        list(&constants()),
        list(&builtins())
    )
}

/// The classic Notebook's kernel.js: the CodeMirror mode `grundy`.
pub fn kernel_js() -> String {
    include_str!("../../editors/codemirror/kernel.js")
        .replace("/*KEYWORDS*/[]", &list(&keywords()))
        .replace("/*CONSTANTS*/[]", &list(&constants()))
        .replace("/*BUILTINS*/[]", &list(&builtins()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_keyword_is_a_keyword_or_a_constant_once() {
        let (k, c) = (keywords(), constants());
        assert_eq!(c, LITERALS);
        assert_eq!(k.len() + c.len(), KEYWORDS.len());
        assert!(k.contains(&"game") && !k.contains(&"true"));
    }

    #[test]
    fn kernel_js_gets_every_list() {
        let js = kernel_js();
        assert!(!js.contains("/*"), "a placeholder is left");
        assert!(js.contains("\"sg\"") && js.contains("\"where\"") && js.contains("\"false\""));
        assert!(js.contains("defineSimpleMode(\"grundy\""));
    }
}
