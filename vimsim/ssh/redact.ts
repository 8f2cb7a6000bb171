/**
 * Keeps passwords out of the command record. Commands are recorded as sent,
 * except where a password is typically written into the command line itself:
 * `echo PW | sudo -S`, `... | chpasswd`, `--password-stdin`, `docker login -p PW`,
 * `sshpass -p PW`, here-strings fed to `sudo -S`, URL user info and the secret
 * half of Kubernetes bootstrap tokens (`kubeadm join --token`). Known
 * passwords of the host's accounts are blanked anywhere too (unless a
 * password equals a user name, which would blank the user names as well).
 */
const MASK = '********';

const QUOTED_OR_WORD = String.raw`(?:'[^']*'|"(?:[^"\\]|\\.)*"|[^\s|;&]+)`;

const RULES: [RegExp, (m: string, ...groups: string[]) => string][] = [
  // echo PW | sudo -S ..., printf '%s\n' PW | chpasswd, echo PW | docker login --password-stdin
  [
    new RegExp(String.raw`\b(echo|printf)((?:\s+-[neE]+)?(?:\s+'%s\\n')?)\s+(${QUOTED_OR_WORD}(?:\s+${QUOTED_OR_WORD})*)(\s*\|\s*(?:[^|;&]*\bsudo\b[^|;&]*\s-[a-zA-Z]*S\b|[^|;&]*\bchpasswd\b|[^|;&]*--password-stdin))`, 'g'),
    (_m, cmd, opts, _pw, rest) => `${cmd}${opts} ${MASK}${rest}`,
  ],
  [new RegExp(String.raw`(\b(?:docker|podman|helm)\s+(?:registry\s+)?login\b[^;&|]*?\s(?:-p|--password)(?:=|\s+))${QUOTED_OR_WORD}`, 'g'), (_m, head) => `${head}${MASK}`],
  [new RegExp(String.raw`(\bsshpass\s+-p\s*)${QUOTED_OR_WORD}`, 'g'), (_m, head) => `${head}${MASK}`],
  [new RegExp(String.raw`(\bsudo\b[^;&|]*\s-[a-zA-Z]*S\b[^;&|]*<<<\s*)${QUOTED_OR_WORD}`, 'g'), (_m, head) => `${head}${MASK}`],
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^:/@\s'"]+:)[^@/\s'"]+@/gi, (_m, head) => `${head}${MASK}@`],
  // a Kubernetes bootstrap token (kubeadm join --token, kubeadm token create): its secret half
  [/\b([a-z0-9]{6})\.[a-z0-9]{16}\b/g, (_m, id) => `${id}.${MASK}`],
  [/(--certificate-key(?:=|\s+))[0-9a-f]{64}\b/g, (_m, head) => `${head}${MASK}`],
];

export function redactText(text: string, secrets: string[] = [], userNames: string[] = []): string {
  let out = text;
  for (const [re, fn] of RULES) out = out.replace(re, fn as (m: string, ...g: string[]) => string);
  for (const secret of secrets) {
    if (secret.length < 4 || userNames.includes(secret)) continue;
    out = out.split(secret).join(MASK);
  }
  return out;
}

export function redactCommand(command: string, host: { secrets(): string[]; accounts: Map<string, unknown> }): string {
  return redactText(command, host.secrets(), [...host.accounts.keys()]);
}
