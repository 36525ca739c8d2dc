import { baseEnv, intFromEnv } from '@docfleet/config';

export const workflowWorkerEnv = baseEnv.extend({
  HEALTH_PORT: intFromEnv(9103),
  /** Operations run at once by this process. They mostly wait on the model provider. */
  WORKFLOW_CONCURRENCY: intFromEnv(4, 1),
});
