/** Heat's own small resource types (scaling policy, values, placeholders). */
import { randomBytes } from 'node:crypto';
import { nameOf, type ResourceBehaviour } from '../behaviour';

export const scalingPolicy: ResourceBehaviour = {
  required: ['auto_scaling_group_id', 'adjustment_type', 'scaling_adjustment'],
  replaceOn: [],
  create() {},
  attributes({ stack }, res) {
    // Signalling is not simulated; the URL still has Heat's shape.
    const signal = `/heat/v1/${stack.projectId}/stacks/${stack.name}/${stack.id}/resources/${res.name}/signal`;
    return { alarm_url: signal, signal_url: signal };
  },
};

/** Types that only need an id; any property change replaces them, as none is update-allowed. */
export const placeholder: ResourceBehaviour = {
  replaceOn: '*',
  create() {},
  attributes(_view, res) {
    return { name: nameOf(res) };
  },
};

export const heatValue: ResourceBehaviour = {
  replaceOn: [],
  create() {},
  attributes(_view, res) {
    return { value: res.props.value ?? null };
  },
};

export const randomString: ResourceBehaviour = {
  replaceOn: '*',
  create(_ctx, res) {
    const length = typeof res.props.length === 'number' ? res.props.length : 32;
    res.data.value = randomBytes(length).toString('base64url').slice(0, length);
  },
  attributes(_view, res) {
    return { value: res.data.value };
  },
};
