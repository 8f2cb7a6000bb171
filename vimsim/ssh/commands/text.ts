/** Text tools drivers pipe output through: echo, printf, grep, wc, head, tail, cut, awk/sed subsets, sort, uniq, tr, base64. */
import { getopt, has, readInput, splitLines, value, values, type CommandContext, type CommandTable } from './types';

function fail(ctx: CommandContext, text: string, status: number): number {
  ctx.io.stderr.write(`${ctx.name}: ${text}\n`);
  return status;
}

function escapes(text: string): string {
  return text.replace(/\\(0[0-7]{0,3}|[abfnrtv\\]|c)/g, (_m, c: string) => {
    if (c.startsWith('0')) return String.fromCharCode(parseInt(c.slice(1) || '0', 8));
    return ({ a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', c: '' } as Record<string, string>)[c];
  });
}

/** POSIX basic regular expression to a JS one: \( \) \| \+ \? \{ \} are the special forms. */
export function breToJs(re: string): string {
  let out = '';
  for (let i = 0; i < re.length; i++) {
    const c = re[i];
    if (c === '\\' && i + 1 < re.length) {
      const n = re[++i];
      out += '()|+?{}'.includes(n) ? n : `\\${n}`;
    } else out += '()|+?{}'.includes(c) ? `\\${c}` : c;
  }
  return out;
}

async function textOf(ctx: CommandContext, files: string[]): Promise<{ text: string; ok: boolean }> {
  let text = '';
  let ok = true;
  for (const f of files.length ? files : ['-']) {
    const data = await readInput(ctx, f);
    if (data) text += data.toString('utf8');
    else ok = false;
  }
  return { text, ok };
}

const echo = (ctx: CommandContext) => {
  let args = ctx.args;
  let newline = true;
  let interpret = false;
  while (args.length && /^-[neE]+$/.test(args[0])) {
    if (args[0].includes('n')) newline = false;
    if (args[0].includes('e')) interpret = true;
    if (args[0].includes('E')) interpret = false;
    args = args.slice(1);
  }
  const text = args.join(' ');
  ctx.io.stdout.write((interpret ? escapes(text) : text) + (newline ? '\n' : ''));
  return 0;
};

const printf = (ctx: CommandContext) => {
  const [format, ...args] = ctx.args;
  if (format === undefined) return fail(ctx, 'usage: printf format [arguments]', 2);
  let out = '';
  let i = 0;
  do {
    let consumed = false;
    out += escapes(format).replace(/%(-?)(\d*)([sdibq%])/g, (_m, left: string, width: string, conv: string) => {
      if (conv === '%') return '%';
      consumed = true;
      let v = args[i++] ?? '';
      if (conv === 'd' || conv === 'i') v = String(Math.trunc(Number(v) || 0));
      if (conv === 'b') v = escapes(v);
      const w = Number(width || 0);
      return left ? v.padEnd(w) : v.padStart(w);
    });
    if (!consumed) break;
  } while (i < args.length);
  ctx.io.stdout.write(out);
  return 0;
};

async function grep(ctx: CommandContext): Promise<number> {
  const p = getopt(ctx.args, ['e', 'm', 'A', 'B', 'C', 'regexp', 'max-count']);
  const patterns = values(p, 'e', 'regexp');
  const operands = [...p.operands];
  if (patterns.length === 0) {
    const first = operands.shift();
    if (first === undefined) return fail(ctx, 'usage: grep [OPTION]... PATTERNS [FILE]...', 2);
    patterns.push(first);
  }
  const extended = has(p, 'E', 'P', 'extended-regexp') || ctx.name === 'egrep';
  const fixed = has(p, 'F', 'fixed-strings') || ctx.name === 'fgrep';
  const source = patterns
    .flatMap((pat) => pat.split('\n'))
    .map((pat) => (fixed ? pat.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : extended ? pat : breToJs(pat)))
    .map((s) => (has(p, 'x') ? `^(?:${s})$` : has(p, 'w') ? `\\b(?:${s})\\b` : s))
    .join('|');
  let re: RegExp;
  try {
    re = new RegExp(source, has(p, 'i', 'ignore-case') ? 'i' : '');
  } catch {
    return fail(ctx, 'Invalid regular expression', 2);
  }
  const invert = has(p, 'v', 'invert-match');
  const quiet = has(p, 'q', 'quiet', 'silent');
  const max = Number(value(p, 'm', 'max-count') ?? Infinity);
  const files = operands.length ? operands : ['-'];
  let matched = 0;
  let status = 0;
  for (const file of files) {
    const data = await readInput(ctx, file);
    if (!data) {
      status = 2;
      continue;
    }
    let count = 0;
    const all = splitLines(data.toString('utf8'));
    const after = Number(value(p, 'A', 'C') ?? 0);
    const before = Number(value(p, 'B', 'C') ?? 0);
    let lastPrinted = -1;
    const printLine = (n: number) => {
      if (n <= lastPrinted) return;
      if (lastPrinted >= 0 && n > lastPrinted + 1 && (after || before)) ctx.io.stdout.write('--\n');
      ctx.io.stdout.write(`${files.length > 1 ? `${file}:` : ''}${has(p, 'n') ? `${n + 1}:` : ''}${all[n]}\n`);
      lastPrinted = n;
    };
    for (const [n, line] of all.entries()) {
      if (re.test(line) === invert || count >= max) continue;
      count++;
      if (quiet || has(p, 'c', 'count') || has(p, 'l')) continue;
      if (has(p, 'o') && !invert) {
        const prefix = (files.length > 1 ? `${file}:` : '') + (has(p, 'n') ? `${n + 1}:` : '');
        for (const m of line.matchAll(new RegExp(re.source, `${re.flags}g`))) ctx.io.stdout.write(`${prefix}${m[0]}\n`);
        continue;
      }
      for (let k = Math.max(0, n - before); k <= Math.min(all.length - 1, n + after); k++) printLine(k);
    }
    if (has(p, 'c', 'count') && !quiet) ctx.io.stdout.write(`${files.length > 1 ? `${file}:` : ''}${count}\n`);
    if (has(p, 'l') && count > 0 && !quiet) ctx.io.stdout.write(`${file}\n`);
    matched += count;
  }
  if (status === 2 && !has(p, 's')) return 2;
  return matched > 0 ? 0 : 1;
}

function lineCountArg(ctx: CommandContext): { n: number; fromStart: boolean; bytes: boolean; files: string[] } {
  const args = ctx.args.map((a) => (/^-\d+$/.test(a) ? `-n${a.slice(1)}` : a));
  const p = getopt(args, ['n', 'c', 'lines', 'bytes']);
  const raw = value(p, 'c', 'bytes') ?? value(p, 'n', 'lines') ?? '10';
  return { n: Math.abs(Number(raw)) || 0, fromStart: raw.startsWith('+'), bytes: has(p, 'c', 'bytes'), files: p.operands };
}

async function headTail(ctx: CommandContext): Promise<number> {
  const { n, fromStart, bytes, files } = lineCountArg(ctx);
  const { text, ok } = await textOf(ctx, files);
  const head = ctx.name === 'head';
  if (bytes) {
    const buf = Buffer.from(text);
    ctx.io.stdout.write(head ? buf.subarray(0, n) : buf.subarray(Math.max(0, buf.length - n)));
  } else {
    const ls = splitLines(text);
    const picked = head ? ls.slice(0, n) : fromStart ? ls.slice(Math.max(0, n - 1)) : ls.slice(Math.max(0, ls.length - n));
    if (picked.length) ctx.io.stdout.write(`${picked.join('\n')}\n`);
  }
  return ok ? 0 : 1;
}

function fieldList(spec: string, count: number): number[] {
  const out: number[] = [];
  for (const part of spec.split(',')) {
    const [a, b] = part.split('-');
    const from = a === '' ? 1 : Number(a);
    const to = part.includes('-') ? (b === '' ? count : Number(b)) : from;
    for (let i = from; i <= to; i++) out.push(i);
  }
  return out;
}

/** awk: only `[/re/] {print <fields and strings>}` programs, which is what drivers use. */
async function awk(ctx: CommandContext): Promise<number> {
  const p = getopt(ctx.args, ['F', 'v']);
  const [program, ...files] = p.operands;
  const m = /^\s*(?:\/((?:[^/\\]|\\.)*)\/|NR\s*==\s*(\d+))?\s*\{\s*print\s*([^;}]*?)\s*;?\s*\}\s*$/.exec(program ?? '');
  if (!m) return fail(ctx, `program not supported by the simulator: ${program ?? ''}`, 2);
  const sep = value(p, 'F');
  const filter = m[1] ? new RegExp(m[1]) : undefined;
  const { text, ok } = await textOf(ctx, files);
  for (const [i, line] of splitLines(text).entries()) {
    if (filter && !filter.test(line)) continue;
    if (m[2] && Number(m[2]) !== i + 1) continue;
    const fields = sep ? line.split(sep.length === 1 ? sep : new RegExp(sep)) : line.trim().split(/\s+/);
    const field = (ref: string) => (ref === 'NF' ? fields[fields.length - 1] : ref === '0' ? line : fields[Number(ref) - 1]) ?? '';
    const items = m[3] === '' ? [line] : m[3].split(',').map((item) =>
      [...item.matchAll(/\$(NF|\d+)|"([^"]*)"/g)].map((t) => (t[1] !== undefined ? field(t[1]) : t[2])).join(''),
    );
    ctx.io.stdout.write(`${items.join(' ')}\n`);
  }
  return ok ? 0 : 2;
}

/** sed: `s/re/repl/flags` and `/re/d` commands, optionally in place (-i). */
async function sed(ctx: CommandContext): Promise<number> {
  const p = getopt(ctx.args, ['e', 'expression']);
  const operands = [...p.operands];
  const scripts = values(p, 'e', 'expression');
  if (scripts.length === 0 && operands.length) scripts.push(operands.shift()!);
  const ops: ((line: string) => string | null)[] = [];
  for (const full of scripts.flatMap((s) => s.split(/;|\n/)).map((s) => s.trim()).filter(Boolean)) {
    // an optional /regex/ address ("/ swap / s/^/#/"), then the command
    const addr = /^\/((?:[^/\\]|\\.)*)\/\s*(!?)\s*(.*)$/.exec(full);
    const where = addr ? new RegExp(breToJs(addr[1])) : undefined;
    const negate = addr?.[2] === '!';
    const cmd = addr ? addr[3] : full;
    const applies = (line: string) => !where || where.test(line) !== negate;
    if (cmd === 'd') {
      ops.push((line) => (applies(line) ? null : line));
      continue;
    }
    const d = cmd[1];
    const parts = cmd.startsWith('s') && d ? cmd.slice(2).split(new RegExp(`(?<!\\\\)\\${d}`)) : [];
    if (parts.length !== 3) return fail(ctx, `-e expression #1, char ${full.length}: unknown command or not supported by the simulator`, 1);
    const re = new RegExp(breToJs(parts[0]), (parts[2].includes('g') ? 'g' : '') + (parts[2].includes('I') || parts[2].includes('i') ? 'i' : ''));
    const repl = parts[1].replace(/\$/g, '$$$$').replace(/\\(\d)/g, '$$$1').replace(/(?<!\\)&/g, '$$&').replace(/\\n/g, '\n').replace(/\\(.)/g, '$1');
    ops.push((line) => (applies(line) ? line.replace(re, repl) : line));
  }
  const apply = (text: string) =>
    splitLines(text)
      .map((line) => ops.reduce<string | null>((l, op) => (l === null ? null : op(l)), line))
      .filter((l): l is string => l !== null)
      .map((l) => `${l}\n`)
      .join('');
  if (has(p, 'i', 'in-place')) {
    for (const file of operands) {
      const data = await readInput(ctx, file);
      if (!data) return 2;
      ctx.sh.host.fs.writeFile(ctx.sh.resolve(file), apply(data.toString('utf8')), ctx.sh.who);
    }
    return 0;
  }
  const { text, ok } = await textOf(ctx, operands);
  ctx.io.stdout.write(apply(text));
  return ok ? 0 : 2;
}

function trSet(spec: string): string {
  return escapes(spec).replace(/(.)-(.)/g, (_m, a: string, b: string) => {
    let out = '';
    for (let c = a.charCodeAt(0); c <= b.charCodeAt(0); c++) out += String.fromCharCode(c);
    return out;
  });
}

export const TEXT_COMMANDS: CommandTable = {
  echo: { run: echo },
  printf: { run: printf },
  grep: { run: grep },
  egrep: { run: grep },
  fgrep: { run: grep },
  wc: {
    async run(ctx) {
      const p = getopt(ctx.args);
      const { text, ok } = await textOf(ctx, p.operands);
      const counts = { l: (text.match(/\n/g) ?? []).length, w: text.split(/\s+/).filter(Boolean).length, c: Buffer.byteLength(text) };
      const chosen = (['l', 'w', 'c'] as const).filter((k) => has(p, k, k === 'l' ? 'lines' : k === 'w' ? 'words' : 'bytes') || (k === 'c' && has(p, 'm')));
      const shown = chosen.length ? chosen : (['l', 'w', 'c'] as const);
      const nums = shown.map((k) => (shown.length > 1 ? String(counts[k]).padStart(7) : String(counts[k])));
      ctx.io.stdout.write(`${nums.join(' ')}${p.operands.length ? ` ${p.operands.join(' ')}` : ''}\n`);
      return ok ? 0 : 1;
    },
  },
  head: { run: headTail },
  tail: { run: headTail },
  cut: {
    async run(ctx) {
      const p = getopt(ctx.args, ['d', 'f', 'c', 'delimiter', 'fields', 'characters']);
      const { text, ok } = await textOf(ctx, p.operands);
      const delim = value(p, 'd', 'delimiter') ?? '\t';
      const fields = value(p, 'f', 'fields');
      const chars = value(p, 'c', 'characters');
      if (!fields && !chars) return fail(ctx, 'you must specify a list of bytes, characters, or fields', 1);
      for (const line of splitLines(text)) {
        if (chars) {
          ctx.io.stdout.write(`${fieldList(chars, line.length).map((i) => line[i - 1] ?? '').join('')}\n`);
          continue;
        }
        const parts = line.split(delim);
        ctx.io.stdout.write(`${parts.length === 1 ? line : fieldList(fields!, parts.length).map((i) => parts[i - 1]).filter((x) => x !== undefined).join(delim)}\n`);
      }
      return ok ? 0 : 1;
    },
  },
  awk: { run: awk },
  sed: { run: sed },
  sort: {
    async run(ctx) {
      const p = getopt(ctx.args);
      const { text, ok } = await textOf(ctx, p.operands);
      let ls = splitLines(text);
      ls = has(p, 'n') ? ls.sort((a, b) => parseFloat(a) - parseFloat(b)) : ls.sort();
      if (has(p, 'r')) ls.reverse();
      if (has(p, 'u')) ls = ls.filter((l, i) => ls.indexOf(l) === i);
      if (ls.length) ctx.io.stdout.write(`${ls.join('\n')}\n`);
      return ok ? 0 : 2;
    },
  },
  uniq: {
    async run(ctx) {
      const p = getopt(ctx.args);
      const { text } = await textOf(ctx, p.operands);
      const groups: [string, number][] = [];
      for (const line of splitLines(text)) {
        const last = groups[groups.length - 1];
        if (last && last[0] === line) last[1]++;
        else groups.push([line, 1]);
      }
      for (const [line, n] of groups) ctx.io.stdout.write(has(p, 'c') ? `${String(n).padStart(7)} ${line}\n` : `${line}\n`);
      return 0;
    },
  },
  tr: {
    async run(ctx) {
      const p = getopt(ctx.args);
      const input = (await ctx.io.stdin.readAll()).toString('utf8');
      const [from, to] = p.operands.map(trSet);
      if (from === undefined) return fail(ctx, 'missing operand', 1);
      let out = '';
      for (const c of input) {
        const i = from.indexOf(c);
        if (has(p, 'd')) out += i >= 0 ? '' : c;
        else out += i >= 0 && to ? to[Math.min(i, to.length - 1)] : c;
      }
      if (has(p, 's') && to) out = out.replace(new RegExp(`([${to.replace(/[\]\\^-]/g, '\\$&')}])\\1+`, 'g'), '$1');
      ctx.io.stdout.write(out);
      return 0;
    },
  },
  base64: {
    async run(ctx) {
      const p = getopt(ctx.args, ['w', 'wrap']);
      const data = await readInput(ctx, p.operands[0]);
      if (!data) return 1;
      if (has(p, 'd', 'decode')) {
        ctx.io.stdout.write(Buffer.from(data.toString('utf8').replace(/\s+/g, ''), 'base64'));
        return 0;
      }
      const wrap = Number(value(p, 'w', 'wrap') ?? 76);
      const encoded = data.toString('base64');
      const wrapped = wrap > 0 ? encoded.match(new RegExp(`.{1,${wrap}}`, 'g'))?.join('\n') ?? '' : encoded;
      ctx.io.stdout.write(`${wrapped}\n`);
      return 0;
    },
  },
};
