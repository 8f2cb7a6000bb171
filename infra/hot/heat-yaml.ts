/**
 * YAML as Heat reads it: YAML 1.1 (so `yes`/`on` are booleans) except that
 * timestamps stay strings (heat_template_version: 2013-05-23), as Heat's
 * template_format loader does.
 */
import YAML from 'yaml';

const WITHOUT_TIMESTAMP = (tags: YAML.Tags) =>
  tags.filter((t) => (typeof t === 'string' ? t !== 'timestamp' : t.tag !== 'tag:yaml.org,2002:timestamp'));

export function parseHot(text: string, source: string): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = YAML.parse(text, { version: '1.1', customTags: WITHOUT_TIMESTAMP });
  } catch (e) {
    throw new Error(`${source} is not valid YAML: ${(e as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error(`${source} is not a Heat template (not a YAML mapping)`);
  return doc as Record<string, unknown>;
}

/** YAML 1.1 output quotes strings Heat would otherwise read as booleans/dates. */
export function stringifyHot(template: unknown): string {
  return YAML.stringify(template, { version: '1.1' });
}
