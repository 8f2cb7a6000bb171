/**
 * The task queues beside the worker's own (workflows derive them from workflowInfo().taskQueue):
 * - "-scripts": the scripts worker, its own process (package scripts in their sandbox);
 * - "-waits": long waits that only poll (a coordination parked on its EM, in ops started before the
 *   waits were parked in the store), served by the worker's process with their own, larger slot
 *   count, so that parked waits never take the slots of real work.
 */
export const scriptsTaskQueue = (taskQueue: string): string => `${taskQueue}-scripts`;
export const waitsTaskQueue = (taskQueue: string): string => `${taskQueue}-waits`;
