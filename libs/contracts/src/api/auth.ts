import { z } from 'zod';
import { Timestamp, Uuid } from './common';

export const LoginBody = z.object({ email: z.string().email(), password: z.string().min(1).max(1024) });
export const LoginResponse = z.object({
  token: z.string(),
  expires_at: Timestamp,
  user: z.object({
    id: Uuid,
    email: z.string(),
    name: z.string().nullable(),
    memberships: z.array(z.object({ org_id: Uuid, role: z.string() })),
  }),
});
export const ApiKeyRecord = z.object({
  id: Uuid,
  name: z.string(),
  prefix: z.string(),
  created_at: Timestamp,
  last_used_at: Timestamp.nullable(),
  revoked_at: Timestamp.nullable(),
});
export const ApiKeyList = z.object({ api_keys: z.array(ApiKeyRecord) });
export const ApiKeyEnvelope = z.object({ api_key: ApiKeyRecord });
export const CreateApiKeyBody = z.object({ name: z.string().trim().min(1).max(200) });
export const CreateApiKeyResponse = z.object({ api_key: ApiKeyRecord, secret: z.string() });
