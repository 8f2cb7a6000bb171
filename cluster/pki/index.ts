/**
 * The per-cluster PKI: pure functions over PEM strings (@peculiar/x509 on
 * Node's WebCrypto). Private keys are only ever returned to the caller;
 * nothing here logs.
 */
export { type CaName, type ClusterPki, type ClusterPkiKeys, type NewClusterPkiOptions, adminPair, caPair, newClusterPki } from './cluster-pki';
export { CA_VALIDITY_DAYS, type NewCaOptions, newCa, parseCertificate } from './ca';
export { caCertHash } from './ca-hash';
export { MAX_CSR_CHARS, type SignCsrOptions, signCsr } from './csr';
export { CsrRejected, PkiInputError } from './errors';
export { type ClientCertOptions, LEAF_VALIDITY_DAYS, type ServerCertOptions, issueClientCert, issueServerCert } from './issue';
export type { CertKeyPair } from './keys';
export { type CertKubeconfigOptions, type TokenKubeconfigOptions, kubeconfig, tokenKubeconfig } from './kubeconfig';
export {
  BOOTSTRAP_TOKEN_PATTERN, type BootstrapToken, type BootstrapTokenSecretOptions, DEFAULT_BOOTSTRAP_GROUP, type SecretManifest,
  bootstrapTokenSecret, newBootstrapToken, parseBootstrapToken, rfc3339,
} from './bootstrap-token';
export { type SealedClusterPki, openPki, sealPki } from './seal';
