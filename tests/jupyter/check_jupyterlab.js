// Runs the tokenizer of the installed JupyterLab extension (its directory
// under labextensions is the first argument) over rule files (the other
// arguments), as CodeMirror 6's StreamLanguage runs a stream parser: line
// by line, one token per call from where the last one ended.
//
// The extension's chunks are loaded as the browser would load them; its
// plugin is activated with stand-ins for the modules JupyterLab shares
// with it (@jupyterlab/codemirror, @codemirror/language), which capture
// the language it registers. Prints one JSON line with that language
// (name, mime, extensions, the parser's word lists), then one per file:
// its tokens as [start, end, style] in characters (style "null" for
// none). tests/jupyter.rs compares them with the REPL's lexer.
"use strict";
const fs = require("fs");
const path = require("path");

const dir = process.argv[2];
const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
const load = pkg.jupyterlab && pkg.jupyterlab._build && pkg.jupyterlab._build.load;
if (!load || !fs.existsSync(path.join(dir, load))) {
  throw new Error(`no remote entry ${load} in ${dir}`);
}

// The chunks push their modules onto a global array, as in the browser.
global.self = global;
const modules = {};
for (const file of fs.readdirSync(path.join(dir, "static"))) {
  if (!/^\d+\..*\.js$/.test(file)) continue;
  const chunks = [];
  global[`webpackChunk${pkg.name.replace(/[^A-Za-z0-9_$]/g, "_")}`] = chunks;
  eval(fs.readFileSync(path.join(dir, "static", file), "utf8"));
  for (const [, mods] of chunks) Object.assign(modules, mods);
}

// Stand-ins for the shared modules: every one that is not in a chunk.
let registered = null;
class LanguageSupport {
  constructor(language) {
    this.language = language;
  }
}
const shared = {
  IEditorLanguageRegistry: { name: "IEditorLanguageRegistry" },
  LanguageSupport,
  StreamLanguage: { define: (parser) => ({ parser }) },
};
const cache = {};
function require_(id) {
  if (!(id in modules)) return shared;
  if (!(id in cache)) {
    const module = { exports: {} };
    cache[id] = module;
    modules[id](module, module.exports, require_);
  }
  return cache[id].exports;
}
require_.r = (exports) => Object.defineProperty(exports, "__esModule", { value: true });
require_.d = (exports, getters) => {
  for (const k of Object.keys(getters)) {
    Object.defineProperty(exports, k, { enumerable: true, get: getters[k] });
  }
};
require_.o = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
require_.n = (m) => () => (m && m.__esModule ? m.default : m);

const plugins = Object.keys(modules)
  .map((id) => require_(id).default)
  .filter((p) => p && typeof p.activate === "function");
if (plugins.length !== 1) throw new Error(`${plugins.length} plugins, not 1`);
const plugin = plugins[0];
if (!plugin.requires.includes(shared.IEditorLanguageRegistry)) {
  throw new Error("the plugin does not ask for the language registry");
}
plugin.activate({}, { addLanguage: (spec) => (registered = spec) });
if (!registered) throw new Error("the plugin registers no language");
const parser = registered.support.language.parser;

// What StreamLanguage gives a stream parser: the methods it uses.
class StringStream {
  constructor(string) {
    this.string = string;
    this.pos = 0;
    this.start = 0;
  }
  eol() {
    return this.pos >= this.string.length;
  }
  sol() {
    return this.pos === 0;
  }
  peek() {
    return this.string.charAt(this.pos) || undefined;
  }
  next() {
    if (this.pos < this.string.length) return this.string.charAt(this.pos++);
  }
  eatSpace() {
    const start = this.pos;
    while (/[\s\u00a0]/.test(this.string.charAt(this.pos))) this.pos++;
    return this.pos > start;
  }
  skipToEnd() {
    this.pos = this.string.length;
  }
  match(pattern, consume = true) {
    if (typeof pattern === "string") {
      if (this.string.startsWith(pattern, this.pos)) {
        if (consume) this.pos += pattern.length;
        return true;
      }
      return null;
    }
    const m = this.string.slice(this.pos).match(pattern);
    if (m && m.index > 0) return null;
    if (m && consume) this.pos += m[0].length;
    return m;
  }
  current() {
    return this.string.slice(this.start, this.pos);
  }
}

console.log(
  JSON.stringify({
    name: registered.name,
    mime: registered.mime,
    extensions: registered.extensions,
    parser: parser.name,
    words: parser.words,
  })
);

// Positions count UTF-16 units in JavaScript; tokens are reported in code
// points, as the Rust side counts characters.
function codePoints(line, units) {
  return Array.from(line.slice(0, units)).length;
}

for (const file of process.argv.slice(3)) {
  const lines = fs.readFileSync(file, "utf8").split("\n");
  const tokens = [];
  let state = parser.startState(2);
  let offset = 0;
  for (const line of lines) {
    const stream = new StringStream(line);
    while (!stream.eol()) {
      stream.start = stream.pos;
      const style = parser.token(stream, state);
      if (stream.pos <= stream.start) throw new Error(`${file}: no progress at ${line}`);
      tokens.push([
        offset + codePoints(line, stream.start),
        offset + codePoints(line, stream.pos),
        style === null ? "null" : style,
      ]);
    }
    offset += Array.from(line).length + 1;
  }
  console.log(JSON.stringify({ file, tokens }));
}
