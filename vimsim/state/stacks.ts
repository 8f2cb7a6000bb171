/** Queries over the stack table (top-level and nested stacks live side by side). */
import type { ResourceRecord, SimState, StackRecord } from './model';

export function isDeleted(stack: StackRecord): boolean {
  return stack.action === 'DELETE' && stack.status === 'COMPLETE';
}

/** Live (not deleted) stack with that name in the project; names are unique among live stacks. */
export function findLiveStackByName(state: SimState, projectId: string, name: string): StackRecord | undefined {
  return Object.values(state.stacks).find((s) => s.projectId === projectId && s.name === name && !isDeleted(s));
}

/** Heat's lookup: an id finds any stack (even deleted ones), a name only live ones. */
export function lookupStack(state: SimState, projectId: string, nameOrId: string): StackRecord | undefined {
  const byId = state.stacks[nameOrId];
  if (byId && byId.projectId === projectId) return byId;
  return findLiveStackByName(state, projectId, nameOrId);
}

export function findResource(stack: StackRecord, name: string): ResourceRecord | undefined {
  return stack.resources.find((r) => r.name === name);
}

/** Every stack of a tree (the root included), deepest first so children finish before parents. */
export function stacksOfTree(state: SimState, rootId: string): StackRecord[] {
  const members = Object.values(state.stacks).filter((s) => s.rootId === rootId);
  return members.sort((a, b) => depthOf(state, b) - depthOf(state, a));
}

export function depthOf(state: SimState, stack: StackRecord): number {
  let depth = 0;
  let current: StackRecord | undefined = stack;
  while (current?.parentId) {
    depth++;
    current = state.stacks[current.parentId];
  }
  return depth;
}
