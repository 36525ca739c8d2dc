// @docfleet/models/test-servers: local HTTP servers speaking the Anthropic and OpenAI wire formats,
// for tests anywhere in the workspace (nothing in the suite calls the internet).
export {
  startFakeAnthropicServer,
  type FakeAnthropicServer,
  type FakeAnthropicOptions,
  type AnthropicReply,
} from './fake-anthropic-server';
export {
  startFakeOpenAiServer,
  type FakeOpenAiServer,
  type FakeOpenAiOptions,
  type OpenAiReply,
} from './fake-openai-server';
export type { ScriptedReply, RecordedRequest, FakeServer } from './fake-server-core';
export { sampleFromSchema } from './sample-from-schema';
