/** The few SOL005/SOL003 calls the benchmark makes, as a plain fetch client. */
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { KeystoneSession } from '../infra/openstack/keystone';
import { zipFolder } from '../samples/build';
import type { Operation } from './measure';
import type { AdminLogin } from './product';

const SAMPLE = path.resolve(__dirname, '../samples/two_vdu_vnf');

/** The same request body test/disruptive/lcm.test.ts instantiates with. */
export const INSTANTIATE_BODY = {
  flavourId: 'simple',
  instantiationLevelId: 'instantiation_level_1',
  extVirtualLinks: [{
    id: 'net0', resourceId: 'f0c82461-36b5-4d86-8322-b0bc19cda65f',
    extCps: [
      { cpdId: 'VDU1_CP1', cpConfig: [{ cpProtocolData: [{ layerProtocol: 'IP_OVER_ETHERNET' }] }] },
      { cpdId: 'VDU2_CP1', cpConfig: [{ cpProtocolData: [{ layerProtocol: 'IP_OVER_ETHERNET' }] }] },
    ],
  }],
};

export class Api {
  private readonly session?: KeystoneSession;

  /** With the admin's login, every call carries a token of the embedded Keystone's admin (project admin) in X-Auth-Token. */
  constructor(private readonly base: string, admin?: AdminLogin) {
    if (admin) this.session = new KeystoneSession({ authUrl: admin.authUrl, username: 'admin', password: admin.password, project: 'admin' });
  }

  private async call(method: string, p: string, body?: unknown, expect = 200): Promise<Response> {
    const zip = Buffer.isBuffer(body);
    const token: Record<string, string> = this.session ? { 'x-auth-token': (await this.session.getToken()).value } : {};
    const r = await fetch(`${this.base}${p}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': zip ? 'application/zip' : 'application/json' }), ...(p.startsWith(V2) ? { Version: '2.0.0' } : {}), ...token },
      body: body === undefined ? undefined : zip ? new Uint8Array(body) : JSON.stringify(body),
    });
    if (r.status !== expect) throw new Error(`${method} ${p}: ${r.status} ${await r.text()}`);
    return r;
  }

  private async json<T>(method: string, p: string, body?: unknown, expect = 200): Promise<T> {
    return (await (await this.call(method, p, body, expect)).json()) as T;
  }

  /** Onboards samples/two_vdu_vnf; returns its vnfdId. */
  async onboardSample(): Promise<string> {
    return this.onboard(zipFolder(SAMPLE));
  }

  /** Onboards a package zip; returns its vnfdId. */
  async onboard(zip: Buffer): Promise<string> {
    const { id } = await this.json<{ id: string }>('POST', '/vnfpkgm/v1/vnf_packages', {}, 201);
    await this.call('PUT', `/vnfpkgm/v1/vnf_packages/${id}/package_content`, zip, 202);
    for (let i = 0; i < 600; i++) {
      const p = await this.json<{ onboardingState: string; vnfdId: string; onboardingFailureDetails?: unknown }>('GET', `/vnfpkgm/v1/vnf_packages/${id}`);
      if (p.onboardingState === 'ONBOARDED') return p.vnfdId;
      if (p.onboardingFailureDetails) throw new Error(`onboarding failed: ${JSON.stringify(p.onboardingFailureDetails)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('onboarding did not finish within 60 s');
  }

  async createInstance(vnfdId: string): Promise<string> {
    return (await this.json<{ id: string }>('POST', '/vnflcm/v1/vnf_instances', { vnfdId, vnfInstanceName: 'bench' }, 201)).id;
  }

  /** POST .../instantiate; returns the op occ id (= the workflow id) from Location. */
  async instantiate(instanceId: string): Promise<string> {
    const r = await this.call('POST', `/vnflcm/v1/vnf_instances/${instanceId}/instantiate`, INSTANTIATE_BODY, 202);
    return String(r.headers.get('location')).split('/').pop()!;
  }

  /** POST /vnflcm/v1/vnf_instances/{id}/<task> with a body; returns the op occ id. */
  async task(instanceId: string, task: string, body: unknown): Promise<string> {
    return opIdOf(await this.call('POST', `/vnflcm/v1/vnf_instances/${instanceId}/${task}`, body, 202));
  }

  // SOL003 v2 (Version: 2.0.0), as test/disruptive/change-vnfpkg.test.ts drives change_vnfpkg.

  async createInstanceV2(vnfdId: string): Promise<string> {
    return (await this.json<{ id: string }>('POST', `${V2}/vnf_instances`, { vnfdId }, 201)).id;
  }

  /** POST .../instantiate at an instantiation level; returns the op occ id. */
  async instantiateV2(instanceId: string, instantiationLevelId: string): Promise<string> {
    const body = { ...INSTANTIATE_BODY, instantiationLevelId };
    return opIdOf(await this.call('POST', `${V2}/vnf_instances/${instanceId}/instantiate`, body, 202));
  }

  /** POST .../change_vnfpkg; returns the op occ id. */
  async changeVnfpkg(instanceId: string, body: unknown): Promise<string> {
    return opIdOf(await this.call('POST', `${V2}/vnf_instances/${instanceId}/change_vnfpkg`, body, 202));
  }

  async instance<T = any>(instanceId: string): Promise<T> {
    return this.json<T>('GET', `/vnflcm/v1/vnf_instances/${instanceId}`);
  }

  /** A call to another service of the embedded cloud (the simulator's Neutron, its /sim admin API) with the admin's token. */
  async cloud<T = any>(method: string, url: string, body?: unknown): Promise<T> {
    const r = await fetch(url, {
      method, headers: { 'x-auth-token': (await this.session!.getToken()).value, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (r.status >= 300) throw new Error(`${method} ${url}: ${r.status} ${(await r.text()).slice(0, 300)}`);
    const text = await r.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  async opOcc<T = { operationState: string; error?: { detail?: string } }>(opOccId: string): Promise<T> {
    return this.json<T>('GET', `${V2}/vnf_lcm_op_occs/${opOccId}`);
  }

  async cancel(opOccId: string, cancelMode = 'GRACEFUL'): Promise<void> {
    await this.call('POST', `${V2}/vnf_lcm_op_occs/${opOccId}/cancel`, { cancelMode }, 202);
  }
}

const V2 = '/vnflcm/v2';
const opIdOf = (r: Response) => String(r.headers.get('location')).split('/').pop()!;

/** Instantiate (b): create the instance untimed; time POST instantiate until its workflow returns. */
export function instantiateOperation(api: Api, client: Client, vnfdId: string, instanceOf: Map<string, string>): Operation<string> {
  return {
    prepare: () => api.createInstance(vnfdId),
    run: async (instanceId) => {
      const opOccId = await api.instantiate(instanceId);
      instanceOf.set(opOccId, instanceId);
      const state = await client.workflow.getHandle(opOccId).result();
      if (state !== 'COMPLETED') throw new Error(`instantiate ${opOccId} ended ${state}`);
      return opOccId;
    },
  };
}
