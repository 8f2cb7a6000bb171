/**
 * An error a service answers with: status, message, and (for Neutron) the
 * exception type. Each service renders it in its own body shape.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Neutron's NeutronError.type (e.g. PortNotFound); other services ignore it. */
    readonly type?: string,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, type?: string) => new ApiError(400, message, type);
export const forbidden = (message: string, type?: string) => new ApiError(403, message, type);
export const notFound = (message: string, type?: string) => new ApiError(404, message, type);
export const conflict = (message: string, type?: string) => new ApiError(409, message, type);
