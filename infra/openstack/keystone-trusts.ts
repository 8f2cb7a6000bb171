/**
 * Keystone trusts (OS-TRUST): a user (the trustor, with their own token)
 * lets another user (the trustee) act in one of the trustor's projects with
 * some of the trustor's roles there. Impersonation makes the trustee's
 * trust-scoped tokens carry the trustor's identity, as Heat's and Magnum's
 * trusts do; one redelegation lets Heat make its own trust from such a token
 * for the stacks it manages later (Keystone needs [trust] allow_redelegation).
 */
import { MAX_BODY_SETTING, outboundSettings, showUrl } from '../../common/outbound';
import { errorDetail, OpenStackHttpError, request } from './http';

export interface TrustRequest {
  trustorUserId: string;
  trusteeUserId: string;
  projectId: string;
  /** Role names, each one the trustor has in the project (Keystone checks). */
  roles: readonly string[];
}

/** The new trust's id; an OpenStackHttpError with Keystone's status when it refuses (403: not the caller's to give). */
export async function createTrust(authUrl: string, trustorToken: string, t: TrustRequest, ca?: string): Promise<string> {
  const url = `${authUrl.replace(/\/$/, '')}/OS-TRUST/trusts`;
  const r = await request('POST', url, {
    ca, purpose: 'VIM auth_url', headers: { 'x-auth-token': trustorToken },
    maxBytes: outboundSettings().maxBody.keystone, maxBytesSetting: MAX_BODY_SETTING.keystone,
    body: {
      trust: {
        trustor_user_id: t.trustorUserId, trustee_user_id: t.trusteeUserId, project_id: t.projectId,
        roles: t.roles.map((name) => ({ name })), impersonation: true, allow_redelegation: true, redelegation_count: 1,
      },
    },
  });
  const id = (r.body as { trust?: { id?: string } } | undefined)?.trust?.id;
  if (r.status !== 201 || !id) throw new OpenStackHttpError(r.status, 'POST', showUrl(url), errorDetail(r, [trustorToken]));
  return id;
}
