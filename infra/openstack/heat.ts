/**
 * Heat v1 orchestration client over a Keystone session: stacks, resources
 * (nested_depth), mark_unhealthy, stack actions and events. A 401 triggers one
 * re-authentication and a repeat of the call.
 */
import { KeystoneSession } from './keystone';
import { request, errorDetail, HttpResponse, OpenStackHttpError } from './http';
import { MAX_BODY_SETTING, outboundSettings } from '../../common/outbound';

/** What a stack show asks Heat for. */
export interface StackShow {
  /** false: no outputs (Heat skips resolving them). */
  outputs?: boolean;
}

export interface HeatStack {
  id: string;
  stack_name: string;
  stack_status: string;
  stack_status_reason?: string;
  creation_time?: string;
  outputs?: { output_key: string; output_value: unknown }[];
  parameters?: Record<string, unknown>;
}

export interface HeatResourceRow {
  resource_name: string;
  physical_resource_id: string;
  resource_type: string;
  resource_status: string;
  resource_status_reason?: string;
  parent_resource?: string;
  links?: { href: string; rel: string }[];
  required_by?: string[];
}

export interface StackTemplate {
  template: Record<string, unknown>;
  files?: Record<string, string>;
  parameters?: Record<string, unknown>;
}

export class HeatClient {
  constructor(private readonly session: KeystoneSession, private readonly ca?: string) {}

  private async call(method: string, path: string, body?: unknown, okStatuses = [200]): Promise<HttpResponse> {
    for (let attempt = 0; ; attempt++) {
      const token = await this.session.getToken(attempt > 0);
      // endpoint(): the catalog's URL, already checked by the outbound policy (request() checks it again, with DNS)
      const url = `${await this.session.endpoint('orchestration')}${path}`;
      const r = await request(method, url, {
        headers: { 'x-auth-token': token.value }, body, ca: this.ca, timeoutMs: 60_000,
        purpose: 'orchestration endpoint', maxBytes: outboundSettings().maxBody.heat, maxBytesSetting: MAX_BODY_SETTING.heat,
      });
      if (r.status === 401 && attempt === 0) continue;
      if (!okStatuses.includes(r.status)) throw new OpenStackHttpError(r.status, method, path, errorDetail(r, [token.value]));
      return r;
    }
  }

  async createStack(name: string, t: StackTemplate, timeoutMins = 60): Promise<{ id: string }> {
    const r = await this.call('POST', '/stacks', {
      stack_name: name, template: t.template, files: t.files ?? {}, parameters: t.parameters ?? {},
      timeout_mins: timeoutMins, disable_rollback: true,
    }, [201]);
    return { id: (r.body as { stack: { id: string } }).stack.id };
  }

  /** Stacks of the project, optionally by exact name; showDeleted includes DELETE_COMPLETE ones. */
  async listStacks(o: { name?: string; showDeleted?: boolean } = {}): Promise<HeatStack[]> {
    const q = new URLSearchParams();
    if (o.name) q.set('name', o.name);
    if (o.showDeleted) q.set('show_deleted', 'True');
    const r = await this.call('GET', `/stacks${q.size ? `?${q}` : ''}`);
    return (r.body as { stacks: HeatStack[] }).stacks;
  }

  /**
   * The live stack with that name, or null. Not Heat's name lookup: that
   * answers the oldest stack of the name that is not yet purged, which for a
   * moment after a delete is the DELETE_COMPLETE one even when a new stack of
   * the same name exists.
   */
  async findStack(name: string, opts: StackShow = {}): Promise<HeatStack | null> {
    const live = (await this.listStacks({ name })).filter((s) => s.stack_status !== 'DELETE_COMPLETE');
    live.sort((a, b) => String(b.creation_time ?? '').localeCompare(String(a.creation_time ?? '')));
    return live[0] ? this.getStack(name, live[0].id, opts) : null;
  }

  /**
   * Stack by name+id; deleted stacks still answer with DELETE_COMPLETE, unknown -> null. With `outputs: false`
   * Heat does not resolve the outputs (resolve_outputs=False): it need not load every resource, nested stacks
   * included, as a status poll has no use for them.
   */
  async getStack(name: string, id: string, opts: StackShow = {}): Promise<HeatStack | null> {
    try {
      const r = await this.call('GET', `/stacks/${encodeURIComponent(name)}/${id}${opts.outputs === false ? '?resolve_outputs=False' : ''}`);
      return (r.body as { stack: HeatStack }).stack;
    } catch (e) {
      if (e instanceof OpenStackHttpError && e.status === 404) return null;
      throw e;
    }
  }

  /** PATCH keeps what is not given (Heat's "existing"); PUT replaces the template. */
  async updateStack(name: string, id: string, t: Partial<StackTemplate>, mode: 'PATCH' | 'PUT' = 'PATCH'): Promise<void> {
    const body: Record<string, unknown> = { ...t };
    if (mode === 'PATCH') body.existing = true;
    await this.call(mode, `/stacks/${encodeURIComponent(name)}/${id}`, body, [202]);
  }

  /** Deletes the stack; one that is gone or already DELETE_COMPLETE counts as deleted. */
  async deleteStack(name: string, id: string): Promise<void> {
    try {
      await this.call('DELETE', `/stacks/${encodeURIComponent(name)}/${id}`, undefined, [204]);
    } catch (e) {
      if (e instanceof OpenStackHttpError && e.status === 404) return;
      // Heat may refuse (400, "malformed") to delete a stack it has just finished deleting (CI #28)
      if (e instanceof OpenStackHttpError && e.status === 400 && (await this.getStack(name, id, { outputs: false }))?.stack_status === 'DELETE_COMPLETE') return;
      throw e;
    }
  }

  /** cancel_update (with rollback) or cancel_without_rollback of an IN_PROGRESS stack. */
  async stackAction(name: string, id: string, action: 'cancel_update' | 'cancel_without_rollback'): Promise<void> {
    await this.call('POST', `/stacks/${encodeURIComponent(name)}/${id}/actions`, { [action]: null }, [200, 202]);
  }

  async listResources(name: string, id: string, nestedDepth = 2): Promise<HeatResourceRow[]> {
    const r = await this.call('GET', `/stacks/${encodeURIComponent(name)}/${id}/resources?nested_depth=${nestedDepth}`);
    return (r.body as { resources: HeatResourceRow[] }).resources;
  }

  async getResource(stackName: string, stackId: string, resource: string): Promise<HeatResourceRow & { attributes?: Record<string, unknown> }> {
    const r = await this.call('GET', `/stacks/${encodeURIComponent(stackName)}/${stackId}/resources/${encodeURIComponent(resource)}`);
    return (r.body as { resource: HeatResourceRow & { attributes?: Record<string, unknown> } }).resource;
  }

  async markUnhealthy(stackName: string, stackId: string, resource: string, reason: string): Promise<void> {
    await this.call('PATCH', `/stacks/${encodeURIComponent(stackName)}/${stackId}/resources/${encodeURIComponent(resource)}`, {
      mark_unhealthy: true, resource_status_reason: reason,
    });
  }

  async events(name: string, id: string): Promise<Record<string, unknown>[]> {
    const r = await this.call('GET', `/stacks/${encodeURIComponent(name)}/${id}/events`);
    return (r.body as { events: Record<string, unknown>[] }).events;
  }
}
