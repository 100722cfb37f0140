"""Pygments lexer for grundy's rules language (rule files, REPL entries and
notebook cells).

Installed with ``pip install editors/pygments`` (from the grundy
repository), it registers itself under the name ``grundy`` through the
``pygments.lexers`` entry point, so that ``pygmentize -l grundy``,
nbconvert and JupyterLab's HTML export highlight grundy code: the kernel's
``kernel_info`` names it as ``language_info.pygments_lexer``.

The keyword and built-in lists are in ``wordlists.py``, generated from the
REPL's lexer (src/syntax/lexer.rs) and the built-in table
(src/eval/builtins.rs); tests/jupyter.rs fails when they disagree.
"""

from pygments.lexer import RegexLexer, bygroups, words
from pygments.token import (
    Comment,
    Error,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Whitespace,
)

from .wordlists import BUILTINS, CONSTANTS, KEYWORDS

__all__ = ["GrundyLexer"]

# A name: a letter, `_` or `ω`, then letters, digits, `_` or `ω`
# (the REPL lexer's `Ident`).
_NAME = r"[A-Za-z_ω][A-Za-z0-9_ω]*"


class GrundyLexer(RegexLexer):
    """grundy rule files: games, moves, functions and questions."""

    name = "grundy"
    aliases = ["grundy"]
    filenames = ["*.game"]
    mimetypes = ["text/x-grundy"]

    tokens = {
        "root": [
            (r"[ \t\r\n\ufeff]+", Whitespace),
            (r"#[^\r\n]*", Comment.Single),
            # REPL and notebook commands: `:plot EXPR`, `:load "FILE"`.
            (r"(?m)^(:[a-z]+)", Keyword.Pseudo),
            # `game Name`, `fn name`, `move label`: the defined name.
            (r"(game)(\s+)(" + _NAME + ")", bygroups(Keyword.Declaration, Whitespace, Name.Class)),
            (r"(fn)(\s+)(" + _NAME + ")", bygroups(Keyword.Declaration, Whitespace, Name.Function)),
            (r"(move)(\s+)(" + _NAME + ")", bygroups(Keyword, Whitespace, Name.Label)),
            (words(CONSTANTS, suffix=r"(?![A-Za-z0-9_ω])"), Keyword.Constant),
            (words(KEYWORDS, suffix=r"(?![A-Za-z0-9_ω])"), Keyword),
            # Ordinal literals `ω^2`, `w^2` (no spaces), before names.
            (r"[ωw]\^[0-9]+", Number),
            (words(BUILTINS, suffix=r"(?![A-Za-z0-9_ω])"), Name.Builtin),
            # The outcomes P and N.
            (r"[PN](?![A-Za-z0-9_ω])", Name.Constant),
            (_NAME, Name),
            (r"[0-9]+", Number.Integer),
            (r'"([^"\\\r\n]|\\[^\r\n])*"', String.Double),
            # A string the line ends before closing (the REPL lexer's
            # `OpenString`): still a string, not an error.
            (r'"([^"\\\r\n]|\\[^\r\n])*', String.Double),
            (r"\.\.=|\.\.|->|==|!=|<=|>=|<<|>>|[=<>+\-*/%^&|]", Operator),
            (r"[()\[\]{},.]", Punctuation),
            # Anything else is a character the language does not know (the
            # REPL colours it as an error too).
            (r".", Error),
        ],
    }
