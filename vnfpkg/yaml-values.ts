import { PackageError } from './package-error';

/** A parsed YAML mapping. */
export type YamlMap = Record<string, unknown>;

export function isMap(value: unknown): value is YamlMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/*
 * Typed readers for values taken out of the VNFD. `where` says which file and
 * node the value belongs to, so a wrong value is reported as e.g.
 * "Definitions/df.yaml: node VDU1: vdu_profile.max_number_of_instances must be a number".
 * Absent values (undefined/null) are fine for the opt* readers.
 */

export function optMap(value: unknown, where: string, what: string): YamlMap | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isMap(value)) throw new PackageError(`${where}: ${what} must be a mapping`);
  return value;
}

export function optList(value: unknown, where: string, what: string): unknown[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw new PackageError(`${where}: ${what} must be a list`);
  return value;
}

/** Scalars read as strings; anything else (e.g. a {get_input: …} function) counts as absent. */
export function scalarString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

export function optString(value: unknown, where: string, what: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  const text = scalarString(value);
  if (text === undefined) throw new PackageError(`${where}: ${what} must be a string`);
  return text;
}

export function reqString(value: unknown, where: string, what: string): string {
  const text = optString(value, where, what);
  if (text === undefined) throw new PackageError(`${where}: ${what} is missing`);
  return text;
}

export function optNumber(value: unknown, where: string, what: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new PackageError(`${where}: ${what} must be a number, got ${JSON.stringify(value)}`);
  }
  return value;
}

export function reqNumber(value: unknown, where: string, what: string): number {
  const n = optNumber(value, where, what);
  if (n === undefined) throw new PackageError(`${where}: ${what} is missing`);
  return n;
}

export function stringList(value: unknown, where: string, what: string): string[] {
  return (optList(value, where, what) ?? []).map((item, i) => {
    const text = scalarString(item);
    if (text === undefined) throw new PackageError(`${where}: ${what}[${i}] must be a string`);
    return text;
  });
}

/**
 * TOSCA writes requirements and policies as a list of single-key maps
 * ("- virtual_binding: VDU1"). Returns the [key, value] pairs in order.
 */
export function singleKeyEntries(value: unknown, where: string, what: string): [string, unknown][] {
  return (optList(value, where, what) ?? []).map((item, i) => {
    if (!isMap(item) || Object.keys(item).length !== 1) {
      throw new PackageError(`${where}: ${what}[${i}] must be a single-key mapping`);
    }
    const [key] = Object.keys(item);
    return [key, item[key]];
  });
}
