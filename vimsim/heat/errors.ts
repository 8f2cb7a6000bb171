/**
 * Errors in Heat's wire shape:
 * {code, title, explanation, error: {type, message, traceback}}.
 */
const TITLES: Record<number, [string, string]> = {
  400: ['Bad Request', 'The server could not comply with the request since it is either malformed or otherwise incorrect.'],
  401: ['Unauthorized', 'This server could not verify that you are authorized to access the document you requested.'],
  403: ['Forbidden', 'Access was denied to this resource.'],
  404: ['Not Found', 'The resource could not be found.'],
  405: ['Method Not Allowed', 'The method specified is not allowed for this resource.'],
  409: ['Conflict', 'There was a conflict when trying to complete your request.'],
  500: ['Internal Server Error', 'The server has either erred or is incapable of performing the requested operation.'],
};

export class HeatError extends Error {
  constructor(
    readonly code: number,
    message: string,
    /** Heat's exception class name (error.type), e.g. EntityNotFound, StackExists. */
    readonly type: string,
  ) {
    super(message);
    this.name = 'HeatError';
  }

  toBody(): Record<string, unknown> {
    const [title, explanation] = TITLES[this.code] ?? [String(this.code), ''];
    // error.code/title duplicate the top level so a client written against
    // keystonemiddleware's {error:{code,title,message}} shape parses it too.
    return {
      code: this.code,
      title,
      explanation,
      error: { type: this.type, message: this.message, traceback: null, code: this.code, title },
    };
  }
}

export const heatErrors = {
  badRequest: (message: string, type = 'HTTPBadRequest') => new HeatError(400, message, type),
  unauthorized: (message = 'The request you have made requires authentication.') => new HeatError(401, message, 'Unauthorized'),
  forbidden: (message: string) => new HeatError(403, message, 'Forbidden'),
  stackNotFound: (nameOrId: string) => new HeatError(404, `The Stack (${nameOrId}) could not be found.`, 'EntityNotFound'),
  resourceNotFound: (name: string, stack: string) =>
    new HeatError(404, `The Resource (${name}) could not be found in Stack ${stack}.`, 'ResourceNotFound'),
  notFound: (message: string) => new HeatError(404, message, 'HTTPNotFound'),
  methodNotAllowed: () => new HeatError(405, 'The method is not allowed for this resource.', 'HTTPMethodNotAllowed'),
  stackExists: (name: string) => new HeatError(409, `The Stack (${name}) already exists.`, 'StackExists'),
  actionInProgress: (name: string, action: string) =>
    new HeatError(409, `Stack ${name} already has an action (${action}) in progress.`, 'ActionInProgress'),
};
