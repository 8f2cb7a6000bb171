/**
 * /v1/certificates (magnum/api/controllers/v1/certificate.py): the cluster's
 * CA (?ca_cert_type=kubernetes|etcd|front_proxy), a user's CSR signed by it
 * (Magnum's extension filter: a disallowed critical extension or a bad CSR
 * 400; an unknown cluster here 400, as Magnum), and CA rotation (1.5; 202,
 * refused at once for a TLS-disabled cluster or a busy one).
 */
import { Router, type Response } from 'express';
import { CsrRejected, caPair, openPki, signCsr, type CaName } from '../../../cluster/pki';
import { clusterById, clusterPki } from '../../../common/db/repos/clusters';
import { Refused, type MagnumClusterRow } from '../../../common/db/repos/magnum/clusters';
import { templateById } from '../../../common/db/repos/magnum/templates';
import { badRequest, conflict, forbidden, HttpError } from '../../../common/http-error';
import { CertificateSignInput } from '../../../model/magnum/cluster';
import { UPDATABLE } from '../../../model/magnum/status';
import type { ApiContext } from '../../context';
import { authorize } from '../../routes/authorize';
import { magnumBody } from '../body';
import { callerOf } from '../caller';
import { findCluster } from '../lookups';
import { requireVersion } from '../microversion';
import { startMagnumOperation } from '../operations';

const CA_OF: Record<string, CaName> = { kubernetes: 'kubernetesCa', etcd: 'etcdCa', front_proxy: 'frontProxyCa', 'front-proxy': 'frontProxyCa' };

export function certificatesRouter(ctx: ApiContext): Router {
  const { db } = ctx;
  const r = Router();
  const base = ctx.cfg.apiBaseUrl;
  const links = (id: string) => [{ href: `${base}/v1/certificates/${id}`, rel: 'self' }, { href: `${base}/certificates/${id}`, rel: 'bookmark' }];

  /** The cluster's current PKI; 409 while the create has not made it yet. */
  const pkiOfCluster = async (c: MagnumClusterRow) => {
    const engine = await clusterById(db, c.id);
    const row = engine && (await clusterPki(db, c.id, engine.pkiGeneration));
    if (!engine || !row) throw conflict(`Cluster ${c.id} has no certificates yet: its create is still making them.`);
    return openPki(ctx.box, { clusterName: engine.name, generation: engine.pkiGeneration, certs: row.certs, sealedKeys: row.keysSealed });
  };
  const caType = (res: Response, t: unknown): CaName => {
    const name = t === undefined ? 'kubernetes' : String(t);
    const ca = CA_OF[name];
    if (!ca) throw badRequest(`Invalid ca_cert_type ${name}: expected kubernetes, etcd or front_proxy.`);
    return ca;
  };

  r.get('/certificates/:ident', authorize('certificates', 'read'), async (req, res) => {
    const c = await findCluster(ctx, callerOf(res), String(req.params.ident));
    const pki = await pkiOfCluster(c);
    res.json({ cluster_uuid: c.id, pem: pki.certs[caType(res, req.query.ca_cert_type)].trimEnd(), links: links(c.id) });
  });

  r.post('/certificates', authorize('certificates', 'write'), async (req, res) => {
    const body = magnumBody(CertificateSignInput, req.body, { resource: 'certificate', readOnly: ['pem', 'links', 'bay_uuid'] });
    let c: MagnumClusterRow;
    try {
      c = await findCluster(ctx, callerOf(res), body.cluster_uuid);
    } catch (e) {
      if (e instanceof HttpError && e.status === 404) throw badRequest(e.message);
      throw e;
    }
    const ca = caType(res, body.ca_cert_type);
    // etcd's and the front proxy's CAs make certificates that pass by Kubernetes RBAC and audit: the cloud's admins only (security review 3, Low 2)
    if (ca !== 'kubernetesCa' && !callerOf(res).isAdmin) throw forbidden(`Policy doesn't allow certificate:create with ca_cert_type ${String(body.ca_cert_type)} to be performed.`);
    const pki = await pkiOfCluster(c);
    let pem: string;
    try {
      pem = await signCsr(caPair(pki, ca), body.csr);
    } catch (e) {
      if (e instanceof CsrRejected) throw badRequest(e.message);
      throw e;
    }
    res.status(201).json({ cluster_uuid: c.id, csr: body.csr, pem: pem.trimEnd(), links: links(c.id) });
  });

  r.patch('/certificates/:ident', authorize('certificates', 'write'), async (req, res) => {
    requireVersion(res, 5, 'rotate_ca');
    const c = await findCluster(ctx, callerOf(res), String(req.params.ident));
    const template = await templateById(db, c.templateId);
    if (template?.attrs.tls_disabled) throw badRequest('Rotating the CA certificate on a non-TLS cluster is not supported');
    await pkiOfCluster(c);
    await startMagnumOperation(ctx, c.id, {
      operation: 'ca-rotate', status: 'UPDATE_IN_PROGRESS',
      check: (x) => { if (!UPDATABLE.includes(x.status)) throw new Refused(400, `Rotating the CA certificate of a cluster when status is "${x.status}" is not supported.`); },
      nodegroups: async (_q, _c, groups) => ({ ids: groups.map((g) => g.id), status: 'UPDATE_IN_PROGRESS' }),
    });
    res.status(202).json({ uuid: c.id });
  });

  return r;
}
