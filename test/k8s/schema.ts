// Validates rendered objects against the Kubernetes OpenAPI schemas shipped in kubernetes-models, and
// KEDA objects against KEDA's CRD schemas (@kubernetes-models/keda). Types, required fields, enums
// and formats (quantities, int-or-string) are checked. These schemas allow unknown fields, so a
// misspelt field is caught by the policy checks instead (a misspelt probe is a missing probe).
import { ScaledObject, TriggerAuthentication } from '@kubernetes-models/keda/keda.sh/v1alpha1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Namespace, PersistentVolumeClaim, Secret, Service } from 'kubernetes-models/v1';
import type { K8sObject } from './kustomize';

type Model = new (data: never) => { validate(): void };

// Every kind k8s/ may render. A kind missing here fails validation, so a new kind gets a schema.
const MODELS: Record<string, Model> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Namespace': Namespace,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'batch/v1/Job': Job,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'networking.k8s.io/v1/Ingress': Ingress,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'keda.sh/v1alpha1/ScaledObject': ScaledObject,
  'keda.sh/v1alpha1/TriggerAuthentication': TriggerAuthentication,
};

/** Schema problems of one object (empty when it validates). */
export function schemaErrors(o: K8sObject): string[] {
  const where = `${o.kind ?? '?'} ${o.metadata?.name ?? '?'}`;
  const Model = MODELS[`${o.apiVersion}/${o.kind}`];
  if (!Model) return [`${where}: no schema for ${o.apiVersion} ${o.kind} (add it to test/k8s/schema.ts)`];
  try {
    new Model(structuredClone(o) as never).validate();
    return [];
  } catch (err) {
    return [`${where}: ${(err as Error).message}`];
  }
}
