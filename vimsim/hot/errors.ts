/**
 * A problem with a template or its inputs found while validating or planning.
 * The API turns it into a Heat 400 (Heat validates the whole tree, nested
 * templates included, before it accepts a create or update).
 */
export class TemplateError extends Error {
  constructor(
    message: string,
    /** Heat's exception class name, reported as error.type. */
    readonly heatType: string = 'StackValidationFailed',
  ) {
    super(message);
    this.name = 'TemplateError';
  }
}
