/**
 * The query of an ETSI list (SOL013 §5.2 filter, §5.3 attribute selectors,
 * §5.4 paging): checked by api/routes/filter.ts and selectors.ts, shown in
 * the OpenAPI document.
 */
import { z } from 'zod';
import '../../model/common';

const once = () => z.string({ error: 'expected one value' });

export const ListQuery = z.object({
  filter: once().max(4096).optional().describe('SOL013 §5.2: (op,attribute[/member...],value[,value...]) terms separated by ";"; op is eq, neq, gt, gte, lt, lte, cont, ncont, in or nin'),
  nextpage_opaque_marker: once().max(1024).optional().describe('SOL013 §5.4: where the previous page ended, from its Link rel="next"'),
  all_fields: z.string().optional().describe('SOL013 §5.3: every attribute, those left out by default too'),
  fields: z.string().optional().describe('SOL013 §5.3: the optional complex attributes to include (a/b reaches into a)'),
  exclude_fields: z.string().optional().describe('SOL013 §5.3: the optional complex attributes to leave out'),
  exclude_default: z.string().optional().describe('SOL013 §5.3: leave out what the resource leaves out by default'),
});

/** The Link header of a page that has a next one. */
export const NEXT_PAGE_HEADER = { Link: { description: '<the same query with nextpage_opaque_marker>; rel="next", while more items follow', schema: { type: 'string' as const } } };
