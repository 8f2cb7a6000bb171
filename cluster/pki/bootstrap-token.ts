/**
 * Bootstrap tokens for `kubeadm join` (the kubelet's TLS bootstrap):
 * `<id>.<secret>`, [a-z0-9]{6}.[a-z0-9]{16}, and the kube-system Secret
 * the API server's bootstrap token authenticator reads (as `kubeadm token
 * create` writes it).
 */
import nodeCrypto from 'node:crypto';

export interface BootstrapToken {
  id: string;
  secret: string;
  /** `<id>.<secret>`: what kubeadm join and the Authorization header carry. */
  token: string;
}

export const BOOTSTRAP_TOKEN_PATTERN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
export const DEFAULT_BOOTSTRAP_GROUP = 'system:bootstrappers:kubeadm:default-node-token';
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
/** Bytes at or above this would bias the choice (256 is not a multiple of 36): drawn again. */
const UNBIASED_LIMIT = 256 - (256 % ALPHABET.length);

function randomChars(n: number): string {
  let out = '';
  while (out.length < n) {
    for (const b of nodeCrypto.randomBytes(n * 2)) {
      if (b < UNBIASED_LIMIT && out.length < n) out += ALPHABET[b % ALPHABET.length];
    }
  }
  return out;
}

export function newBootstrapToken(): BootstrapToken {
  const id = randomChars(6);
  const secret = randomChars(16);
  return { id, secret, token: `${id}.${secret}` };
}

/** Parses `<id>.<secret>`; undefined when the text is not a bootstrap token. */
export function parseBootstrapToken(token: string): BootstrapToken | undefined {
  const m = BOOTSTRAP_TOKEN_PATTERN.exec(token);
  return m ? { id: m[1], secret: m[2], token } : undefined;
}

export interface BootstrapTokenSecretOptions {
  /** Lifetime from `now` (default 1 h, as the engine's join uses). */
  ttlSeconds?: number;
  now?: Date;
  description?: string;
  /** Extra groups (default kubeadm's default-node-token group). */
  groups?: string[];
}

/** A type alias, not an interface, so that it is assignable to the client's generic Manifest. */
export type SecretManifest = {
  apiVersion: 'v1';
  kind: 'Secret';
  metadata: { name: string; namespace: string; labels?: Record<string, string> };
  type: string;
  stringData: Record<string, string>;
};

/** RFC 3339 in UTC without fractional seconds (the form kubeadm writes). */
export function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The Secret `bootstrap-token-<id>` in kube-system (type bootstrap.kubernetes.io/token, authentication + signing). */
export function bootstrapTokenSecret(t: BootstrapToken, o: BootstrapTokenSecretOptions = {}): SecretManifest {
  const now = o.now ?? new Date();
  const expiration = new Date(now.getTime() + (o.ttlSeconds ?? 3600) * 1000);
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `bootstrap-token-${t.id}`, namespace: 'kube-system' },
    type: 'bootstrap.kubernetes.io/token',
    stringData: {
      description: o.description ?? 'bootstrap token for kubeadm join, made by the cluster engine',
      'token-id': t.id,
      'token-secret': t.secret,
      expiration: rfc3339(expiration),
      'usage-bootstrap-authentication': 'true',
      'usage-bootstrap-signing': 'true',
      'auth-extra-groups': (o.groups ?? [DEFAULT_BOOTSTRAP_GROUP]).join(','),
    },
  };
}
