/**
 * ETSI SOL013 attribute-based filtering, the subset operators use:
 * ?filter=(eq,operationState,COMPLETED);(in,operation,INSTANTIATE,TERMINATE)
 * with eq/neq/in/nin/cont on dotted paths, plus plain ?field=value.
 */
import { badRequest } from '../errors';

type Pred = (row: Record<string, unknown>) => boolean;

function get(row: unknown, path: string): unknown {
  return path.split('/').join('.').split('.').reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), row);
}

function parseFilter(expr: string): Pred[] {
  return expr.split(';').filter(Boolean).map((term) => {
    const m = /^\((\w+),([^,()]+)((?:,[^,()]*)+)\)$/.exec(term.trim());
    if (!m) throw badRequest(`filter: cannot parse "${term}"; expected (op,attribute,value[,value...])`);
    const [, op, attr, rest] = m;
    const values = rest.slice(1).split(',');
    const str = (row: Record<string, unknown>) => String(get(row, attr));
    switch (op) {
      case 'eq': return (row) => str(row) === values[0];
      case 'neq': return (row) => str(row) !== values[0];
      case 'in': return (row) => values.includes(str(row));
      case 'nin': return (row) => !values.includes(str(row));
      case 'cont': return (row) => values.some((v) => str(row).includes(v));
      default: throw badRequest(`filter: unsupported operator "${op}" (eq, neq, in, nin, cont)`);
    }
  });
}

export function filterRows<T extends Record<string, unknown>>(rows: T[], query: Record<string, unknown>, plainFields: string[] = []): T[] {
  const preds: Pred[] = [];
  if (typeof query.filter === 'string') preds.push(...parseFilter(query.filter));
  for (const f of plainFields) {
    const v = query[f];
    if (typeof v === 'string') preds.push((row) => String(get(row, f)) === v);
  }
  return rows.filter((r) => preds.every((p) => p(r)));
}
