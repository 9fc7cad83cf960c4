import type { ToolCall, ToolDefinition } from '../models/language-model.ports.js';

// Where a run pauses for a person (issue 54, docs/decisions.md "Approvals (issue 54)"): a tool
// that needs approval is given to the model without `execute`, so the AI SDK's loop ends on a call
// of it exactly as on a caller's own tool; the run then stores itself and ends "awaiting approval".

/** The agent's tools as the model is given them: those in `gated` without `execute`. */
export function gatedTools(tools: ToolDefinition[], gated: ReadonlySet<string> | null): ToolDefinition[] {
  if (!gated?.size) return tools;
  return tools.map((t) =>
    gated.has(t.name) ? { name: t.name, description: t.description, inputSchema: t.inputSchema } : t,
  );
}

/** The first call of the loop's last turn that waits for a person, if any (one is decided at a time). */
export function approvalCall(calls: ToolCall[], gated: ReadonlySet<string> | null): ToolCall | null {
  if (!gated?.size) return null;
  return calls.find((c) => gated.has(c.name)) ?? null;
}

/** What a caller that knows nothing of approvals reads as the paused run's output. */
export function pausedOutput(a: { id: string; toolName: string; expiresAt: Date }): string {
  return `This run is waiting for a person to approve a call of ${a.toolName} (approval ${a.id}, until ${a.expiresAt.toISOString()}); it continues once they decide.`;
}
