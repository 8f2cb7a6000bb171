/** Field types Magnum's WSME types use (magnum/api/controllers/v1/types.py), as zod. */
import { z } from 'zod';
import '../common'; // zod-to-openapi first

/** wtypes.StringType(min_length=1, max_length=255). */
export const Str255 = z.string().min(1, 'must be 1-255 characters').max(255, 'must be 1-255 characters');

/** Magnum's labels: a dict of strings (the client sends every value as a string); ints, floats and bools are kept as given. */
export const Labels = z.record(z.string().min(1).max(255), z.union([z.string(), z.number(), z.boolean()]));
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
