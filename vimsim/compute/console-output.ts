/**
 * os-getConsoleOutput: the serial console log of a booted server, a few boot
 * lines and then what cloud-init's final stage prints, ending with the
 * server's SSH host public keys between `-----BEGIN SSH HOST KEY KEYS-----`
 * and `-----END SSH HOST KEY KEYS-----` (what operators check a first SSH
 * host key against).
 */
import { z } from 'zod';
import { badRequest, conflict } from '../http/errors';
import { parseBody } from '../http/validate';
import type { ServerRecord } from '../store/records';

/** Where the console's host keys and hostname come from (the SSH side; an admin override for tests). */
export interface ConsoleSource {
  consoleHostKeys(s: ServerRecord): string[];
  consoleHostname(s: ServerRecord): string;
}

// Nova: integer or integer string, -1 or null = everything.
const Body = z.object({ length: z.union([z.number().int(), z.string().regex(/^-?[0-9]+$/), z.null()]).optional() }).passthrough();

/** Statuses whose disk has booted (a console log exists); BUILD and REBUILD have not yet. */
const BOOTED = new Set(['ACTIVE', 'VERIFY_RESIZE', 'SHUTOFF', 'REBOOT', 'HARD_REBOOT', 'RESIZE', 'REVERT_RESIZE', 'PAUSED', 'SUSPENDED']);

export function consoleOutput(s: ServerRecord, raw: unknown, src: ConsoleSource | undefined): { output: string } {
  const body = parseBody(Body, raw ?? {});
  const length = body.length === undefined || body.length === null ? -1 : Number(body.length);
  if (length < -1) throw badRequest(`Invalid input for field/attribute length. Value: ${length}. ${length} is less than the minimum of -1`);
  if (!BOOTED.has(s.status) || s.task_state === 'deleting') throw conflict(`Instance ${s.id} is not ready`);
  const lines = bootLog(s, src);
  return { output: (length === -1 ? lines : lines.slice(Math.max(0, lines.length - length))).join('\n') + '\n' };
}

function bootLog(s: ServerRecord, src: ConsoleSource | undefined): string[] {
  const host = src?.consoleHostname(s) ?? s.name;
  const keys = src?.consoleHostKeys(s) ?? [];
  const at = s.updated || s.created;
  return [
    '[    0.000000] Linux version 5.15.0-91-generic (buildd@lcy02-amd64-045) (gcc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0) #101-Ubuntu SMP',
    '[    0.000000] Command line: BOOT_IMAGE=/boot/vmlinuz-5.15.0-91-generic root=LABEL=cloudimg-rootfs ro console=tty1 console=ttyS0',
    '[    1.204518] EXT4-fs (vda1): mounted filesystem with ordered data mode. Opts: (null). Quota mode: none.',
    `[    4.310027] cloud-init[512]: Cloud-init v. 23.3.3-0ubuntu0~22.04.1 running 'init' at ${at}. Up 4.21 seconds.`,
    `[    4.402117] cloud-init[512]: ci-info: | eth0 | True | ${s.id} |`,
    '[    5.880210] cloud-init[512]: Generating public/private ed25519 key pair.',
    `[    7.012254] cloud-init[731]: Cloud-init v. 23.3.3-0ubuntu0~22.04.1 running 'modules:final' at ${at}. Up 6.95 seconds.`,
    '-----BEGIN SSH HOST KEY KEYS-----',
    ...keys,
    '-----END SSH HOST KEY KEYS-----',
  ];
}
