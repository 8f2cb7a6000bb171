/** The task queue of the scripts worker: the worker's own queue + "-scripts" (workflows derive it from workflowInfo().taskQueue). */
export const scriptsTaskQueue = (taskQueue: string): string => `${taskQueue}-scripts`;
