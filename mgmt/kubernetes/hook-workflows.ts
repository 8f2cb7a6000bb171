/**
 * Which workflow runs each hook of the built-in `kubernetes` driver
 * (cluster/workflows/vnf-hooks.ts): the hook step starts it as a child, so
 * every node's install step is an activity of its own. Plain data: read by
 * the driver spec (activities) and the workflows alike.
 */
export const KUBERNETES_HOOK_WORKFLOWS = {
  instantiate_end: 'kubernetesInstantiateEnd',
  scale_start: 'kubernetesScaleStart',
  scale_end: 'kubernetesScaleEnd',
  heal_start: 'kubernetesHealStart',
  heal_end: 'kubernetesHealEnd',
  terminate_end: 'kubernetesTerminateEnd',
} as const;
