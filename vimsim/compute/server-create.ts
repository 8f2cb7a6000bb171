/**
 * POST /servers: Nova's checks (flavor, image, key pair, networks, block
 * devices, user_data) with Nova's messages, then the record in BUILD with its
 * ports bound and volumes attached, all in one transaction. The build itself
 * (BUILD → ACTIVE or ERROR) is a timed change; an injected fault decides it.
 */
import type { ConsoleSource } from './console-output';
import type { RequestContext } from '../auth/context';
import { actingUserId } from '../auth/context';
import type { Faults } from '../faults/registry';
import { ApiError, badRequest, conflict, forbidden } from '../http/errors';
import { imageVisible } from '../image/visibility';
import type { Transitions } from '../lifecycle/transitions';
import { bindPort, createPort } from '../network/ports';
import { networkVisible } from '../network/visibility';
import type { ImageRecord, PortRecord, ServerInterface, ServerRecord, ServerVolume, VolumeRecord } from '../store/records';
import type { Store } from '../store/store';
import { newUuid } from '../util/ids';
import { isoSeconds } from '../util/time';
import { resolveVolumeType } from '../volume/type-routes';
import { attachVolume } from '../volume/volumes';
import { generateHostKey } from '../ssh/hostkey';
import { ownKeypair } from './lookup';
import { scheduleHost } from './scheduler';
import type { SchedulerHintsBody, ServerCreateBody } from './schemas';

export const NO_VALID_HOST = 'No valid host was found. There are not enough hosts available.';
export const ZONE = 'nova';

export interface ComputeDeps {
  store: Store;
  faults: Faults;
  transitions: Transitions;
  /** Host keys and hostname for os-getConsoleOutput (the SSH side). */
  console?: ConsoleSource;
}

/** Nova's image checks against the flavor; returns the image. */
export function usableImage(store: Store, ctx: RequestContext, imageRef: string, flavor: { ram: number; disk: number }): ImageRecord {
  const image = store.get('images', imageRef);
  if (!image || !imageVisible(ctx, image)) throw badRequest('Can not find requested image');
  if (image.status !== 'active') throw badRequest(`Image ${image.id} is not active.`);
  if (flavor.ram < image.min_ram) throw badRequest("Flavor's memory is too small for requested image.");
  if (flavor.disk > 0 && flavor.disk < image.min_disk) {
    throw badRequest(`Flavor's disk is too small for requested image. Flavor disk is ${flavor.disk * 2 ** 30} bytes, image is ${image.min_disk * 2 ** 30} bytes.`);
  }
  return image;
}

export function checkUserData(userData: string | null | undefined): string | null {
  if (userData === undefined || userData === null) return null;
  const compact = userData.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) throw badRequest('User data needs to be valid base 64.');
  return userData;
}

function checkMetadata(metadata: Record<string, string> | undefined): Record<string, string> {
  if (metadata && Object.keys(metadata).length > 128) throw forbidden('Quota exceeded for metadata items: The number of metadata items exceeds the maximum of 128.');
  return metadata ?? {};
}

/** The networks a server without explicit ones ("auto") gets: the one network the project can use, as Nova picks it. */
function autoNetwork(store: Store, ctx: RequestContext): string {
  const usable = store.list('networks').filter((n) => (n.project_id === ctx.projectId || n.shared) && networkVisible(ctx, n));
  const own = usable.filter((n) => n.project_id === ctx.projectId && !n['router:external']);
  const candidates = own.length > 0 ? own : usable;
  if (candidates.length === 0) throw badRequest('Unable to automatically allocate a network for project ' + ctx.projectId);
  if (candidates.length > 1) throw conflict('Multiple possible networks found, use a Network ID to be more specific.');
  return candidates[0].id;
}

interface PlannedInterface {
  port?: PortRecord;
  networkId?: string;
  fixedIp?: string;
}

function planNetworks(store: Store, ctx: RequestContext, networks: ServerCreateBody['networks'], microversionAtLeast37: boolean): PlannedInterface[] {
  if (networks === undefined) {
    if (microversionAtLeast37) throw badRequest("Invalid input for field/attribute server. 'networks' is a required property");
    return [{ networkId: autoNetwork(store, ctx) }];
  }
  if (networks === 'none') return [];
  if (networks === 'auto') return [{ networkId: autoNetwork(store, ctx) }];
  return networks.map((n) => {
    if (n.port) {
      if (n.fixed_ip || n.uuid) throw badRequest('Specified Fixed IP and port cannot be given together');
      const port = store.get('ports', n.port);
      if (!port || (port.project_id !== ctx.projectId && !ctx.isAdmin)) throw badRequest(`Port id ${n.port} could not be found.`);
      if (port.device_id) throw conflict(`Port ${port.id} is still in use.`);
      return { port };
    }
    if (!n.uuid) throw badRequest('Bad networks format: network uuid is not in proper format (None)');
    const net = store.get('networks', n.uuid);
    if (!net || !networkVisible(ctx, net)) throw badRequest(`Network ${n.uuid} could not be found.`);
    if (!store.list('subnets').some((s) => s.network_id === net.id)) throw badRequest(`Network ${net.id} requires a subnet in order to boot instances on.`);
    return { networkId: net.id, fixedIp: n.fixed_ip };
  });
}

function securityGroupIdsByName(store: Store, ctx: RequestContext, names: string[]): string[] {
  return names.map((name) => {
    const group = store.list('security_groups').find((g) => g.project_id === ctx.projectId && (g.name === name || g.id === name));
    if (!group) {
      if (name === 'default') return undefined;
      throw badRequest(`Unable to find security_group with name or id '${name}'`);
    }
    return group.id;
  }).filter((id): id is string => id !== undefined);
}

interface PlannedVolume {
  volume?: VolumeRecord;
  create?: { size: number; imageId: string | null; volumeType: string | null };
  bootIndex: number | null;
  deleteOnTermination: boolean;
}

function planBlockDevices(store: Store, ctx: RequestContext, body: ServerCreateBody): { volumes: PlannedVolume[]; bootsFromVolume: boolean } {
  const volumes: PlannedVolume[] = [];
  let bootsFromVolume = false;
  for (const bdm of body.block_device_mapping_v2 ?? []) {
    const source = bdm.source_type ?? 'volume';
    const destination = bdm.destination_type ?? (source === 'volume' ? 'volume' : 'local');
    const bootIndex = bdm.boot_index ?? null;
    const boot = bootIndex === 0;
    if (destination === 'local') {
      if (source === 'volume') throw badRequest('Block Device Mapping is Invalid: Mapping image to local is not supported.');
      continue; // the image itself, swap or ephemeral disks: part of the instance
    }
    if (source === 'snapshot') throw badRequest('Block Device Mapping is Invalid: volume snapshots are not simulated.');
    if (bdm.volume_type && !store.list('volume_types').some((t) => t.id === bdm.volume_type || t.name === bdm.volume_type)) {
      throw badRequest(`Volume type ${bdm.volume_type} could not be found.`);
    }
    if (boot) bootsFromVolume = true;
    const deleteOnTermination = bdm.delete_on_termination ?? false;
    if (source === 'volume') {
      const volume = bdm.uuid ? store.get('volumes', bdm.uuid) : undefined;
      if (!volume || (volume.project_id !== ctx.projectId && !ctx.isAdmin)) throw badRequest(`Block Device Mapping is Invalid: failed to get volume ${bdm.uuid}.`);
      if (volume.status !== 'available' && !(volume.multiattach && volume.status === 'in-use')) {
        throw badRequest(`Invalid volume: Volume ${volume.id} status must be available, but current status is: ${volume.status}.`);
      }
      volumes.push({ volume, bootIndex, deleteOnTermination });
    } else {
      if (!bdm.volume_size) throw badRequest('Block Device Mapping is Invalid: You specified more local devices than the limit allows');
      if (source === 'image') {
        const image = bdm.uuid ? store.get('images', bdm.uuid) : undefined;
        if (!image || !imageVisible(ctx, image)) throw badRequest(`Block Device Mapping is Invalid: failed to get image ${bdm.uuid}.`);
      }
      volumes.push({ create: { size: bdm.volume_size, imageId: source === 'image' ? bdm.uuid! : null, volumeType: bdm.volume_type ?? null }, bootIndex, deleteOnTermination });
    }
  }
  return { volumes, bootsFromVolume };
}

const device = (i: number) => `/dev/vd${String.fromCharCode(97 + i)}`;

export function createServer(deps: ComputeDeps, ctx: RequestContext, body: ServerCreateBody, microversion37: boolean, hints: SchedulerHintsBody = {}): ServerRecord {
  const { store } = deps;
  const flavor = store.get('flavors', body.flavorRef);
  if (!flavor) throw badRequest(`Flavor ${body.flavorRef} could not be found.`);
  const blocks = planBlockDevices(store, ctx, body);
  const imageRef = body.imageRef ?? '';
  if (imageRef) usableImage(store, ctx, imageRef, flavor);
  else if (!blocks.bootsFromVolume) throw badRequest('Block Device Mapping is Invalid: Boot sequence for the instance and image/block device mapping combination is not valid.');
  const keyName = body.key_name ?? null;
  if (keyName && !ownKeypair(store, ctx, keyName)) throw badRequest('Invalid key_name provided.');
  const zone = body.availability_zone || ZONE;
  if (zone !== ZONE) throw badRequest(`The requested availability zone is not available`);
  const userData = checkUserData(body.user_data);
  const metadata = checkMetadata(body.metadata);
  const groups = (body.security_groups ?? [{ name: 'default' }]).map((g) => g.name);
  const serverGroup = hints.group ? store.get('server_groups', hints.group) : undefined;
  if (hints.group && (!serverGroup || (serverGroup.project_id !== ctx.projectId && !ctx.isAdmin))) throw badRequest(`Group ${hints.group} could not be found.`);

  return store.tx(() => {
    const plan = planNetworks(store, ctx, body.networks, microversion37);
    const host = scheduleHost(store, serverGroup);
    const id = newUuid();
    const now = isoSeconds();
    const interfaces: ServerInterface[] = plan.map((p) => {
      if (p.port) return { port_id: p.port.id, created: false };
      const port = createPort(store, ctx, {
        network_id: p.networkId!,
        name: '',
        fixed_ips: p.fixedIp ? [{ ip_address: p.fixedIp }] : undefined,
        security_groups: securityGroupIdsByName(store, ctx, groups),
      });
      return { port_id: port.id, created: true };
    });
    const server: ServerRecord = {
      id,
      name: body.name,
      project_id: ctx.projectId,
      user_id: actingUserId(ctx),
      image_id: imageRef,
      flavor_id: flavor.id,
      old_flavor_id: null,
      key_name: keyName,
      metadata,
      tags: body.tags ?? [],
      user_data: userData,
      admin_pass: body.adminPass ?? null,
      access_ipv4: body.accessIPv4 ?? '',
      access_ipv6: body.accessIPv6 ?? '',
      availability_zone: zone,
      config_drive: body.config_drive === true || body.config_drive === 'True' || body.config_drive === 'true' ? 'True' : '',
      description: body.description ?? null,
      security_groups: groups,
      status: 'BUILD',
      vm_state: 'building',
      task_state: 'scheduling',
      power_state: 0,
      fault: null,
      interfaces,
      volumes: [],
      generation: 0,
      ssh_host_key: generateHostKey(),
      launched_at: null,
      created: now,
      updated: now,
      host: host ?? '',
      pending: deps.transitions.pending('build', host ? deps.faults.take('server', 'create', body.name) : { id: 'scheduler', mode: 'fail' }, { message: NO_VALID_HOST, code: 500 }),
    };
    for (const iface of interfaces) bindPort(store, iface.port_id, id, zone, host ?? '');
    if (serverGroup) store.put('server_groups', { ...serverGroup, members: [...store.get('server_groups', serverGroup.id)!.members, id] });
    server.volumes = blocks.volumes.map((v, i): ServerVolume => {
      const volume = v.volume ?? createNovaVolume(store, ctx, v.create!, zone);
      const attachmentId = attachVolume(store, store.get('volumes', volume.id)!, server, device(i));
      return { volume_id: volume.id, attachment_id: attachmentId, device: device(i), boot_index: v.bootIndex, delete_on_termination: v.deleteOnTermination };
    });
    return store.put('servers', server);
  });
}

/** A volume Nova makes for an image/blank block device (it waits for it itself, so it is available at once). */
function createNovaVolume(store: Store, ctx: RequestContext, spec: NonNullable<PlannedVolume['create']>, zone: string): VolumeRecord {
  const now = isoSeconds();
  return store.put('volumes', {
    id: newUuid(), name: '', description: '', project_id: ctx.projectId, user_id: actingUserId(ctx), size: spec.size, status: 'available',
    availability_zone: zone, volume_type: resolveVolumeType(store, spec.volumeType).id, bootable: spec.imageId !== null, image_id: spec.imageId,
    metadata: {}, attachments: [], multiattach: false, created_at: now, updated_at: now, pending: null,
  });
}

/** Thrown through as is (e.g. Neutron's IpAddressAlreadyAllocated becomes Nova's 400 for a fixed_ip). */
export function asNovaError(err: unknown): unknown {
  if (err instanceof ApiError && err.type === 'IpAddressAlreadyAllocated') return badRequest(err.message);
  if (err instanceof ApiError && err.type === 'IpAddressGenerationFailure') return conflict(err.message);
  if (err instanceof ApiError && err.type === 'InvalidInput') return badRequest(err.message);
  return err;
}
