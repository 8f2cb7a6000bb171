/**
 * Who may do what, as Tacker's and Magnum's default policies have it:
 * `admin` and `member` read and write their project, `reader` only reads it,
 * and `admin` may look across projects. A policy file (POLICY_FILE, JSON or
 * YAML: `{"vims:write": ["admin"]}`) replaces the roles of any rule.
 */
import fs from 'node:fs';
import YAML from 'yaml';
import { z } from 'zod';
import type { Scope } from '../../store/repos/scope';
import type { Caller } from './tokens';

export const RESOURCES = [
  'vnf_packages', 'vnf_instances', 'vnf_lcm_op_occs', 'vims', 'subscriptions',
  // Magnum (/v1): clustertemplates, clusters (and their actions), nodegroups, certificates, quotas, stats, mservices, the CADF log
  'clustertemplates', 'clusters', 'nodegroups', 'certificates', 'quotas', 'stats', 'mservices', 'notifications',
] as const;
export type Resource = typeof RESOURCES[number];
export type Access = 'read' | 'write';
export type Rule = `${Resource}:${Access}`;

const READERS = ['admin', 'member', 'reader'];
const WRITERS = ['admin', 'member'];
/** Rules only admins pass by default (Magnum: quota:create/update/delete, magnum-service:get_all; the audit log). */
const ADMIN_ONLY: Partial<Record<Rule, string[]>> = { 'quotas:write': ['admin'], 'mservices:read': ['admin'], 'mservices:write': ['admin'], 'notifications:read': ['admin'], 'notifications:write': ['admin'] };

const PolicyFile = z.record(z.string(), z.array(z.string().min(1)));

export class Policy {
  private constructor(private readonly rules: Map<string, string[]>) {}

  static defaults(): Policy {
    return new Policy(new Map(RESOURCES.flatMap((r) => [[`${r}:read`, ADMIN_ONLY[`${r}:read`] ?? READERS], [`${r}:write`, ADMIN_ONLY[`${r}:write`] ?? WRITERS]] as [string, string[]][])));
  }

  /** The defaults with the file's rules over them; an unknown rule name in the file is an error at start. */
  static load(file?: string): Policy {
    const p = Policy.defaults();
    if (!file) return p;
    const parsed = PolicyFile.safeParse(YAML.parse(fs.readFileSync(file, 'utf8')) ?? {});
    if (!parsed.success) throw new Error(`POLICY_FILE ${file}: expected a mapping of rule name to a list of roles`);
    for (const [rule, roles] of Object.entries(parsed.data)) {
      if (!p.rules.has(rule)) throw new Error(`POLICY_FILE ${file}: unknown rule "${rule}" (known: ${[...p.rules.keys()].join(', ')})`);
      p.rules.set(rule, roles);
    }
    return p;
  }

  allows(caller: Caller, rule: Rule): boolean {
    const roles = this.rules.get(rule) ?? [];
    return caller.roles.some((r) => roles.includes(r));
  }
}

/** Whose rows a request may touch: its own project, or every project for an admin who asks (lists) or names an id. */
export function scopeOf(caller: Caller, wantsAll = true): Scope {
  return { projectId: caller.projectId, all: caller.isAdmin && wantsAll };
}
