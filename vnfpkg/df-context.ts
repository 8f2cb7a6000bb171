import type { ToscaTypes } from './tosca-types';

/** What the node and policy readers need to know about the df file they read. */
export interface DfContext {
  /** The package's files (which exist; their content is not read here). */
  files: Readonly<Record<string, unknown>>;
  /** Package path of the df file being read; artifact paths resolve from it. */
  file: string;
  types: ToscaTypes;
}

/** Error-message prefix for one node template: "Definitions/df.yaml: node VDU1". */
export function nodeWhere(ctx: DfContext, id: string): string {
  return `${ctx.file}: node ${id}`;
}
