// The deployment policy on every render of k8s/, then on mutated copies: each rule must fail when
// the manifests break it, or the green runs above prove nothing.
import path from 'node:path';
import { FLEET, QUEUES, longRunningServices, serviceCodeFacts } from './fleet';
import { K8S_DIR, renderer, type K8sObject } from './kustomize';
import { checkAppRender, checkMigrationRender, imagesOf } from './policy';
import { APP_RENDERS, MIGRATION_RENDERS } from './targets';

const renders = new Map<string, K8sObject[]>();
const rendered = (dir: string) => {
  if (!renders.has(dir)) renders.set(dir, renderer().render(path.join(K8S_DIR, dir)));
  return structuredClone(renders.get(dir)!);
};

describe('the fleet', () => {
  it('deploys every long-running service of services/ and autoscales a worker on every job queue but billing', () => {
    const deployed = FLEET.map((s) => s.name);
    expect(deployed).toEqual(expect.arrayContaining(longRunningServices()));
    expect(
      FLEET.map((s) => s.autoscaleQueue)
        .filter(Boolean)
        .sort(),
    ).toEqual(QUEUES.filter((q) => q !== 'billing').sort());
  });

  it('reads drain times and /metrics from the services that exist', () => {
    expect(serviceCodeFacts('gateway')).toMatchObject({ fromCode: true, graceSeconds: 25, metrics: true });
    expect(serviceCodeFacts('billing')).toMatchObject({
      fromCode: true,
      graceSeconds: 30,
      metrics: true,
      defaultHealthPort: 9104,
    });
  });
});

describe.each(Object.entries(APP_RENDERS))('k8s/%s', (dir, expectation) => {
  it('follows the deployment policy', () => {
    expect(checkAppRender(rendered(dir), expectation)).toEqual([]);
  });
});

describe.each(Object.entries(MIGRATION_RENDERS))('k8s/%s', (dir, { namespace, fleet }) => {
  it('is a policy-compliant migration Job with the same image as its fleet', () => {
    const objs = rendered(dir);
    expect(checkMigrationRender(objs, namespace)).toEqual([]);
    expect([...imagesOf(objs)]).toEqual([...imagesOf(rendered(fleet))]);
  });
});

// ---- each rule fails when broken ------------------------------------------------------------------

// Loosely typed on purpose: the mutations reach deep into rendered objects.
type Obj = { metadata: K8sObject['metadata']; spec: any; data: any }; // eslint-disable-line @typescript-eslint/no-explicit-any
const find = (objs: K8sObject[], kind: string, name?: string) =>
  objs.find((o) => o.kind === kind && (name === undefined || o.metadata.name === name)) as unknown as Obj;
const container = (objs: K8sObject[], name: string) => find(objs, 'Deployment', name).spec.template.spec.containers[0];

const APP_MUTATIONS: Array<[string, (objs: K8sObject[]) => K8sObject[] | void, RegExp]> = [
  [
    'a container without limits',
    (o) => void delete container(o, 'index-worker').resources.limits,
    /index-worker.*resources\.limits\.cpu must be set/,
  ],
  [
    'a container without requests',
    (o) => void delete container(o, 'gateway').resources.requests.memory,
    /gateway.*requests\.memory must be set/,
  ],
  [
    'no readiness probe',
    (o) => void delete container(o, 'billing').readinessProbe,
    /billing: readinessProbe must GET \/readyz/,
  ],
  [
    'a liveness probe on /readyz',
    (o) => void (container(o, 'gateway').livenessProbe.httpGet.path = '/readyz'),
    /gateway: livenessProbe must GET \/healthz/,
  ],
  [
    'a probe on the wrong port',
    (o) => void (container(o, 'index-worker').readinessProbe.httpGet.port = 9999),
    /index-worker: readinessProbe must target port 9102/,
  ],
  [
    'a writable root filesystem',
    (o) => void (container(o, 'parse-worker').securityContext.readOnlyRootFilesystem = false),
    /parse-worker.*readOnlyRootFilesystem must be true/,
  ],
  [
    'running as root',
    (o) => {
      const d = find(o, 'Deployment', 'billing').spec.template.spec;
      d.securityContext.runAsUser = 0;
      d.containers[0].securityContext.runAsUser = 0;
    },
    /billing.*runAsUser must be 10001/,
  ],
  [
    'privilege escalation',
    (o) => void (container(o, 'gateway').securityContext.allowPrivilegeEscalation = true),
    /allowPrivilegeEscalation must be false/,
  ],
  [
    'capabilities kept',
    (o) => void (container(o, 'gateway').securityContext.capabilities = { drop: ['NET_RAW'] }),
    /capabilities must drop ALL/,
  ],
  [
    'no seccomp profile',
    (o) => {
      const d = find(o, 'Deployment', 'gateway').spec.template.spec;
      delete d.securityContext.seccompProfile;
      delete d.containers[0].securityContext.seccompProfile;
    },
    /seccompProfile must be RuntimeDefault/,
  ],
  [
    '/tmp not an emptyDir',
    (o) =>
      void (container(o, 'index-worker').volumeMounts = container(o, 'index-worker').volumeMounts.filter(
        (m: { mountPath: string }) => m.mountPath !== '/tmp',
      )),
    /\/tmp must be an emptyDir/,
  ],
  [
    'an image on latest',
    (o) => void (container(o, 'gateway').image = 'docfleet:latest'),
    /must not use the latest tag/,
  ],
  [
    'a parse worker with 1 GiB',
    (o) => void (container(o, 'parse-worker').resources.limits.memory = '1Gi'),
    /memory limit must be at least 1\.5Gi/,
  ],
  [
    'OpenMP threads in the parse worker',
    (o) =>
      void (container(o, 'parse-worker').env = container(o, 'parse-worker').env.filter(
        (e: { name: string }) => e.name !== 'OMP_THREAD_LIMIT',
      )),
    /OMP_THREAD_LIMIT must be 1/,
  ],
  [
    'a grace period shorter than the drain',
    (o) => void (find(o, 'Deployment', 'billing').spec.template.spec.terminationGracePeriodSeconds = 10),
    /billing: terminationGracePeriodSeconds 10 does not match/,
  ],
  [
    'the database URL in plain text',
    (o) =>
      void (container(o, 'billing').env = [
        ...container(o, 'billing').env.filter((e: { name: string }) => e.name !== 'DATABASE_URL'),
        { name: 'DATABASE_URL', value: 'postgresql://x' },
      ]),
    /DATABASE_URL must come from Secret docfleet-secrets/,
  ],
  ['an invalid env value', (o) => void (find(o, 'ConfigMap').data.LOG_LEVEL = 'loud'), /env contract: LOG_LEVEL/],
  ['DATA_DIR elsewhere', (o) => void (find(o, 'ConfigMap').data.DATA_DIR = '/var/data'), /DATA_DIR must be \/data/],
  [
    'a ReadWriteOnce data volume',
    (o) => void (find(o, 'PersistentVolumeClaim').spec.accessModes = ['ReadWriteOnce']),
    /ReadWriteMany/,
  ],
  [
    'no scrape annotations on billing',
    (o) => void delete find(o, 'Deployment', 'billing').spec.template.metadata.annotations,
    /billing: pods need prometheus\.io\/scrape/,
  ],
  [
    'a worker with a Service',
    (o) => [
      ...o,
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'parse-worker', namespace: o[0].metadata.namespace ?? 'docfleet' },
        spec: { selector: { 'app.kubernetes.io/name': 'parse-worker' }, ports: [{ port: 80 }] },
      },
    ],
    /Service parse-worker: only the gateway may have a Service/,
  ],
  [
    'a missing PodDisruptionBudget',
    (o) => o.filter((x) => !(x.kind === 'PodDisruptionBudget' && x.metadata.name === 'billing')),
    /billing: no PodDisruptionBudget/,
  ],
  ['no default deny', (o) => o.filter((x) => x.metadata.name !== 'default-deny-all'), /no default-deny NetworkPolicy/],
  [
    'a workload without its NetworkPolicy',
    (o) => o.filter((x) => !(x.kind === 'NetworkPolicy' && x.metadata.name === 'index-worker')),
    /index-worker: no NetworkPolicy selects it by its own labels/,
  ],
  [
    'a worker reaching the internet',
    (o) => void find(o, 'NetworkPolicy', 'parse-worker').spec.egress.push({ ports: [{ protocol: 'TCP', port: 443 }] }),
    /parse-worker: egress to TCP\/443 is not allowed/,
  ],
  [
    'an egress rule without ports',
    (o) => void find(o, 'NetworkPolicy', 'billing').spec.egress.push({}),
    /billing: an egress rule allows every port/,
  ],
  [
    'model egress open to the metadata endpoint',
    (o) => void (find(o, 'NetworkPolicy', 'workflow-worker').spec.egress[1].to[0].ipBlock.except = []),
    /excepts 169\.254\.0\.0\/16/,
  ],
  [
    'a gateway open to every source',
    (o) => void delete find(o, 'NetworkPolicy', 'gateway').spec.ingress[0].from,
    /gateway: an ingress rule allows every source/,
  ],
  [
    'a worker with a replica count',
    (o) => void (find(o, 'Deployment', 'parse-worker').spec.replicas = 3),
    /parse-worker: must not set replicas/,
  ],
  [
    'a migration Job in the fleet',
    (o) => [
      ...o,
      { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'migrate', namespace: 'docfleet' }, spec: {} },
    ],
    /migration Job belongs in its own kustomization/,
  ],
];

const KEDA_MUTATIONS: Array<[string, (objs: K8sObject[]) => K8sObject[] | void, RegExp]> = [
  [
    'a worker without a ScaledObject',
    (o) => o.filter((x) => !(x.kind === 'ScaledObject' && x.metadata.name === 'index-worker')),
    /index-worker autoscaling: expected one ScaledObject, found 0/,
  ],
  [
    'a worker scaled on another queue',
    (o) => void (find(o, 'ScaledObject', 'workflow-worker').spec.triggers[0].metadata.listName = 'docfleet:parse:wait'),
    /workflow-worker autoscaling: trigger must be redis on its own wait list docfleet:workflow:wait/,
  ],
  [
    'a list name without the prefix',
    (o) => void (find(o, 'ConfigMap').data.QUEUE_PREFIX = 'tenant1'),
    /own wait list tenant1:parse:wait/,
  ],
  [
    'a CPU trigger',
    (o) => void (find(o, 'ScaledObject', 'parse-worker').spec.triggers[0].type = 'cpu'),
    /parse-worker autoscaling: trigger must be redis/,
  ],
  [
    'an HPA beside KEDA',
    (o) => [
      ...o,
      {
        apiVersion: 'autoscaling/v2',
        kind: 'HorizontalPodAutoscaler',
        metadata: { name: 'x', namespace: 'docfleet' },
        spec: { scaleTargetRef: { kind: 'Deployment', name: 'parse-worker' } },
      },
    ],
    /KEDA creates its own/,
  ],
  [
    'the gateway scaled on a queue',
    (o) => void (find(o, 'ScaledObject', 'index-worker').spec.scaleTargetRef.name = 'gateway'),
    /scales gateway, which is not a queue worker/,
  ],
];

const HPA_MUTATIONS: Array<[string, (objs: K8sObject[]) => K8sObject[] | void, RegExp]> = [
  [
    'a worker without an HPA',
    (o) => o.filter((x) => !(x.kind === 'HorizontalPodAutoscaler' && x.metadata.name === 'parse-worker')),
    /parse-worker autoscaling: expected one HorizontalPodAutoscaler, found 0/,
  ],
  [
    'an HPA on memory',
    (o) => void (find(o, 'HorizontalPodAutoscaler', 'index-worker').spec.metrics[0].resource.name = 'memory'),
    /index-worker autoscaling: the HPA must scale on CPU/,
  ],
  [
    'a KEDA object left behind',
    (o) => [
      ...o,
      {
        apiVersion: 'keda.sh/v1alpha1',
        kind: 'ScaledObject',
        metadata: { name: 'parse-worker', namespace: 'docfleet' },
        spec: { scaleTargetRef: { name: 'parse-worker' } },
      },
    ],
    /KEDA objects in the HPA fallback render/,
  ],
  ['no Ingress in production', (o) => o.filter((x) => x.kind !== 'Ingress'), /no Ingress/],
];

function mutated(dir: string, mutate: (objs: K8sObject[]) => K8sObject[] | void): K8sObject[] {
  const objs = rendered(dir);
  return mutate(objs) ?? objs;
}

describe.each([
  ['overlays/production', APP_MUTATIONS],
  ['overlays/production', KEDA_MUTATIONS],
  ['overlays/hpa-fallback', HPA_MUTATIONS],
] as const)('the policy on a broken copy of k8s/%s', (dir, mutations) => {
  it.each(mutations)('fails for %s', (_label, mutate, message) => {
    const violations = checkAppRender(mutated(dir, mutate), APP_RENDERS[dir]);
    expect(violations.join('\n')).toMatch(message);
  });
});

describe('the migration policy on a broken copy of k8s/overlays/production/migrate', () => {
  const cases: Array<[string, (objs: K8sObject[]) => K8sObject[] | void, RegExp]> = [
    [
      'a Job reading the fleet ConfigMap',
      (o) =>
        void (find(o, 'Job').spec.template.spec.containers[0].envFrom = [
          { configMapRef: { name: 'docfleet-config' } },
        ]),
      /must not depend on the fleet's ConfigMap/,
    ],
    [
      'a Job running as root',
      (o) => {
        const s = find(o, 'Job').spec.template.spec;
        s.securityContext.runAsNonRoot = false;
        s.containers[0].securityContext.runAsNonRoot = false;
      },
      /runAsNonRoot must be true/,
    ],
    [
      'a Job that may reach Redis',
      (o) => void find(o, 'NetworkPolicy', 'migrate').spec.egress[0].ports.push({ protocol: 'TCP', port: 6379 }),
      /egress to TCP\/6379 is not allowed/,
    ],
    [
      'a Job running a service instead',
      (o) => void (find(o, 'Job').spec.template.spec.containers[0].args = ['gateway']),
      /must run the image's migrate command/,
    ],
  ];
  it.each(cases)('fails for %s', (_label, mutate, message) => {
    expect(checkMigrationRender(mutated('overlays/production/migrate', mutate), 'docfleet').join('\n')).toMatch(
      message,
    );
  });
});
