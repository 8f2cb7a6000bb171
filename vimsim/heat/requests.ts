/** Request bodies of the Heat API, validated with zod. */
import { z } from 'zod';
import { heatErrors } from './errors';

const Template = z.union([z.string(), z.record(z.string(), z.unknown())]);
const Environment = z.union([z.string(), z.record(z.string(), z.unknown())]);
const Parameters = z.record(z.string(), z.unknown());
const Files = z.record(z.string(), z.unknown());
const TimeoutMins = z.coerce.number().int().positive();

export const CreateStackBody = z.object({
  stack_name: z.string().min(1),
  template: Template.optional(),
  template_url: z.string().optional(),
  files: Files.optional(),
  parameters: Parameters.optional(),
  environment: Environment.optional(),
  timeout_mins: TimeoutMins.optional(),
  disable_rollback: z.boolean().optional(),
});

export const UpdateStackBody = z.object({
  template: Template.optional(),
  template_url: z.string().optional(),
  files: Files.optional(),
  parameters: Parameters.optional(),
  clear_parameters: z.array(z.string()).optional(),
  environment: Environment.optional(),
  timeout_mins: TimeoutMins.optional(),
  disable_rollback: z.boolean().optional(),
  existing: z.boolean().optional(),
});

export const ValidateBody = z.object({
  template: Template.optional(),
  files: Files.optional(),
  parameters: Parameters.optional(),
  environment: Environment.optional(),
});

export const MarkUnhealthyBody = z.object({
  mark_unhealthy: z.boolean(),
  resource_status_reason: z.string().optional(),
});

/** Heat's stack actions; only the two cancel actions are simulated. */
export const ActionBody = z.record(z.string(), z.unknown()).refine((b) => Object.keys(b).length === 1, 'exactly one action');

export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) throw heatErrors.badRequest(`Invalid request body: ${z.prettifyError(parsed.error)}`);
  if ((parsed.data as { template_url?: string }).template_url !== undefined) {
    throw heatErrors.badRequest('template_url is not supported by the simulator; send the template inline.');
  }
  return parsed.data;
}
