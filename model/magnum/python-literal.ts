/**
 * Python's ast.literal_eval for the values Magnum parses with it: the
 * client sends labels (and health_status_reason, node_labels, node_taints)
 * in a JSON patch as `str(dict)`, e.g. "{'a': 'b', 'n': 1, 'x': True}".
 * Dicts, lists, tuples, strings (single, double and triple quotes, escapes,
 * prefixes r/u/b), ints, floats, True, False and None; nothing is evaluated.
 */
export class LiteralError extends Error {}

const MAX_LENGTH = 64 * 1024;
const MAX_DEPTH = 32;

export function literalEval(text: string): unknown {
  if (text.length > MAX_LENGTH) throw new LiteralError(`literal longer than ${MAX_LENGTH} characters`);
  const p = new Parser(text);
  const v = p.value(0);
  p.space();
  if (!p.done()) throw p.error('unexpected text after the value');
  return v;
}

class Parser {
  private i = 0;
  constructor(private readonly s: string) {}

  done() { return this.i >= this.s.length; }
  error(m: string) { return new LiteralError(`malformed node or string at position ${this.i}: ${m}`); }
  space() { while (!this.done() && /\s/.test(this.s[this.i])) this.i++; }

  value(depth: number): unknown {
    if (depth > MAX_DEPTH) throw this.error(`nested deeper than ${MAX_DEPTH}`);
    this.space();
    const c = this.s[this.i];
    if (c === undefined) throw this.error('a value is missing');
    if (c === '{') return this.dict(depth);
    if (c === '[') return this.seq(']', depth);
    if (c === '(') return this.seq(')', depth);
    if (/['"]/.test(c) || (/[rRuUbB]/.test(c) && /['"]/.test(this.s[this.i + 1] ?? ''))) return this.str();
    const word = /^(True|False|None)\b/.exec(this.s.slice(this.i));
    if (word) {
      this.i += word[1].length;
      return word[1] === 'True' ? true : word[1] === 'False' ? false : null;
    }
    const num = /^[+-]?(\d[\d_]*(\.\d*)?([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?)/.exec(this.s.slice(this.i));
    if (num) {
      this.i += num[0].length;
      return Number(num[0].replace(/_/g, ''));
    }
    throw this.error(`unexpected "${c}"`);
  }

  private dict(depth: number): Record<string, unknown> {
    this.i++;
    const out: Record<string, unknown> = {};
    for (;;) {
      this.space();
      if (this.s[this.i] === '}') { this.i++; return out; }
      const k = this.value(depth + 1);
      if (typeof k !== 'string' && typeof k !== 'number' && typeof k !== 'boolean' && k !== null) throw this.error('a dict key must be a string or a number');
      this.space();
      if (this.s[this.i] !== ':') throw this.error('":" expected');
      this.i++;
      const key = String(k === null ? 'None' : k === true ? 'True' : k === false ? 'False' : k);
      if (key === '__proto__') throw this.error('"__proto__" is not a key');
      out[key] = this.value(depth + 1);
      this.space();
      if (this.s[this.i] === ',') { this.i++; continue; }
      if (this.s[this.i] === '}') { this.i++; return out; }
      throw this.error('"," or "}" expected');
    }
  }

  private seq(close: string, depth: number): unknown[] {
    this.i++;
    const out: unknown[] = [];
    for (;;) {
      this.space();
      if (this.s[this.i] === close) { this.i++; return out; }
      out.push(this.value(depth + 1));
      this.space();
      if (this.s[this.i] === ',') { this.i++; continue; }
      if (this.s[this.i] === close) { this.i++; return out; }
      throw this.error(`"," or "${close}" expected`);
    }
  }

  private str(): string {
    let raw = false;
    while (/[rRuUbB]/.test(this.s[this.i])) { raw ||= /[rR]/.test(this.s[this.i]); this.i++; }
    const q = this.s[this.i];
    const triple = this.s.startsWith(q.repeat(3), this.i);
    const end = triple ? q.repeat(3) : q;
    this.i += end.length;
    let out = '';
    for (;;) {
      if (this.done()) throw this.error('unterminated string');
      if (this.s.startsWith(end, this.i)) { this.i += end.length; return out; }
      const c = this.s[this.i++];
      if (!triple && c === '\n') throw this.error('line break in a string');
      if (c !== '\\' || raw) { out += c; continue; }
      const e = this.s[this.i++];
      const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '0': '\0', a: '\x07', b: '\b', f: '\f', v: '\v', '\n': '' };
      if (e in simple) { out += simple[e]; continue; }
      const hex = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
      if (!hex) { out += `\\${e}`; continue; }
      const code = this.s.slice(this.i, this.i + hex);
      if (!/^[0-9a-fA-F]+$/.test(code) || code.length !== hex) throw this.error(`bad \\${e} escape`);
      this.i += hex;
      out += String.fromCodePoint(parseInt(code, 16));
    }
  }
}
