/**
 * Magnum's microversions (magnum/api/controllers/versions.py): the request's
 * `OpenStack-API-Version: container-infra X.Y` (or the other service names,
 * or `latest`), 1.1 when absent; every /v1 answer says which version it was
 * handled as. Methods are gated by version (406 outside their range).
 */
import type { Request, Response } from 'express';
import { HttpError } from '../../common/http-error';

export const MIN_VERSION = { major: 1, minor: 1 };
export const MAX_VERSION = { major: 1, minor: 14 };
export const SERVICE_NAMES = ['container-infrastructure-management', 'container-infrastructure', 'container-infra'];
const HEADER = 'OpenStack-API-Version';

export interface Microversion { major: number; minor: number; service: string }

export const fmt = (v: { major: number; minor: number }) => `${v.major}.${v.minor}`;
export const atLeast = (v: Microversion, minor: number) => v.minor >= minor;

/** A 406 with Magnum's microversion fields in its error entry. */
export class VersionNotAcceptable extends HttpError {
  constructor(message: string, extra: Record<string, unknown> = {}) {
    super(406, message, 'Not Acceptable', extra);
  }
}

/** The version a request asks for; throws 406 for a bad header or one out of range. */
export function requestedVersion(header: string | undefined): Microversion {
  if (header === undefined || header.trim() === '') return { ...MIN_VERSION, service: 'container-infra' };
  const entries = header.split(',').map((e) => e.trim().split(/\s+/));
  const mine = entries.find(([svc]) => SERVICE_NAMES.includes(svc.toLowerCase()));
  if (!mine || mine.length !== 2) throw new VersionNotAcceptable('Invalid service type for OpenStack-API-Version header');
  const [service, value] = mine;
  if (value.toLowerCase() === 'latest') return { ...MAX_VERSION, service };
  const m = /^(\d+)\.(\d+)$/.exec(value);
  if (!m) throw new VersionNotAcceptable(`Invalid value "${value}" for ${HEADER} header: expected <major>.<minor> or latest`);
  const v = { major: Number(m[1]), minor: Number(m[2]), service };
  const below = v.major < MIN_VERSION.major || (v.major === MIN_VERSION.major && v.minor < MIN_VERSION.minor);
  const above = v.major > MAX_VERSION.major || (v.major === MAX_VERSION.major && v.minor > MAX_VERSION.minor);
  if (below || above) {
    throw new VersionNotAcceptable(`Version ${fmt(v)} was requested but the minor version is not supported by this service. The supported version range is: [${fmt(MIN_VERSION)}, ${fmt(MAX_VERSION)}].`, {
      code: 'magnum.microversion-unsupported', min_version: fmt(MIN_VERSION), max_version: fmt(MAX_VERSION),
    });
  }
  return v;
}

/** The response headers of every /v1 answer. */
export function versionHeaders(res: Response, v: Microversion | undefined): void {
  const svc = v?.service ?? 'container-infra';
  res.set('OpenStack-API-Minimum-Version', `${svc} ${fmt(MIN_VERSION)}`);
  res.set('OpenStack-API-Maximum-Version', `${svc} ${fmt(MAX_VERSION)}`);
  res.set(HEADER, `${svc} ${fmt(v ?? MIN_VERSION)}`);
  res.set('Vary', HEADER);
}

export function versionOf(res: Response): Microversion {
  return (res.locals.microversion as Microversion | undefined) ?? { ...MIN_VERSION, service: 'container-infra' };
}

/** 406 unless the request's version is at least 1.<minor> (Magnum's @expose.expose with min_version). */
export function requireVersion(res: Response, minor: number, what: string): void {
  const v = versionOf(res);
  if (v.minor < minor) throw new VersionNotAcceptable(`Version ${fmt(v)} was requested but the requested API ${what} is not supported for this version.`);
}

/** Express middleware: parse, remember, and set the headers (also on the 406 it may answer). */
export function microversions(render: (res: Response, e: HttpError) => void) {
  return (req: Request, res: Response, next: () => void) => {
    try {
      const v = requestedVersion(req.get(HEADER));
      res.locals.microversion = v;
      versionHeaders(res, v);
      next();
    } catch (e) {
      versionHeaders(res, undefined);
      render(res, e as HttpError);
    }
  };
}
