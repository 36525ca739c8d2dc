// The deployment policy of docfleet on Kubernetes, checked on rendered manifests. Each function
// returns the list of violations (empty when the render complies); policy.test.ts runs them on every
// render and on mutated copies, to prove each rule fails when broken.
import { baseEnv } from '@docfleet/config';
import { FLEET, fleetService, parseServiceEnv, serviceCodeFacts } from './fleet';
import type { K8sObject } from './kustomize';
import { checkTraffic, isDefaultDeny, selects, type LabelSelector, type TrafficRules } from './network-policy';
import {
  checkPod,
  envValue,
  preStopSeconds,
  probePort,
  quantity,
  type Container,
  type PodTemplate,
} from './pod-policy';

export const SECRET_NAME = 'docfleet-secrets';
const SECRET_ENV = ['DATABASE_URL', 'REDIS_URL'];
// Stand-ins for the Secret's values when the env contract is parsed (their format is the operator's).
const SECRET_SAMPLES: Record<string, string> = {
  DATABASE_URL: 'postgresql://docfleet@postgres:5432/docfleet',
  REDIS_URL: 'redis://redis:6379',
};
const PARSE_MEMORY_LIMIT_MIN = 1.5 * 2 ** 30;
const GRACE_MARGIN_MIN = 5;
const GRACE_MARGIN_MAX = 30;
const BASE_EGRESS = ['UDP/53', 'TCP/53', 'TCP/5432', 'TCP/6379'];

export interface AppExpect {
  namespace: string;
  autoscaling: 'keda' | 'hpa';
  ingress: boolean;
}

const ofKind = (objs: K8sObject[], kind: string) => objs.filter((o) => o.kind === kind);
const podOf = (o: K8sObject) => (o.spec as { template: PodTemplate }).template;
const labelsOf = (o: K8sObject) => podOf(o).metadata?.labels ?? {};

function checkNamespaces(objs: K8sObject[], namespace: string): string[] {
  const v: string[] = [];
  for (const o of objs) {
    if (o.kind === 'Namespace') {
      if (o.metadata.name !== namespace) v.push(`Namespace ${o.metadata.name}: expected ${namespace}`);
      if (o.metadata.labels?.['pod-security.kubernetes.io/enforce'] !== 'restricted')
        v.push(`Namespace ${o.metadata.name}: must enforce the restricted Pod Security Standard`);
    } else if (o.metadata.namespace !== namespace)
      v.push(`${o.kind} ${o.metadata.name}: namespace ${o.metadata.namespace} instead of ${namespace}`);
  }
  return v;
}

/** Env of a container as the process sees it: ConfigMaps through envFrom, then its own env. */
function effectiveEnv(where: string, c: Container, objs: K8sObject[], v: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const from of c.envFrom ?? []) {
    if (!from.configMapRef) continue;
    const cm = ofKind(objs, 'ConfigMap').find((o) => o.metadata.name === from.configMapRef!.name);
    if (!cm) v.push(`${where}: ConfigMap ${from.configMapRef.name} is not in the render`);
    Object.assign(env, (cm?.data as Record<string, string>) ?? {});
  }
  for (const e of c.env ?? []) {
    if (e.value !== undefined) env[e.name] = e.value;
    else if (e.valueFrom?.secretKeyRef && SECRET_SAMPLES[e.name]) env[e.name] = SECRET_SAMPLES[e.name];
  }
  for (const name of SECRET_ENV) {
    const ref = envValue(c, name)?.valueFrom?.secretKeyRef;
    if (ref?.name !== SECRET_NAME || ref.key !== name || ref.optional)
      v.push(`${where}: ${name} must come from Secret ${SECRET_NAME} key ${name}`);
  }
  return env;
}

function checkDeployment(d: K8sObject, objs: K8sObject[]): string[] {
  const name = d.metadata.name;
  const where = `Deployment ${name}`;
  const svc = fleetService(name);
  if (!svc) return [`${where}: not a docfleet service (test/k8s/fleet.ts)`];
  const facts = serviceCodeFacts(name);
  const pod = podOf(d);
  const v = checkPod(where, pod);
  const selector = (d.spec as { selector?: LabelSelector }).selector;
  if (!selects(selector, labelsOf(d)) || labelsOf(d)['app.kubernetes.io/name'] !== name)
    v.push(`${where}: selector and pod labels (app.kubernetes.io/name=${name}) disagree`);
  const c = pod.spec.containers.find((x) => x.name === name) ?? pod.spec.containers[0];
  if (!c) return [...v, `${where}: no container`];
  if (c.args?.[0] !== name && envValue(c, 'SERVICE')?.value !== name)
    v.push(`${where}: the container must run service ${name} (args: ["${name}"])`);

  // Probes on the service's own port.
  if (c.livenessProbe?.httpGet?.path !== '/healthz') v.push(`${where}: livenessProbe must GET /healthz`);
  if (c.readinessProbe?.httpGet?.path !== '/readyz') v.push(`${where}: readinessProbe must GET /readyz`);
  for (const [kind, probe] of [
    ['liveness', c.livenessProbe],
    ['readiness', c.readinessProbe],
  ] as const) {
    if (probe && probePort(c, probe) !== svc.port) v.push(`${where}: ${kind}Probe must target port ${svc.port}`);
  }

  // The env contract, parsed by the services' own schema.
  const env = effectiveEnv(where, c, objs, v);
  const parsed = parseServiceEnv(name, env);
  if ('error' in parsed) v.push(`${where}: env contract: ${parsed.error}`);
  else {
    if (parsed.port !== svc.port) v.push(`${where}: serves health on ${parsed.port}, expected ${svc.port}`);
    if (parsed.dataDir !== '/data') v.push(`${where}: DATA_DIR must be /data`);
  }
  if (facts.defaultHealthPort !== undefined && facts.defaultHealthPort !== svc.port)
    v.push(`${where}: code default HEALTH_PORT ${facts.defaultHealthPort} differs from ${svc.port}`);

  // DATA_DIR on the shared ReadWriteMany claim.
  const dataMount = c.volumeMounts?.find((m) => m.mountPath === '/data');
  const claim = pod.spec.volumes?.find((vol) => vol.name === dataMount?.name)?.persistentVolumeClaim?.claimName;
  const pvc = ofKind(objs, 'PersistentVolumeClaim').find((o) => o.metadata.name === claim);
  if (!pvc || !(pvc.spec as { accessModes?: string[] }).accessModes?.includes('ReadWriteMany'))
    v.push(`${where}: /data must be mounted from a ReadWriteMany PersistentVolumeClaim in the render`);

  // Grace period: the service's own drain time, plus the preStop hook, plus a margin. A service whose
  // code has not landed yet has no drain time or metrics to compare with: those two rules wait for it.
  const needed = facts.graceSeconds + preStopSeconds(c);
  const grace = pod.spec.terminationGracePeriodSeconds ?? 30;
  if (facts.fromCode && (grace < needed + GRACE_MARGIN_MIN || grace > needed + GRACE_MARGIN_MAX)) {
    v.push(
      `${where}: terminationGracePeriodSeconds ${grace} does not match the service (drains ${facts.graceSeconds} s + preStop ${preStopSeconds(c)} s; want ${needed + GRACE_MARGIN_MIN}–${needed + GRACE_MARGIN_MAX})`,
    );
  }

  // Metrics scraping where the service serves /metrics, and only there.
  const ann = pod.metadata?.annotations ?? {};
  if (!facts.fromCode) {
    // nothing to compare with yet
  } else if (facts.metrics) {
    if (
      ann['prometheus.io/scrape'] !== 'true' ||
      ann['prometheus.io/port'] !== String(svc.port) ||
      ann['prometheus.io/path'] !== '/metrics'
    ) {
      v.push(`${where}: pods need prometheus.io/scrape "true", port "${svc.port}", path /metrics`);
    }
  } else if (ann['prometheus.io/scrape'] === 'true') v.push(`${where}: scraped, but the service serves no /metrics`);

  if (name === 'parse-worker') {
    if (!(quantity(c.resources?.limits?.memory) >= PARSE_MEMORY_LIMIT_MIN))
      v.push(`${where}: memory limit must be at least 1.5Gi (page rasters and OCR)`);
    if (env.OMP_THREAD_LIMIT !== '1') v.push(`${where}: OMP_THREAD_LIMIT must be 1`);
  }
  if (svc.autoscaleQueue && (d.spec as { replicas?: number }).replicas !== undefined)
    v.push(`${where}: must not set replicas (its autoscaler owns the count)`);

  if (
    !ofKind(objs, 'PodDisruptionBudget').some((p) =>
      selects((p.spec as { selector?: LabelSelector }).selector, labelsOf(d)),
    )
  )
    v.push(`${where}: no PodDisruptionBudget`);

  const rules: TrafficRules =
    name === 'gateway'
      ? {
          ingressPorts: [svc.port],
          requiredIngressPorts: [svc.port],
          egress: BASE_EGRESS,
          requiredEgress: ['UDP/53', 'TCP/5432', 'TCP/6379'],
        }
      : {
          ingressPorts: facts.metrics ? [svc.port] : [],
          requiredIngressPorts: [],
          // Only the workflow worker calls model providers (HTTPS); see k8s/base/network-policies.yaml.
          egress:
            name === 'workflow-worker' || name === 'webhook-worker'
              ? // model providers; customers' webhook endpoints (docs/webhooks.md)
                [...BASE_EGRESS, 'TCP/443']
              : BASE_EGRESS,
          requiredEgress: ['UDP/53', 'TCP/5432', 'TCP/6379'],
        };
  v.push(...checkTraffic(where, labelsOf(d), ofKind(objs, 'NetworkPolicy'), rules));
  return v;
}

function checkAutoscaling(objs: K8sObject[], expect: AppExpect): string[] {
  const v: string[] = [];
  const scaled = ofKind(objs, 'ScaledObject');
  const hpas = ofKind(objs, 'HorizontalPodAutoscaler');
  const prefix = String(
    (ofKind(objs, 'ConfigMap')[0]?.data as Record<string, string> | undefined)?.QUEUE_PREFIX ??
      baseEnv.shape.QUEUE_PREFIX.parse(undefined),
  );
  const targets = new Set(FLEET.filter((s) => s.autoscaleQueue).map((s) => s.name));
  for (const o of [...scaled, ...hpas]) {
    const target = (o.spec as { scaleTargetRef?: { name?: string } }).scaleTargetRef?.name;
    if (!target || !targets.has(target))
      v.push(`${o.kind} ${o.metadata.name}: scales ${target}, which is not a queue worker`);
  }
  if (expect.autoscaling === 'keda' && hpas.length)
    v.push('HorizontalPodAutoscalers next to KEDA: KEDA creates its own; two autoscalers would fight');
  if (expect.autoscaling === 'hpa' && (scaled.length || ofKind(objs, 'TriggerAuthentication').length))
    v.push('KEDA objects in the HPA fallback render');
  for (const s of FLEET.filter((x) => x.autoscaleQueue)) {
    const where = `${s.name} autoscaling`;
    if (expect.autoscaling === 'keda') {
      const mine = scaled.filter(
        (o) => (o.spec as { scaleTargetRef?: { name?: string } }).scaleTargetRef?.name === s.name,
      );
      if (mine.length !== 1) {
        v.push(`${where}: expected one ScaledObject, found ${mine.length}`);
        continue;
      }
      const spec = mine[0].spec as {
        minReplicaCount?: number;
        maxReplicaCount?: number;
        triggers?: Array<{ type: string; metadata?: Record<string, string>; authenticationRef?: { name: string } }>;
      };
      if (!(spec.maxReplicaCount! >= 1) || (spec.minReplicaCount ?? 0) > spec.maxReplicaCount!)
        v.push(`${where}: min/max replicas ${spec.minReplicaCount}/${spec.maxReplicaCount}`);
      const listName = `${prefix}:${s.autoscaleQueue}:wait`;
      if (!spec.triggers?.length) v.push(`${where}: no trigger`);
      for (const t of spec.triggers ?? []) {
        if (t.type !== 'redis' || t.metadata?.listName !== listName)
          v.push(
            `${where}: trigger must be redis on its own wait list ${listName}, found ${t.type} ${t.metadata?.listName}`,
          );
        if (!/^[1-9]\d*$/.test(t.metadata?.listLength ?? '')) v.push(`${where}: listLength must be a positive integer`);
        const auth = t.authenticationRef?.name;
        if (!auth || !ofKind(objs, 'TriggerAuthentication').some((a) => a.metadata.name === auth))
          v.push(`${where}: authenticationRef ${auth} is not in the render`);
      }
    } else {
      const mine = hpas.filter(
        (o) => (o.spec as { scaleTargetRef?: { name?: string } }).scaleTargetRef?.name === s.name,
      );
      if (mine.length !== 1) {
        v.push(`${where}: expected one HorizontalPodAutoscaler, found ${mine.length}`);
        continue;
      }
      const spec = mine[0].spec as {
        minReplicas?: number;
        maxReplicas: number;
        scaleTargetRef: { kind: string };
        metrics?: Array<{ type: string; resource?: { name: string; target?: { type: string } } }>;
      };
      if (spec.scaleTargetRef.kind !== 'Deployment') v.push(`${where}: the HPA must target the Deployment`);
      if ((spec.minReplicas ?? 1) > spec.maxReplicas) v.push(`${where}: minReplicas above maxReplicas`);
      if (
        !spec.metrics?.some(
          (m) => m.type === 'Resource' && m.resource?.name === 'cpu' && m.resource.target?.type === 'Utilization',
        )
      )
        v.push(`${where}: the HPA must scale on CPU utilisation`);
    }
  }
  return v;
}

function checkExposure(objs: K8sObject[], expect: AppExpect): string[] {
  const v: string[] = [];
  const gateway = ofKind(objs, 'Deployment').find((d) => d.metadata.name === 'gateway');
  const others = ofKind(objs, 'Deployment').filter((d) => d.metadata.name !== 'gateway');
  const services = ofKind(objs, 'Service');
  for (const s of services) {
    const selector = { matchLabels: (s.spec as { selector?: Record<string, string> }).selector ?? {} };
    if (!gateway || !selects(selector, labelsOf(gateway)) || others.some((d) => selects(selector, labelsOf(d))))
      v.push(`Service ${s.metadata.name}: only the gateway may have a Service`);
  }
  if (!services.length) v.push('the gateway has no Service');
  const ingresses = ofKind(objs, 'Ingress');
  if (expect.ingress !== ingresses.length > 0)
    v.push(expect.ingress ? 'no Ingress' : 'an Ingress where none is expected');
  const serviceNames = new Set(services.map((s) => s.metadata.name));
  for (const i of ingresses) {
    const backends = JSON.stringify(i.spec).match(/"service":\{"name":"[^"]+"/g) ?? [];
    if (!backends.length) v.push(`Ingress ${i.metadata.name}: no backend`);
    for (const b of backends) {
      const svcName = /"name":"([^"]+)"/.exec(b)![1];
      if (!serviceNames.has(svcName))
        v.push(`Ingress ${i.metadata.name}: backend ${svcName} is not the gateway's Service`);
    }
  }
  return v;
}

/** The fleet's render (base and the overlays). */
export function checkAppRender(objs: K8sObject[], expect: AppExpect): string[] {
  const v = checkNamespaces(objs, expect.namespace);
  const deployments = ofKind(objs, 'Deployment');
  const names = deployments.map((d) => d.metadata.name).sort();
  const expected = FLEET.map((s) => s.name).sort();
  if (names.join() !== expected.join()) v.push(`Deployments ${names.join(', ')}; expected ${expected.join(', ')}`);
  if (!ofKind(objs, 'NetworkPolicy').some(isDefaultDeny)) v.push('no default-deny NetworkPolicy');
  if (ofKind(objs, 'Job').length)
    v.push('the migration Job belongs in its own kustomization (k8s/migrate), applied first');
  const images = new Set<string>();
  for (const d of deployments) {
    v.push(...checkDeployment(d, objs));
    podOf(d).spec.containers.forEach((c) => images.add(c.image ?? ''));
  }
  if (images.size > 1) v.push(`the services run different images: ${[...images].join(', ')}`);
  v.push(...checkAutoscaling(objs, expect), ...checkExposure(objs, expect));
  return v;
}

/** The migration Job's render (k8s/migrate and its overlays). */
export function checkMigrationRender(objs: K8sObject[], namespace: string): string[] {
  const v = checkNamespaces(objs, namespace);
  const jobs = ofKind(objs, 'Job');
  if (jobs.length !== 1 || jobs[0].metadata.name !== 'migrate')
    return [...v, 'expected exactly one Job, named migrate'];
  const job = jobs[0];
  const where = 'Job migrate';
  const pod = podOf(job);
  v.push(...checkPod(where, pod));
  const c = pod.spec.containers[0];
  if (c?.args?.[0] !== 'migrate') v.push(`${where}: must run the image's migrate command (args: ["migrate"])`);
  const db = envValue(c, 'DATABASE_URL')?.valueFrom?.secretKeyRef;
  if (db?.name !== SECRET_NAME || db.key !== 'DATABASE_URL')
    v.push(`${where}: DATABASE_URL must come from Secret ${SECRET_NAME}`);
  // On a first install it runs before the fleet's ConfigMap exists.
  if (c?.envFrom?.length) v.push(`${where}: must not depend on the fleet's ConfigMap (it runs first)`);
  const spec = job.spec as {
    backoffLimit?: number;
    activeDeadlineSeconds?: number;
    template: { spec: { restartPolicy?: string } };
  };
  if (spec.backoffLimit === undefined || spec.activeDeadlineSeconds === undefined)
    v.push(`${where}: needs backoffLimit and activeDeadlineSeconds`);
  if (spec.template.spec.restartPolicy !== 'Never')
    v.push(`${where}: restartPolicy must be Never (retries are the Job's)`);
  for (const o of objs)
    if (!['Job', 'NetworkPolicy', 'Namespace'].includes(o.kind))
      v.push(`${o.kind} ${o.metadata.name}: does not belong in the migration render`);
  v.push(
    ...checkTraffic(where, labelsOf(job), ofKind(objs, 'NetworkPolicy'), {
      ingressPorts: [],
      requiredIngressPorts: [],
      egress: ['UDP/53', 'TCP/53', 'TCP/5432'],
      requiredEgress: ['UDP/53', 'TCP/5432'],
    }),
  );
  return v;
}

export const imagesOf = (objs: K8sObject[]) =>
  new Set(
    objs
      .filter((o) => o.kind === 'Deployment' || o.kind === 'Job')
      .flatMap((o) => podOf(o).spec.containers.map((c) => c.image)),
  );
