/**
 * What the engine reads from the Kubernetes API, parsed with zod: only the
 * fields it uses (unknown fields are dropped), so an unexpected answer is
 * an error at the boundary and not an undefined deep inside a workflow.
 */
import { z } from 'zod';

const stringMap = z.record(z.string(), z.string());

export const objectMetaSchema = z.object({
  name: z.string(),
  namespace: z.string().optional(),
  uid: z.string().optional(),
  resourceVersion: z.string().optional(),
  creationTimestamp: z.string().optional(),
  deletionTimestamp: z.string().optional(),
  labels: stringMap.optional(),
  annotations: stringMap.optional(),
  ownerReferences: z.array(z.object({
    apiVersion: z.string().optional(),
    kind: z.string(),
    name: z.string(),
    uid: z.string().optional(),
    controller: z.boolean().optional(),
  })).optional(),
});

export const nodeConditionSchema = z.object({
  type: z.string(),
  status: z.string(),
  reason: z.string().optional(),
  message: z.string().optional(),
  lastHeartbeatTime: z.string().nullable().optional(),
  lastTransitionTime: z.string().nullable().optional(),
});

export const nodeSchema = z.object({
  metadata: objectMetaSchema,
  spec: z.object({
    unschedulable: z.boolean().optional(),
    podCIDR: z.string().optional(),
    providerID: z.string().optional(),
    taints: z.array(z.object({ key: z.string(), value: z.string().optional(), effect: z.string() })).optional(),
  }).optional(),
  status: z.object({
    conditions: z.array(nodeConditionSchema).optional(),
    addresses: z.array(z.object({ type: z.string(), address: z.string() })).optional(),
    nodeInfo: z.object({ kubeletVersion: z.string().optional(), kernelVersion: z.string().optional() }).optional(),
  }).optional(),
});
export type KubeNode = z.infer<typeof nodeSchema>;

export const podSchema = z.object({
  metadata: objectMetaSchema,
  spec: z.object({ nodeName: z.string().optional(), containers: z.array(z.object({ name: z.string(), image: z.string().optional() })).optional() }).optional(),
  status: z.object({ phase: z.string().optional() }).optional(),
});
export type KubePod = z.infer<typeof podSchema>;

/** A list page: its items and the token of the next page. */
export function listSchema<T extends z.ZodType>(item: T) {
  return z.object({
    metadata: z.object({ continue: z.string().optional(), resourceVersion: z.string().optional() }).optional(),
    items: z.array(item).nullable().transform((x) => x ?? []),
  });
}

export const configMapSchema = z.object({
  metadata: objectMetaSchema,
  data: stringMap.optional(),
  binaryData: stringMap.optional(),
});
export type KubeConfigMap = z.infer<typeof configMapSchema>;

/** authentication.k8s.io/v1 TokenRequest, as the API answers it. */
export const tokenRequestSchema = z.object({
  status: z.object({ token: z.string().min(1), expirationTimestamp: z.string() }),
});

/** authentication.k8s.io/v1 SelfSubjectReview: who the API server takes the caller for. */
export const selfSubjectReviewSchema = z.object({
  status: z.object({
    userInfo: z.object({
      username: z.string().optional(),
      uid: z.string().optional(),
      groups: z.array(z.string()).optional(),
    }),
  }),
});
