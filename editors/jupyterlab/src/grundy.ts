// grundy's tokenizer for CodeMirror 6, as a legacy-style stream parser
// (StreamLanguage.define runs it line by line). Its classes follow the
// REPL's lexer (src/syntax/lexer.rs) and its words come from
// words.json, which is generated from that lexer and the built-in table
// (tests/jupyter.rs checks both the file and this tokenizer in the built
// extension against the REPL's lexer).
import type { StreamParser, StringStream } from '@codemirror/language';
import words from './words.json';

/** What the tokenizer carries from one token to the next. */
export interface GrundyState {
  /** The declaring keyword (`game`, `fn`, `move`) just read, if any. */
  declaring: string | null;
}

const KEYWORDS = new Set<string>(words.keywords);
const CONSTANTS = new Set<string>(words.constants);
const BUILTINS = new Set<string>(words.builtins);

const NAME = /^[A-Za-z_\u03c9][A-Za-z0-9_\u03c9]*/;
// ω^k (or w^k): an ordinal power in a compound's key, a number.
const OMEGA_POWER = /^[\u03c9w]\^[0-9]+/;
const OPERATOR = /^(?:\.\.=|\.\.|->|==|!=|<=|>=|<<|>>|[=<>+\-*/%^&|])/;

/** The style of the name a declaring keyword introduces. */
const DECLARED: Record<string, string> = {
  game: 'typeName.definition',
  fn: 'variableName.function.definition',
  move: 'labelName'
};

function word(stream: StringStream, state: GrundyState, name: string): string {
  const declaring = state.declaring;
  state.declaring = null;
  if (declaring !== null) {
    return DECLARED[declaring];
  }
  if (CONSTANTS.has(name)) {
    return 'bool';
  }
  if (KEYWORDS.has(name)) {
    if (name in DECLARED) {
      state.declaring = name;
      return 'definitionKeyword';
    }
    return 'keyword';
  }
  if (BUILTINS.has(name)) {
    return 'variableName.standard';
  }
  if (name === 'P' || name === 'N') {
    return 'atom';
  }
  return 'variableName';
}

export const grundy: StreamParser<GrundyState> & { words: typeof words } = {
  name: 'grundy',
  words,
  startState: () => ({ declaring: null }),
  copyState: state => ({ ...state }),
  token(stream: StringStream, state: GrundyState): string | null {
    if (stream.eatSpace()) {
      return null;
    }
    if (stream.match('#')) {
      stream.skipToEnd();
      return 'lineComment';
    }
    // A REPL command (:help, :load) at the start of a cell's line.
    if (stream.sol() && stream.match(/^:[a-z]+/)) {
      return 'meta';
    }
    if (stream.match(/^"(?:[^"\\]|\\.)*"?/)) {
      state.declaring = null;
      return 'string';
    }
    if (stream.match(OMEGA_POWER)) {
      state.declaring = null;
      return 'number';
    }
    const name = stream.match(NAME) as RegExpMatchArray | null;
    if (name) {
      return word(stream, state, name[0]);
    }
    state.declaring = null;
    if (stream.match(/^[0-9]+/)) {
      return 'number';
    }
    if (stream.match(OPERATOR)) {
      return 'operator';
    }
    if (stream.match(/^[,.]/)) {
      return 'punctuation';
    }
    if (stream.match(/^[()[\]{}]/)) {
      return 'bracket';
    }
    // A character the language does not know (the REPL colours it red).
    stream.next();
    return 'invalid';
  },
  languageData: {
    commentTokens: { line: '#' }
  }
};
