/** A free loopback TCP port for the harness and the tests (lib/free-port.ts, which the worker uses too). */
export { freePort } from '@nfv-orchestrator/lib/free-port';
