/**
 * The one place @peculiar/x509 is loaded: it resolves its ASN.1 helpers
 * through tsyringe, which needs the Reflect metadata API, and it signs and
 * verifies with the WebCrypto it is given (Node's globalThis.crypto). Every
 * other file of cluster/pki imports x509 from here so that both are set up
 * before the first use.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(globalThis.crypto);

export { x509 };
