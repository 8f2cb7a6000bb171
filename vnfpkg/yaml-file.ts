import { parse as parseYaml, YAMLError } from 'yaml';
import { PackageError } from './package-error';
import { isMap, type YamlMap } from './yaml-values';

/**
 * Parses one YAML file of the package. Syntax errors (including duplicate
 * keys, which YAML 1.2 forbids) become a PackageError naming the file and
 * the line. The document must be a mapping, as every TOSCA/HOT file is.
 */
export function parseYamlFile(files: Record<string, Buffer>, path: string): YamlMap {
  const content = files[path];
  if (content === undefined) throw new PackageError(`${path} is not in the package`);

  let doc: unknown;
  try {
    doc = parseTolerantly(content.toString('utf8'));
  } catch (err) {
    throw new PackageError(`${path}: ${describeYamlError(err)}`);
  }
  if (!isMap(doc)) throw new PackageError(`${path}: expected a YAML mapping at the top level`);
  return doc;
}

/** Upper bound on re-indented lines, so a hopeless file fails fast. */
const MAX_REINDENTS = 50;

/**
 * PyYAML, which Tacker uses, accepts a flow collection ("[ a, b,") whose
 * continuation line is not indented; the ETSI SOL001 v2.6.1 VNFD types file
 * has one. This parser reports it as BAD_INDENT, so the reported line is
 * indented past its block parent and parsing retried. Whitespace inside a
 * flow collection carries no meaning and no line is added or removed, so
 * the result and later error line numbers are unchanged.
 */
function parseTolerantly(text: string): unknown {
  const lines = text.split('\n');
  for (let fixes = 0; ; fixes++) {
    try {
      return parseYaml(lines.join('\n'));
    } catch (err) {
      const line = unindentedFlowLine(err);
      if (line === undefined || fixes >= MAX_REINDENTS || !reindent(lines, line)) throw err;
    }
  }
}

/** 0-based line of a "flow collection not indented enough" error, if that is the error. */
function unindentedFlowLine(err: unknown): number | undefined {
  if (!(err instanceof YAMLError) || err.code !== 'BAD_INDENT' || !/^Flow (sequence|mapping)/.test(err.message)) {
    return undefined;
  }
  const pos = err.linePos?.[0];
  return pos ? pos.line - 1 : undefined;
}

/**
 * Indents lines[index] past the block collection of the nearest non-blank
 * line above, whose block indentation is its own indentation plus two per
 * leading "- " marker. Returns false when nothing can be done.
 */
function reindent(lines: string[], index: number): boolean {
  let above = index - 1;
  while (above >= 0 && lines[above].trim() === '') above--;
  if (above < 0 || index >= lines.length || lines[index].trim() === '') return false;
  const prefix = /^( *)((?:- +)*)/.exec(lines[above])!;
  const blockIndent = prefix[1].length + prefix[2].length;
  const current = /^ */.exec(lines[index])![0].length;
  if (current > blockIndent) return false;
  lines[index] = ' '.repeat(blockIndent + 2) + lines[index].trimStart();
  return true;
}

function describeYamlError(err: unknown): string {
  if (err instanceof YAMLError) {
    // The library's message carries a multi-line code excerpt; keep the first sentence.
    const summary = err.message.split(/ at line \d+|\n/)[0];
    const pos = err.linePos?.[0];
    return pos ? `invalid YAML at line ${pos.line}, column ${pos.col}: ${summary}` : `invalid YAML: ${summary}`;
  }
  return `invalid YAML: ${err instanceof Error ? err.message : String(err)}`;
}
