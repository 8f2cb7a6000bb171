/**
 * Read-only lookups in Nova, Glance and Neutron with a given token: what a
 * Magnum template or cluster names (image, flavors, networks, subnet, key
 * pair) must exist, and a server's addresses. By id when given one, else by
 * name; a name that matches several is Ambiguous. Every URL goes through the
 * outbound policy (infra/openstack/http.ts).
 */
import { errorDetail, OpenStackHttpError, request } from './http';

export class LookupNotFound extends Error {}
export class LookupAmbiguous extends Error {}

export interface LookupAccess {
  token(): Promise<string>;
  endpoint(type: 'compute' | 'image' | 'network'): Promise<string>;
  ca?: string;
}

export interface Image { id: string; name: string; osDistro?: string; status: string }
export interface Flavor { id: string; name: string; disk: number; ram: number; vcpus: number }
export interface Network { id: string; name: string; external: boolean; subnets: string[] }
export interface Subnet { id: string; name: string; networkId: string; cidr: string }
export interface Server { id: string; name: string; status: string; addresses: Record<string, { addr: string; version?: number }[]> }
/** What Neutron assigned a port: its MAC and fixed IPs. */
export interface PortAddresses { id: string; networkId: string; macAddress?: string; fixedIps: { ipAddress: string; subnetId?: string }[] }

/** Port ids per Neutron list request (repeated `id=` filters; keeps the URL short). */
const PORTS_PER_REQUEST = 40;

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const q = encodeURIComponent;

export class CloudLookups {
  constructor(private readonly access: LookupAccess) {}

  private async get(type: 'compute' | 'image' | 'network', path: string): Promise<{ status: number; body: any }> {
    const token = await this.access.token();
    let base = await this.access.endpoint(type);
    if (type === 'image') base = `${base.replace(/\/v2(\.\d+)?$/, '')}/v2`;
    if (type === 'network') base = `${base.replace(/\/v2\.0$/, '')}/v2.0`;
    const r = await request('GET', `${base}${path}`, { headers: { 'x-auth-token': token }, ca: this.access.ca, timeoutMs: 20_000, purpose: `${type} endpoint` });
    if (r.status !== 200 && r.status !== 404) throw new OpenStackHttpError(r.status, 'GET', path, errorDetail(r, [token]));
    return { status: r.status, body: r.body as any };
  }

  /** One match by id, else by name among `list()`. */
  private async one<T>(what: string, ident: string, byId: () => Promise<T | undefined>, byName: () => Promise<T[]>): Promise<T> {
    if (UUID.test(ident)) {
      const hit = await byId();
      if (hit) return hit;
    }
    const named = await byName();
    if (named.length > 1) throw new LookupAmbiguous(`Multiple ${what}s exist with same name ${ident}. Please use the ${what} ID instead.`);
    if (!named.length) throw new LookupNotFound(`${what} ${ident} could not be found`);
    return named[0];
  }

  async image(ident: string): Promise<Image> {
    const view = (i: any): Image => ({ id: i.id, name: i.name ?? '', osDistro: i.os_distro ?? undefined, status: i.status });
    return this.one('image', ident, async () => {
      const r = await this.get('image', `/images/${q(ident)}`);
      return r.status === 200 ? view(r.body) : undefined;
    }, async () => ((await this.get('image', `/images?name=${q(ident)}`)).body?.images ?? []).map(view));
  }

  async flavor(ident: string): Promise<Flavor> {
    const view = (f: any): Flavor => ({ id: String(f.id), name: f.name, disk: Number(f.disk ?? 0), ram: Number(f.ram ?? 0), vcpus: Number(f.vcpus ?? 0) });
    const r = await this.get('compute', `/flavors/${q(ident)}`);
    if (r.status === 200 && r.body?.flavor) return view(r.body.flavor);
    const all: Flavor[] = ((await this.get('compute', '/flavors/detail')).body?.flavors ?? []).map(view);
    const named = all.filter((f) => f.name === ident);
    if (named.length > 1) throw new LookupAmbiguous(`Multiple flavors exist with same name ${ident}. Please use the flavor ID instead.`);
    if (!named.length) throw new LookupNotFound(`flavor ${ident} could not be found`);
    return named[0];
  }

  async network(ident: string, externalOnly = false): Promise<Network> {
    const view = (n: any): Network => ({ id: n.id, name: n.name ?? '', external: n['router:external'] === true, subnets: n.subnets ?? [] });
    const ext = externalOnly ? '&router:external=True' : '';
    return this.one(externalOnly ? 'external network' : 'network', ident, async () => {
      const n = ((await this.get('network', `/networks?id=${q(ident)}${ext}`)).body?.networks ?? []).map(view)[0];
      return n && (!externalOnly || n.external) ? n : undefined;
    }, async () => ((await this.get('network', `/networks?name=${q(ident)}${ext}`)).body?.networks ?? []).map(view).filter((n: Network) => !externalOnly || n.external));
  }

  async subnet(ident: string): Promise<Subnet> {
    const view = (s: any): Subnet => ({ id: s.id, name: s.name ?? '', networkId: s.network_id, cidr: s.cidr });
    return this.one('subnet', ident, async () => ((await this.get('network', `/subnets?id=${q(ident)}`)).body?.subnets ?? []).map(view)[0],
      async () => ((await this.get('network', `/subnets?name=${q(ident)}`)).body?.subnets ?? []).map(view));
  }

  /** The caller's key pair (Nova key pairs belong to a user); its public key. */
  async keypair(name: string): Promise<{ name: string; publicKey: string }> {
    const r = await this.get('compute', `/os-keypairs/${q(name)}`);
    if (r.status === 404 || !r.body?.keypair) throw new LookupNotFound(`Unable to find keypair ${name}.`);
    return { name, publicKey: String(r.body.keypair.public_key ?? '') };
  }

  /** The ports of these ids that exist, with their addresses (a list per PORTS_PER_REQUEST ids). */
  async ports(ids: string[]): Promise<PortAddresses[]> {
    const out: PortAddresses[] = [];
    const fields = ['id', 'network_id', 'mac_address', 'fixed_ips'].map((f) => `fields=${f}`).join('&');
    for (let i = 0; i < ids.length; i += PORTS_PER_REQUEST) {
      const filter = ids.slice(i, i + PORTS_PER_REQUEST).map((id) => `id=${q(id)}`).join('&');
      const ports: any[] = (await this.get('network', `/ports?${filter}&${fields}`)).body?.ports ?? [];
      out.push(...ports.map((p) => ({
        id: String(p.id), networkId: String(p.network_id ?? ''), ...(p.mac_address ? { macAddress: String(p.mac_address) } : {}),
        fixedIps: (Array.isArray(p.fixed_ips) ? p.fixed_ips : []).filter((f: any) => f?.ip_address)
          .map((f: any) => ({ ipAddress: String(f.ip_address), ...(f.subnet_id ? { subnetId: String(f.subnet_id) } : {}) })),
      })));
    }
    return out;
  }

  async server(id: string): Promise<Server | undefined> {
    const r = await this.get('compute', `/servers/${q(id)}`);
    if (r.status === 404) return undefined;
    const s = r.body.server;
    return { id: s.id, name: s.name, status: s.status, addresses: s.addresses ?? {} };
  }
}
