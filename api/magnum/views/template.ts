/** A cluster template as Magnum shows it: every field, null when unset; proxies without their credentials. */
import type { TemplateRow } from '../../../store/repos/magnum/templates';
import type { SecretBox } from '../../../common/secrets';
import { redactString } from '../../../common/secrets';
import { links, magnumTime, orNull } from './common';

const FIELDS = [
  'coe', 'image_id', 'flavor_id', 'master_flavor_id', 'keypair_id', 'external_network_id', 'fixed_network', 'fixed_subnet',
  'network_driver', 'volume_driver', 'dns_nameserver', 'apiserver_port', 'docker_volume_size', 'docker_storage_driver',
  'cluster_distro', 'driver', 'no_proxy', 'insecure_registry', 'labels', 'tls_disabled', 'registry_enabled',
  'master_lb_enabled', 'floating_ip_enabled', 'server_type', 'tags',
] as const;

export interface Proxies { http_proxy?: string; https_proxy?: string }

export function templateProxies(box: SecretBox, row: TemplateRow): Proxies {
  return row.proxiesSealed ? box.openJson<Proxies>(row.proxiesSealed) : {};
}

/** The template as a dict; `proxies` given in full only to the patch logic, masked for answers. */
export function templateDict(row: TemplateRow, proxies: Proxies, base: string, mask = true): Record<string, unknown> {
  const a = row.attrs as Record<string, unknown>;
  const out: Record<string, unknown> = { uuid: row.id, name: row.name };
  for (const f of FIELDS) out[f] = orNull(a[f]);
  out.http_proxy = proxies.http_proxy ? (mask ? redactString(proxies.http_proxy) : proxies.http_proxy) : null;
  out.https_proxy = proxies.https_proxy ? (mask ? redactString(proxies.https_proxy) : proxies.https_proxy) : null;
  out.public = row.public;
  out.hidden = row.hidden;
  out.project_id = row.projectId;
  out.user_id = row.userId;
  out.links = links(base, 'clustertemplates', row.id);
  out.created_at = magnumTime(row.createdAt);
  out.updated_at = magnumTime(row.updatedAt);
  return out;
}
