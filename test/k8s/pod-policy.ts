// Rules every docfleet pod and container must follow, whatever the workload: an image pinned to a
// tag, requests and limits, and the non-root, read-only, no-privilege security context the image is
// built for (deploy/Dockerfile: uid 10001, writes only to /data and /tmp).
import { parseImage } from './kustomize-lite';

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    secretKeyRef?: { name: string; key: string; optional?: boolean };
    configMapKeyRef?: { name: string; key: string };
  };
}
export interface SecurityContext {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  readOnlyRootFilesystem?: boolean;
  allowPrivilegeEscalation?: boolean;
  privileged?: boolean;
  capabilities?: { drop?: string[]; add?: string[] };
  seccompProfile?: { type?: string };
}
export interface Probe {
  httpGet?: { path?: string; port?: number | string };
}
export interface Container {
  name: string;
  image?: string;
  args?: string[];
  env?: EnvVar[];
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
  ports?: Array<{ name?: string; containerPort: number }>;
  resources?: { requests?: Record<string, string | number>; limits?: Record<string, string | number> };
  securityContext?: SecurityContext;
  volumeMounts?: Array<{ name: string; mountPath: string }>;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command?: string[] } } };
}
export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  securityContext?: SecurityContext & { fsGroup?: number };
  volumes?: Array<{ name: string; emptyDir?: object; persistentVolumeClaim?: { claimName: string } }>;
  automountServiceAccountToken?: boolean;
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  terminationGracePeriodSeconds?: number;
}
export interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: PodSpec;
}

export const RUN_AS_USER = 10001;

/** Kubernetes quantity to a number (bytes for memory, cores for CPU). */
export function quantity(q: string | number | undefined): number {
  if (q === undefined) return NaN;
  if (typeof q === 'number') return q;
  const m = /^([0-9.]+)([a-zA-Z]*)$/.exec(q);
  if (!m) return NaN;
  const units: Record<string, number> = {
    '': 1,
    m: 1e-3,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
    Ki: 2 ** 10,
    Mi: 2 ** 20,
    Gi: 2 ** 30,
    Ti: 2 ** 40,
  };
  return m[2] in units ? Number(m[1]) * units[m[2]] : NaN;
}

export const allContainers = (spec: PodSpec) => [...(spec.initContainers ?? []), ...(spec.containers ?? [])];

/** Violations of the pod-level rules and of every container's rules, each prefixed with `where`. */
export function checkPod(where: string, pod: PodTemplate): string[] {
  const v: string[] = [];
  const spec = pod.spec;
  if (spec.automountServiceAccountToken !== false)
    v.push(`${where}: automountServiceAccountToken must be false (no Kubernetes API access)`);
  if (spec.hostNetwork || spec.hostPID || spec.hostIPC)
    v.push(`${where}: must not share the host's network, PID or IPC namespace`);
  const volumes = new Map((spec.volumes ?? []).map((vol) => [vol.name, vol]));
  for (const c of allContainers(spec)) {
    const at = `${where} container ${c.name}`;
    v.push(...checkImage(at, c.image));
    for (const kind of ['requests', 'limits'] as const) {
      for (const res of ['cpu', 'memory']) {
        if (!(quantity(c.resources?.[kind]?.[res]) > 0)) v.push(`${at}: resources.${kind}.${res} must be set`);
      }
    }
    const sc = c.securityContext ?? {};
    const pod = spec.securityContext ?? {};
    if ((sc.runAsNonRoot ?? pod.runAsNonRoot) !== true) v.push(`${at}: runAsNonRoot must be true`);
    if ((sc.runAsUser ?? pod.runAsUser) !== RUN_AS_USER)
      v.push(`${at}: runAsUser must be ${RUN_AS_USER} (the image's user)`);
    if (sc.readOnlyRootFilesystem !== true) v.push(`${at}: readOnlyRootFilesystem must be true`);
    if (sc.allowPrivilegeEscalation !== false) v.push(`${at}: allowPrivilegeEscalation must be false`);
    if (sc.privileged) v.push(`${at}: must not be privileged`);
    if (!sc.capabilities?.drop?.includes('ALL')) v.push(`${at}: capabilities must drop ALL`);
    if (sc.capabilities?.add?.length) v.push(`${at}: must not add capabilities`);
    if ((sc.seccompProfile ?? pod.seccompProfile)?.type !== 'RuntimeDefault')
      v.push(`${at}: seccompProfile must be RuntimeDefault`);
    const tmp = c.volumeMounts?.find((m) => m.mountPath === '/tmp');
    if (!tmp || !volumes.get(tmp.name)?.emptyDir)
      v.push(`${at}: /tmp must be an emptyDir mount (the root filesystem is read-only)`);
  }
  return v;
}

export function checkImage(where: string, image: string | undefined): string[] {
  if (!image) return [`${where}: no image`];
  const ref = parseImage(image);
  if (!ref.tag && !ref.digest) return [`${where}: image ${image} must name a tag or digest`];
  if (ref.tag === 'latest') return [`${where}: image ${image} must not use the latest tag`];
  return [];
}

/** The port number a probe targets (a named port resolved through the container's ports). */
export function probePort(c: Container, probe: Probe | undefined): number | undefined {
  const port = probe?.httpGet?.port;
  if (typeof port === 'number') return port;
  return c.ports?.find((p) => p.name === port)?.containerPort;
}

export const envValue = (c: Container, name: string) => c.env?.find((e) => e.name === name);

/** Seconds of a `sleep N` preStop hook (0 without one). */
export function preStopSeconds(c: Container): number {
  const cmd = c.lifecycle?.preStop?.exec?.command ?? [];
  return cmd[0] === 'sleep' ? Number(cmd[1]) || 0 : 0;
}
