/** curl and wget over the simulated network (host/http.ts). */
import path from 'node:path/posix';
import { FsError } from '../host/fs';
import { httpRequest, STATUS_TEXT, type HttpResponse } from '../host/http';
import { getopt, has, readInput, value, type CommandContext, type CommandTable } from './types';

const CURL_VALUED = [
  'o', 'output', 'w', 'write-out', 'X', 'request', 'H', 'header', 'd', 'data', 'data-binary', 'data-raw', 'u', 'user', 'x', 'proxy',
  'm', 'max-time', 'connect-timeout', 'retry', 'retry-delay', 'retry-max-time', 'A', 'user-agent', 'cacert', 'cert', 'key', 'E',
  'T', 'upload-file', 'F', 'form', 'e', 'referer', 'b', 'cookie', 'c', 'cookie-jar', 'resolve', 'noproxy', 'capath', 'K', 'config',
];

function headerText(res: HttpResponse): string {
  const lines = [`HTTP/1.1 ${res.status} ${STATUS_TEXT[res.status] ?? ''}`, ...Object.entries(res.headers).map(([k, v]) => `${k}: ${v}`)];
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** A curl config file (`--config FILE`, `-` = stdin): `key = "value"` / `key value` lines, as more options. */
function configArgs(text: string): string[] {
  const args: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const m = /^(-{0,2}[\w-]+)\s*(?:[=:]\s*|\s+)?(.*)$/.exec(line);
    if (!m) continue;
    const key = m[1].replace(/^-+/, '');
    const value = m[2].replace(/^"(.*)"$/, '$1').replace(/\\"/g, '"');
    args.push(key.length === 1 ? `-${key}` : `--${key}`);
    if (value !== '') args.push(value);
  }
  return args;
}

async function curl(ctx: CommandContext): Promise<number> {
  let p = getopt(ctx.args, CURL_VALUED);
  const config = value(p, 'K', 'config');
  if (config !== undefined) {
    const text = config === '-' ? (await ctx.io.stdin.readAll()).toString('utf8') : (await readInput(ctx, config))?.toString('utf8');
    if (text === undefined) return 26;
    p = getopt([...configArgs(text), ...ctx.args], CURL_VALUED);
  }
  const silent = has(p, 's', 'silent') && !has(p, 'S', 'show-error');
  const url = p.operands[0];
  const cacertFile = value(p, 'cacert');
  let cacert: string | undefined;
  if (cacertFile) {
    const node = ctx.sh.host.fs.get(ctx.sh.resolve(cacertFile));
    if (node?.kind !== 'file') {
      if (!silent) ctx.io.stderr.write(`curl: (77) error setting certificate verify locations:\n  CAfile: ${cacertFile}\n  CApath: /etc/ssl/certs\n`);
      return 77;
    }
    cacert = node.data.toString('utf8');
  }
  const opts = { user: value(p, 'u', 'user'), cacert, insecure: has(p, 'k', 'insecure') };
  if (!url) {
    ctx.io.stderr.write("curl: try 'curl --help' or 'curl --manual' for more information\n");
    return 2;
  }
  const res = await httpRequest(ctx.sh.host, url, opts);
  const writeOut = (status: number) => {
    const format = value(p, 'w', 'write-out');
    if (format) ctx.io.stdout.write(format.replace(/%\{http_code\}|%\{response_code\}/g, String(status).padStart(3, '0')).replace(/\\n/g, '\n'));
  };
  if ('curlCode' in res) {
    writeOut(0);
    if (!silent) ctx.io.stderr.write(`curl: (${res.curlCode}) ${res.message}\n`);
    return res.curlCode;
  }
  if (has(p, 'f', 'fail') && res.status >= 400) {
    if (!silent) ctx.io.stderr.write(`curl: (22) The requested URL returned error: ${res.status}\n`);
    return 22;
  }
  const body = has(p, 'I', 'head') ? headerText(res) : (has(p, 'i', 'include') ? headerText(res) : '') + res.body;
  const output = value(p, 'o', 'output') ?? (has(p, 'O', 'remote-name') ? path.basename(new URL(url).pathname) || 'index.html' : undefined);
  if (output && output !== '-') {
    try {
      ctx.sh.host.fs.writeFile(ctx.sh.resolve(output), body, ctx.sh.who);
    } catch (err) {
      if (!(err instanceof FsError)) throw err;
      if (!silent) ctx.io.stderr.write(`curl: (23) Failed writing body (0 != ${body.length})\n`);
      return 23;
    }
  } else ctx.io.stdout.write(body);
  writeOut(res.status);
  return 0;
}

async function wget(ctx: CommandContext): Promise<number> {
  const p = getopt(ctx.args, ['O', 'output-document', 'T', 'timeout', 't', 'tries', 'e', 'header', 'P']);
  const url = p.operands[0];
  if (!url) {
    ctx.io.stderr.write('wget: missing URL\n');
    return 1;
  }
  const res = await httpRequest(ctx.sh.host, url);
  if ('curlCode' in res) {
    ctx.io.stderr.write(`wget: unable to connect: ${res.message}\n`);
    return 4;
  }
  if (res.status >= 400) {
    ctx.io.stderr.write(`ERROR ${res.status}: ${STATUS_TEXT[res.status] ?? ''}.\n`);
    return 8;
  }
  const output = value(p, 'O', 'output-document') ?? (path.basename(new URL(url).pathname) || 'index.html');
  if (output === '-') ctx.io.stdout.write(res.body);
  else ctx.sh.host.fs.writeFile(ctx.sh.resolve(output), res.body, ctx.sh.who);
  return 0;
}

export const CURL_COMMANDS: CommandTable = {
  curl: { run: curl },
  wget: { run: wget },
};
