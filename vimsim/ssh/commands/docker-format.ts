/** How the docker CLI prints things: tables, --format Go templates, inspect JSON. */
import type { DockerContainer, DockerImage } from '../host/docker';
import { splitRef } from '../host/docker';

function ago(iso: string): string {
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (s < 60) return s <= 1 ? 'Less than a second' : `${s} seconds`;
  if (s < 3600) return `${Math.round(s / 60)} minutes`;
  return `${Math.round(s / 3600)} hours`;
}

function goValue(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (v && typeof v === 'object') return `map[${Object.entries(v).map(([k, x]) => `${k}:${goValue(x)}`).join(' ')}]`;
  return v === undefined || v === null ? '<no value>' : String(v);
}

function lookup(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const key of path.split('.').filter(Boolean)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/** `{{.A.B}}`, `{{json .A}}`, `{{.}}`; \t and \n as docker expands them. */
export function goTemplate(template: string, obj: unknown): string {
  return template
    .replace(/\{\{\s*(json\s+)?\.([\w.]*)\s*\}\}/g, (_m, json: string | undefined, path: string) => {
      const v = lookup(obj, path);
      return json ? JSON.stringify(v ?? null) : goValue(v);
    })
    .replace(/\\t/g, '\t')
    .replace(/\\n/g, '\n');
}

export function portsText(c: DockerContainer): string {
  return c.ports.map((p) => `0.0.0.0:${p.hostPort}->${p.containerPort}/${p.proto}, :::${p.hostPort}->${p.containerPort}/${p.proto}`).join(', ');
}

export function statusText(c: DockerContainer): string {
  if (c.state === 'running') return `Up ${ago(c.startedAt)}`;
  if (c.state === 'created') return 'Created';
  return `Exited (${c.exitCode}) ${ago(c.finishedAt || c.created)} ago`;
}

/** The fields `docker ps --format` knows. */
export function psRow(c: DockerContainer) {
  return {
    ID: c.id.slice(0, 12),
    Image: c.image,
    Command: `"${c.command.join(' ').slice(0, 20)}"`,
    CreatedAt: c.created,
    RunningFor: `${ago(c.created)} ago`,
    Ports: portsText(c),
    State: c.state,
    Status: statusText(c),
    Names: c.name,
    Mounts: c.volumes.map((v) => v.split(':')[0]).join(','),
    Networks: 'bridge',
    Labels: '',
  };
}

export function imageRows(images: DockerImage[]) {
  return images.flatMap((i) =>
    (i.repoTags.length ? i.repoTags : ['<none>:<none>']).map((t) => {
      const { repository, tag } = t === '<none>:<none>' ? { repository: '<none>', tag: '<none>' } : splitRef(t);
      return { ID: i.id.slice(0, 12), Repository: repository, Tag: tag, Digest: '<none>', CreatedSince: `${ago(i.created)} ago`, CreatedAt: i.created, Size: humanSize(i.size) };
    }),
  );
}

export function humanSize(bytes: number): string {
  if (bytes < 1000) return `${bytes}B`;
  if (bytes < 1e6) return `${(bytes / 1e3).toFixed(1)}kB`;
  if (bytes < 1e9) return `${(bytes / 1e6).toFixed(1)}MB`;
  return `${(bytes / 1e9).toFixed(2)}GB`;
}

/** Fixed-width columns like the CLI's tabwriter (3 spaces of padding). */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] + 3))).join('').trimEnd();
  return [line(headers), ...rows.map(line)].join('\n') + '\n';
}

/** `--format 'table {{.Names}}\t{{.Status}}'`: a header row from the field names. */
export function formatRows(format: string, rows: object[]): string {
  const isTable = format.startsWith('table ');
  const tpl = isTable ? format.slice(6) : format;
  const lines = rows.map((r) => goTemplate(tpl, r));
  if (isTable) {
    const header = tpl.replace(/\{\{\s*\.(\w+)\s*\}\}/g, (_m, f: string) => f.replace(/([a-z])([A-Z])/g, '$1 $2').toUpperCase());
    lines.unshift(goTemplate(header, {}));
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}

export function containerInspect(c: DockerContainer): Record<string, unknown> {
  const bindings = Object.fromEntries(c.ports.map((p) => [`${p.containerPort}/${p.proto}`, [{ HostIp: '', HostPort: String(p.hostPort) }]]));
  return {
    Id: c.id,
    Created: c.created,
    Path: c.command[0] ?? '',
    Args: c.command.slice(1),
    State: {
      Status: c.state,
      Running: c.state === 'running',
      Paused: false,
      Restarting: false,
      OOMKilled: false,
      Dead: false,
      Pid: c.state === 'running' ? 4321 : 0,
      ExitCode: c.exitCode,
      Error: '',
      StartedAt: c.startedAt,
      FinishedAt: c.finishedAt || '0001-01-01T00:00:00Z',
    },
    Image: `sha256:${c.imageId}`,
    Name: `/${c.name}`,
    RestartCount: 0,
    HostConfig: {
      Binds: c.volumes,
      PortBindings: bindings,
      RestartPolicy: { Name: c.restart || 'no', MaximumRetryCount: 0 },
    },
    Mounts: c.volumes.map((v) => {
      const [src, dst, mode] = v.split(':');
      return { Type: 'bind', Source: src, Destination: dst, Mode: mode ?? '', RW: mode !== 'ro', Propagation: 'rprivate' };
    }),
    Config: { Hostname: c.id.slice(0, 12), Image: c.image, Env: c.env, Cmd: c.command, ExposedPorts: Object.fromEntries(c.ports.map((p) => [`${p.containerPort}/${p.proto}`, {}])) },
    NetworkSettings: {
      IPAddress: c.state === 'running' ? '172.17.0.2' : '',
      Ports: Object.fromEntries(c.ports.map((p) => [`${p.containerPort}/${p.proto}`, [{ HostIp: '0.0.0.0', HostPort: String(p.hostPort) }, { HostIp: '::', HostPort: String(p.hostPort) }]])),
    },
  };
}

export function imageInspect(i: DockerImage): Record<string, unknown> {
  return { Id: `sha256:${i.id}`, RepoTags: i.repoTags, RepoDigests: [], Created: i.created, Size: i.size, Architecture: 'amd64', Os: 'linux', Config: { Env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'] } };
}
