/**
 * Mgmt Drivers: what runs a VNFD's Vnflcm hook. A hook's artifact resolves
 * to a built-in driver of this product (by a configurable mapping of known
 * Tacker driver files) or to an executable script shipped in the package.
 */
import type { z } from 'zod';
import type { LcmHook, VnfdFlavour } from '../model/vnfd';
import type { SshSession } from '../ssh';

/** A VNFC a hook acts on, with the address of one of its CPs resolved on demand. */
export interface VnfcTarget { id: string; vduId: string; serverId: string }

export interface DriverContext {
  hook: LcmHook;
  opOccId: string;
  vnfInstanceId: string;
  /** The VNFCs this hook is about (healed or added ones, or all). */
  vnfcs: VnfcTarget[];
  /** The instance's additionalParams (from instantiate), secrets included. */
  additionalParams: Record<string, unknown>;
  /** The address to reach a VNFC on: its CP's floating IP, else first fixed IP; undefined when its VDU has no such CP. */
  addressOf(vnfc: VnfcTarget, cpName: string): Promise<string | undefined>;
  /** SSH to a VNFC, its host key pinned under the VNFC id. */
  ssh(vnfc: VnfcTarget, host: string, creds: { username: string; password?: string; privateKey?: string }, secrets?: string[]): Promise<SshSession>;
  /** A file of the VNF package. */
  packageFile(path: string): Promise<Buffer>;
  /** Records progress (heartbeat) so a long hook is not timed out and the op shows its step. */
  progress(step: string): void;
}

/** What the API needs of a built-in driver: its name and the parameters it checks up front. */
export interface DriverSpec {
  name: string;
  /** additionalParams this driver needs at instantiate; checked by the API before anything runs. */
  instantiateParams?: z.ZodType;
  /** Package files those params name (field path, file path); the API checks they exist. */
  packageFiles?(params: any): { field: string; path: string }[];
  /** The params against the flavour they run on (its CPs, the ports of its BaseHOT): each problem names its field. */
  checkFlavour?(params: any, flavour: FlavourView): { field: string; reason: string }[];
  /** A scale of this aspect the driver cannot follow: the reason (the API answers 422), or undefined. */
  checkScale?(params: any, aspectId: string): string | undefined;
  /** Hooks this driver runs as a workflow of their own (a child of the hook step), by workflow type. */
  hookWorkflows?: Partial<Record<LcmHook, string>>;
}

/** What a driver spec may check its params against. */
export interface FlavourView {
  flavour: VnfdFlavour;
  /** OS::Neutron::Port resources of the flavour's BaseHOT. */
  baseHotPorts: string[];
}

/** A built-in driver: its spec and what it does at each hook (on the worker). */
export interface BuiltinDriver extends DriverSpec {
  hooks: Partial<Record<LcmHook, (ctx: DriverContext) => Promise<void>>>;
}

/** A step of a driver failed: names the step and the VNFC; output already redacted. */
export class DriverStepError extends Error {
  constructor(readonly step: string, readonly vnfc: string, detail: string) {
    super(`step "${step}" on VNFC ${vnfc} failed: ${detail}`);
    this.name = 'DriverStepError';
  }
}
