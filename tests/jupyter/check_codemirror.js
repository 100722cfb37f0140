// Runs the CodeMirror mode of the kernelspec's kernel.js (first argument)
// over rule files (the other arguments) as CodeMirror's simple mode does:
// line by line, the first rule whose regex matches at the position gives
// the token (one per group for a rule with several), and a position no
// rule matches is one character, marked `unknown` here. Prints one JSON line
// per file: its tokens as [start, end, token] in characters.
// tests/jupyter.rs compares them with the REPL's lexer.
"use strict";
const fs = require("fs");

let mode = null;
const CodeMirror = {
  defineSimpleMode(name, spec) {
    mode = { name, spec };
  },
  defineMIME() {},
};
global.define = (deps, factory) => factory(CodeMirror);
eval(fs.readFileSync(process.argv[2], "utf8"));
if (!mode || mode.name !== "grundy") {
  throw new Error("kernel.js defines no mode `grundy`");
}

// Each rule's regex, anchored at the position (sticky).
const rules = mode.spec.start.map((r) => ({
  ...r,
  sticky: new RegExp(r.regex.source, "y" + r.regex.flags.replace(/[gy]/g, "")),
}));

function lineTokens(line, offset, out) {
  let pos = 0;
  while (pos < line.length) {
    if (/\s/.test(line[pos])) {
      pos++;
      continue;
    }
    let matched = false;
    for (const r of rules) {
      if (r.sol && pos !== 0) continue;
      r.sticky.lastIndex = pos;
      const m = r.sticky.exec(line);
      if (!m || m[0].length === 0) continue;
      if (Array.isArray(r.token)) {
        let at = pos;
        for (let g = 1; g < m.length; g++) {
          const text = m[g] || "";
          if (text.length && r.token[g - 1]) {
            out.push([offset + at, offset + at + text.length, r.token[g - 1]]);
          }
          at += text.length;
        }
      } else {
        out.push([offset + pos, offset + pos + m[0].length, r.token || null]);
      }
      pos += m[0].length;
      matched = true;
      break;
    }
    if (!matched) {
      out.push([offset + pos, offset + pos + 1, "unknown"]);
      pos++;
    }
  }
}

for (const path of process.argv.slice(3)) {
  // Code points, as the Rust side counts characters.
  const chars = Array.from(fs.readFileSync(path, "utf8"));
  const tokens = [];
  let start = 0;
  for (let i = 0; i <= chars.length; i++) {
    if (i === chars.length || chars[i] === "\n") {
      lineTokens(chars.slice(start, i).join(""), start, tokens);
      start = i + 1;
    }
  }
  console.log(JSON.stringify({ file: path, tokens }));
}
