/**
 * What a request body may be, checked once for every router:
 * - its media type: JSON (PATCH also merge-patch+json), or a zip for a
 *   package upload; anything else 415, so a cross-site form or text/plain
 *   "simple request" never reaches a handler;
 * - a JSON body is parsed here, at most API_MAX_JSON_BYTES after
 *   decompression (body-parser counts inflated bytes and stops there) and
 *   at most API_MAX_JSON_DEPTH deep. The routers' own express.json() then
 *   finds the body read and does nothing.
 * Bodiless POSTs (retry, rollback, fail, cancel) need no media type. No
 * URL and no JSON string may hold a NUL character.
 */
import express, { type Request, type RequestHandler } from 'express';
import type { Limits } from '../../common/config';
import type { ErrorRenderer } from '../auth/middleware';
import { jsonProblem } from './json-depth';

const JSON_TYPES = ['application/json'];
const PATCH_TYPES = ['application/json', 'application/merge-patch+json'];
const ZIP_TYPES = ['application/zip', 'application/octet-stream'];
/** The one route taking a non-JSON body: SOL005 package upload. */
const PACKAGE_UPLOAD = /^\/vnfpkgm\/v1\/vnf_packages\/[^/]+\/package_content\/?$/;

type Render = (req: Request) => ErrorRenderer;

function hasBody(req: Request): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = Number(req.headers['content-length'] ?? 0);
  return Number.isFinite(length) && length > 0;
}

/** Media types a request may carry its body in, by method and path. */
export function acceptedTypes(method: string, path: string): string[] {
  if (method === 'PUT' && PACKAGE_UPLOAD.test(path)) return ZIP_TYPES;
  return method === 'PATCH' ? PATCH_TYPES : JSON_TYPES;
}

export function checkMediaType(render: Render): RequestHandler {
  return (req, res, next) => {
    if (!['POST', 'PUT', 'PATCH'].includes(req.method) || !hasBody(req)) return next();
    const accepted = acceptedTypes(req.method, req.path);
    const given = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (!accepted.includes(given)) {
      return render(req)(res, 415, `${req.method} ${req.path} takes a body of type ${accepted.join(' or ')}, not "${given || 'none'}"`);
    }
    // A zip is stored as sent: a compressed upload would have to be inflated, unbounded, first.
    const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
    if (accepted === ZIP_TYPES && encoding !== 'identity') {
      return render(req)(res, 415, `package uploads take no Content-Encoding (got "${encoding}")`);
    }
    next();
  };
}

/** A URL with a NUL character (%00) names nothing: 400 before any lookup (PostgreSQL cannot even compare such a string). */
export function rejectNulInUrl(render: Render): RequestHandler {
  return (req, res, next) => {
    let url: string;
    try {
      url = decodeURIComponent(req.originalUrl);
    } catch {
      return render(req)(res, 400, 'the URL is not valid percent-encoded UTF-8');
    }
    if (url.includes('\0')) return render(req)(res, 400, 'the URL holds a NUL character (%00); no id or query value takes one');
    next();
  };
}

export function parseJsonBody(limits: Pick<Limits, 'jsonBytes' | 'jsonDepth'>, render: Render): RequestHandler {
  const parse = express.json({ limit: limits.jsonBytes, type: PATCH_TYPES });
  return (req, res, next) => {
    parse(req, res, (err?: unknown) => {
      const e = err as { type?: string; message?: string } | undefined;
      if (e?.type === 'entity.too.large') {
        return render(req)(res, 413, `the JSON body is larger than ${limits.jsonBytes} bytes (API_MAX_JSON_BYTES; decompressed size)`);
      }
      if (err) return next(err);
      const problem = jsonProblem(req.body, limits.jsonDepth);
      if (problem?.reason === 'depth') return render(req)(res, 400, `the JSON body nests deeper than ${limits.jsonDepth} levels (API_MAX_JSON_DEPTH) at ${problem.at}`);
      if (problem?.reason === 'nul') return render(req)(res, 400, `the JSON body holds a NUL character (\\u0000) at ${problem.at}; no field takes one`);
      next();
    });
  };
}
