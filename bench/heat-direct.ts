/**
 * Baseline (c), "Heat alone": the product's own stacks driven straight through
 * Heat's API with the product's HeatClient (infra/openstack/heat.ts), as the
 * default VIM's user (admin, project admin), no Temporal and no product
 * process in between. What is sent is read back from Heat off a stack the
 * product made (template, files, parameters: GET .../template, /files,
 * /environment), so it is byte for byte what the product sends and needs no
 * copy of the product's template building. Waiting is the product's own
 * schedule (workflow-steps/stack.ts waitForStack): a GET without outputs at once,
 * then GETs on the product's schedule (workflow-steps/poll-schedule.ts): from
 * HEAT_POLL_MS, x1.5 per poll up to 15 s, never under half the time since the
 * POST or PATCH was sent.
 */
import crypto from 'node:crypto';
import { HeatClient, StackTemplate } from '../infra/openstack/heat';
import { KeystoneSession } from '../infra/openstack/keystone';
import { request } from '../infra/openstack/http';
import { HEAT_POLL_MAX_MS_DEFAULT, nextInterval, pollDelay } from '../workflow-steps/poll-schedule';
import type { AdminLogin } from './product';


export interface DirectHeat {
  heat: HeatClient;
  /** template, files and parameters of a live stack, as Heat stored them. */
  readStack(name: string): Promise<{ id: string; spec: StackTemplate }>;
  /** Creates a stack and waits CREATE_COMPLETE; resolves with its name and the number of status GETs. */
  create(spec: StackTemplate, pollMs: number, namePrefix?: string): Promise<{ name: string; id: string; polls: number }>;
  /** PATCH (existing=true) like the product's updates, then waits UPDATE_COMPLETE; resolves with the number of status GETs. */
  update(name: string, id: string, spec: StackTemplate, pollMs: number): Promise<number>;
}

export function directHeat(admin: AdminLogin): DirectHeat {
  const session = new KeystoneSession({ authUrl: admin.authUrl, username: 'admin', password: admin.password, project: 'admin', userDomain: 'Default', projectDomain: 'Default', region: 'RegionOne' });
  const heat = new HeatClient(session);
  const get = async <T>(path: string): Promise<T> => {
    const token = await session.getToken();
    const r = await request('GET', `${await session.endpoint('orchestration')}${path}`, { headers: { 'x-auth-token': token.value }, timeoutMs: 60_000 });
    if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.text.slice(0, 500)}`);
    return r.body as T;
  };

  /** workflow-steps/stack.ts waitForStack without the redrive: *_FAILED is an error here. */
  const wait = async (name: string, id: string, action: 'CREATE' | 'UPDATE', pollMs: number, sentAt?: number): Promise<number> => {
    let interval = pollMs;
    for (let polls = 1; ; polls++) {
      const s = await heat.getStack(name, id, { outputs: false }); // as the product polls (StackDriver.status)
      if (!s) throw new Error(`stack ${name} is gone`);
      if (s.stack_status === `${action}_COMPLETE`) return polls;
      if (s.stack_status.endsWith('_FAILED')) throw new Error(`stack ${name} ${s.stack_status}: ${s.stack_status_reason}`);
      interval = pollDelay(interval, HEAT_POLL_MAX_MS_DEFAULT, sentAt === undefined ? undefined : Date.now() - sentAt);
      await new Promise((r) => setTimeout(r, interval));
      interval = nextInterval(interval, HEAT_POLL_MAX_MS_DEFAULT);
    }
  };

  return {
    heat,
    async readStack(name) {
      const s = await heat.findStack(name);
      if (!s) throw new Error(`no stack ${name}`);
      const base = `/stacks/${encodeURIComponent(name)}/${s.id}`;
      const [template, files, env] = await Promise.all([
        get<Record<string, unknown>>(`${base}/template`), get<Record<string, string>>(`${base}/files`), get<{ parameters?: Record<string, unknown> }>(`${base}/environment`),
      ]);
      return { id: s.id, spec: { template, files, parameters: env.parameters ?? {} } };
    },
    async create(spec, pollMs, namePrefix = 'bench-heat') {
      const name = `${namePrefix}-${crypto.randomUUID()}`;
      const sentAt = Date.now();
      const { id } = await heat.createStack(name, spec);
      const polls = await wait(name, id, 'CREATE', pollMs, sentAt);
      return { name, id, polls };
    },
    async update(name, id, spec, pollMs) {
      const sentAt = Date.now();
      await heat.updateStack(name, id, spec, 'PATCH');
      return wait(name, id, 'UPDATE', pollMs, sentAt);
    },
  };
}
