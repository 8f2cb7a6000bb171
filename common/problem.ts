/** RFC 7807 ProblemDetails as ETSI NFV-SOL 013 uses it (status and detail required). */
export interface ProblemDetails {
  type?: string;
  title?: string;
  status: number;
  detail: string;
  instance?: string;
  [extra: string]: unknown;
}
