import { z } from 'zod';
import type { AgentService } from '../agents/agent.service.js';
import type { DocumentService } from '../documents/document.service.js';
import type { EntryService } from '../entries/entry.service.js';
import type { Json } from '../json.js';
import type { Principal } from '../principal.js';
import type { ScheduleService } from '../schedules/schedule.service.js';
import { parse } from '../validation.js';

// The shape of one Endpoint Management operation (endpoint-management.operations.ts lists them):
// its tool, its GraphQL mutation, its arguments and how it runs and answers.

/** The services the operations call. */
export interface EndpointServices {
  agents: AgentService;
  entries: EntryService;
  documents: DocumentService;
  schedules: ScheduleService;
}

/** Arguments as an operation receives them: `input` unchecked (its service checks it). */
type Args<S extends z.ZodRawShape> = { [K in keyof S]: K extends 'input' ? unknown : z.output<S[K]> };

export interface EndpointOperation<S extends z.ZodRawShape = z.ZodRawShape, R = unknown> {
  /** The agent's tool. */
  tool: string;
  /** The GraphQL mutation that runs the same operation; null for `list_surfaces`, which reads what the `agent` query shows. */
  mutation: string | null;
  description: string;
  /**
   * The arguments, named and shaped as the GraphQL field's. `agentId`, when present, is the agent
   * acted on (a tool binds it to the running agent); `input` is the service's own input schema.
   */
  args: z.ZodObject<S>;
  /** Checks the arguments other than `input`, then runs the operation as `p`. */
  call(s: EndpointServices, p: Principal, args: unknown): Promise<R>;
  /** The tool's answer: the fields the agent sees, as JSON. */
  answer(result: R): Json;
}

export function operation<S extends z.ZodRawShape, R>(o: {
  tool: string;
  mutation: string | null;
  description: string;
  args: S;
  run: (s: EndpointServices, p: Principal, args: Args<S>) => Promise<R>;
  answer: (result: R) => Json;
}): EndpointOperation<S, R> {
  // `input` is left to the service: it parses it with the same schema, naming fields `input.…`.
  // Only its absence is refused here, in words a model can act on.
  const input = z.unknown().refine((v) => v !== undefined, { message: 'required: pass the fields as an object' });
  const outer = z.object(Object.fromEntries(Object.entries(o.args).map(([k, v]) => [k, k === 'input' ? input : v])));
  return {
    tool: o.tool,
    mutation: o.mutation,
    description: o.description,
    args: z.object(o.args),
    call: async (s, p, args) => o.run(s, p, parse(outer, args) as Args<S>),
    answer: o.answer,
  };
}

/**
 * What the tools' argument schemas say of some fields (the GraphQL inputs say the same). Kept off the
 * shared schemas, from which the agent manifest's JSON Schema is written too.
 */
export const TOOL_DESCRIPTIONS = z.registry<{ description: string }>();
