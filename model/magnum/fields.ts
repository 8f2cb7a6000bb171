/** Field types Magnum's WSME types use (magnum/api/controllers/v1/types.py), as zod. */
import { z } from 'zod';
import '../common'; // zod-to-openapi first

/** wtypes.StringType(min_length=1, max_length=255). */
export const Str255 = z.string().min(1, 'must be 1-255 characters').max(255, 'must be 1-255 characters');

/** A Kubernetes release as kube_tag gives it: v1.37.2, 1.37.2, or Magnum's v1.28.9-rancher1. */
export const KUBE_TAG = /^v?\d{1,3}\.\d{1,3}\.\d{1,3}(-[A-Za-z0-9.]{1,32})?$/;
const CIDR = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}\/(3[0-2]|[12]?\d)$/;
/** Labels the cluster engine turns into node commands and files: checked, so that nothing else reaches a shell. */
const ENGINE_LABELS: Record<string, [RegExp, string]> = {
  kube_tag: [KUBE_TAG, 'must be a Kubernetes version like v1.37.2'],
  calico_ipv4pool: [CIDR, 'must be an IPv4 CIDR like 10.100.0.0/16'],
  flannel_network_cidr: [CIDR, 'must be an IPv4 CIDR like 10.100.0.0/16'],
  service_cluster_ip_range: [CIDR, 'must be an IPv4 CIDR like 10.254.0.0/16'],
};

/** Magnum's labels: a dict of strings (the client sends every value as a string); ints, floats and bools are kept as given. */
export const Labels = z.record(z.string().min(1).max(255), z.union([z.string(), z.number(), z.boolean()])).superRefine((labels, ctx) => {
  for (const [key, [re, message]] of Object.entries(ENGINE_LABELS)) {
    if (labels[key] !== undefined && !re.test(String(labels[key]))) ctx.addIssue({ code: 'custom', path: [key], message });
  }
});
export type Labels = z.infer<typeof Labels>;

const IPV4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;
const IPV6 = /^[0-9a-fA-F:]+(%\w+)?$/;

/** Comma-separated IP addresses (types.DNSListType). */
export const DnsList = z.string().max(255).refine(
  (s) => s.split(',').every((ip) => IPV4.test(ip.trim()) || (ip.includes(':') && IPV6.test(ip.trim()))),
  'must be a comma-separated list of IP addresses',
);

/** An HTTP(S) proxy URL (written into apt and containerd drop-ins on the nodes: no quotes, spaces or control characters). */
export const ProxyUrl = z.string().min(1).max(255).regex(/^https?:\/\/[^\s"'\\]+$/, 'must be an http:// or https:// URL without spaces or quotes');
/** A comma-separated host list for no_proxy. */
export const NoProxy = z.string().min(1).max(255).regex(/^[^\s"'\\]+$/, 'must be a comma-separated host list without spaces or quotes');

/** Kubernetes-style node labels: both parts strings. */
export const NodeLabels = z.record(z.string().min(1).max(317), z.string().max(63));
export const NodeTaint = z.object({
  key: z.string().min(1).max(317),
  value: z.string().max(63).optional(),
  effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']),
}).strict();
export const NodeTaints = z.array(NodeTaint).max(64);
export type NodeTaint = z.infer<typeof NodeTaint>;

/** A cluster name (Magnum: ^[a-zA-Z][a-zA-Z0-9_.-]*$, at most 242). */
export const ClusterName = z.string().min(1).max(242, 'must be at most 242 characters')
  .regex(/^[a-zA-Z][a-zA-Z0-9_.-]*$/, 'must start with a letter and hold only letters, digits, "_", "." and "-"');
