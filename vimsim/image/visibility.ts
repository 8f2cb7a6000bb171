/** Which Glance images a caller sees: public and community ones, their own project's, all for admins. */
import type { RequestContext } from '../auth/context';
import type { ImageRecord } from '../store/records';

export function imageVisible(ctx: RequestContext, image: ImageRecord): boolean {
  return image.visibility === 'public' || image.visibility === 'community' || image.owner === ctx.projectId || ctx.isAdmin;
}
