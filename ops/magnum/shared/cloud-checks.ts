/**
 * What a template or cluster names must exist in the VIM, checked before
 * anything is written, with Magnum's codes and texts (magnum/api/validation.py,
 * attr_validator.py): image (with os_distro) 400, flavors 400, external
 * network 400, fixed network and subnet 400, a name matching several 409, the
 * cluster's key pair 404. The lookups see the VIM as the caller does
 * (api/magnum/lookups.ts lookupsFor).
 */
import { badRequest, conflict, HttpError, notFound } from '../../../common/http-error';
import { LookupAmbiguous, LookupNotFound, type CloudLookups, type Image } from '../../../infra/openstack/cloud-lookups';

/** The os_distro values the engine installs on (kubeadm with apt: cluster/install). */
export const SUPPORTED_DISTROS = ['ubuntu'];

/** Runs a lookup; not found / ambiguous become Magnum's answers, an unreachable VIM a 503. */
async function look<T>(fn: () => Promise<T>, notFoundAs: () => HttpError): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof LookupNotFound) throw notFoundAs();
    if (e instanceof LookupAmbiguous) throw conflict(e.message);
    if (e instanceof HttpError) throw e;
    throw new HttpError(503, `the VIM could not be asked: ${(e as Error).message.slice(0, 300)}`);
  }
}

export async function checkImage(l: CloudLookups, ident: string, serverType: string): Promise<Image> {
  const image = await look(() => l.image(ident), () => badRequest(`Image ${ident} could not be found.`));
  if (!image.osDistro) throw badRequest(`Image ${ident} doesn't contain os_distro field.`);
  if (!SUPPORTED_DISTROS.includes(image.osDistro.toLowerCase())) {
    throw badRequest(`Cluster type (${serverType}, ${image.osDistro}, kubernetes) not supported. This driver installs Kubernetes with kubeadm on images whose os_distro is ${SUPPORTED_DISTROS.join(' or ')}.`);
  }
  return image;
}

export async function checkFlavor(l: CloudLookups, ident: string, labels: Record<string, unknown>) {
  const flavor = await look(() => l.flavor(ident), () => badRequest(`Unable to find flavor ${ident}.`));
  const bootVolume = Number(labels.boot_volume_size ?? 0);
  if (flavor.disk === 0 && !(bootVolume > 0)) {
    throw badRequest(`Flavor ${ident} has no disk (disk 0): set the label boot_volume_size to boot from a volume, or choose a flavor with a disk.`);
  }
  return flavor;
}

export const checkExternalNetwork = (l: CloudLookups, ident: string) =>
  look(() => l.network(ident, true), () => badRequest(`Unable to find external network ${ident}.`));
export const checkFixedNetwork = (l: CloudLookups, ident: string) =>
  look(() => l.network(ident), () => badRequest(`Unable to find fixed network ${ident}.`));
export const checkFixedSubnet = (l: CloudLookups, ident: string) =>
  look(() => l.subnet(ident), () => badRequest(`Unable to find fixed subnet ${ident}.`));
export const checkKeypair = (l: CloudLookups, name: string) =>
  look(() => l.keypair(name), () => notFound(`Unable to find keypair ${name}.`));

export interface TemplateVimFields {
  image_id: string;
  server_type?: string;
  flavor_id?: string;
  master_flavor_id?: string;
  external_network_id?: string;
  fixed_network?: string;
  fixed_subnet?: string;
  labels?: Record<string, unknown>;
}

/** A template's VIM references, all checked; returns the image's os_distro (Magnum's cluster_distro). */
export async function checkTemplateAgainstVim(l: CloudLookups, t: TemplateVimFields): Promise<{ clusterDistro: string }> {
  const image = await checkImage(l, t.image_id, t.server_type ?? 'vm');
  for (const f of [t.flavor_id, t.master_flavor_id]) if (f) await checkFlavor(l, f, t.labels ?? {});
  if (t.external_network_id) await checkExternalNetwork(l, t.external_network_id);
  if (t.fixed_network) await checkFixedNetwork(l, t.fixed_network);
  if (t.fixed_subnet) await checkFixedSubnet(l, t.fixed_subnet);
  return { clusterDistro: image.osDistro! };
}
