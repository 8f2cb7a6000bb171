/** Inputs and outputs of the Heat stack builder (see index.ts). */

/** The parts of an ETSI InstantiateVnfRequest the Heat stack depends on. */
export interface InstantiateInput {
  flavourId: string;
  /** Default: flavour.instantiationLevels.defaultLevel, else VduInitialDelta counts. */
  instantiationLevelId?: string;
  extVirtualLinks?: { id: string; resourceId: string; extCps: { cpdId: string; cpConfig?: unknown }[] }[];
  extManagedVirtualLinks?: { id: string; vnfVirtualLinkDescId: string; resourceId: string }[];
  additionalParams?: Record<string, unknown>;
}

/** What a Heat stack create/update needs: top template, nested files, parameters. */
export interface StackSpec {
  template: Record<string, unknown>;
  /** Nested templates keyed by the bare file name the top template uses as a type. */
  files: Record<string, string>;
  parameters: Record<string, unknown>;
}
