/**
 * The values of the store's enum columns, shared by both schemas: the column
 * types (text with `enum`) and the CHECK constraints that hold them in the
 * database, so a bad value is refused by either store, not just by the types.
 */
import { CANCEL_MODES, OP_STATES } from '../model/lcm-operation';

/** SOL005 PackageOnboardingState, PackageOperationalState, PackageUsageState. */
export const ONBOARDING_STATES = ['CREATED', 'UPLOADING', 'PROCESSING', 'ONBOARDED', 'ERROR'] as const;
export const OPERATIONAL_STATES = ['ENABLED', 'DISABLED'] as const;
export const USAGE_STATES = ['IN_USE', 'NOT_IN_USE'] as const;
/** SOL003 InstantiationState. */
export const INSTANTIATION_STATES = ['NOT_INSTANTIATED', 'INSTANTIATED'] as const;
export { CANCEL_MODES, OP_STATES };
/** What the notification outbox carries (schema-notify.ts), how far a delivery got, and the API a subscription was made through. */
export const NOTIFICATION_KINDS = ['etsi-lcm', 'cadf'] as const;
export const DELIVERY_STATES = ['PENDING', 'DELIVERED', 'FAILED'] as const;
export const SUBSCRIPTION_API_VERSIONS = ['v1', 'v2'] as const;

/** `column IN ('a', 'b', ...)` for a CHECK constraint (values are the constants above, never input). */
export function inList(column: string, values: readonly string[]): string {
  return `${column} IN (${values.map((v) => `'${v}'`).join(', ')})`;
}
