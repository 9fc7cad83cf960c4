import { z } from 'zod';
import { functionParameters } from './openai-input.js';

// The Responses request's shape (`POST …/responses`), as zod schemas; `responses.ts` reads it.

const inputText = z.object({ type: z.literal('input_text'), text: z.string() });
const outputText = z.object({ type: z.literal('output_text'), text: z.string() });
export const inputImage = z.object({
  type: z.literal('input_image'),
  image_url: z.string().nullish(),
  file_id: z.string().nullish(),
  detail: z.string().optional(),
});
const otherPart = z.object({ type: z.string() });
export const part = z.union([
  inputText,
  outputText,
  inputImage,
  z.object({ type: z.literal('refusal'), refusal: z.string() }),
  otherPart,
]);

export const messageItem = z.object({
  type: z.literal('message').optional(),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.union([z.string(), z.array(part)]),
});
export const functionCallItem = z.object({
  type: z.literal('function_call'),
  call_id: z.string().min(1).max(200),
  name: z.string().min(1).max(64),
  arguments: z.string(),
});
export const functionCallOutputItem = z.object({
  type: z.literal('function_call_output'),
  call_id: z.string().min(1).max(200),
  output: z.union([z.string(), z.array(part)]),
});
// Loose: an item of a known type that fails its own schema keeps its fields, for `checked` to name the bad one.
const otherItem = z.looseObject({ type: z.string() });
const item = z.union([functionCallItem, functionCallOutputItem, messageItem, otherItem]);

const tool = z.object({
  type: z.string(),
  name: z.string().optional(),
  description: z.string().max(10_000).nullish(),
  parameters: functionParameters.nullable(),
  strict: z.boolean().nullish(),
});

const toolChoice = z.union([
  z.enum(['none', 'auto', 'required']),
  z.object({ type: z.literal('function'), name: z.string() }),
]);

const format = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    name: z.string().max(64).optional(),
    description: z.string().optional(),
    schema: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullish(),
  }),
]);

export const request = z.object({
  model: z.string().max(200).optional(),
  input: z.union([z.string(), z.array(item)]),
  instructions: z.string().nullish(),
  previous_response_id: z.string().min(1).max(200).nullish(),
  store: z.boolean().nullish(),
  stream: z.boolean().nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  max_output_tokens: z.number().int().min(1).nullish(),
  tools: z.array(tool).nullish(),
  tool_choice: toolChoice.nullish(),
  text: z.object({ format: format.optional() }).nullish(),
  metadata: z.record(z.string(), z.string().max(512)).nullish(),
});
