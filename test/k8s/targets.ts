// Every kustomization in k8s/ and what its render must be. A kustomization missing here fails
// render.test.ts, so a new overlay is always put under the policy.
import type { AppExpect } from './policy';

export const APP_RENDERS: Record<string, AppExpect> = {
  base: { namespace: 'docfleet', autoscaling: 'keda', ingress: false },
  'overlays/dev': { namespace: 'docfleet-dev', autoscaling: 'keda', ingress: false },
  'overlays/production': { namespace: 'docfleet', autoscaling: 'keda', ingress: true },
  'overlays/hpa-fallback': { namespace: 'docfleet', autoscaling: 'hpa', ingress: true },
};

/** Migration renders, each with the fleet render it must match (same namespace and image). */
export const MIGRATION_RENDERS: Record<string, { namespace: string; fleet: string }> = {
  migrate: { namespace: 'docfleet', fleet: 'base' },
  'overlays/dev/migrate': { namespace: 'docfleet-dev', fleet: 'overlays/dev' },
  'overlays/production/migrate': { namespace: 'docfleet', fleet: 'overlays/production' },
};
