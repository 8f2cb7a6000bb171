/**
 * /os-keypairs: per-user SSH key pairs (the trustor's when Heat calls with a
 * trust token). Create imports a public key, or (before 2.92) generates a
 * pair and returns the private key once.
 */
import { createHash } from 'node:crypto';
import type { RequestHandler, Router } from 'express';
import { utils } from 'ssh2';
import { actingUserId } from '../auth/context';
import { badRequest, conflict, forbidden, notFound } from '../http/errors';
import { ctxOf } from '../http/service';
import { parseBody, queryString, param } from '../http/validate';
import type { Store } from '../store/store';
import { isoSeconds } from '../util/time';
import { keypairId } from './lookup';
import { KeypairCreate } from './schemas';
import { atLeast } from './versions';
import { keypairView } from './views';

/** Nova's fingerprint of an OpenSSH public key: MD5 of the key blob, colon-separated. */
function fingerprint(publicKey: string): string {
  const parsed = utils.parseKey(publicKey.trim());
  const key = parsed instanceof Error ? undefined : Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key) throw badRequest('Keypair data is invalid: failed to generate fingerprint');
  return createHash('md5').update(key.getPublicSSH()).digest('hex').match(/../g)!.join(':');
}

export function keypairRoutes(router: Router, store: Store, track: (op: string) => RequestHandler): void {
  const userFor = (ctx: ReturnType<typeof ctxOf>, asked: string | undefined) => {
    if (asked && asked !== actingUserId(ctx) && !ctx.isAdmin) throw forbidden('Policy does not allow os_compute_api:os-keypairs to be performed.');
    return asked ?? actingUserId(ctx);
  };

  router.get('/v2.1/os-keypairs', track('keypair.list'), (req, res) => {
    const userId = userFor(ctxOf(res), atLeast(res, 10) ? queryString(req.query, 'user_id') : undefined);
    const keypairs = store.list('keypairs').filter((k) => k.user_id === userId);
    res.json({ keypairs: keypairs.map((k) => ({ keypair: keypairView(k, res, false) })) });
  });

  router.get('/v2.1/os-keypairs/:name', track('keypair.show'), (req, res) => {
    const userId = userFor(ctxOf(res), atLeast(res, 10) ? queryString(req.query, 'user_id') : undefined);
    const k = store.get('keypairs', keypairId(userId, param(req, 'name')));
    if (!k) throw notFound(`Keypair ${param(req, 'name')} not found for user ${userId}`);
    res.json({ keypair: keypairView(k, res, true) });
  });

  router.post('/v2.1/os-keypairs', track('keypair.create'), (req, res) => {
    const body = parseBody(KeypairCreate, req.body).keypair;
    const userId = userFor(ctxOf(res), atLeast(res, 10) ? body.user_id : undefined);
    if (store.get('keypairs', keypairId(userId, body.name))) throw conflict(`Key pair '${body.name}' already exists.`);
    let publicKey = body.public_key;
    let privateKey: string | undefined;
    if (publicKey === undefined) {
      if (atLeast(res, 92)) throw badRequest("Invalid input for field/attribute keypair. 'public_key' is a required property");
      const pair = utils.generateKeyPairSync('rsa', { bits: 2048, comment: `Generated-by-Nova` });
      publicKey = pair.public;
      privateKey = pair.private;
    }
    const type = atLeast(res, 2) ? (body.type ?? 'ssh') : 'ssh';
    if (type === 'x509') throw badRequest('Keypair data is invalid: x509 key pairs are not simulated');
    const k = store.put('keypairs', {
      id: keypairId(userId, body.name), name: body.name, user_id: userId, public_key: publicKey.trim(), fingerprint: fingerprint(publicKey), type, created_at: isoSeconds(),
    });
    res.status(atLeast(res, 2) ? 201 : 200).json({ keypair: { ...keypairView(k, res, false), user_id: userId, ...(privateKey ? { private_key: privateKey } : {}) } });
  });

  router.delete('/v2.1/os-keypairs/:name', track('keypair.delete'), (req, res) => {
    const userId = userFor(ctxOf(res), atLeast(res, 10) ? queryString(req.query, 'user_id') : undefined);
    const id = keypairId(userId, param(req, 'name'));
    if (!store.get('keypairs', id)) throw notFound(`Keypair ${param(req, 'name')} not found for user ${userId}`);
    store.remove('keypairs', id);
    res.status(atLeast(res, 2) ? 204 : 202).end();
  });
}
