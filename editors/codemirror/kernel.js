// grundy's CodeMirror mode, installed beside kernel.json by
// `grundy jupyter install`. The classic Notebook (and nbclassic) loads a
// kernelspec's kernel.js when a notebook starts the kernel; the mode is
// then found by the name `language_info.codemirror_mode` gives, "grundy".
// The word lists are filled in by the install command from the REPL's
// lexer and the built-in table, so they are the same as the REPL's.
define(["codemirror/lib/codemirror", "codemirror/addon/mode/simple"], function (CodeMirror) {
  "use strict";
  var KEYWORDS = /*KEYWORDS*/[];
  var CONSTANTS = /*CONSTANTS*/[];
  var BUILTINS = /*BUILTINS*/[];
  var NAME = "[A-Za-z_\u03c9][A-Za-z0-9_\u03c9]*";
  var END = "(?![A-Za-z0-9_\u03c9])";
  function anyOf(list) {
    return new RegExp("(?:" + list.join("|") + ")" + END);
  }
  CodeMirror.defineSimpleMode("grundy", {
    start: [
      { regex: /#.*/, token: "comment" },
      { regex: /:[a-z]+/, token: "meta", sol: true },
      { regex: /"(?:[^"\\]|\\.)*"?/, token: "string" },
      { regex: new RegExp("(game)(\\s+)(" + NAME + ")"), token: ["keyword", null, "def"] },
      { regex: new RegExp("(fn)(\\s+)(" + NAME + ")"), token: ["keyword", null, "def"] },
      { regex: new RegExp("(move)(\\s+)(" + NAME + ")"), token: ["keyword", null, "variable-3"] },
      { regex: anyOf(CONSTANTS), token: "atom" },
      { regex: anyOf(KEYWORDS), token: "keyword" },
      { regex: /[\u03c9w]\^[0-9]+/, token: "number" },
      { regex: anyOf(BUILTINS), token: "builtin" },
      { regex: new RegExp("[PN]" + END), token: "atom" },
      { regex: new RegExp(NAME), token: "variable" },
      { regex: /[0-9]+/, token: "number" },
      { regex: /\.\.=|\.\.|->|==|!=|<=|>=|<<|>>|[=<>+\-*\/%^&|]/, token: "operator" },
      { regex: /[,.]/, token: null },
      { regex: /[\(\[\{]/, token: null, indent: true },
      { regex: /[\)\]\}]/, token: null, dedent: true },
      // A character the language does not know (the REPL colours it red).
      { regex: /./, token: "error" }
    ],
    meta: { lineComment: "#" }
  });
  CodeMirror.defineMIME("text/x-grundy", "grundy");
  return {
    onload: function () {
      // A notebook opened before this file loaded keeps its cells' mode:
      // set it on them now.
      var Jupyter = window.Jupyter;
      if (Jupyter && Jupyter.notebook) {
        Jupyter.notebook.get_cells().forEach(function (cell) {
          if (cell.cell_type === "code" && cell.code_mirror) {
            cell.code_mirror.setOption("mode", "grundy");
          }
        });
      }
    }
  };
});
