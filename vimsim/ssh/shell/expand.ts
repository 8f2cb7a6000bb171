/**
 * Word expansion: tilde, variables, command substitution, field splitting of
 * unquoted expansions, and globbing of unquoted * and ? against the host's
 * filesystem (a pattern that matches nothing stays as written, as in bash).
 */
import { BufferOutput, emptyInput, type Output } from './io';
import type { Word } from './parse';
import type { ShellApi as Shell } from '../commands/types';

interface Field {
  text: string;
  exists: boolean;
  glob: boolean;
  quotedGlobChars: boolean;
}

const newField = (): Field => ({ text: '', exists: false, glob: false, quotedGlobChars: false });

async function valueOf(part: Word['parts'][number], sh: Shell, stderr: Output): Promise<string> {
  switch (part.t) {
    case 'tilde':
      return sh.env.get('HOME') ?? sh.user.home;
    case 'lit':
      return part.v;
    case 'var': {
      const value = sh.getVar(part.name);
      if ((value === undefined || value === '') && part.fallback) return expandString(part.fallback, sh, stderr);
      return value ?? '';
    }
    case 'sub': {
      const out = new BufferOutput();
      const sub = sh.child({});
      sh.lastStatus = await sub.run(part.src, { stdin: emptyInput(), stdout: out, stderr }, 'bash');
      return out.text().replace(/\n+$/, '');
    }
  }
}

/** Expands words to argv fields. */
export async function expandWords(words: Word[], sh: Shell, stderr: Output): Promise<string[]> {
  const out: string[] = [];
  for (const word of words) out.push(...(await expandWord(word, sh, stderr)));
  return out;
}

async function expandWord(word: Word, sh: Shell, stderr: Output): Promise<string[]> {
  const fields: Field[] = [];
  let cur = newField();
  const push = () => {
    if (cur.exists) fields.push(cur);
    cur = newField();
  };
  for (const part of word.parts) {
    const value = await valueOf(part, sh, stderr);
    const quoted = part.t === 'tilde' || (part.t !== 'sub' && part.t !== 'var') || part.q;
    if (quoted) {
      cur.text += value;
      cur.exists = true;
      if (part.t === 'lit' && !part.q && /[*?]/.test(value)) cur.glob = true;
      if (part.t === 'lit' && part.q && /[*?]/.test(value)) cur.quotedGlobChars = true;
      continue;
    }
    // Unquoted expansion: split on blanks.
    const pieces = value.split(/[ \t\n]+/).filter((p) => p !== '');
    if (/^[ \t\n]/.test(value) && cur.exists) push();
    pieces.forEach((piece, i) => {
      if (i > 0) push();
      cur.text += piece;
      cur.exists = true;
    });
    if (/[ \t\n]$/.test(value) && pieces.length > 0) push();
  }
  push();
  const result: string[] = [];
  for (const f of fields) {
    if (f.glob && !f.quotedGlobChars) {
      const abs = sh.resolve(f.text);
      const matches = sh.host.fs.glob(abs);
      if (matches.length > 0) {
        const relative = !f.text.startsWith('/');
        const base = sh.cwd === '/' ? '/' : `${sh.cwd}/`;
        result.push(...matches.map((m) => (relative && m.startsWith(base) ? m.slice(base.length) : m)));
        continue;
      }
    }
    result.push(f.text);
  }
  return result;
}

/** Expands a word to one string (assignments, redirection targets, here-documents). */
export async function expandString(word: Word, sh: Shell, stderr: Output): Promise<string> {
  let text = '';
  for (const part of word.parts) text += await valueOf(part, sh, stderr);
  return text;
}
