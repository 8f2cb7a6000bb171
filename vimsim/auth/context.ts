/** Who is calling, as Keystone's token validation says (what keystonemiddleware hands a service). */

export interface RequestContext {
  userId: string;
  userName: string;
  projectId: string;
  projectName: string;
  roles: string[];
  isAdmin: boolean;
  /** Set for trust-scoped tokens (Heat's engine calls with the trustor's delegated roles). */
  trustId: string | null;
  trustorUserId: string | null;
  /** Epoch ms. */
  expiresAt: number;
}

/** The user per-user things (Nova keypairs) belong to: the trustor when Heat acts for them. */
export function actingUserId(ctx: RequestContext): string {
  return ctx.trustorUserId ?? ctx.userId;
}

interface TokenBody {
  token?: {
    expires_at?: string;
    user?: { id?: string; name?: string };
    project?: { id?: string; name?: string };
    roles?: { name?: string }[];
    'OS-TRUST:trust'?: { id?: string; trustor_user?: { id?: string } };
  };
}

/** A project-scoped token's context; undefined for an unscoped or domain-scoped one (not usable here). */
export function contextFromToken(body: unknown): RequestContext | undefined {
  const token = (body as TokenBody | undefined)?.token;
  const projectId = token?.project?.id;
  const userId = token?.user?.id;
  if (!token || !projectId || !userId) return undefined;
  const roles = (token.roles ?? []).map((r) => r.name).filter((r): r is string => typeof r === 'string');
  const trust = token['OS-TRUST:trust'];
  const expiresAt = Date.parse(token.expires_at ?? '');
  return {
    userId,
    userName: token.user?.name ?? '',
    projectId,
    projectName: token.project?.name ?? '',
    roles,
    isAdmin: roles.includes('admin'),
    trustId: trust?.id ?? null,
    trustorUserId: trust?.trustor_user?.id ?? null,
    expiresAt: Number.isFinite(expiresAt) ? expiresAt : Date.now(),
  };
}
