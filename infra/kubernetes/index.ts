/** The product's one client for a cluster's Kubernetes API. */
export { type CreateResult, KubeClient, LIST_PAGE_SIZE, type Manifest, type PatchType, type RbacSubject } from './client';
export { type DrainOptions, type DrainResult, type EvictionResult } from './drain';
export { DEFAULT_KUBE_MAX_BYTES, DEFAULT_KUBE_TIMEOUT_MS, KubeApiError, type KubeCredentials, type KubeEndpoint, kubeEndpointProblem } from './http';
export { type ConditionStatus, MIRROR_POD_ANNOTATION, isDaemonSetPod, isMirrorPod, isNodeReady, nodeInternalIp, nodeReadyStatus } from './nodes';
export type { KubeConfigMap, KubeNode, KubePod } from './schemas';
