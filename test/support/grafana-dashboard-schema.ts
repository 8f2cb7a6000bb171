/**
 * A JSON schema check of a Grafana dashboard: the schema is generated
 * (ts-json-schema-generator) from Grafana's dashboard types in the Grafana
 * Foundation SDK (grafana-dashboard-type.ts), so it is Grafana's model, not
 * ours; unknown keys are refused, as Grafana would drop them. Validated
 * with Ajv; the answer is one "<JSON pointer> <reason>" per error.
 */
import path from 'node:path';
import Ajv from 'ajv';
import { createGenerator } from 'ts-json-schema-generator';

let validate: ReturnType<Ajv['compile']> | undefined;

function validator(): ReturnType<Ajv['compile']> {
  if (validate) return validate;
  const schema = createGenerator({
    path: path.join(__dirname, 'grafana-dashboard-type.ts'),
    tsconfig: path.resolve(__dirname, '../../tsconfig.json'),
    type: 'PrometheusDashboard',
    functions: 'hide', // the SDK's variant marker methods are not data
    expose: 'none', // inline: the SDK has two types named Dataquery (its variant marker, Prometheus's query)
    skipTypeCheck: true,
  }).createSchema('PrometheusDashboard');
  validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
  return validate;
}

export function validateGrafanaDashboard(dashboard: unknown): string[] {
  const check = validator();
  if (check(dashboard)) return [];
  return (check.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}${e.params && 'additionalProperty' in e.params ? `: ${String(e.params.additionalProperty)}` : ''}`);
}
