// Types of the endpoints the gateway already serves, inferred from the zod schemas it validates
// with (@docfleet/contracts), so client and server share one definition. Type-only imports: the
// SDK loads neither zod nor the contracts at run time.
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
export interface KnowledgeBaseEnvelope { knowledge_base: KnowledgeBase }
export interface KnowledgeBaseList { knowledge_bases: KnowledgeBase[] }
export interface FolderEnvelope { folder: Folder }

// Index
export type IndexEnvelope = z.infer<typeof api.IndexEnvelope>;
export type IndexEntry = z.infer<typeof api.IndexEntry>;
export type JobSummary = z.infer<typeof api.JobSummary>;

// Files
export type FileRecord = z.infer<typeof api.FileRecord>;
export type FileVersion = z.infer<typeof api.FileVersion>;
export type MoveFileBody = z.input<typeof api.MoveFileBody>;
export interface FileEnvelope { file: FileRecord }
export interface FilePage { files: FileRecord[]; next_cursor: string | null }

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
export interface ApiKeyList { api_keys: ApiKeyRecord[] }
export interface ApiKeyEnvelope { api_key: ApiKeyRecord }

// Document shapes (grounding JSON, segments) are plain interfaces in the contracts package.
export type { GroundingDocument, GroundingElement, GroundingPage, Segment, TableCell, PageCoordinates, SpreadsheetCoordinates, TableMetadata } from '@docfleet/contracts';
