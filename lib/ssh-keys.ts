/**
 * ed25519 key pairs in OpenSSH format, through ssh2. ssh2 1.17 strips every
 * leading zero byte of the public key (mscdex/ssh2 issues 1390 and 1513), so
 * about one pair in 256 comes out with a 31-byte key that its own parser and
 * OpenSSH reject; such a pair is drawn again.
 */
import { utils } from 'ssh2';

export interface SshKeyPair {
  /** "-----BEGIN OPENSSH PRIVATE KEY-----..." */
  private: string;
  /** One authorized_keys line: "ssh-ed25519 AAAA... comment" */
  public: string;
}

export function newEd25519KeyPair(comment?: string): SshKeyPair {
  for (;;) {
    const pair = utils.generateKeyPairSync('ed25519', comment === undefined ? undefined : { comment });
    if (!(utils.parseKey(pair.private) instanceof Error) && !(utils.parseKey(pair.public) instanceof Error)) return pair;
  }
}
