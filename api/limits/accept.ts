/**
 * SOL013: a request whose Accept rules out JSON gets 406 from the ETSI APIs' JSON resources, before anything
 * runs (nothing is written for a client that could not read the answer). The package's content resources
 * (package_content, vnfd, manifest, artifacts) serve other media types and weigh Accept themselves.
 */
import type { Request, RequestHandler } from 'express';
import type { ErrorRenderer } from '../auth/middleware';

const ETSI_API = /^\/(vnfpkgm|vnflcm)\//;
const PACKAGE_CONTENT = /^\/vnfpkgm\/v1\/vnf_packages\/[^/]+\/(package_content|vnfd|manifest|artifacts)(\/|$)/;

export function acceptJson(render: (req: Request) => ErrorRenderer): RequestHandler {
  return (req, res, next) => {
    if (!ETSI_API.test(req.path) || PACKAGE_CONTENT.test(req.path) || req.get('Accept') === undefined) return next();
    if (req.accepts(['application/json', 'application/problem+json'])) return next();
    return render(req)(res, 406, `${req.method} ${req.path} answers application/json; the request's Accept (${req.get('Accept')}) rules it out`);
  };
}
