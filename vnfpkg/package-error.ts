/**
 * The one error type package reading raises. Its message is shown to the
 * operator who uploaded the package (SOL005 onboarding failure), so it names
 * the file involved and says what is wrong with it.
 */
export class PackageError extends Error {
  constructor(public readonly reason: string) {
    super(reason);
    this.name = 'PackageError';
  }
}
