/** The error bodies of the emulated services, so each client parses them as it would the real one's. */
import type { Request, Response } from 'express';
import type { ApiError } from './errors';

export type ErrorRenderer = (err: ApiError, req: Request, res: Response) => void;

/** Nova's and Cinder's fault names by status (nova/api/openstack/wsgi.py). */
const FAULT_NAMES: Record<number, string> = {
  400: 'badRequest', 401: 'unauthorized', 403: 'forbidden', 404: 'itemNotFound', 405: 'badMethod', 406: 'notAcceptable',
  409: 'conflictingRequest', 413: 'overLimit', 415: 'badMediaType', 429: 'overLimit', 501: 'notImplemented', 503: 'serviceUnavailable',
};

/** {"itemNotFound": {"code": 404, "message": "..."}} */
export const novaStyleError: ErrorRenderer = (err, _req, res) => {
  res.status(err.status).json({ [FAULT_NAMES[err.status] ?? 'computeFault']: { code: err.status, message: err.message } });
};

const NEUTRON_TYPES: Record<number, string> = {
  400: 'HTTPBadRequest', 401: 'HTTPUnauthorized', 403: 'HTTPForbidden', 404: 'HTTPNotFound', 405: 'HTTPMethodNotAllowed',
  409: 'HTTPConflict', 413: 'HTTPRequestEntityTooLarge', 415: 'HTTPUnsupportedMediaType', 503: 'HTTPServiceUnavailable',
};

/** {"NeutronError": {"type": "PortNotFound", "message": "...", "detail": ""}} */
export const neutronError: ErrorRenderer = (err, _req, res) => {
  res.status(err.status).json({ NeutronError: { type: err.type ?? NEUTRON_TYPES[err.status] ?? 'HTTPInternalServerError', message: err.message, detail: '' } });
};

const TITLES: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 409: 'Conflict',
  410: 'Gone', 413: 'Request Entity Too Large', 415: 'Unsupported Media Type', 503: 'Service Unavailable',
};

/** Glance answers with webob's pages: JSON when asked for, else the HTML one. */
export const glanceError: ErrorRenderer = (err, req, res) => {
  const title = TITLES[err.status] ?? 'Error';
  if (req.accepts(['html', 'json']) === 'json' && !String(req.get('accept') ?? '').includes('html')) {
    res.status(err.status).json({ code: `${err.status} ${title}`, title, message: err.message });
    return;
  }
  const escaped = err.message.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  res
    .status(err.status)
    .type('text/html; charset=UTF-8')
    .send(`<html>\n <head>\n  <title>${err.status} ${title}</title>\n </head>\n <body>\n  <h1>${err.status} ${title}</h1>\n  ${escaped}<br /><br />\n\n\n\n </body>\n</html>`);
};
