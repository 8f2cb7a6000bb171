/**
 * Nova's version documents and microversion negotiation: a request names its
 * version in X-OpenStack-Nova-API-Version or OpenStack-API-Version
 * ("compute 2.79"), "latest" means the maximum, no header means 2.1; the
 * answer echoes the version used. Out of range is a 406, as in Nova.
 */
import type { Request, RequestHandler, Response } from 'express';
import { ApiError, badRequest } from '../http/errors';
import { hostUrl } from '../http/urls';

export const MIN_VERSION = '2.1';
export const MAX_VERSION = '2.96';
const UPDATED = '2013-07-23T11:33:21Z';

export interface Microversion {
  major: number;
  minor: number;
}

function parse(v: string): Microversion | undefined {
  const m = /^(\d+)\.(\d+)$/.exec(v.trim());
  return m ? { major: Number(m[1]), minor: Number(m[2]) } : undefined;
}

const MAX = parse(MAX_VERSION)!;

/** True when the request's version is at least `v` (e.g. atLeast(res, 47)). */
export function atLeast(res: Response, minor: number): boolean {
  const mv = res.locals.microversion as Microversion | undefined;
  return (mv?.minor ?? 1) >= minor;
}

function requested(req: Request): string | undefined {
  const generic = req.get('openstack-api-version');
  if (generic) {
    const m = /(?:^|,)\s*compute\s+([^\s,]+)/i.exec(generic);
    if (m) return m[1];
  }
  return req.get('x-openstack-nova-api-version');
}

export const negotiateMicroversion: RequestHandler = (req, res, next) => {
  const asked = requested(req);
  let mv: Microversion = { major: 2, minor: 1 };
  if (asked !== undefined) {
    if (asked.toLowerCase() === 'latest') mv = MAX;
    else {
      const parsed = parse(asked);
      if (!parsed) throw badRequest(`API Version String ${asked.slice(0, 30)} is of invalid format. Must be of format MajorNum.MinorNum.`);
      if (parsed.major !== 2 || parsed.minor < 1 || parsed.minor > MAX.minor) {
        throw new ApiError(406, `Version ${asked.slice(0, 30)} is not supported by the API. Minimum is ${MIN_VERSION} and maximum is ${MAX_VERSION}.`);
      }
      mv = parsed;
    }
  }
  res.locals.microversion = mv;
  const v = `${mv.major}.${mv.minor}`;
  res.set({ 'X-OpenStack-Nova-API-Version': v, 'OpenStack-API-Version': `compute ${v}`, Vary: 'OpenStack-API-Version, X-OpenStack-Nova-API-Version' });
  next();
};

function v21(req: Request) {
  return {
    id: 'v2.1',
    status: 'CURRENT',
    version: MAX_VERSION,
    min_version: MIN_VERSION,
    updated: UPDATED,
    links: [{ rel: 'self', href: `${hostUrl(req)}/compute/v2.1/` }, { rel: 'describedby', type: 'text/html', href: 'http://docs.openstack.org/' }],
    'media-types': [{ base: 'application/json', type: 'application/vnd.openstack.compute+json;version=2.1' }],
  };
}

function v20(req: Request) {
  return {
    id: 'v2.0',
    status: 'SUPPORTED',
    version: '',
    min_version: '',
    updated: '2011-01-21T11:33:21Z',
    links: [{ rel: 'self', href: `${hostUrl(req)}/compute/v2/` }],
  };
}

export const versionList: RequestHandler = (req, res) => {
  res.json({ versions: [v20(req), v21(req)] });
};

export const versionDocument: RequestHandler = (req, res) => {
  res.json({ version: v21(req) });
};
