// The command-line parser: tokens (quotes, chat markup), then positional arguments and --options bound to a spec.
import { code } from "../markdown/escape.js";

/** A word of the command line, with where it stood in the text. */
export interface Token {
  /** The word, quotes removed and escapes resolved. */
  value: string;
  /** Offsets of the word in the text, quotes included. */
  start: number;
  end: number;
  quoted: boolean;
}

/** A bad invocation: `message` says what is wrong in words meant for the chat. */
export class UsageError extends Error {
  override readonly name = "UsageError";
  /** The argument or option at fault, if one is. */
  readonly param: string | undefined;
  constructor(message: string, param?: string) {
    super(message);
    this.param = param;
  }
}

const QUOTES: Record<string, string> = {
  '"': '"',
  "'": "'",
  "\u201c": "\u201d",
  "\u2018": "\u2019",
};
/** Chat markup that may contain spaces but is one word: `@**Name**`, `@_**Name**`, `#**channel>topic**`. */
const MARKUP = /(?:@_?|#)\*\*[^*]+\*\*/y;
const UNICODE_SPACE = /\s/;

/**
 * Whether the character code is whitespace as `/\s/` defines it. A fast path for ASCII (what
 * nearly every command line is made of) because this runs for every character typed.
 */
export function isSpace(code: number): boolean {
  if (code < 128) return code === 32 || (code >= 9 && code <= 13);
  return UNICODE_SPACE.test(String.fromCharCode(code));
}

/**
 * Splits a command line into words. Quoted strings (`"..."`, `'...'`, curly quotes) are one word,
 * with `\"` escapes; chat mentions and channel links are one word even with spaces inside.
 * An unterminated quote is taken literally.
 *
 * @example
 * tokenize('@**Mia Member** "two words" x').map((t) => t.value); // ["@**Mia Member**", "two words", "x"]
 */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  const length = text.length;
  let i = 0;
  while (i < length) {
    while (i < length && isSpace(text.charCodeAt(i))) i++;
    if (i >= length) break;
    const start = i;
    const first = text[i]!;
    const close = QUOTES[first];
    if (close !== undefined) {
      let value = "";
      let j = i + 1;
      while (j < length && text[j] !== close) {
        if (text[j] === "\\" && j + 1 < length) j++;
        value += text[j];
        j++;
      }
      if (j < length) {
        tokens.push({ value, start, end: j + 1, quoted: true });
        i = j + 1;
        continue;
      }
    }
    let j = i;
    if (first === "@" || first === "#") {
      MARKUP.lastIndex = i;
      if (MARKUP.test(text)) j = MARKUP.lastIndex;
    }
    while (j < length && !isSpace(text.charCodeAt(j))) j++;
    tokens.push({ value: text.slice(start, j), start, end: j, quoted: false });
    i = j;
  }
  return tokens;
}

/** What the binder needs to know of a parameter. */
export interface ParamShape {
  /** The value must be given. */
  required: boolean;
  /** Takes the rest of the line, verbatim (positionals only). */
  rest: boolean;
  /** An option without a value (`--force`). */
  flag: boolean;
  /** Most words one value may span (a time such as `tomorrow at 9:00` spans three). */
  maxWords: number;
  /** For values spanning words: whether this text is a complete value. */
  accepts?(text: string): boolean;
}

export interface BindSpec {
  positionals: readonly (readonly [name: string, shape: ParamShape])[];
  options: readonly (readonly [name: string, shape: ParamShape])[];
  /** The options by the words that name them (`dry-run`, `dryrun`); built once by `optionIndex`. */
  optionsByWord?: ReadonlyMap<string, readonly [name: string, shape: ParamShape]>;
}

/** Raw texts by parameter name: positionals and options with a value get their text, flags `true`. */
export interface Bound {
  positionals: Map<string, string>;
  options: Map<string, string | true>;
}

/** `dryRun` as it is written on the command line: `dry-run`. */
export const optionWord = (name: string): string =>
  name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** `--word` (a letter after the dashes), unquoted, while options are still read. */
function isOptionToken(t: Token, optionsOpen: boolean): boolean {
  if (!optionsOpen || t.quoted) return false;
  const v = t.value;
  if (v.length < 3 || v.charCodeAt(0) !== 45 || v.charCodeAt(1) !== 45) return false;
  const c = v.charCodeAt(2) | 32; // lower-cased when a letter
  return c >= 97 && c <= 122;
}

/** The options of a spec by the words that name them: `--dry-run` and `--dryrun` for `dryRun`. */
export function optionIndex(
  options: BindSpec["options"],
): Map<string, readonly [name: string, shape: ParamShape]> {
  const index = new Map<string, readonly [string, ParamShape]>();
  for (const option of options) {
    index.set(optionWord(option[0]), option);
    index.set(option[0].toLowerCase(), option);
  }
  return index;
}

/**
 * Binds a command line to a spec: which text goes to which argument or option.
 * Throws UsageError for a missing argument, an extra word, an unknown option or an option
 * without its value. Options may stand anywhere before a rest-of-line argument starts.
 *
 * @example
 * bind("--silent 2h call mom", { positionals: [["in", duration], ["what", rest]], options: [["silent", flag]] });
 * // positionals: in → "2h", what → "call mom"; options: silent → true
 */
export function bind(text: string, spec: BindSpec): Bound {
  const tokens = tokenize(text);
  const bound: Bound = { positionals: new Map(), options: new Map() };
  const optionByWord = spec.optionsByWord ?? optionIndex(spec.options);
  let next = 0;
  let optionsOpen = true;

  for (let i = 0; i < tokens.length;) {
    const token = tokens[i]!;
    if (optionsOpen && !token.quoted && token.value === "--") {
      optionsOpen = false;
      i++;
      continue;
    }
    if (isOptionToken(token, optionsOpen)) {
      const equals = token.value.indexOf("=");
      const word = equals === -1 ? token.value.slice(2) : token.value.slice(2, equals);
      const inline = equals === -1 ? undefined : token.value.slice(equals + 1);
      const option = optionByWord.get(word.toLowerCase());
      if (!option) throw new UsageError(`unknown option ${code(`--${word}`)}`, word);
      const [name, shape] = option;
      if (shape.flag) {
        if (inline !== undefined)
          throw new UsageError(`${code(`--${word}`)} is a flag and takes no value`, name);
        bound.options.set(name, true);
        i++;
      } else if (inline !== undefined) {
        bound.options.set(name, inline);
        i++;
      } else {
        if (i + 1 >= tokens.length || isOptionToken(tokens[i + 1]!, optionsOpen))
          throw new UsageError(`${code(`--${word}`)} needs a value`, name);
        const n = span(text, tokens, i + 1, shape, optionsOpen);
        bound.options.set(name, valueOf(text, tokens, i + 1, n));
        i += 1 + n;
      }
      continue;
    }
    const param = spec.positionals[next];
    if (!param) throw new UsageError(`unexpected ${code(token.value)}`);
    const [name, shape] = param;
    next++;
    if (shape.rest) {
      const restTokens = tokens.slice(i);
      const only = restTokens.length === 1 ? restTokens[0]! : undefined;
      bound.positionals.set(name, only?.quoted ? only.value : text.slice(token.start).trim());
      break;
    }
    const n = span(text, tokens, i, shape, optionsOpen);
    bound.positionals.set(name, valueOf(text, tokens, i, n));
    i += n;
  }

  for (const [name, shape] of spec.positionals) {
    if (!bound.positionals.has(name) && shape.required)
      throw new UsageError(`missing <${name}>`, name);
  }
  for (const [name, shape] of spec.options) {
    if (!bound.options.has(name) && shape.required && !shape.flag)
      throw new UsageError(`missing ${code(`--${optionWord(name)}`)}`, name);
  }
  return bound;
}

/** How many words from `i` one value takes: the longest run the type accepts. */
function span(
  text: string,
  tokens: readonly Token[],
  i: number,
  shape: ParamShape,
  optionsOpen: boolean,
): number {
  if (tokens[i]!.quoted || !shape.accepts) return 1;
  let available = 0;
  while (
    i + available < tokens.length &&
    available < shape.maxWords &&
    !isOptionToken(tokens[i + available]!, optionsOpen) &&
    !(available > 0 && tokens[i + available]!.quoted)
  )
    available++;
  for (let n = available; n > 1; n--) {
    if (shape.accepts(text.slice(tokens[i]!.start, tokens[i + n - 1]!.end))) return n;
  }
  return 1;
}

/** The text of `n` words from `i`: the word itself, or the words with the spaces between. */
function valueOf(text: string, tokens: readonly Token[], i: number, n: number): string {
  return n === 1 ? tokens[i]!.value : text.slice(tokens[i]!.start, tokens[i + n - 1]!.end);
}
