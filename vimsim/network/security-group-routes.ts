/** /v2.0/security-groups and /v2.0/security-group-rules (rules are stored; nothing filters traffic). */
import type { RequestHandler, Router } from 'express';
import { badRequest, conflict } from '../http/errors';
import { ctxOf } from '../http/service';
import { hostUrl } from '../http/urls';
import { parseBody, param } from '../http/validate';
import type { SecurityGroupRecord, SecurityGroupRuleRecord } from '../store/records';
import type { Store } from '../store/store';
import { newUuid } from '../util/ids';
import { isoSeconds } from '../util/time';
import { defaultGroup } from './default-group';
import { visibleGroup, visibleRule } from './lookup';
import { listBody, selectFields } from './query';
import { createItems, envelope, RuleCreate, SecurityGroupCreate, SecurityGroupUpdate } from './schemas';
import { ruleView, securityGroupView } from './views';
import { ownsOrAdmin, owningProject } from './visibility';

const PROTOCOLS: Record<string, number> = { icmp: 1, tcp: 6, udp: 17, ipv6_icmp: 58, 'ipv6-icmp': 58, icmpv6: 58, sctp: 132, gre: 47, ah: 51, esp: 50, vrrp: 112 };

function normalizeProtocol(p: string | number | null | undefined): string | null {
  if (p === null || p === undefined || p === 'any' || p === '') return null;
  const s = String(p).toLowerCase();
  if (s in PROTOCOLS || (/^\d{1,3}$/.test(s) && Number(s) <= 255)) return s;
  throw badRequest(`Security group rule protocol ${s.slice(0, 32)} not supported.`, 'SecurityGroupRuleInvalidProtocol');
}

export function securityGroupRoutes(router: Router, store: Store, track: (op: string) => RequestHandler): void {
  router.post('/v2.0/security-groups', track('security_group.create'), (req, res) => {
    const ctx = ctxOf(res);
    const spec = parseBody(SecurityGroupCreate, envelope('security_group', req.body));
    const projectId = owningProject(ctx, spec);
    if (spec.name === 'default') throw conflict('Default security group already exists.', 'SecurityGroupDefaultAlreadyExists');
    defaultGroup(store, projectId);
    const now = isoSeconds();
    const group: SecurityGroupRecord = {
      id: newUuid(), name: spec.name ?? '', project_id: projectId, description: spec.description ?? '', stateful: spec.stateful ?? true,
      tags: spec.tags ?? [], created_at: now, updated_at: now, revision_number: 1,
    };
    const egress = (ethertype: 'IPv4' | 'IPv6'): SecurityGroupRuleRecord => ({
      id: newUuid(), project_id: projectId, security_group_id: group.id, direction: 'egress', ethertype, protocol: null, port_range_min: null,
      port_range_max: null, remote_ip_prefix: null, remote_group_id: null, description: '', created_at: now, updated_at: now, revision_number: 0,
    });
    store.tx(() => {
      store.put('security_groups', group);
      store.put('security_group_rules', egress('IPv4'));
      store.put('security_group_rules', egress('IPv6'));
    });
    res.status(201).json({ security_group: securityGroupView(group, store) });
  });

  router.get('/v2.0/security-groups', track('security_group.list'), (req, res) => {
    const ctx = ctxOf(res);
    defaultGroup(store, ctx.projectId);
    const views = store.list('security_groups').filter((g) => ownsOrAdmin(ctx, g.project_id)).map((g) => securityGroupView(g, store));
    res.json(listBody('security_groups', views, req, `${hostUrl(req)}/network/v2.0`));
  });

  router.get('/v2.0/security-groups/:id', track('security_group.show'), (req, res) => {
    res.json({ security_group: selectFields(securityGroupView(visibleGroup(store, ctxOf(res), param(req, 'id')), store), req.query) });
  });

  router.put('/v2.0/security-groups/:id', track('security_group.update'), (req, res) => {
    const group = visibleGroup(store, ctxOf(res), param(req, 'id'));
    const spec = parseBody(SecurityGroupUpdate, envelope('security_group', req.body));
    if (group.name === 'default' && spec.name !== undefined && spec.name !== 'default') throw conflict('Updating default security group not allowed.', 'SecurityGroupCannotUpdateDefault');
    const updated = { ...group, ...Object.fromEntries(Object.entries(spec).filter(([, v]) => v !== undefined)), updated_at: isoSeconds(), revision_number: group.revision_number + 1 };
    store.put('security_groups', updated);
    res.json({ security_group: securityGroupView(updated, store) });
  });

  router.delete('/v2.0/security-groups/:id', track('security_group.delete'), (req, res) => {
    const ctx = ctxOf(res);
    const group = visibleGroup(store, ctx, param(req, 'id'));
    if (group.name === 'default' && !ctx.isAdmin) throw conflict('Insufficient rights for removing default security group.', 'SecurityGroupCannotRemoveDefault');
    if (store.list('ports').some((p) => p.security_groups.includes(group.id))) {
      throw conflict(`Security Group ${group.id} in use.`, 'SecurityGroupInUse');
    }
    store.tx(() => {
      for (const r of store.list('security_group_rules')) if (r.security_group_id === group.id) store.remove('security_group_rules', r.id);
      store.remove('security_groups', group.id);
    });
    res.status(204).end();
  });

  const newRule = (ctx: ReturnType<typeof ctxOf>, raw: unknown): SecurityGroupRuleRecord => {
    const spec = parseBody(RuleCreate, raw);
    const group = visibleGroup(store, ctx, spec.security_group_id);
    if (spec.remote_group_id) visibleGroup(store, ctx, spec.remote_group_id);
    const protocol = normalizeProtocol(spec.protocol);
    const min = spec.port_range_min ?? null;
    const max = spec.port_range_max ?? (protocol === 'tcp' || protocol === 'udp' ? min : null);
    if (min !== null && max !== null && min > max && protocol !== 'icmp') {
      throw badRequest('For TCP/UDP protocols, port_range_min must be <= port_range_max', 'SecurityGroupInvalidPortRange');
    }
    const now = isoSeconds();
    const rule: SecurityGroupRuleRecord = {
      id: newUuid(), project_id: group.project_id, security_group_id: group.id, direction: spec.direction, ethertype: spec.ethertype, protocol,
      port_range_min: min, port_range_max: max, remote_ip_prefix: spec.remote_ip_prefix ?? null, remote_group_id: spec.remote_group_id ?? null,
      description: spec.description ?? '', created_at: now, updated_at: now, revision_number: 0,
    };
    const same = (r: SecurityGroupRuleRecord) =>
      r.security_group_id === rule.security_group_id && r.direction === rule.direction && r.ethertype === rule.ethertype &&
      r.protocol === rule.protocol && r.port_range_min === rule.port_range_min && r.port_range_max === rule.port_range_max &&
      r.remote_ip_prefix === rule.remote_ip_prefix && r.remote_group_id === rule.remote_group_id;
    const dup = store.list('security_group_rules').find(same);
    if (dup) throw conflict(`Security group rule already exists. Rule id is ${dup.id}.`, 'SecurityGroupRuleExists');
    return store.put('security_group_rules', rule);
  };

  router.post('/v2.0/security-group-rules', track('security_group_rule.create'), (req, res) => {
    const ctx = ctxOf(res);
    const { items, bulk } = createItems('security_group_rule', 'security_group_rules', req.body);
    const rules = store.tx(() => items.map((raw) => newRule(ctx, raw)));
    res.status(201).json(bulk ? { security_group_rules: rules.map(ruleView) } : { security_group_rule: ruleView(rules[0]) });
  });

  router.get('/v2.0/security-group-rules', track('security_group_rule.list'), (req, res) => {
    const ctx = ctxOf(res);
    const views = store.list('security_group_rules').filter((r) => ownsOrAdmin(ctx, r.project_id)).map(ruleView);
    res.json(listBody('security_group_rules', views, req, `${hostUrl(req)}/network/v2.0`));
  });

  router.get('/v2.0/security-group-rules/:id', track('security_group_rule.show'), (req, res) => {
    res.json({ security_group_rule: selectFields(ruleView(visibleRule(store, ctxOf(res), param(req, 'id'))), req.query) });
  });

  router.delete('/v2.0/security-group-rules/:id', track('security_group_rule.delete'), (req, res) => {
    const rule = visibleRule(store, ctxOf(res), param(req, 'id'));
    store.remove('security_group_rules', rule.id);
    res.status(204).end();
  });
}
