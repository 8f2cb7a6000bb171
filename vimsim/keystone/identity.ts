/**
 * The simulated Keystone's users, projects and domains, derived from the
 * configured SimUser list. Ids are stable hashes so endpoint URLs (which
 * embed the project id) survive restarts.
 */
import { stableHexId } from '../util/ids';

export interface SimUser {
  name: string;
  password: string;
  project: string;
  domain?: string;
}

export interface Ref {
  id: string;
  name: string;
}

export interface IdentityUser {
  id: string;
  name: string;
  password: string;
  domain: Ref;
  project: Ref & { domain: Ref };
}

export const DEFAULT_DOMAIN = 'Default';

export function domainRef(name: string): Ref {
  // Keystone's built-in domain is {id: "default", name: "Default"}.
  return { id: name === DEFAULT_DOMAIN ? 'default' : stableHexId(`domain:${name}`), name };
}

export function projectIdOf(project: string, domain = DEFAULT_DOMAIN): string {
  return stableHexId(`project:${domain}:${project}`);
}

export class Identity {
  private readonly users: IdentityUser[];

  constructor(users: SimUser[]) {
    this.users = users.map((u) => {
      const domain = domainRef(u.domain ?? DEFAULT_DOMAIN);
      return {
        id: stableHexId(`user:${domain.name}:${u.name}`),
        name: u.name,
        password: u.password,
        domain,
        project: { id: projectIdOf(u.project, domain.name), name: u.project, domain },
      };
    });
  }

  userById(id: string): IdentityUser | undefined {
    return this.users.find((u) => u.id === id);
  }

  /** A user named within a domain (by domain name or id). */
  findUser(ref: { id?: string; name?: string; domain?: { id?: string; name?: string } }): IdentityUser | undefined {
    if (ref.id) return this.userById(ref.id);
    return this.users.find((u) => u.name === ref.name && matchesDomain(u.domain, ref.domain));
  }
}

export function matchesDomain(domain: Ref, ref: { id?: string; name?: string } | undefined): boolean {
  if (!ref || (ref.id === undefined && ref.name === undefined)) return domain.name === DEFAULT_DOMAIN;
  return ref.id !== undefined ? ref.id === domain.id : ref.name === domain.name;
}
