/**
 * The shell's lexer: words (with their quoting, expansions and here-document
 * bodies) and operators. The parser (parse.ts) builds commands from them.
 */

export type Part =
  | { t: 'lit'; v: string; q: boolean }
  | { t: 'var'; name: string; q: boolean; fallback?: Word }
  | { t: 'sub'; src: string; q: boolean }
  | { t: 'tilde' };

export interface Word {
  parts: Part[];
  raw: string;
}

export type RedirOp = '>' | '>>' | '<' | '>&' | '&>' | '&>>' | '<<<' | '<<';

export interface Redir {
  fd: number;
  op: RedirOp;
  target: Word;
}

export class ShellSyntaxError extends Error {}

export type Token =
  | { k: 'word'; word: Word }
  | { k: 'op'; v: '&&' | '||' | '|' | ';' | '&' | '\n' | '(' | ')' }
  | { k: 'redir'; fd: number | undefined; op: RedirOp; strip?: boolean };

/** Words that cannot start a simple command. */
const META = new Set(['|', '&', ';', '<', '>', '(', ')', '\n', ' ', '\t']);

export class Lexer {
  private i = 0;
  private readonly tokens: Token[] = [];
  /** Here-documents whose bodies start after the next newline. */
  private readonly pendingHeredocs: { word: Word; delimiter: string; quoted: boolean; strip: boolean }[] = [];

  constructor(private readonly src: string) {}

  run(): Token[] {
    const s = this.src;
    while (this.i < s.length) {
      const c = s[this.i];
      if (c === ' ' || c === '\t') {
        this.i++;
      } else if (c === '\\' && s[this.i + 1] === '\n') {
        this.i += 2;
      } else if (c === '#') {
        while (this.i < s.length && s[this.i] !== '\n') this.i++;
      } else if (c === '\n') {
        this.i++;
        this.tokens.push({ k: 'op', v: '\n' });
        this.readHeredocBodies();
      } else if (this.tryOperator()) {
        // consumed
      } else {
        this.tokens.push({ k: 'word', word: this.readWord() });
      }
    }
    if (this.pendingHeredocs.length > 0) this.readHeredocBodies();
    return this.tokens;
  }

  private tryOperator(): boolean {
    const s = this.src;
    const rest = s.slice(this.i);
    const fdMatch = /^(\d)(?=[<>])/.exec(rest);
    const fd = fdMatch ? Number(fdMatch[1]) : undefined;
    const at = fdMatch ? rest.slice(1) : rest;
    const redirs: [string, RedirOp][] = [
      ['&>>', '&>>'], ['&>', '&>'], ['<<<', '<<<'], ['<<-', '<<'], ['<<', '<<'], ['>>', '>>'], ['>&', '>&'], ['<&', '>&'], ['>|', '>'], ['>', '>'], ['<', '<'],
    ];
    for (const [text, op] of redirs) {
      if (at.startsWith(text) && !(fd !== undefined && text.startsWith('&'))) {
        this.i += (fdMatch ? 1 : 0) + text.length;
        const tok: Token = { k: 'redir', fd, op, strip: text === '<<-' };
        this.tokens.push(tok);
        if (op === '<<') this.queueHeredoc(tok.strip ?? false);
        return true;
      }
    }
    for (const op of ['&&', '||', '|', ';', '&', '(', ')'] as const) {
      if (rest.startsWith(op)) {
        if (op === ';' && rest.startsWith(';;')) throw new ShellSyntaxError("syntax error near unexpected token `;;'");
        this.i += op.length;
        this.tokens.push({ k: 'op', v: op });
        return true;
      }
    }
    return false;
  }

  /** `<<EOF`: the delimiter word follows now, the body after the end of the line. */
  private queueHeredoc(strip: boolean): void {
    while (this.src[this.i] === ' ' || this.src[this.i] === '\t') this.i++;
    const start = this.i;
    const delimWord = this.readWord();
    const raw = this.src.slice(start, this.i);
    const delimiter = delimWord.parts.map((p) => (p.t === 'lit' ? p.v : '')).join('');
    const body: Word = { parts: [], raw: '' };
    this.pendingHeredocs.push({ word: body, delimiter, quoted: /['"\\]/.test(raw), strip });
    this.tokens.push({ k: 'word', word: body });
  }

  private readHeredocBodies(): void {
    for (const doc of this.pendingHeredocs.splice(0)) {
      const lines: string[] = [];
      while (this.i < this.src.length) {
        const nl = this.src.indexOf('\n', this.i);
        const end = nl < 0 ? this.src.length : nl;
        let line = this.src.slice(this.i, end);
        this.i = nl < 0 ? end : end + 1;
        if (doc.strip) line = line.replace(/^\t+/, '');
        if (line === doc.delimiter) break;
        lines.push(line);
      }
      const text = lines.length ? `${lines.join('\n')}\n` : '';
      doc.word.raw = text;
      doc.word.parts = doc.quoted ? [{ t: 'lit', v: text, q: true }] : new Lexer(text).doubleQuotedParts(text);
    }
  }

  /** Parts of text as if inside double quotes (here-document bodies). */
  doubleQuotedParts(text: string): Part[] {
    const lexer = new Lexer(text);
    const parts: Part[] = [];
    lexer.readDoubleQuoted(parts, true);
    return parts;
  }

  private readWord(): Word {
    const s = this.src;
    const start = this.i;
    const parts: Part[] = [];
    const lit = (v: string, q: boolean) => {
      const last = parts[parts.length - 1];
      if (last && last.t === 'lit' && last.q === q) last.v += v;
      else parts.push({ t: 'lit', v, q });
    };
    if (s[this.i] === '~' && (this.i + 1 >= s.length || s[this.i + 1] === '/' || META.has(s[this.i + 1]))) {
      parts.push({ t: 'tilde' });
      this.i++;
    }
    while (this.i < s.length && !META.has(s[this.i])) {
      const c = s[this.i];
      if (c === "'") {
        const end = s.indexOf("'", this.i + 1);
        if (end < 0) throw new ShellSyntaxError("unexpected EOF while looking for matching `''");
        lit(s.slice(this.i + 1, end), true);
        this.i = end + 1;
      } else if (c === '"') {
        this.i++;
        this.readDoubleQuoted(parts, false);
      } else if (c === '\\') {
        if (s[this.i + 1] === '\n') this.i += 2;
        else {
          lit(s[this.i + 1] ?? '', true);
          this.i += 2;
        }
      } else if (c === '$' && s[this.i + 1] === "'") {
        const end = s.indexOf("'", this.i + 2);
        if (end < 0) throw new ShellSyntaxError("unexpected EOF while looking for matching `''");
        lit(ansiC(s.slice(this.i + 2, end)), true);
        this.i = end + 1;
      } else if (c === '$' || c === '`') {
        const part = this.readDollar(false);
        if (part) parts.push(part);
        else lit('$', false);
      } else {
        lit(c, false);
        this.i++;
      }
    }
    return { parts, raw: s.slice(start, this.i) };
  }

  /** After an opening quote (or in a here-document body when `whole`): up to the closing quote. */
  readDoubleQuoted(parts: Part[], whole: boolean): void {
    const s = this.src;
    let buf = '';
    const flush = () => {
      if (buf) parts.push({ t: 'lit', v: buf, q: true });
      buf = '';
    };
    let closed = whole;
    while (this.i < s.length) {
      const c = s[this.i];
      if (c === '"' && !whole) {
        this.i++;
        closed = true;
        break;
      }
      if (c === '\\' && '$`"\\\n'.includes(s[this.i + 1] ?? '') && !(whole && s[this.i + 1] === '"')) {
        if (s[this.i + 1] !== '\n') buf += s[this.i + 1];
        this.i += 2;
      } else if (c === '$' || c === '`') {
        const part = this.readDollar(true);
        if (part) {
          flush();
          parts.push(part);
        } else buf += '$';
      } else {
        buf += c;
        this.i++;
      }
    }
    if (!closed) throw new ShellSyntaxError('unexpected EOF while looking for matching `"\'');
    flush();
    // "" is still a (empty) word.
    if (parts.length === 0) parts.push({ t: 'lit', v: '', q: true });
  }

  /** `$NAME`, `${NAME}`, `${NAME:-x}`, `$?`, `$1`, `$(cmd)`, `` `cmd` ``; undefined for a lone `$`. */
  private readDollar(q: boolean): Part | undefined {
    const s = this.src;
    if (s[this.i] === '`') {
      const end = s.indexOf('`', this.i + 1);
      if (end < 0) throw new ShellSyntaxError('unexpected EOF while looking for matching ``\'');
      const src = s.slice(this.i + 1, end);
      this.i = end + 1;
      return { t: 'sub', src, q };
    }
    const next = s[this.i + 1];
    if (next === '(') {
      if (s[this.i + 2] === '(') throw new ShellSyntaxError('arithmetic expansion $((...)) is not supported by the simulator');
      const end = matchingParen(s, this.i + 2);
      const src = s.slice(this.i + 2, end);
      this.i = end + 1;
      return { t: 'sub', src, q };
    }
    if (next === '{') {
      const end = s.indexOf('}', this.i + 2);
      if (end < 0) throw new ShellSyntaxError("unexpected EOF while looking for matching `}'");
      const inner = s.slice(this.i + 2, end);
      this.i = end + 1;
      const m = /^([A-Za-z_][A-Za-z0-9_]*|\d+|[?#$@*])(?:(:?-)(.*))?$/s.exec(inner);
      if (!m) throw new ShellSyntaxError(`\${${inner}}: bad substitution`);
      const fallback = m[2] ? { parts: new Lexer(m[3]).doubleQuotedParts(m[3]), raw: m[3] } : undefined;
      return { t: 'var', name: m[1], q, fallback };
    }
    const m = /^([A-Za-z_][A-Za-z0-9_]*|\d|[?#$@*])/.exec(s.slice(this.i + 1));
    if (!m) {
      this.i++;
      return undefined;
    }
    this.i += 1 + m[1].length;
    return { t: 'var', name: m[1], q };
  }
}

function matchingParen(s: string, from: number): number {
  let depth = 1;
  for (let i = from; i < s.length; i++) {
    const c = s[i];
    if (c === "'") {
      i = s.indexOf("'", i + 1);
      if (i < 0) break;
    } else if (c === '"') {
      for (i++; i < s.length && s[i] !== '"'; i++) if (s[i] === '\\') i++;
    } else if (c === '\\') i++;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  throw new ShellSyntaxError("unexpected EOF while looking for matching `)'");
}

function ansiC(text: string): string {
  const map: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '0': '\0', e: '\x1b' };
  return text.replace(/\\(.)/g, (_m, c: string) => map[c] ?? `\\${c}`);
}

