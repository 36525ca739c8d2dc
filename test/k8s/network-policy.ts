// Evaluates NetworkPolicies the way the API defines them: a pod is isolated for a direction once any
// policy of that type selects it, and may then do what the union of the selecting policies allows.
import type { K8sObject } from './kustomize';

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }>;
}
interface Peer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: { cidr: string; except?: string[] };
}
interface Rule {
  from?: Peer[];
  to?: Peer[];
  ports?: Array<{ protocol?: string; port?: number | string }>;
}
export interface NetworkPolicySpec {
  podSelector: LabelSelector;
  policyTypes?: string[];
  ingress?: Rule[];
  egress?: Rule[];
}

export function selects(selector: LabelSelector | undefined, labels: Record<string, string>): boolean {
  if (!selector) return false;
  for (const [k, val] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== val) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = e.key in labels;
    if (e.operator === 'In' && !(has && e.values?.includes(labels[e.key]))) return false;
    if (e.operator === 'NotIn' && has && e.values?.includes(labels[e.key])) return false;
    if (e.operator === 'Exists' && !has) return false;
    if (e.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

const isEmptySelector = (s: LabelSelector | undefined) =>
  !s || (!Object.keys(s.matchLabels ?? {}).length && !(s.matchExpressions ?? []).length);
const spec = (o: K8sObject) => o.spec as NetworkPolicySpec;
const types = (p: NetworkPolicySpec) => p.policyTypes ?? (p.egress ? ['Ingress', 'Egress'] : ['Ingress']);

export interface TrafficRules {
  /** Ports others may reach the pod on; each ingress rule must name its sources. */
  ingressPorts: number[];
  /** Ingress that must be allowed, e.g. the ingress controller to the gateway. */
  requiredIngressPorts: number[];
  /** "TCP/5432"-style ports the pod may reach; every egress rule must name its ports. */
  egress: string[];
  requiredEgress: string[];
}

/** Violations of one workload's traffic rules, given every NetworkPolicy of the render. */
export function checkTraffic(
  where: string,
  podLabels: Record<string, string>,
  policies: K8sObject[],
  rules: TrafficRules,
): string[] {
  const v: string[] = [];
  const selecting = policies.filter((p) => selects(spec(p).podSelector ?? {}, podLabels));
  if (!selecting.some((p) => !isEmptySelector(spec(p).podSelector)))
    v.push(`${where}: no NetworkPolicy selects it by its own labels`);
  for (const dir of ['Ingress', 'Egress'] as const) {
    if (!selecting.some((p) => types(spec(p)).includes(dir)))
      v.push(`${where}: not isolated for ${dir} (no default deny selects it)`);
  }
  const ingress = selecting.filter((p) => types(spec(p)).includes('Ingress')).flatMap((p) => spec(p).ingress ?? []);
  const egress = selecting.filter((p) => types(spec(p)).includes('Egress')).flatMap((p) => spec(p).egress ?? []);
  const allowedIn = new Set<number>();
  for (const r of ingress) {
    if (!r.from?.length) v.push(`${where}: an ingress rule allows every source`);
    if (!r.ports?.length) v.push(`${where}: an ingress rule allows every port`);
    for (const p of r.ports ?? []) {
      if (!rules.ingressPorts.includes(Number(p.port))) v.push(`${where}: ingress on port ${p.port} is not allowed`);
      allowedIn.add(Number(p.port));
    }
  }
  for (const port of rules.requiredIngressPorts)
    if (!allowedIn.has(port)) v.push(`${where}: ingress on port ${port} is required but not allowed`);
  const allowedOut = new Set<string>();
  for (const r of egress) {
    if (!r.ports?.length) v.push(`${where}: an egress rule allows every port`);
    for (const p of r.ports ?? []) {
      const port = `${p.protocol ?? 'TCP'}/${p.port}`;
      if (!rules.egress.includes(port)) v.push(`${where}: egress to ${port} is not allowed`);
      allowedOut.add(port);
      // HTTPS to the internet must keep the cloud metadata endpoint (node credentials) closed.
      if (
        port === 'TCP/443' &&
        !(r.to ?? []).every((peer) =>
          peer.ipBlock?.except?.some((c) => c === '169.254.0.0/16' || c === '169.254.169.254/32'),
        )
      ) {
        v.push(`${where}: egress on 443 must go to an ipBlock that excepts 169.254.0.0/16 (cloud metadata)`);
      }
    }
  }
  for (const port of rules.requiredEgress)
    if (!allowedOut.has(port)) v.push(`${where}: egress to ${port} is required but not allowed`);
  return v;
}

/** A policy that selects every pod, isolates both directions and allows nothing. */
export function isDefaultDeny(o: K8sObject): boolean {
  const p = spec(o);
  return (
    isEmptySelector(p.podSelector) &&
    types(p).includes('Ingress') &&
    types(p).includes('Egress') &&
    !p.ingress?.length &&
    !p.egress?.length
  );
}
