/**
 * /etc/keepalived/keepalived.conf as keepalived 2.0 reads it, for VRRP:
 * `vrrp_script` (script, interval, fall, rise, weight) and `vrrp_instance`
 * (state, interface, virtual_router_id, priority, advert_int,
 * virtual_ipaddress, track_script). Like keepalived, one keyword per line: the
 * value is the word after it and the rest of the line is ignored — so
 * Tacker's `interval 3 fall 3` sets the interval and leaves fall at its
 * default 1, as the real keepalived 2.0 does. global_defs, vrrp_sync_group,
 * virtual_server (LVS), authentication and unicast peers are read for
 * nothing. Braces that do not balance, or an instance without a valid
 * virtual_router_id, make the start fail.
 */

export const KEEPALIVED_CONF = '/etc/keepalived/keepalived.conf';

export interface VrrpScriptConfig {
  name: string;
  script: string;
  intervalMs: number;
  fall: number;
  rise: number;
  weight: number;
}

export interface VrrpInstanceConfig {
  name: string;
  state: 'MASTER' | 'BACKUP';
  interface?: string;
  virtualRouterId: number;
  priority: number;
  advertIntMs: number;
  /** Addresses without their prefix length. */
  vips: string[];
  /** Names of the vrrp_scripts it tracks (those that exist). */
  trackScripts: string[];
}

export interface KeepalivedConfig {
  scripts: VrrpScriptConfig[];
  instances: VrrpInstanceConfig[];
  warnings: string[];
}

interface Node {
  words: string[];
  line: number;
  children?: Node[];
}

/** Words of a line (quotes kept together, `#` and `!` start comments); braces are words of their own. */
function tokens(line: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|([{}])|([#!].*)|([^\s{}"']+)/g;
  for (const m of line.matchAll(re)) {
    if (m[4] !== undefined) break;
    out.push(m[1] ?? m[2] ?? m[3] ?? m[5]);
  }
  return out;
}

function tree(text: string): Node[] | string {
  const root: Node[] = [];
  const stack: Node[][] = [root];
  const lines = text.split('\n');
  for (const [i, raw] of lines.entries()) {
    let words: string[] = [];
    const flush = () => {
      if (words.length) stack[stack.length - 1].push({ words, line: i + 1 });
      words = [];
    };
    for (const t of tokens(raw)) {
      if (t === '{') {
        const node: Node = { words, line: i + 1, children: [] };
        stack[stack.length - 1].push(node);
        stack.push(node.children!);
        words = [];
      } else if (t === '}') {
        flush();
        if (stack.length === 1) return `line ${i + 1}: unexpected '}'`;
        stack.pop();
      } else {
        words.push(t);
      }
    }
    flush();
  }
  if (stack.length > 1) return `unexpected end of file: ${stack.length - 1} '{' not closed`;
  return root;
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

export function parseKeepalivedConfig(text: string): KeepalivedConfig | { errors: string[] } {
  const nodes = tree(text);
  if (typeof nodes === 'string') return { errors: [`${KEEPALIVED_CONF}: ${nodes}`] };
  const errors: string[] = [];
  const warnings: string[] = [];
  const scripts: VrrpScriptConfig[] = [];
  const instances: VrrpInstanceConfig[] = [];
  const extra = (n: Node) => {
    if (n.words.length > 2 && !n.children) warnings.push(`line ${n.line}: '${n.words.slice(2).join(' ')}' after '${n.words[0]} ${n.words[1]}' ignored`);
  };

  for (const top of nodes) {
    const [kw, name] = top.words;
    if (kw === 'vrrp_script' && top.children) {
      const s: VrrpScriptConfig = { name: name ?? '', script: '', intervalMs: 1000, fall: 1, rise: 1, weight: 0 };
      for (const n of top.children) {
        const [k, v] = n.words;
        if (k === 'script') s.script = n.words.slice(1).join(' ');
        else {
          extra(n);
          const num = Number(v);
          if (k === 'interval' && Number.isFinite(num)) s.intervalMs = Math.max(1, Math.floor(num)) * 1000;
          else if (k === 'fall' && Number.isInteger(num)) s.fall = Math.max(1, num);
          else if (k === 'rise' && Number.isInteger(num)) s.rise = Math.max(1, num);
          else if (k === 'weight' && Number.isInteger(num)) s.weight = num;
        }
      }
      if (!s.script) warnings.push(`vrrp_script ${s.name}: no script, ignored`);
      else scripts.push(s);
    } else if (kw === 'vrrp_instance' && top.children) {
      const inst: VrrpInstanceConfig = { name: name ?? '', state: 'BACKUP', virtualRouterId: 0, priority: 100, advertIntMs: 1000, vips: [], trackScripts: [] };
      for (const n of top.children) {
        const [k, v] = n.words;
        if (n.children) {
          if (k === 'virtual_ipaddress') {
            for (const a of n.children) {
              const addr = a.words[0].split('/')[0];
              const m = IPV4.exec(addr);
              if (!m || m.slice(1).some((o) => Number(o) > 255)) errors.push(`(${inst.name}) line ${a.line}: invalid virtual address '${a.words[0]}'`);
              else inst.vips.push(addr);
            }
          } else if (k === 'track_script') {
            inst.trackScripts.push(...n.children.map((c) => c.words[0]));
          }
          continue;
        }
        extra(n);
        const num = Number(v);
        if (k === 'state') inst.state = v === 'MASTER' ? 'MASTER' : 'BACKUP';
        else if (k === 'interface') inst.interface = v;
        else if (k === 'virtual_router_id') inst.virtualRouterId = Number.isInteger(num) ? num : -1;
        else if (k === 'priority') {
          if (Number.isInteger(num) && num >= 1 && num <= 255) inst.priority = num;
          else warnings.push(`(${inst.name}) priority '${v}' out of range [1, 255] - ignoring`);
        } else if (k === 'advert_int') {
          // keepalived takes centiseconds; the simulator's registry no less than 100 ms (it is shared by every host)
          if (Number.isFinite(num) && num > 0) inst.advertIntMs = Math.max(100, Math.round(num * 1000));
          else warnings.push(`(${inst.name}) advert_int '${v}' invalid - ignoring`);
        } else if (k === 'nopreempt' || k === 'preempt_delay') warnings.push(`(${inst.name}) ${k} is not simulated`);
      }
      if (!(inst.virtualRouterId >= 1 && inst.virtualRouterId <= 255)) errors.push(`(${inst.name}) the virtual router id must be set and between 1 & 255`);
      if (inst.vips.length === 0) warnings.push(`(${inst.name}) no virtual_ipaddress: nothing to hold`);
      instances.push(inst);
    } else if (kw !== 'global_defs') {
      warnings.push(`line ${top.line}: '${kw}' is not simulated, ignored`);
    }
  }
  for (const inst of instances) {
    const missing = inst.trackScripts.filter((t) => !scripts.some((s) => s.name === t));
    // keepalived: "track script X not found, ignoring..."
    for (const t of missing) warnings.push(`(${inst.name}) track script ${t} not found, ignoring...`);
    inst.trackScripts = inst.trackScripts.filter((t) => !missing.includes(t));
  }
  // bounded like haproxy's (haproxy-config.ts LIMITS): the registry and the script timers are the simulator's own
  if (instances.length > 16) errors.push(`${instances.length} vrrp_instances: the simulated keepalived allows 16 per host`);
  if (scripts.length > 16) errors.push(`${scripts.length} vrrp_scripts: the simulated keepalived allows 16 per host`);
  for (const inst of instances) if (inst.vips.length > 32) errors.push(`(${inst.name}) ${inst.vips.length} virtual addresses: the simulated keepalived allows 32`);
  if (errors.length) return { errors };
  return { scripts, instances, warnings };
}
