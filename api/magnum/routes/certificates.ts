/**
 * /v1/certificates (magnum/api/controllers/v1/certificate.py): the cluster's
 * CA (?ca_cert_type=kubernetes|etcd|front_proxy), a user's CSR signed by it
 * (Magnum's extension filter: a disallowed critical extension or a bad CSR
 * 400; an unknown cluster here 400, as Magnum). CA rotation (PATCH, 1.5) is
 * an operation: ops/magnum/ca-rotate, served by ./operations.ts.
 */
import { Router, type Response } from 'express';
import { CsrRejected, caPair, openPki, signCsr, type CaName } from '../../../cluster/pki';
import { clusterById, clusterPki } from '../../../store/repos/clusters';
import type { MagnumClusterRow } from '../../../store/repos/magnum/clusters';
import { badRequest, conflict, forbidden, HttpError } from '../../../common/http-error';
import { CertificateSignInput } from '../../../model/magnum/cluster';
import type { ApiContext } from '../../context';
import { authorize } from '../../routes/authorize';
import { magnumBody } from '../body';
import { callerOf } from '../caller';
import { findCluster } from '../lookups';

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

  return r;
}
