/**
 * 405 Method Not Allowed with `Allow`, from the routes themselves: a path
 * some route serves, asked with a method none of them takes (PUT on
 * /vnfpkgm/v1/vnf_packages, DELETE on an op occ, GET on a task), is a 405,
 * as SOL013 §4.5 requires and Tacker and Magnum answer; a path no route
 * serves stays a 404. The routes' own table (Express's, routers mounted in
 * routers followed) is the registry, so a new route needs nothing here.
 */
import type { NextFunction, Request, Response } from 'express';

type Match = false | { path: string };
interface Layer {
  slash?: boolean;
  matchers?: ((path: string) => Match)[];
  route?: { methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}
/** A router or app's route table (Express's typings leave out what the layers hold at run time). */
export interface RouteTable { stack: readonly unknown[] }

function matchOf(layer: Layer, path: string): Match {
  try {
    return layer.matchers?.map((m) => m(path)).find((m) => m !== false) ?? false;
  } catch {
    return false; // a malformed %-escape: no route takes it
  }
}

/** The methods the routes of `table` take on `path` (upper case, sorted; HEAD is not listed, as the SOL method tables do not). */
export function allowedMethods(table: RouteTable, path: string): string[] {
  const out = new Set<string>();
  const walk = (stack: Layer[], p: string): void => {
    for (const layer of stack) {
      const m = layer.slash ? { path: '' } : matchOf(layer, p); // mounted at '/': every path, as Express takes it
      if (!m) continue;
      if (layer.route) {
        for (const k of Object.keys(layer.route.methods)) if (k !== '_all') out.add(k.toUpperCase());
      } else if (Array.isArray(layer.handle?.stack)) {
        // what the mounted router sees: the rest after its prefix, from a slash (as Express trims it)
        const rest = p.slice(m.path.replace(/\/$/, '').length);
        walk(layer.handle.stack, rest.startsWith('/') ? rest : `/${rest}`);
      }
    }
  };
  walk(table.stack as Layer[], path);
  return [...out].sort();
}

/** Middleware for just before a 404: a path served with other methods answers 405 with Allow, rendered as that API renders errors. */
export function methodNotAllowed(table: () => RouteTable, render: (req: Request, res: Response, detail: string) => void) {
  return (req: Request, res: Response, next: NextFunction) => {
    const allowed = allowedMethods(table(), req.path);
    if (allowed.length === 0 || allowed.includes(req.method)) return next();
    res.set('Allow', allowed.join(', '));
    render(req, res, `The method ${req.method} is not allowed on ${req.baseUrl}${req.path}; allowed: ${allowed.join(', ')}.`);
  };
}
