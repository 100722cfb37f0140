# Generated from src/syntax/lexer.rs (KEYWORDS) and src/eval/builtins.rs
# (Builtin::ALL) by grundy::jupyter::editors::pygments_words; do not edit.
# tests/jupyter.rs checks it (GRUNDY_BLESS=1 rewrites it).
KEYWORDS = ["game", "fn", "move", "where", "if", "then", "else", "for", "in", "not", "and", "or", "assert", "print", "let"]
CONSTANTS = ["true", "false"]
BUILTINS = ["abs", "all", "any", "cnf", "conjunctive", "count", "distinct", "good_moves_nim", "good_moves_welter", "histogram", "hypergraph", "inf", "insert", "isqrt", "join", "len", "list", "log2", "low0", "matches", "max", "memo_histogram", "mex", "min", "misere", "nim_mul", "nimsum", "octal", "options", "ordinal", "outcome", "pass", "period", "periodicity", "plot", "pow", "remoteness", "remove", "reversed", "selective", "set", "sg", "sorted", "splice", "str", "subtraction", "sum", "table", "update", "welter", "winning"]
