/**
 * A parser for the bash subset that remote-execution drivers send: lists
 * (`&&`, `||`, `;`, newlines), pipelines, `( ... )` groups, redirections
 * (`>`, `>>`, `<`, `2>&1`, `&>`, here-strings and here-documents), quoting,
 * `$VAR`/`${VAR:-x}`, `$(...)`/backticks, `VAR=x cmd` prefixes, and the
 * compound commands `if`, `while`/`until`, `for` and `{ ...; }`. `case`,
 * functions, `[[ ]]` and arithmetic are not supported: they are a syntax
 * error, so a driver relying on them notices at once.
 */
import { Lexer, ShellSyntaxError, type Part, type Redir, type Token, type Word } from './lexer';

export { ShellSyntaxError } from './lexer';
export type { Part, Redir, RedirOp, Word } from './lexer';

export interface SimpleCommand {
  kind: 'simple';
  assigns: { name: string; value: Word }[];
  words: Word[];
  redirs: Redir[];
}

export interface GroupCommand {
  kind: 'group';
  body: List;
  redirs: Redir[];
}

export interface IfCommand {
  kind: 'if';
  clauses: { cond: List; body: List }[];
  elseBody?: List;
  redirs: Redir[];
}

export interface LoopCommand {
  kind: 'loop';
  until: boolean;
  cond: List;
  body: List;
  redirs: Redir[];
}

export interface ForCommand {
  kind: 'for';
  name: string;
  /** undefined: `for x; do` iterates over the positional parameters. */
  items?: Word[];
  body: List;
  redirs: Redir[];
}

export interface BraceCommand {
  kind: 'brace';
  body: List;
  redirs: Redir[];
}

export type Command = SimpleCommand | GroupCommand | IfCommand | LoopCommand | ForCommand | BraceCommand;

export interface Pipeline {
  negate: boolean;
  commands: Command[];
}

export interface AndOr {
  first: Pipeline;
  rest: { op: '&&' | '||'; pipeline: Pipeline }[];
}

export type List = AndOr[];

/** Words that cannot start a simple command. */
const RESERVED = new Set(['then', 'else', 'elif', 'fi', 'do', 'done', 'case', 'esac', 'function', '}', '[[', 'select']);
const NO_TERMINATORS = new Set<string>();

class Parser {
  private i = 0;

  constructor(private readonly tokens: Token[]) {}

  parseProgram(): List {
    const list = this.parseList(false, NO_TERMINATORS);
    if (this.i < this.tokens.length) throw this.unexpected();
    return list;
  }

  private peek(): Token | undefined {
    return this.tokens[this.i];
  }

  private isOp(v: string): boolean {
    const t = this.peek();
    return t?.k === 'op' && t.v === v;
  }

  private unexpected(): ShellSyntaxError {
    const t = this.peek();
    const text = !t ? 'newline' : t.k === 'op' ? (t.v === '\n' ? 'newline' : t.v) : t.k === 'word' ? t.word.raw : t.op;
    return new ShellSyntaxError(`syntax error near unexpected token \`${text}'`);
  }

  /** A list up to end of input, `)` (inGroup) or one of the reserved words in `until`. */
  private parseList(inGroup: boolean, until: Set<string>): List {
    const list: List = [];
    for (;;) {
      while (this.isOp('\n') || this.isOp(';')) {
        if (this.isOp(';') && list.length === 0) throw this.unexpected();
        this.i++;
      }
      const t = this.peek();
      if (!t || (inGroup && this.isOp(')'))) return list;
      if (t.k === 'word' && until.has(t.word.raw)) return list;
      list.push(this.parseAndOr());
      const sep = this.peek();
      if (!sep) return list;
      if (sep.k === 'op' && (sep.v === ';' || sep.v === '\n' || sep.v === '&')) {
        this.i++; // `&` runs in the foreground here: the simulator has no job control
        continue;
      }
      if (inGroup && this.isOp(')')) return list;
      if (sep.k === 'word' && until.has(sep.word.raw)) return list;
      throw this.unexpected();
    }
  }

  private parseAndOr(): AndOr {
    const first = this.parsePipeline();
    const rest: AndOr['rest'] = [];
    while (this.isOp('&&') || this.isOp('||')) {
      const op = (this.peek() as { v: '&&' | '||' }).v;
      this.i++;
      while (this.isOp('\n')) this.i++;
      rest.push({ op, pipeline: this.parsePipeline() });
    }
    return { first, rest };
  }

  private parsePipeline(): Pipeline {
    let negate = false;
    const t = this.peek();
    if (t?.k === 'word' && t.word.raw === '!') {
      negate = true;
      this.i++;
    }
    const commands = [this.parseCommand()];
    while (this.isOp('|')) {
      this.i++;
      while (this.isOp('\n')) this.i++;
      commands.push(this.parseCommand());
    }
    return { negate, commands };
  }

  private parseCommand(): Command {
    const first = this.peek();
    if (first?.k === 'word') {
      switch (first.word.raw) {
        case 'if': return this.parseIf();
        case 'while': case 'until': return this.parseLoop(first.word.raw === 'until');
        case 'for': return this.parseFor();
        case '{': {
          this.i++;
          const body = this.parseBody(new Set(['}']));
          this.expectWord('}');
          return { kind: 'brace', body, redirs: this.parseRedirs() };
        }
      }
    }
    if (this.isOp('(')) {
      this.i++;
      const body = this.parseList(true, NO_TERMINATORS);
      if (!this.isOp(')')) throw this.unexpected();
      this.i++;
      return { kind: 'group', body, redirs: this.parseRedirs() };
    }
    const cmd: SimpleCommand = { kind: 'simple', assigns: [], words: [], redirs: [] };
    for (;;) {
      const t = this.peek();
      if (t?.k === 'redir') {
        cmd.redirs.push(this.parseRedir());
      } else if (t?.k === 'word') {
        this.i++;
        const assign = cmd.words.length === 0 ? asAssignment(t.word) : undefined;
        if (assign) cmd.assigns.push(assign);
        else {
          if (cmd.words.length === 0 && RESERVED.has(t.word.raw)) {
            throw new ShellSyntaxError(`\`${t.word.raw}' is not supported by the simulator's shell`);
          }
          cmd.words.push(t.word);
        }
      } else break;
    }
    if (cmd.words.length === 0 && cmd.assigns.length === 0 && cmd.redirs.length === 0) throw this.unexpected();
    return cmd;
  }

  private expectWord(word: string): void {
    const t = this.peek();
    if (t?.k !== 'word' || t.word.raw !== word) throw this.unexpected();
    this.i++;
  }

  /** A non-empty list ending at one of the words. */
  private parseBody(until: Set<string>): List {
    const body = this.parseList(false, until);
    if (body.length === 0) throw this.unexpected();
    return body;
  }

  private parseIf(): IfCommand {
    this.i++; // if
    const clauses: IfCommand['clauses'] = [];
    let elseBody: List | undefined;
    for (;;) {
      const cond = this.parseBody(new Set(['then']));
      this.expectWord('then');
      const body = this.parseBody(new Set(['elif', 'else', 'fi']));
      clauses.push({ cond, body });
      const t = this.peek() as Extract<Token, { k: 'word' }>;
      this.i++;
      if (t.word.raw === 'elif') continue;
      if (t.word.raw === 'else') {
        elseBody = this.parseBody(new Set(['fi']));
        this.expectWord('fi');
      }
      break;
    }
    return { kind: 'if', clauses, elseBody, redirs: this.parseRedirs() };
  }

  private parseLoop(until: boolean): LoopCommand {
    this.i++; // while / until
    const cond = this.parseBody(new Set(['do']));
    this.expectWord('do');
    const body = this.parseBody(new Set(['done']));
    this.expectWord('done');
    return { kind: 'loop', until, cond, body, redirs: this.parseRedirs() };
  }

  private parseFor(): ForCommand {
    this.i++; // for
    const nameTok = this.peek();
    if (nameTok?.k !== 'word' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(nameTok.word.raw)) throw this.unexpected();
    this.i++;
    let items: Word[] | undefined;
    const next = this.peek();
    if (next?.k === 'word' && next.word.raw === 'in') {
      this.i++;
      items = [];
      for (let t = this.peek(); t?.k === 'word'; t = this.peek()) {
        items.push(t.word);
        this.i++;
      }
    }
    while (this.isOp(';') || this.isOp('\n')) this.i++;
    this.expectWord('do');
    const body = this.parseBody(new Set(['done']));
    this.expectWord('done');
    return { kind: 'for', name: nameTok.word.raw, items, body, redirs: this.parseRedirs() };
  }

  private parseRedirs(): Redir[] {
    const out: Redir[] = [];
    while (this.peek()?.k === 'redir') out.push(this.parseRedir());
    return out;
  }

  private parseRedir(): Redir {
    const t = this.tokens[this.i++] as Extract<Token, { k: 'redir' }>;
    const target = this.peek();
    if (target?.k !== 'word') throw this.unexpected();
    this.i++;
    const fd = t.fd ?? (t.op === '<' || t.op === '<<' || t.op === '<<<' ? 0 : 1);
    return { fd, op: t.op, target: target.word };
  }
}

function asAssignment(word: Word): { name: string; value: Word } | undefined {
  const first = word.parts[0];
  if (!first || first.t !== 'lit' || first.q) return undefined;
  const m = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(first.v);
  if (!m) return undefined;
  const rest: Part[] = [{ t: 'lit', v: first.v.slice(m[0].length), q: false }, ...word.parts.slice(1)];
  return { name: m[1], value: { parts: rest, raw: word.raw.slice(m[0].length) } };
}

export function parseScript(src: string): List {
  return new Parser(new Lexer(src).run()).parseProgram();
}
