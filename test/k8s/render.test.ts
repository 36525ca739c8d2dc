// Renders every kustomization in k8s/ and validates every object against its schema. Where a real
// kustomize is installed, the subset renderer (kustomize-lite.ts) must agree with it exactly.
import path from 'node:path';
import { K8S_DIR, findKustomizations, liteKustomize, realKustomize, renderer, type K8sObject } from './kustomize';
import { schemaErrors } from './schema';
import { APP_RENDERS, MIGRATION_RENDERS } from './targets';

const kustomizations = findKustomizations();
const render = renderer();
const real = realKustomize();
const id = (o: K8sObject) => `${o.apiVersion} ${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`;
const byId = (objs: K8sObject[]) => Object.fromEntries(objs.map((o) => [id(o), o]));

it('finds the kustomizations, and each one is under the policy (test/k8s/targets.ts)', () => {
  expect(kustomizations).toEqual(
    expect.arrayContaining(['base', 'migrate', 'overlays/dev', 'overlays/production', 'overlays/hpa-fallback']),
  );
  expect(kustomizations.filter((k) => !(k in APP_RENDERS) && !(k in MIGRATION_RENDERS))).toEqual([]);
});

describe.each(kustomizations)('k8s/%s', (dir) => {
  it(`renders with ${render.name} (${render.version}) and every object validates against its schema`, () => {
    const objs = render.render(path.join(K8S_DIR, dir));
    expect(objs.length).toBeGreaterThan(0);
    expect(objs.flatMap(schemaErrors)).toEqual([]);
  });

  (real ? it : it.skip)(
    `renders the same with kustomize-lite as with ${real?.name ?? 'a real kustomize (none installed)'}`,
    () => {
      const want = byId(real!.render(path.join(K8S_DIR, dir)));
      const got = byId(liteKustomize.render(path.join(K8S_DIR, dir)));
      expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort());
      expect(got).toEqual(want);
    },
  );
});

describe('schema validation', () => {
  it('rejects an object that breaks its schema', () => {
    const objs = render.render(path.join(K8S_DIR, 'base'));
    const deployment = structuredClone(objs.find((o) => o.kind === 'Deployment')!) as K8sObject & {
      spec: { replicas: unknown };
    };
    deployment.spec.replicas = 'three';
    expect(schemaErrors(deployment).join()).toMatch(/replicas must be integer/);
    const scaled = structuredClone(objs.find((o) => o.kind === 'ScaledObject')!) as K8sObject & {
      spec: { triggers: Array<{ metadata: Record<string, unknown> }> };
    };
    scaled.spec.triggers[0].metadata.listLength = 5;
    expect(schemaErrors(scaled).join()).toMatch(/listLength must be string/);
    expect(schemaErrors({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' } })).toEqual([
      expect.stringMatching(/no schema for v1 Pod/),
    ]);
  });
});
