/** The toolchain build as a process of its own (buildKubeToolchainInBackground): progress on stdout, the failure on stderr. */
import { ensureKubeToolchain } from './index';

try {
  ensureKubeToolchain((m) => console.log(m), { stream: true });
} catch (e) {
  console.error((e as Error).message);
  process.exit(1);
}
