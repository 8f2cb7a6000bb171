/** The few SOL005/SOL003 calls the benchmark makes, as a plain fetch client. */
import path from 'node:path';
import { zipFolder } from '../samples/build';

const SAMPLE = path.resolve(__dirname, '../samples/two_vdu_vnf');

/** The same request body test/lcm.test.ts instantiates with. */
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
  constructor(private readonly base: string) {}

  private async call(method: string, p: string, body?: unknown, expect = 200): Promise<Response> {
    const zip = Buffer.isBuffer(body);
    const r = await fetch(`${this.base}${p}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': zip ? 'application/zip' : 'application/json' },
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
    const { id } = await this.json<{ id: string }>('POST', '/vnfpkgm/v1/vnf_packages', {}, 201);
    await this.call('PUT', `/vnfpkgm/v1/vnf_packages/${id}/package_content`, zipFolder(SAMPLE), 202);
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
}
