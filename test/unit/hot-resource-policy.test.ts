/**
 * The resource-type policy of package templates (infra/hot/resource-policy.ts,
 * HEAT_RESOURCE_TYPES), pure: the BaseHOT files as the package has them and
 * the stack built from them, every place a type hides in a template.
 */
import { buildStack, checkBaseHotTypes, DEFAULT_HEAT_RESOURCE_TYPES, layoutOf, resourceTypesFromSetting, TemplatePolicyRefused, type TemplateViolation } from '../../infra/hot';
import type { Vnfd } from '../../model/vnfd';
import { v2Flavour } from '../support/v2-flavour';

const yaml = (resources: string) => Buffer.from(`heat_template_version: 2021-04-16\nparameters: { nfv: { type: json } }\nresources:\n${resources}`);
const SERVER = '  VDU1:\n    type: VDU1.yaml\n';
const NESTED = yaml('  VDU1:\n    type: OS::Nova::Server\n    properties: { flavor: m1.tiny, image: cirros }\n');

function refusal(fn: () => unknown): TemplateViolation[] {
  try {
    fn();
  } catch (e) {
    if (e instanceof TemplatePolicyRefused) return e.violations;
    throw e;
  }
  throw new Error('not refused');
}

const check = (top: string, nested = NESTED, allowed = DEFAULT_HEAT_RESOURCE_TYPES) =>
  checkBaseHotTypes({ 'BaseHOT/simple/top.yaml': yaml(top), 'BaseHOT/simple/nested/VDU1.yaml': nested }, 'simple', allowed);

test('Keystone in the BaseHOT (security review 3, C-1): refused, naming the file, the resource and its type', () => {
  const v = refusal(() => check(`${SERVER}  pwn:\n    type: OS::Keystone::UserRoleAssignment\n    properties: { user: mallory, roles: [ { role: admin, project: admin } ] }\n`));
  expect(v).toEqual([{ file: 'BaseHOT/simple/top.yaml', resource: 'pwn', type: 'OS::Keystone::UserRoleAssignment' }]);
});

test('in a nested file, in a group\'s member definition, as an intrinsic function or a URL: refused too', () => {
  expect(refusal(() => check(SERVER, yaml('  pwn:\n    type: OS::Keystone::User\n'))))
    .toEqual([{ file: 'BaseHOT/simple/nested/VDU1.yaml', resource: 'pwn', type: 'OS::Keystone::User' }]);
  expect(refusal(() => check(`${SERVER}  g:\n    type: OS::Heat::ResourceGroup\n    properties: { count: 1, resource_def: { type: OS::Heat::SoftwareDeployment } }\n`)))
    .toEqual([{ file: 'BaseHOT/simple/top.yaml', resource: 'g.resource_def', type: 'OS::Heat::SoftwareDeployment' }]);
  expect(refusal(() => check(`${SERVER}  a:\n    type: OS::Heat::AutoScalingGroup\n    properties: { min_size: 1, max_size: 1, resource: { type: { get_param: t } } }\n`)))
    .toEqual([{ file: 'BaseHOT/simple/top.yaml', resource: 'a.resource', type: '(not a type name: {"get_param":"t"})' }]);
  expect(refusal(() => check(`${SERVER}  far:\n    type: http://127.0.0.1:5000/evil.yaml\n`)))
    .toEqual([{ file: 'BaseHOT/simple/top.yaml', resource: 'far', type: 'http://127.0.0.1:5000/evil.yaml' }]);
  expect(refusal(() => check(`${SERVER}  other:\n    type: VDU9.yaml\n`)))
    .toEqual([{ file: 'BaseHOT/simple/top.yaml', resource: 'other', type: 'VDU9.yaml' }]);
});

test('the default allows servers, ports, networks, volumes, server groups, flavours, Heat groups and scaling policies, and the package\'s own nested templates', () => {
  const ok = `${SERVER}  fl: { type: OS::Nova::Flavor }\n  net: { type: OS::Neutron::Net }\n  sub: { type: OS::Neutron::Subnet }\n  port: { type: OS::Neutron::Port }\n  fip: { type: OS::Neutron::FloatingIP }\n`
    + '  vol: { type: OS::Cinder::Volume }\n  att: { type: OS::Cinder::VolumeAttachment }\n  sg: { type: OS::Nova::ServerGroup }\n'
    + '  asg:\n    type: OS::Heat::AutoScalingGroup\n    properties: { min_size: 1, max_size: 3, resource: { type: VDU1.yaml } }\n  up: { type: OS::Heat::ScalingPolicy }\n';
  expect(() => check(ok)).not.toThrow();
});

test('an operator widens it: "default" plus the types named; a name that is not a type stops the start', () => {
  expect(resourceTypesFromSetting(undefined)).toEqual([...DEFAULT_HEAT_RESOURCE_TYPES]);
  const wider = resourceTypesFromSetting('default, OS::Cinder::VolumeType');
  expect(wider).toEqual([...DEFAULT_HEAT_RESOURCE_TYPES, 'OS::Cinder::VolumeType']);
  expect(() => check(`${SERVER}  vt: { type: OS::Cinder::VolumeType }\n`, NESTED, wider)).not.toThrow();
  expect(resourceTypesFromSetting('OS::Nova::Server')).toEqual(['OS::Nova::Server']);
  expect(() => resourceTypesFromSetting('default,VDU1.yaml')).toThrow('HEAT_RESOURCE_TYPES: "VDU1.yaml" is not a Heat resource type name');
});

test('the stack built from a package is checked before it is built; a generated template is checked as generated', () => {
  const flavour = v2Flavour();
  const vnfd = { vnfdId: 'v', flavours: { simple: flavour } } as unknown as Vnfd;
  const files = { 'BaseHOT/simple/top.yaml': yaml('  pwn: { type: OS::Keystone::Project }\n') };
  expect(refusal(() => buildStack(vnfd, flavour, files, { flavourId: 'simple' }, layoutOf({ VDU1: 1, VDU2: 1 }))))
    .toEqual([{ file: 'BaseHOT/simple/top.yaml', resource: 'pwn', type: 'OS::Keystone::Project' }]);
  // generated from the VNFD: VDU2 names no flavour, so the generator makes one; an operator who does not allow flavours gets a refusal
  const noFlavour = v2Flavour();
  noFlavour.vdus.VDU2.virtualCompute = { ...noFlavour.vdus.VDU2.virtualCompute, memSizeMb: 512, numCpus: 1 };
  delete (noFlavour.vdus.VDU2 as { flavorName?: string }).flavorName;
  const input = { flavourId: 'simple', extVirtualLinks: [{ id: 'a', resourceId: 'net-a', extCps: [{ cpdId: 'VDU1_CP1' }, { cpdId: 'VDU2_CP1' }] }] };
  const generated = (allowed: readonly string[]) => buildStack({ ...vnfd, flavours: { simple: noFlavour } } as Vnfd, noFlavour, {}, input, layoutOf({ VDU1: 1, VDU2: 1 }), allowed);
  expect(() => generated(DEFAULT_HEAT_RESOURCE_TYPES)).not.toThrow();
  expect(refusal(() => generated(DEFAULT_HEAT_RESOURCE_TYPES.filter((t) => t !== 'OS::Nova::Flavor'))).map((v) => [v.file, v.type])).toContainEqual([expect.stringContaining('the template generated from the VNFD'), 'OS::Nova::Flavor']);
});
