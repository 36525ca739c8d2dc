// Types of the account, knowledge base and file endpoints, inferred from the zod schemas the gateway
// validates with (@docfleet/contracts), so client and server share one definition (types.ts holds the
// jobs, artifacts, search and workflows). Type-only imports: the SDK loads neither zod nor the
// contracts at run time.
import type { api } from '@docfleet/contracts';
import type { z } from 'zod';

export type ErrorEnvelope = z.infer<typeof api.ErrorEnvelope>;

// Knowledge bases and folders
export type KnowledgeBase = z.infer<typeof api.KnowledgeBase>;
export type CreateKnowledgeBaseBody = z.input<typeof api.CreateKnowledgeBaseBody>;
export type UpdateKnowledgeBaseBody = z.input<typeof api.UpdateKnowledgeBaseBody>;
export type KnowledgeBaseDeleteReport = z.infer<typeof api.KnowledgeBaseDeleteReport>;
export type Folder = z.infer<typeof api.Folder>;
export type CreateFolderBody = z.input<typeof api.CreateFolderBody>;
export type KnowledgeBaseEnvelope = z.infer<typeof api.KnowledgeBaseEnvelope>;
export type KnowledgeBaseList = z.infer<typeof api.KnowledgeBaseList>;
export type FolderEnvelope = z.infer<typeof api.FolderEnvelope>;

// Index
/** The knowledge-base listing (`GET …/index`); the SDK keeps its public name. */
export type IndexEnvelope = z.infer<typeof api.KbListing>;
export type IndexEntry = z.infer<typeof api.KbListingEntry>;
export type JobSummary = z.infer<typeof api.JobSummary>;

// Files
export type FileRecord = z.infer<typeof api.FileRecord>;
export type FileVersion = z.infer<typeof api.FileVersion>;
export type MoveFileBody = z.input<typeof api.MoveFileBody>;
export type FileEnvelope = z.infer<typeof api.FileEnvelope>;
export type FilePage = z.infer<typeof api.FilePage>;

// Billing
export type Credits = z.infer<typeof api.Credits>;
export type LedgerEntry = z.infer<typeof api.LedgerEntry>;
export type LedgerDay = z.infer<typeof api.LedgerDay>;
export type LedgerPage = z.infer<typeof api.LedgerPage>;

// Access
export type LoginBody = z.input<typeof api.LoginBody>;
export type LoginResponse = z.infer<typeof api.LoginResponse>;
export type ApiKeyRecord = z.infer<typeof api.ApiKeyRecord>;
export type CreateApiKeyBody = z.input<typeof api.CreateApiKeyBody>;
export type CreateApiKeyResponse = z.infer<typeof api.CreateApiKeyResponse>;
export type ApiKeyList = z.infer<typeof api.ApiKeyList>;
export type ApiKeyEnvelope = z.infer<typeof api.ApiKeyEnvelope>;

// Document shapes (grounding JSON, segments) are plain interfaces in the contracts package.
export type {
  GroundingDocument,
  GroundingElement,
  GroundingPage,
  Segment,
  TableCell,
  PageCoordinates,
  SpreadsheetCoordinates,
  TableMetadata,
} from '@docfleet/contracts';

// Webhooks and the event stream
export type WebhookEvent = z.infer<typeof api.WebhookEvent>;
export type WebhookEventType = z.infer<typeof api.WebhookEventType>;
export type WebhookEndpoint = z.infer<typeof api.WebhookEndpoint>;
export type CreateWebhookBody = z.input<typeof api.CreateWebhookBody>;
export type UpdateWebhookBody = z.input<typeof api.UpdateWebhookBody>;
export type WebhookWithSecret = z.infer<typeof api.WebhookWithSecret>;
export type WebhookDelivery = z.infer<typeof api.WebhookDelivery>;
export type WebhookDeliveryPage = z.infer<typeof api.WebhookDeliveryPage>;
export type JobProgressEvent = z.infer<typeof api.JobProgressEvent>;
export type EventStreamMessage = z.infer<typeof api.EventStreamMessage>;
