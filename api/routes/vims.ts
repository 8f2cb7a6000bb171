/**
 * Tacker's VIM API, /v1.0/vims (register, list, show, update, delete), for
 * the stock `openstack vim register|list|show|set|delete`. A VIM belongs to
 * the caller's project; the configured default VIM is shared read-only.
 * python-tackerclient appends ".json" to every path; errors use Tacker's
 * `{"TackerError": {type, message, detail}}` shape.
 */
import crypto from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import { deleteVim, findOwnedVim, findUsableVim, listVims, registerVim, updateVim, vimInUse, type VimRow } from '../../store/repos/vims';
import { KeystoneSession } from '../../infra/openstack/keystone';
import { OpenStackHttpError } from '../../infra/openstack/http';
import { KubeClient, kubeEndpointProblem } from '../../infra/kubernetes';
import { parseCertificate } from '../../cluster/pki';
import { vimEndpointProblem } from '../../common/outbound';
import { callerOf } from '../auth/middleware';
import type { Caller } from '../auth/tokens';
import { scopeOf } from '../auth/policy';
import type { ApiContext } from '../context';
import { HttpError } from '../errors';
import { redactString } from '../../common/secrets';
import { VimRegisterRequest, VimUpdateRequest } from '../schemas/vims';
import { parse } from '../../common/validate';
import { authorize } from './authorize';

const TYPES: Record<number, string> = { 400: 'BadRequest', 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 405: 'HTTPMethodNotAllowed', 409: 'Conflict', 413: 'RequestEntityTooLarge', 415: 'UnsupportedMediaType', 500: 'InternalError', 503: 'ServiceUnavailable' };

/** Tacker's error body. */
export function sendTackerError(res: Response, status: number, message: string, type = TYPES[status] ?? 'TackerError'): void {
  res.status(status).json({ TackerError: { type, message, detail: '' } });
}

/** What a VIM shows: never its password or token. */
/**
 * A VIM as Tacker shows it. A shared VIM seen by a project that does not own
 * it (the default VIM, by every project) hides whom it logs in as: its user
 * and project are `***` (security review 3, Low 6).
 */
export function vimView(v: VimRow, viewer?: Caller) {
  const hidden = viewer && v.shared && v.projectId !== viewer.projectId && !viewer.isAdmin;
  if (v.type === 'kubernetes') {
    return {
      id: v.id, name: v.name, description: v.description, type: v.type, tenant_id: v.projectId, auth_url: v.authUrl,
      auth_cred: { bearer_token: '***', ssl_ca_cert: v.caCert ?? null },
      vim_project: { name: v.project }, placement_attr: { regions: [] },
      is_default: v.isDefault, shared: v.shared, status: v.status, extra: {}, created_at: v.createdAt, updated_at: v.updatedAt ?? null,
    };
  }
  return {
    id: v.id, name: v.name, description: v.description, type: v.type, tenant_id: v.projectId,
    auth_url: v.authUrl,
    auth_cred: { username: hidden ? '***' : v.username, user_domain_name: hidden ? '***' : v.userDomain, cert_verify: 'True' },
    vim_project: { name: hidden ? '***' : v.project, project_domain_name: hidden ? '***' : v.projectDomain },
    placement_attr: { regions: [v.region] },
    is_default: v.isDefault, shared: v.shared, status: v.status, extra: {},
    created_at: v.createdAt, updated_at: v.updatedAt ?? null,
  };
}

const idOf = (req: Request) => String(req.params.id);

export function vimsRouter(ctx: ApiContext): Router {
  const { db, box } = ctx;
  const r = Router();
  // tackerclient asks for /vims.json and /vims/<id>.json
  r.use((req, _res, next) => { req.url = req.url.replace(/\.json(?=$|\?)/, ''); next(); });

  const notFound = (id: string) => new HttpError(404, `VIM ${id} could not be found`, 'NotFound');
  const checkReachable = async (v: { authUrl: string; username: string; password: string; project: string; userDomain: string; projectDomain: string; region: string }) => {
    try {
      await new KeystoneSession({ authUrl: v.authUrl, username: v.username, password: v.password, project: v.project, userDomain: v.userDomain, projectDomain: v.projectDomain, region: v.region }).getToken();
    } catch (e) {
      // the status only, never the body: auth_url may name some other service, read on the caller's behalf (review 3, M-1)
      const why = e instanceof OpenStackHttpError ? `it answered ${e.status}` : (e as Error).message.slice(0, 200);
      throw new HttpError(400, `VIM authentication failed at ${v.authUrl}: ${why}`, 'VimUnauthorizedException');
    }
  };
  /** The token opens the API: whoami answers (400 naming the VIM's answer otherwise). */
  const checkKubernetesReachable = async (server: string, caPem: string, token: string) => {
    try {
      parseCertificate(caPem);
    } catch {
      throw new HttpError(400, 'auth_cred.ssl_ca_cert: is not a PEM certificate', 'BadRequest');
    }
    let kube: KubeClient | undefined;
    try {
      kube = new KubeClient({ server, caPem, credentials: { token }, timeoutMs: 15_000 });
      await kube.whoAmI();
    } catch (e) {
      throw new HttpError(400, `VIM authentication failed at ${server}: ${redactString((e as Error).message).slice(0, 200)}`, 'VimUnauthorizedException');
    } finally {
      kube?.close();
    }
  };
  r.get('/vims', authorize('vims', 'read'), async (req, res) => {
    const scope = scopeOf(callerOf(res), req.query.all_projects === 'true');
    let rows = await listVims(db, scope);
    for (const f of ['id', 'name'] as const) {
      const want = req.query[f];
      if (typeof want === 'string') rows = rows.filter((v) => v[f] === want);
    }
    res.json({ vims: rows.map((v) => vimView(v, callerOf(res))) });
  });

  r.get('/vims/:id', authorize('vims', 'read'), async (req, res) => {
    const v = await findUsableVim(db, scopeOf(callerOf(res)), idOf(req));
    if (!v) throw notFound(idOf(req));
    res.json({ vim: vimView(v, callerOf(res)) });
  });

  r.post('/vims', authorize('vims', 'write'), async (req, res) => {
    const caller = callerOf(res);
    const b = parse(VimRegisterRequest, req.body).vim;
    if (b.tenant_id && b.tenant_id !== caller.projectId && !caller.isAdmin) throw new HttpError(403, 'tenant_id: a VIM can only be registered for your own project', 'Forbidden');
    const outbound = b.type === 'kubernetes' ? kubeEndpointProblem(b.auth_url) : vimEndpointProblem(b.auth_url);
    if (outbound) throw new HttpError(400, `auth_url: ${outbound}`, 'BadRequest');
    if (b.type === 'kubernetes') {
      await checkKubernetesReachable(b.auth_url, b.auth_cred.ssl_ca_cert, b.auth_cred.bearer_token);
      const id = crypto.randomUUID();
      const now = new Date().toISOString();
      await registerVim(db, {
        id, projectId: b.tenant_id ?? caller.projectId, shared: false, name: b.name, description: b.description ?? '', type: 'kubernetes',
        authUrl: b.auth_url.replace(/\/+$/, ''), username: '', passwordSealed: box.seal(b.auth_cred.bearer_token), project: b.vim_project?.name ?? 'default',
        caCert: b.auth_cred.ssl_ca_cert, isDefault: b.is_default ?? false, status: 'REACHABLE', createdAt: now, updatedAt: now,
      });
      res.status(201).json({ vim: vimView((await findOwnedVim(db, scopeOf(caller), id))!) });
      return;
    }
    const v = {
      authUrl: b.auth_url.replace(/\/+$/, ''), username: b.auth_cred.username, password: b.auth_cred.password, project: b.vim_project.name,
      userDomain: b.auth_cred.user_domain_name || 'Default', projectDomain: b.vim_project.project_domain_name || 'Default', region: 'RegionOne',
    };
    await checkReachable(v);
    const projectId = b.tenant_id ?? caller.projectId;
    const id = crypto.randomUUID();
    const now = new Date().toISOString();
    const passwordSealed = box.seal(v.password); // CPU work before the write lock
    // one default VIM per project: a new default clears the old mark in the same transaction
    await registerVim(db, {
      id, projectId, shared: false, name: b.name, description: b.description ?? '', type: 'openstack', authUrl: v.authUrl,
      username: v.username, passwordSealed, project: v.project, projectDomain: v.projectDomain,
      userDomain: v.userDomain, region: v.region, isDefault: b.is_default ?? false, status: 'REACHABLE', createdAt: now, updatedAt: now,
    });
    res.status(201).json({ vim: vimView((await findOwnedVim(db, scopeOf(caller), id))!) });
  });

  r.put('/vims/:id', authorize('vims', 'write'), async (req, res) => {
    const caller = callerOf(res);
    const current = await findOwnedVim(db, scopeOf(caller), idOf(req));
    if (!current) {
      if (await findUsableVim(db, scopeOf(caller), idOf(req))) throw new HttpError(403, `VIM ${idOf(req)} is shared read-only`, 'Forbidden');
      throw notFound(idOf(req));
    }
    const b = parse(VimUpdateRequest, req.body).vim;
    if (current.type === 'kubernetes') {
      const token = b.auth_cred?.bearer_token;
      if (token) await checkKubernetesReachable(current.authUrl, current.caCert ?? '', token);
      await updateVim(db, current, {
        name: b.name ?? current.name, description: b.description ?? current.description, isDefault: b.is_default ?? current.isDefault,
        ...(token ? { passwordSealed: box.seal(token) } : {}), updatedAt: new Date().toISOString(),
      });
      res.json({ vim: vimView((await findOwnedVim(db, scopeOf(caller), current.id))!) });
      return;
    }
    const password = b.auth_cred?.password ?? box.open(current.passwordSealed);
    const next = {
      authUrl: current.authUrl, username: b.auth_cred?.username ?? current.username, password,
      project: b.vim_project?.name ?? current.project, userDomain: b.auth_cred?.user_domain_name ?? current.userDomain,
      projectDomain: b.vim_project?.project_domain_name ?? current.projectDomain, region: current.region,
    };
    if (b.auth_cred || b.vim_project) await checkReachable(next);
    const passwordSealed = b.auth_cred?.password ? box.seal(password) : current.passwordSealed; // CPU work before the write lock
    await updateVim(db, current, {
      name: b.name ?? current.name, description: b.description ?? current.description, username: next.username,
      passwordSealed, project: next.project,
      userDomain: next.userDomain, projectDomain: next.projectDomain, isDefault: b.is_default ?? current.isDefault,
      updatedAt: new Date().toISOString(),
    });
    res.json({ vim: vimView((await findOwnedVim(db, scopeOf(caller), current.id))!) });
  });

  r.delete('/vims/:id', authorize('vims', 'write'), async (req, res) => {
    const caller = callerOf(res);
    const v = await findOwnedVim(db, scopeOf(caller), idOf(req));
    if (!v) {
      if (await findUsableVim(db, scopeOf(caller), idOf(req))) throw new HttpError(403, `VIM ${idOf(req)} is shared read-only`, 'Forbidden');
      throw notFound(idOf(req));
    }
    if (v.shared && v.isDefault && v.name === 'default') throw new HttpError(409, 'the deployment\'s default VIM comes from its configuration and cannot be deleted', 'Conflict');
    const inUse = await vimInUse(db, v.id);
    if (inUse) throw new HttpError(409, `VIM ${v.id} is used by ${inUse}`, 'VimInUseException');
    await deleteVim(db, v.id);
    res.status(204).end();
  });

  r.use((err: unknown, _req: Request, res: Response, next: (e?: unknown) => void) => {
    if (err instanceof HttpError) return sendTackerError(res, err.status, err.message, err.title && err.title.includes(' ') ? undefined : err.title);
    // body-parser's refusals (bad JSON, too large, wrong charset) are the caller's, in Tacker's shape too
    const status = (err as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) return sendTackerError(res, status, redactString(String((err as Error).message ?? 'bad request')));
    next(err);
  });
  return r;
}
