"""The Pygments lexer of editors/pygments, as nbconvert finds it: by the
name kernel_info gives (`pygments_lexer`, through the `pygments.lexers`
entry point) and by the `.game` extension. For each rule file named on the
command line, prints one JSON line: the file and its tokens as
[start, end, token type] in characters. tests/jupyter.rs compares them with
the REPL's lexer."""

import json
import sys

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename


def main():
    lexer = get_lexer_by_name("grundy")
    by_file = get_lexer_for_filename("rules.game")
    assert type(by_file) is type(lexer), f"*.game gives {by_file}"
    html = highlight('game Heap(n) { move take(k in 1..=n) -> Heap(n - k) }\n', lexer, HtmlFormatter())

    print(json.dumps({"html": html}))
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        tokens = []
        for start, kind, value in lexer.get_tokens_unprocessed(text):
            if value.strip():
                tokens.append([start, start + len(value), str(kind)])
        print(json.dumps({"file": path, "tokens": tokens}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
