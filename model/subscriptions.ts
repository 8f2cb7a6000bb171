/**
 * SOL003 VNF LCM notification subscriptions (LccnSubscriptionRequest,
 * LccnSubscription, LifecycleChangeNotificationsFilter) for /vnflcm/v1 and
 * /vnflcm/v2; one zod schema per payload, reused for validation, types and
 * the OpenAPI document. The authentication is SOL013's
 * SubscriptionAuthentication, the same type the coordination client takes.
 */
import { z } from 'zod';
import { CoordAuthentication } from './coordination';
import { Identifier } from './common';

export const NOTIFICATION_TYPES = ['VnfLcmOperationOccurrenceNotification', 'VnfIdentifierCreationNotification', 'VnfIdentifierDeletionNotification'] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/** SOL003 LcmOperationType (every value, whether or not this VNFM runs it yet). */
export const LCM_OPERATION_TYPES = [
  'INSTANTIATE', 'SCALE', 'SCALE_TO_LEVEL', 'CHANGE_FLAVOUR', 'TERMINATE', 'HEAL', 'OPERATE', 'CHANGE_EXT_CONN', 'MODIFY_INFO',
  'CREATE_SNAPSHOT', 'REVERT_TO_SNAPSHOT', 'CHANGE_VNFPKG',
] as const;
export const LCM_OPERATION_STATES = ['STARTING', 'PROCESSING', 'COMPLETED', 'FAILED_TEMP', 'FAILED', 'ROLLING_BACK', 'ROLLED_BACK'] as const;

const Versions = z.object({ vnfSoftwareVersion: Identifier, vnfdVersions: z.array(Identifier).optional() });
const Products = z.object({ vnfProductName: Identifier, versions: z.array(Versions).optional() });

export const VnfInstanceSubscriptionFilter = z.object({
  vnfdIds: z.array(Identifier).optional(),
  vnfProductsFromProviders: z.array(z.object({ vnfProvider: Identifier, vnfProducts: z.array(Products).optional() })).optional(),
  vnfInstanceIds: z.array(Identifier).optional(),
  vnfInstanceNames: z.array(z.string().max(255)).optional(),
}).refine((f) => !(f.vnfdIds && f.vnfProductsFromProviders), {
  message: 'vnfdIds and vnfProductsFromProviders are alternatives (SOL003): give one of them', path: ['vnfdIds'],
}).refine((f) => !(f.vnfInstanceIds && f.vnfInstanceNames), {
  message: 'vnfInstanceIds and vnfInstanceNames are alternatives (SOL003): give one of them', path: ['vnfInstanceIds'],
});

export const LifecycleChangeNotificationsFilter = z.object({
  vnfInstanceSubscriptionFilter: VnfInstanceSubscriptionFilter.optional(),
  notificationTypes: z.array(z.enum(NOTIFICATION_TYPES)).optional(),
  operationTypes: z.array(z.enum(LCM_OPERATION_TYPES)).optional(),
  operationStates: z.array(z.enum(LCM_OPERATION_STATES)).optional(),
}).refine((f) => !((f.operationTypes || f.operationStates) && f.notificationTypes && !f.notificationTypes.includes('VnfLcmOperationOccurrenceNotification')), {
  message: 'operationTypes and operationStates filter VnfLcmOperationOccurrenceNotification only: notificationTypes must list it', path: ['operationTypes'],
});
export type LifecycleChangeNotificationsFilter = z.infer<typeof LifecycleChangeNotificationsFilter>;

/** SOL013 SubscriptionAuthentication (BASIC, OAUTH2_CLIENT_CREDENTIALS, OAUTH2_CLIENT_CERT); passwords and client secrets are secret(). */
export const SubscriptionAuthentication = CoordAuthentication;
export type SubscriptionAuthentication = z.infer<typeof SubscriptionAuthentication>;

export const LccnSubscriptionRequest = z.object({
  filter: LifecycleChangeNotificationsFilter.optional(),
  callbackUri: z.string().min(1).max(2048),
  authentication: SubscriptionAuthentication.optional(),
  /** v2 (SOL003 3.x): FULL (default) or SHORT (no resource changes in the notifications). */
  verbosity: z.enum(['FULL', 'SHORT']).optional(),
}).openapi('LccnSubscriptionRequest');
export type LccnSubscriptionRequest = z.infer<typeof LccnSubscriptionRequest>;

const Link = z.object({ href: z.string() });

/** What GET answers (SOL003 never shows the authentication back). */
export const LccnSubscription = z.object({
  id: Identifier,
  filter: LifecycleChangeNotificationsFilter.optional(),
  callbackUri: z.string(),
  verbosity: z.enum(['FULL', 'SHORT']).optional(),
  _links: z.object({ self: Link, deliveries: Link.optional() }),
}).openapi('LccnSubscription');

/** A notification as the outbox keeps it, shown to the subscription's owner (GET .../subscriptions/{id}/deliveries). */
export const NotificationDelivery = z.object({
  id: Identifier,
  notificationType: z.string(),
  state: z.enum(['PENDING', 'DELIVERED', 'FAILED']),
  attempts: z.number().int(),
  lastError: z.string().optional(),
  lastAttemptAt: z.string().optional(),
  createdAt: z.string(),
  finishedAt: z.string().optional(),
  notification: z.record(z.string(), z.unknown()),
}).openapi('NotificationDelivery');

/** Stored: the filter as given (validated), and the authentication without its secrets. */
export type StoredSubscriptionFilter = LifecycleChangeNotificationsFilter;
export type StoredSubscriptionAuth = { authType: string[] };
