// A small, documented subset of kustomize (kubectl.docs.kubernetes.io/references/kustomize), enough
// to render k8s/ on a machine with neither `kustomize` nor a recent `kubectl`. Wherever a real
// renderer is installed, render.test.ts checks that this one produces the same objects for every
// kustomization in k8s/, so the subset cannot drift from kustomize unnoticed.
//
// Supported, with kustomize's meaning:
//   kind: Kustomization | Component
//   resources:   YAML files (several documents each) and directories holding a kustomization
//   components:  directories holding a Component: its resources are added, then its transformers run
//                over everything accumulated so far
//   patches:     JSON 6902 patches (add, remove, replace) and strategic-merge patches that delete a
//                whole object (`$patch: delete`), inline (`patch:`) or from a file (`path:`, inside
//                the kustomization's directory), selected by `target` (group, version, kind, name,
//                namespace: anchored regular expressions as in kustomize; labelSelector: k=v pairs)
//   namespace:   set on every namespaced object
//   replicas:    spec.replicas of the named Deployment / StatefulSet / ReplicaSet
//   images:      name → newName / newTag / digest in every containers / initContainers list
// Order inside one kustomization: resources, components, patches, namespace, replicas, images.
// Anything else (generators, labels, name prefixes, other strategic merges, remote resources…) throws,
// naming the field, instead of rendering something kustomize would not.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

interface Target {
  group?: string;
  version?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  labelSelector?: string;
}
interface Patch {
  path?: string;
  patch?: string;
  target?: Target;
}
interface Kustomization {
  apiVersion?: string;
  kind?: 'Kustomization' | 'Component';
  metadata?: unknown;
  namespace?: string;
  resources?: string[];
  components?: string[];
  patches?: Patch[];
  replicas?: Array<{ name: string; count: number }>;
  images?: Array<{ name: string; newName?: string; newTag?: string; digest?: string }>;
}

const FIELDS = new Set([
  'apiVersion',
  'kind',
  'metadata',
  'namespace',
  'resources',
  'components',
  'patches',
  'replicas',
  'images',
]);
const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];
const CLUSTER_SCOPED = new Set([
  'Namespace',
  'PersistentVolume',
  'StorageClass',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'PriorityClass',
  'IngressClass',
  'ClusterTriggerAuthentication',
]);
// Kinds whose namespace kustomize also rewrites inside the object (subjects, webhook services…).
const NAMESPACE_REFERENCING = new Set([
  'RoleBinding',
  'ClusterRoleBinding',
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'APIService',
]);
const REPLICATED = new Set(['Deployment', 'StatefulSet', 'ReplicaSet', 'ReplicationController']);

export function kustomizationFile(dir: string): string | undefined {
  return KUSTOMIZATION_FILES.map((f) => path.join(dir, f)).find((f) => existsSync(f));
}

/** Renders the kustomization in dir, as `kustomize build dir` would (objects in accumulation order). */
export function renderLite(dir: string): K8sObject[] {
  return accumulate(path.resolve(dir), 'Kustomization', []);
}

function load(dir: string, kind: 'Kustomization' | 'Component'): Kustomization {
  const file = kustomizationFile(dir);
  if (!file) throw new Error(`kustomize-lite: no kustomization in ${dir}`);
  const k = (parseAllDocuments(readFileSync(file, 'utf8'))[0]?.toJS() ?? {}) as Kustomization;
  for (const field of Object.keys(k)) {
    if (!FIELDS.has(field))
      throw new Error(`kustomize-lite: ${file}: field '${field}' is not supported (see test/k8s/kustomize-lite.ts)`);
  }
  if ((k.kind ?? 'Kustomization') !== kind)
    throw new Error(`kustomize-lite: ${file}: expected kind ${kind}, found ${k.kind}`);
  return k;
}

function accumulate(dir: string, kind: 'Kustomization' | 'Component', inherited: K8sObject[]): K8sObject[] {
  const k = load(dir, kind);
  let objects = inherited;
  for (const ref of k.resources ?? []) objects = addAll(objects, loadResource(dir, ref));
  for (const ref of k.components ?? []) objects = accumulate(path.resolve(dir, ref), 'Component', objects);
  for (const p of k.patches ?? []) objects = applyPatch(dir, p, objects);
  if (k.namespace) objects.forEach((o) => setNamespace(o, k.namespace!));
  for (const r of k.replicas ?? []) {
    objects
      .filter((o) => REPLICATED.has(o.kind) && o.metadata.name === r.name)
      .forEach((o) => ((o.spec as Record<string, unknown>).replicas = r.count));
  }
  for (const image of k.images ?? []) objects.forEach((o) => retagImages(o as unknown as Json, image));
  return objects;
}

function loadResource(dir: string, ref: string): K8sObject[] {
  if (/^[a-z]+:\/\//i.test(ref) || ref.startsWith('github.com/'))
    throw new Error(`kustomize-lite: remote resource ${ref} is not supported`);
  const full = path.resolve(dir, ref);
  if (statSync(full).isDirectory()) return accumulate(full, 'Kustomization', []);
  return parseAllDocuments(readFileSync(full, 'utf8'))
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null && typeof o === 'object' && Object.keys(o).length > 0);
}

const idOf = (o: K8sObject) =>
  `${o.apiVersion.includes('/') ? o.apiVersion.split('/')[0] : ''}/${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;

function addAll(into: K8sObject[], more: K8sObject[]): K8sObject[] {
  const ids = new Set(into.map(idOf));
  for (const o of more) {
    if (ids.has(idOf(o))) throw new Error(`kustomize-lite: ${o.kind} ${o.metadata.name} is defined twice`);
    ids.add(idOf(o));
  }
  return [...into, ...more];
}

function setNamespace(o: K8sObject, namespace: string) {
  if (NAMESPACE_REFERENCING.has(o.kind)) throw new Error(`kustomize-lite: namespace of a ${o.kind} is not supported`);
  if (o.kind === 'Namespace' && o.metadata.name !== namespace)
    throw new Error(`kustomize-lite: renaming Namespace ${o.metadata.name} is not supported`);
  if (!CLUSTER_SCOPED.has(o.kind)) o.metadata.namespace = namespace;
}

// ---- patches --------------------------------------------------------------------------------------

function applyPatch(dir: string, p: Patch, objects: K8sObject[]): K8sObject[] {
  const extra = Object.keys(p).filter((k) => !['path', 'patch', 'target'].includes(k));
  if (extra.length) throw new Error(`kustomize-lite: patch field(s) ${extra.join(', ')} not supported`);
  let text = p.patch;
  if (p.path !== undefined) {
    const file = path.resolve(dir, p.path);
    if (path.relative(dir, file).startsWith('..')) throw new Error(`kustomize-lite: patch ${p.path} is outside ${dir}`);
    text = readFileSync(file, 'utf8');
  }
  if (text === undefined) throw new Error('kustomize-lite: a patch needs path or patch');
  const body = parseAllDocuments(text)[0]?.toJS() as Json;
  if (Array.isArray(body)) {
    if (!p.target) throw new Error('kustomize-lite: a JSON 6902 patch needs a target');
    for (const o of objects.filter((x) => matches(x, p.target!))) applyJson6902(o as unknown as Json, body);
    return objects;
  }
  const smp = body as { $patch?: string; kind?: string; metadata?: { name?: string } };
  if (smp?.$patch !== 'delete')
    throw new Error(
      'kustomize-lite: only strategic-merge patches that delete an object ($patch: delete) are supported',
    );
  const target = p.target ?? { kind: smp.kind, name: smp.metadata?.name };
  return objects.filter((o) => !matches(o, target));
}

function matches(o: K8sObject, t: Target): boolean {
  const [group, version] = o.apiVersion.includes('/') ? o.apiVersion.split('/') : ['', o.apiVersion];
  const re = (pattern: string | undefined, value: string | undefined) =>
    pattern === undefined || new RegExp(`^(?:${pattern})$`).test(value ?? '');
  if (t.group !== undefined && t.group !== group) return false;
  if (t.version !== undefined && t.version !== version) return false;
  if (!re(t.kind, o.kind) || !re(t.name, o.metadata.name) || !re(t.namespace, o.metadata.namespace)) return false;
  if (t.labelSelector) {
    for (const term of t.labelSelector.split(',')) {
      const m = /^\s*([^=!\s]+)\s*=\s*([^=\s]*)\s*$/.exec(term);
      if (!m) throw new Error(`kustomize-lite: labelSelector '${t.labelSelector}' is not supported (only k=v pairs)`);
      if (o.metadata.labels?.[m[1]] !== m[2]) return false;
    }
  }
  return true;
}

function applyJson6902(doc: Json, ops: Json[]) {
  for (const raw of ops) {
    const op = raw as { op: string; path: string; value?: Json };
    const keys = op.path
      .split('/')
      .slice(1)
      .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = keys.pop()!;
    let parent: Json | undefined = doc;
    for (const k of keys) {
      parent = Array.isArray(parent) ? parent[Number(k)] : (parent as Record<string, Json> | null)?.[k];
      if (parent === undefined || parent === null || typeof parent !== 'object')
        throw new Error(`kustomize-lite: JSON patch path ${op.path} does not exist`);
    }
    const value = structuredClone(op.value) as Json;
    if (Array.isArray(parent)) {
      const index = last === '-' ? parent.length : Number(last);
      if (!Number.isInteger(index) || index < 0 || index > parent.length)
        throw new Error(`kustomize-lite: bad array index in ${op.path}`);
      if (op.op === 'add') parent.splice(index, 0, value);
      else if (index >= parent.length) throw new Error(`kustomize-lite: ${op.path} does not exist`);
      else if (op.op === 'replace') parent[index] = value;
      else if (op.op === 'remove') parent.splice(index, 1);
      else throw new Error(`kustomize-lite: JSON patch op '${op.op}' is not supported`);
    } else {
      const obj = parent as Record<string, Json>;
      if (op.op === 'add') obj[last] = value;
      else if (!(last in obj)) throw new Error(`kustomize-lite: ${op.path} does not exist`);
      else if (op.op === 'replace') obj[last] = value;
      else if (op.op === 'remove') delete obj[last];
      else throw new Error(`kustomize-lite: JSON patch op '${op.op}' is not supported`);
    }
  }
}

// ---- images ---------------------------------------------------------------------------------------

/** Splits an image reference into name, tag and digest ("registry:5000/app:1.2@sha256:…"). */
export function parseImage(ref: string): { name: string; tag?: string; digest?: string } {
  const [rest, digest] = ref.split('@');
  const slash = rest.lastIndexOf('/');
  const colon = rest.lastIndexOf(':');
  return colon > slash ? { name: rest.slice(0, colon), tag: rest.slice(colon + 1), digest } : { name: rest, digest };
}

function retagImages(node: Json, image: NonNullable<Kustomization['images']>[number]) {
  if (Array.isArray(node)) return node.forEach((n) => retagImages(n, image));
  if (node === null || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node)) {
    if ((key === 'containers' || key === 'initContainers') && Array.isArray(value)) {
      for (const c of value as Array<{ image?: string }>) {
        if (typeof c?.image !== 'string') continue;
        const ref = parseImage(c.image);
        if (ref.name !== image.name) continue;
        const name = image.newName ?? ref.name;
        if (image.digest) c.image = `${name}@${image.digest}`;
        else if (image.newTag) c.image = `${name}:${image.newTag}`;
        else c.image = name + (ref.tag ? `:${ref.tag}` : '') + (ref.digest ? `@${ref.digest}` : '');
      }
    }
    retagImages(value, image);
  }
}
