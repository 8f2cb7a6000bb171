/** The CoordinationError a call must end with (coordination client tests). */
import { CoordinationError } from '../../coord/client';

export async function rejection(p: Promise<unknown>): Promise<CoordinationError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(CoordinationError);
    return e as CoordinationError;
  }
  throw new Error('expected a CoordinationError');
}
