/**
 * Keystone v3 subset under /identity: version discovery and password/token
 * authentication returning a catalog with the Heat endpoint.
 */
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import type { Stats } from '../sim/stats';
import { newUuid } from '../util/ids';
import { baseUrlOf } from '../util/http';
import { keystoneTime } from '../util/time';
import type { TokenRecord } from '../state/model';
import { matchesDomain, type Identity, type IdentityUser } from './identity';
import type { TokenService } from './tokens';

export class KeystoneError extends Error {
  constructor(
    readonly code: number,
    readonly title: string,
    message: string,
  ) {
    super(message);
  }

  toBody() {
    return { error: { code: this.code, title: this.title, message: this.message } };
  }
}

const unauthorized = () => new KeystoneError(401, 'Unauthorized', 'The request you have made requires authentication.');

const DomainRef = z.object({ id: z.string().optional(), name: z.string().optional() }).optional();
const AuthRequest = z.object({
  auth: z.object({
    identity: z.object({
      methods: z.array(z.string()).min(1),
      password: z
        .object({
          user: z.object({ id: z.string().optional(), name: z.string().optional(), password: z.string(), domain: DomainRef }),
        })
        .optional(),
      token: z.object({ id: z.string() }).optional(),
    }),
    scope: z.unknown().optional(),
  }),
});
const ProjectScope = z.object({
  project: z.object({ id: z.string().optional(), name: z.string().optional(), domain: DomainRef }),
});

export function versionDocument(baseUrl: string) {
  return {
    id: 'v3.14',
    status: 'stable',
    updated: '2020-04-07T00:00:00Z',
    links: [{ rel: 'self', href: `${baseUrl}/identity/v3/` }],
    'media-types': [{ base: 'application/json', type: 'application/vnd.openstack.identity-v3+json' }],
  };
}

export function keystoneRouter(identity: Identity, tokens: TokenService, stats: Stats): Router {
  const router = Router();

  router.get(['/', ''], (req, res) => {
    res.status(300).json({ versions: { values: [versionDocument(baseUrlOf(req))] } });
  });
  router.get(['/v3', '/v3/'], (req, res) => {
    res.json({ version: versionDocument(baseUrlOf(req)) });
  });

  router.post('/v3/auth/tokens', (req, res) => {
    stats.track('keystone.token.create', res);
    const parsed = AuthRequest.safeParse(req.body);
    if (!parsed.success) {
      throw new KeystoneError(400, 'Bad Request', `Invalid input for auth request: ${z.prettifyError(parsed.error)}`);
    }
    const { identity: id, scope } = parsed.data.auth;
    const user = authenticate(identity, tokens, id);
    const projectId = scopeProject(user, scope);
    const token = tokens.issue(user.id, projectId, id.methods);
    res.status(201).set('X-Subject-Token', token.id).json(tokenBody(token, user, baseUrlOf(req)));
  });

  router.get('/v3/auth/tokens', (req, res) => {
    stats.track('keystone.token.validate', res);
    if (!tokens.validate(req.get('X-Auth-Token'))) throw unauthorized();
    const subject = tokens.validate(req.get('X-Subject-Token'));
    const user = subject && identity.userById(subject.userId);
    if (!subject || !user) throw new KeystoneError(404, 'Not Found', 'Could not find token.');
    res.set('X-Subject-Token', subject.id).json(tokenBody(subject, user, baseUrlOf(req)));
  });

  router.use((err: unknown, _req: Request, res: Response, next: (e?: unknown) => void) => {
    if (err instanceof KeystoneError) res.status(err.code).json(err.toBody());
    else if (err instanceof SyntaxError) res.status(400).json(new KeystoneError(400, 'Bad Request', 'Malformed JSON body').toBody());
    else next(err);
  });
  return router;
}

type IdentityPart = z.infer<typeof AuthRequest>['auth']['identity'];

function authenticate(identity: Identity, tokens: TokenService, id: IdentityPart): IdentityUser {
  if (id.methods.includes('password') && id.password) {
    const user = identity.findUser(id.password.user);
    if (!user || user.password !== id.password.user.password) throw unauthorized();
    return user;
  }
  if (id.methods.includes('token') && id.token) {
    const existing = tokens.validate(id.token.id);
    const user = existing && identity.userById(existing.userId);
    if (!user) throw unauthorized();
    return user;
  }
  throw new KeystoneError(400, 'Bad Request', `Unsupported or incomplete auth methods: ${id.methods.join(', ')}`);
}

/** The project the token is scoped to; each user has a role on exactly its own project. */
function scopeProject(user: IdentityUser, scope: unknown): string | undefined {
  if (scope === undefined || scope === 'unscoped') return undefined;
  const parsed = ProjectScope.safeParse(scope);
  if (!parsed.success) throw new KeystoneError(400, 'Bad Request', 'Only project scope is supported.');
  const { project } = parsed.data;
  const ok = project.id !== undefined
    ? project.id === user.project.id
    : project.name === user.project.name && matchesDomain(user.project.domain, project.domain);
  if (!ok) throw unauthorized();
  return user.project.id;
}

function tokenBody(token: TokenRecord, user: IdentityUser, baseUrl: string) {
  const body: Record<string, unknown> = {
    methods: token.methods,
    user: { id: user.id, name: user.name, domain: user.domain, password_expires_at: null },
    audit_ids: [newUuid().replace(/-/g, '').slice(0, 22)],
    expires_at: keystoneTime(token.expiresAt),
    issued_at: keystoneTime(token.issuedAt),
  };
  if (token.projectId) {
    body.project = { id: user.project.id, name: user.project.name, domain: user.project.domain };
    body.is_domain = false;
    body.roles = [
      { id: 'b1a2b6e1e0a94b8a8c0c1f0e9d3f4a01', name: 'admin' },
      { id: 'b1a2b6e1e0a94b8a8c0c1f0e9d3f4a02', name: 'member' },
      { id: 'b1a2b6e1e0a94b8a8c0c1f0e9d3f4a03', name: 'reader' },
    ];
    body.catalog = catalog(baseUrl, token.projectId);
  }
  return { token: body };
}

function catalog(baseUrl: string, projectId: string) {
  const endpoints = (service: string, url: string) =>
    (['public', 'internal', 'admin'] as const).map((iface) => ({
      id: `${service}-${iface}`,
      interface: iface,
      region: 'RegionOne',
      region_id: 'RegionOne',
      url,
    }));
  return [
    { id: 'heat', type: 'orchestration', name: 'heat', endpoints: endpoints('heat', `${baseUrl}/heat/v1/${projectId}`) },
    { id: 'keystone', type: 'identity', name: 'keystone', endpoints: endpoints('keystone', `${baseUrl}/identity`) },
  ];
}
