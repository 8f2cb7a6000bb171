/** SOL013 §5.2.2 filter expressions (api/routes/filter.ts): terms, quoting, and a 400 that names what is wrong. */
import { pageRequest, parseFilter } from '../../api/routes/filter';
import { INSTANCE_LIST } from '../../store/repos/instances';
import { OP_OCC_LIST } from '../../store/repos/op-occs';

const problem = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return { status: (e as { status?: number }).status, message: (e as Error).message };
  }
  throw new Error('no error');
};

test('terms separated by ";", several values, quoted values with commas, parentheses and quotes', () => {
  expect(parseFilter('(eq,operationState,COMPLETED);(in,operation,INSTANTIATE,TERMINATE)')).toEqual([
    { op: 'eq', path: ['operationState'], values: ['COMPLETED'] },
    { op: 'in', path: ['operation'], values: ['INSTANTIATE', 'TERMINATE'] },
  ]);
  expect(parseFilter("(eq,metadata/a/b,'x,(y);z''')")).toEqual([{ op: 'eq', path: ['metadata', 'a', 'b'], values: ["x,(y);z'"] }]);
  expect(parseFilter("(cont,vnfInstanceName,'it''s',plain)")).toEqual([{ op: 'cont', path: ['vnfInstanceName'], values: ["it's", 'plain'] }]);
  expect(parseFilter('')).toEqual([]);
});

test('a malformed filter is a 400 naming the term', () => {
  expect(problem(() => parseFilter('(eq,operationState,COMPLETED'))).toEqual({ status: 400, message: expect.stringContaining('cannot parse "(eq,operationState,COMPLETED"') });
  expect(problem(() => parseFilter('(like,operationState,X)'))).toEqual({ status: 400, message: expect.stringContaining('unsupported operator "like" in "(like,operationState,X)"') });
  expect(problem(() => parseFilter('(eq,operationState)'))).toEqual({ status: 400, message: expect.stringContaining('"(eq,operationState)" has no value') });
  expect(problem(() => parseFilter('(eq,operationState,A,B)'))).toEqual({ status: 400, message: expect.stringContaining('eq takes one value') });
  expect(problem(() => parseFilter('(eq,a,1)(eq,b,2)'))).toEqual({ status: 400, message: expect.stringContaining('expected ";" after "(eq,a,1)"') });
  expect(problem(() => parseFilter("(eq,a,'open)"))).toEqual({ status: 400, message: expect.stringContaining('cannot parse') });
});

test('a term the resource cannot filter on is a 400 naming the attribute; a foreign marker too', () => {
  expect(problem(() => pageRequest({ filter: '(eq,secretColumn,x)' }, INSTANCE_LIST, 10))).toEqual({ status: 400, message: expect.stringContaining('filter: secretColumn is not an attribute this list filters on') });
  expect(problem(() => pageRequest({ filter: '(eq,metadata,x)' }, INSTANCE_LIST, 10)).message).toContain('metadata is an object');
  expect(problem(() => pageRequest({ filter: '(gt,isCancelPending,true)' }, OP_OCC_LIST, 10)).message).toContain('isCancelPending is a boolean');
  expect(problem(() => pageRequest({ filter: '(eq,metadata/a.b,x)' }, INSTANCE_LIST, 10)).message).toContain('path segment');
  expect(problem(() => pageRequest({ nextpage_opaque_marker: 'garbage' }, INSTANCE_LIST, 10))).toEqual({ status: 400, message: 'nextpage_opaque_marker: not a marker this server gave' });
  expect(pageRequest({ operationState: 'FAILED_TEMP' }, OP_OCC_LIST, 10, { plainFields: ['operationState'] })).toEqual({ terms: [{ op: 'eq', path: ['operationState'], values: ['FAILED_TEMP'] }], limit: 10, after: undefined });
});
