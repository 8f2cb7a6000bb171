/**
 * kubeadm's `certs` and `kubeconfig` phases on a simulated host: the CAs found
 * in the certificates directory are used (missing ones are made, as kubeadm
 * does), every missing leaf certificate is signed with the names and usages
 * kubeadm gives it, an existing leaf is kept when its CA signed it, and the
 * kubeconfig files carry client certificates of the cluster CA.
 */
import type { KeyObject } from 'node:crypto';
import type { MemFs } from '../../ssh/host/fs';
import { buildKubeconfig, parseKubeconfig } from '../kubeconfig';
import { certPem, issueCert, keyMatchesCert, newPrivateKey, parseCert, parsePrivateKey, privateKeyPem, publicKeyPem, signedBy, type Issuer } from '../pki';
import type { Effective } from './config';

const ROOT = { name: 'root', uid: 0, home: '/root' };
export const KUBERNETES_DIR = '/etc/kubernetes';

export class PhaseError extends Error {
  constructor(
    readonly phase: string,
    message: string,
  ) {
    super(message);
  }
}

type Out = (line: string) => void;

interface CaDef { name: string; base: string; cn: string }
interface LeafDef { name: string; base: string; ca: string; cn: (e: Effective) => string; o?: string[]; usages: ('server' | 'client')[]; sans?: (e: Effective) => { dns: string[]; ips: string[] } }

const CAS: CaDef[] = [
  { name: 'ca', base: 'ca', cn: 'kubernetes' },
  { name: 'front-proxy-ca', base: 'front-proxy-ca', cn: 'front-proxy-ca' },
  { name: 'etcd/ca', base: 'etcd/ca', cn: 'etcd-ca' },
];

/** The first address of the service range (10.96.0.0/12 → 10.96.0.1): the `kubernetes` Service's. */
export function serviceVip(cidr: string): string {
  const [base] = cidr.split(',')[0].split('/');
  const n = base.split('.').reduce((acc, o) => acc * 256 + Number(o), 0) + 1;
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
}

const isIp = (s: string) => /^\d+\.\d+\.\d+\.\d+$/.test(s) || s.includes(':');
function split(names: string[]): { dns: string[]; ips: string[] } {
  return { dns: names.filter((n) => !isIp(n)), ips: names.filter(isIp) };
}

function apiserverSans(e: Effective): { dns: string[]; ips: string[] } {
  const dns = [e.nodeName, 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', `kubernetes.default.svc.${e.cluster.networking.dnsDomain}`];
  const ips = [serviceVip(e.cluster.networking.serviceSubnet), e.advertiseAddress];
  const cpe = e.cluster.controlPlaneEndpoint?.replace(/:\d+$/, '');
  const extra = split([...(cpe ? [cpe] : []), ...e.cluster.apiServer.certSANs]);
  return { dns: [...new Set([...dns, ...extra.dns])], ips: [...new Set([...ips, ...extra.ips])] };
}

function etcdSans(which: 'server' | 'peer') {
  return (e: Effective) => {
    const extra = split(which === 'server' ? e.cluster.etcd.local!.serverCertSANs : e.cluster.etcd.local!.peerCertSANs);
    return { dns: [...new Set([e.nodeName, 'localhost', ...extra.dns])], ips: [...new Set([e.advertiseAddress, '127.0.0.1', '::1', ...extra.ips])] };
  };
}

const LEAVES: LeafDef[] = [
  { name: 'apiserver', base: 'apiserver', ca: 'ca', cn: () => 'kube-apiserver', usages: ['server'], sans: apiserverSans },
  { name: 'apiserver-kubelet-client', base: 'apiserver-kubelet-client', ca: 'ca', cn: () => 'kube-apiserver-kubelet-client', usages: ['client'] },
  { name: 'front-proxy-client', base: 'front-proxy-client', ca: 'front-proxy-ca', cn: () => 'front-proxy-client', usages: ['client'] },
  { name: 'etcd/server', base: 'etcd/server', ca: 'etcd/ca', cn: (e) => e.nodeName, usages: ['server', 'client'], sans: etcdSans('server') },
  { name: 'etcd/peer', base: 'etcd/peer', ca: 'etcd/ca', cn: (e) => e.nodeName, usages: ['server', 'client'], sans: etcdSans('peer') },
  { name: 'etcd/healthcheck-client', base: 'etcd/healthcheck-client', ca: 'etcd/ca', cn: () => 'kube-etcd-healthcheck-client', usages: ['client'] },
  { name: 'apiserver-etcd-client', base: 'apiserver-etcd-client', ca: 'etcd/ca', cn: () => 'kube-apiserver-etcd-client', usages: ['client'] },
];

function write(memfs: MemFs, p: string, text: string, mode: number): void {
  memfs.mkdir(p.slice(0, p.lastIndexOf('/')), ROOT, { parents: true });
  memfs.writeFile(p, text, ROOT, { mode });
  memfs.chmod(p, mode, ROOT);
}

/** A CA of the certificates directory (made when missing); throws kubeadm's error when it cannot be read. */
async function loadOrMakeCa(memfs: MemFs, dir: string, ca: CaDef, e: Effective, out: Out): Promise<Issuer> {
  const crt = `${dir}/${ca.base}.crt`;
  const key = `${dir}/${ca.base}.key`;
  if (memfs.isFile(crt)) {
    try {
      const cert = parseCert(memfs.readFile(crt, ROOT));
      if (!memfs.isFile(key)) throw new Error(`couldn't load the private key file ${key}: open ${key}: no such file or directory`);
      const k = parsePrivateKey(memfs.readFile(key, ROOT));
      out(`[certs] Using existing ${ca.name} certificate authority`);
      return { cert, key: k };
    } catch (err) {
      throw new PhaseError(`certs/${ca.name.replace('/', '-')}`, `failure loading ${ca.name} certificate authority: ${(err as Error).message}`);
    }
  }
  out(`[certs] Generating "${ca.name}" certificate and key`);
  const k = await newPrivateKey(e.keyAlgorithm);
  const cert = await issueCert({ commonName: ca.cn, isCA: true, notAfter: new Date(Date.now() + e.caValidityMs) }, k);
  write(memfs, crt, certPem(cert), 0o644);
  write(memfs, key, privateKeyPem(k), 0o600);
  return { cert, key: k };
}

/** `kubeadm init phase certs all`. */
export async function certsPhase(memfs: MemFs, e: Effective, out: Out): Promise<void> {
  const dir = e.cluster.certificatesDir;
  out(`[certs] Using certificateDir folder "${dir}"`);
  const cas = new Map<string, Issuer>();
  const order: (CaDef | LeafDef)[] = [CAS[0], LEAVES[0], LEAVES[1], CAS[1], LEAVES[2], CAS[2], LEAVES[3], LEAVES[4], LEAVES[5], LEAVES[6]];
  for (const def of order) {
    if (!('ca' in def)) {
      cas.set(def.name, await loadOrMakeCa(memfs, dir, def, e, out));
      continue;
    }
    const issuer = cas.get(def.ca)!;
    const crt = `${dir}/${def.base}.crt`;
    const keyFile = `${dir}/${def.base}.key`;
    if (memfs.isFile(crt) && memfs.isFile(keyFile)) {
      const cert = parseCert(memfs.readFile(crt, ROOT));
      if (!(await signedBy(cert, issuer.cert))) {
        throw new PhaseError(`certs/${def.name.replace('/', '-')}`, `failed to write or validate certificate "${def.name}": certificate ${def.name} is not signed by corresponding CA`);
      }
      if (!keyMatchesCert(parsePrivateKey(memfs.readFile(keyFile, ROOT)), cert)) {
        throw new PhaseError(`certs/${def.name.replace('/', '-')}`, `failed to write or validate certificate "${def.name}": the private key ${keyFile} does not match the certificate`);
      }
      out(`[certs] Using existing ${def.name} certificate and key on disk`);
      continue;
    }
    out(`[certs] Generating "${def.name}" certificate and key`);
    const sans = def.sans?.(e);
    if (sans) out(`[certs] ${def.name} serving cert is signed for DNS names [${sans.dns.join(' ')}] and IPs [${sans.ips.join(' ')}]`);
    const key = await newPrivateKey(e.keyAlgorithm);
    const cert = await issueCert({ commonName: def.cn(e), organizations: def.o, usages: def.usages, dnsNames: sans?.dns, ips: sans?.ips, notAfter: new Date(Date.now() + e.certValidityMs) }, key, issuer);
    write(memfs, crt, certPem(cert), 0o644);
    write(memfs, keyFile, privateKeyPem(key), 0o600);
  }
  if (memfs.isFile(`${dir}/sa.key`)) {
    out('[certs] Using the existing "sa" key');
    if (!memfs.isFile(`${dir}/sa.pub`)) write(memfs, `${dir}/sa.pub`, publicKeyPem(parsePrivateKey(memfs.readFile(`${dir}/sa.key`, ROOT))), 0o644);
  } else {
    out('[certs] Generating "sa" key and public key');
    const key = await newPrivateKey('RSA-2048');
    write(memfs, `${dir}/sa.key`, privateKeyPem(key), 0o600);
    write(memfs, `${dir}/sa.pub`, publicKeyPem(key), 0o644);
  }
}

/** The cluster CA as kubeadm loads it for kubeconfigs and cluster-info. */
export function loadCa(memfs: MemFs, e: Effective, phase: string): Issuer {
  const dir = e.cluster.certificatesDir;
  try {
    return { cert: parseCert(memfs.readFile(`${dir}/ca.crt`, ROOT)), key: parsePrivateKey(memfs.readFile(`${dir}/ca.key`, ROOT)) as KeyObject };
  } catch (err) {
    throw new PhaseError(phase, `couldn't create a kubeconfig; the CA files couldn't be loaded: ${(err as Error).message}`);
  }
}

export interface KubeconfigDef { file: string; user: string; orgs?: string[]; server: string }

/** init writes all five; a joining control plane only admin, controller-manager and scheduler (its kubelet bootstraps). */
export function kubeconfigDefs(e: Effective, forJoin: boolean): KubeconfigDef[] {
  const cpe = `https://${e.endpoint}`;
  const local = `https://${e.advertiseAddress}:${e.bindPort}`;
  return [
    { file: 'admin.conf', user: 'kubernetes-admin', orgs: ['kubeadm:cluster-admins'], server: cpe },
    ...(forJoin ? [] : [
      { file: 'super-admin.conf', user: 'kubernetes-super-admin', orgs: ['system:masters'], server: cpe },
      { file: 'kubelet.conf', user: `system:node:${e.nodeName}`, orgs: ['system:nodes'], server: cpe },
    ]),
    { file: 'controller-manager.conf', user: 'system:kube-controller-manager', server: local },
    { file: 'scheduler.conf', user: 'system:kube-scheduler', server: local },
  ];
}

/** `kubeadm init phase kubeconfig all`: each missing file gets a new client certificate of the cluster CA. */
export async function kubeconfigPhase(memfs: MemFs, e: Effective, out: Out, forJoin = false): Promise<void> {
  out(`[kubeconfig] Using kubeconfig folder "${KUBERNETES_DIR}"`);
  const ca = loadCa(memfs, e, 'kubeconfig/admin');
  const caPem = certPem(ca.cert);
  for (const def of kubeconfigDefs(e, forJoin)) {
    const path = `${KUBERNETES_DIR}/${def.file}`;
    const phase = `kubeconfig/${def.file.replace('.conf', '')}`;
    if (memfs.isFile(path)) {
      const doc = parseKubeconfig(memfs.readFile(path, ROOT).toString('utf8'));
      const existingCa = Buffer.from(doc.clusters[0]?.cluster['certificate-authority-data'] ?? '', 'base64').toString('utf8');
      if (existingCa.replace(/\s+/g, '') !== caPem.replace(/\s+/g, '')) throw new PhaseError(phase, `a kubeconfig file "${path}" exists already but has got the wrong CA cert`);
      out(`[kubeconfig] Using existing kubeconfig file: "${path}"`);
      continue;
    }
    out(`[kubeconfig] Writing "${def.file}" kubeconfig file`);
    const key = await newPrivateKey(e.keyAlgorithm);
    const cert = await issueCert({ commonName: def.user, organizations: def.orgs, usages: ['client'], notAfter: new Date(Date.now() + e.certValidityMs) }, key, ca);
    write(memfs, path, buildKubeconfig({ clusterName: e.cluster.clusterName, server: def.server, caPem, userName: def.user, certPem: certPem(cert), keyPem: privateKeyPem(key) }), 0o600);
  }
}
