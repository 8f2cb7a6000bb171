import { PackageError } from './package-error';

/** Where SOL004 puts the package metadata. */
export const TOSCA_META_PATH = 'TOSCA-Metadata/TOSCA.meta';

export interface ToscaMetaEntry {
  name: string;
  contentType?: string;
  algorithm?: string;
  hash?: string;
}

/** TOSCA-Metadata/TOSCA.meta, parsed. */
export interface ToscaMeta {
  toscaMetaFileVersion: string;
  csarVersion: string;
  createdBy: string;
  /** As written in the file; readCsar resolves it to a package path. */
  entryDefinitions: string;
  /** The per-file blocks after the first one ("Name: …" blocks). */
  entries: ToscaMetaEntry[];
}

const META = TOSCA_META_PATH;

/**
 * Keys the first block must have. Looked up case-insensitively: packages in
 * the wild write both "Created-by" and "Created-By".
 */
const REQUIRED_KEYS = ['TOSCA-Meta-File-Version', 'CSAR-Version', 'Created-By', 'Entry-Definitions'];

/**
 * Parses TOSCA.meta: blocks of "Key: Value" lines separated by blank lines.
 * The first block describes the package; each later block describes one file.
 * A line starting with a space continues the previous value (JAR-manifest rule).
 */
export function parseToscaMeta(text: string): ToscaMeta {
  const blocks = splitBlocks(text);
  if (blocks.length === 0) throw new PackageError(`${META} is empty`);

  const head = blocks[0].values;
  const missing = REQUIRED_KEYS.filter((key) => !head.get(key.toLowerCase()));
  if (missing.length > 0) {
    throw new PackageError(`${META} is missing required key(s) in its first block: ${missing.join(', ')}`);
  }
  const headValue = (key: string) => head.get(key.toLowerCase())!;

  const entries = blocks.slice(1).map(({ values, line }) => {
    const name = values.get('name');
    if (!name) throw new PackageError(`${META}: the block starting at line ${line} has no "Name" key`);
    return {
      name,
      contentType: values.get('content-type'),
      algorithm: values.get('algorithm'),
      hash: values.get('hash'),
    };
  });

  return {
    toscaMetaFileVersion: headValue('TOSCA-Meta-File-Version'),
    csarVersion: headValue('CSAR-Version'),
    createdBy: headValue('Created-By'),
    entryDefinitions: headValue('Entry-Definitions'),
    entries,
  };
}

interface Block {
  /** lower-cased key -> value */
  values: Map<string, string>;
  /** 1-based line where the block starts, for error messages */
  line: number;
}

function splitBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  let current: Block | undefined;
  let lastKey: string | undefined;
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);

  lines.forEach((raw, i) => {
    const lineNo = i + 1;
    if (raw.trim() === '') {
      current = undefined;
      return;
    }
    if (current && lastKey && raw.startsWith(' ')) {
      current.values.set(lastKey, current.values.get(lastKey)! + raw.slice(1));
      return;
    }
    const colon = raw.indexOf(':');
    if (colon <= 0) throw new PackageError(`${META} line ${lineNo}: expected "Key: Value", got "${raw.trim()}"`);
    if (!current) {
      current = { values: new Map(), line: lineNo };
      blocks.push(current);
    }
    lastKey = raw.slice(0, colon).trim().toLowerCase();
    if (current.values.has(lastKey)) {
      throw new PackageError(`${META} line ${lineNo}: key "${raw.slice(0, colon).trim()}" repeated in the same block`);
    }
    current.values.set(lastKey, raw.slice(colon + 1).trim());
  });
  return blocks;
}
