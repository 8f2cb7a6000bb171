/** The baseline's only activity: does nothing, so what is measured is Temporal itself. */
export async function noop(): Promise<void> {
  /* nothing */
}

export type BaselineActivities = { noop: typeof noop };
