/** Login accounts of a simulated host, from the server's user_data or the simulator defaults. */
import type { Who } from './fs';

/**
 * How sudo treats the account: `nopasswd` (cloud images' default user:
 * `ALL=(ALL) NOPASSWD:ALL`), `password` (sudoer that must type its password),
 * `none` (not in sudoers).
 */
export type SudoPolicy = 'nopasswd' | 'password' | 'none';

export interface Account {
  name: string;
  uid: number;
  home: string;
  /** Plain text, in memory only (comes from user_data or the simulator options). */
  password?: string;
  /** Password logins allowed (cloud-config ssh_pwauth / lock_passwd). */
  passwordLogin: boolean;
  /** OpenSSH public key lines accepted for public-key auth. */
  authorizedKeys: string[];
  sudo: SudoPolicy;
  groups: Set<string>;
}

/** What the credentials parser produces; turned into Accounts by the host. */
export interface AccountSpec {
  name: string;
  password?: string;
  passwordLogin?: boolean;
  authorizedKeys?: string[];
  sudo?: SudoPolicy;
  groups?: string[];
}

export const ROOT: Account = {
  name: 'root',
  uid: 0,
  home: '/root',
  passwordLogin: false,
  authorizedKeys: [],
  sudo: 'nopasswd',
  groups: new Set(['root']),
};

export function makeAccount(spec: AccountSpec, uid: number): Account {
  return {
    name: spec.name,
    uid: spec.name === 'root' ? 0 : uid,
    home: spec.name === 'root' ? '/root' : `/home/${spec.name}`,
    password: spec.password,
    passwordLogin: spec.passwordLogin ?? true,
    authorizedKeys: spec.authorizedKeys ?? [],
    sudo: spec.sudo ?? 'nopasswd',
    groups: new Set([spec.name, ...(spec.groups ?? [])]),
  };
}

export function whoOf(account: Account): Who {
  return { name: account.name, uid: account.uid, home: account.home };
}
